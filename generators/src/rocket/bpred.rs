//! Branch predictors of the front end, built into the core's module.
//!
//! - `Btb`: a fully associative branch target buffer consulted by fetch with the pc of
//!   each arriving instruction; a hit on a jump, or on a branch whose 2-bit counter says
//!   taken, sends fetch to the stored target. Taken branches and jumps allocate entries
//!   (round-robin replacement); resolved branches train the counters.
//! - `Bht`: a table of 2-bit counters indexed by pc[2..], consulted in decode; a jal, or
//!   a branch predicted taken, redirects fetch from decode (one bubble).
//!
//! Both are trained from registers holding the resolution of execute, where branches
//! resolve, a cycle later; a wrong prediction costs the same redirect as no prediction.

use hdl::helpers::onehot_mux;
use hdl::{cat, mux, Bits, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// Saturating 2-bit counter step.
fn count(c: &Value, taken: &Value) -> Value {
    let k = |v: u64| c.konst(Bits::from_u64(2, v));
    let up = mux(&c.eq(&k(3)), c, &(c + &k(1)));
    let down = mux(&c.eq(&k(0)), c, &(c - &k(1)));
    mux(taken, &up, &down)
}

/// A resolved branch or jump, from execute (through registers in the core).
pub struct Resolution<'a> {
    pub valid: &'a Value,
    pub pc: &'a Value,
    pub target: &'a Value,
    pub taken: &'a Value,
    /// An unconditional jump (jal): always taken.
    pub jump: &'a Value,
}

pub struct Btb {
    valid: Vec<Value>,
    tag: Vec<Value>,
    target: Vec<Value>,
    counter: Vec<Value>,
    jump: Vec<Value>,
    next: Value,
}

impl Btb {
    /// `entries` entries for pcs of `xlen` bits.
    pub fn new(m: &mut ModuleBuilder, entries: u32, xlen: u32) -> Btb {
        // An entry's tag, target, counter and kind are only observed while it is valid:
        // no reset.
        let reg = |m: &mut ModuleBuilder, n: &str, w: u32, reset: fn() -> ResetValue| {
            (0..entries)
                .map(|i| m.reg(&format!("btb_{n}{i}"), w, reset()))
                .collect::<Vec<Value>>()
        };
        Btb {
            valid: reg(m, "valid", 1, || ResetValue::Int(0)),
            tag: reg(m, "tag", xlen - 2, || ResetValue::None),
            target: reg(m, "target", xlen, || ResetValue::None),
            counter: reg(m, "counter", 2, || ResetValue::None),
            jump: reg(m, "jump", 1, || ResetValue::None),
            next: m.reg("btb_next", hdl::ir::addr_width(entries as u64), 0u64),
        }
    }

    fn hits(&self, pc: &Value) -> Vec<Value> {
        let tag = pc.slice(pc.width() - 1, 2);
        self.valid
            .iter()
            .zip(&self.tag)
            .map(|(v, t)| v & &t.eq(&tag))
            .collect()
    }

    /// Whether some entry holds `pc`.
    pub fn hit(&self, pc: &Value) -> Value {
        let hits = self.hits(pc);
        hits[1..].iter().fold(hits[0].clone(), |a, h| &a | h)
    }

    /// (predicted taken, target) for the instruction at `pc`.
    pub fn predict(&self, pc: &Value) -> (Value, Value) {
        // At most one entry holds a pc (an entry is allocated only on a miss): an
        // AND-OR selection, not a chain of multiplexers as deep as the table.
        let hits = self.hits(pc);
        let refs: Vec<&Value> = hits.iter().rev().collect();
        let sel = cat(&refs);
        let says: Vec<Value> = (0..hits.len())
            .map(|i| &self.jump[i] | &self.counter[i].bit(1))
            .collect();
        let taken = onehot_mux(&sel, &says);
        (taken, onehot_mux(&sel, &self.target))
    }

