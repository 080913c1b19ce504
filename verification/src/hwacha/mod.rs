//! The Hwacha vector unit: golden model and assembler.

pub mod asm;
pub mod model;
