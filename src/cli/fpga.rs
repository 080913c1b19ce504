//! `accelgen fpga`: generate a design with every memory an inferred array (or, with
//! `--board` and `--program`, its board top with the program preloaded: `fpga::board`),
//! run the FPGA flow on it (`fpga::flow`: Yosys, nextpnr, the bitstream packer) and print
//! its utilization and Fmax against the device; with `-o`, write the bitstream, the
//! report and nextpnr's log (its critical path report).
//!
//! A design with an `adders` parameter (the Rocket core's, also `rocket.adders` of
//! `rocket-hwacha`) is built with `adders = "inferred"` unless the parameters set it:
//! Yosys maps `+` and `-` to the FPGA's carry chain, which beats the ASIC's prefix
//! networks built of LUTs; the choice is printed and kept in the manifest.

use super::outdir::write_atomically;
use super::params::ParamArgs;
use anyhow::{bail, Context};
use clap::Args;
use fpga::board::{self, Board, BoardBuild};
use fpga::device::Family;
use fpga::flow::{self, FpgaError, FpgaOptions};
use fpga::report::FpgaReport;
use fpga::wrapper;
use generators::output::{render, OutputOptions, MANIFEST, MANIFEST_GENERATOR};
use generators::overrides::{dotted, merge};
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct FpgaArgs {
    /// Design to put on the FPGA (see `accelgen list`).
    design: String,
    #[command(flatten)]
    params: ParamArgs,
    /// FPGA family: ice40 or ecp5 (with --board: the board's).
    #[arg(long, required_unless_present = "board", conflicts_with = "board")]
    family: Option<Family>,
    /// Device: hx1k, up5k, hx8k (ice40); 25k, 45k, 85k (ecp5). Default: the largest.
    #[arg(long, conflicts_with = "board")]
    device: Option<String>,
    /// Package (e.g. sg48, ct256, CABGA381). Default: the device's first.
    #[arg(long, conflicts_with = "board")]
    package: Option<String>,
    /// Build the design's board top for this board (ulx3s), with --program in its RAM.
    #[arg(long, requires = "program", conflicts_with = "constraints")]
    board: Option<Board>,
    /// RV64 ELF program preloaded into the board top's block RAM (with --board).
    #[arg(long, value_name = "ELF", requires = "board")]
    program: Option<PathBuf>,
    /// Clock frequency asked of place and route, in MHz (default: the board's clock, or 12
    /// on ice40 and 25 on ecp5).
    #[arg(long, value_name = "MHZ")]
    freq: Option<f64>,
    /// Pin constraints (.pcf for ice40, .lpf for ecp5) binding the top's ports; without
    /// them the design is placed in the estimate wrapper (two data pins and a clock).
    #[arg(long, value_name = "FILE")]
    constraints: Option<PathBuf>,
    /// Output directory for the bitstream, report.json, report.txt and nextpnr.log (with
    /// its critical paths) (written all or nothing; replaced only if it is earlier
    /// accelgen output).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Print the report as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The `manifest.json` of an `accelgen fpga` output directory.
#[derive(Serialize)]
struct Manifest<'a> {
    generator: &'a str,
    outputs: Vec<&'a str>,
    design: &'a str,
    parameters: &'a toml::Table,
    family: Family,
    #[serde(skip_serializing_if = "Option::is_none")]
    board: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    program: Option<&'a Path>,
    device: &'a str,
    package: &'a str,
    freq_mhz: f64,
}

