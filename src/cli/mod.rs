//! One module per subcommand.

pub mod asm;
pub mod generate;
pub mod iss;
pub mod lint;
pub mod list;
pub mod sim;
