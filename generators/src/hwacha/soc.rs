//! Design `rocket-hwacha`: the Rocket-like tile with the Hwacha vector unit on its RoCC
//! port (Figure 8.1's tile). The tile's memory port, the vector unit's frontend ports
//! (vector I$ refills, scalar memory unit) and each lane's 128-bit port are top-level
//! memory ports onto one memory (the thesis's L2), so vector stores are seen by the
//! core after a `fence` (which waits for the unit's `busy` and drops the D$).

use super::params::HwachaParams;
use super::rocc::xcpt_shape;
use super::scalar::RamWindow;
use super::unit::hwacha;
use super::vector_unit::lane_mem_port;
use crate::rocket::bus::{mem_request, mem_response};
use crate::rocket::params::RocketParams;
use crate::rocket::tile::{tile, TAG_BITS};
use crate::rocket::trace::trace_shape;
use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::{Dir, HdlErrors, Module, ModuleBuilder};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The tile's parameters (`[rocket]`, design `rocket`'s without `rocc`: the vector unit
/// is always attached) and the vector unit's (`[hwacha]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RocketHwachaParams {
    pub rocket: RocketParams,
    pub hwacha: HwachaParams,
}

pub struct RocketHwacha;

impl Generator for RocketHwacha {
    type Params = RocketHwachaParams;
    const NAME: &'static str = "rocket-hwacha";
    const DESCRIPTION: &'static str =
        "the rocket tile with the Hwacha vector unit on its RoCC port (thesis chapter 8)";

    fn params() -> Vec<Param> {
        vec![
            Param::table(
                "rocket",
                crate::rocket::params::params(),
                "the tile: the `rocket` design's parameters but `rocc`",
            ),
            Param::table(
                "hwacha",
                super::params::params(),
                "the vector unit (thesis Table 8.7 names)",
            ),
        ]
    }

    fn validate(p: &RocketHwachaParams) -> Result<(), ParamError> {
        p.rocket.validate().map_err(|e| e.within("rocket"))?;
        p.rocket.require_rv64().map_err(|e| e.within("rocket"))?;
        p.hwacha.validate().map_err(|e| e.within("hwacha"))
    }

    fn build(p: &RocketHwachaParams) -> Result<Rc<Module>, HdlErrors> {
        rocket_hwacha(p)
    }
}

/// Ports: `mem` (the tile's, tagged), `vimem`/`vdmem` (the frontend's), `l<l>_mem` (lane
/// `l`'s), `trace` (the core's commits), `xcpt` (the vector unit's exceptions, in the
/// cycle the core takes each as a trap), and the vector unit's FP state and activity:
/// `frm` (in: its dynamic rounding mode), `fflags` (the FP exception flags it has
/// accrued) and `vbusy` (work the core has issued to it is not finished).
pub fn rocket_hwacha(p: &RocketHwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RocketHwacha");
    let t = m.instance("tile", &tile(&p.rocket, true)?);
    let ram = RamWindow {
        base: p.rocket.ram_base,
        size: p.rocket.ram_size,
    };
    let h_mod = hwacha(&p.hwacha, ram)?;
    let h = m.instance("hwacha", &h_mod);
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(TAG_BITS));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(TAG_BITS));
    m.connect_bundle(&mem_req, &t.io("mem_req"));
    m.connect_bundle(&t.io("mem_resp"), &mem_resp);
    let trace = m.io("trace", Dir::Out, &trace_shape());
    m.connect_bundle(&trace, &t.io("trace"));
    m.connect_bundle(&h.io("cmd"), &t.io("rocc_cmd"));
    m.connect_bundle(&t.io("rocc_resp"), &h.io("resp"));
    m.connect(&t.port("rocc_busy"), &h.port("busy"));
    m.connect_bundle(&t.io("rocc_xcpt"), &h.io("xcpt"));
    // The unit's memory traffic has its own ports: the tile's accelerator port is idle.
    m.tie_off(&t.io("rocc_mem_req"));
    for (outer, inner) in [("vimem", "imem"), ("vdmem", "dmem")] {
        let req = m.io(&format!("{outer}_req"), Dir::Out, &mem_request(0));
        let resp = m.io(&format!("{outer}_resp"), Dir::In, &mem_response(0));
        m.connect_bundle(&req, &h.io(&format!("{inner}_req")));
        m.connect_bundle(&h.io(&format!("{inner}_resp")), &resp);
    }
    // The lanes' memory ports and the unit's FP state and activity, out as they are.
    let outside = |name: &str| lane_mem_port(name) || ["frm", "fflags", "busy"].contains(&name);
    for port in h_mod.body.ports.iter().filter(|x| outside(&x.name)) {
        let width = h_mod.signal(port.sig).width;
        let name = if port.name == "busy" {
            "vbusy"
        } else {
            &port.name
        };
        if port.dir == Dir::Out {
            let outer = m.output(name, width);
            m.connect(&outer, &h.port(&port.name));
        } else {
            let outer = m.input(name, width);
            m.connect(&h.port(&port.name), &outer);
        }
    }
    // The exceptions the core takes, for the bench (`SocConfig::xcpt`).
    let xcpt = m.io("xcpt", Dir::Out, &xcpt_shape());
    let hx = h.io("xcpt");
    m.connect(xcpt.valid(), &hx.fire());
    for f in ["cause", "tval"] {
        m.connect(xcpt.bits().get(f).value(), hx.bits().get(f).value());
    }
    m.finish()
}
