//! `accelgen generate`: elaborate a design and write its Verilog, SRAM macro list and
//! manifest, all or nothing (see `outdir`), and optionally lint them.

use super::outdir::write_atomically;
use super::params::ParamArgs;
use clap::Args;
use generators::output::{render, Output, OutputOptions};
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
}

pub fn run(args: GenerateArgs) -> anyhow::Result<u8> {
    let params = args.params.table()?;
    let opts = OutputOptions {
        single_file: args.single_file,
        all_inferred: args.all_inferred,
    };
    let out = render(&args.design, &params, &opts)?;
    write_atomically(&args.output, &out.files)?;
    print!("{}", summary(&args.design, &args.output, &out));
    if args.lint {
        return super::lint::lint_dir(&args.output);
    }
    Ok(0)
}

/// What was written where: the top module, the module count and the SRAM macros.
fn summary(design: &str, dir: &Path, out: &Output) -> String {
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
    format!(
        "{design}: wrote {} files to {}\n  top module {} ({modules}, Verilog files in \
         filelist.f)\n  {macros}\n  parameters and hierarchy: manifest.json\n",
        out.files.len(),
        dir.display(),
        out.top,
    )
}
