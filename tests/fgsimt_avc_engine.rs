//! The affine vector cache in the FG-SIMT engine (design `fgsimt` with `avc = true`;
//! seed 002): the threads' stacks are private memory, sent by the SMU's private path
//! (`smu/private.rs`) as warp transactions to the AVC and its L1 (`avc/controller.rs`).
//! Every run is `accelgen sim fgsimt --lockstep`: every SRF write (so every private
//! load's value) against the SIMT model, memory after the run against the ISS's (the
//! launches' stacks excepted: the tile keeps them in the AVC's own space), the exit
//! code 0.
//! - kernels built with 10 registers (`register_limit_flags`, as the paper limits them)
//!   so that they spill: bsearch and mfilt with an AVC and L1 of one line each (every
//!   eviction path busy: `avc_mem`'s reads and writes must be the golden replay's
//!   fills and write-backs, `verification::fgsimt::avc::private`) and, the same ELF,
//!   without the AVC; with `ACCELGEN_LONG=1` also strsearch and dither, and
//!   at Table 3's configuration 2 (the default);
//! - `tests/fgsimt_cases/private.c`: byte, halfword and word stores and loads on each
//!   thread's stack at indices that differ between threads (several transactions a warp
//!   instruction; sub-word stores read, merge and write), 40 threads (5 warps of 8);
//! - the private-stack rule, with every affine mechanism on: another thread's stack
//!   (load access fault), also through a uniform address (which the front end must not
//!   take as a shared load) and an affine unit-stride one (nor as an affine load), and an
//!   atomic on its own (store/AMO access fault) stop the engine with the model's trap
//!   (the lockstep checks it), as the same programs run clean without the AVC; a stack
//!   command whose size is not whole words is refused.
//! - the tile lint clean at the narrowest shape (1 lane, warps of 1, one-line caches);
//!   with `ACCELGEN_LONG=1` at the widest AVC too.
//!
//! One Verilator model a shape (the tile of `tests/fgsimt_tile.rs`, through the cache).

mod cli_run;

use cli_run::{accelgen, explain, long, s, spilling, Run, AVC_TINY as TINY, FGSIMT_TILE};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `tests/fgsimt_cases/private.c` with `define` (if any).
fn case(dir: &Path, define: Option<&str>) -> PathBuf {
    let elf = dir.join(format!("private{}.elf", define.unwrap_or("")));
    let src = root().join("tests/fgsimt_cases/private.c");
    let mut args = vec!["asm", "--target", "simt"];
    if let Some(d) = define {
        args.extend(["-D", d]);
    }
    args.extend([s(&src), "-o", s(&elf)]);
    let run = accelgen(&args);
    assert_eq!(run.code, 0, "{}", explain("accelgen asm", &run));
    elf
}

fn sim(elf: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["sim", "fgsimt", "--program", s(elf), "--lockstep"];
    for t in FGSIMT_TILE.iter().chain(extra) {
        args.extend(["--set", t]);
    }
    args.push("--fast-forward");
    accelgen(&args)
}

/// Runs `elf` with `sets` and checks it passes; returns the AVC memory's (reads, writes).
fn passes(elf: &Path, sets: &[&str]) -> (u64, u64) {
    let run = sim(elf, sets);
    let what = format!("{} {sets:?}", elf.display());
    assert_eq!(run.code, 0, "{}", explain(&what, &run));
    assert!(
        run.stderr.contains("writes matched the SIMT model"),
        "{}",
        explain(&what, &run)
    );
    let Some(line) = run.stderr.lines().find(|l| l.contains("AVC memory")) else {
        return (0, 0);
    };
    let count = |word: &str| -> u64 {
        let before = line.split(&format!(" {word}")).next().unwrap();
        before.rsplit(' ').next().unwrap().parse().unwrap()
    };
    (count("reads"), count("writes"))
}

/// The golden replay's AVC memory accesses (fills, write-backs) for `elf` on warps of
/// 8 (the test tile's) with `TINY`'s caches: the engine's must be these.
fn golden_traffic(elf: &Path) -> (u64, u64) {
    use verification::fgsimt::avc::controller::AvcParams;
    let tiny = AvcParams {
        threads: 8,
        vectors_per_line: 2,
        avc_sets: 2,
        avc_ways: 1,
        l1_sets: 2,
        l1_ways: 1,
    };
    let program = verification::elf::load_file(elf).unwrap();
    let replay = verification::fgsimt::avc::private::replay_program(&program, 8, &[tiny]).unwrap();
    let c = &replay.counters()[0];
    (c.fills, c.writebacks_affine + c.writebacks_generic)
}

