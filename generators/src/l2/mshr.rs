//! A bank's miss status holding registers (thesis Table 9.2's non-blocking L2): each
//! holds one miss from the cycle its request misses in stage B until its replay enters
//! stage A, and walks it through
//!
//! `EVICT` (wants a pipeline operation reading its dirty victim's line into its buffer)
//! -> `EVRD` (the read is in the pipeline) -> `WB` (wants the memory port for the
//! victim's write-back) -> `REFILL` (wants the memory port for the line's read; waits
//! while another MSHR still has this line as a victim not yet written back) -> `WAIT`
//! (the read's response fills the buffer) -> `FILL` (wants a pipeline operation writing
//! the tag in stage A and the buffer into the data array in stage C) -> `REPLAY` (wants
//! to send its request down the pipeline again, where it hits) -> `IDLE`.
//!
//! A clean victim skips straight to `REFILL`; a flush's write-back (`wb_only`) ends
//! after `WB`. While an MSHR is active its way is pinned
//! (no other miss of its set takes it as a victim) and its line blocks the ports'
//! requests to it at admission.

use super::{Geometry, Req};
use crate::blocks::{any, cat_low_first, k};
use hdl::helpers::{lowest_one, onehot_decode, onehot_encode, onehot_mux};
use hdl::{Bundle, ModuleBuilder, ResetValue, Value};

pub(super) const IDLE: u64 = 0;
pub(super) const EVICT: u64 = 1;
pub(super) const EVRD: u64 = 2;
pub(super) const WB: u64 = 3;
pub(super) const REFILL: u64 = 4;
pub(super) const WAIT: u64 = 5;
pub(super) const FILL: u64 = 6;
pub(super) const REPLAY: u64 = 7;
const STATE_BITS: u32 = 3;

/// The pipeline operation kinds (stage registers' `kind`).
pub(super) mod kind {
    pub const REQ: u64 = 0;
    pub const EVICT: u64 = 1;
    pub const FILL: u64 = 2;
    /// A flush's visit of one line (`bank::flush_walker`).
    pub const FLUSH: u64 = 3;
    pub const BITS: u32 = 2;
}

struct Entry {
    state: Value,
    /// The missing line's address (without offset) and the way it will fill.
    line: Value,
    way: Value,
    /// The victim's line address (meaningful in `EVICT`..=`WB`).
    victim: Value,
    /// A flush's write-back: no refill follows.
    wb_only: Value,
    req: Req,
    /// The victim's data for its write-back, then the refill.
    buf: Value,
}

impl Entry {
    fn is(&self, s: u64) -> Value {
        self.state.eq(&k(&self.state, s, STATE_BITS))
    }

    fn go(&self, m: &mut ModuleBuilder, s: u64) {
        m.connect(&self.state, &k(&self.state, s, STATE_BITS));
    }

    fn active(&self) -> Value {
        !&self.is(IDLE)
    }
}

/// A miss to hand to a free MSHR (stage B).
pub(super) struct Miss<'a> {
    pub valid: &'a Value,
    pub line: &'a Value,
    pub way: &'a Value,
    pub victim: &'a Value,
    /// The victim is valid and dirty: it must be written back.
    pub dirty: &'a Value,
    /// Only the write-back (a flush).
    pub wb_only: &'a Value,
    pub req: &'a Req,
}

/// An MSHR's pipeline operation for stage A.
pub(super) struct Op {
    pub valid: Value,
    pub kind: Value,
    /// One-hot: which MSHR.
    pub sel: Value,
    pub way: Value,
    /// The request (replays) or the line's address with its fields (evicts and fills).
    pub req: Req,
}

pub(super) struct Mshrs {
    g: Geometry,
    e: Vec<Entry>,
}

impl Mshrs {
    pub fn new(m: &mut ModuleBuilder, g: &Geometry) -> Mshrs {
        let e = (0..g.mshrs)
            .map(|i| Entry {
                state: m.reg(&format!("mshr{i}_state"), STATE_BITS, IDLE),
                // Datapath registers without reset: read only in the states their
                // allocation (or the step that enters the state) writes them for.
                line: m.reg(
                    &format!("mshr{i}_line"),
                    g.line_addr_bits(),
                    ResetValue::None,
                ),
                way: m.reg(&format!("mshr{i}_way"), g.way_bits, ResetValue::None),
                victim: m.reg(
                    &format!("mshr{i}_victim"),
                    g.line_addr_bits(),
                    ResetValue::None,
                ),
                wb_only: m.reg(&format!("mshr{i}_wb_only"), 1, ResetValue::None),
                req: Req::regs(m, &format!("mshr{i}_req"), g),
                buf: m.reg(&format!("mshr{i}_buf"), g.line_bits(), ResetValue::None),
            })
            .collect();
        Mshrs { g: *g, e }
    }

