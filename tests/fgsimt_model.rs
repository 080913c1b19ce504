//! The SIMT control-flow model (`verification::fgsimt`): programs give the exit code and
//! per-thread instruction counts of the ISS running their threads one after another, at
//! every warp size; divergence is seen and scheduled (fragments, PWFB); a divergent
//! indirect jump is refused with the threads named. The affine model (ASRF) checks its
//! invariant against every thread's registers after every warp instruction, at every
//! setting of the mechanisms, and each mechanism takes the instructions it should.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use verification::fgsimt::affine::Mechanisms;
use verification::fgsimt::program::{run, ProgramError, ProgramRun};
use verification::fgsimt::warp::SimtError;
use verification::iss::{FpExt, Iss, IssConfig, Stop};

const ABM: Mechanisms = Mechanisms {
    arith: true,
    branches: true,
    loads: true,
    private: false,
};

fn build(dir: &Path, name: &str, sources: &[&str]) -> PathBuf {
    let elf = dir.join(format!("{name}.elf"));
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/simt_cases");
    Command::cargo_bin("accelgen")
        .unwrap()
        .args(["asm", "--target", "simt", "-o"])
        .arg(&elf)
        .args(sources.iter().map(|s| cases.join(s)))
        .assert()
        .success();
    elf
}

/// The sequential ISS: (exit code, kernel instructions).
fn sequential(elf: &Path) -> (u64, u64) {
    let program = verification::elf::load_file(elf).unwrap();
    let mut iss = Iss::new(
        &program,
        IssConfig {
            fp: FpExt::F,
            ..IssConfig::default()
        },
    )
    .unwrap();
    iss.enable_simt();
    match iss.run(Some(100_000_000), None).unwrap() {
        Stop::Exit(code) => (code, iss.thread_instret()),
        other => panic!("{other:?}"),
    }
}

#[test]
fn divergent_kernels_match_the_sequential_iss_at_every_warp_size() {
    let dir = tempfile::tempdir().unwrap();
    for (name, sources) in [
        ("diverge", &["diverge.c"][..]),
        ("regs", &["regs_main.c", "regs.S"][..]),
    ] {
        let elf = build(dir.path(), name, sources);
        let (exit, thread_instret) = sequential(&elf);
        assert_eq!(exit, 0, "{name} passes its own check on the ISS");
        let program = verification::elf::load_file(&elf).unwrap();
        for warp in [1, 4, 8, 32] {
            let r = run(&program, IssConfig::default(), (warp, ABM), 100_000_000).unwrap();
            assert_eq!(r.exit, 0, "{name}, warp {warp}");
            let threads: u64 = r.launches.iter().map(|l| l.thread_instructions).sum();
            assert_eq!(
                threads, thread_instret,
                "{name}, warp {warp}: same thread work"
            );
            if name == "diverge" {
                let l = &r.launches[0];
                assert_eq!(l.warps, 200u64.div_ceil(warp as u64));
                if warp > 1 {
                    assert!(l.divergent_branches > 0 && l.max_pending > 0, "{l:?}");
                    assert!(l.warp_instructions < l.thread_instructions, "{l:?}");
                } else {
                    assert_eq!(l.divergent_branches, 0);
                    assert_eq!(l.warp_instructions, l.thread_instructions);
                }
            }
        }
    }
}

