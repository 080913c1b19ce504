//! The request side shared by the units that leave the fabric for a memory: the LDSTU
//! to the banked L1 (`ldst.rs`) and the LVU to the LVC (`lvu.rs`). A firing entry
//! becomes a request in a two-entry queue to the unit's decoupled request port, tagged
//! with the thread's virtual channel; its thread ID and the bits the response needs
//! wait in the reservation buffer (seed 004 Table 1: "its reservation buffer holds the
//! TIDs of outstanding memory operations"), one entry a virtual channel. Responses are
//! valid-only, in any order (seed 004: "completion is out of order and unblocked
//! threads overtake blocked ones"), and always accepted: the unit fires only while its
//! requests in flight and the tokens in its output queue number fewer than
//! `port_outstanding`, the output queue's depth.

use super::{Local, UnitIo, UnitOut};
use crate::vgiw::fabric::token::{queue_module, Token, TokenQueue, TID_BITS, VALUE_BITS};
use crate::vgiw::uint;
use hdl::ir::addr_width;
use hdl::{cat, Bits, Dir, HdlErrors, MemStyle, ModuleBuilder, Shape, Value};

/// A request port's fields and what the unit keeps for the response.
pub struct Request {
    /// The request's fields in port order (the tag, the virtual channel, added last).
    pub fields: Vec<(&'static str, Value)>,
    /// Bits kept a virtual channel for the response.
    pub keep: Value,
}

/// The unit: request port `req`, response port `resp`; `value` makes the output
/// token's value of the response's data and the kept bits.
pub fn requester(
    m: &mut ModuleBuilder,
    io: &UnitIo,
    (req, resp): (&str, &str),
    r: Request,
    value: impl Fn(&Value, &Value) -> Value,
) -> Result<UnitOut, HdlErrors> {
    let (l, f) = (io.l, io.fire);
    let mut fields = r.fields;
    fields.push(("tag", f.vc.clone()));
    let width: u32 = fields.iter().map(|(_, v)| v.width()).sum();
    let reqq = m.instance(
        "req",
        &crate::examples::queue::queue(&crate::examples::queue::QueueParams {
            depth: 2,
            width,
            ..Default::default()
        })?,
    );
    let shape = Shape::bundle(fields.iter().map(|(n, v)| uint(n, v.width())).collect());
    let port = m.io(req, Dir::Out, &Shape::decoupled(shape));
    m.connect(&reqq.port("enq_valid"), &f.valid);
    let parts: Vec<&Value> = fields.iter().map(|(_, v)| v).collect();
    m.connect(&reqq.port("enq_bits"), &cat(&parts));
    m.connect(port.valid(), &reqq.port("deq_valid"));
    m.connect(&reqq.port("deq_ready"), port.ready());
    let head = reqq.port("deq_bits");
    let mut hi = width;
    for (name, v) in &fields {
        m.connect(
            port.bits().get(name).value(),
            &head.slice(hi - 1, hi - v.width()),
        );
        hi -= v.width();
    }

    let back = m.io(
        resp,
        Dir::In,
        &Shape::valid(Shape::bundle(vec![
            uint("data", VALUE_BITS),
            uint("tag", l.vc_bits),
        ])),
    );
    let (rvalid, data) = (back.valid(), back.bits().get("data").value());
    let tag = back.bits().get("tag").value();
    let kw = r.keep.width();
    let reserve = m.mem(
        "reserve",
        io.p.vcs as u64,
        TID_BITS + kw,
        MemStyle::Inferred,
    );
    m.when(&f.valid, |m| {
        m.write(&reserve, &f.vc, &cat(&[&f.tid, &r.keep]))
    });
    let kept = m.read(&reserve, tag);

    let depth = io.p.port_outstanding;
    let q = TokenQueue::new(m, "out", &queue_module(l, depth)?, l);
    q.push(
        m,
        &Token {
            valid: rvalid.clone(),
            vc: tag.clone(),
            tid: kept.slice(TID_BITS + kw - 1, kw),
            value: value(data, &kept.slice(kw - 1, 0)),
        },
    );
    let cw = addr_width(depth as u64 + 1) + 1;
    let inflight = m.reg("inflight", cw, 0u64);
    let k = |v: u64| inflight.konst(Bits::from_u64(cw, v));
    let plus = f.valid.mux(&k(1), &k(0));
    let minus = rvalid.mux(&k(1), &k(0));
    m.connect(&inflight, &(&(&inflight + &plus) - &minus));
    let used = &inflight + &q.count().zext(cw);
    let can_fire = &used.lt(&k(depth as u64)) & &reqq.port("enq_ready");
    Ok(UnitOut {
        locals: vec![Local::new(0, q)],
        can_fire,
    })
}