    fn idle(&self) -> Vec<Value> {
        self.e.iter().map(|e| e.is(IDLE)).collect()
    }

    pub fn all_idle(&self) -> Value {
        let idle = self.idle();
        idle[1..].iter().fold(idle[0].clone(), |a, b| &a & b)
    }

    /// At least one MSHR is free, two if `also` (a request ahead takes one).
    pub fn room(&self, also: &Value) -> Value {
        let idle = self.idle();
        let mut at_least = [k(also, 0, 1), k(also, 0, 1)];
        for i in &idle {
            at_least[1] = &at_least[1] | &(&at_least[0] & i);
            at_least[0] = &at_least[0] | i;
        }
        hdl::mux(also, &at_least[1], &at_least[0])
    }

    /// An active MSHR holds `line` (a request to it must wait).
    pub fn holds(&self, line: &Value) -> Value {
        let hits: Vec<Value> = self
            .e
            .iter()
            .map(|e| &e.active() & &e.line.eq(line))
            .collect();
        any(&hits)
    }

    /// The ways of set `set` that active MSHRs hold.
    pub fn pinned(&self, set: &Value) -> Value {
        let g = &self.g;
        let terms: Vec<Value> = self
            .e
            .iter()
            .map(|e| {
                let same = &e.active() & &self.set_of_line(&e.line).eq(set);
                &same.repeat(g.ways) & &onehot_decode(&e.way, g.ways)
            })
            .collect();
        any(&terms)
    }

    fn set_of_line(&self, line: &Value) -> Value {
        let g = &self.g;
        if g.set_bits == 0 {
            k(line, 0, 1)
        } else {
            line.slice(g.bank_bits + g.set_bits - 1, g.bank_bits)
        }
    }

    /// Stage B's miss takes the lowest free MSHR.
    pub fn allocate(&self, m: &mut ModuleBuilder, miss: &Miss) {
        let free = lowest_one(&cat_low_first(&self.idle()));
        for (i, e) in self.e.iter().enumerate() {
            let take = miss.valid & &free.bit(i as u32);
            m.when(&take, |m| {
                m.connect(&e.line, miss.line);
                m.connect(&e.way, miss.way);
                m.connect(&e.victim, miss.victim);
                m.connect(&e.wb_only, miss.wb_only);
                Req::assign(m, &e.req, miss.req);
                let next = hdl::mux(
                    miss.dirty,
                    &k(&e.state, EVICT, STATE_BITS),
                    &k(&e.state, REFILL, STATE_BITS),
                );
                m.connect(&e.state, &next);
            });
        }
    }

    /// The operation stage A takes from the MSHRs this cycle (it always takes one that
    /// is valid): the lowest MSHR wanting an evict read, a fill or (with `credit`, room
    /// for its answer) a replay. Advances the chosen MSHR.
    pub fn op(&self, m: &mut ModuleBuilder, credit: &Value) -> Op {
        let g = &self.g;
        let wants: Vec<Value> = self
            .e
            .iter()
            .map(|e| any(&[e.is(EVICT), e.is(FILL), &e.is(REPLAY) & credit]))
            .collect();
        let sel = lowest_one(&cat_low_first(&wants));
        let pick = |f: &dyn Fn(&Entry) -> Value| {
            let vals: Vec<Value> = self.e.iter().map(f).collect();
            onehot_mux(&sel, &vals)
        };
        let kind_of = |e: &Entry| {
            let kb = kind::BITS;
            let evict = k(&e.state, kind::EVICT, kb);
            let fill = k(&e.state, kind::FILL, kb);
            let req = k(&e.state, kind::REQ, kb);
            hdl::mux(&e.is(EVICT), &evict, &hdl::mux(&e.is(FILL), &fill, &req))
        };
        let kind = pick(&kind_of);
        let way = pick(&|e: &Entry| e.way.clone());
        let line = pick(&|e: &Entry| e.line.clone());
        let reqs: Vec<Req> = self.e.iter().map(|e| e.req.clone()).collect();
        let replay = Req::select(&sel, &reqs);
        let line_addr = line.cat(&k(&line, 0, g.off_bits));
        let is_req = kind.eq(&k(&kind, kind::REQ, kind::BITS));
        let addr = hdl::mux(&is_req, replay.get("addr"), &line_addr);
        for (i, e) in self.e.iter().enumerate() {
            let mine = sel.bit(i as u32);
            m.when(&(&mine & &e.is(EVICT)), |m| e.go(m, EVRD));
            m.when(&(&mine & &e.is(FILL)), |m| e.go(m, REPLAY));
            m.when(&(&mine & &e.is(REPLAY)), |m| e.go(m, IDLE));
        }
        Op {
            valid: sel.or_r(),
            kind,
            sel,
            way,
            req: replay.with("addr", addr),
        }
    }

