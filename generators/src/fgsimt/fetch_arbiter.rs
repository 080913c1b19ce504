//! `FgsimtFetchArbiter`: the shared L1 I$'s 2:1 arbiter (seed 000, Figure 3: one I$ for
//! the control processor and the warp fetch; docs/fgsimt-engine.md, System) between the
//! CP's instruction port and the engine's warp fetch.
//!
//! Policy: fixed priority to the warp fetch. The CP waits on a launch while a kernel
//! runs, so it loses only fetches it makes past the launch, and the engine's fetch, the
//! one that bounds a kernel's speed, is never delayed; outside a kernel the engine does
//! not fetch and the CP has the I$ alone. The I$ is blocking (`rocket/cache.rs`): it
//! answers each request before, or in the cycle, it accepts the next, so one register
//! (whose request is in the I$) routes the response.

use crate::rocket::bus::{mem_request, mem_response};
use hdl::{Bundle, Dir, HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// Ports `cp_req`/`cp_resp` and `warp_req`/`warp_resp` (requesters), `icache_req`/
/// `icache_resp` (to the I$), all of `rocket::bus`'s untagged shapes.
pub fn fetch_arbiter() -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtFetchArbiter");
    let cp_req = m.io("cp_req", Dir::In, &mem_request(0));
    let cp_resp = m.io("cp_resp", Dir::Out, &mem_response(0));
    let warp_req = m.io("warp_req", Dir::In, &mem_request(0));
    let warp_resp = m.io("warp_resp", Dir::Out, &mem_response(0));
    let out = m.io("icache_req", Dir::Out, &mem_request(0));
    let back = m.io("icache_resp", Dir::In, &mem_response(0));

    let warp = warp_req.valid().clone();
    m.connect(out.valid(), &(&warp | cp_req.valid()));
    m.connect_bundle(
        out.bits(),
        &Bundle::mux(&warp, warp_req.bits(), cp_req.bits()),
    );
    m.connect(warp_req.ready(), out.ready());
    m.connect(cp_req.ready(), &(out.ready() & &!&warp));

    // Whose request the I$ holds: set when a request is accepted.
    let to_warp = m.reg("to_warp", 1, false);
    m.when(&out.fire(), |m| m.connect(&to_warp, &warp));
    for (resp, mine) in [(&warp_resp, to_warp.clone()), (&cp_resp, !&to_warp)] {
        m.connect(resp.valid(), &(back.valid() & &mine));
        m.connect_bundle(resp.bits(), back.bits());
    }
    m.finish()
}
