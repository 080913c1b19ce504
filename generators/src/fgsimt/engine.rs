//! `FgsimtEngine`: the engine behind the control processor's RoCC port (seed 000,
//! Figure 3; docs/fgsimt-engine.md, "Interfaces": the ports below are exactly those).
//!
//! PLACEHOLDER, to be replaced by the lead's engine (kernel state, front end, SIU, lanes,
//! SMU): it accepts every RoCC command and answers it with a `fault` of cause
//! `ILLEGAL_INSTRUCTION` (pc, thread and tval 0), held until reset, so that the tile, the
//! bench and `accelgen sim fgsimt` can be built and tested now. It never fetches, never
//! accesses the D$, answers no command and traces nothing.

use super::bundles::{self, cause, MEM_TAG_BITS};
use super::l1::{narrow_request, narrow_response, wide_request, wide_response};
use super::params::FgsimtParams;
use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_response};
use hdl::{Dir, HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// The engine of `p`. Ports: `rocc_cmd` (in), `rocc_resp`, `rocc_busy`; `fetch_req`/
/// `fetch_resp` (to the I$ arbiter); `n<l>_req`/`n<l>_resp` per lane and `w_req`/`w_resp`
/// (the D$'s narrow and wide ports); `fault`; `ftrace`, `wtrace` (lockstep traces).
pub fn engine(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtEngine");
    let cmd = m.io("rocc_cmd", Dir::In, &rocc_command());
    let resp = m.io("rocc_resp", Dir::Out, &rocc_response());
    let busy = m.output("rocc_busy", 1);
    let fetch_req = m.io("fetch_req", Dir::Out, &mem_request(0));
    m.io("fetch_resp", Dir::In, &mem_response(0));
    let mut idle = vec![resp, fetch_req];
    for l in 0..p.lanes {
        idle.push(m.io(
            &format!("n{l}_req"),
            Dir::Out,
            &narrow_request(MEM_TAG_BITS),
        ));
        m.io(
            &format!("n{l}_resp"),
            Dir::In,
            &narrow_response(MEM_TAG_BITS),
        );
    }
    idle.push(m.io("w_req", Dir::Out, &wide_request(MEM_TAG_BITS)));
    m.io("w_resp", Dir::In, &wide_response(MEM_TAG_BITS));
    idle.push(m.io("ftrace", Dir::Out, &bundles::ftrace(p.warp_size)));
    idle.push(m.io(
        "wtrace",
        Dir::Out,
        &bundles::wtrace(p.lanes, p.threads_per_lane()),
    ));
    for b in &idle {
        m.tie_off(b);
    }
    let fault = m.io("fault", Dir::Out, &bundles::fault());
    let faulted = m.reg("faulted", 1, false);
    m.connect(cmd.ready(), &!&faulted);
    m.connect(&faulted, &(&faulted | &cmd.fire()));
    m.connect(&busy, &faulted);
    m.connect(fault.valid(), &faulted);
    for (field, value) in [
        ("cause", cause::ILLEGAL_INSTRUCTION),
        ("pc", 0),
        ("thread", 0),
        ("tval", 0),
    ] {
        let leaf = fault.bits().get(field).value().clone();
        let v = m.lit(value, leaf.width());
        m.connect(&leaf, &v);
    }
    m.finish()
}
