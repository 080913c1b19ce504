//! The control processor's engine side (seed 000, Figures 3 and 4): warp-fragment
//! control and the affine functional units.

pub mod affine_alu;
pub mod pwfb;
