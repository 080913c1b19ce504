//! The control vector unit (seed 004 section 3.5, Table 1: CVU; spec 004 section 5.3,
//! its paragraph missing from the paper's text): one a replica. It injects the threads
//! the BBS sends it (`inject`: a thread ID and its initial sp), one a cycle while a
//! virtual channel is free: the lowest free channel becomes the thread's, and the
//! thread values its configuration names (w1 byte 3: bit k for `ThreadValue` k: the
//! thread ID, gp, tp, sp, each an output `LOCAL | k`) enter the graph with it. Its
//! token buffer holds the block's completion node: when the thread's branch outcome and
//! the ordering token of its every side effect are in, the unit reports the thread's
//! completion (`done`: its ID's low 16 bits, as the tokens carry it, and whether the
//! branch was taken) and frees the channel.
//! `active`: the cell is configured as a CVU this block.

use super::{Local, UnitIo, UnitOut};
use crate::examples::queue::{queue, QueueParams};
use crate::vgiw::compiler::image::CLASS_CVU;
use crate::vgiw::fabric::token::{queue_module, Token, TokenQueue, TID_BITS, VALUE_BITS};
use crate::vgiw::uint;
use hdl::helpers::{lowest_one, onehot_decode, onehot_encode};
use hdl::{cat, Bits, Dir, HdlErrors, ModuleBuilder, Shape, Value};

/// The `inject` port's thread: `tid` (its thread ID value; its tokens carry the low
/// `TID_BITS`) and `sp`.
pub fn inject_shape() -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("tid", VALUE_BITS),
        uint("sp", VALUE_BITS),
    ]))
}

/// The `done` port's completion: `tid` and `taken`.
pub fn done_shape() -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("tid", TID_BITS), uint("taken", 1)]))
}

pub fn cvu(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let (f, cfg, l) = (io.fire, io.cfg, io.l);
    let vcs = io.p.vcs;
    let inject = m.io("inject", Dir::In, &inject_shape());
    let done = m.io("done", Dir::Out, &done_shape());
    let (gp, tp) = (m.input("gp", VALUE_BITS), m.input("tp", VALUE_BITS));
    let active = m.output("active", 1);
    m.connect(&active, &cfg.is(CLASS_CVU));

    let tq = queue_module(l, 2)?;
    let queues: Vec<TokenQueue> = (0..4)
        .map(|k| TokenQueue::new(m, &format!("value{k}"), &tq, l))
        .collect();
    let wants: Vec<Value> = (0..4).map(|k| cfg.thread_values.bit(k)).collect();
    let free = m.reg("free", vcs, Bits::ones(vcs));
    let alloc = lowest_one(&free);
    let room = (queues.iter().zip(&wants)).fold(&active & &free.or_r(), |acc, (q, w)| {
        &acc & &(!w | q.ready.clone())
    });
    m.connect(inject.ready(), &room);
    let go = inject.fire();
    let tid = inject.bits().get("tid").value();
    let values = [tid.clone(), gp, tp, inject.bits().get("sp").value().clone()];
    let vc = onehot_encode(&alloc).trunc(l.vc_bits);
    for ((q, w), value) in queues.iter().zip(&wants).zip(values) {
        let token = Token {
            valid: &go & w,
            vc: vc.clone(),
            tid: tid.trunc(TID_BITS),
            value,
        };
        q.push(m, &token);
    }

    let dq = m.instance(
        "done_q",
        &queue(&QueueParams {
            depth: 2,
            width: TID_BITS + 1,
            ..Default::default()
        })?,
    );
    m.connect(&dq.port("enq_valid"), &f.valid);
    m.connect(&dq.port("enq_bits"), &cat(&[&f.tid, &f.operands[0].bit(0)]));
    m.connect(done.valid(), &dq.port("deq_valid"));
    m.connect(&dq.port("deq_ready"), done.ready());
    let head = dq.port("deq_bits");
    m.connect(done.bits().get("tid").value(), &head.slice(TID_BITS, 1));
    m.connect(done.bits().get("taken").value(), &head.bit(0));

    let taken = &alloc & &go.repeat(vcs);
    let freed = &onehot_decode(&f.vc, vcs) & &f.valid.repeat(vcs);
    m.connect(&free, &(&(&free & &!&taken) | &freed));
    Ok(UnitOut {
        locals: (queues.into_iter().enumerate())
            .map(|(k, q)| Local::new(k as u8, q))
            .collect(),
        can_fire: dq.port("enq_ready"),
    })
}
