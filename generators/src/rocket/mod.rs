//! `rocket`: a Rocket-like in-order five-stage RV64IMA (or, with `xlen = 32`, RV32IMA,
//! and with `fpu` RV32IMAF) control processor (machine mode, Zicsr, Zifencei) with a RoCC accelerator port, L1
//! caches or a direct memory port, and a commit trace port for lockstep checking against
//! the ISS.
//!
//! Block diagram, one file per block:
//! - `tile.rs`: the top (design `rocket`): core, multiply/divide unit, caches or direct
//!   paths, and the arbiter onto the one outer memory port.
//! - `core.rs`: the pipeline (IF, ID, EX, MEM, WB) with bypassing, load-use interlock,
//!   branch resolution in EX, and the RoCC command/response in MEM; `fetch.rs` (IF),
//!   `mem_stage.rs` (MEM), `late_operands.rs` (EX's operands from MEM's results),
//!   `decode.rs`, `alu.rs`, `csr.rs`, `bpred.rs` (BTB, BHT), `trace.rs` (the commit
//!   trace port).
//! - `muldiv.rs`, `fpu.rs` (the F extension's units), `cache.rs`, `mem_arbiter.rs`.
//! - `bus.rs`: interface shapes; `params.rs`: the parameters.

pub mod alu;
pub mod bpred;
pub mod bus;
pub mod cache;
pub mod core;
pub mod csr;
pub mod decode;
mod fetch;
pub mod fpu;
mod late_operands;
pub mod mem_arbiter;
mod mem_stage;
pub mod muldiv;
pub mod params;
pub mod tile;
pub mod trace;

use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::{HdlErrors, Module};
use params::RocketDesignParams;
use std::rc::Rc;

pub struct Rocket;

impl Generator for Rocket {
    type Params = RocketDesignParams;
    const NAME: &'static str = "rocket";
    const DESCRIPTION: &'static str =
        "Rocket-like 5-stage RV64IMA or RV32IMA(F) control processor with a RoCC port and a commit trace";

    fn params() -> Vec<Param> {
        params::design_params()
    }

    fn validate(p: &RocketDesignParams) -> Result<(), ParamError> {
        p.tile.validate()
    }

    fn build(p: &RocketDesignParams) -> Result<Rc<Module>, HdlErrors> {
        tile::tile(&p.tile, p.rocc)
    }
}
