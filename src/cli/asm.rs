//! `accelgen asm`: build a mixed RV64 + Hwacha assembly program into an ELF.

use std::path::PathBuf;
use verification::hwacha::asm::{build, AsmOptions};

#[derive(clap::Args)]
pub struct AsmArgs {
    /// Assembly source (`.S`): RV64 control-thread code and Hwacha worker-thread blocks,
    /// run through the C preprocessor first.
    pub source: PathBuf,
    /// Output ELF; written only when the whole build succeeds.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Add a directory to the preprocessor's include path (repeatable).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Define a preprocessor macro, `NAME` or `NAME=VALUE` (repeatable).
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
    build(&args.source, &args.output, &opts)?;
    Ok(0)
}
