//! `accelgen fpga`: generate a design with every memory an inferred array, run the FPGA
//! flow on it (`fpga::flow`: Yosys, nextpnr, the bitstream packer) and print its
//! utilization and Fmax against the device; with `-o`, write the bitstream and the report.

use super::outdir::write_atomically;
use super::params::ParamArgs;
use anyhow::Context;
use clap::Args;
use fpga::device::Family;
use fpga::flow::{self, FpgaOptions};
use fpga::report::FpgaReport;
use fpga::wrapper;
use generators::output::{render, OutputOptions, MANIFEST, MANIFEST_GENERATOR};
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct FpgaArgs {
    /// Design to put on the FPGA (see `accelgen list`).
    design: String,
    #[command(flatten)]
    params: ParamArgs,
    /// FPGA family: ice40 or ecp5.
    #[arg(long)]
    family: Family,
    /// Device: hx1k, up5k, hx8k (ice40); 25k, 45k, 85k (ecp5). Default: the largest.
    #[arg(long)]
    device: Option<String>,
    /// Package (e.g. sg48, ct256, CABGA381). Default: the device's first.
    #[arg(long)]
    package: Option<String>,
    /// Clock frequency asked of place and route, in MHz (default: 12 on ice40, 25 on ecp5).
    #[arg(long, value_name = "MHZ")]
    freq: Option<f64>,
    /// Pin constraints (.pcf for ice40, .lpf for ecp5) binding the top's ports; without
    /// them the design is placed in the estimate wrapper (two data pins and a clock).
    #[arg(long, value_name = "FILE")]
    constraints: Option<PathBuf>,
    /// Output directory for the bitstream, report.json and report.txt (written all or
    /// nothing; replaced only if it is earlier accelgen output).
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
    device: &'a str,
    package: &'a str,
    freq_mhz: f64,
}

pub fn run(args: FpgaArgs) -> anyhow::Result<u8> {
    let params = args.params.table()?;
    let out = render(
        &args.design,
        &params,
        &OutputOptions {
            single_file: false,
            all_inferred: true,
        },
    )?;
    let tmp = tempfile::Builder::new()
        .prefix("accelgen-fpga-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    let verilog = tmp.path().join("verilog");
    fs::create_dir(&verilog).context("cannot create a temporary directory")?;
    for (name, text) in &out.files {
        let path = verilog.join(name);
        fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let opts = FpgaOptions {
        dir: verilog,
        work_dir: tmp.path().join("work"),
        family: args.family,
        device: args.device.clone(),
        package: args.package.clone(),
        freq_mhz: args.freq.unwrap_or(args.family.default_freq_mhz()),
        constraints: args.constraints.clone(),
    };
    let report = flow::run(&opts)?;
    if let Some(dir) = &args.output {
        write_output(dir, &args, &params, &opts.work_dir, &report)?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
    }
    Ok(0)
}

/// Writes the bitstream, the reports, the wrapper (if used) and a manifest to `dir`.
fn write_output(
    dir: &Path,
    args: &FpgaArgs,
    params: &toml::Table,
    work: &Path,
    report: &FpgaReport,
) -> anyhow::Result<()> {
    let mut names = vec![report.bitstream.clone()];
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
        family: args.family,
        device: &report.device,
        package: &report.package,
        freq_mhz: report.freq_mhz,
    };
    let manifest = serde_json::to_string_pretty(&manifest)? + "\n";
    files.push((MANIFEST.into(), manifest.into_bytes()));
    write_atomically(dir, &files)
}
