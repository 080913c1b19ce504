//! `accelgen sim rocket --program`: the program's console output and exit code, the
//! cycle/instruction/CPI line, lockstep with the ISS, memory timing flags, and clear
//! errors for bad programs and misused flags.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use verification::toolchain::{build_elf, BuildOptions, Kind};

fn accelgen() -> Command {
    Command::cargo_bin("accelgen").unwrap()
}

fn build_c(dir: &Path, name: &str, source: &str) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).unwrap();
    let elf = dir.join(format!("{name}.elf"));
    build_elf(&[src], &elf, &BuildOptions::new(Kind::C)).unwrap()
}

const HELLO: &str = r#"
#include <stdio.h>
int main(void) {
    for (int i = 0; i < 3; i++)
        printf("line %d\n", i);
    return 42;
}
"#;

fn config(preset: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("configs/{preset}.toml"))
}

#[test]
fn runs_a_program_to_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c(dir.path(), "hello", HELLO);
    for (preset, extra) in [
        (
            "rocket-small",
            vec!["--latency", "10", "--stall-percent", "20"],
        ),
        (
            "rocket-default",
            vec!["--lockstep", "--latency", "100", "--jitter", "5"],
        ),
    ] {
        let out = accelgen()
            .args(["sim", "rocket", "--config"])
            .arg(config(preset))
            .arg("--program")
            .arg(&elf)
            .args(&extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(42), "{preset}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "line 0\nline 1\nline 2\n"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("exit code 42, "), "{err}");
        assert!(err.contains(" instructions, CPI "), "{err}");
        if extra.contains(&"--lockstep") {
            assert!(err.contains("commits matched the ISS"), "{err}");
        }
    }
}

#[test]
fn large_exit_codes_become_255() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c(dir.path(), "big", "int main(void) { return 512; }\n");
    let out = accelgen()
        .args(["sim", "rocket", "--program"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exit code 512 does not fit"));
}

#[test]
fn bad_programs_and_flags_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.elf");
    std::fs::write(&junk, "not an elf").unwrap();
    let out = accelgen()
        .args(["sim", "rocket", "--program"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: loading "), "{err}");
    assert!(!err.contains("panicked"), "{err}");

    let missing = dir.path().join("missing.elf");
    let out = accelgen()
        .args(["sim", "rocket", "--program"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));

    // Lockstep and memory timing describe a program run.
    let out = accelgen()
        .args(["sim", "rocket", "--lockstep"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--program"));

    // A program that never exits is stopped at the cycle limit.
    let spin = build_c(dir.path(), "spin", "int main(void) { for (;;) {} }\n");
    let out = accelgen()
        .args(["sim", "rocket", "--max-cycles", "5000", "--program"])
        .arg(&spin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("did not exit within 5000 cycles"),
        "{out:?}"
    );
}

#[test]
fn the_accumulator_design_runs_rocc_programs() {
    let dir = tempfile::tempdir().unwrap();
    let src = "int main(void)\n{\n    long r;\n    \
               asm volatile(\".insn r CUSTOM_0, 2, 0, x0, %0, x1\" : : \"r\"(5L));\n    \
               asm volatile(\".insn r CUSTOM_0, 2, 3, x0, %0, x1\" : : \"r\"(4L));\n    \
               asm volatile(\".insn r CUSTOM_0, 4, 1, %0, x0, x1\" : \"=r\"(r));\n    \
               return (int)r;\n}\n";
    let elf = build_c(dir.path(), "acc", src);
    let out = accelgen()
        .args([
            "sim",
            "rocket_accumulator",
            "--lockstep",
            "--latency",
            "5",
            "--program",
        ])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(9), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("commits matched the ISS"));
    // Without an accelerator, custom-0 is an illegal instruction; the C start-up code's
    // trap handler exits with 128 + mcause.
    let out = accelgen()
        .args(["sim", "rocket", "--lockstep", "--program"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
}
