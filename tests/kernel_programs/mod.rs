//! Checking the SPMD kernel programs of `kernels/` (see `kernels/README.md`), shared by
//! `tests/simt_kernels.rs` (`kernels/*.c`) and `tests/rodinia_kernels.rs`
//! (`kernels/rodinia/*.c`). A program is named by its path under `kernels/` without
//! `.c`: "conv", "rodinia/nn".
//!
//! Each built by `accelgen asm --target simt` and run by `accelgen iss` (the RV32IMAF
//! golden model, a launch's threads one after another) exits 0, its kernels' results
//! equal to the host's reference, and its kernels are leaf code (no calls, no stack, no
//! indirect jumps); built with `-DSIMT_SELFTEST_SKIP_LAST` (every launch one thread
//! short) it exits non-zero, so the check bites. Each is also compiled by the host's
//! `cc` with the native stand-in `kernels/native/simt.h` (threads last first) under
//! AddressSanitizer and UndefinedBehaviorSanitizer and must exit 0: a second compiler,
//! ISA and thread order.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::process::Output;

pub fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

/// The programs `kernels/<subdir>/*.c`, sorted, named as `check` takes them.
pub fn programs_in(subdir: &str) -> Vec<String> {
    let mut programs: Vec<String> = std::fs::read_dir(kernels_dir().join(subdir))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".c").map(|n| program_name(subdir, n))
        })
        .collect();
    programs.sort();
    programs
}

/// The name of kernels/<subdir>/<name>.c.
pub fn program_name(subdir: &str, name: &str) -> String {
    if subdir.is_empty() {
        name.to_owned()
    } else {
        format!("{subdir}/{name}")
    }
}

fn source(name: &str) -> PathBuf {
    kernels_dir().join(format!("{name}.c"))
}

fn accelgen() -> Command {
    Command::cargo_bin("accelgen").unwrap()
}

fn explain(what: &str, out: &Output) -> String {
    format!(
        "{what}: exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Builds kernels/<name>.c for the SIMT target with `defines`.
fn build(dir: &Path, name: &str, defines: &[&str]) -> PathBuf {
    let elf = dir.join(format!("{}{}.elf", name.replace('/', "-"), defines.len()));
    let mut build = accelgen();
    build.args(["asm", "--target", "simt"]);
    for d in defines {
        build.args(["-D", d]);
    }
    let out = build
        .arg(source(name))
        .arg("-o")
        .arg(&elf)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", explain("accelgen asm", &out));
    elf
}

fn iss_exit_code(elf: &Path) -> Option<i32> {
    accelgen()
        .arg("iss")
        .arg(elf)
        .output()
        .unwrap()
        .status
        .code()
}

/// The functions kernels/<name>.c launches: the last argument of each `launch(...)`
/// (its first argument may hold parentheses).
fn kernel_functions(name: &str) -> Vec<String> {
    let source = std::fs::read_to_string(source(name)).unwrap();
    let mut kernels: Vec<String> = source
        .split("launch(")
        .skip(1)
        .filter_map(|call| {
            let mut depth = 1;
            let end = call.find(|c| {
                depth += match c {
                    '(' => 1,
                    ')' => -1,
                    _ => 0,
                };
                depth == 0
            })?;
            Some(call[..end].rsplit(',').next()?.trim().to_owned())
        })
        .collect();
    kernels.sort();
    kernels.dedup();
    kernels
}

/// Every kernel of the program is leaf code, as the engines need: no calls (`jal`,
/// `jalr` but `ret`), no indirect jumps (switch tables) and no use of `sp` (the
/// per-thread stacks are 256 bytes; kernels keep their data in globals).
fn assert_leaf_kernels(elf: &Path, name: &str) {
    let out = std::process::Command::new("riscv64-unknown-elf-objdump")
        .args(["-d", "--no-show-raw-insn"])
        .arg(elf)
        .output()
        .unwrap();
    let listing = String::from_utf8(out.stdout).unwrap();
    let kernels = kernel_functions(name);
    assert!(!kernels.is_empty(), "{name} launches no kernel");
    for kernel in kernels {
        let header = format!(" <{kernel}>:");
        let body: Vec<&str> = listing
            .lines()
            .skip_while(|l| !l.ends_with(&header))
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect();
        assert!(!body.is_empty(), "{name}: no code for {kernel}");
        for line in body {
            let mut fields = line.split('\t').skip(1);
            let mnemonic = fields.next().unwrap_or("");
            let operands = fields.next().unwrap_or("");
            let uses_sp = operands
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| w == "sp");
            let jumps_away = ["jal", "jalr", "jr", "call", "tail"].contains(&mnemonic);
            assert!(!uses_sp && !jumps_away, "{name}: {kernel} has `{line}`");
        }
    }
}

/// Builds kernels/<name>.c with the host's C compiler and the native stand-in for
/// simt.h, and runs it; None when there is no `cc`. Linked with libm: natively,
/// `__builtin_sqrtf` calls `sqrtf` for negative inputs (errno).
fn native_exit_code(dir: &Path, name: &str) -> Option<Option<i32>> {
    let exe = dir.join(format!("{}-native", name.replace('/', "-")));
    let out = std::process::Command::new("cc")
        .args(["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-g"])
        .args(["-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
        .arg("-I")
        .arg(kernels_dir().join("native"))
        .arg(source(name))
        .arg("-lm")
        .arg("-o")
        .arg(&exe)
        .output();
    let Ok(out) = out else {
        eprintln!("skipped the native run of {name}: no cc");
        return None;
    };
    assert!(out.status.success(), "{}", explain("cc", &out));
    let run = std::process::Command::new(&exe).output().unwrap();
    assert!(run.stderr.is_empty(), "{}", explain(name, &run));
    Some(run.status.code())
}

/// The checks of one program, kernels/<name>.c.
pub fn check(name: &str) {
    let dir = tempfile::tempdir().unwrap();
    if let Some(code) = native_exit_code(dir.path(), name) {
        assert_eq!(code, Some(0), "{name} compiled natively");
    }
    if !verification::toolchain::available() {
        eprintln!("skipped the ISS runs of {name}: no riscv64-unknown-elf-gcc");
        return;
    }
    let elf = build(dir.path(), name, &[]);
    assert_leaf_kernels(&elf, name);
    assert_eq!(iss_exit_code(&elf), Some(0), "{name}");
    let skipped = iss_exit_code(&build(dir.path(), name, &["SIMT_SELFTEST_SKIP_LAST"]));
    assert!(
        matches!(skipped, Some(c) if c != 0),
        "{name} with a thread left out must fail its check, exited {skipped:?}"
    );
}

/// A test a kernel program of kernels/<subdir>/, `KERNELS` their names, and a test
/// that every program of the directory is in the list.
macro_rules! kernel_tests {
    ($subdir:literal: $($name:ident),* $(,)?) => {
        const KERNELS: &[&str] = &[$(stringify!($name)),*];
        $(
            #[test]
            fn $name() {
                $crate::kernel_programs::check(&$crate::kernel_programs::program_name(
                    $subdir,
                    stringify!($name),
                ));
            }
        )*

        /// Every kernel program in the directory has its test.
        #[test]
        fn every_kernel_is_tested() {
            let listed: Vec<String> = (KERNELS.iter())
                .map(|k| $crate::kernel_programs::program_name($subdir, k))
                .collect();
            assert_eq!($crate::kernel_programs::programs_in($subdir), listed);
        }
    };
}
