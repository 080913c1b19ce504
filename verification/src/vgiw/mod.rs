//! The VGIW golden models (seed 004):
//! - `kernels.rs`: a program's kernels and their code, for the compiler;
//! - `interp.rs`: one thread through a compiled block;
//! - `check.rs`: every compiled block checked against the per-thread RV32 ISS;
//! - `cvt.rs`, `lvc.rs`, `machine.rs`: the execution model (the CVT, the live value
//!   cache, the BBS's coalesced block-at-a-time schedule of Figure 2);
//! - `program.rs`: whole programs with their launches on that model;
//! - `fabric.rs`: the fabric's RTL (Verilator) running the model's batches.

pub mod bbs;
pub mod check;
pub mod cvt;
pub mod cvt_trace;
pub mod fabric;
pub mod interp;
pub mod kernels;
pub mod loader;
pub mod lvc;
pub mod machine;
pub mod program;
