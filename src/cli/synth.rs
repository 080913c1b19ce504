//! `accelgen synth DIR --liberty LIB`: Yosys onto a Liberty's cells, with the area per
//! instance, the flops, cells, wall time and peak memory; writes the mapped netlist and
//! the report into an output directory of its own (never into DIR, which `generate` owns).

use super::outdir::write_atomically;
use anyhow::Context;
use asic_flow::synth::{self, SynthOptions, SynthReport};
use clap::Args;
use generators::output::{MANIFEST, MANIFEST_GENERATOR};
use std::fmt::Write;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct SynthArgs {
    /// Output directory of `accelgen generate`.
    dir: PathBuf,
    /// Liberty cell library (`.lib` or `.lib.gz`).
    #[arg(long, value_name = "LIB")]
    liberty: PathBuf,
    /// Synthesize this module of the hierarchy (e.g. `Hwacha`) instead of the top.
    #[arg(long, value_name = "MODULE")]
    top: Option<String>,
    /// Deepest instance level in the area table (the top is level 0).
    #[arg(long, default_value_t = 2)]
    depth: usize,
    /// Clock period the mapping aims at, in ns [default: the period of DIR/<top>.sdc, else 5].
    #[arg(long, value_name = "NS")]
    clock_period: Option<f64>,
    /// Output directory [default: DIR-synth-<liberty file name>]; replaced only if it is
    /// earlier accelgen output.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Also group the instance areas into thesis Figure 9.5's categories (banks,
    /// functional units, control, VMU, other) by Hwacha module name; use with
    /// `--top VectorUnit --depth 3` or deeper.
    #[arg(long)]
    hwacha_split: bool,
}

pub fn run(args: SynthArgs) -> anyhow::Result<u8> {
    let out = match &args.output {
        Some(o) => o.clone(),
        None => default_output(&args.dir, &args.liberty)?,
    };
    check_outside(&out, &args.dir)?;
    let report = synth::synth(&SynthOptions {
        dir: args.dir.clone(),
        liberty: args.liberty.clone(),
        top: args.top.clone(),
        depth: args.depth,
        clock_period_ns: args.clock_period,
    })
    .with_context(|| format!("synthesizing {}", args.dir.display()))?;
    let mut table = table(&report);
    if args.hwacha_split {
        table.push_str(&split_table(&report));
    }
    write_atomically(&out, &files(&report, &table)?)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{table}");
        println!(
            "yosys: {:.1} s wall, {:.0} MB peak; netlist and report in {}",
            report.wall_s,
            report.peak_rss_mb,
            out.display()
        );
    }
    Ok(0)
}

/// `DIR-synth-<liberty name without .lib/.gz>`, beside DIR.
fn default_output(dir: &Path, liberty: &Path) -> anyhow::Result<PathBuf> {
    let lib = liberty
        .file_name()
        .and_then(|n| n.to_str())
        .context("--liberty names no file")?;
    let lib = lib.trim_end_matches(".gz").trim_end_matches(".lib");
    let dir = dir.components().as_path();
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .context("DIR has no directory name to derive the output's from; give -o")?;
    Ok(dir.with_file_name(format!("{name}-synth-{lib}")))
}

/// Refuses an output directory that is DIR or inside it: DIR's contents are `generate`'s.
pub fn check_outside(out: &Path, dir: &Path) -> anyhow::Result<()> {
    let Ok(dir) = dir.canonicalize() else {
        return Ok(()); // No such DIR: reading it reports that.
    };
    // The nearest existing ancestor of `out` says where it would land.
    let mut probe = out.to_path_buf();
    let landing = loop {
        if let Ok(p) = probe.canonicalize() {
            break p;
        }
        if !probe.pop() || probe.as_os_str().is_empty() {
            break std::env::current_dir()?;
        }
    };
    anyhow::ensure!(
        !landing.starts_with(&dir),
        "output {} is inside {}, whose contents belong to `accelgen generate`; choose another -o",
        out.display(),
        dir.display()
    );
    Ok(())
}

/// The output files: the netlist, the report as JSON and text, the fakeram Liberty of
/// every macro, the run's measurements (`run.json`, the one file that varies between
/// runs) and a manifest marking the directory as accelgen's.
fn files(r: &SynthReport, table: &str) -> anyhow::Result<Vec<(String, String)>> {
    let measured = serde_json::json!({ "wall_s": r.wall_s, "peak_rss_mb": r.peak_rss_mb });
    let mut files = r.dir_files();
    files.push(("report.txt".to_string(), table.to_string()));
    files.push(("run.json".to_string(), json(&measured)?));
    let manifest = serde_json::json!({
        "generator": MANIFEST_GENERATOR,
        "kind": "synth",
        "outputs": files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        "top": r.top,
    });
    files.push((MANIFEST.to_string(), json(&manifest)?));
    Ok(files)
}

fn json<T: serde::Serialize>(v: &T) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(v)? + "\n")
}

/// `part` as a percentage of `total` (0 for an empty design).
fn percent(part: f64, total: f64) -> f64 {
    if total > 0.0 {
        100.0 * part / total
    } else {
        0.0
    }
}

/// The Hwacha split (`synth::split` with its module table): area, share and macro area
/// per thesis Figure 9.5 category.
fn split_table(r: &SynthReport) -> String {
    let mut s = String::from("area by thesis Figure 9.5 category (um2, share, of it macros):\n");
    for c in synth::split(&r.instances, synth::HWACHA_CATEGORIES) {
        let share = percent(c.area_um2, r.area_um2);
        let _ = writeln!(
            s,
            "  {:<18} {:>12.1} {:>5.1}% {:>12.1}",
            c.category.name(),
            c.area_um2,
            share,
            c.macro_area_um2
        );
    }
    s
}

/// The report as a text table: totals, then one row per instance, indented by depth.
fn table(r: &SynthReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} on {} (clock period {} ns): area {:.1} um2 = logic {:.1} + macros {:.1}; \
         {} flops, {} cells",
        r.top,
        r.library,
        r.clock_period_ns,
        r.area_um2,
        r.logic_area_um2,
        r.macro_area_um2,
        r.flops,
        r.cells
    );
    for m in &r.macros {
        let _ = writeln!(
            s,
            "  macro {}: {} x {:.1} um2",
            m.name, m.instances, m.area_um2
        );
    }
    let _ = writeln!(
        s,
        "{:<40} {:<20} {:>12} {:>12} {:>6} {:>8}",
        "instance", "module", "own um2", "subtree um2", "share", "flops"
    );
    for i in &r.instances {
        let name = i.path.rsplit('/').next().unwrap_or(&i.path);
        let share = percent(i.subtree_area_um2, r.area_um2);
        let _ = writeln!(
            s,
            "{:<40} {:<20} {:>12.1} {:>12.1} {:>5.1}% {:>8}",
            format!("{}{name}", "  ".repeat(i.depth)),
            i.module,
            i.area_um2,
            i.subtree_area_um2,
            share,
            i.subtree_flops
        );
    }
    s
}
