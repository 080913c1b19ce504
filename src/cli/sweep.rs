//! `accelgen sweep SPEC.toml`: run a parameter sweep on local worker threads with a
//! progress bar, or submit it to Slurm (`--slurm`); `sweep status DIR` and `sweep collect
//! DIR` work on a submitted sweep, and the hidden `sweep run-point DIR INDEX` is what each
//! Slurm array task runs.

use anyhow::{bail, Context};
use asic_flow::sweep::slurm::{self, SlurmOptions};
use asic_flow::sweep::{self, dir, PointResult, Progress, StepStatus, Summary};
use clap::{Args, Subcommand};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    action: Option<Action>,
    /// The sweep spec (TOML: design, config, steps, [axes]; see the README).
    spec: Option<PathBuf>,
    /// Worker threads (points run at once).
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// The sweep directory (results, plots, cache); default `<spec name>-sweep`. With
    /// --slurm it must be on a filesystem the nodes share.
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Submit a Slurm job array (one point per task) and a collect job instead of
    /// running locally.
    #[arg(long)]
    slurm: bool,
    /// With --slurm: the partition.
    #[arg(long, value_name = "P", requires = "slurm")]
    partition: Option<String>,
    /// With --slurm: array tasks running at once.
    #[arg(long, value_name = "K", requires = "slurm")]
    max_parallel: Option<usize>,
    /// Validate the spec and list its points; run and write nothing.
    #[arg(long, conflicts_with = "slurm")]
    dry_run: bool,
}

#[derive(Subcommand)]
enum Action {
    /// Points done, failed and pending of a sweep directory, and its Slurm jobs' states.
    Status { dir: PathBuf },
    /// Merge a sweep directory's point results into results.csv, results.jsonl and plots.
    Collect { dir: PathBuf },
    /// Run one point of a prepared sweep directory (what each Slurm array task runs).
    #[command(hide = true)]
    RunPoint { dir: PathBuf, index: usize },
}

pub fn run(args: SweepArgs) -> anyhow::Result<u8> {
    match args.action {
        Some(Action::Status { dir }) => return status(&dir),
        Some(Action::Collect { dir }) => {
            let s = sweep::collect(&dir)?;
            return Ok(report(&dir, &s));
        }
        Some(Action::RunPoint { dir, index }) => return run_point(&dir, index),
        None => {}
    }
    let Some(spec) = args.spec else {
        bail!("give a sweep spec (accelgen sweep SPEC.toml) or a subcommand (status, collect)");
    };
    if args.jobs == 0 {
        bail!("-j must be at least 1");
    }
    if args.max_parallel == Some(0) {
        bail!("--max-parallel must be at least 1");
    }
    let out = args.output.unwrap_or_else(|| {
        let stem = spec.file_stem().unwrap_or_default().to_string_lossy();
        PathBuf::from(format!("{stem}-sweep"))
    });
    if args.dry_run {
        let (plan, points) = dir::validate(&spec, &version()?)?;
        let steps: Vec<&str> = plan.steps.iter().map(|s| s.name()).collect();
        println!(
            "{}: {} points, steps {}",
            plan.design,
            points.len(),
            steps.join(", ")
        );
        for p in &points {
            match &p.params {
                Ok(_) => println!("  point {}: {}", p.index, p.label(&plan)),
                Err(e) => println!("  point {}: {} (refused: {e})", p.index, p.label(&plan)),
            }
        }
        return Ok(0);
    }
    let (plan, points) = dir::prepare(&spec, &out, &version()?)?;
    if args.slurm {
        let out = out.canonicalize()?;
        let opts = SlurmOptions {
            partition: args.partition,
            max_parallel: args.max_parallel,
            accelgen: std::env::current_exe().context("locating the accelgen executable")?,
        };
        let jobs = slurm::submit(&out, points.len(), &opts)?;
        println!(
            "{}: {} points submitted as Slurm job array {} (logs in {}/logs), collect job {}",
            plan.design,
            points.len(),
            jobs.array_job,
            out.display(),
            jobs.collect_job
        );
        println!("follow with: accelgen sweep status {}", out.display());
        return Ok(0);
    }
    let bars = Bars::new(&plan, points.len());
    let summary = sweep::run_local(&out, &plan, &points, args.jobs, &bars)?;
    bars.finish();
    Ok(report(&out, &summary))
}

