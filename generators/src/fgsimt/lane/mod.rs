//! One SIMT lane (seed 000, section 1.5, Figure 3): its SRF bank and functional units.

pub mod sfpu;
pub mod srf;
