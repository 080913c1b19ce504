//! Static timing analysis of a `synth` netlist with OpenSTA (Debian's `sta`, a 2019
//! build): the cell Liberty plus every SRAM macro's fakeram Liberty, the hierarchical
//! netlist, and the SDC `generate` writes (`sdc::sdc`: clock on port `clock`, I/O delays
//! a fraction of the period) at the period asked for. Reports the worst slack, the Fmax it implies, and the worst paths with start
//! and end points named by hierarchical instance (`core/_123_`, `tile/core/...`).

use crate::measured;
use crate::sdc::{self, SdcOptions};
use crate::synth::MacroUse;
use serde::Deserialize;
use serde::Serialize;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, thiserror::Error)]
pub enum StaError {
    #[error(
        "`sta` (OpenSTA) is not installed or not on PATH (Debian/Ubuntu: apt-get install opensta)"
    )]
    ToolMissing,
    #[error("{}: not an `accelgen synth` output directory: {message}", dir.display())]
    NotSynthDir { dir: PathBuf, message: String },
    #[error("invalid clock period {0} ns (must be a positive number)")]
    Period(f64),
    #[error("cannot read Liberty file {}: {err}", path.display())]
    Liberty {
        path: PathBuf,
        err: crate::liberty::LibertyError,
    },
    #[error("OpenSTA failed: {0}")]
    Sta(String),
    #[error("timing I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// What to time.
#[derive(Clone, Debug)]
pub struct StaOptions {
    /// An `accelgen synth` output directory.
    pub dir: PathBuf,
    /// The Liberty the netlist was mapped to (`.lib` or `.lib.gz`).
    pub liberty: PathBuf,
    pub period_ns: f64,
    /// How many worst paths (to distinct endpoints) to report.
    pub paths: usize,
}

/// One timing path.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TimingPath {
    pub startpoint: String,
    pub endpoint: String,
    /// What kind of point each is, as OpenSTA says (`rising edge-triggered flip-flop`,
    /// `input port`, `output port`, ...).
    pub start_kind: String,
    pub end_kind: String,
    /// The net the startpoint drives: for a register, its name in the design
    /// (`core/_GEN_1[1]`), as the mapped cell's own name is Yosys's.
    pub start_net: String,
    pub slack_ns: f64,
    /// Data arrival time at the endpoint.
    pub arrival_ns: f64,
    /// Cell pins the path goes through (launching clock pin and endpoint excluded).
    pub levels: usize,
}

