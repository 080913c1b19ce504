//! One SIMT lane (seed 000, section 1.5, Figure 3): its SRF bank and functional units.

// `lane.rs` composes the lane from the blocks beside it (one file per block).
#[allow(clippy::module_inception)]
pub mod lane;
pub mod sau;
pub mod sfpu;
pub mod sgu;
pub mod slu;
pub mod srf;
pub mod ssu;
