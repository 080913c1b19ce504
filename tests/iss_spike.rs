//! Differential tests of the golden-model ISS against Spike: the project's ISA tests,
//! C programs and constrained-random instruction streams must give identical commit
//! logs, console output and exit codes, on RV64IMAFD and on RV32IMAF and RV32IMAFD.
//! ACCELGEN_LONG=1 runs 100k random integer programs and 20k random FP programs per ISA.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use verification::iss::{FpExt, Isa, Xlen};
use verification::spike::{first_difference, run_iss, run_spike, spike_path};
use verification::toolchain::{build_elf, BuildOptions, Kind};

const RV64IMAFD: Isa = Isa {
    xlen: Xlen::Rv64,
    fp: FpExt::FD,
};
const RV32IMAF: Isa = Isa {
    xlen: Xlen::Rv32,
    fp: FpExt::F,
};
const RV32IMAFD: Isa = Isa {
    xlen: Xlen::Rv32,
    fp: FpExt::FD,
};

fn long() -> bool {
    std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1")
}

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

/// Runs `elf` on both models (with the floating-point extensions `fp`); returns a
/// description of any disagreement, or of a non-zero exit when `expect_zero`
/// (self-checking programs).
fn compare(spike: &Path, elf: &Path, fp: FpExt, expect_zero: bool) -> Result<(), String> {
    let name = elf.display();
    let ours = run_iss(elf, MAX_INSTRET, fp).map_err(|e| format!("{name}: golden model: {e}"))?;
    let theirs = run_spike(spike, elf, fp).map_err(|e| format!("{name}: {e}"))?;
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

/// Builds `src` for `isa` as `kind` and compares it on both models, expecting exit 0.
fn build_and_compare(
    src: &Path,
    dir: &Path,
    spike: &Path,
    isa: Isa,
    kind: Kind,
) -> Result<(), String> {
    let stem = src.file_stem().unwrap().to_string_lossy();
    let elf = dir.join(format!("{stem}-{}.elf", isa.spike_isa()));
    let opts = BuildOptions {
        isa,
        // C's sqrt as the fsqrt instruction, without errno handling.
        extra: vec!["-fno-math-errno".into()],
        ..BuildOptions::new(kind)
    };
    build_elf(&[src.to_path_buf()], &elf, &opts).map_err(|e| e.to_string())?;
    compare(spike, &elf, isa.fp, true).map_err(|e| format!("{}: {e}", isa.spike_isa()))
}

/// Compares every (source, ISA) pair.
fn run_sources(jobs: &[(PathBuf, Isa)], kind: Kind) {
    run_all(jobs.len(), |i, dir, spike| {
        let (src, isa) = &jobs[i];
        build_and_compare(src, dir, spike, *isa, kind)
    });
}

/// The integer ISA tests on RV64IMA (the Rocket designs' ISA, whose lockstep tests run
/// them too), the single- and double-precision ones on RV64IMAFD.
#[test]
fn isa_tests_match_spike() {
    let tests = sources("isa-tests", "S");
    assert!(
        tests.len() >= 90,
        "expected one ISA test per instruction, found {}",
        tests.len()
    );
    let fp: Vec<_> = sources("isa-tests-f", "S")
        .into_iter()
        .chain(sources("isa-tests-d", "S"))
        .collect();
    assert!(
        fp.len() >= 30,
        "expected the F and D tests, found {}",
        fp.len()
    );
    let jobs: Vec<_> = tests
        .into_iter()
        .map(|t| (t, Isa::default()))
        .chain(fp.into_iter().map(|t| (t, RV64IMAFD)))
        .collect();
    run_sources(&jobs, Kind::BareAsm);
}

/// The RV32 tests (the integer ISA where it differs from RV64) and the single-precision
/// tests, on RV32IMAF; the single-precision tests on RV32IMAFD too.
#[test]
fn rv32_isa_tests_match_spike() {
    let mut jobs: Vec<_> = sources("isa-tests-rv32", "S")
        .into_iter()
        .map(|t| (t, RV32IMAF))
        .collect();
    assert!(
        jobs.len() >= 3,
        "expected the RV32 tests, found {}",
        jobs.len()
    );
    for t in sources("isa-tests-f", "S") {
        jobs.push((t.clone(), RV32IMAF));
        jobs.push((t, RV32IMAFD));
    }
    run_sources(&jobs, Kind::BareAsm);
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
        compare(spike, &elf, FpExt::FD, true)
    });
}

/// C programs using float and double, built for each floating-point ISA (hard-float ABI:
/// the compiler's and picolibc's own F/D code).
#[test]
fn fp_c_programs_match_spike() {
    let programs = sources("programs-fp", "c");
    assert!(!programs.is_empty());
    let jobs: Vec<_> = programs
        .iter()
        .flat_map(|p| [RV64IMAFD, RV32IMAF, RV32IMAFD].map(|isa| (p.clone(), isa)))
        .collect();
    run_sources(&jobs, Kind::C);
}

/// Builds random program `seed` of `len` slots for `isa` and compares it.
fn random_program(seed: u64, len: usize, isa: Isa, dir: &Path, spike: &Path) -> Result<(), String> {
    let src = dir.join(format!("rand{seed}-{}.S", isa.spike_isa()));
    std::fs::write(&src, verification::randgen::generate_for(seed, len, isa))
        .map_err(|e| e.to_string())?;
    let elf = src.with_extension("elf");
    let opts = BuildOptions {
        isa,
        ..BuildOptions::new(Kind::BareAsm)
    };
    build_elf(std::slice::from_ref(&src), &elf, &opts).map_err(|e| e.to_string())?;
    // Random programs exit with 0 by construction; the logs carry the comparison.
    let r = compare(spike, &elf, isa.fp, true)
        .map_err(|e| format!("seed {seed} ({}): {e}", isa.spike_isa()));
    if r.is_ok() {
        let _ = std::fs::remove_file(&src);
        let _ = std::fs::remove_file(&elf);
    }
    r
}

#[test]
fn random_programs_match_spike() {
    let count = if long() { 100_000 } else { 200 };
    run_all(count, |i, dir, spike| {
        random_program(i as u64, 300, Isa::default(), dir, spike)
    });
}

/// Random programs with F and D instructions (special operands, every rounding mode,
/// fcsr accesses, illegal rounding modes) on each floating-point ISA.
#[test]
fn random_fp_programs_match_spike() {
    let per_isa = if long() { 20_000 } else { 60 };
    let isas = [RV64IMAFD, RV32IMAF, RV32IMAFD];
    run_all(per_isa * isas.len(), |i, dir, spike| {
        let isa = isas[i % isas.len()];
        random_program(1_000_000 + i as u64, 400, isa, dir, spike)
    });
}
