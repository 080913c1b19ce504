//! Design `vgiw`'s tile (`generators::vgiw::system`): whole SPMD programs, the host on
//! the control processor and the kernels on the fabric, in a Verilator model, in
//! lockstep with the RV32IMAF ISS (every CP commit, then the final memory), and the
//! tile's schedule (every step's block, thread vector and CVT after it, followed from
//! `trace_bbs` and `trace_or`: Figure 2's trace for Figure 2's kernel) and counts
//! against the VGIW execution model's (`verification::vgiw::program`).

mod cli_run;
mod vgiw_rig;

use cli_run::accelgen;
use generators::vgiw::params::VgiwParams;
use hdl::sim::Init;
use hdl::Design;
use verification::elf::Program;
use verification::kernels::programs;
use verification::tb::memory::MemConfig;
use verification::tb::vgiw::{run, VgiwConfig, VgiwError};
use verification::verilator::{Model, Options, INIT_SEEDS};
use verification::vgiw::loader::{self, Loaded};
use verification::vgiw::machine::{Coalescing, Interpreter};
use verification::vgiw::program::{run_on_with, vgiw_host};
use vgiw_rig::{build_kernel, fig2, long, preset, vgiw_run, MAX_STEPS};

/// Runs `program` on `model` in lockstep under `mem` (with `fast_forward`, only its
/// kernels); checks the tile's schedule (each step's block, vector and CVT after: Figure
/// 2's trace for its kernel) and counts against the execution model's.
fn lockstep(
    name: &str,
    model: &mut Model,
    program: &Program,
    p: &VgiwParams,
    mem: MemConfig,
    seed: usize,
    fast_forward: bool,
) {
    let t = std::time::Instant::now();
    let loaded = loader::load(program, p, MAX_STEPS).unwrap();
    let config = VgiwConfig {
        init: Init::Random {
            seed: INIT_SEEDS[seed % INIT_SEEDS.len()],
        },
        fast_forward,
        max_steps: MAX_STEPS,
        ..VgiwConfig::new(p.clone(), mem, 20_000_000)
    };
    let sink = || Box::new(std::io::sink());
    let out = run(model, program, &loaded, &config, sink(), sink(), true)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(out.exit_code, 0, "{name}: exit code");
    assert!(
        out.matched > 0 && out.matched == out.instret,
        "{name}: {out:?}"
    );
    if let Some((window, _)) = out.window {
        assert_eq!(
            window.records, out.instret,
            "{name}: the window's instructions"
        );
    }
    assert_eq!(out.window.is_some(), fast_forward, "{name}");
    let kernels = vgiw_rig::compile_all(program, p);
    let mut steps = Vec::new();
    let mut iss = vgiw_host(program).unwrap();
    let (runner, trace) = (&mut Coalescing(&mut Interpreter), Some(&mut steps));
    let run = run_on_with(&mut iss, &kernels, p, MAX_STEPS, runner, trace).unwrap();
    assert!(
        out.steps == steps,
        "{name}: the tile's schedule differs from the model's:\n{:?}\n{steps:?}",
        out.steps
    );
    let sum = |f: fn(&verification::vgiw::machine::LaunchStats) -> u64| -> u64 {
        run.launches.iter().map(|(_, s)| f(s)).sum()
    };
    assert_eq!(
        out.stats.blocks,
        sum(|s| s.blocks_executed),
        "{name}: blocks"
    );
    assert_eq!(
        out.stats.threads,
        sum(|s| s.thread_blocks),
        "{name}: thread-blocks"
    );
    assert_eq!(
        out.stats.lvc,
        sum(|s| s.lvc.loads + s.lvc.stores),
        "{name}: LVC accesses"
    );
    eprintln!(
        "{name}{}: {} cycles ({} in kernels, {} configuring), {} blocks, {} thread-blocks, {} LVC accesses, {} CP commits checked, {} steps as the model's, in {:?}",
        if fast_forward { " (fast-forwarded)" } else { "" },
        out.cycles,
        out.stats.kernel_cycles,
        out.stats.config_cycles,
        out.stats.blocks,
        out.stats.threads,
        out.stats.lvc,
        out.matched,
        steps.iter().map(Vec::len).sum::<usize>(),
        t.elapsed()
    );
}

/// The small preset with fewer memory ports (the tests' model).
fn small() -> VgiwParams {
    VgiwParams {
        l1_banks: 4,
        lvc_banks: 2,
        ..preset("vgiw-small")
    }
}

/// The model of the tile of `p` (the same model `accelgen sim` builds, from the cache).
fn model_of(p: &VgiwParams) -> Model {
    let design = Design::new(&generators::vgiw::system::system(p).unwrap());
    Model::of_design(&design, &Options::default()).unwrap()
}

/// Memory at latency 20 with jitter and refusals.
fn slow_memory() -> MemConfig {
    MemConfig {
        latency: 20,
        jitter: 10,
        stall_percent: 20,
        seed: 7,
        ..MemConfig::default()
    }
}

