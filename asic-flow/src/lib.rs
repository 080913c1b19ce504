//! `asic-flow`: runners for the external EDA tools that check generated Verilog.

pub mod lint;
pub mod sweep;
