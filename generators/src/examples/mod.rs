//! The example designs, one file per block.

pub mod banked_rf;
pub mod crossbar;
pub mod queue;
pub mod rocc_accumulator;
