//! The control processor's engine side (seed 000, Figure 3): warp-fragment control.

pub mod pwfb;