    pub fn train(&self, m: &mut ModuleBuilder, r: &Resolution) {
        let hits = self.hits(r.pc);
        let any = self.hit(r.pc);
        for (i, h) in hits.iter().enumerate() {
            m.when(&(r.valid & h), |m| {
                m.connect(&self.counter[i], &count(&self.counter[i], r.taken));
                m.connect(&self.target[i], r.target);
            });
        }
        let n = self.valid.len() as u64;
        let w = self.next.width();
        let allocate = &(r.valid & &!&any) & r.taken;
        for i in 0..self.valid.len() {
            let here = self.next.eq(&self.next.konst(Bits::from_u64(w, i as u64)));
            m.when(&(&allocate & &here), |m| {
                m.connect(&self.valid[i], &here.konst(Bits::from_u64(1, 1)));
                m.connect(&self.tag[i], &r.pc.slice(r.pc.width() - 1, 2));
                m.connect(&self.target[i], r.target);
                m.connect(&self.counter[i], &here.konst(Bits::from_u64(2, 2)));
                m.connect(&self.jump[i], r.jump);
            });
        }
        let last = self.next.eq(&self.next.konst(Bits::from_u64(w, n - 1)));
        let next = mux(
            &last,
            &self.next.konst(Bits::zero(w)),
            &(&self.next + &self.next.konst(Bits::from_u64(w, 1))),
        );
        m.when(&allocate, |m| m.connect(&self.next, &next));
    }
}

pub struct Bht {
    counter: Vec<Value>,
    index_bits: u32,
}

impl Bht {
    /// `entries` is a power of two.
    pub fn new(m: &mut ModuleBuilder, entries: u32) -> Bht {
        Bht {
            counter: (0..entries)
                .map(|i| m.reg(&format!("bht{i}"), 2, 1u64))
                .collect(),
            index_bits: entries.trailing_zeros(),
        }
    }

    fn index(&self, pc: &Value) -> Value {
        pc.slice(self.index_bits + 1, 2)
    }

    /// Whether the branch at `pc` is predicted taken: the counter's upper bit, shifted
    /// out of the vector of all of them (a chain of comparisons would nest as deep as the
    /// table is long, which Yosys refuses for a thousand entries).
    pub fn predict(&self, pc: &Value) -> Value {
        let uppers: Vec<Value> = self.counter.iter().rev().map(|c| c.bit(1)).collect();
        let refs: Vec<&Value> = uppers.iter().collect();
        cat(&refs).dshr(&self.index(pc)).bit(0)
    }

    /// Trains on a resolved conditional branch (`r.jump` clear).
    pub fn train(&self, m: &mut ModuleBuilder, r: &Resolution) {
        let idx = self.index(r.pc);
        let branch = r.valid & &!r.jump;
        for (i, c) in self.counter.iter().enumerate() {
            let here = idx.eq(&idx.konst(Bits::from_u64(self.index_bits, i as u64)));
            m.when(&(&branch & &here), |m| m.connect(c, &count(c, r.taken)));
        }
    }
}

/// The BTB alone as a module (for unit tests and for a front end that instantiates it):
/// In `lookup_pc` -> Out `hit`, `target`, `taken`; In `update_valid`, `update_pc`,
/// `update_target`, `update_taken`, `update_jump`.
pub fn btb_module(entries: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Btb");
    let pc = m.input("lookup_pc", 64);
    let update = Update::ports(&mut m);
    let target = m.input("update_target", 64);
    let jump = m.input("update_jump", 1);
    let (hit, taken, predicted) = (
        m.output("hit", 1),
        m.output("taken", 1),
        m.output("target", 64),
    );
    let btb = Btb::new(&mut m, entries, 64);
    let (t, tgt) = btb.predict(&pc);
    m.connect(&hit, &btb.hit(&pc));
    m.connect(&taken, &t);
    m.connect(&predicted, &tgt);
    btb.train(&mut m, &update.resolution(&target, &jump));
    m.finish()
}

/// The BHT alone as a module: In `lookup_pc` -> Out `taken`; In `update_valid`,
/// `update_pc`, `update_taken` (conditional branches only).
pub fn bht_module(entries: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Bht");
    let pc = m.input("lookup_pc", 64);
    let update = Update::ports(&mut m);
    let taken = m.output("taken", 1);
    let bht = Bht::new(&mut m, entries);
    m.connect(&taken, &bht.predict(&pc));
    let (no_target, no_jump) = (pc.konst(Bits::zero(64)), pc.konst(Bits::zero(1)));
    bht.train(&mut m, &update.resolution(&no_target, &no_jump));
    m.finish()
}

/// The update ports the two modules share.
struct Update {
    valid: Value,
    pc: Value,
    taken: Value,
}

impl Update {
    fn ports(m: &mut ModuleBuilder) -> Update {
        Update {
            valid: m.input("update_valid", 1),
            pc: m.input("update_pc", 64),
            taken: m.input("update_taken", 1),
        }
    }

    fn resolution<'a>(&'a self, target: &'a Value, jump: &'a Value) -> Resolution<'a> {
        Resolution {
            valid: &self.valid,
            pc: &self.pc,
            target,
            taken: &self.taken,
            jump,
        }
    }
}
