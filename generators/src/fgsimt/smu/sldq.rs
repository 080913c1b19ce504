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
//! its T slots, one a cycle. With +m an entry is taken whole at a load's first slot or
//! at an affine load (its words cleared then, its inactive threads' done at once), and
//! an affine load's words are filled from each returned line by the rotation network
//! (`rotate.rs`), up to every lane's T words a cycle.

use super::hit_mask;
use super::rotate::{place, Request};
use super::{all, cat_low_first, k, next_mod, Fifo, Receive};
use crate::fgsimt::l1::BLOCK_OFFSET_BITS;
use crate::fgsimt::params::{FgsimtParams, BLOCK_BYTES};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{cat, mux, Bundle, ModuleBuilder, ResetValue, Value};

pub struct Sldq {
    loads: u32,
    t: u32,
    /// The entry of the incoming slot's load.
    pub entry: Value,
    /// +m: the entry of an affine load arriving this cycle.
    pub affine_entry: Option<Value>,
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
    /// Per lane (+m): an arriving affine load's inactive threads' words, done at once.
    idle_affine: Vec<Value>,
    /// This cycle's reservation (one-hot over the words), the done bits it clears (with
    /// +m whole entries as they are taken) and the slot's active lanes.
    reserve: Value,
    clear: Value,
    active: Value,
    /// Entries received whole this cycle (a load's last slot; with +m a load's first
    /// slot and an affine load).
    received: Vec<Value>,
}

/// The one-hot over the `loads * t` words of every slot of entry `e`.
pub(super) fn entry_words(loads: u32, t: u32, e: &Value) -> Value {
    let es = onehot_decode(e, loads);
    let bits: Vec<Value> = (0..loads * t).map(|i| es.bit(i / t)).collect();
    cat_low_first(&bits)
}