impl TimingPath {
    /// How the path's required time grows with the period: 1 between registers, less the
    /// I/O delay fraction for each end at a port.
    fn period_factor(&self) -> f64 {
        let ports = [&self.start_kind, &self.end_kind]
            .iter()
            .filter(|k| k.contains("port"))
            .count();
        1.0 - sdc::DEFAULT_IO_FRACTION * ports as f64
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct StaReport {
    pub top: String,
    pub period_ns: f64,
    /// Worst slack at `period_ns`.
    pub worst_slack_ns: f64,
    /// The highest clock frequency at which no path has negative slack.
    pub fmax_mhz: f64,
    /// The critical path: the one with zero slack at Fmax.
    pub startpoint: String,
    /// The net its startpoint drives (a register's name in the design).
    pub start_net: String,
    pub endpoint: String,
    /// Data arrival time of the critical path (at Fmax: I/O delays scale with the period).
    pub path_delay_ns: f64,
    pub levels: usize,
    /// The worst paths at `period_ns`, to distinct endpoints, worst first.
    pub paths: Vec<TimingPath>,
    pub wall_s: f64,
    pub peak_rss_mb: f64,
}

/// Refinements of the Fmax search (each one OpenSTA run) before giving up on convergence.
const FMAX_RUNS: usize = 6;

/// Times `opts.dir`'s netlist at `opts.period_ns`, then finds Fmax: the period at which
/// the worst path has zero slack, re-timed until no other path is worse there (a path's
/// required time grows with the period by its `period_factor`).
pub fn sta(opts: &StaOptions) -> Result<StaReport, StaError> {
    if !(opts.period_ns.is_finite() && opts.period_ns > 0.0) {
        return Err(StaError::Period(opts.period_ns));
    }
    let (report, macro_libs) = read_synth_dir(&opts.dir)?;
    let text = crate::liberty::read_text(&opts.liberty).map_err(|err| StaError::Liberty {
        path: opts.liberty.clone(),
        err,
    })?;
    let work = tempfile::Builder::new().prefix("accelgen-sta-").tempdir()?;
    let session = Session {
        work: work.path(),
        netlist: opts.dir.join(crate::synth::NETLIST),
        top: &report.top,
        clocked: report.clocked,
        macro_libs: &macro_libs,
    };
    std::fs::write(work.path().join("cells.lib"), text)?;
    let (paths, mut wall_s, mut peak) = session.run(opts.period_ns, opts.paths)?;
    let mut limiting = paths[0].clone();
    let mut min_period = opts.period_ns - limiting.slack_ns / limiting.period_factor();
    for _ in 0..FMAX_RUNS {
        let (at, w, p) = session.run(min_period, 1)?;
        wall_s += w;
        peak = peak.max(p);
        if at[0].slack_ns >= -0.0005 {
            break;
        }
        min_period -= at[0].slack_ns / at[0].period_factor();
        limiting = at[0].clone();
    }
    Ok(StaReport {
        top: report.top.clone(),
        period_ns: opts.period_ns,
        worst_slack_ns: paths[0].slack_ns,
        fmax_mhz: 1000.0 / min_period,
        startpoint: limiting.startpoint,
        start_net: limiting.start_net,
        endpoint: limiting.endpoint,
        path_delay_ns: limiting.arrival_ns,
        levels: limiting.levels,
        paths,
        wall_s,
        peak_rss_mb: peak,
    })
}

/// One design for OpenSTA runs, in work directory `work` (which holds `cells.lib`).
struct Session<'a> {
    work: &'a Path,
    netlist: PathBuf,
    top: &'a str,
    clocked: bool,
    macro_libs: &'a [PathBuf],
}

impl Session<'_> {
    /// The `count` worst paths at `period` (at least one), OpenSTA's wall time and peak
    /// memory.
    fn run(&self, period: f64, count: usize) -> Result<(Vec<TimingPath>, f64, f64), StaError> {
        let w = |n: &str| self.work.join(n);
        let opts = SdcOptions {
            period_ns: period,
            io_fraction: sdc::DEFAULT_IO_FRACTION,
        };
        let text = sdc::sdc(self.top, self.clocked, &opts).map_err(|_| StaError::Period(period))?;
        std::fs::write(w("constraint.sdc"), text)?;
        let q = |p: &Path| tcl_quote(p);
        let mut tcl = format!("read_liberty {}\n", q(&w("cells.lib")));
        for lib in self.macro_libs {
            let _ = writeln!(tcl, "read_liberty {}", q(lib));
        }
        let _ = write!(
            tcl,
            "read_verilog {}\nlink_design {}\nread_sdc {}\n\
             report_checks -path_delay max -group_count {} -endpoint_count 1 -fields {{nets}} -digits 4\nexit\n",
            q(&self.netlist),
            self.top,
            q(&w("constraint.sdc")),
            count.max(1)
        );
        std::fs::write(w("sta.tcl"), tcl)?;
        let mut cmd = Command::new("sta");
        cmd.arg("-no_splash").arg("-exit").arg(w("sta.tcl"));
        let run = measured::run(&mut cmd, &w("sta.log")).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StaError::ToolMissing,
            _ => StaError::Io(e),
        })?;
        let log = std::fs::read_to_string(w("sta.log"))?;
        if let Some(err) = log.lines().find(|l| l.starts_with("Error")) {
            return Err(StaError::Sta(err.to_string()));
        }
        if !run.status.success() {
            return Err(StaError::Sta(format!("exited with {}", run.status)));
        }
        let paths = parse_paths(&log);
        if paths.is_empty() {
            return Err(StaError::Sta("no constrained timing path found".into()));
        }
        Ok((paths, run.wall_s, run.peak_rss_mb))
    }
}

/// A path as a Tcl word: braces keep spaces and brackets literal.
fn tcl_quote(p: &Path) -> String {
    format!("{{{}}}", p.display())
}

/// What `sta` needs of a synth `report.json`.
#[derive(Deserialize)]
struct SynthOut {
    top: String,
    clocked: bool,
    macros: Vec<MacroUse>,
}

