//! `accelgen lint DIR`: Verilator, Yosys and Icarus Verilog on generated output.

use anyhow::Context;
use asic_flow::lint::{self, LintTarget, Tool};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct LintArgs {
    /// Output directory of `accelgen generate`.
    dir: PathBuf,
}

pub fn run(args: LintArgs) -> anyhow::Result<u8> {
    lint_dir(&args.dir)
}

/// Lints output directory `dir` with every tool; exit code 0 when all are clean.
pub fn lint_dir(dir: &Path) -> anyhow::Result<u8> {
    let target = LintTarget::from_dir(dir)?;
    let mut failed = 0;
    for tool in Tool::ALL {
        let v = lint::run(tool, &target).with_context(|| format!("linting {}", dir.display()))?;
        if v.clean {
            println!("{tool}: clean");
            continue;
        }
        failed += 1;
        println!("{tool}: FAILED ({} warnings/errors)", v.messages.len());
        // A tool that failed without a recognizable message still explains itself.
        let lines = if v.messages.is_empty() {
            v.output.lines().map(str::to_string).collect()
        } else {
            v.messages
        };
        for l in lines {
            println!("  {l}");
        }
    }
    if failed > 0 {
        println!("{failed} of {} tools reported problems", Tool::ALL.len());
        return Ok(1);
    }
    println!("{}: lint clean (top {})", dir.display(), target.top);
    Ok(0)
}
