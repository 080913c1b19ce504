//! The floating-point library: IEEE 754 units in any binary format with RISC-V's choices
//! (canonical NaNs, tininess after rounding, the five rounding modes per operation, the
//! five flags out of every unit), after Berkeley HardFloat. Shared blocks: the format
//! description, operand unpacking and rounding; one file per unit.

pub mod compare;
pub mod convert;
pub mod divsqrt;
pub mod fma;
pub mod format;
pub mod packed_fma;
pub mod round;
pub mod stage;
pub mod unpack;

pub use format::{FloatFormat, BFLOAT16, DOUBLE, HALF, SINGLE};
pub use round::{flags, rm, round, RoundIn, Rounded};
pub use unpack::{unpack, Unpacked};
