//! `accelgen iss`: exit codes, console output and `--log-commits` checked against Spike
//! (RV64 and, picked by the ELF's class, RV32 programs using float and double);
//! the instruction limit; clear errors for bad input; `--hwacha [--lanes N]` running a
//! Hwacha microbenchmark built by `accelgen asm`, reporting Hwacha exceptions, and
//! refusing lane counts the generator cannot build.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use verification::iss::{FpExt, Isa, Xlen};
use verification::spike::{commit_lines, run_spike, spike_path};
use verification::toolchain::{build_elf, BuildOptions, Kind};

fn build(dir: &Path, name: &str, source: &str, kind: Kind) -> PathBuf {
    let ext = if kind == Kind::C { "c" } else { "S" };
    let src = dir.join(format!("{name}.{ext}"));
    std::fs::write(&src, source).unwrap();
    build_elf(
        &[src],
        &dir.join(format!("{name}.elf")),
        &BuildOptions::new(kind),
    )
    .unwrap()
}

fn accelgen() -> Command {
    Command::cargo_bin("accelgen").unwrap()
}

const HELLO: &str = r#"
#include <stdio.h>
int main(void) {
    for (int i = 0; i < 3; i++)
        printf("line %d of %s\n", i, "hello");
    return 42;
}
"#;

#[test]
fn exit_code_and_console_match_spike() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "hello", HELLO, Kind::C);
    let spike = run_spike(&spike_path().unwrap(), &elf, FpExt::FD).unwrap();
    assert_eq!(spike.exit_code, 42, "the program returns 42");
    let out = accelgen().arg("iss").arg(&elf).output().unwrap();
    assert_eq!(out.status.code(), Some(42));
    assert_eq!(out.stdout, spike.stdout);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "line 0 of hello\nline 1 of hello\nline 2 of hello\n"
    );
    // No log unless asked; a failing exit is explained (HTIF: tohost = 42 << 1 | 1).
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{}: the program exited with code 42 (tohost 0x55)\n",
            elf.display()
        )
    );
}

#[test]
fn log_commits_goes_to_stderr_in_spike_format() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "hello", HELLO, Kind::C);
    let spike = run_spike(&spike_path().unwrap(), &elf, FpExt::FD).unwrap();
    let out = accelgen()
        .args(["iss", "--log-commits"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(42));
    let stderr = String::from_utf8(out.stderr).unwrap();
    // The exit is explained after the log.
    let explanation = format!(
        "{}: the program exited with code 42 (tohost 0x55)\n",
        elf.display()
    );
    let stderr = stderr
        .strip_suffix(&explanation)
        .expect("the explanation last");
    // Everything else on stderr is a commit line, and apart from the reset ROM it is
    // Spike's log.
    assert!(stderr.lines().all(|l| l.starts_with("core   0: 3 0x")));
    assert!(
        stderr.starts_with("core   0: 3 0x0000000000001000 (0x00000297) x5  0x0000000000001000\n")
    );
    assert_eq!(commit_lines(stderr), spike.log);
}

/// An RV32 program using float and double, built for RV32IMAFD: `accelgen iss` runs it
/// as an RV32 hart (the ELF's class) with the same log, output and exit code as Spike.
#[test]
fn rv32_programs_run_as_rv32_and_match_spike() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fp32.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nvolatile float f = 2.5f; volatile double d = 0.1;\n\
         int main(void) { printf(\"%d %d\\n\", (int)(f * 3), (int)(d * 100)); \
         return (int)(f * d * 40); }\n",
    )
    .unwrap();
    let opts = BuildOptions {
        isa: Isa {
            xlen: Xlen::Rv32,
            fp: FpExt::FD,
        },
        ..BuildOptions::new(Kind::C)
    };
    let elf = build_elf(&[src], &dir.path().join("fp32.elf"), &opts).unwrap();
    let spike = run_spike(&spike_path().unwrap(), &elf, FpExt::FD).unwrap();
    assert_eq!(spike.exit_code, 10);
    let out = accelgen()
        .args(["iss", "--log-commits"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(10));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "7 10\n");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("core   0: 3 0x00001000 (0x00000297) x5  0x00001000\n"));
    assert_eq!(commit_lines(&stderr), spike.log);
}

