//! `accelgen asm`: build a program into an ELF: mixed RV64 + Hwacha sources (assembly and
//! C, the default target) or an RV32IMAF SPMD kernel program (`--target simt`).

use anyhow::bail;
use std::path::PathBuf;
use verification::hwacha::asm::{build_sources, AsmOptions};

/// The machine a program is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// RV64IMA control thread with Hwacha vector code (the Rocket designs).
    Hwacha,
    /// RV32IMAF host code launching SPMD kernels (`kernels/runtime/simt.h`): the FG-SIMT
    /// engine, the CGRF and their golden model.
    Simt,
}

#[derive(clap::Args)]
pub struct AsmArgs {
    /// Sources, linked into one program: `.c` files are compiled to assembly (their
    /// inline assembly may hold Hwacha control-thread instructions); any other file is
    /// assembly (`.S`: RV64 control-thread code and Hwacha worker-thread blocks), run
    /// through the C preprocessor first. With `--target simt`, C and `.S` files for
    /// RV32IMAF that include `<simt.h>`.
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<PathBuf>,
    /// Output ELF; written only when the whole build succeeds.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// The machine to build for.
    #[arg(long, value_enum, default_value_t = Target::Hwacha)]
    pub target: Target,
    /// Add a directory to the preprocessor's include path (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro, `NAME` or `NAME=VALUE`, for every source (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// The program defines its own `_start` and `tohost` (as the ISA tests do) instead
    /// of `main`, and is linked without the C start-up code and library (Hwacha target).
    #[arg(long)]
    pub bare: bool,
}

pub fn run(args: AsmArgs) -> anyhow::Result<u8> {
    match args.target {
        Target::Simt if args.bare => {
            bail!("--bare is for the hwacha target: a SIMT program has a `main` and the runtime")
        }
        Target::Simt => {
            verification::kernels::build_program(
                &args.sources,
                &args.output,
                &args.include,
                &args.define,
            )?;
        }
        Target::Hwacha => {
            let opts = AsmOptions {
                include_dirs: args.include,
                defines: args.define,
                bare: args.bare,
            };
            build_sources(&args.sources, &args.output, &opts)?;
        }
    }
    Ok(0)
}
