//! The lanes' SLDQs (seed 000, Figure 3: "SLDQ"; docs/fgsimt-engine.md, "SMU" and
//! `bundles::load_data`): per load warp instruction (load, LR, SC, AMO) an entry of
//! `threads_per_lane` words a lane, `sldq_loads` entries, in program order. Every lane's
//! SLDQ gets an entry for every load at once, so the lanes share the pointers and keep
//! per word the data and a done bit.
//!
//! An entry is reserved as the load's slots arrive: each slot's done bits start set for
//! the inactive lanes (nothing will answer them) and clear for the active ones; a
//! response sets its word, shifted right by its byte offset (a narrow response's word;
//! for a wide one, each lane's word of the line). `load.ready` is high while the oldest
//! load's words are all done in every lane, the whole load received; the SLU then pops
//! its T slots, one a cycle.

use super::{all, k, next_mod, Fifo, Receive};
use crate::fgsimt::l1::OFFSET_BITS;
use crate::fgsimt::params::{FgsimtParams, LINE_BYTES};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{cat, mux, Bundle, ModuleBuilder, ResetValue, Value};

pub struct Sldq {
    loads: u32,
    t: u32,
    /// The entry of the load being received.
    pub tail: Value,
    head: Value,
    /// The next slot of the head entry to pop.
    pop_slot: Value,
    /// Loads received whole and not popped whole.
    count: Value,
    /// Per lane: done bits (bit e * T + c for slot c of entry e) and words.
    done: Vec<Value>,
    data: Vec<Vec<Value>>,
    /// Per lane: the done bits this cycle's responses set.
    set: Vec<Value>,
    /// This cycle's reservation (one-hot over the words) and the slot's active lanes.
    reserve: Value,
    active: Value,
    /// A load's last slot arrives.
    received: Value,
}

/// The one-hot over the `loads * t` words of slot `c` of entry `e`.
fn word(loads: u32, t: u32, e: &Value, c: &Value) -> Value {
    let (es, cs) = (onehot_decode(e, loads), onehot_decode(c, t));
    let bits: Vec<Value> = (0..loads * t)
        .map(|i| &es.bit(i / t) & &cs.bit(i % t))
        .collect();
    super::cat_low_first(&bits)
}

/// `word` shifted right by `offset` bytes.
fn shift_bytes(word: &Value, offset: &Value) -> Value {
    word.dshr(&cat(&[offset, &k(offset, 0, 3)]))
}

impl Sldq {
    pub fn new(m: &mut ModuleBuilder, p: &FgsimtParams, slot: &Bundle, rx: &Receive) -> Sldq {
        let (loads, t) = (p.sldq_loads, p.threads_per_lane());
        let n = loads * t;
        let lw = addr_width(loads as u64);
        let tail = m.reg("ldq_tail", lw, 0u64);
        let bits = slot.bits();
        let alloc = slot.valid() & &rx.load;
        let received = &alloc & bits.get("last").value();
        m.when(&received, |m| m.connect(&tail, &next_mod(&tail, loads)));
        let none = k(&tail, 0, n);
        Sldq {
            loads,
            t,
            head: m.reg("ldq_head", lw, 0u64),
            pop_slot: m.reg("ldq_pop_slot", addr_width(t as u64), 0u64),
            count: m.reg("ldq_count", addr_width(loads as u64 + 1), 0u64),
            done: (0..p.lanes)
                .map(|l| m.reg(&format!("ldq_done{l}"), n, 0u64))
                .collect(),
            data: (0..p.lanes)
                .map(|l| {
                    (0..n)
                        .map(|e| m.reg(&format!("ldq{l}_w{e}"), 32, ResetValue::None))
                        .collect()
                })
                .collect(),
            set: vec![none.clone(); p.lanes as usize],
            reserve: mux(&alloc, &word(loads, t, &tail, &rx.c), &none),
            active: bits.get("active").value().clone(),
            received,
            tail,
        }
    }

    fn word(&self, e: &Value, c: &Value) -> Value {
        word(self.loads, self.t, e, c)
    }

