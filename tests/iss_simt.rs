//! SPMD launches on the golden model (`kernels/runtime/simt.h`, `verification::iss::simt`):
//! programs built by `accelgen asm --target simt` and run by `accelgen iss`. A thread's
//! initial registers as the ABI defines them; launches of 0, partial and full thread
//! counts; each rule break (a fault in a thread, a nested launch, a machine or FP CSR in
//! a kernel, `tidx` on the host, a thread that never returns) a clear error; bad build
//! flags refused.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn accelgen() -> Command {
    Command::cargo_bin("accelgen").unwrap()
}

/// Runs `cmd`, which must fail with `needle` in its error.
fn fails_with(cmd: &mut Command, needle: &str) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains(needle), "`{needle}` not in {stderr}");
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/simt_cases")
        .join(name)
}

/// Builds `sources` with `defines` into `dir/name.elf`.
fn build(dir: &Path, name: &str, sources: &[&str], defines: &[&str]) -> PathBuf {
    let elf = dir.join(format!("{name}.elf"));
    let mut cmd = accelgen();
    cmd.args(["asm", "--target", "simt", "-o"]).arg(&elf);
    for d in defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.args(sources.iter().map(|s| case(s)));
    cmd.assert().success();
    elf
}

/// Runs `elf` on the ISS: (exit code, stderr).
fn iss(elf: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let out = accelgen().arg("iss").args(extra).arg(elf).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn threads_start_with_the_abi_registers() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "regs", &["regs_main.c", "regs.S"], &[]);
    let (code, stderr) = iss(&elf, &[]);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn the_commit_log_names_each_thread() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "regs", &["regs_main.c", "regs.S"], &[]);
    let (code, log) = iss(&elf, &["--log-commits"]);
    assert_eq!(code, Some(0));
    let starts: Vec<_> = log
        .lines()
        .filter(|l| l.contains(">>>> simt thread"))
        .collect();
    assert_eq!(
        starts.len(),
        100 + 37 + 3,
        "launches of 100, 37, 0 and 3 threads"
    );
    assert_eq!(starts[99], "core   0: >>>> simt thread 99");
    assert_eq!(starts[100], "core   0: >>>> simt thread 0");
}

#[test]
fn rule_breaks_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 4] = [
        (
            "CASE=1",
            &[
                "kernel thread 5 of 8 trapped at pc",
                "load access fault",
                "mtval 0x10",
            ],
        ),
        (
            "CASE=2",
            &["kernel thread 3 of 8 trapped", "illegal instruction"],
        ),
        (
            "CASE=3",
            &["kernel thread 0 of 8 trapped", "illegal instruction"],
        ),
        (
            "CASE=5",
            &["kernel thread 0 of 8 trapped", "illegal instruction"],
        ),
    ];
    for (define, needles) in cases {
        let elf = build(dir.path(), "faults", &["faults.c"], &[define]);
        let (code, stderr) = iss(&elf, &[]);
        assert_eq!(code, Some(1), "{define}: {stderr}");
        for n in needles {
            assert!(stderr.contains(n), "{define}: `{n}` not in {stderr}");
        }
    }
    // A thread that never returns: the step limit counts kernel instructions.
    let elf = build(dir.path(), "faults", &["faults.c"], &["CASE=4"]);
    let (code, stderr) = iss(&elf, &["--max-instret", "200000"]);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("step limit reached"), "{stderr}");
    assert!(stderr.contains("more by kernel threads"), "{stderr}");
    // tidx on the host is an illegal instruction the C runtime reports (128 + 2).
    let elf = build(dir.path(), "faults", &["faults.c"], &["CASE=6"]);
    let (code, stderr) = iss(&elf, &[]);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("illegal instruction"), "{stderr}");
}

