//! `hdl`: accelgen's runtime-elaborated hardware IR.
//!
//! Passes, each in its own module: elaborate (`builder`), lower and check (`lower`,
//! `check`), deduplicate (`design`), emit (`emit`), simulate (`sim`).

pub mod bits;
pub mod builder;
pub mod bundle;
mod check;
pub mod design;
pub mod emit;
pub mod error;
pub mod helpers;
pub mod ir;
mod lower;
pub mod sim;

pub use bits::Bits;
pub use builder::{cat, mux, Inst, Mem, ModuleBuilder, ResetValue, Ty, Value, When};
pub use bundle::{Bundle, Field, Shape};
pub use design::Design;
pub use error::{ErrorKind, HdlError, HdlErrors};
pub use ir::{Dir, MemStyle, Module};