pub fn run(args: FpgaArgs) -> anyhow::Result<u8> {
    let (params, chosen) = fpga_defaults(&args.design, args.params.table()?)?;
    for name in chosen {
        eprintln!("accelgen fpga: {name} = \"inferred\" (the carry chain; --set {name}='\"prefix\"' for the ASIC's prefix adders)");
    }
    let tmp = tempfile::Builder::new()
        .prefix("accelgen-fpga-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let verilog = tmp.path().join("verilog");
    let work_dir = tmp.path().join("work");
    let opts = match (args.board, &args.program, args.family) {
        (Some(board), Some(program), _) => {
            let build = board::build(&args.design, &params, program, board)?;
            let constraints = write_board(&verilog, &build)?;
            FpgaOptions {
                dir: verilog,
                work_dir,
                family: build.family,
                device: Some(build.device),
                package: Some(build.package),
                freq_mhz: args.freq.unwrap_or(build.clock_mhz),
                constraints: Some(constraints),
            }
        }
        (_, _, Some(family)) => {
            let out = render(
                &args.design,
                &params,
                &OutputOptions {
                    single_file: false,
                    all_inferred: true,
                },
            )?;
            write_files(&verilog, &out.files)?;
            FpgaOptions {
                dir: verilog,
                work_dir,
                family,
                device: args.device.clone(),
                package: args.package.clone(),
                freq_mhz: args.freq.unwrap_or(family.default_freq_mhz()),
                constraints: args.constraints.clone(),
            }
        }
        _ => bail!("give --family, or --board with --program"),
    };
    let report = match flow::run(&opts) {
        Ok(report) => report,
        Err(e @ FpgaError::ToolFailed { .. }) => {
            // Kept for the log the error names.
            let _ = tmp.keep();
            return Err(e.into());
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(dir) = &args.output {
        write_output(dir, &args, &params, &opts, &report)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(0)
}

/// `params` with every `adders` parameter of `design` (dotted path) that they leave
/// unset set to `"inferred"`; returns them and the paths so set.
fn fpga_defaults(design: &str, params: toml::Table) -> anyhow::Result<(toml::Table, Vec<String>)> {
    let mut out = toml::Table::new();
    let mut chosen = Vec::new();
    for p in generators::design(design)?.params {
        let adders = p.name == "adders" || p.name.ends_with(".adders");
        if adders && lookup(&params, &p.name).is_none() {
            merge(&mut out, dotted(&p.name, "inferred".into()));
            chosen.push(p.name);
        }
    }
    merge(&mut out, params);
    Ok((out, chosen))
}

/// The value at dotted `path` in `table`, if there is one.
fn lookup<'a>(table: &'a toml::Table, path: &str) -> Option<&'a toml::Value> {
    match path.split_once('.') {
        Some((outer, rest)) => lookup(table.get(outer)?.as_table()?, rest),
        None => table.get(path),
    }
}

/// Writes `files` into a new directory `dir`.
fn write_files(dir: &Path, files: &[(String, String)]) -> anyhow::Result<()> {
    fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for (name, text) in files {
        let path = dir.join(name);
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Writes a board build's files and constraints into `dir`, its manifest's top made the
/// board's pin-level wrapper (with its file); returns the constraints file's path.
fn write_board(dir: &Path, build: &BoardBuild) -> anyhow::Result<PathBuf> {
    let mut files = build.files.clone();
    let manifest = files
        .iter_mut()
        .find(|(name, _)| name == MANIFEST)
        .context("the board build has no manifest.json")?;
    let mut m: serde_json::Value = serde_json::from_str(&manifest.1)?;
    let listed: Vec<serde_json::Value> = build
        .files
        .iter()
        .filter(|(name, _)| name.ends_with(".v"))
        .map(|(name, _)| name.as_str().into())
        .collect();
    m["top"] = build.top.as_str().into();
    m["files"] = listed.into();
    manifest.1 = serde_json::to_string_pretty(&m)?;
    files.push(build.constraints.clone());
    write_files(dir, &files)?;
    Ok(dir.join(&build.constraints.0))
}

/// Writes the bitstream, the reports, the wrapper (if used) and a manifest to `dir`.
fn write_output(
    dir: &Path,
    args: &FpgaArgs,
    params: &toml::Table,
    opts: &FpgaOptions,
    report: &FpgaReport,
) -> anyhow::Result<()> {
    let work = &opts.work_dir;
    let mut names = vec![report.bitstream.clone(), "nextpnr.log".to_string()];
    if report.wrapped {
        names.push(format!("{}.v", wrapper::TOP));
    }
    let mut files = Vec::new();
    for name in names {
        let path = work.join(&name);
        let bytes = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
        files.push((name, bytes));
    }
    let json = serde_json::to_string_pretty(report)? + "\n";
    files.push(("report.json".into(), json.into_bytes()));
    files.push(("report.txt".into(), report.table().into_bytes()));
    let manifest = Manifest {
        generator: MANIFEST_GENERATOR,
        outputs: files.iter().map(|(n, _)| n.as_str()).collect(),
        design: &args.design,
        parameters: params,
        family: report.family,
        board: args.board.map(|b| b.name()),
        program: args.program.as_deref(),
        device: &report.device,
        package: &report.package,
        freq_mhz: report.freq_mhz,
    };
    let manifest = serde_json::to_string_pretty(&manifest)? + "\n";
    files.push((MANIFEST.into(), manifest.into_bytes()));
    write_atomically(dir, &files)
}
