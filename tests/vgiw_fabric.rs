//! The VGIW fabric's RTL (`generators::vgiw::fabric`) in Verilator, run block by block
//! by the execution model's BBS (`verification::vgiw::fabric::FabricRunner`), under
//! random memory and LVC latencies and request refusals: each program leaves the ISS's
//! exit code and memory, and every step (block, thread vector, the CVT after it) equals
//! the interpreter's. Figure 2's kernel (its trace exactly, as `vgiw_model` pins it) and
//! the store-then-reload kernel, with fast and with slow loads, and the directed FP
//! kernel (`tests/vgiw_cases/fp.c`) on the small preset, and every kernel program on the
//! paper's fabric (`configs/vgiw.toml`): all with `ACCELGEN_LONG=1` (the fast suite runs
//! Figure 2's and the FP program on the whole tile instead, `tests/vgiw_system.rs`).

mod lint_rig;
mod vgiw_rig;

use generators::vgiw::params::VgiwParams;
use verification::elf::Program;
use verification::iss::Iss;
use verification::kernels::programs;
use verification::verilator::Options;
use verification::vgiw::fabric::{FabricRunner, Stimulus};
use verification::vgiw::machine::{Coalescing, Interpreter, Step};
use verification::vgiw::program::{run_on_with, vgiw_host, ProgramRun};
use vgiw_rig::{
    build, build_kernel, compile_all, fig2, iss_run, long, preset, root, same_memory, MAX_STEPS,
};

struct Runs {
    rtl: ProgramRun,
    rtl_iss: Iss,
    rtl_steps: Vec<Vec<Step>>,
    model_steps: Vec<Vec<Step>>,
    cycles: (u64, u64),
}

/// The program on the RTL fabric and on the interpreter, each with its own host.
fn both(program: &Program, params: &VgiwParams, stim: Stimulus, opts: &Options) -> Runs {
    let kernels = compile_all(program, params);
    let mut runner = FabricRunner::new(params, &kernels, stim, opts).unwrap();
    let mut rtl_iss = vgiw_host(program).unwrap();
    let mut rtl_steps = Vec::new();
    let (r, s) = (&mut Coalescing(&mut runner), Some(&mut rtl_steps));
    let rtl = run_on_with(&mut rtl_iss, &kernels, params, MAX_STEPS, r, s).unwrap();
    let mut iss = vgiw_host(program).unwrap();
    let mut model_steps = Vec::new();
    let (r, s) = (&mut Coalescing(&mut Interpreter), Some(&mut model_steps));
    run_on_with(&mut iss, &kernels, params, MAX_STEPS, r, s).unwrap();
    Runs {
        rtl,
        rtl_iss,
        rtl_steps,
        model_steps,
        cycles: (runner.cycles, runner.config_cycles),
    }
}

/// `program` on the RTL and the interpreter: the ISS's exit code (0) and memory, the
/// model's steps.
fn in_step(name: &str, program: &Program, params: &VgiwParams, stim: Stimulus, opts: &Options) {
    let t = std::time::Instant::now();
    let runs = both(program, params, stim, opts);
    let (exit, iss) = iss_run(program);
    assert_eq!((runs.rtl.exit, exit), (0, 0), "{name}");
    assert!(
        same_memory(program, &iss, &runs.rtl_iss),
        "{name}: memory differs from the ISS's"
    );
    assert_eq!(
        runs.rtl_steps, runs.model_steps,
        "{name}: steps differ from the model's"
    );
    eprintln!(
        "{name}: {:?} cycles (total, configuration) in {:?}",
        runs.cycles,
        t.elapsed()
    );
}

/// Figure 2's kernel and the store-then-reload kernel (`same_word`, whose store must wait
/// for its load through a join), once with the default latencies and once with requests
/// up to 40 cycles slow and most refused; then the directed FP kernel.
#[test]
fn figure_2_and_an_fp_program_run_on_the_rtl_in_step_with_the_model() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 (the fast suite runs these on the tile, tests/vgiw_system.rs)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let program = fig2(dir.path());
    let params = preset("vgiw-small");
    let opts = Options::quick_build();
    let slow = Stimulus {
        seed: 2,
        max_latency: 40,
        refuse_percent: 60,
    };
    for stim in [Stimulus::default(), slow] {
        in_step("fig2", &program, &params, stim, &opts);
    }
    let cases = root().join("tests/vgiw_cases");
    let program = build(dir.path(), &[cases.join("fp.c")], "fp");
    in_step("fp", &program, &params, Stimulus::default(), &opts);
}

/// Every kernel program on the paper's fabric, long.
#[test]
fn every_program_runs_on_the_papers_fabric_in_step_with_the_model() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to run every program on the RTL");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut names = programs("");
    names.extend(programs("rodinia"));
    assert_eq!(names.len(), 23, "{names:?}");
    let params = preset("vgiw");
    for name in names {
        let program = build_kernel(dir.path(), &name);
        let stim = Stimulus::default();
        in_step(&name, &program, &params, stim, &Options::default());
    }
}

/// Kernels compiled for another fabric are refused before any model is built.
#[test]
fn kernels_of_another_fabric_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let program = fig2(dir.path());
    let kernels = compile_all(&program, &VgiwParams::default());
    let small = preset("vgiw-small");
    let err = FabricRunner::new(&small, &kernels, Stimulus::default(), &Options::default())
        .err()
        .expect("refused");
    assert_eq!(
        err.to_string(),
        "the fabric: kernel fig2 was not compiled for this fabric"
    );
}

/// The fabric at its narrowest: a single unit of each type, one channel a link, 2
/// virtual channels, 1-entry ports, one divider an SCU (the whole tile at the presets
/// and, long, at this shape: `examples_lint`).
#[test]
fn the_narrowest_fabric_is_lint_clean() {
    let p = VgiwParams {
        compute_units: 1,
        scus: 1,
        ldsts: 1,
        lvus: 1,
        sjus: 1,
        cvus: 1,
        switch_channels: 1,
        vcs: 2,
        port_outstanding: 1,
        scu_instances: 1,
        ..VgiwParams::default()
    };
    p.validate().unwrap();
    lint_rig::lint_blocks(
        "vgiw fabric",
        &[generators::vgiw::fabric::fabric(&p).unwrap()],
    );
}
