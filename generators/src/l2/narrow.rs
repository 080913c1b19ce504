//! `L2Narrow`: a 64-bit port of the tile's bus (`rocket::bus`: tagged or not, answered
//! in request order) onto an L2 client port (16-byte beats, answers in any order). A
//! reorder buffer of `slots` entries holds each request's tag and which half of the beat
//! is its doubleword, and gives the answers back in request order; a full buffer holds
//! the next request. The L2 tag of a request is its slot.
//!
//! Ports: `in_req` (`rocket::bus::mem_request(in_tag_bits)`), `in_resp` (decoupled: the
//! doubleword and the tag; a bench or a merge may hold it), `out_req`/`out_resp` (the
//! L2's `client_request`/`client_response`).

use super::{client_request, client_response, uint, Geometry, BEAT_BYTES};
use crate::blocks::{amo, k, up_down};
use crate::rocket::bus::mem_request;
use hdl::helpers::onehot_mux;
use hdl::ir::addr_width;
use hdl::{mux, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

/// The answer towards the tile (decoupled).
pub fn narrow_response(in_tag_bits: u32) -> Shape {
    let mut fields = vec![uint("data", 64)];
    if in_tag_bits > 0 {
        fields.push(uint("tag", in_tag_bits));
    }
    Shape::decoupled(Shape::bundle(fields))
}

/// A slot of the reorder buffer.
struct Slot {
    done: Value,
    tag: Option<Value>,
    /// The doubleword is the beat's upper half.
    hi: Value,
    data: Value,
}

/// `slots` is a power of two of at least 2.
pub fn narrow_port(in_tag_bits: u32, g: &Geometry, slots: u32) -> Result<Rc<Module>, HdlErrors> {
    assert!(
        slots >= 2 && slots.is_power_of_two(),
        "{slots} reorder slots"
    );
    let mut m = ModuleBuilder::new(&format!("L2Narrow_t{in_tag_bits}_s{slots}"));
    let inp = m.io("in_req", Dir::In, &mem_request(in_tag_bits));
    let back = m.io("in_resp", Dir::Out, &narrow_response(in_tag_bits));
    let out = m.io("out_req", Dir::Out, &client_request(g));
    let resp = m.io("out_resp", Dir::In, &client_response(g));
    let sw = addr_width(slots as u64);
    let head = m.reg("head", sw, 0u64);
    let tail = m.reg("tail", sw, 0u64);
    let count = m.reg("count", addr_width(slots as u64 + 1), 0u64);
    // Datapath registers without reset: read only while their slot is in use.
    let rob: Vec<Slot> = (0..slots)
        .map(|i| Slot {
            done: m.reg(&format!("done{i}"), 1, false),
            tag: (in_tag_bits > 0)
                .then(|| m.reg(&format!("tag{i}"), in_tag_bits, ResetValue::None)),
            hi: m.reg(&format!("hi{i}"), 1, ResetValue::None),
            data: m.reg(&format!("data{i}"), 64, ResetValue::None),
        })
        .collect();
    let full = count.eq(&k(&count, slots as u64, count.width()));
    let f = |b: &hdl::Bundle, n: &str| b.bits().get(n).value().clone();
    let addr = f(&inp, "addr");
    let hi = addr.bit(3);
    m.connect(out.valid(), &(inp.valid() & &!&full));
    m.connect(inp.ready(), &(out.ready() & &!&full));
    let ob = out.bits();
    m.connect(ob.get("addr").value(), &addr);
    m.connect(ob.get("write").value(), &f(&inp, "write"));
    m.connect(ob.get("data").value(), &f(&inp, "data").repeat(2));
    let mask = f(&inp, "mask");
    let zero = k(&mask, 0, 8);
    m.connect(
        ob.get("mask").value(),
        &mux(&hi, &mask.cat(&zero), &zero.cat(&mask)),
    );
    m.connect(ob.get("size").value(), &f(&inp, "size"));
    m.connect(ob.get("tag").value(), &tail.zext(g.tag_bits));
    m.connect(ob.get("amo").value(), &k(&hi, amo::NONE, amo::BITS));
    let take = out.fire();
    // Slot indices wrap at a power of two.
    let step = |v: &Value| v + &k(v, 1, sw);
    m.when(&take, |m| m.connect(&tail, &step(&tail)));
    // Answers from the L2, by slot; the tile's, from the head in order.
    m.connect(resp.ready(), &k(&hi, 1, 1));
    let rtag = f(&resp, "tag");
    let rdata = f(&resp, "data");
    let heads: Vec<Value> = (0..slots)
        .map(|i| head.eq(&k(&head, i as u64, sw)))
        .collect();
    let sel = crate::blocks::cat_low_first(&heads);
    let head_done = onehot_mux(
        &sel,
        &rob.iter().map(|s| s.done.clone()).collect::<Vec<_>>(),
    );
    m.connect(back.valid(), &head_done);
    let bb = back.bits();
    let datas: Vec<Value> = rob.iter().map(|s| s.data.clone()).collect();
    m.connect(bb.get("data").value(), &onehot_mux(&sel, &datas));
    if in_tag_bits > 0 {
        let tags: Vec<Value> = rob.iter().map(|s| s.tag.clone().unwrap()).collect();
        m.connect(bb.get("tag").value(), &onehot_mux(&sel, &tags));
    }
    let give = back.fire();
    m.when(&give, |m| m.connect(&head, &step(&head)));
    m.connect(&count, &up_down(&count, &take, &give));
    let beat_w = 8 * BEAT_BYTES;
    for (i, s) in rob.iter().enumerate() {
        let at_tail = &take & &tail.eq(&k(&tail, i as u64, sw));
        m.when(&at_tail, |m| {
            m.connect(&s.hi, &hi);
            if let Some(t) = &s.tag {
                m.connect(t, &f(&inp, "tag"));
            }
        });
        let answered = resp.valid() & &rtag.eq(&k(&rtag, i as u64, g.tag_bits));
        let half = mux(&s.hi, &rdata.slice(beat_w - 1, 64), &rdata.slice(63, 0));
        m.when(&answered, |m| m.connect(&s.data, &half));
        let given = &give & &heads[i];
        m.connect(&s.done, &(&answered | &(&s.done & &!&given)));
    }
    m.finish()
}
