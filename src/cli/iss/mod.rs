//! `accelgen iss`: run an RV64 or RV32 ELF (by its class) on the golden-model ISS with the
//! F and D extensions, optionally with the Hwacha golden model on its RoCC port. RV32
//! programs may launch SPMD kernels (`kernels/runtime/simt.h`), whose threads the ISS
//! runs one after another.

use anyhow::{bail, Context};
use std::cell::RefCell;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use verification::elf::Program;
use verification::exit::{cause_name, explain, trap_report};
use verification::hwacha::asm::disassemble;
use verification::hwacha::model::{Hwacha, HwachaError, HwachaParams};
use verification::iss::{FpExt, Iss, IssConfig, Stop, Xlen};

#[derive(clap::Args)]
pub struct IssArgs {
    /// RV64 or RV32 ELF executable (linked, with a `tohost` symbol for HTIF); the hart is
    /// RV64IMAFD or RV32IMAFD as the ELF's class says. On RV32, custom-0 holds the SIMT
    /// instructions (`accelgen asm --target simt` programs).
    pub program: PathBuf,
    /// Print every retired instruction to stderr in Spike's `--log-commits` format.
    #[arg(long)]
    pub log_commits: bool,
    /// Stop with an error after this many steps: instructions retired (the reset ROM's
    /// five included) plus traps taken, and for kernel launches every thread's
    /// instructions plus one a thread.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_INSTRET)]
    pub max_instret: u64,
    /// Attach the Hwacha vector unit's golden model (default machine) to the RoCC port.
    /// A Hwacha exception is reported and makes the run fail.
    #[arg(long)]
    pub hwacha: bool,
    /// Vector lanes of the Hwacha machine: a power of two the generator builds (its
    /// `hwacha.lanes` range, see `accelgen list rocket-hwacha`); default 1.
    #[arg(long, value_name = "N", requires = "hwacha")]
    pub lanes: Option<u32>,
    /// The Hwacha machine has the mixed-precision extension (`hwacha.mixed_precision`):
    /// narrow registers are packed, so vsetcfg gives longer vectors.
    #[arg(long, requires = "hwacha")]
    pub mixed_precision: bool,
    /// Run kernel launches on the SIMT model (warps of N threads, 1..=32, one warp at a
    /// time, fragments as the FG-SIMT engine schedules them) instead of thread after
    /// thread, and print each launch's counts (RV32 programs).
    #[arg(long, value_name = "N", conflicts_with_all = ["hwacha", "log_commits"])]
    pub warp_size: Option<u32>,
    /// The FG-SIMT affine mechanisms the SIMT model classifies for: none, a, ab or abm
    /// (implies --warp-size 32 unless given).
    #[arg(long, value_name = "MODE", conflicts_with_all = ["hwacha", "log_commits"])]
    pub affine: Option<String>,
    /// Run kernel launches on the DWS model (seed 001: resident warps, the warp-split
    /// table, the cache hierarchy's timing) in the named configuration: conv,
    /// branch-only.stack, branch-only, revive.mem-only, aggress, lazy, revive,
    /// aggress.bl, lazy.bl, slip, slip.bypass or revive.bl; print each launch's cycles
    /// and counters.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with_all = ["hwacha", "log_commits", "warp_size", "affine"]
    )]
    pub dws: Option<String>,
    /// With --dws: a TOML file of the model's machine and memory (`warps`, `warp_size`,
    /// `lanes`, `wst_entries`, `slots`, `short_block`, `slip_start`, `slip_interval`, `[memory]` with `l1_kib`, `l1_ways`,
    /// `line_bytes`, `l1_hit`, `mshrs`, `mshr_requests`, `banks`, `l2_kib`, `l2_ways`,
    /// `l2_latency`, `memory_latency`; `check` checks the invariants every cycle). The
    /// name given to --dws sets `dws`, `branch_dws` and `reconv`.
    #[arg(long, value_name = "FILE.toml", requires = "dws")]
    pub dws_config: Option<PathBuf>,
    /// With --dws: set one of those fields to a TOML value, after --dws-config
    /// (repeatable; `memory.l2_latency=300`).
    #[arg(long, value_name = "NAME=VALUE", requires = "dws")]
    pub dws_set: Vec<String>,
}

