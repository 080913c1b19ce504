//! Differential tests of the golden-model ISS against Spike: the project's ISA tests,
//! C programs and constrained-random instruction streams must give identical commit
//! logs, console output and exit codes. ACCELGEN_LONG=1 runs 100k random programs.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use verification::spike::{first_difference, run_iss, run_spike, spike_path};
use verification::toolchain::{build_elf, BuildOptions, Kind};

/// Upper bound on instructions for any program here; reaching it is a failure.
const MAX_INSTRET: u64 = 50_000_000;

fn sources(dir: &str, ext: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("verification")
        .join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// Runs `elf` on both models; returns a description of any disagreement, or of a
/// non-zero exit when `expect_zero` (self-checking programs).
fn compare(spike: &Path, elf: &Path, expect_zero: bool) -> Result<(), String> {
    let name = elf.display();
    let ours = run_iss(elf, MAX_INSTRET).map_err(|e| format!("{name}: golden model: {e}"))?;
    let theirs = run_spike(spike, elf).map_err(|e| format!("{name}: {e}"))?;
    if let Some(diff) = first_difference(&ours.log, &theirs.log) {
        return Err(format!("{name}: {diff}"));
    }
    if ours.exit_code != theirs.exit_code {
        return Err(format!(
            "{name}: exit code {} vs spike {}",
            ours.exit_code, theirs.exit_code
        ));
    }
    if ours.stdout != theirs.stdout {
        return Err(format!("{name}: console output differs from spike's"));
    }
    if ours.log.is_empty() {
        return Err(format!("{name}: empty commit log"));
    }
    if expect_zero && ours.exit_code != 0 {
        return Err(format!(
            "{name}: self-check failed with code {} on both models",
            ours.exit_code
        ));
    }
    Ok(())
}

/// Builds and compares `count` jobs on two worker threads; panics listing failures.
fn run_all(count: usize, job: impl Fn(usize, &Path, &Path) -> Result<(), String> + Sync) {
    let spike = spike_path().expect("spike is needed (scripts/test installs it)");
    let dir = tempfile::tempdir().unwrap();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                if let Err(e) = job(i, dir.path(), &spike) {
                    failures.lock().unwrap().push(e);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn isa_tests_match_spike() {
    let tests = sources("isa-tests", "S");
    assert!(
        tests.len() >= 90,
        "expected one ISA test per instruction, found {}",
        tests.len()
    );
    run_all(tests.len(), |i, dir, spike| {
        let src = &tests[i];
        let elf = dir.join(src.file_stem().unwrap()).with_extension("elf");
        build_elf(
            std::slice::from_ref(src),
            &elf,
            &BuildOptions::new(Kind::BareAsm),
        )
        .map_err(|e| e.to_string())?;
        compare(spike, &elf, true)
    });
}

#[test]
fn c_programs_match_spike() {
    let programs = sources("programs", "c");
    assert!(programs.len() >= 4);
    run_all(programs.len(), |i, dir, spike| {
        let src = &programs[i];
        let elf = dir.join(src.file_stem().unwrap()).with_extension("elf");
        build_elf(std::slice::from_ref(src), &elf, &BuildOptions::new(Kind::C))
            .map_err(|e| e.to_string())?;
        compare(spike, &elf, true)
    });
}

#[test]
fn random_programs_match_spike() {
    let count = if std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1") {
        100_000
    } else {
        200
    };
    run_all(count, |i, dir, spike| {
        let seed = i as u64;
        let src = dir.join(format!("rand{seed}.S"));
        std::fs::write(&src, verification::randgen::generate(seed, 300))
            .map_err(|e| e.to_string())?;
        let elf = src.with_extension("elf");
        build_elf(
            std::slice::from_ref(&src),
            &elf,
            &BuildOptions::new(Kind::BareAsm),
        )
        .map_err(|e| e.to_string())?;
        // Random programs exit with 0 by construction; the logs carry the comparison.
        let r = compare(spike, &elf, true).map_err(|e| format!("seed {seed}: {e}"));
        if r.is_ok() {
            let _ = std::fs::remove_file(&src);
            let _ = std::fs::remove_file(&elf);
        }
        r
    });
}
