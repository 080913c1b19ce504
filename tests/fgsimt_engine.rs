//! The FG-SIMT engine (design `fgsimt`: the CP, the front end, the SIU and lanes, the SMU,
//! the L1) running SPMD programs in lockstep (`accelgen sim fgsimt --lockstep`, the bench
//! of `tb/fgsimt.rs`): every CP commit against the host ISS, every warp instruction the
//! front end commits against the SIMT model's next (pc, instruction, mask in PWFB
//! order), every SRF write against the written thread's next write of that register in
//! the model, memory after the D$ flush against the ISS's, and the exit code
//! `accelgen iss`'s.
//! - kernels of `kernels/` with integer code (bsearch: divergent loops, a partial warp;
//!   and with `ACCELGEN_LONG=1` every integer kernel, also at memory latency 20 with
//!   jitter and stalls);
//! - kernels with RV32F code (cmult; with `ACCELGEN_LONG=1` bilat, conv, kmeans, sgemm
//!   too, also at memory latency 20 with jitter and stalls);
//! - these kernel programs fast-forwarded (`--fast-forward`: the ISS runs the host's
//!   setup and check; lockstep from the first SIMT instruction to the last launch, then
//!   the memory), and with `ACCELGEN_LONG=1` whole too;
//! - random SPMD programs (`randgen::simt`: divergent branches, per-thread loops, every
//!   memory mode, AMOs; RV32F in every other one): 6, with `ACCELGEN_LONG=1` 200,
//!   `ACCELGEN_SIMT_PROGRAMS=N` N;
//! - a misaligned load in one thread: the engine's fault is the ISS's trap (also at
//!   `warps` = 4);
//! - several warp contexts (`warps` = 4; 2, 4 and 8 with `ACCELGEN_LONG=1`), affine
//!   none and abm with the AVC: the warps interleave, each checked against its own model
//!   run;
//! - with `ACCELGEN_LONG=1`, bfs at one thread a lane (T = 1), affine none: memory
//!   instructions back to back.
//!
//! Each program runs on `affine` none and abm (with `ACCELGEN_LONG=1` a and ab too): with +a
//! the lockstep also checks that the front end completes in the CP exactly the
//! instructions the model's classification gives it and every ASRF write against the
//! model's entry. One Verilator model per setting (the tile of `tests/fgsimt_tile.rs`,
//! shared through the cache).

mod cli_run;

use cli_run::{accelgen, explain, long, s, Run, FGSIMT_TILE};
use std::path::{Path, PathBuf};

/// The `affine` settings every program runs on: the baseline and the most mechanisms
/// built, with `ACCELGEN_LONG=1` each built setting.
fn settings() -> &'static [&'static str] {
    if long() {
        &[
            "affine=\"none\"",
            "affine=\"a\"",
            "affine=\"ab\"",
            "affine=\"abm\"",
        ]
    } else {
        &["affine=\"none\"", "affine=\"abm\""]
    }
}

fn build(source: &Path, elf: &Path) {
    let run = accelgen(&["asm", "--target", "simt", s(source), "-o", s(elf)]);
    assert_eq!(run.code, 0, "{}", explain("accelgen asm", &run));
}

fn sim(elf: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["sim", "fgsimt", "--program", s(elf), "--lockstep"];
    for t in FGSIMT_TILE {
        args.extend(["--set", t]);
    }
    args.extend_from_slice(extra);
    accelgen(&args)
}

/// Runs `elf` in lockstep on every affine setting and checks it exits 0 with its
/// launches checked (the same results: the same model's); returns each setting's
/// kernel cycles.
fn passes(elf: &Path, extra: &[&str]) -> Vec<u64> {
    settings()
        .iter()
        .map(|setting| {
            let mut args = vec!["--set", setting];
            args.extend_from_slice(extra);
            lockstep(elf, &args)
        })
        .collect()
}

/// Runs `elf` in lockstep with `args`, checks it exits 0 with its launches checked, and
/// returns its kernel cycles.
fn lockstep(elf: &Path, args: &[&str]) -> u64 {
    let run = sim(elf, args);
    let what = format!("{} {args:?}", elf.display());
    assert_eq!(run.code, 0, "{}", explain(&what, &run));
    let summary = run
        .stderr
        .lines()
        .find(|l| l.contains("writes matched the SIMT model"));
    println!(
        "{args:?}: {}",
        summary.unwrap_or_else(|| panic!("{}", explain(&what, &run)))
    );
    let table3 = run.stderr.lines().find(|l| l.contains("kernel cycles"));
    table3
        .and_then(|l| {
            l.split(';')
                .find_map(|p| p.split(" kernel cycles").next()?.trim().parse().ok())
        })
        .unwrap_or_else(|| panic!("no kernel cycles: {}", explain(&what, &run)))
}

