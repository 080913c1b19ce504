//! `accelgen sim`: run a design from the registry as an in-process Verilator model under
//! random or idle stimulus, and summarize its outputs.

mod fgsimt;
mod program;
mod vgiw;

use super::params::ParamArgs;
use super::progress::Phase;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use hdl::sim::Init;
use hdl::{Design, Dir};
use std::path::{Path, PathBuf};
use std::time::Instant;
use verification::elf::Ram;
use verification::simulator::{exercise, OutputStats, Stimulus};
use verification::tb::program as tb_program;
use verification::verilator::{Model, Options, PortSpec, TraceFormat, MAX_THREADS};

#[derive(Args)]
pub struct SimArgs {
    /// Design to simulate (see `accelgen list`).
    design: String,
    #[command(flatten)]
    params: ParamArgs,
    /// Clock cycles to run after the reset cycle.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    cycles: u64,
    /// What drives the inputs after reset.
    #[arg(long, value_enum, default_value_t = StimulusArg::Random)]
    stimulus: StimulusArg,
    /// Seed of the random stimulus (and, with --program, of the memory's timing).
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Seed of the design's random initial state (registers without reset, memories),
    /// as Verilator's +verilator+seed; 0 starts from zeros.
    #[arg(long, value_name = "S", default_value_t = verification::verilator::INIT_SEEDS[0])]
    init_seed: u64,
    /// Write a VCD waveform of every signal.
    #[arg(long, value_name = "FILE", conflicts_with = "fst")]
    vcd: Option<PathBuf>,
    /// Write an FST waveform of every signal.
    #[arg(long, value_name = "FILE")]
    fst: Option<PathBuf>,
    /// Threads of the Verilator model (1..=64; its context gets exactly as many).
    #[arg(long, value_name = "N", default_value_t = 1)]
    threads: u32,
    /// Program to load (an RV64 ELF; for designs fgsimt and vgiw an RV32 SPMD program from
    /// `accelgen asm --target simt`), for processor designs: runs it to its exit and
    /// exits with its exit code.
    #[arg(long, value_name = "FILE.elf")]
    program: Option<PathBuf>,
    /// With --program: check every commit against the ISS in lockstep.
    #[arg(long, requires = "program")]
    lockstep: bool,
    /// With --program, designs fgsimt and vgiw: run only the kernels on the tile. The ISS runs the
    /// host's setup up to the first kernel launch; the tile starts from its state there
    /// and stops once the last launch has returned; the ISS runs the host's check on the
    /// memory the tile left (compared with its own under --lockstep) and gives the exit
    /// code.
    #[arg(long, requires = "program")]
    fast_forward: bool,
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
    /// With --program, design rocket-hwacha: the vector unit's dynamic rounding mode
    /// (RISC-V frm: the mode of FP worker instructions with rm = dyn), held on its `frm`
    /// input and set in the golden model alike [default: rne].
    #[arg(long, value_enum, value_name = "MODE", requires = "program")]
    frm: Option<RoundingMode>,
}

/// RISC-V's rounding modes, in frm's encoding order.
#[derive(Clone, Copy, ValueEnum)]
enum RoundingMode {
    /// Round to nearest, ties to even.
    Rne,
    /// Round towards zero.
    Rtz,
    /// Round down (towards -inf).
    Rdn,
    /// Round up (towards +inf).
    Rup,
    /// Round to nearest, ties to max magnitude.
    Rmm,
}

/// Runs `f` (a program on a design, given the console's stdout and stderr) under the
/// progress line "running <path>": its result and the seconds it took.
fn running<T>(
    path: &Path,
    f: impl FnOnce(Box<dyn std::io::Write>, Box<dyn std::io::Write>) -> T,
) -> (T, f64) {
    let phase = Phase::start(format!("running {}", path.display()));
    let start = Instant::now();
    let out = f(Box::new(std::io::stdout()), Box::new(std::io::stderr()));
    drop(phase);
    (out, start.elapsed().as_secs_f64())
}

/// What the ISS ran around a fast-forwarded run (`--fast-forward`), for the summary.
fn fast_forwarded(window: Option<(verification::tb::fast_forward::Window, u64)>) -> String {
    match window {
        Some((w, stub)) => format!(
            " (fast-forwarded: the ISS ran {} host instructions before them and {} after; \
             the restore stub took {stub} cycles)",
            w.skipped, w.after
        ),
        None => String::new(),
    }
}

impl SimArgs {
    /// The memory model's timing the `--program` flags ask for.
    fn mem_config(&self) -> verification::tb::memory::MemConfig {
        verification::tb::memory::MemConfig {
            latency: self.latency,
            jitter: self.jitter,
            stall_percent: self.stall_percent,
            seed: self.seed,
            ..Default::default()
        }
    }
}

