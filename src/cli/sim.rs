//! `accelgen sim`: run a design from the registry as an in-process Verilator model under
//! random or idle stimulus, and summarize its outputs.

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use generators::hwacha::soc::RocketHwachaParams;
use hdl::{Design, Dir};
use std::path::{Path, PathBuf};
use std::time::Instant;
use verification::elf;
use verification::hwacha::model::{Hwacha, HwachaParams as HwachaModelParams};
use verification::iss::rocc::Accumulator;
use verification::simulator::{exercise, OutputStats, Stimulus};
use verification::tb::memory::MemConfig;
use verification::tb::soc::{self, SocConfig};
use verification::verilator::{Model, Options, PortSpec, TraceFormat};

#[derive(Args)]
pub struct SimArgs {
    /// Design to simulate (see `accelgen list`).
    design: String,
    /// TOML file of parameter values (`name = value` lines).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Set a parameter to a TOML value, overriding --config (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Clock cycles to run after the reset cycle.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    cycles: u64,
    /// What drives the inputs after reset.
    #[arg(long, value_enum, default_value_t = StimulusArg::Random)]
    stimulus: StimulusArg,
    /// Seed of the random stimulus.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Write a VCD waveform of every signal.
    #[arg(long, value_name = "FILE", conflicts_with = "fst")]
    vcd: Option<PathBuf>,
    /// Write an FST waveform of every signal.
    #[arg(long, value_name = "FILE")]
    fst: Option<PathBuf>,
    /// Threads of the Verilator model.
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: u32,
    /// Program to load (an RV64 ELF), for processor designs: runs it to its exit and
    /// exits with its exit code.
    #[arg(long, value_name = "FILE.elf")]
    program: Option<PathBuf>,
    /// With --program: check every commit against the ISS in lockstep.
    #[arg(long, requires = "program")]
    lockstep: bool,
    /// With --program: memory latency in cycles.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "program")]
    latency: u32,
    /// With --program: extra random latency per request, 0..=N cycles.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "program")]
    jitter: u32,
    /// With --program: percent of cycles in which memory refuses requests.
    #[arg(long, value_name = "P", default_value_t = 0, requires = "program")]
    stall_percent: u32,
    /// With --program: cycles before the run counts as hung.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 100_000_000,
        requires = "program"
    )]
    max_cycles: u64,
}

/// What sits on a processor design's RoCC port.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Accelerator {
    /// Nothing: the bench holds the port idle.
    None,
    Accumulator,
    Hwacha,
}

/// Designs that run programs (those with a commit trace and the tile's memory port).
const PROCESSORS: [(&str, Accelerator); 3] = [
    ("rocket", Accelerator::None),
    ("rocket_accumulator", Accelerator::Accumulator),
    ("rocket-hwacha", Accelerator::Hwacha),
];

#[derive(Clone, Copy, ValueEnum)]
enum StimulusArg {
    /// A new random value on every input in every cycle.
    Random,
    /// Every input held at zero.
    Idle,
}

pub fn run(args: SimArgs) -> anyhow::Result<u8> {
    let params = super::generate::parameters(args.config.as_deref(), &args.set)?;
    let info = generators::design(&args.design)?;
    if let Some(p) = &args.program {
        if !PROCESSORS.iter().any(|(name, _)| *name == info.name) {
            bail!(
                "design {} takes no program (got --program {})",
                info.name,
                p.display()
            );
        }
    }
    let elaboration = info.elaborate(&params)?;
    let design = Design::new(&elaboration.top);
    let wave = match (&args.vcd, &args.fst) {
        (Some(p), _) => Some((TraceFormat::Vcd, p)),
        (_, Some(p)) => Some((TraceFormat::Fst, p)),
        _ => None,
    };
    let opts = Options {
        threads: args.threads,
        trace: wave.map(|(f, _)| f),
        ..Options::default()
    };
    let mut model = Model::of_design(&design, &opts)
        .with_context(|| format!("building the Verilator model of {}", info.name))?;
    if let Some((_, path)) = wave {
        model.trace(path)?;
    }
    if let Some(program) = &args.program {
        let accel = PROCESSORS
            .iter()
            .find(|(name, _)| *name == info.name)
            .map_or(Accelerator::None, |p| p.1);
        let code = run_program(&mut model, program, &args, accel, &elaboration.params)?;
        model.close_trace();
        return Ok(code);
    }
    let stimulus = match args.stimulus {
        StimulusArg::Random => Stimulus::Random { seed: args.seed },
        StimulusArg::Idle => Stimulus::Idle,
    };
    let ports = model.ports().to_vec();
    let start = Instant::now();
    let stats = exercise(&mut model, &ports, stimulus, args.cycles)?;
    let elapsed = start.elapsed().as_secs_f64();
    model.close_trace();
    let built = model.build_info();
    println!(
        "{}: {} cycles after reset under Verilator, {}",
        info.name,
        args.cycles,
        match stimulus {
            Stimulus::Random { seed } => format!("random stimulus (seed {seed})"),
            Stimulus::Idle => "idle stimulus".to_string(),
        }
    );
    println!(
        "model: {} ({})",
        built.dir.display(),
        if built.cached {
            "from the cache".to_string()
        } else {
            format!("built in {:.1} s", built.seconds)
        }
    );
    println!(
        "run: {:.1} ms, {:.0} cycles/s",
        elapsed * 1e3,
        args.cycles as f64 / elapsed.max(1e-9)
    );
    if let Some((_, path)) = wave {
        println!("waveform: {}", path.display());
    }
    let outputs: Vec<&PortSpec> = ports.iter().filter(|p| p.dir == Dir::Out).collect();
    print!("{}", summary(&outputs, &stats, args.cycles));
    Ok(0)
}

