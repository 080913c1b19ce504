//! `accelgen iss`: run an RV64 ELF on the golden-model ISS.

use anyhow::Context;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use verification::iss::{Iss, IssConfig, Stop};

#[derive(clap::Args)]
pub struct IssArgs {
    /// RV64 ELF executable (linked, with a `tohost` symbol for HTIF).
    pub program: PathBuf,
    /// Print every retired instruction to stderr in Spike's `--log-commits` format.
    #[arg(long)]
    pub log_commits: bool,
    /// Stop with an error after this many instructions (the reset ROM's five included).
    #[arg(long, value_name = "N")]
    pub max_instret: Option<u64>,
}

/// Runs the program and returns its exit code (truncated to 8 bits, as a process's is).
pub fn run(args: IssArgs) -> anyhow::Result<u8> {
    let program = verification::elf::load_file(&args.program)
        .with_context(|| format!("loading {}", args.program.display()))?;
    let mut iss = Iss::new(&program, IssConfig::default())?;
    let stop = if args.log_commits {
        // Buffered: the log is large and stderr is unbuffered.
        let mut log = BufWriter::new(std::io::stderr().lock());
        let stop = iss.run(args.max_instret, Some(&mut log));
        log.flush().context("writing the commit log")?;
        stop?
    } else {
        iss.run(args.max_instret, None)?
    };
    match stop {
        Stop::Exit(code) => Ok(code as u8),
        Stop::InstretLimit => anyhow::bail!(
            "instruction limit reached: {} instructions retired without the program exiting",
            iss.instret()
        ),
    }
}