fn with_avc(extra: &[&'static str]) -> Vec<&'static str> {
    let mut v = vec!["avc=true"];
    v.extend_from_slice(extra);
    v
}

#[test]
fn spilling_kernels_run_in_lockstep_with_private_stacks() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = vec!["bsearch", "mfilt"];
    if long() {
        names.extend(["strsearch", "dither"]);
    }
    for name in names {
        let elf = spilling(dir.path(), name);
        let (reads, writes) = passes(&elf, &with_avc(&TINY));
        assert!(
            reads > 0 && writes > 0,
            "{name}: {reads} reads, {writes} writes"
        );
        assert_eq!((reads, writes), golden_traffic(&elf), "{name}: the model's");
        assert_eq!(passes(&elf, &[]), (0, 0));
        // With every affine mechanism (the front end's shared and affine loads leave
        // the stacks to the lanes): the same results and AVC traffic.
        let abm = [&TINY[..], &["affine=\"abm\""]].concat();
        assert_eq!(passes(&elf, &with_avc(&abm)), (reads, writes), "{name} abm");
        if long() {
            passes(&elf, &with_avc(&[]));
        }
    }
}

#[test]
fn sub_word_and_divergent_private_accesses_run_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let elf = case(dir.path(), None);
    let (reads, writes) = passes(&elf, &with_avc(&TINY));
    assert!(reads > 0 && writes > 0, "{reads} reads, {writes} writes");
    assert_eq!((reads, writes), golden_traffic(&elf), "the model's");
    let abm = [&TINY[..], &["affine=\"abm\""]].concat();
    assert_eq!(passes(&elf, &with_avc(&abm)), (reads, writes), "abm");
    passes(&elf, &with_avc(&[]));
    passes(&elf, &[]);
}

#[test]
fn the_private_stack_rule_stops_the_engine_as_the_model_traps() {
    let dir = tempfile::tempdir().unwrap();
    for (define, parts) in [
        ("FOREIGN", &["thread 3", "load access fault"][..]),
        ("ATOMIC", &["thread 3", "store/AMO access fault"][..]),
        ("SHARED", &["thread 0", "load access fault"][..]),
        ("STRIDED", &["thread 1", "load access fault"][..]),
        // The kernel state's refusal (`bad_cmd`, an illegal instruction): the model,
        // which has no such rule, says it would have run.
        (
            "BAD_STACK",
            &["illegal instruction", "to its end without a trap"][..],
        ),
    ] {
        let elf = case(dir.path(), Some(define));
        let run = sim(&elf, &with_avc(&["affine=\"abm\""]));
        assert_ne!(run.code, 0, "{}", explain(define, &run));
        for part in parts {
            assert!(run.stderr.contains(part), "{}", explain(define, &run));
        }
        if define != "BAD_STACK" {
            // The engine's fault is the model's trap: the lockstep found no difference.
            assert!(
                !run.stderr.contains("the model"),
                "{}",
                explain(define, &run)
            );
        }
        passes(&elf, &[]);
    }
}

#[test]
fn the_tile_is_lint_clean_with_the_avc() {
    let dir = tempfile::tempdir().unwrap();
    let mut shapes: Vec<Vec<&str>> = vec![[
        &[
            "lanes=1",
            "warp_size=1",
            "dcache_bytes=1024",
            "dcache_banks=1",
            "affine=\"abm\"",
        ][..],
        &TINY[..],
    ]
    .concat()];
    if long() {
        shapes.push(vec![
            "avc_sets=256",
            "avc_ways=8",
            "avc_vectors_per_line=64",
            "avc_l1_sets=256",
            "avc_l1_ways=8",
        ]);
    }
    for (i, sets) in shapes.iter().enumerate() {
        let out = dir.path().join(format!("tile{i}"));
        let mut args = vec!["generate", "fgsimt", "-o", s(&out), "--set", "avc=true"];
        for v in sets {
            args.extend(["--set", v]);
        }
        let run = accelgen(&args);
        assert_eq!(run.code, 0, "{}", explain("generate", &run));
        let run = accelgen(&["lint", s(&out)]);
        assert_eq!(run.code, 0, "{}", explain(&format!("lint {sets:?}"), &run));
    }
}
