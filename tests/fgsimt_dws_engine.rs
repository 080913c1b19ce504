//! The DWS sequencer in the FG-SIMT engine (`reconv` = stack, bl or bypass; seed 001 in
//! seed 000's engine, docs/fgsimt-engine.md "DWS in the engine") running SPMD programs
//! in lockstep (`accelgen sim fgsimt --lockstep`, the bench of `tb/fgsimt.rs`). The
//! sequencer picks each warp instruction's group, so the checker follows the engine's
//! groups (`KernelShape::followed`): every thread of a committed group must be at its
//! pc in its own model run and the instruction there must be the trace's, every SRF
//! write must be the written thread's next write of that register, memory after the D$
//! flush must be the ISS's, and the exit code `accelgen iss`'s. The sequencer's every
//! decision must be the golden model's `DwsControl`'s, fed its inputs as the engine's
//! `strace` shows them (`tb::dws_follow`; the model checks I1-I3 every cycle). The bench
//! writes each program's re-convergence directory, which every launch reads.
//!
//! - bfs (22 launches of two kernels, divergent loops, partial warps) and two random
//!   programs (divergent branches, per-thread loops, every memory mode, AMOs; RV32F in
//!   one) at 4 warps of 8 threads with BranchBypass, branch splits and AggressSplit on
//!   a non-blocking D$ of 128-byte lines, the paper's (groups split at divergent
//!   branches of short blocks and at divergent loads by their hit masks, run-ahead
//!   groups going on past the load while the fall-behind's data comes, PC-based merges
//!   at loads, re-convergence at post-dominators), with every affine mechanism (seed
//!   000's +a, +b, +m: the CP completes a converged group's affine arithmetic, uniform
//!   branches, `jalr` and shared loads, the lanes expand a divided warp's, and the
//!   ASRF's writes are checked against the model's);
//! - the AVC (seed 002) under AggressSplit without the affine mechanisms: private
//!   stacks in an AVC and L1 of one line each, on a case of divergent, sub-word private
//!   accesses and a kernel built to spill, the AVC's traffic against the golden AVC's
//!   replay of the engine's order;
//! - with `ACCELGEN_LONG=1` every kernel, also with a slow, jittery, stalling memory, on
//!   that setting without the affine mechanisms, the conventional answer (`dws` off),
//!   the stack and BL re-convergence, 1, 2 and 8 warps, LazySplit with a window of 0
//!   and ReviveSplit with one of 20 (both on a non-blocking D$), a WST of 2 entries,
//!   and `affine` a and ab; and a re-convergence stack too shallow for bfs stops the
//!   engine with the sequencer's fault, named.
//!
//! The tile is `tests/fgsimt_tile.rs`'s (2 lanes, warps of 8); one Verilator model a
//! setting, shared through the cache.

mod cli_run;

use cli_run::{accelgen, explain, long, s, spilling, Run, AVC_TINY, FGSIMT_TILE};
use std::path::{Path, PathBuf};

fn build(source: &Path, elf: &Path) {
    let run = accelgen(&["asm", "--target", "simt", s(source), "-o", s(elf)]);
    assert_eq!(run.code, 0, "{}", explain("accelgen asm", &run));
}

fn kernel(dir: &Path, name: &str) -> PathBuf {
    let elf = dir.join(format!("{name}.elf"));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kernels/{name}.c"));
    build(&src, &elf);
    elf
}

fn sim(elf: &Path, settings: &[&str], extra: &[&str]) -> Run {
    let mut args = vec!["sim", "fgsimt", "--program", s(elf), "--lockstep"];
    for t in FGSIMT_TILE.iter().chain(settings) {
        args.extend(["--set", t]);
    }
    args.extend_from_slice(extra);
    accelgen(&args)
}

/// Runs `elf` in lockstep and checks that it exits 0 with its launches checked.
fn lockstep(elf: &Path, settings: &[&str], extra: &[&str]) -> Run {
    let run = sim(elf, settings, extra);
    let what = format!("{} {settings:?} {extra:?}", elf.display());
    assert_eq!(run.code, 0, "{}", explain(&what, &run));
    let summary = run
        .stderr
        .lines()
        .find(|l| l.contains("writes matched the SIMT model"))
        .unwrap_or_else(|| panic!("{}", explain(&what, &run)));
    assert!(
        summary.contains("DWS sequencer decisions matched the golden sequencer"),
        "{}",
        explain(&what, &run)
    );
    let table3 = run.stderr.lines().find(|l| l.contains("kernel cycles"));
    println!("{what}: {summary}\n{}", table3.unwrap_or_default());
    run
}