/// The accelgen version and a hash of this executable: part of every cache key, so a
/// rebuilt accelgen recomputes what it may now compute differently.
fn version() -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("locating the accelgen executable")?;
    let hash = sweep::file_hash(&exe).map_err(anyhow::Error::msg)?;
    Ok(format!("{} {}", env!("CARGO_PKG_VERSION"), &hash[..16]))
}

fn run_point(dir: &Path, index: usize) -> anyhow::Result<u8> {
    let (plan, points) = dir::load(dir)?;
    let r = dir::run_point_file(dir, &plan, &points, index, &|_, _| {})?;
    println!("{}", line(&r));
    Ok(u8::from(r.error().is_some()))
}

fn status(dir: &Path) -> anyhow::Result<u8> {
    let s = sweep::status(dir)?;
    println!(
        "{}: {} points: {} done, {} failed, {} pending",
        dir.display(),
        s.points,
        s.points - s.failed - s.missing,
        s.failed,
        s.missing
    );
    if let Some(jobs) = slurm::submitted(dir) {
        println!(
            "Slurm: array job {}, collect job {}",
            jobs.array_job, jobs.collect_job
        );
        match slurm::job_states(&jobs) {
            Some(states) => print!("{states}"),
            None => println!("(squeue and sacct are not installed: no job states)"),
        }
    }
    Ok(0)
}

/// The closing summary; exit code 1 when a point failed or has no result.
fn report(dir: &Path, s: &Summary) -> u8 {
    println!(
        "{} points, {} failed{}: {}/results.csv, results.jsonl, plots/",
        s.points,
        s.failed,
        if s.missing > 0 {
            format!(", {} without a result yet", s.missing)
        } else {
            String::new()
        },
        dir.display()
    );
    u8::from(s.failed + s.missing > 0)
}

/// `point I: ok` or `point I: FAILED (step: error)`.
fn line(r: &PointResult) -> String {
    match r.error() {
        None => format!("point {}: ok", r.index),
        Some(e) => format!("point {}: FAILED ({e})", r.index),
    }
}

/// The progress display: points done of all, and per step done/failed counts; hidden
/// when stderr is not a terminal (a line per point then).
struct Bars {
    multi: MultiProgress,
    points: ProgressBar,
    steps: Vec<(String, ProgressBar)>,
    counts: Mutex<BTreeMap<String, [usize; 3]>>,
    terminal: bool,
}

impl Bars {
    fn new(plan: &sweep::Plan, points: usize) -> Bars {
        let terminal = std::io::stderr().is_terminal();
        let multi = MultiProgress::with_draw_target(if terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        });
        let style = ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg}")
            .expect("a fixed, valid template")
            .progress_chars("=> ");
        let bar = |name: &str| {
            let b = multi.add(ProgressBar::new(points as u64));
            b.set_style(style.clone());
            b.set_prefix(name.to_string());
            b
        };
        let points_bar = bar("points");
        let steps = plan
            .steps
            .iter()
            .map(|s| (s.name().to_string(), bar(s.name())))
            .collect();
        Bars {
            points: points_bar,
            steps,
            counts: Mutex::new(BTreeMap::new()),
            multi,
            terminal,
        }
    }

    fn finish(&self) {
        for (_, b) in &self.steps {
            b.finish();
        }
        self.points.finish();
        let _ = self.multi.clear();
    }
}

impl Progress for Bars {
    fn step(&self, step: &str, status: StepStatus) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let c = counts.entry(step.to_string()).or_default();
        c[match status {
            StepStatus::Ok => 0,
            StepStatus::Failed => 1,
            StepStatus::Skipped => 2,
        }] += 1;
        if let Some((_, b)) = self.steps.iter().find(|(n, _)| n == step) {
            b.inc(1);
            b.set_message(format!("{} done, {} failed, {} skipped", c[0], c[1], c[2]));
        }
    }

    fn point(&self, r: &PointResult) {
        self.points.inc(1);
        if !self.terminal {
            eprintln!("{}", line(r));
        }
    }
}
