//! The VGIW basic block scheduler's RTL (`generators::vgiw::bbs`, seed 004 section 3.2,
//! with its CVT) in the IR simulator from random initial state, scheduling whole
//! programs: `verification::vgiw::bbs::BbsRunner` answers its configuration requests,
//! runs the threads it injects through their blocks with the graph interpreter and
//! reports their completions out of order after random latencies, checking as it goes
//! that each block is the smallest non-empty, that exactly its vector's threads are
//! injected, once each, with their stack pointers, that no thread is in two vectors and
//! that a tile ends with the CVT empty. Each program's steps (block, threads, CVT
//! contents after it) must equal the execution model's (Figure 2's trace among them),
//! its exit code and memory the ISS's, its counts the model's. A CVT of 64 words makes
//! the kernels run in several tiles. Lint clean at the presets and at extreme shapes.

mod lint_rig;
mod vgiw_rig;

use generators::vgiw::bbs::bbs;
use generators::vgiw::params::VgiwParams;
use hdl::sim::{Init, Sim};
use hdl::Design;
use verification::elf::Program;
use verification::simulator::Simulator;
use verification::verilator::{Model, Options, INIT_SEEDS};
use verification::vgiw::bbs::BbsRunner;
use verification::vgiw::fabric::Stimulus;
use verification::vgiw::machine::{Coalescing, Interpreter};
use verification::vgiw::program::{run_on_with, vgiw_host};
use vgiw_rig::{build_kernel, compile_all, fig2, iss_run, preset, same_memory, MAX_STEPS};

/// `program` scheduled by the BBS and by the model: same steps, counts, exit code and
/// memory (the ISS's).
fn in_step<S: Simulator>(name: &str, program: &Program, params: &VgiwParams, stim: Stimulus, sim: S)
where
    S::Error: std::fmt::Display,
{
    let t = std::time::Instant::now();
    let kernels = compile_all(program, params);
    let mut runner = BbsRunner::new(sim, params, stim);
    let mut rtl_iss = vgiw_host(program).unwrap();
    let mut rtl_steps = Vec::new();
    let (r, s) = (&mut runner, Some(&mut rtl_steps));
    let mut rtl = run_on_with(&mut rtl_iss, &kernels, params, MAX_STEPS, r, s)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut iss = vgiw_host(program).unwrap();
    let mut model_steps = Vec::new();
    let (r, s) = (&mut Coalescing(&mut Interpreter), Some(&mut model_steps));
    let mut model = run_on_with(&mut iss, &kernels, params, MAX_STEPS, r, s).unwrap();
    let (exit, plain) = iss_run(program);
    assert_eq!((rtl.exit, exit), (0, 0), "{name}");
    assert!(
        same_memory(program, &plain, &rtl_iss),
        "{name}: memory differs from the ISS's"
    );
    assert_eq!(
        rtl_steps, model_steps,
        "{name}: steps differ from the model's"
    );
    // The LVC sees the same accesses in another order: its hits may differ.
    for run in [&mut rtl, &mut model] {
        for (_, stats) in run.launches.iter_mut() {
            stats.lvc.hits = 0;
            stats.lvc.misses = 0;
            stats.lvc.writebacks = 0;
        }
    }
    assert_eq!(rtl, model, "{name}: counts differ from the model's");
    let tiles: u64 = model.launches.iter().map(|l| l.1.tiles).sum();
    eprintln!(
        "{name}: {} cycles, {} steps, {tiles} tiles in {:?}",
        runner.cycles,
        model_steps.iter().map(Vec::len).sum::<usize>(),
        t.elapsed()
    );
}

/// Figure 2's program with quick and with slow, mostly refusing ports.
#[test]
fn figure_2_is_scheduled_as_the_model_schedules_it() {
    let dir = tempfile::tempdir().unwrap();
    let program = fig2(dir.path());
    let params = preset("vgiw-small");
    let slow = Stimulus {
        seed: 2,
        max_latency: 40,
        refuse_percent: 60,
    };
    for stim in [Stimulus::default(), slow] {
        let design = Design::new(&bbs(&params).unwrap());
        let sim = Sim::with_init(&design, Init::Random { seed: stim.seed });
        in_step("fig2", &program, &params, stim, sim);
    }
}

/// Kernels with loops and many threads on Table 1's 16 CVUs, with a 64-word CVT
/// (several tiles each), the BBS in Verilator (the IR simulator takes minutes).
#[test]
fn kernels_run_in_tiles_as_the_model_runs_them() {
    let dir = tempfile::tempdir().unwrap();
    let params = VgiwParams {
        cvt_words: 64,
        ..VgiwParams::default()
    };
    let design = Design::new(&bbs(&params).unwrap());
    let mut model = Model::of_design(&design, &Options::quick_build()).unwrap();
    for (i, name) in ["bsearch", "rodinia/nw", "rodinia/kmeans_invert"]
        .iter()
        .enumerate()
    {
        let program = build_kernel(dir.path(), name);
        let stim = Stimulus {
            seed: 10 + i as u64,
            ..Stimulus::default()
        };
        model
            .reinit(Init::Random {
                seed: INIT_SEEDS[i % 2],
            })
            .unwrap();
        in_step(name, &program, &params, stim, &mut model);
    }
}

#[test]
fn the_bbs_is_lint_clean() {
    let small = preset("vgiw-small");
    let shapes = [
        preset("vgiw"),
        small.clone(),
        VgiwParams {
            cvt_words: 8,
            cvt_banks: 1,
            max_blocks: 2,
            cvus: 1,
            ..small.clone()
        },
        VgiwParams {
            cvt_words: 4096,
            max_blocks: 1024,
            sram_threshold_bits: 1 << 30,
            ..small
        },
    ];
    let blocks: Vec<_> = shapes.iter().map(|p| bbs(p).unwrap()).collect();
    lint_rig::lint_blocks("vgiw bbs", &blocks);
}