/// Runs `path` on a processor design; prints cycles, instructions and CPI to stderr
/// (stdout is the program's) and returns its exit code (above 255: 255, with a note).
fn run_program(
    model: &mut Model,
    path: &Path,
    args: &SimArgs,
    accel: Accelerator,
    params: &toml::Table,
) -> anyhow::Result<u8> {
    let program = elf::load_file(path).with_context(|| format!("loading {}", path.display()))?;
    let hwacha: Option<RocketHwachaParams> = match accel {
        Accelerator::Hwacha => Some(params.clone().try_into()?),
        _ => None,
    };
    let mem = MemConfig {
        latency: args.latency,
        jitter: args.jitter,
        stall_percent: args.stall_percent,
        seed: args.seed,
        ..MemConfig::default()
    };
    let config = match &hwacha {
        Some(p) => soc::hwacha_config(p.hwacha.lanes, mem),
        None => SocConfig {
            mem,
            idle_rocc: accel == Accelerator::None,
            ..SocConfig::default()
        },
    };
    let config = SocConfig {
        max_cycles: args.max_cycles,
        ..config
    };
    let golden = if args.lockstep {
        let mut g = soc::golden(&program, u64::MAX).context("starting the ISS")?;
        match &hwacha {
            Some(p) => {
                // The RTL delivers worker-thread exceptions late, and its memory orders
                // colliding AMOs; the model follows both.
                let mut unit = Hwacha::new(hwacha_model(&p.hwacha))?;
                unit.follow_memory_order(&soc::hwacha_lane_ports(p.hwacha.lanes));
                g.iss_mut().attach_rocc(Box::new(unit))
            }
            None if accel == Accelerator::Accumulator => {
                g.iss_mut().attach_rocc(Box::new(Accumulator::default()))
            }
            None => {}
        }
        Some(g)
    } else {
        None
    };
    let start = Instant::now();
    let out = soc::run(
        model,
        &program,
        &config,
        Box::new(std::io::stdout()),
        Box::new(std::io::stderr()),
        golden,
    )?;
    let seconds = start.elapsed().as_secs_f64();
    eprintln!(
        "{}: exit code {}, {} cycles, {} instructions, CPI {:.3}{}{} ({:.0} cycles/s)",
        path.display(),
        out.exit_code,
        out.cycles,
        out.instret,
        out.cpi(),
        match out.last_accelerator_trap {
            None => String::new(),
            Some((cause, tval)) => format!(
                ", {} accelerator exception(s) taken (the last: cause {cause}, tval {tval:#x})",
                out.accelerator_traps
            ),
        },
        if args.lockstep {
            format!(", {} commits matched the ISS", out.matched)
        } else {
            String::new()
        },
        out.cycles as f64 / seconds.max(1e-9)
    );
    Ok(u8::try_from(out.exit_code).unwrap_or_else(|_| {
        eprintln!(
            "note: the program's exit code {} does not fit a process status; exiting with 255",
            out.exit_code
        );
        255
    }))
}

/// The golden model of a Hwacha unit with the RTL's parameters.
fn hwacha_model(p: &generators::hwacha::params::HwachaParams) -> HwachaModelParams {
    HwachaModelParams {
        lanes: p.lanes,
        banks: p.banks,
        bank_entries: p.bank_entries,
        bank_width: p.bank_width,
        pred_entries: p.pred_entries,
        ..HwachaModelParams::default()
    }
}

/// One aligned line per output: width, final value, cycles nonzero, changes.
fn summary(outputs: &[&PortSpec], stats: &[OutputStats], cycles: u64) -> String {
    let header = ["output", "width", "final", "nonzero cycles", "changes"];
    let rows: Vec<[String; 5]> = outputs
        .iter()
        .zip(stats)
        .map(|(p, s)| {
            [
                p.name.clone(),
                p.width.to_string(),
                format!("0x{}", s.last.to_hex()),
                format!("{} of {cycles}", s.nonzero),
                s.changes.to_string(),
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].len())
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    let w: Vec<usize> = (0..5).map(width).collect();
    let mut out = String::new();
    for r in std::iter::once(header.map(String::from)).chain(rows) {
        out.push_str(&format!(
            "{:w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {:>w4$}\n",
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4]
        ));
    }
    out
}
