//! `queue`: a ready/valid FIFO with the semantics of Chisel's `Queue`: `depth` entries in
//! a memory addressed by wrapping enqueue/dequeue pointers, with optional `flow`
//! (an empty queue passes `enq` to `deq` combinationally) and `pipe` (a full queue accepts
//! an enqueue in a cycle where a dequeue fires).
//!
//! The memory follows the generator-wide policy (`crate::memory`, `sram_threshold_bits`):
//! a small queue's entries are a flop array read combinationally at the dequeue pointer; a
//! queue of more bits is an SRAM macro with one synchronous read port, read every cycle
//! at the *next* head (the dequeue pointer after this cycle's dequeue), so that the head's
//! data is in the macro's output register when it becomes the head: `deq` behaves as in
//! the flop mode, cycle for cycle (the same [`QueueModel`]). An enqueue into the slot read
//! in the same cycle (the macro returns the old word) is forwarded by a one-word register.

use crate::memory::{self, ArrayPorts};
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::ir::addr_width;
use hdl::{
    mux, Bits, Dir, HdlErrors, Mem, MemStyle, Module, ModuleBuilder, ResetValue, Shape, Value,
};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct QueueParams {
    pub depth: u32,
    pub width: u32,
    pub flow: bool,
    pub pipe: bool,
    /// The memory policy's threshold (`crate::memory::style`).
    pub sram_threshold_bits: u64,
}

impl Default for QueueParams {
    fn default() -> Self {
        QueueParams {
            depth: 4,
            width: 32,
            flow: false,
            pipe: false,
            sram_threshold_bits: crate::memory::DEFAULT_SRAM_THRESHOLD_BITS,
        }
    }
}

/// Deep queues belong in SRAM-backed designs; this bound keeps elaboration instant.
pub const MAX_DEPTH: u32 = 1 << 16;

pub struct Queue;

impl Generator for Queue {
    type Params = QueueParams;
    const NAME: &'static str = "queue";
    const DESCRIPTION: &'static str =
        "ready/valid FIFO queue (Chisel Queue semantics) with optional flow and pipe modes";

    fn params() -> Vec<Param> {
        vec![
            Param::int("depth", 1, MAX_DEPTH.into(), "number of entries"),
            Param::int(
                "width",
                1,
                hdl::bits::MAX_WIDTH.into(),
                "data bits per entry",
            ),
            Param::boolean("flow", "an empty queue passes enq to deq in the same cycle"),
            Param::boolean(
                "pipe",
                "a full queue accepts enq in a cycle where deq fires",
            ),
            crate::memory::threshold_param(),
        ]
    }

    fn validate(p: &QueueParams) -> Result<(), ParamError> {
        schema::check_fields(&Self::params(), p)
    }

    fn build(p: &QueueParams) -> Result<Rc<Module>, HdlErrors> {
        queue(p)
    }
}

/// `ptr + 1`, wrapping to 0 after `depth - 1`.
fn wrap_inc(ptr: &Value, depth: u32) -> Value {
    let w = ptr.width();
    let one = ptr.konst(Bits::from_u64(w, 1));
    // Natural overflow wraps correctly only when the pointer addresses exactly `depth`.
    if 1u64 << w == depth as u64 {
        return ptr + &one;
    }
    let last = ptr.konst(Bits::from_u64(w, depth as u64 - 1));
    mux(&ptr.eq(&last), &ptr.konst(Bits::zero(w)), &(ptr + &one))
}

/// The head entry of an SRAM-backed queue: the macro's registered read of the next head,
/// or the word written into that slot in the same cycle (forwarded through a register).
fn sram_head(
    m: &mut ModuleBuilder,
    ram: &Mem,
    deq_ptr: &Value,
    enq_ptr: &Value,
    do_enq: &Value,
    do_deq: &Value,
    enq_bits: &Value,
) -> Value {
    let next_head = mux(do_deq, &wrap_inc(deq_ptr, ram.depth() as u32), deq_ptr);
    let one = do_enq.konst(Bits::from_u64(1, 1));
    let read = m.read_sync(ram, &next_head, &one);
    let hit = do_enq & &enq_ptr.eq(&next_head);
    let forwarded = m.reg("fwd_valid", 1, false);
    // Data without reset: observed only while `fwd_valid`, which is written with it.
    let fwd_data = m.reg("fwd_data", enq_bits.width(), ResetValue::None);
    m.connect(&forwarded, &hit);
    m.when(&hit, |m| m.connect(&fwd_data, enq_bits));
    mux(&forwarded, &fwd_data, &read)
}