/// The initial state `--init-seed` asks for.
pub fn init(seed: u64) -> Init {
    match seed {
        0 => Init::Zero,
        seed => Init::Random { seed },
    }
}

/// Refuses an output file that cannot be written (a missing or unwritable directory, a
/// directory as the file) or that is one of the command's inputs, before any work.
fn check_output_file(path: &Path, inputs: &[Option<&Path>]) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("output {} is a directory", path.display());
    }
    // An existing output is the same file as an input when both resolve alike.
    let target = std::fs::canonicalize(path).ok();
    let same = |p: &Path| target.is_some() && std::fs::canonicalize(p).ok() == target;
    if inputs.iter().flatten().any(|p| same(p)) {
        bail!(
            "output {} is also an input; refusing to overwrite it",
            path.display()
        );
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "output {}: directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    tempfile::NamedTempFile::new_in(dir)
        .map(drop)
        .with_context(|| {
            format!(
                "output {}: cannot write in {}",
                path.display(),
                dir.display()
            )
        })
}

#[derive(Clone, Copy, ValueEnum)]
enum StimulusArg {
    /// A new random value on every input in every cycle.
    Random,
    /// Every input held at zero.
    Idle,
}

pub fn run(args: SimArgs) -> anyhow::Result<u8> {
    let params = args.params.table()?;
    let info = generators::design(&args.design)?;
    if let Some(p) = &args.program {
        if !tb_program::runs_programs(info.name) {
            bail!(
                "design {} takes no program (got --program {})",
                info.name,
                p.display()
            );
        }
    }
    if !(1..=MAX_THREADS).contains(&args.threads) {
        bail!(
            "--threads must be in 1..={MAX_THREADS}, got {}",
            args.threads
        );
    }
    let wave = match (&args.vcd, &args.fst) {
        (Some(p), _) => Some((TraceFormat::Vcd, p)),
        (_, Some(p)) => Some((TraceFormat::Fst, p)),
        _ => None,
    };
    // Everything the user gave is checked before the model's (long) build.
    if let Some((_, path)) = wave {
        check_output_file(
            path,
            &[args.program.as_deref(), args.params.config.as_deref()],
        )?;
    }
    if args.frm.is_some() && info.name != "rocket-hwacha" {
        bail!(
            "--frm is for design rocket-hwacha (its vector unit's rounding mode), not {}",
            info.name
        );
    }
    if args.fast_forward && !["fgsimt", "vgiw"].contains(&info.name) {
        bail!(
            "--fast-forward is for designs fgsimt and vgiw (SPMD programs), not {}",
            info.name
        );
    }
    let elaboration = info.elaborate(&params)?;
    let loaded = match &args.program {
        Some(path) if ["fgsimt", "vgiw"].contains(&info.name) => {
            Some(tb_program::load_in(path, Ram::DEFAULT, 32)?)
        }
        Some(path) => Some(tb_program::load(path, &elaboration.params)?),
        None => None,
    };
    let kernels = match (&loaded, info.name) {
        (Some(program), "vgiw") => Some(vgiw::load(program, &elaboration.params)?),
        _ => None,
    };
    let directory = match (&loaded, info.name) {
        (Some(program), "fgsimt") => fgsimt::directory(program, &elaboration.params)?,
        _ => None,
    };
    let design = Design::new(&elaboration.top);
    let opts = Options {
        threads: args.threads,
        trace: wave.map(|(f, _)| f),
        ..Options::default()
    };
    let phase = Phase::start(format!("building the Verilator model of {}", info.name));
    let mut model = Model::of_design(&design, &opts)
        .with_context(|| format!("building the Verilator model of {}", info.name))?;
    phase.finish(if model.build_info().cached {
        "from the cache"
    } else {
        "built"
    });
    model.reinit(init(args.init_seed))?;
    if let Some((_, path)) = wave {
        model.trace(path)?;
    }
    if let (Some(program), "fgsimt") = (&loaded, info.name) {
        let code = fgsimt::run(&mut model, (program, directory), &args, &elaboration.params)?;
        model.close_trace();
        return Ok(code);
    }
    if let (Some(program), Some(kernels)) = (&loaded, &kernels) {
        let code = vgiw::run(&mut model, program, kernels, &args, &elaboration.params)?;
        model.close_trace();
        return Ok(code);
    }
    let accel = tb_program::accelerator(info.name, &elaboration.params);
    if let (Some(program), Some(accel)) = (&loaded, accel) {
        let code = program::run(&mut model, program, &args, accel, &elaboration.params)?;
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
