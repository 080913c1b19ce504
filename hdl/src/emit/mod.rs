//! Emitters: Verilog text and the SRAM macro list.

pub mod sram;
pub mod verilog;

pub use sram::SramMacro;
pub use verilog::{emit, EmitOptions, Emitted, EXPR_BUDGET, MAX_LINE};
