//! Verification: golden models, co-simulation and differential testing.

pub mod elf;
pub mod exit;
pub mod fgsimt;
pub mod fp;
pub mod hdlfuzz;
pub mod hwacha;
pub mod iss;
pub mod kernels;
pub mod randgen;
pub mod rng;
pub mod simulator;
pub mod spike;
pub mod tb;
pub mod toolchain;
pub mod verilator;
pub mod vgiw;
