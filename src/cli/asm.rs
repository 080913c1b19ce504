//! `accelgen asm`: build mixed RV64 + Hwacha sources (assembly and C) into an ELF.

use std::path::PathBuf;
use verification::hwacha::asm::{build_sources, AsmOptions};

#[derive(clap::Args)]
pub struct AsmArgs {
    /// Sources, linked into one program: `.c` files are compiled to assembly (their
    /// inline assembly may hold Hwacha control-thread instructions); any other file is
    /// assembly (`.S`: RV64 control-thread code and Hwacha worker-thread blocks), run
    /// through the C preprocessor first.
    #[arg(required = true, value_name = "SOURCE")]
    pub sources: Vec<PathBuf>,
    /// Output ELF; written only when the whole build succeeds.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Add a directory to the preprocessor's include path (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro, `NAME` or `NAME=VALUE`, for every source (repeatable).
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    pub define: Vec<String>,
    /// The program defines its own `_start` and `tohost` (as the ISA tests do) instead
    /// of `main`, and is linked without the C start-up code and library.
    #[arg(long)]
    pub bare: bool,
}

pub fn run(args: AsmArgs) -> anyhow::Result<u8> {
    let opts = AsmOptions {
        include_dirs: args.include,
        defines: args.define,
        bare: args.bare,
    };
    build_sources(&args.sources, &args.output, &opts)?;
    Ok(0)
}