#[test]
fn bad_builds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.elf");
    std::fs::write(&out, b"keep me").unwrap();
    fails_with(
        accelgen()
            .args(["asm", "--target", "simt", "--bare", "-o"])
            .arg(&out)
            .arg(case("faults.c")),
        "--bare is for the hwacha target",
    );
    // A compile error leaves the existing output as it was.
    let bad = dir.path().join("bad.c");
    std::fs::write(&bad, "int main(void) { return undefined_name; }\n").unwrap();
    fails_with(
        accelgen()
            .args(["asm", "--target", "simt", "-o"])
            .arg(&out)
            .arg(&bad),
        "undefined_name",
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    fails_with(
        accelgen()
            .args(["asm", "--target", "gpu", "-o"])
            .arg(&out)
            .arg(&bad),
        "invalid value 'gpu'",
    );
    // An RV32 program cannot have the (RV64) Hwacha unit.
    let elf = build(dir.path(), "regs", &["regs_main.c", "regs.S"], &[]);
    let out = accelgen()
        .args(["iss", "--hwacha"])
        .arg(&elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--hwacha needs an RV64 program"));
}

#[test]
fn the_simt_model_runs_launches_and_reports_them() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "diverge", &["diverge.c"], &[]);
    let (code, stderr) = iss(&elf, &["--affine", "abm"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.starts_with("simt model: warps of 32 threads, affine abm\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("launch 1: 7 warps,"),
        "200 threads: {stderr}"
    );
    assert!(stderr.contains("divergent branches"), "{stderr}");
    let (code, stderr) = iss(&elf, &["--warp-size", "8"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("launch 1: 25 warps,"), "{stderr}");
    for (flags, needle) in [
        (
            &["--warp-size", "33"][..],
            "--warp-size must be 1..=32, got 33",
        ),
        (
            &["--affine", "bm"][..],
            "--affine must be none, a, ab or abm, got `bm`",
        ),
        (
            &["--affine", "a", "--log-commits"][..],
            "cannot be used with",
        ),
    ] {
        let (code, stderr) = iss(&elf, flags);
        assert_eq!(
            code,
            Some(2).filter(|_| needle.starts_with("cannot")).or(Some(1)),
            "{stderr}"
        );
        assert!(stderr.contains(needle), "{flags:?}: {stderr}");
    }
}

#[test]
fn the_dws_model_runs_launches_and_reports_them() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "diverge", &["diverge.c"], &[]);
    let (code, stderr) = iss(&elf, &["--dws", "revive"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.starts_with("dws model: revive, 4 warps of 16 threads, 8 slots, 16 WST entries;"),
        "{stderr}"
    );
    for needle in ["launch 1: ", " cycles (", "splits: ", "\nmemory: "] {
        assert!(stderr.contains(needle), "{needle}: {stderr}");
    }
    let toml = dir.path().join("dws.toml");
    std::fs::write(
        &toml,
        "warps = 2\ncheck = true\n[memory]\nl2_latency = 300\n",
    )
    .unwrap();
    let (code, stderr) = iss(
        &elf,
        &["--dws", "lazy.bl", "--dws-config", toml.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("lazy.bl, 2 warps of 16 threads, 4 slots"),
        "{stderr}"
    );
    assert!(stderr.contains("L2 300 cycles"), "{stderr}");
    let path = toml.to_str().unwrap();
    for (text, flags, needle) in [
        (
            "",
            vec!["--dws", "fast"],
            "--dws must be one of conv, branch-only.stack,",
        ),
        ("wraps = 2\n", vec![], "unknown field `wraps`"),
        ("warps = 0\n", vec![], "warps 0 is not in 1..=64"),
        (
            "[memory]\nl2_kib = 1048576\nline_bytes = 4\n",
            vec![],
            "is not a cache of 1 to",
        ),
        (
            "[memory]\nl1_kib = 3\n",
            vec![],
            "not a power-of-two number of sets",
        ),
        (
            "",
            vec!["--dws", "conv", "--dws-config", "/nonexistent.toml"],
            "cannot read config file /nonexistent.toml",
        ),
    ] {
        std::fs::write(&toml, text).unwrap();
        let flags = if flags.is_empty() {
            vec!["--dws", "conv", "--dws-config", path]
        } else {
            flags
        };
        let (code, stderr) = iss(&elf, &flags);
        assert_eq!(code, Some(1), "{flags:?}: {stderr}");
        assert!(stderr.contains(needle), "{text} {flags:?}: {stderr}");
    }
    for (set, needle) in [
        ("warps=x", "--dws-set warps=x: `x` is not a TOML value"),
        ("memory.l2_latncy=3", "unknown field `l2_latncy`"),
    ] {
        let (code, stderr) = iss(&elf, &["--dws", "conv", "--dws-set", set]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains(needle), "{set}: {stderr}");
    }
    std::fs::write(&toml, "warps = 2\n").unwrap();
    let (code, stderr) = iss(
        &elf,
        &[
            "--dws",
            "conv",
            "--dws-config",
            path,
            "--dws-set",
            "memory.l2_latency=10",
            "--dws-set",
            "warps=3",
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("conv, 3 warps of 16 threads") && stderr.contains("L2 10 cycles"),
        "{stderr}"
    );
    // The name sets the policy, the splits and the re-convergence: no conflict.
    std::fs::write(&toml, "reconv = \"bl\"\nbranch_dws = true\n").unwrap();
    let (code, stderr) = iss(&elf, &["--dws", "revive", "--dws-config", path]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = iss(&elf, &["--dws", "conv", "--warp-size", "8"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
