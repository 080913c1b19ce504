//! The VGIW execution model (seed 004 sections 2-3, `verification::vgiw`): Figure 2's
//! trace reproduced exactly (schedule order, the CVT after every step, each block once)
//! on the paper's BB1..BB6 kernel; every kernel program of `kernels/` and
//! `kernels/rodinia/` leaves the same exit code and memory as the per-thread ISS, with
//! the default CVT and LVC, and with a CVT that forces tiles and an LVC that forces
//! spills; the CVT's invariants; and the memory-order joins proven necessary on a block
//! that stores and reloads a word.

mod vgiw_rig;

use generators::vgiw::compiler::{compile, Next, Succ};
use generators::vgiw::params::VgiwParams;
use std::path::Path;
use verification::iss::Step;
use verification::kernels::programs;
use verification::vgiw::cvt::Cvt;
use verification::vgiw::machine::{run_launch, LaunchInit, Step as Sched};
use verification::vgiw::program::vgiw_host;
use verification::vgiw::{check, kernels};
use vgiw_rig::{build_kernel, compile_all, fig2, iss_run, same_memory, vgiw_run};

fn sched(block: u16, threads: &[u32], cvt: &[(u16, &[u32])]) -> Sched {
    Sched {
        block,
        threads: threads.to_vec(),
        cvt_after: cvt.iter().map(|(b, t)| (*b, t.to_vec())).collect(),
    }
}

#[test]
fn figure_2s_trace_is_reproduced_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let program = fig2(dir.path());
    let params = VgiwParams::default();
    let entry = kernels::named(&program, "fig2").unwrap();
    let kernel = compile(&kernels::code(&program, entry).unwrap(), &params).unwrap();
    // BB1..BB6 are blocks 1..6, in the paper's order, after the entry block 0.
    let nexts: Vec<Next> = kernel.blocks.iter().map(|b| b.next).collect();
    let (b, exit) = (Succ::Block, Succ::Exit);
    assert_eq!(
        nexts,
        [
            Next::Goto(b(1)),
            Next::Cond {
                taken: b(3),
                fall: b(2)
            },
            Next::Goto(b(6)),
            Next::Cond {
                taken: b(5),
                fall: b(4)
            },
            Next::Goto(b(6)),
            Next::Goto(b(6)),
            Next::Goto(exit),
        ],
        "{kernel}"
    );
    assert_eq!(kernel.blocks[1].start, Some(entry as u32));
    // The launch as the program makes it, on the program's memory.
    let mut iss = vgiw_host(&program).unwrap();
    let launch = loop {
        if let Step::Launch(l) = iss.step_one().unwrap() {
            break l;
        }
    };
    assert_eq!((launch.entry, launch.n), (entry, 8));
    let [stack_top, stack_bytes, gp, tp] = iss.launch_constants().unwrap();
    let init = LaunchInit {
        gp: gp as u32,
        tp: tp as u32,
        stack_top: stack_top as u32,
        stack_bytes: stack_bytes as u32,
    };
    let mut trace = Vec::new();
    let stats = run_launch(&kernel, 8, init, &params, &mut iss.mem, Some(&mut trace)).unwrap();
    // Figure 2 with 0-based thread IDs: the paper's threads 1, 3, 8 are 0, 2, 7.
    let all: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7];
    let (bb2, bb4, bb5): (&[u32], &[u32], &[u32]) = (&[0, 2, 7], &[1, 6], &[3, 4, 5]);
    let bb3: &[u32] = &[1, 3, 4, 5, 6];
    let want = vec![
        sched(0, all, &[(1, all)]),
        sched(1, all, &[(2, bb2), (3, bb3)]),              // (b)
        sched(2, bb2, &[(3, bb3), (6, bb2)]),              // (c)
        sched(3, bb3, &[(4, bb4), (5, bb5), (6, bb2)]),    // (d)
        sched(4, bb4, &[(5, bb5), (6, &[0, 1, 2, 6, 7])]), // (e)
        sched(5, bb5, &[(6, all)]),                        // (f)
        sched(6, all, &[]),
    ];
    assert_eq!(trace, want);
    assert_eq!(
        (stats.blocks_executed, stats.reconfigurations, stats.tiles),
        (7, 7, 1)
    );
    assert_eq!(stats.thread_blocks, 8 + 8 + 3 + 5 + 2 + 3 + 8);
}