    /// Stage C's evict read: `data` is MSHR `sel`'s (one-hot) victim line.
    pub fn evicted(&self, m: &mut ModuleBuilder, valid: &Value, sel: &Value, data: &Value) {
        for (i, e) in self.e.iter().enumerate() {
            m.when(&(valid & &sel.bit(i as u32)), |m| {
                m.connect(&e.buf, data);
                e.go(m, WB);
            });
        }
    }

    /// MSHR `sel`'s (one-hot) buffer: the refill stage C writes.
    pub fn buffer(&self, sel: &Value) -> Value {
        let bufs: Vec<Value> = self.e.iter().map(|e| e.buf.clone()).collect();
        onehot_mux(sel, &bufs)
    }

    /// The memory port: write-backs and refills (the lowest MSHR wanting it), and the
    /// refills' responses.
    pub fn memory(&self, m: &mut ModuleBuilder, req: &Bundle, resp: &Bundle) {
        let g = &self.g;
        // A refill waits while its line is another MSHR's victim not yet written back.
        let pending_victim = |line: &Value| {
            let hits: Vec<Value> = self
                .e
                .iter()
                .map(|o| &any(&[o.is(EVICT), o.is(EVRD), o.is(WB)]) & &o.victim.eq(line))
                .collect();
            any(&hits)
        };
        let wants: Vec<Value> = self
            .e
            .iter()
            .map(|e| &e.is(WB) | &(&e.is(REFILL) & &!&pending_victim(&e.line)))
            .collect();
        let sel = lowest_one(&cat_low_first(&wants));
        let pick = |f: &dyn Fn(&Entry) -> Value| {
            let vals: Vec<Value> = self.e.iter().map(f).collect();
            onehot_mux(&sel, &vals)
        };
        let write = pick(&|e: &Entry| e.is(WB));
        let line = pick(&|e: &Entry| hdl::mux(&e.is(WB), &e.victim, &e.line));
        let b = req.bits();
        m.connect(req.valid(), &sel.or_r());
        m.connect(b.get("addr").value(), &line.cat(&k(&line, 0, g.off_bits)));
        m.connect(b.get("write").value(), &write);
        m.connect(b.get("data").value(), &pick(&|e: &Entry| e.buf.clone()));
        let ones = k(&write, 0, g.line_bytes).konst(hdl::Bits::ones(g.line_bytes));
        m.connect(b.get("mask").value(), &ones);
        let size = g.off_bits as u64;
        m.connect(b.get("size").value(), &k(&write, size, super::SIZE_BITS));
        let idx = onehot_encode(&sel).zext(g.mshr_bits);
        m.connect(b.get("tag").value(), &write.cat(&idx));
        let fire = req.fire();
        let rtag = resp.bits().get("tag").value();
        let is_refill = resp.valid() & &!&rtag.msb();
        for (i, e) in self.e.iter().enumerate() {
            let mine = &fire & &sel.bit(i as u32);
            m.when(&(&mine & &e.is(WB)), |m| {
                let next = hdl::mux(
                    &e.wb_only,
                    &k(&e.state, IDLE, STATE_BITS),
                    &k(&e.state, REFILL, STATE_BITS),
                );
                m.connect(&e.state, &next);
            });
            m.when(&(&mine & &e.is(REFILL)), |m| e.go(m, WAIT));
            let idx_i = k(rtag, i as u64, g.mshr_bits);
            let back = &is_refill & &rtag.slice(g.mshr_bits - 1, 0).eq(&idx_i);
            m.when(&(&back & &e.is(WAIT)), |m| {
                m.connect(&e.buf, resp.bits().get("data").value());
                e.go(m, FILL);
            });
        }
    }
}
