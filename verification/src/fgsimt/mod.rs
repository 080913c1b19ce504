//! The FG-SIMT engine's golden models (seed 000): the SIMT control-flow model (warps,
//! fragments, the PWFB) over the per-thread RV32IMAF ISS, and whole programs run with
//! their launches on it.

pub mod affine;
pub mod avc;
pub mod dws;
pub mod l1;
pub mod program;
pub mod pwfb;
pub mod warp;
