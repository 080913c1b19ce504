//! One module per subcommand.

pub mod asm;
pub mod cgrf;
pub mod fpga;
pub mod generate;
mod handoff;
pub mod iss;
pub mod lint;
pub mod list;
mod outdir;
mod params;
mod progress;
pub mod sim;
pub mod sta;
pub mod sweep;
pub mod synth;