#[test]
fn max_instret_stops_a_program_that_never_exits() {
    let dir = tempfile::tempdir().unwrap();
    let src = "  .section .text.init\n  .globl _start\n_start:\n  j _start\n  .data\n  .globl tohost\ntohost: .dword 0\n";
    let elf = build(dir.path(), "spin", src, Kind::BareAsm);
    let out = accelgen()
        .args(["iss", "--max-instret", "1000"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err,
        "error: step limit reached: 1000 instructions retired and 0 traps taken without the \
         program exiting (--max-instret 1000)\n"
    );
    // With the log on, exactly 1000 instructions are printed before the error.
    let out = accelgen()
        .args(["iss", "--log-commits", "--max-instret", "1000"])
        .arg(&elf)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.starts_with("core")).count(), 1000);
}

fn expect_error(path: &Path, message: &str) {
    let out = accelgen().arg("iss").arg(path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(message), "expected {message:?} in {err:?}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    expect_error(&d.join("missing.elf"), "cannot read");

    let text = d.join("text.elf");
    std::fs::write(&text, "hello, not an ELF\n").unwrap();
    expect_error(&text, "not an ELF file");

    // The host's own executables are ELF files for another machine.
    expect_error(Path::new("/bin/sh"), "ELF machine is 62, not RISC-V");

    let good = build(d, "hello", HELLO, Kind::C);
    let bytes = std::fs::read(&good).unwrap();
    let truncated = d.join("truncated.elf");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    expect_error(&truncated, "truncated ELF file");
    std::fs::write(&truncated, &bytes[..40]).unwrap();
    expect_error(&truncated, "truncated ELF file: the ELF header");

    let src = "  .section .text.init\n  .globl _start\n_start:\n  j _start\n";
    let no_tohost = build(d, "notohost", src, Kind::BareAsm);
    expect_error(&no_tohost, "no `tohost` symbol");

    let rv32_src = d.join("rv32.S");
    std::fs::write(&rv32_src, "  .globl _start\n_start:\n  j _start\n").unwrap();
    let rvc = d.join("rvc.elf");
    let status = std::process::Command::new(verification::toolchain::GCC)
        .args([
            "-march=rv32imac",
            "-mabi=ilp32",
            "-nostdlib",
            "-nostartfiles",
            "-o",
        ])
        .arg(&rvc)
        .arg(&rv32_src)
        .status()
        .unwrap();
    assert!(status.success());
    expect_error(&rvc, "ELF flags 0x1 ask for compressed instructions (C)");
    let rve = d.join("rve.elf");
    let status = std::process::Command::new(verification::toolchain::GCC)
        .args(["-march=rv32e", "-mabi=ilp32e", "-nostdlib", "-o"])
        .arg(&rve)
        .arg(&rv32_src)
        .status()
        .unwrap();
    assert!(status.success());
    expect_error(&rve, "ELF flags 0x8 ask for the E base (16 registers)");

    let object = d.join("obj.o");
    let status = std::process::Command::new(verification::toolchain::GCC)
        .args(["-march=rv64i", "-mabi=lp64", "-c", "-o"])
        .arg(&object)
        .arg(&rv32_src)
        .status()
        .unwrap();
    assert!(status.success());
    expect_error(&object, "not an executable");
}

/// The Hwacha microbenchmarks' sources.
fn ubench_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("verification/programs/hwacha/ubench")
}

#[test]
fn exit_codes_beyond_a_byte_do_not_read_as_success() {
    let dir = tempfile::tempdir().unwrap();
    let src = "int main(void) { return 512; }\n";
    let elf = build(dir.path(), "big", src, Kind::C);
    let out = accelgen().arg("iss").arg(&elf).output().unwrap();
    assert_eq!(out.status.code(), Some(255));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{}: the program exited with code 512 (tohost 0x401)\n\
             note: the program's exit code 512 does not fit a process status; exiting with 255\n",
            elf.display()
        )
    );
}

/// A bare program whose trap vector is `handler` (its body), then an illegal
/// instruction to enter it.
fn trap_program(dir: &Path, name: &str, handler: &str) -> PathBuf {
    let src = format!(
        "  .section .text.init\n  .globl _start\n_start:\n  la t0, handler\n  csrw mtvec, t0\n  \
         .word 0\n  .align 2\nhandler:\n{handler}\n  .data\n  .globl tohost\ntohost: .dword 0\n"
    );
    build(dir, name, &src, Kind::BareAsm)
}

