//! The Hwacha vector unit: golden model and assembler, on one table of its encodings.

pub mod asm;
pub mod encoding;
pub mod model;
pub mod ubench;