fn kernel(dir: &Path, name: &str) -> PathBuf {
    let elf = dir.join(format!("{name}.elf"));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kernels/{name}.c"));
    build(&src, &elf);
    elf
}

/// The integer kernels of `kernels/` but bsearch, and the RV32F ones but cmult (the
/// fast suite's two).
const LONG_INTEGER: [&str; 7] = [
    "bfs",
    "dither",
    "mfilt",
    "rgb2cmyk",
    "rsort",
    "strsearch",
    "viterbi",
];
const LONG_FP: [&str; 4] = ["bilat", "conv", "kmeans", "sgemm"];

#[test]
fn integer_kernels_run_in_lockstep() {
    let mut names = vec!["bsearch"];
    if long() {
        names.extend(LONG_INTEGER);
    }
    kernels_in_lockstep(&names);
}

#[test]
fn fp_kernels_run_in_lockstep() {
    let mut names = vec!["cmult"];
    if long() {
        names.extend(LONG_FP);
    }
    kernels_in_lockstep(&names);
}

/// At one thread a lane (4 lanes, warps of 4: T = 1) a memory instruction can issue
/// every cycle, before the SMU has counted the one before; bfs (byte and word loads,
/// stores, divergence) in lockstep there caught the SIU over-filling an SMRQ (a store
/// lost) until the issue waited for the count (`siu.rs`). With `ACCELGEN_LONG=1` only (a
/// Verilator model of its own); the fast suite's `tests/fgsimt_execute.rs` issues at T = 1
/// (one lane of one thread) against a stand-in SMU with back-pressure.
#[test]
fn bfs_runs_at_one_thread_a_lane() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to run bfs at T = 1 (a model of its own)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let elf = kernel(dir.path(), "bfs");
    let shape = ["lanes=4", "warp_size=4", "affine=\"none\""];
    let args: Vec<&str> = shape.iter().flat_map(|v| ["--set", *v]).collect();
    let run = sim(&elf, &args);
    let what = format!("bfs at T = 1 {args:?}");
    assert_eq!(run.code, 0, "{}", explain(&what, &run));
    assert!(
        run.stderr.contains("writes matched the SIMT model"),
        "{}",
        explain(&what, &run)
    );
}

/// The kernels `names` in lockstep (with `ACCELGEN_LONG=1` also with a slow, jittery,
/// stalling memory).
fn kernels_in_lockstep(names: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for &name in names {
        let elf = kernel(dir.path(), name);
        // The kernels only (the host's setup and check run on the ISS, and the memory
        // the tile leaves is compared with the ISS's); with `ACCELGEN_LONG=1` the whole
        // program as well (`tests/fgsimt_tile.rs` runs host code on the tile every time).
        let cycles = passes(&elf, &["--fast-forward"]);
        // Each mechanism added keeps the control flow and takes no more cycles (seed
        // 000's Table 3; rsort's +m aside, as in the paper).
        for (i, pair) in cycles.windows(2).enumerate() {
            let plus_m = settings()[i + 1].contains("abm");
            assert!(
                pair[1] <= pair[0] || (name == "rsort" && plus_m),
                "{name}: {} takes {} kernel cycles, {} {}",
                settings()[i + 1],
                pair[1],
                settings()[i],
                pair[0]
            );
        }
        if long() {
            passes(&elf, &[]);
            passes(
                &elf,
                &["--latency", "20", "--jitter", "7", "--stall-percent", "25"],
            );
        }
    }
}

#[test]
fn random_programs_run_in_lockstep() {
    use verification::randgen::simt::{build_simt, SimtShape};
    let count: u64 = match std::env::var("ACCELGEN_SIMT_PROGRAMS") {
        Ok(n) => n.parse().expect("ACCELGEN_SIMT_PROGRAMS is a count"),
        Err(_) if long() => 200,
        Err(_) => 6,
    };
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..count {
        let shape = SimtShape {
            len: 60,
            fp: seed % 2 == 0,
        };
        let elf = build_simt(seed, shape, dir.path()).unwrap();
        let seed_arg = seed.to_string();
        let mem = [
            "--latency",
            "1",
            "--jitter",
            "3",
            "--stall-percent",
            "10",
            "--seed",
            &seed_arg,
        ];
        passes(&elf, if seed % 2 == 1 { &mem } else { &[] });
    }
}

/// An AVC and L1 of one line each (every private access past the first evicts), as
/// `tests/fgsimt_avc_engine.rs` runs them.
const TINY_AVC: [&str; 6] = [
    "avc=true",
    "avc_sets=2",
    "avc_ways=1",
    "avc_vectors_per_line=2",
    "avc_l1_sets=2",
    "avc_l1_ways=1",
];

