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
//! - `smu/`: the SIMT memory unit: SMRQs, coalescer, SMRRQs, SLDQs (section 1.5).
//! - `tile.rs`: the top (design `fgsimt`): the control processor, `engine.rs`, the L1,
//!   `fetch_arbiter.rs` (the I$'s 2:1 arbiter) and `cp_port.rs` (the CP's D$ port).

pub mod avc;
pub mod bundles;
pub mod cp;
pub mod cp_port;
pub mod dws;
pub mod engine;
pub mod execute;
pub mod fetch_arbiter;
pub mod l1;
pub mod lane;
pub mod params;
pub mod plru;
pub mod siu;
pub mod smu;
pub mod stack_check;
pub mod tile;

use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::{HdlErrors, Module};
use params::FgsimtParams;
use std::rc::Rc;

/// Design `fgsimt`: the tile of `tile.rs`.
pub struct Fgsimt;

impl Generator for Fgsimt {
    type Params = FgsimtParams;
    const NAME: &'static str = "fgsimt";
    const DESCRIPTION: &'static str =
        "FG-SIMT engine (Kim et al., Figure 3): RV32IMAF control processor, SIMT lanes, banked L1, affine mechanisms";

    fn params() -> Vec<Param> {
        params::params()
    }

    fn validate(p: &FgsimtParams) -> Result<(), ParamError> {
        p.validate()
    }

    fn build(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
        tile::tile(p)
    }
}
