//! The token (seed 004 section 3.5, "Token format"; spec 004 section 2.5): a thread's
//! virtual channel ID (the index of its entry in every token buffer it reaches), its
//! thread ID (LVUs form the LVC address from it; the CVU reports it in the completion)
//! and a 32-bit value. Control tokens are data tokens whose value nobody reads.
//!
//! Tokens wait in [`TokenQueue`]s: a unit's outputs and every switch's outgoing link
//! channels. Their `ready` is `!full`, a function of registers only, so the readiness a
//! switch sees never depends combinationally on its neighbours' switches: the
//! statically configured routes can form no combinational loop through the grid.

use crate::examples::queue::{queue, QueueParams};
use hdl::{cat, Bits, HdlErrors, Inst, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// Bits of a thread ID (the batch packet's 16-bit base TID, section 3.2).
pub const TID_BITS: u32 = 16;
/// Bits of a value.
pub const VALUE_BITS: u32 = 32;

/// The widths of a token's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub vc_bits: u32,
}

impl Layout {
    pub fn bits(self) -> u32 {
        self.vc_bits + TID_BITS + VALUE_BITS
    }
}

/// A token and whether it is there.
#[derive(Clone)]
pub struct Token {
    pub valid: Value,
    pub vc: Value,
    pub tid: Value,
    pub value: Value,
}

impl Token {
    /// The fields packed `{vc, tid, value}`.
    pub fn bits(&self) -> Value {
        cat(&[&self.vc, &self.tid, &self.value])
    }

    /// A token of packed fields.
    pub fn unpack(valid: &Value, bits: &Value, l: Layout) -> Token {
        let v = VALUE_BITS;
        Token {
            valid: valid.clone(),
            vc: bits.slice(l.bits() - 1, v + TID_BITS),
            tid: bits.slice(v + TID_BITS - 1, v),
            value: bits.slice(v - 1, 0),
        }
    }

    /// No token, of `l`'s widths.
    pub fn none(like: &Value, l: Layout) -> Token {
        let k = |w| like.konst(Bits::zero(w));
        Token {
            valid: k(1),
            vc: k(l.vc_bits),
            tid: k(TID_BITS),
            value: k(VALUE_BITS),
        }
    }
}

/// The queue module of `depth` tokens of `l`.
pub fn queue_module(l: Layout, depth: u32) -> Result<Rc<Module>, HdlErrors> {
    queue(&QueueParams {
        depth,
        width: l.bits(),
        ..QueueParams::default()
    })
}

/// A queue of tokens: `ready` (not full) and the `head`; [`TokenQueue::push`] and
/// [`TokenQueue::pop`] drive its two ends.
pub struct TokenQueue {
    inst: Inst,
    pub ready: Value,
    pub head: Token,
}

impl TokenQueue {
    pub fn new(m: &mut ModuleBuilder, name: &str, module: &Rc<Module>, l: Layout) -> TokenQueue {
        let inst = m.instance(name, module);
        let ready = inst.port("enq_ready");
        let head = Token::unpack(&inst.port("deq_valid"), &inst.port("deq_bits"), l);
        TokenQueue { inst, ready, head }
    }

    /// Enqueues `t` when `t.valid` (the caller checks `ready`).
    pub fn push(&self, m: &mut ModuleBuilder, t: &Token) {
        m.connect(&self.inst.port("enq_valid"), &t.valid);
        m.connect(&self.inst.port("enq_bits"), &t.bits());
    }

    /// Tokens in the queue.
    pub fn count(&self) -> Value {
        self.inst.port("count")
    }

    /// Dequeues the head when `pop`.
    pub fn pop(&self, m: &mut ModuleBuilder, pop: &Value) {
        m.connect(&self.inst.port("deq_ready"), pop);
    }
}
