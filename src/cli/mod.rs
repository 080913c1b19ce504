//! One module per subcommand.

pub mod iss;
