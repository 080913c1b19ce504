//! `asic-flow`: runners for the external EDA tools that check generated Verilog.

pub mod fakeram;
pub mod lint;