/// The engine's settings beside `warps` in [`warp_contexts_run_in_lockstep`]: affine
/// none with a non-blocking 2-way D$ (2 MSHRs of 2 requests a bank: hits under misses,
/// a thread's requests to different lines performed out of order); abm with the tiny
/// AVC (the ASRF banked per context, shared loads and scalar instructions of
/// interleaved warps, each context's private stacks). With `ACCELGEN_LONG=1` also none
/// with the blocking D$, a, ab, abm alone and abm with the default AVC.
fn context_settings() -> Vec<(Vec<&'static str>, &'static [&'static str])> {
    let none = vec!["affine=\"none\""];
    let nonblocking = vec![
        "affine=\"none\"",
        "dcache_ways=2",
        "dcache_mshrs=2",
        "dcache_mshr_targets=2",
    ];
    let mut tiny = vec!["affine=\"abm\""];
    tiny.extend(TINY_AVC);
    if !long() {
        return vec![(nonblocking, &["warps=4"]), (tiny, &["warps=4"])];
    }
    let all: &[&str] = &["warps=2", "warps=4", "warps=8"];
    vec![
        (none, all),
        (nonblocking, all),
        (vec!["affine=\"abm\""], all),
        (vec!["affine=\"a\""], &["warps=4"]),
        (vec!["affine=\"ab\""], &["warps=4"]),
        (tiny, &["warps=4"]),
        (vec!["affine=\"abm\"", "avc=true"], &["warps=8"]),
    ]
}

/// Several warp contexts (`warps`, seed 001's baseline): the warps of a launch
/// interleave, the front end switching context after each load, and every
/// warp's trace, SRF and ASRF writes are checked against that warp's own model run
/// (`tb/kernel_check.rs`). bsearch (divergent loops, a partial warp, shared loads), cmult
/// (RV32F), `fgsimt_cases/private.c` (private stacks) and random programs with AMOs and
/// every memory mode (2) at 4 contexts, affine none with a non-blocking D$ and abm with
/// the tiny AVC (bsearch with the first only); with
/// `ACCELGEN_LONG=1` every kernel and 40 random programs at 2, 4 and 8 contexts and
/// every affine setting ([`context_settings`]), also with a slow, jittery, stalling
/// memory. The kernel cycles are printed (the bench compares them with one context's:
/// `cargo bench --bench fgsimt`).
#[test]
fn warp_contexts_run_in_lockstep() {
    let mut kernels = vec!["bsearch", "cmult"];
    let programs = if long() {
        kernels.extend(LONG_INTEGER.iter().chain(&LONG_FP));
        40
    } else {
        2
    };
    let dir = tempfile::tempdir().unwrap();
    let mut elfs: Vec<PathBuf> = kernels.iter().map(|k| kernel(dir.path(), k)).collect();
    let private = dir.path().join("private.elf");
    build(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fgsimt_cases/private.c"),
        &private,
    );
    elfs.push(private);
    use verification::randgen::simt::{build_simt, SimtShape};
    for seed in 0..programs {
        let shape = SimtShape {
            len: 60,
            fp: seed % 2 == 0,
        };
        elfs.push(build_simt(seed, shape, dir.path()).unwrap());
    }
    let slow = ["--latency", "20", "--jitter", "7", "--stall-percent", "25"];
    for (k, (setting, contexts)) in context_settings().into_iter().enumerate() {
        // bsearch (200 k cycles, a third of the test) in the fast suite's first setting
        // only.
        for elf in elfs
            .iter()
            .filter(|e| long() || k == 0 || !e.ends_with("bsearch.elf"))
        {
            for warps in contexts {
                let mut args = vec!["--fast-forward", "--set", warps];
                for s in &setting {
                    args.extend(["--set", s]);
                }
                let cycles = lockstep(elf, &args);
                println!("{}: {args:?}: {cycles} kernel cycles", elf.display());
                if long() {
                    args.extend(slow);
                    lockstep(elf, &args);
                }
            }
        }
    }
}

#[test]
fn a_misaligned_load_is_the_iss_trap() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fgsimt_cases/misaligned.c");
    let elf = dir.path().join("misaligned.elf");
    build(&src, &elf);
    let iss = accelgen(&["iss", s(&elf)]);
    // One context, and four (the warps interleaved; the fault names the same thread) on
    // the non-blocking D$ of `warp_contexts_run_in_lockstep` (one model for both).
    let four = [
        "--set",
        "warps=4",
        "--set",
        "affine=\"none\"",
        "--set",
        "dcache_ways=2",
        "--set",
        "dcache_mshrs=2",
        "--set",
        "dcache_mshr_targets=2",
    ];
    for extra in [&[][..], &four] {
        let run = sim(&elf, extra);
        assert_eq!(run.code, iss.code, "{}", explain("sim", &run));
        assert_ne!(run.code, 0);
        for part in ["thread 5", "misaligned"] {
            assert!(run.stderr.contains(part), "{}", explain(part, &run));
        }
    }
}