#[test]
fn the_directed_kernels_match_the_iss_and_need_their_joins() {
    let dir = tempfile::tempdir().unwrap();
    let program = fig2(dir.path());
    let params = VgiwParams::default();
    let kernels = compile_all(&program, &params);
    let (exit, iss) = iss_run(&program);
    assert_eq!(exit, 0);
    let (run, vgiw) = vgiw_run(&program, &params);
    assert_eq!(run.exit, 0);
    assert!(
        same_memory(&program, &iss, &vgiw),
        "final memory differs from the ISS's"
    );
    for seed in 0..20 {
        check::check_program(&program, &kernels, 10_000_000, seed).unwrap();
    }
    // Without the ordering inputs of its memory nodes, same_word's block lets the
    // reload fire before the store (or the store before the first load): some firing
    // order then disagrees with the ISS.
    let mut broken = kernels.clone();
    let same = broken.iter_mut().find(|k| k.name == "same_word").unwrap();
    for node in &mut same.blocks[1].nodes {
        if node.op.memory() {
            node.after.clear();
        }
    }
    let caught =
        (0..20).any(|seed| check::check_program(&program, &broken, 10_000_000, seed).is_err());
    assert!(caught, "the check did not notice missing memory order");
}

fn long() -> bool {
    std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1")
}

/// Small: tiles of a few hundred threads, a 256-byte LVC that spills constantly.
fn small() -> VgiwParams {
    VgiwParams {
        cvt_words: 64,
        lvc_bytes: 256,
        ..VgiwParams::default()
    }
}

/// Runs kernels/<name>.c ("rodinia/nn": kernels/rodinia/nn.c) on the ISS and on the
/// VGIW model with the default parameters, and with the small ones when `divergent` or
/// `ACCELGEN_LONG=1`: each run exits 0 and leaves the ISS's memory. Returns the LVC's
/// spills with the small parameters.
fn leaves_the_isss_memory(dir: &Path, name: &str, divergent: bool) -> u64 {
    let small = small();
    let mut spilled = 0;
    let program = build_kernel(dir, name);
    let (exit, iss) = iss_run(&program);
    assert_eq!(exit, 0, "{name} on the ISS");
    let sets = if divergent || long() { 2 } else { 1 };
    for params in [VgiwParams::default(), small.clone()]
        .into_iter()
        .take(sets)
    {
        let (run, vgiw) = vgiw_run(&program, &params);
        assert_eq!(run.exit, 0, "{name}");
        assert!(
            same_memory(&program, &iss, &vgiw),
            "{name}: final memory differs from the ISS's"
        );
        let tiles: u64 = run.launches.iter().map(|l| l.1.tiles).sum();
        let spills: u64 = run.launches.iter().map(|l| l.1.lvc.writebacks).sum();
        eprintln!(
            "{name} cvt {} lvc {}: {} launches, {tiles} tiles, {spills} spills",
            params.cvt_words,
            params.lvc_bytes,
            run.launches.len()
        );
        if params == small {
            spilled += spills;
        }
    }
    spilled
}

/// Every program with the default parameters; the divergent ones (all with
/// `ACCELGEN_LONG=1`) also with the small CVT and LVC.
#[test]
fn every_kernel_program_leaves_the_isss_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut spilled = 0;
    for name in programs("") {
        let divergent = ["bfs", "bsearch", "kmeans", "strsearch"].contains(&name.as_str());
        spilled += leaves_the_isss_memory(dir.path(), &name, divergent);
    }
    assert!(spilled > 0);
}

/// The same for every program of `kernels/rodinia/` (seed 004's Table 2), a test of its
/// own so that it runs beside the other; those with data-dependent branches (hotspot's
/// cases, lud's perimeter, nw's maxima) also with the small CVT and LVC.
#[test]
fn every_rodinia_program_leaves_the_isss_memory() {
    let dir = tempfile::tempdir().unwrap();
    let names = programs("rodinia");
    assert_eq!(names.len(), 10, "{names:?}");
    let mut spilled = 0;
    for name in &names {
        let divergent = ["rodinia/hotspot", "rodinia/lud", "rodinia/nw"].contains(&name.as_str());
        spilled += leaves_the_isss_memory(dir.path(), name, divergent);
    }
    assert!(spilled > 0);
}

#[test]
fn the_cvt_resets_on_read_ors_completions_and_keeps_a_thread_in_one_vector() {
    let mut cvt = Cvt::new(4, 130);
    assert_eq!(cvt.words(), 3);
    cvt.or(2, 1, 0b1010).unwrap();
    cvt.or(2, 1, 0b0101).unwrap();
    assert_eq!(cvt.threads(2), [64, 65, 66, 67]);
    assert_eq!(cvt.next_block(), Some(2));
    cvt.or(1, 2, 1).unwrap();
    assert_eq!(cvt.next_block(), Some(1));
    // A thread already in block 2 cannot join block 3.
    let err = cvt.or(3, 1, 0b100).unwrap_err();
    assert_eq!((err.tid, err.first, err.second), (66, 2, 3));
    assert_eq!(cvt.read_and_reset(2, 1), 0b1111);
    assert_eq!(cvt.read_and_reset(2, 1), 0);
    // Once read, the threads may go anywhere.
    cvt.or(3, 1, 0b100).unwrap();
    assert_eq!(cvt.contents(), [(1, vec![128]), (3, vec![66])]);
}