#[test]
fn a_trap_loop_stops_at_once_and_traps_count_toward_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    // mtvec at an illegal instruction: the handler traps itself forever.
    let elf = trap_program(dir.path(), "loop", "  .word 0");
    let handler = verification::elf::load_file(&elf)
        .unwrap()
        .symbol("handler")
        .unwrap();
    let out = accelgen().arg("iss").arg(&elf).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: trap loop: the trap handler's first instruction at pc {handler:#x} traps \
             itself (illegal instruction, mcause 2, mtval 0x0), so the program can never \
             continue\n"
        )
    );
    // A handler that traps on its second instruction loops without being caught as a
    // trap loop; the limit counts its traps as steps.
    let elf = trap_program(dir.path(), "loop2", "  nop\n  .word 0");
    let out = accelgen()
        .args(["iss", "--max-instret", "1001"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // Reset ROM (5) + la (2) + csrw (1) = 8 instructions, then a trap, then (nop, trap)
    // pairs: 8 + 1 + 2k >= 1001 at k = 496 (496 nops, 497 traps).
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: step limit reached: 504 instructions retired and 497 traps taken without the \
         program exiting (--max-instret 1001)\n"
    );
}

#[test]
fn iss_has_a_documented_default_limit() {
    let out = accelgen().args(["iss", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("[default: 1000000000]"), "{help}");
    assert!(help.contains("plus traps taken"), "{help}");
}

#[test]
fn failing_programs_are_explained() {
    let dir = tempfile::tempdir().unwrap();
    // riscv-tests' RVTEST_FAIL for test 3: tohost = 3 << 1 | 1.
    let src = "  .section .text.init\n  .globl _start\n_start:\n  li t0, 7\n  la t1, tohost\n  \
               sd t0, 0(t1)\n1: j 1b\n  .data\n  .globl tohost\ntohost: .dword 0\n";
    let elf = build(dir.path(), "fail3", src, Kind::BareAsm);
    let out = accelgen().arg("iss").arg(&elf).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{}: tohost 0x7: FAILED test 3 (exit code 3)\n",
            elf.display()
        )
    );
    // A C program's load from address 0x10 (outside RAM): the runtime's handler exits
    // with 128 + 5 (load access fault); the message names the load's pc from the
    // symbol table.
    let elf = build(dir.path(), "fault", FAULT, Kind::C);
    let pc = verification::elf::load_file(&elf)
        .unwrap()
        .symbol("faulting_load")
        .unwrap();
    let out = accelgen().arg("iss").arg(&elf).output().unwrap();
    assert_eq!(out.status.code(), Some(133));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "{}: the program trapped: load access fault (mcause 5) at pc {pc:#x}, mtval 0x10; \
             the C runtime's trap handler exited with 128 + mcause = 133\n",
            elf.display()
        )
    );
}

/// A C program whose load at symbol `faulting_load` reads address 0x10.
const FAULT: &str = r#"
int main(void) {
    long v;
    __asm__ volatile(".globl faulting_load\nfaulting_load: ld %0, 0(%1)" : "=r"(v) : "r"(0x10L));
    return (int)v;
}
"#;

/// An ELF like `good` whose first loadable segment has memory size `memsz`.
fn with_memsz(good: &Path, out: &Path, memsz: u64) {
    let mut b = std::fs::read(good).unwrap();
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let phoff = u64_at(&b, 32) as usize;
    let (phentsize, phnum) = (
        u16::from_le_bytes([b[54], b[55]]) as usize,
        u16::from_le_bytes([b[56], b[57]]) as usize,
    );
    let load = (0..phnum)
        .map(|i| phoff + i * phentsize)
        .find(|&ph| u32::from_le_bytes(b[ph..ph + 4].try_into().unwrap()) == 1)
        .expect("a PT_LOAD segment");
    b[load + 40..load + 48].copy_from_slice(&memsz.to_le_bytes());
    std::fs::write(out, b).unwrap();
}

