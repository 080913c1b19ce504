//! `accelgen`: generate, lint and simulate data-parallel accelerator designs.

mod cli;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "accelgen",
    version,
    about = "Generator of synthesizable Verilog for data-parallel accelerators"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the designs and their parameters with defaults.
    List(cli::list::ListArgs),
    /// Generate a design's Verilog, SRAM macro list and manifest into a directory.
    Generate(cli::generate::GenerateArgs),
    /// Lint generated output with Verilator, Yosys and Icarus Verilog.
    Lint(cli::lint::LintArgs),
    /// Run an RV64 ELF program on the golden-model instruction-set simulator.
    Iss(cli::iss::IssArgs),
    /// Run a design as an in-process Verilator model under random or idle stimulus.
    Sim(cli::sim::SimArgs),
    /// Assemble and link a mixed RV64 + Hwacha assembly program into an ELF.
    Asm(cli::asm::AsmArgs),
    /// Put a design on an iCE40 or ECP5 FPGA: utilization, Fmax and a bitstream.
    Fpga(cli::fpga::FpgaArgs),
    /// Run a parameter sweep (locally or on Slurm) and write results and plots.
    Sweep(cli::sweep::SweepArgs),
    /// Synthesize generated output with Yosys onto a Liberty library; area per instance.
    Synth(cli::synth::SynthArgs),
    /// Static timing analysis (OpenSTA) of a synthesized netlist: slack, Fmax, critical path.
    Sta(cli::sta::StaArgs),
    /// Compile an SPMD program's kernels for the VGIW fabric: block graphs and listing.
    CgrfCompile(cli::cgrf::CgrfCompileArgs),
}

fn main() -> ExitCode {
    // Like other Unix tools, end quietly when the reader of stdout goes away
    // (`accelgen list | head`): Rust ignores SIGPIPE, which turns every later print into
    // a panic on the broken pipe.
    // SAFETY: setting a signal's disposition to the default before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    // The models' C++ optimization from the environment: a bad value is an error here,
    // before any command runs.
    if let Err(e) = verification::verilator::Opt::from_env() {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    let result = match cli.command {
        Command::List(args) => cli::list::run(args),
        Command::Generate(args) => cli::generate::run(args),
        Command::Lint(args) => cli::lint::run(args),
        Command::Iss(args) => cli::iss::run(args),
        Command::Sim(args) => cli::sim::run(args),
        Command::Asm(args) => cli::asm::run(args),
        Command::Fpga(args) => cli::fpga::run(args),
        Command::Sweep(args) => cli::sweep::run(args),
        Command::Synth(args) => cli::synth::run(args),
        Command::Sta(args) => cli::sta::run(args),
        Command::CgrfCompile(args) => cli::cgrf::run(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {}", message(&e));
            ExitCode::from(1)
        }
    }
}

/// The error and its causes on one line, each cause once: a cause whose text its
/// error's message already includes is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::message;
    use anyhow::Context;

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = || std::io::Error::from(std::io::ErrorKind::IsADirectory);
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read x: {0}")]
        struct Quoting(#[source] std::io::Error);
        let e = anyhow::Error::new(Quoting(io()));
        assert_eq!(message(&e), "cannot read x: is a directory");
        let e = Err::<(), _>(io()).context("reading x").unwrap_err();
        assert_eq!(message(&e), "reading x: is a directory");
    }
}
