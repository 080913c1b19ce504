//! `vgiw`: the VGIW multithreaded CGRF with control-flow coalescing of seed 004
//! (Voitsechov and Etsion, MICRO-48, 2015). `compiler/`: the kernel compiler from the
//! RISC-V SPMD kernels every data-parallel design of accelgen runs.

pub mod compiler;
pub mod grid;
pub mod params;
