//! `accelgen sim vgiw --program K.elf [--lockstep]`: an SPMD program on the VGIW tile
//! (`verification::tb::vgiw`): its kernels compiled for the fabric and placed by the
//! loader, the host on the control processor, with the memory flags of `sim rocket`.

use super::SimArgs;
use crate::cli::iss::process_status;
use anyhow::Context;
use generators::vgiw::params::VgiwParams;
use std::path::Path;
use verification::elf::Program;
use verification::exit::explain;
use verification::tb::vgiw::{self, VgiwConfig, VgiwOutcome};
use verification::verilator::Model;
use verification::vgiw::loader::{self, Loaded};

/// Host steps (and kernel thread steps) the kernel discovery may take.
const MAX_STEPS: u64 = 1_000_000_000;

/// The program's kernels compiled for `params` and laid out (before the model's build,
/// so that a kernel the compiler rejects is reported at once).
pub fn load(program: &Program, params: &toml::Table) -> anyhow::Result<Loaded> {
    let p: VgiwParams = params.clone().try_into()?;
    loader::load(program, &p, MAX_STEPS).context("compiling the program's kernels")
}

/// Runs `program` with its `loaded` kernels on the tile of `params`; prints cycles and
/// the tile's counts to stderr (stdout is the program's) and returns the exit code as
/// `accelgen iss` does.
pub fn run(
    model: &mut Model,
    program: &Program,
    loaded: &Loaded,
    args: &SimArgs,
    params: &toml::Table,
) -> anyhow::Result<u8> {
    let p: VgiwParams = params.clone().try_into()?;
    let config = VgiwConfig {
        init: super::init(args.init_seed),
        fast_forward: args.fast_forward,
        max_steps: u64::MAX,
        ..VgiwConfig::new(p, args.mem_config(), args.max_cycles)
    };
    let path = args.program.as_deref().unwrap_or(Path::new("program"));
    let (out, seconds) = super::running(path, |stdout, stderr| {
        vgiw::run(
            model,
            program,
            loaded,
            &config,
            stdout,
            stderr,
            args.lockstep,
        )
    });
    let out = out?;
    eprintln!(
        "{}: {}",
        path.display(),
        summary(&out, args.lockstep, seconds)
    );
    eprintln!("{}: {}", path.display(), counts(&out));
    if let Some(why) = explain(program, out.exit_code, out.trap) {
        eprintln!("{}: {why}", path.display());
    }
    Ok(process_status(out.exit_code))
}

/// Exit code, cycles, CP instructions, what lockstep checked, simulation speed; and
/// what the ISS ran around a fast-forwarded run.
fn summary(out: &VgiwOutcome, lockstep: bool, seconds: f64) -> String {
    let checked = match lockstep {
        true => format!(
            ", {} CP commits matched the ISS, memory equal to the ISS's after {} kernel thread instructions",
            out.matched, out.thread_instructions
        ),
        false => String::new(),
    };
    let window = super::fast_forwarded(out.window);
    format!(
        "exit code {}, {} cycles, {} CP instructions{window}{checked} ({:.0} cycles/s)",
        out.exit_code,
        out.cycles,
        out.instret,
        out.cycles as f64 / seconds.max(1e-9)
    )
}

/// The tile's counters: kernel cycles, blocks executed, reconfiguration cycles and
/// share, LVC accesses, thread-vector sizes.
fn counts(out: &VgiwOutcome) -> String {
    let s = &out.stats;
    let ratio = |a: u64, b: u64, scale: f64| match b {
        0 => "-".to_string(),
        b => format!("{:.2}", a as f64 * scale / b as f64),
    };
    format!(
        "{} kernel cycles; {} blocks executed, {} cycles configuring them ({} % of kernel cycles); \
         {} thread-blocks (mean thread vector {}); {} LVC accesses",
        s.kernel_cycles,
        s.blocks,
        s.config_cycles,
        ratio(s.config_cycles, s.kernel_cycles, 100.0),
        s.threads,
        ratio(s.threads, s.blocks, 1.0),
        s.lvc
    )
}