/// The queue module; ports `enq` (decoupled, in), `deq` (decoupled, out) and `count`.
pub fn queue(p: &QueueParams) -> Result<Rc<Module>, HdlErrors> {
    let depth = p.depth as u64;
    let mut m = ModuleBuilder::new("Queue");
    let data = Shape::UInt(p.width);
    let enq = m.io("enq", Dir::In, &Shape::decoupled(data.clone()));
    let deq = m.io("deq", Dir::Out, &Shape::decoupled(data));
    let cw = addr_width(depth + 1);
    let count = m.output("count", cw);

    let ports = ArrayPorts {
        sync_reads: 1,
        comb_reads: 0,
        writes: 1,
    };
    let style = memory::style(depth, p.width, ports, p.sram_threshold_bits);
    let ram = m.mem("ram", depth, p.width, style);
    let aw = ram.addr_width();
    let enq_ptr = m.reg("enq_ptr", aw, 0u64);
    let deq_ptr = m.reg("deq_ptr", aw, 0u64);
    let do_enq = m.wire("do_enq", 1);
    let do_deq = m.wire("do_deq", 1);
    let maybe_full = m.reg("maybe_full", 1, false);
    let ptr_match = enq_ptr.eq(&deq_ptr);
    let empty = &ptr_match & &!&maybe_full;
    let full = &ptr_match & &maybe_full;

    let (enq_valid, enq_bits) = (enq.valid(), enq.bits().value());
    let deq_ready = deq.ready();
    let enq_ready = if p.pipe {
        !&full | deq_ready.clone()
    } else {
        !&full
    };
    m.connect(enq.ready(), &enq_ready);
    let stored = match style {
        MemStyle::Inferred => m.read(&ram, &deq_ptr),
        MemStyle::Sram => sram_head(&mut m, &ram, &deq_ptr, &enq_ptr, &do_enq, &do_deq, enq_bits),
    };
    if p.flow {
        m.connect(deq.valid(), &(!&empty | enq_valid.clone()));
        m.connect(deq.bits().value(), &mux(&empty, enq_bits, &stored));
    } else {
        m.connect(deq.valid(), &!&empty);
        m.connect(deq.bits().value(), &stored);
    }

    // A flow-through transfer leaves the storage untouched.
    let bypass = if p.flow {
        empty.clone()
    } else {
        empty.konst(Bits::zero(1))
    };
    m.connect(&do_enq, &(&enq.fire() & &!(&bypass & deq_ready)));
    m.connect(&do_deq, &(&deq.fire() & &!&bypass));

    m.when(&do_enq, |m| {
        m.write(&ram, &enq_ptr, enq_bits);
        m.connect(&enq_ptr, &wrap_inc(&enq_ptr, p.depth));
    });
    m.when(&do_deq, |m| {
        m.connect(&deq_ptr, &wrap_inc(&deq_ptr, p.depth))
    });
    m.when(&do_enq.ne(&do_deq), |m| m.connect(&maybe_full, &do_enq));

    // Occupancy from the pointers: `enq - deq`, plus `depth` once `enq` has wrapped past.
    let (e, d) = (enq_ptr.zext(cw), deq_ptr.zext(cw));
    let depth_c = e.konst(Bits::from_u64(cw, depth));
    let zero_c = e.konst(Bits::zero(cw));
    let apart = mux(&e.lt(&d), &(&(&e + &depth_c) - &d), &(&e - &d));
    let occupancy = mux(&ptr_match, &mux(&maybe_full, &depth_c, &zero_c), &apart);
    m.connect(&count, &occupancy);
    m.finish()
}

/// Inputs of one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueIn {
    pub enq_valid: bool,
    pub enq_bits: u128,
    pub deq_ready: bool,
}

/// Outputs of one cycle; `deq_bits` only matters when `deq_valid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueOut {
    pub enq_ready: bool,
    pub deq_valid: bool,
    pub deq_bits: u128,
    pub count: u32,
}

/// Golden model: a bounded FIFO of at most 128-bit words, written from the
/// specification rather than from the circuit (no pointers, no `maybe_full`).
pub struct QueueModel {
    params: QueueParams,
    items: VecDeque<u128>,
}

impl QueueModel {
    pub fn new(params: &QueueParams) -> QueueModel {
        QueueModel {
            params: params.clone(),
            items: VecDeque::new(),
        }
    }

    pub fn outputs(&self, i: &QueueIn) -> QueueOut {
        let p = &self.params;
        let full = self.items.len() == p.depth as usize;
        let passing = p.flow && self.items.is_empty();
        QueueOut {
            enq_ready: !full || (p.pipe && i.deq_ready),
            deq_valid: !self.items.is_empty() || (passing && i.enq_valid),
            deq_bits: if passing {
                i.enq_bits
            } else {
                self.items.front().copied().unwrap_or(0)
            },
            count: self.items.len() as u32,
        }
    }

    /// One clock edge with inputs `i`.
    pub fn step(&mut self, i: &QueueIn) {
        let o = self.outputs(i);
        let enq = i.enq_valid && o.enq_ready;
        let deq = o.deq_valid && i.deq_ready;
        if deq && !self.items.is_empty() {
            self.items.pop_front();
        }
        // With flow, an item enqueued and dequeued from an empty queue passed through.
        let passed = deq && self.params.flow && o.count == 0;
        if enq && !passed {
            self.items.push_back(i.enq_bits);
        }
    }
}
