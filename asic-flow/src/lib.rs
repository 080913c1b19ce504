//! `asic-flow`: runners for the external EDA tools that check generated Verilog.

pub mod fakeram;
pub mod fusesoc;
pub mod lint;
pub mod orfs;
pub mod sdc;