/// 4 warps, BranchBypass, branch splits, a table of 32 entries (the random programs
/// have up to about 20 conditional branches; the kernels 10), 8 WST entries and stacks
/// of 8 (a smaller model than the defaults' 16, built in less time); loads answered
/// the conventional way (`dws` off).
const BYPASS: [&str; 6] = [
    "reconv=\"bypass\"",
    "warps=4",
    "branch_dws=true",
    "branch_entries=32",
    "wst_entries=8",
    "stack_depth=8",
];

/// The fast suite's setting: [`BYPASS`] splitting groups on memory divergence too
/// (AggressSplit: every divergent load splits), its loads answered with their hit
/// masks and written back in passes, on a non-blocking D$ of 128-byte lines (2 MSHRs a
/// bank of 8 requests, as the paper's baseline: with a blocking one a hit waits behind
/// any warp's miss, so most answers have no hits).
const AGGRESS: [&str; 10] = [
    "reconv=\"bypass\"",
    "warps=4",
    "branch_dws=true",
    "dws=\"aggress\"",
    "branch_entries=32",
    "wst_entries=8",
    "stack_depth=8",
    "dcache_mshrs=2",
    "dcache_mshr_targets=8",
    "dcache_line_bytes=128",
];

/// The long suite's settings beside [`BYPASS`] (the largest table: 40 random programs);
/// the split policies on a non-blocking D$, as [`AGGRESS`].
const LONG_SETTINGS: [&[&str]; 7] = [
    &[
        "reconv=\"stack\"",
        "warps=2",
        "dws=\"lazy\"",
        "hit_window=0",
        "branch_entries=32",
        "dcache_mshrs=2",
    ],
    &[
        "reconv=\"bl\"",
        "warps=4",
        "dws=\"revive\"",
        "hit_window=20",
        "branch_entries=32",
        "dcache_mshrs=2",
    ],
    &["reconv=\"stack\"", "warps=1", "branch_entries=32"],
    &["reconv=\"stack\"", "warps=2", "branch_entries=32"],
    &["reconv=\"bl\"", "warps=4", "branch_entries=32"],
    &[
        "reconv=\"bypass\"",
        "warps=8",
        "branch_dws=true",
        "dws=\"revive\"",
        "branch_entries=32",
        "dcache_mshrs=2",
    ],
    &[
        "reconv=\"bypass\"",
        "warps=4",
        "branch_dws=true",
        "wst_entries=2",
        "branch_entries=32",
    ],
];

/// The long suite's settings of the affine mechanisms (seed 000) under the sequencer
/// beside the fast suite's (all three on [`AGGRESS`]): arithmetic alone and with
/// uniform branches, on the conventional answer and under ReviveSplit at 2 warps.
const LONG_AFFINE: [&[&str]; 2] = [
    &[
        "reconv=\"bypass\"",
        "warps=4",
        "branch_dws=true",
        "branch_entries=32",
        "affine=\"a\"",
    ],
    &[
        "reconv=\"stack\"",
        "warps=2",
        "dws=\"revive\"",
        "branch_entries=32",
        "dcache_mshrs=2",
        "affine=\"ab\"",
    ],
];

/// The integer and RV32F kernels of `kernels/` but the fast suite's one.
const LONG_KERNELS: [&str; 12] = [
    "bilat",
    "bsearch",
    "cmult",
    "conv",
    "dither",
    "kmeans",
    "mfilt",
    "rgb2cmyk",
    "rsort",
    "sgemm",
    "strsearch",
    "viterbi",
];

#[test]
fn kernels_run_in_lockstep_on_the_sequencer() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = vec!["bfs"];
    if long() {
        names.extend(LONG_KERNELS);
    }
    let mut elfs: Vec<PathBuf> = names.iter().map(|k| kernel(dir.path(), k)).collect();
    use verification::randgen::simt::{build_simt, SimtShape};
    for seed in 0..if long() { 40 } else { 2 } {
        let shape = SimtShape {
            len: 60,
            fp: seed % 2 == 0,
        };
        elfs.push(build_simt(seed, shape, dir.path()).unwrap());
    }
    let slow = ["--latency", "20", "--jitter", "7", "--stall-percent", "25"];
    let affine = [&AGGRESS[..], &["affine=\"abm\""]].concat();
    let mut settings: Vec<&[&str]> = vec![&affine];
    if long() {
        settings.extend([&AGGRESS[..], &BYPASS]);
        settings.extend(LONG_SETTINGS);
        settings.extend(LONG_AFFINE);
    }
    for setting in settings {
        let affine = setting.iter().any(|t| t.starts_with("affine="));
        for elf in &elfs {
            let run = lockstep(elf, setting, &["--fast-forward"]);
            if affine {
                // The ASRF was written (compact values the CP kept), each write the
                // model's.
                let asrf = (run.stderr.split(" ASRF writes matched").next())
                    .and_then(|l| l.rsplit(' ').next()?.parse::<u64>().ok());
                assert!(
                    asrf.is_some_and(|n| n > 0),
                    "{}",
                    explain("no ASRF writes checked", &run)
                );
            }
            if long() {
                let mut extra = vec!["--fast-forward"];
                extra.extend(slow);
                lockstep(elf, setting, &extra);
            }
        }
    }
}