#[test]
fn huge_segments_are_refused_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    let good = build(dir.path(), "hello", HELLO, Kind::C);
    let base = verification::elf::load_file(&good).unwrap().segments[0].addr;
    for memsz in [256u64 << 30, 0x9000_0000] {
        let elf = dir.path().join("huge.elf");
        with_memsz(&good, &elf, memsz);
        // 1 GiB of address space: the 2.25 GiB segment must not be allocated either.
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 1048576; exec {} iss {}",
                assert_cmd::cargo::cargo_bin("accelgen").display(),
                elf.display()
            ))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{memsz:#x}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "error: loading {}: ELF segment at {base:#x} (+{memsz:#x} bytes) is outside \
                 simulated RAM 0x80000000..0x100000000\n",
                elf.display()
            )
        );
    }
}

#[test]
fn hwacha_runs_a_microbenchmark_built_by_asm() {
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("hsaxpy.elf");
    let src = ubench_dir();
    accelgen()
        .arg("asm")
        .arg(src.join("axpy.c"))
        .arg(src.join("axpy.S"))
        .args(["-D", "PREC_HS", "-o"])
        .arg(&elf)
        .assert()
        .success();
    // Two vector registers (32-bit: single-precision arithmetic): maxvl = 256/2 entries
    // * 4 banks * 2 slices per lane; with mixed precision they pack two strips to an
    // entry, 4 * 256 / (2 * 2) = 256 strips a lane. The program sizes its problem to
    // 1.5 maxvl + 3 and checks itself.
    for (lanes, mixed, expected) in [
        (
            None,
            false,
            "hsaxpy: maxvl 1024, size 1539: 1 run(s) match the scalar reference\n",
        ),
        (
            Some("4"),
            false,
            "hsaxpy: maxvl 4096, size 6147: 1 run(s) match the scalar reference\n",
        ),
        (
            Some("4"),
            true,
            "hsaxpy: maxvl 8192, size 12291: 1 run(s) match the scalar reference\n",
        ),
    ] {
        let mut cmd = accelgen();
        cmd.arg("iss").arg(&elf).arg("--hwacha");
        if let Some(n) = lanes {
            cmd.args(["--lanes", n]);
        }
        if mixed {
            cmd.arg("--mixed-precision");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
        assert!(out.stderr.is_empty(), "{out:?}");
    }
    // Without the unit, the first control-thread instruction is an illegal instruction
    // (mcause 2), which the C start-up code's trap handler turns into exit code 130.
    accelgen().arg("iss").arg(&elf).assert().code(130);
}

#[test]
fn hwacha_exceptions_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.S");
    let program = "  .text\n  .globl main\nmain:\n  vsetcfg 4, 1\n  li a0, 8\n  vsetvl a0, a0\n  vf blk\n  li a0, 0\n  ret\n  .align 3\nblk:\n  vadd vv5, vv1, vv2\n  vstop\n";
    std::fs::write(&src, program).unwrap();
    let elf = dir.path().join("bad.elf");
    accelgen()
        .arg("asm")
        .arg(&src)
        .arg("-o")
        .arg(&elf)
        .assert()
        .success();
    let out = accelgen()
        .arg("iss")
        .arg(&elf)
        .arg("--hwacha")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: Hwacha exception: illegal worker instruction"),
        "{err}"
    );
    assert!(err.contains("vv5 is out of range"), "{err}");
    assert!(err.ends_with("(`vadd vv5, vv1, vv2`)\n"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_lane_counts_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "hello", HELLO, Kind::C);
    // The generator's limit (`hwacha.lanes`): a machine `accelgen generate` can build.
    for lanes in ["0", "3", "12", "128", "65536"] {
        let out = accelgen()
            .arg("iss")
            .arg(&elf)
            .args(["--hwacha", "--lanes", lanes])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "error: --lanes must be a power of two in 1..=64 (the generator's \
                 `hwacha.lanes`), got {lanes}\n"
            )
        );
        assert!(out.stdout.is_empty(), "the program must not run");
    }
    // The largest machine runs.
    let out = accelgen()
        .arg("iss")
        .arg(&elf)
        .args(["--hwacha", "--lanes", "64"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(42), "{out:?}");
    // --lanes describes the Hwacha unit, so it needs --hwacha (a usage error).
    let out = accelgen()
        .arg("iss")
        .arg(&elf)
        .args(["--lanes", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--hwacha"),
        "{out:?}"
    );
}