/// The synth report of `dir` and the fakeram Liberty files of its macros.
fn read_synth_dir(dir: &Path) -> Result<(SynthOut, Vec<PathBuf>), StaError> {
    let not_synth = |message: String| StaError::NotSynthDir {
        dir: dir.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(dir.join(crate::synth::REPORT))
        .map_err(|e| not_synth(format!("report.json: {e}")))?;
    let report: SynthOut =
        serde_json::from_str(&text).map_err(|e| not_synth(format!("report.json: {e}")))?;
    if !dir.join(crate::synth::NETLIST).is_file() {
        return Err(not_synth("no netlist.v".into()));
    }
    let mut libs = Vec::new();
    for m in &report.macros {
        let lib = dir.join(format!("{}.lib", m.name));
        if !lib.is_file() {
            return Err(not_synth(format!("no fakeram model {}.lib", m.name)));
        }
        libs.push(lib);
    }
    Ok((report, libs))
}

/// The paths of a `report_checks` output, worst first.
fn parse_paths(log: &str) -> Vec<TimingPath> {
    let mut paths = Vec::new();
    let mut cur: Option<TimingPath> = None;
    let mut pins = 0usize;
    for line in log.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Startpoint: ") {
            let (name, kind) = point(rest);
            cur = Some(TimingPath {
                startpoint: name,
                endpoint: String::new(),
                start_kind: kind,
                end_kind: String::new(),
                start_net: String::new(),
                slack_ns: 0.0,
                arrival_ns: 0.0,
                levels: 0,
            });
            pins = 0;
        } else if let Some(p) = cur.as_mut() {
            if let Some(rest) = t.strip_prefix("Endpoint: ") {
                (p.endpoint, p.end_kind) = point(rest);
            } else if t.starts_with('(') && p.arrival_ns == 0.0 {
                // OpenSTA puts the kind on a line of its own after a long name.
                let (_, kind) = point(&format!("x {t}"));
                if p.endpoint.is_empty() {
                    p.start_kind = kind;
                } else if p.end_kind.is_empty() {
                    p.end_kind = kind;
                }
            } else if t.ends_with("data arrival time") && p.arrival_ns == 0.0 {
                p.arrival_ns = first_number(t);
                // Pins seen: the launching clock pin (or input port) ... the endpoint.
                p.levels = pins.saturating_sub(2);
            } else if t.contains("slack (") {
                p.slack_ns = first_number(t);
                paths.extend(cur.take());
            } else if let Some(net) = t.strip_suffix(" (net)") {
                if p.start_net.is_empty() {
                    p.start_net = net.split_whitespace().last().unwrap_or("").to_string();
                }
            } else if p.arrival_ns == 0.0 && (t.contains(" ^ ") || t.contains(" v ")) {
                pins += 1;
            }
        }
    }
    paths
}

/// `name (kind ...)` of a Startpoint/Endpoint line.
fn point(rest: &str) -> (String, String) {
    match rest.split_once(" (") {
        Some((name, kind)) => (
            name.to_string(),
            kind.trim_end_matches(')')
                .split(" clocked by")
                .next()
                .unwrap_or("")
                .to_string(),
        ),
        None => (rest.to_string(), String::new()),
    }
}

fn first_number(t: &str) -> f64 {
    t.split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenSTA's layout, with a long startpoint whose kind wraps onto the next line.
    const REPORT: &str = "\
Startpoint: lane0/memory/vmu/_40916_
            (rising edge-triggered flip-flop clocked by clock)
Endpoint: out[3] (output port clocked by clock)
Path Group: clock

Fanout     Delay      Time   Description
   0.0000    0.0000   clock clock (rise edge)
   0.0000    0.0000 ^ lane0/memory/vmu/_40916_/CK (DFF_X1)
   0.0800    0.0800 v lane0/memory/vmu/_40916_/Q (DFF_X1)
     2                    lane0/memory/vmu/seq_k[1] (net)
   0.0400    0.1200 v _389_/Z (BUF_X1)
   0.0000    0.1200 v out[3] (out)
             0.1200   data arrival time
             0.8000   data required time
-------------------------------------------------------------
             0.6800   slack (MET)
";

    #[test]
    fn paths_are_parsed_with_wrapped_kinds() {
        let p = parse_paths(REPORT);
        assert_eq!(p.len(), 1);
        let p = &p[0];
        assert_eq!(p.startpoint, "lane0/memory/vmu/_40916_");
        assert_eq!(p.start_kind, "rising edge-triggered flip-flop");
        assert_eq!(
            (p.endpoint.as_str(), p.end_kind.as_str()),
            ("out[3]", "output port")
        );
        assert_eq!(p.start_net, "lane0/memory/vmu/seq_k[1]");
        assert_eq!((p.arrival_ns, p.slack_ns, p.levels), (0.12, 0.68, 2));
        assert!((p.period_factor() - 0.8).abs() < 1e-12);
    }
}
