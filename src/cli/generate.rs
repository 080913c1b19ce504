//! `accelgen generate`: elaborate a design and write its Verilog, SRAM macro list,
//! manifest and hand-off files (SDC, fakeram views, optionally an OpenROAD-flow-scripts
//! design directory and a FuseSoC core), all or nothing (see `outdir`), and optionally lint
//! them.

use super::handoff::{self, Handoffs};
use super::outdir::write_atomically;
use super::params::ParamArgs;
use asic_flow::fakeram::Tech;
use asic_flow::sdc::{SdcOptions, DEFAULT_IO_FRACTION};
use clap::Args;
use generators::output::{render_with, Output, OutputOptions};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct GenerateArgs {
    /// Design to generate (see `accelgen list`).
    design: String,
    #[command(flatten)]
    params: ParamArgs,
    /// Output directory; replaced only if it holds nothing but earlier output of
    /// `accelgen generate` (the files its manifest.json lists). A symbolic link is followed.
    #[arg(short, long, value_name = "DIR")]
    output: PathBuf,
    /// Write all modules into one `<top>.v`.
    #[arg(long)]
    single_file: bool,
    /// Emit every memory as an inferred array instead of SRAM macros (e.g. for FPGAs).
    #[arg(long)]
    all_inferred: bool,
    /// Lint the output afterwards, as `accelgen lint DIR` (exit code 1 if a tool objects).
    #[arg(long)]
    lint: bool,
    /// Clock period in ns of the SDC written for the top (`<top>.sdc`); inputs and outputs
    /// get 20 % of it as external delay.
    #[arg(long, value_name = "NS", default_value_t = asic_flow::sdc::DEFAULT_PERIOD_NS)]
    clock_period: f64,
    /// Also write an OpenROAD-flow-scripts design directory `orfs/` for this platform
    /// (nangate45 or sky130hd).
    #[arg(long, value_name = "PLATFORM")]
    orfs: Option<Tech>,
    /// Also write a FuseSoC core `<top>.core` with Verilator targets `lint` and `sim`.
    #[arg(long)]
    fusesoc: bool,
}

pub fn run(args: GenerateArgs) -> anyhow::Result<u8> {
    let params = args.params.table()?;
    let opts = OutputOptions {
        single_file: args.single_file,
        all_inferred: args.all_inferred,
    };
    let handoffs = Handoffs {
        sdc: SdcOptions {
            period_ns: args.clock_period,
            io_fraction: DEFAULT_IO_FRACTION,
        }
        .checked()?,
        orfs: args.orfs,
        fusesoc: args.fusesoc,
    };
    let out = render_with(&args.design, &params, &opts, |r| {
        handoff::files(r, &handoffs)
    })?;
    write_atomically(&args.output, &out.files)?;
    print!("{}", summary(&args.design, &args.output, &out, &handoffs));
    if args.lint {
        return super::lint::lint_dir(&args.output);
    }
    Ok(0)
}

/// What was written where: the top module, the module count, the SRAM macros and the
/// hand-off files.
fn summary(design: &str, dir: &Path, out: &Output, h: &Handoffs) -> String {
    let macros = if out.macros.is_empty() {
        "no SRAM macros".to_string()
    } else {
        let list: Vec<String> = out
            .macros
            .iter()
            .map(|(name, n)| format!("{n} x {name}"))
            .collect();
        format!("SRAM macros: {} (sram_macros.json)", list.join(", "))
    };
    let modules = match out.modules {
        1 => "1 module".to_string(),
        n => format!("{n} modules"),
    };
    let mut s = format!(
        "{design}: wrote {} files to {}\n  top module {} ({modules}, Verilog files in \
         filelist.f)\n  {macros}\n  timing constraints: {}.sdc (clock period {} ns)\n",
        out.files.len(),
        dir.display(),
        out.top,
        out.top,
        h.sdc.period_ns,
    );
    if !out.macros.is_empty() {
        s.push_str("  fakeram macro views (.lib, .lef): fakeram/nangate45/, fakeram/sky130hd/\n");
    }
    if let Some(platform) = h.orfs {
        s.push_str(&format!(
            "  OpenROAD-flow-scripts design ({platform}): orfs/config.mk\n"
        ));
    }
    if h.fusesoc {
        s.push_str(&format!(
            "  FuseSoC core: {}.core (targets lint, sim)\n",
            out.top
        ));
    }
    s.push_str("  parameters and hierarchy: manifest.json\n");
    s
}