/// +m's entries (`affine_queue.rs`): `tail`, the next free entry, is taken by a load's
/// first slot or by an affine load (never in one cycle: `bundles::affine_load`), so an
/// entry counts as received from then on and its words are cleared then. Returns the
/// incoming slot's entry, the loads' first slots, and the words cleared.
fn take_abm(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (tail, alloc, rx): (&Value, &Value, &Receive),
    aload: &Bundle,
) -> (Value, Value, Value) {
    let (loads, t) = (p.sldq_loads, p.threads_per_lane());
    let first = alloc & &!&rx.partial;
    let held = m.reg("ldq_rx", tail.width(), 0u64);
    m.when(&first, |m| m.connect(&held, tail));
    let entry = mux(&rx.partial, &held, tail);
    let taken = &first | aload.valid();
    m.when(&taken, |m| m.connect(tail, &next_mod(tail, loads)));
    let clear = mux(&taken, &entry_words(loads, t, tail), &k(tail, 0, loads * t));
    (entry, first, clear)
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
    /// The SLDQs fed by `slot` and, with +m, `aload`.
    pub fn new(
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        (slot, aload): (&Bundle, Option<&Bundle>),
        rx: &Receive,
    ) -> Sldq {
        let (loads, t) = (p.sldq_loads, p.threads_per_lane());
        let n = loads * t;
        let lw = addr_width(loads as u64);
        let tail = m.reg("ldq_tail", lw, 0u64);
        let bits = slot.bits();
        let alloc = slot.valid() & &rx.load;
        let (entry, affine_entry, received, clear) = match aload {
            None => {
                let received = &alloc & bits.get("last").value();
                m.when(&received, |m| m.connect(&tail, &next_mod(&tail, loads)));
                (tail.clone(), None, vec![received], None)
            }
            Some(a) => {
                let (entry, first, clear) = take_abm(m, p, (&tail, &alloc, rx), a);
                (
                    entry,
                    Some(tail.clone()),
                    vec![first, a.valid().clone()],
                    Some(clear),
                )
            }
        };
        let none = k(&tail, 0, n);
        let reserve = mux(&alloc, &word(loads, t, &entry, &rx.c), &none);
        let idle_affine = match (aload, &affine_entry) {
            (Some(a), Some(e)) => fresh_affine(p, a, e),
            _ => vec![none.clone(); p.lanes as usize],
        };
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
            set: idle_affine.clone(),
            idle_affine,
            clear: clear.map_or_else(|| reserve.clone(), |c| &c | &reserve),
            reserve,
            active: bits.get("active").value().clone(),
            received,
            entry,
            affine_entry,
        }
    }

    fn word(&self, e: &Value, c: &Value) -> Value {
        word(self.loads, self.t, e, c)
    }

    /// The SLU pops the last slot of the head (with hit masks, of a pass).
    fn last_pop(&self, pop: &Value) -> Value {
        let w = self.pop_slot.width();
        pop & &self.pop_slot.eq(&k(pop, self.t as u64 - 1, w))
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
        let words: Vec<Value> = (0..BLOCK_BYTES / 4)
            .map(|w| line.slice(32 * w + 31, 32 * w))
            .collect();
        let offsets = wq.head("offset");
        for l in 0..self.data.len() {
            let off = offsets.slice(
                BLOCK_OFFSET_BITS * (l as u32 + 1) - 1,
                BLOCK_OFFSET_BITS * l as u32,
            );
            let which = onehot_decode(&off.slice(BLOCK_OFFSET_BITS - 1, 2), BLOCK_BYTES / 4);
            let word = shift_bytes(&onehot_mux(&which, &words), &off.slice(1, 0));
            self.write(m, l, (&en, &oh), &word);
        }
    }

    /// +m's wide responses (`wq.head("affine")`): through the rotation network
    /// (`rotate.rs`), every lane's element of each of its slots the line holds.
    pub fn fill_affine(
        &mut self,
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        wq: &Fifo,
        resp: &Bundle,
    ) {
        let en = resp.valid() & &wq.head("affine");
        let (base, size, line) = (wq.head("base"), wq.head("size"), wq.head("line"));
        let req = Request {
            base: &base,
            size: &size,
            line: &line,
        };
        let placed = place(p, resp.bits().get("data").value(), &req);
        let es = onehot_decode(&wq.head("ldq"), self.loads);
        for (l, slots) in placed.iter().enumerate() {
            let mut on = Vec::new();
            for e in 0..self.loads {
                for (c, (hit, value)) in slots.iter().enumerate() {
                    let here = &(&en & &es.bit(e)) & hit;
                    let w = &self.data[l][(e * self.t) as usize + c];
                    m.when(&here, |m| m.connect(w, value));
                    on.push(here);
                }
            }
            self.set[l] = &self.set[l] | &cat_low_first(&on);
        }
    }

    /// The private path's read answers (`private.rs`, with `avc`): when `en`, each
    /// thread i of `group` gets `values[i]` in entry `e` (lane i % lanes, slot i / lanes).
    pub fn fill_private(
        &mut self,
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        (en, e, group): (&Value, &Value, &Value),
        values: &[Value],
    ) {
        let es = onehot_decode(e, self.loads);
        for l in 0..p.lanes {
            let mut on = Vec::new();
            for e in 0..self.loads {
                for c in 0..self.t {
                    let i = c * p.lanes + l;
                    let here = &(en & &es.bit(e)) & &group.bit(i);
                    let w = &self.data[l as usize][(e * self.t + c) as usize];
                    m.when(&here, |m| m.connect(w, &values[i as usize]));
                    on.push(here);
                }
            }
            self.set[l as usize] = &self.set[l as usize] | &cat_low_first(&on);
        }
    }

    /// The done bits' update, `load` (`bundles::load_data`) and the pops (with hit masks,
    /// `hits` and the passes: `hit_mask.rs`); returns whether a whole load more fits
    /// beyond the rest of one being received.
    pub fn finish(
        self,
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        (rx, load): (&Receive, &Bundle),
        hits: Option<&Bundle>,
    ) -> Value {
        let n = self.loads * self.t;
        let t = self.t;
        let mut head_done = Vec::new();
        let entry_sel = onehot_decode(&self.head, self.loads);
        for (l, done) in self.done.iter().enumerate() {
            let idle = !&self.active.bit(l as u32);
            let fresh = &self.reserve & &idle.repeat(n);
            let next = &(&(done & &!&self.clear) | &fresh) | &self.set[l];
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
        let pop = load.get("pop").value();
        let (ready, finished) = match hits {
            None => {
                let ready = &c.or_r() & &all(&head_done);
                (ready, self.last_pop(pop))
            }
            Some(h) => {
                let last_pop = self.last_pop(pop);
                let view = hit_mask::View {
                    head: &self.head,
                    count: c,
                    done: &self.done,
                    reserve: &self.reserve,
                    clear: &self.clear,
                    idle_affine: &self.idle_affine,
                    active: &self.active,
                    last_pop: &last_pop,
                };
                hit_mask::passes(m, p, &view, load, h)
            }
        };
        m.connect(load.get("ready").value(), &ready);
        m.when(pop, |m| {
            m.connect(&self.pop_slot, &next_mod(&self.pop_slot, t))
        });
        m.when(&finished, |m| {
            m.connect(&self.head, &next_mod(&self.head, self.loads))
        });
        let added = self
            .received
            .iter()
            .fold(c.clone(), |acc, r| &acc + &r.zext(cw));
        m.connect(c, &(&added - &finished.zext(cw)));
        let wide = cw + 1;
        let mut held = c.zext(wide);
        if self.affine_entry.is_none() {
            // The load being received takes its entry at its last slot.
            held = &held + &rx.partial_load.zext(wide);
        }
        let held = &held + &k(c, 1, wide);
        held.le(&k(c, self.loads as u64, wide))
    }
}

/// Per lane, the done bits an arriving affine load (`aload`, entry `e`) sets at once:
/// its inactive threads' words.
fn fresh_affine(p: &FgsimtParams, aload: &Bundle, e: &Value) -> Vec<Value> {
    let (loads, t) = (p.sldq_loads, p.threads_per_lane());
    let es = onehot_decode(e, loads);
    let mask = aload.bits().get("mask").value();
    (0..p.lanes)
        .map(|l| {
            let bits: Vec<Value> = (0..loads * t)
                .map(|i| {
                    let idle = !&mask.bit((i % t) * p.lanes + l);
                    &(aload.valid() & &es.bit(i / t)) & &idle
                })
                .collect();
            cat_low_first(&bits)
        })
        .collect()
}
