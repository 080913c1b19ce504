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

    // The vector unit's rounding mode: rocket-hwacha's only, one of RISC-V's five.
    let out = accelgen()
        .args(["sim", "rocket", "--frm", "rtz", "--program"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--frm is for design rocket-hwacha"), "{err}");
    let out = accelgen()
        .args(["sim", "rocket-hwacha", "--frm", "dyn", "--program"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'dyn' for '--frm <MODE>'"),
        "{err}"
    );

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
fn programs_are_checked_before_the_model_is_built() {
    let dir = tempfile::tempdir().unwrap();
    // A segment at 0x0, outside RAM: the ISS refuses it, and so must sim, at once.
    let src = dir.path().join("low.S");
    std::fs::write(
        &src,
        "  .globl _start\n_start: j _start\n  .data\n  .globl tohost\ntohost: .dword 0\n",
    )
    .unwrap();
    let elf = dir.path().join("low.elf");
    let status = std::process::Command::new(verification::toolchain::GCC)
        .args([
            "-march=rv64i",
            "-mabi=lp64",
            "-nostdlib",
            "-Wl,-Ttext=0",
            "-o",
        ])
        .arg(&elf)
        .arg(&src)
        .status()
        .unwrap();
    assert!(status.success());
    let program_error = |cmd: &[&str]| {
        let out = accelgen().args(cmd).arg(&elf).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let iss = program_error(&["iss"]);
    let sim = program_error(&["sim", "rocket", "--program"]);
    assert!(
        sim.starts_with(&format!(
            "error: loading {}: ELF segment at 0x0 (+0x",
            elf.display()
        )),
        "{sim}"
    );
    assert!(
        sim.ends_with("bytes) is outside simulated RAM 0x80000000..0x100000000\n"),
        "{sim}"
    );
    assert_eq!(iss, sim, "iss and sim refuse it alike");
    // A waveform that cannot be written is refused before the build too.
    let good = build_c(dir.path(), "ok", "int main(void) { return 0; }\n");
    let out = accelgen()
        .args(["sim", "rocket", "--vcd", "/proc/x.vcd", "--program"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: output /proc/x.vcd: cannot write in /proc"),
        "{err}"
    );
    let out = accelgen()
        .args(["sim", "rocket", "--vcd"])
        .arg(&good)
        .arg("--program")
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: output {} is also an input; refusing to overwrite it\n",
            good.display()
        )
    );
}

#[test]
fn a_trapping_program_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let src = "int main(void) {\n    long v;\n    __asm__ volatile(\".globl faulting_load\\n\
               faulting_load: ld %0, 0(%1)\" : \"=r\"(v) : \"r\"(0x10L));\n    return (int)v;\n}\n";
    let elf = build_c(dir.path(), "fault", src);
    let pc = verification::elf::load_file(&elf)
        .unwrap()
        .symbol("faulting_load")
        .unwrap();
    let out = accelgen()
        .args(["sim", "rocket", "--program"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(133), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    let expected = format!(
        "{}: the program trapped: load access fault (mcause 5) at pc {pc:#x}, mtval 0x10; \
         the C runtime's trap handler exited with 128 + mcause = 133\n",
        elf.display()
    );
    assert!(err.ends_with(&expected), "{err}");
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

#[test]
fn an_rv32imaf_program_runs_in_lockstep_on_the_fpu_design() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("fp.c");
    std::fs::write(
        &src,
        "volatile float x = 2.0f;\nint main(void) { return (int)(x * 1.5f + 0.25f); }\n",
    )
    .unwrap();
    let mut opts = BuildOptions::new(Kind::C);
    opts.isa = verification::kernels::ISA;
    let elf = build_elf(&[src], &dir.path().join("fp.elf"), &opts).unwrap();
    // rocket_fpu.rs's rocket-small configuration, so the model is shared.
    let out = accelgen()
        .args(["sim", "rocket", "--config"])
        .arg(config("rocket-small"))
        .args([
            "--set",
            "xlen=32",
            "--set",
            "fpu=true",
            "--set",
            "predictor=\"bht\"",
        ])
        .args(["--set", "fma_stages=1", "--lockstep", "--program"])
        .arg(&elf)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("commits matched the ISS"), "{err}");
}

#[test]
fn rv64_designs_refuse_the_rv32_variant() {
    let dir = tempfile::tempdir().unwrap();
    for (design, set, needle) in [
        (
            "rocket-hwacha",
            "rocket.xlen=32",
            "parameter `rocket.xlen` this design is built around the RV64 core; got 32",
        ),
        (
            "rocket_accumulator",
            "xlen=32",
            "parameter `xlen` this design is built around the RV64 core",
        ),
        (
            "rocket-board",
            "xlen=32",
            "parameter `xlen` this design is built around the RV64 core",
        ),
    ] {
        let out = accelgen()
            .args(["generate", design, "--set", set, "-o"])
            .arg(dir.path().join(design))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{design}: {err}");
        assert!(err.contains(needle), "{design}: {err}");
        assert!(!dir.path().join(design).exists(), "no partial output");
    }
}