/// The AVC under the sequencer: [`AGGRESS`] with the threads' stacks private, in an AVC
/// and L1 of one line each (every eviction path busy). `tests/fgsimt_cases/private.c`
/// (sub-word and divergent accesses to each thread's stack, 5 warps) and mfilt built to
/// spill run in lockstep: besides the checks of [`lockstep`], the AVC's memory traffic
/// must be the golden AVC's replaying the engine's private accesses in its order (the
/// bench's check), and with the one-line AVC there must be fills and write-backs (the
/// default AVC may hold every stack: no traffic at all). With `ACCELGEN_LONG=1` also bsearch and
/// strsearch built to spill, and the conventional answer ([`BYPASS`]) with Table 3's
/// configuration 2 (the default AVC).
#[test]
fn private_stacks_run_in_the_avc_under_the_sequencer() {
    let dir = tempfile::tempdir().unwrap();
    let private = dir.path().join("private.elf");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    build(&root.join("tests/fgsimt_cases/private.c"), &private);
    let mut elfs = vec![private, spilling(dir.path(), "mfilt")];
    if long() {
        elfs.extend(["bsearch", "strsearch"].map(|k| spilling(dir.path(), k)));
    }
    let mut settings = vec![[&AGGRESS[..], &["avc=true"], &AVC_TINY[..]].concat()];
    if long() {
        settings.push([&BYPASS[..], &["avc=true"]].concat());
    }
    for setting in &settings {
        for elf in &elfs {
            let run = lockstep(elf, setting, &["--fast-forward"]);
            if !setting.ends_with(&AVC_TINY) {
                continue; // The default AVC may hold every stack: no traffic at all.
            }
            let avc = run.stderr.lines().find(|l| l.contains("AVC memory"));
            let count = |word: &str| -> u64 {
                let n = avc.and_then(|l| l.split(&format!(" {word}")).next()?.rsplit(' ').next());
                n.and_then(|n| n.parse().ok()).unwrap_or(0)
            };
            let both = count("reads") > 0 && count("writes") > 0;
            assert!(both, "{}", explain("no AVC fills or write-backs", &run));
        }
    }
}

/// A re-convergence stack of 2 entries cannot hold bfs's nested divergence: the engine
/// stops with the sequencer's fault, named (a model of its own: `ACCELGEN_LONG=1`
/// only). bsearch, this test's kernel until 2026-12-06, needs only 2 entries (the
/// golden sequencer following the engine counts them).
#[test]
fn a_shallow_stack_is_the_sequencers_fault() {
    if !long() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let elf = kernel(dir.path(), "bfs");
    let run = sim(
        &elf,
        &["reconv=\"stack\"", "warps=2", "stack_depth=2"],
        &["--fast-forward"],
    );
    assert_ne!(run.code, 0, "{}", explain("sim", &run));
    assert!(
        run.stderr.contains("the DWS sequencer's error"),
        "{}",
        explain("sim", &run)
    );
}

/// A kernel with more conditional branches than the sequencer's table holds is refused
/// by the loader before the run, naming the kernel and both counts (bsearch has 3).
#[test]
fn too_many_branches_are_refused_by_the_loader() {
    let dir = tempfile::tempdir().unwrap();
    let elf = kernel(dir.path(), "bsearch");
    let run = sim(
        &elf,
        &[
            "reconv=\"bypass\"",
            "warps=4",
            "branch_dws=true",
            "branch_entries=1",
        ],
        &["--fast-forward"],
    );
    assert_ne!(run.code, 0, "{}", explain("sim", &run));
    for part in ["conditional branches", "branch_entries = 1"] {
        assert!(run.stderr.contains(part), "{}", explain(part, &run));
    }
}
