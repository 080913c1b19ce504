//! `fgsimt`: the FG-SIMT engine of seed 000 (Kim et al., ISCA'13, Figure 3) with the ASRF
//! affine mechanisms as a parameter. Blocks, one file each, named as in Figure 3:
//! - `params.rs`: the parameters; `bundles.rs`: the interfaces between the blocks.
//! - `cp/`: the control processor's engine side: `pwfb.rs` (AWFR and PWFB),
//!   `affine_alu.rs` (the affine ALU and stride unit).
//! - `execute.rs`: the SIU and the lanes joined, with the front end's and the SMU's ports;
//!   `siu.rs`: the SIMT issue unit.
//! - `lane/`: a SIMT lane: `lane.rs` (the lane), `srf.rs` (its SRF bank), `sau.rs` (SAU0
//!   and SAU1), `sgu.rs`, `ssu.rs`, `slu.rs` (address generation, store data, load
//!   writeback).
//! - `l1/`: the L1 I$ and the banked D$ with its narrow/wide port crossbar (section 1.7).

pub mod bundles;
pub mod cp;
pub mod execute;
pub mod l1;
pub mod lane;
pub mod params;
pub mod siu;
