//! `FgsimtCpPort`: the control processor's data port onto the D$'s narrow port L (seed
//! 000, Figure 3: the CP shares the lanes' L1 D$; docs/fgsimt-engine.md, System).
//!
//! The core (`rocket/core.rs`, `memory = "direct"`) makes 64-bit lane-aligned requests
//! (`rocket::bus::mem_request(0)`) of at most 4 bytes at `xlen = 32`; the narrow port
//! takes the 32-bit word holding the address: the request's half of the data and byte
//! mask is picked by address bit 2, and the word the port answers is returned in both
//! halves of the doubleword (the core takes its lanes by address). Every core request is a
//! load or a store: the core performs AMOs as a read then a write and LR/SC with its own
//! reservation (`rocket/mem_stage.rs`), so the narrow port's AMO, LR and SC ops are not
//! needed here: while the CP runs, the engine is idle (a launch blocks the CP until the
//! kernel has finished), so the core's read-modify-write is atomic. Requests are untagged
//! and answered in order (the port's reorder buffer), so the tag is 0.

use super::l1::{narrow_request, narrow_response, op};
use crate::rocket::bus::{mem_request, mem_response};
use hdl::{cat, mux, Dir, HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// Ports `core_req`/`core_resp` (the core's `dmem`) and `dc_req`/`dc_resp` (the D$'s
/// narrow port, tags of `tag_bits`: the VGIW system's L1 has the LDSTUs' wider tags); with `shared` (+a) also `eng_req`/`eng_resp`, the engine's shared loads
/// (`cp/shared_load.rs`, tag 1): the core's requests go first (it waits on a launch
/// while the engine loads, so they do not meet in practice), and responses return to
/// the requester their tag names.
pub fn cp_port(shared: bool, tag_bits: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtCpPort");
    let req = m.io("core_req", Dir::In, &mem_request(0));
    let resp = m.io("core_resp", Dir::Out, &mem_response(0));
    let dreq = m.io("dc_req", Dir::Out, &narrow_request(tag_bits));
    let dresp = m.io("dc_resp", Dir::In, &narrow_response(tag_bits));

    let field = |name: &str| req.bits().get(name).value().clone();
    let (addr, data, mask) = (field("addr"), field("data"), field("mask"));
    let high = addr.bit(2);
    let (store, load) = (m.lit(op::STORE, op::BITS), m.lit(op::LOAD, op::BITS));
    let core = [
        ("addr", addr.clone()),
        ("op", mux(&field("write"), &store, &load)),
        ("data", mux(&high, &data.slice(63, 32), &data.slice(31, 0))),
        ("mask", mux(&high, &mask.slice(7, 4), &mask.slice(3, 0))),
        ("size", field("size").slice(1, 0)),
        ("tag", m.lit(0, tag_bits)),
    ];
    let word = dresp.bits().get("data").value();
    m.connect(resp.bits().get("data").value(), &cat(&[word, word]));
    m.connect(req.ready(), dreq.ready());
    if !shared {
        m.connect(dreq.valid(), req.valid());
        for (f, v) in &core {
            m.connect(dreq.bits().get(f).value(), v);
        }
        m.connect(resp.valid(), dresp.valid());
        return m.finish();
    }
    let ereq = m.io("eng_req", Dir::In, &narrow_request(tag_bits));
    let eresp = m.io("eng_resp", Dir::Out, &narrow_response(tag_bits));
    let first = req.valid();
    m.connect(dreq.valid(), &(first | ereq.valid()));
    m.connect(ereq.ready(), &(&!first & dreq.ready()));
    for (f, v) in &core {
        let e = ereq.bits().get(f).value();
        m.connect(dreq.bits().get(f).value(), &mux(first, v, e));
    }
    let tag = dresp.bits().get("tag").value();
    let ours = tag.eq(&m.lit(super::cp::shared_load::TAG, tag_bits));
    m.connect(resp.valid(), &(dresp.valid() & &!&ours));
    m.connect(eresp.valid(), &(dresp.valid() & &ours));
    m.connect_bundle(eresp.bits(), dresp.bits());
    m.finish()
}
