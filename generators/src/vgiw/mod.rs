//! `vgiw`: the VGIW multithreaded CGRF with control-flow coalescing of seed 004
//! (Voitsechov and Etsion, MICRO-48, 2015). `compiler/`: the kernel compiler from the
//! RISC-V SPMD kernels every data-parallel design of accelgen runs.

pub mod bbs;
pub mod compiler;
pub mod configurator;
pub mod cvt;
pub mod fabric;
pub mod grid;
pub mod launcher;
pub mod lvc;
pub mod params;
pub mod system;
pub mod units;

use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::{Bits, HdlErrors, Module, Shape, Value};
use params::VgiwParams;
use std::rc::Rc;

pub struct Vgiw;

impl Generator for Vgiw {
    type Params = VgiwParams;
    const NAME: &'static str = "vgiw";
    const DESCRIPTION: &'static str =
        "VGIW core (Voitsechov and Etsion, Figure 4): an RV32IMAF host, the BBS with its CVT, the configurator, the MT-CGRF grid of compute, SCU, LDST, LV, split/join and CVU units, the LVC and a banked L1";

    fn params() -> Vec<Param> {
        params::params()
    }

    fn validate(p: &VgiwParams) -> Result<(), ParamError> {
        p.validate()
    }

    fn build(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
        system::system(p)
    }
}

/// An unsigned bundle field.
pub(crate) fn uint(name: &str, width: u32) -> hdl::Field {
    Shape::field(name, Shape::UInt(width))
}

/// The `w`-bit constant `v`, in `like`'s module.
pub(crate) fn k(like: &Value, v: u64, w: u32) -> Value {
    like.konst(Bits::from_u64(w, v))
}
