//! `--warp-size` / `--affine`: the program's launches on the SIMT model.

use super::{exit_status, IssArgs};
use anyhow::{bail, Context};
use verification::fgsimt::affine::Mechanisms;
use verification::fgsimt::program::{host, run_on, ProgramError};
use verification::fgsimt::warp::KernelStats;
use verification::iss::{IssConfig, Xlen};

pub fn run(args: &IssArgs) -> anyhow::Result<u8> {
    let warp = args.warp_size.unwrap_or(32);
    if !(1..=32).contains(&warp) {
        bail!("--warp-size must be 1..=32, got {warp}");
    }
    let mode = args.affine.as_deref().unwrap_or("none");
    let Some(mech) = Mechanisms::parse(mode) else {
        bail!("--affine must be none, a, ab or abm, got `{mode}`");
    };
    let program = verification::elf::load_file(&args.program)
        .with_context(|| format!("loading {}", args.program.display()))?;
    if program.xlen != Xlen::Rv32 {
        bail!(
            "--warp-size and --affine run SPMD kernels: {} is not an RV32 program",
            args.program.display()
        );
    }
    let mut iss = host(&program, IssConfig::default())?;
    let run = match run_on(&mut iss, (warp, mech), args.max_instret) {
        Ok(run) => run,
        Err(ProgramError::StepLimit(n)) => bail!(
            "step limit reached: {} host and {} kernel instructions without the program \
             exiting (--max-instret {n})",
            iss.instret(),
            iss.thread_instret()
        ),
        Err(e) => return Err(e.into()),
    };
    eprintln!("simt model: warps of {warp} threads, affine {mode}");
    for (i, l) in run.launches.iter().enumerate() {
        eprintln!("{}", describe(i + 1, l));
    }
    Ok(exit_status(&args.program, &program, &iss, run.exit))
}

/// One launch's counts, as Table 3 of seed 000 gives them where the model can.
fn describe(n: usize, l: &KernelStats) -> String {
    let warp = l.warp_instructions.max(1) as f64;
    let a = &l.affine;
    format!(
        "launch {n}: {} warps, {} warp instructions, {} thread instructions ({:.1} \
         active threads), {} divergent branches, {} fragments pending at most\n  \
         affine: {} in the CP ({:.1} %), {} expanded, {} uniform branches, {} affine \
         loads ({} wide requests), SRF reads avoided {}, writes avoided {}",
        l.warps,
        l.warp_instructions,
        l.thread_instructions,
        l.thread_instructions as f64 / warp,
        l.divergent_branches,
        l.max_pending,
        a.cp,
        100.0 * a.cp as f64 / warp,
        a.expanded,
        a.uniform_branches,
        a.affine_loads,
        a.wide_requests,
        a.srf_reads_avoided,
        a.srf_writes_avoided
    )
}