    /// Writes `value` into lane `l`'s word selected by `oh` when `en`.
    fn write(
        &mut self,
        m: &mut ModuleBuilder,
        l: usize,
        (en, oh): (&Value, &Value),
        value: &Value,
    ) {
        for (i, w) in self.data[l].iter().enumerate() {
            m.when(&(en & &oh.bit(i as u32)), |m| m.connect(w, value));
        }
        let n = oh.width();
        self.set[l] = &self.set[l] | &(&en.repeat(n) & oh);
    }

    /// Lane `l`'s narrow responses, routed by the head of its SMRRQ `rq`.
    pub fn fill_narrow(&mut self, m: &mut ModuleBuilder, l: usize, rq: &Fifo, resp: &Bundle) {
        let en = resp.valid() & &rq.head("load");
        let oh = self.word(&rq.head("ldq"), &rq.head("slot"));
        let word = shift_bytes(resp.bits().get("data").value(), &rq.head("offset"));
        self.write(m, l, (&en, &oh), &word);
    }

    /// The wide responses, routed by the head of the wide SMRRQ `wq`: each lane's word.
    pub fn fill_wide(&mut self, m: &mut ModuleBuilder, wq: &Fifo, resp: &Bundle) {
        let en = resp.valid() & &wq.head("load");
        let oh = self.word(&wq.head("ldq"), &wq.head("slot"));
        let line = resp.bits().get("data").value();
        let words: Vec<Value> = (0..LINE_BYTES / 4)
            .map(|w| line.slice(32 * w + 31, 32 * w))
            .collect();
        let offsets = wq.head("offset");
        for l in 0..self.data.len() {
            let off = offsets.slice(OFFSET_BITS * (l as u32 + 1) - 1, OFFSET_BITS * l as u32);
            let which = onehot_decode(&off.slice(OFFSET_BITS - 1, 2), LINE_BYTES / 4);
            let word = shift_bytes(&onehot_mux(&which, &words), &off.slice(1, 0));
            self.write(m, l, (&en, &oh), &word);
        }
    }

    /// The done bits' update, `load` (`bundles::load_data`) and the pops; returns whether
    /// a whole load more fits beyond the rest of one being received.
    pub fn finish(self, m: &mut ModuleBuilder, rx: &Receive, load: &Bundle) -> Value {
        let n = self.loads * self.t;
        let t = self.t;
        let mut head_done = Vec::new();
        let entry_sel = onehot_decode(&self.head, self.loads);
        for (l, done) in self.done.iter().enumerate() {
            let idle = !&self.active.bit(l as u32);
            let fresh = &self.reserve & &idle.repeat(n);
            let next = &(&(done & &!&self.reserve) | &fresh) | &self.set[l];
            m.connect(done, &next);
            let entries: Vec<Value> = (0..self.loads)
                .map(|e| done.slice(e * t + t - 1, e * t))
                .collect();
            head_done.push(onehot_mux(&entry_sel, &entries).and_r());
            let out = load.get("data").index(l).value();
            let at = self.word(&self.head, &self.pop_slot);
            m.connect(out, &onehot_mux(&at, &self.data[l]));
        }
        let c = &self.count;
        let cw = c.width();
        let some = c.or_r();
        m.connect(load.get("ready").value(), &(&some & &all(&head_done)));
        let pop = load.get("pop").value();
        let last = self
            .pop_slot
            .eq(&k(pop, t as u64 - 1, self.pop_slot.width()));
        let finished = pop & &last;
        m.when(pop, |m| {
            m.connect(&self.pop_slot, &next_mod(&self.pop_slot, t))
        });
        m.when(&finished, |m| {
            m.connect(&self.head, &next_mod(&self.head, self.loads))
        });
        let next = &(c + &self.received.zext(cw)) - &finished.zext(cw);
        m.connect(c, &next);
        let wide = cw + 1;
        let held = &(&c.zext(wide) + &rx.partial_load.zext(wide)) + &k(c, 1, wide);
        held.le(&k(c, self.loads as u64, wide))
    }
}