/// The default step limit: about ten seconds of the ISS, far beyond any test program.
pub const DEFAULT_MAX_INSTRET: u64 = 1_000_000_000;

/// Runs the program and returns its exit code (see [`process_status`]); a failing exit
/// is explained on stderr.
pub fn run(args: IssArgs) -> anyhow::Result<u8> {
    if let Some(name) = &args.dws {
        return dws::run_dws(&args, name);
    }
    if args.warp_size.is_some() || args.affine.is_some() {
        return simt::run(&args);
    }
    let unit = if args.hwacha {
        let lanes = args.lanes.unwrap_or(1);
        let max = generators::hwacha::params::MAX_LANES;
        if !lanes.is_power_of_two() || lanes > max {
            bail!(
                "--lanes must be a power of two in 1..={max} (the generator's `hwacha.lanes`), \
                 got {lanes}"
            );
        }
        let params = HwachaParams {
            lanes,
            mixed_precision: args.mixed_precision,
            ..HwachaParams::default()
        };
        Some(Rc::new(RefCell::new(
            Hwacha::new(params).context("building the Hwacha model")?,
        )))
    } else {
        None
    };
    let program = verification::elf::load_file(&args.program)
        .with_context(|| format!("loading {}", args.program.display()))?;
    let config = IssConfig {
        fp: FpExt::FD,
        ..IssConfig::default()
    };
    let mut iss = Iss::new(&program, config)?;
    if let Some(unit) = &unit {
        if program.xlen == Xlen::Rv32 {
            bail!(
                "--hwacha needs an RV64 program; {} is RV32",
                args.program.display()
            );
        }
        iss.attach_rocc(Box::new(unit.clone()));
    } else if program.xlen == Xlen::Rv32 {
        iss.enable_simt();
    }
    let stop = if args.log_commits {
        // Buffered: the log is large and stderr is unbuffered.
        let mut log = BufWriter::new(std::io::stderr().lock());
        let stop = iss.run(Some(args.max_instret), Some(&mut log));
        log.flush().context("writing the commit log")?;
        stop?
    } else {
        iss.run(Some(args.max_instret), None)?
    };
    // The core turned the exception into a trap; what the program did next (crt0 exits
    // with 128 + mcause) matters less than what the unit saw.
    if let Some(e) = unit.as_ref().and_then(|u| u.borrow().exception().cloned()) {
        bail!("Hwacha exception: {}", describe(&e));
    }
    match stop {
        Stop::Exit(code) => Ok(exit_status(&args.program, &program, &iss, code)),
        Stop::InstretLimit => {
            let threads = match iss.thread_instret() {
                0 => String::new(),
                n => format!(" ({n} more by kernel threads)"),
            };
            bail!(
                "step limit reached: {} instructions retired and {} traps taken{threads} \
                 without the program exiting (--max-instret {})",
                iss.instret(),
                iss.traps(),
                args.max_instret
            )
        }
        Stop::TrapLoop { pc, cause, tval } => bail!(
            "trap loop: the trap handler's first instruction at pc {pc:#x} traps itself \
             ({}, mcause {cause}, mtval {tval:#x}), so the program can never continue",
            cause_name(cause)
        ),
    }
}

/// The process status for the program's exit `code`; a failing exit is explained on
/// stderr (the C runtime's trap report when it left one).
fn exit_status(path: &Path, program: &Program, iss: &Iss, code: u64) -> u8 {
    let report = trap_report(program, |a| iss.mem.read(a, 8).unwrap_or(0));
    if let Some(why) = explain(program, code, report) {
        eprintln!("{}: {why}", path.display());
    }
    process_status(code)
}

/// A process keeps 8 bits of an exit code: codes above 255 become 255 (with a note)
/// rather than a possibly zero remainder.
pub fn process_status(code: u64) -> u8 {
    u8::try_from(code).unwrap_or_else(|_| {
        eprintln!(
            "note: the program's exit code {code} does not fit a process status; exiting with 255"
        );
        255
    })
}

/// The exception, with the offending worker instruction disassembled when it has one.
fn describe(e: &HwachaError) -> String {
    match e {
        HwachaError::IllegalInstruction { bits, .. } => match disassemble(*bits) {
            Ok(text) => format!("{e} (`{text}`)"),
            Err(_) => e.to_string(),
        },
        _ => e.to_string(),
    }
}

mod dws;
mod simt;