/// Figure 2's program (its kernel and the store-then-reload kernel) and the directed FP
/// kernel on the small preset, at memory latency 1 and at 20 with jitter and refusals,
/// then Figure 2's fast-forwarded to its kernels; long, also the nn kernel (its host
/// setup is a million cycles).
#[test]
fn programs_run_in_lockstep_on_the_tile() {
    let dir = tempfile::tempdir().unwrap();
    let p = small();
    let mut model = model_of(&p);
    let fp = vgiw_rig::root().join("tests/vgiw_cases/fp.c");
    let mut programs = vec![
        ("fig2".to_string(), fig2(dir.path())),
        ("fp".to_string(), vgiw_rig::build(dir.path(), &[fp], "fp")),
    ];
    if long() {
        programs.push(("rodinia/nn".into(), build_kernel(dir.path(), "rodinia/nn")));
    }
    for (i, (name, program)) in programs.iter().enumerate() {
        for (j, mem) in [MemConfig::default(), slow_memory()]
            .into_iter()
            .enumerate()
        {
            lockstep(name, &mut model, program, &p, mem, i + j, false);
        }
    }
    lockstep(
        "fig2",
        &mut model,
        &programs[0].1,
        &p,
        slow_memory(),
        5,
        true,
    );
}

/// Every kernel program fast-forwarded to its kernels, in lockstep on the paper's tile
/// (where all of them map; most need more units than the tests' tile has), long.
#[test]
fn every_program_runs_in_lockstep_on_the_papers_tile() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to run every program on the tile");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut names = programs("");
    names.extend(programs("rodinia"));
    let p = preset("vgiw");
    let mut model = model_of(&p);
    for (i, name) in names.iter().enumerate() {
        let program = build_kernel(dir.path(), name);
        lockstep(name, &mut model, &program, &p, slow_memory(), i, true);
    }
}

/// A launch of a function the loader did not compile stops the run with the launcher's
/// fault naming the entry.
#[test]
fn a_launch_without_an_image_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let p = small();
    let program = fig2(dir.path());
    let mut loaded: Loaded = loader::load(&program, &p, MAX_STEPS).unwrap();
    // An empty directory: the first entry is the end.
    loaded.bytes[..16].fill(0);
    let mut model = model_of(&p);
    let config = VgiwConfig::new(p.clone(), MemConfig::default(), 2_000_000);
    let sink = || Box::new(std::io::sink());
    let err = run(
        &mut model,
        &program,
        &loaded,
        &config,
        sink(),
        sink(),
        false,
    )
    .unwrap_err();
    let entry = loaded.images[0].entry;
    assert!(
        matches!(err, VgiwError::Launcher { entry: e, .. } if e == entry as u64),
        "{err}"
    );
    assert!(err.to_string().contains("no such kernel"), "{err}");
}

/// `accelgen sim vgiw --program fig2.elf --lockstep` on the tests' tile (the model the
/// other tests use): exit code 0, the lockstep summary, and the block and thread counts
/// of the VGIW execution model.
#[test]
fn sim_runs_a_program_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let program = fig2(dir.path());
    let elf = dir.path().join("fig2.elf");
    let config = vgiw_rig::root().join("configs/vgiw-small.toml");
    let (model, _) = vgiw_run(&program, &small());
    let blocks: u64 = model.launches.iter().map(|(_, s)| s.blocks_executed).sum();
    let threads: u64 = model.launches.iter().map(|(_, s)| s.thread_blocks).sum();
    for fast_forward in [false, true] {
        let mut args = vec![
            "sim",
            "vgiw",
            "--config",
            config.to_str().unwrap(),
            "--set",
            "l1_banks=4",
            "--set",
            "lvc_banks=2",
            "--program",
            elf.to_str().unwrap(),
            "--lockstep",
        ];
        args.extend(fast_forward.then_some("--fast-forward"));
        let run = accelgen(&args);
        assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains("CP commits matched the ISS"),
            "{}",
            run.stderr
        );
        assert_eq!(
            run.stderr.contains("fast-forwarded: the ISS ran"),
            fast_forward,
            "{}",
            run.stderr
        );
        for want in [
            format!("; {blocks} blocks executed"),
            format!("; {threads} thread-blocks"),
        ] {
            assert!(run.stderr.contains(&want), "{want}: {}", run.stderr);
        }
    }
}

/// A program whose kernel the compiler rejects is an error naming the instruction,
/// before any model is built.
#[test]
fn sim_refuses_a_kernel_the_compiler_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let cases = vgiw_rig::root().join("tests/vgiw_cases");
    vgiw_rig::build(
        dir.path(),
        &[cases.join("bad.c"), cases.join("bad.S")],
        "bad",
    );
    let elf = dir.path().join("bad.elf");
    let t = std::time::Instant::now();
    let run = accelgen(&["sim", "vgiw", "--program", elf.to_str().unwrap()]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("compiling the program's kernels"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("is a call") || run.stderr.contains("is an indirect jump"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("Verilator"), "{}", run.stderr);
    eprintln!("refused in {:?}", t.elapsed());
}