#[test]
fn a_divergent_indirect_jump_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "jump", &["jump.c"]);
    assert_eq!(sequential(&elf).0, 0, "fine when threads run alone");
    let program = verification::elf::load_file(&elf).unwrap();
    match run(&program, IssConfig::default(), (32, ABM), 10_000_000) {
        Err(ProgramError::Simt(e @ SimtError::DivergentJump { .. })) => {
            let text = e.to_string();
            assert!(text.contains("for thread 0 and to"), "{text}");
            assert!(
                text.contains("for thread 1 of the same warp fragment"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// Runs `elf` at warp 32 under `affine` ("none", "a", "ab", "abm").
fn run_mode(elf: &Path, affine: &str) -> ProgramRun {
    let program = verification::elf::load_file(elf).unwrap();
    let mech = Mechanisms::parse(affine).unwrap();
    run(&program, IssConfig::default(), (32, mech), 100_000_000).unwrap()
}

#[test]
fn each_affine_mechanism_takes_its_instructions_without_changing_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "affine", &["affine.c"]);
    let runs: Vec<ProgramRun> = ["none", "a", "ab", "abm"]
        .iter()
        .map(|m| run_mode(&elf, m))
        .collect();
    for (r, m) in runs.iter().zip(["none", "a", "ab", "abm"]) {
        assert_eq!(r.exit, 0, "{m}");
        let warp_insns: Vec<u64> = r.launches.iter().map(|l| l.warp_instructions).collect();
        let base: Vec<u64> = runs[0]
            .launches
            .iter()
            .map(|l| l.warp_instructions)
            .collect();
        assert_eq!(warp_insns, base, "{m}: the same control flow");
    }
    let total = |r: &ProgramRun, f: fn(&verification::fgsimt::affine::asrf::AffineStats) -> u64| {
        r.launches.iter().map(|l| f(&l.affine)).sum::<u64>()
    };
    let [none, a, ab, abm] = &runs[..] else {
        unreachable!()
    };
    assert_eq!(
        total(none, |s| s.expanded + s.uniform_branches + s.affine_loads),
        0
    );
    assert_eq!(total(none, |s| s.srf_writes_avoided), 0);
    assert!(
        total(a, |s| s.cp) > total(none, |s| s.cp),
        "+a computes in the CP"
    );
    assert!(total(a, |s| s.srf_writes_avoided) > 0);
    let lazy = &a.launches[3].affine;
    assert!(
        lazy.expanded > 0,
        "the divergent write is expanded: {lazy:?}"
    );
    assert_eq!(total(a, |s| s.uniform_branches + s.affine_loads), 0);
    assert!(
        total(ab, |s| s.uniform_branches) > 0,
        "the uniform loop's branches"
    );
    assert_eq!(total(ab, |s| s.affine_loads), 0);
    let loads = &abm.launches[2].affine;
    assert_eq!(
        loads.affine_loads,
        3 * 8,
        "byte, half and word loads of 8 warps: {loads:?}"
    );
    // Per full warp: bytes at +3 span 2 lines, halves at +2 bytes 3, words at +4 bytes 5
    // (unaligned); the partial last warp's 24 threads 1, 2 and 4.
    assert_eq!(
        loads.wide_requests,
        7 * (2 + 3 + 5) + 1 + 2 + 4,
        "{loads:?}"
    );
}

#[test]
fn the_kernel_suite_runs_on_the_model_at_every_affine_setting() {
    let dir = tempfile::tempdir().unwrap();
    let kernels = Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels");
    let mut names: Vec<_> = std::fs::read_dir(&kernels)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "c").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    assert_eq!(names.len(), 13, "{names:?}");
    for name in &names {
        let elf = dir.path().join(format!("{name}.elf"));
        Command::cargo_bin("accelgen")
            .unwrap()
            .args(["asm", "--target", "simt", "-o"])
            .arg(&elf)
            .arg(kernels.join(format!("{name}.c")))
            .assert()
            .success();
        let runs: Vec<ProgramRun> = ["none", "a", "ab", "abm"]
            .iter()
            .map(|m| run_mode(&elf, m))
            .collect();
        let flow = |r: &ProgramRun| -> Vec<(u64, u64, u64, u64)> {
            r.launches
                .iter()
                .map(|l| {
                    (
                        l.warps,
                        l.warp_instructions,
                        l.thread_instructions,
                        l.divergent_branches,
                    )
                })
                .collect()
        };
        for r in &runs {
            assert_eq!(r.exit, 0, "{name}");
            assert_eq!(
                flow(r),
                flow(&runs[0]),
                "{name}: the same control flow at every setting"
            );
        }
        let cp = |r: &ProgramRun| r.launches.iter().map(|l| l.affine.cp).sum::<u64>();
        assert!(
            cp(&runs[3]) > cp(&runs[0]),
            "{name}: +abm takes instructions into the CP"
        );
    }
}

/// Random SPMD programs (`randgen::simt`: divergent branches, per-thread loops, every
/// memory mode, commutative AMOs, FP) end with the same memory on the SIMT model at
/// warp sizes 4 and 32 (and every affine setting, whose invariant the model checks after
/// every warp instruction) as on the ISS running the threads one after another.
/// `ACCELGEN_LONG=1` runs 200 programs instead of 12.
#[test]
fn random_simt_programs_match_the_sequential_iss() {
    use verification::randgen::simt::{build_simt, results, SimtShape};
    let count = if std::env::var_os("ACCELGEN_LONG").is_some() {
        200
    } else {
        12
    };
    let dir = tempfile::tempdir().unwrap();
    let (mut divergent, mut affine) = (0, 0);
    for seed in 0..count {
        let shape = SimtShape {
            len: 60,
            fp: seed % 2 == 1,
        };
        let elf = build_simt(seed, shape, dir.path()).unwrap();
        let program = verification::elf::load_file(&elf).unwrap();
        let mut seq = Iss::new(
            &program,
            IssConfig {
                fp: FpExt::F,
                ..IssConfig::default()
            },
        )
        .unwrap();
        seq.enable_simt();
        assert!(
            matches!(seq.run(Some(10_000_000), None).unwrap(), Stop::Exit(0)),
            "seed {seed}"
        );
        let expected = results(&seq, &program);
        for (warp, mode) in [(4, "none"), (32, "abm"), (32, "a")] {
            let mech = Mechanisms::parse(mode).unwrap();
            let mut iss =
                verification::fgsimt::program::host(&program, IssConfig::default()).unwrap();
            let r = verification::fgsimt::program::run_on(&mut iss, (warp, mech), 10_000_000)
                .unwrap_or_else(|e| panic!("seed {seed}, warp {warp}, {mode}: {e}"));
            assert_eq!(r.exit, 0);
            let got = results(&iss, &program);
            if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
                panic!(
                    "seed {seed}, warp {warp}, {mode}: word {i} (slot {}, word {}) is {:#x}, \
                     the ISS's {:#x}",
                    i / 96,
                    i % 96,
                    got[i],
                    expected[i]
                );
            }
            divergent += r.launches.iter().map(|l| l.divergent_branches).sum::<u64>();
            affine += r.launches.iter().map(|l| l.affine.cp).sum::<u64>();
        }
    }
    println!("{count} programs: {divergent} divergent branches, {affine} affine warp instructions");
    assert!(divergent > 10 * count && affine > 0);
}
