//! The VGIW fabric's RTL (`generators::vgiw::fabric`) in Verilator, run block by block
//! by the execution model's BBS (`verification::vgiw::fabric::FabricRunner`): Figure 2's
//! trace reproduced exactly on the RTL, and every integer kernel program leaving the
//! ISS's exit code and memory, with every step (block, thread vector, the CVT after
//! it) equal to the interpreter's, under random memory and LVC latencies and refusals.

mod vgiw_rig;

use generators::vgiw::compiler::{Kernel, Op};
use generators::vgiw::params::VgiwParams;
use verification::elf::Program;
use verification::iss::Iss;
use verification::kernels::programs;
use verification::vgiw::fabric::{FabricRunner, Stimulus};
use verification::vgiw::machine::{Interpreter, Step};
use verification::vgiw::program::{run_on_with, vgiw_host, ProgramRun};
use vgiw_rig::{build, build_kernel, compile_all, iss_run, preset, root, same_memory, MAX_STEPS};

/// Whether a kernel uses an operation the fabric does not build yet (FP).
fn uses_fp(k: &Kernel) -> bool {
    (k.blocks.iter().flat_map(|b| &b.nodes)).any(|n| match n.op {
        Op::Compute(c) => generators::vgiw::compiler::image::variant_of(c).0 >= 19,
        _ => false,
    })
}

struct Runs {
    rtl: ProgramRun,
    rtl_iss: Iss,
    rtl_steps: Vec<Vec<Step>>,
    model_steps: Vec<Vec<Step>>,
    cycles: (u64, u64),
}

/// The program on the RTL fabric and on the interpreter, each with its own host.
fn both(program: &Program, params: &VgiwParams, stim: Stimulus) -> Option<Runs> {
    let kernels = compile_all(program, params);
    if kernels.iter().any(uses_fp) {
        return None;
    }
    let mut runner = FabricRunner::new(params, &kernels, stim).unwrap();
    let mut rtl_iss = vgiw_host(program).unwrap();
    let mut rtl_steps = Vec::new();
    let rtl = run_on_with(
        &mut rtl_iss,
        &kernels,
        params,
        MAX_STEPS,
        &mut runner,
        Some(&mut rtl_steps),
    )
    .unwrap();
    let mut iss = vgiw_host(program).unwrap();
    let mut model_steps = Vec::new();
    run_on_with(
        &mut iss,
        &kernels,
        params,
        MAX_STEPS,
        &mut Interpreter,
        Some(&mut model_steps),
    )
    .unwrap();
    Some(Runs {
        rtl,
        rtl_iss,
        rtl_steps,
        model_steps,
        cycles: (runner.cycles, runner.config_cycles),
    })
}

#[test]
fn figure_2s_trace_is_reproduced_on_the_rtl() {
    let dir = tempfile::tempdir().unwrap();
    let cases = root().join("tests/vgiw_cases");
    let program = build(
        dir.path(),
        &[cases.join("fig2.c"), cases.join("fig2.S")],
        "fig2",
    );
    let params = preset("vgiw-small");
    let runs = both(&program, &params, Stimulus::default()).unwrap();
    let (exit, iss) = iss_run(&program);
    assert_eq!(runs.rtl.exit, exit);
    assert!(same_memory(&program, &iss, &runs.rtl_iss));
    assert_eq!(runs.rtl_steps, runs.model_steps);
    eprintln!("fig2: {:?} cycles (total, configuration)", runs.cycles);
}
