//! A lane's SMRQ (seed 000, Figure 3: "SMRQ"; docs/fgsimt-engine.md, "SMU"): the lane's
//! entry of every memory slot, in program order, `smrq_insts * threads_per_lane` deep.
//! Every lane enqueues in the same cycle (inactive lanes too, so that the heads of a
//! wide slot meet); each entry carries the slot's shared fields, whether the slot is
//! wide (`coalesce.rs`) and the SLDQ entry and slot its data go to.
//!
//! The head of a narrow slot leaves on its own: on the lane's narrow port when active
//! (once the D$ accepts it), at once when inactive. The head of a wide slot waits for the
//! wide request to be accepted. A lane's head can be a wide slot only when no other
//! lane is past that slot (leaving it needs every lane there), so the wide request is
//! due when every lane's head is wide. With +m each entry carries its instruction's
//! stamp, and a head leaves no way while an affine load before it waits
//! (`affine_queue.rs`).

use super::affine_queue::stamp_bits;
use super::{k, Fifo, Layout, Receive};
use crate::fgsimt::params::{Affine, FgsimtParams};
use hdl::ir::addr_width;
use hdl::{Bundle, HdlErrors, ModuleBuilder, Value};

pub struct Smrq {
    pub fifo: Fifo,
    /// The head may leave: valid, and with +m no affine load before it waits
    /// (`affine_queue.rs`).
    head_valid: Value,
    /// Entries, with the rest of the instruction being received, leave room for T more.
    depth: u32,
}

/// An entry's fields; with +m also the instruction's stamp (`affine_queue.rs`).
fn layout(p: &FgsimtParams) -> Layout {
    let mut fields = vec![
        ("addr", 32),
        ("data", 32),
        ("mask", 4),
        ("op", 4),
        ("size", 2),
        ("active", 1),
        ("wide", 1),
        ("ldq", addr_width(p.sldq_loads as u64)),
        ("slot", addr_width(p.threads_per_lane() as u64)),
    ];
    if p.affine == Affine::Abm {
        fields.push(("stamp", stamp_bits(p)));
    }
    Layout(fields)
}

impl Smrq {
    /// Lane `l`'s SMRQ, fed by `slot`; `ldq` is the SLDQ entry of the incoming load,
    /// `stamp` its stamp with +m.
    pub fn new(
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        l: usize,
        slot: &Bundle,
        (rx, ldq, wide, stamp): (&Receive, &Value, &Value, Option<&Value>),
    ) -> Result<Smrq, HdlErrors> {
        let depth = p.smrq_insts * p.threads_per_lane();
        let fifo = Fifo::new(m, p, &format!("smrq{l}"), depth, layout(p))?;
        let bits = slot.bits();
        let lane = bits.get("lane").index(l);
        let f = |b: &Bundle, n: &str| b.get(n).value().clone();
        let mut values = vec![
            f(lane, "addr"),
            f(lane, "data"),
            f(lane, "mask"),
            f(bits, "op"),
            f(bits, "size"),
            f(bits, "active").bit(l as u32),
            wide.clone(),
            ldq.clone(),
            rx.c.clone(),
        ];
        values.extend(stamp.cloned());
        fifo.push(m, slot.valid(), &values);
        Ok(Smrq {
            head_valid: fifo.valid(),
            fifo,
            depth,
        })
    }

    /// Holds the head while `open` is low (+m: an earlier affine load waits).
    pub fn gate(&mut self, open: &Value) {
        self.head_valid = &self.head_valid & open;
    }

    /// The head is a wide slot.
    pub fn wide_head(&self) -> Value {
        &self.head_valid & &self.fifo.head("wide")
    }

    /// Drives the lane's narrow request from a narrow head and pops the head when it
    /// leaves (narrow request accepted, inactive, or `wide_fire`); returns the narrow
    /// request's acceptance.
    pub fn narrow_port(&self, m: &mut ModuleBuilder, req: &Bundle, wide_fire: &Value) -> Value {
        let q = &self.fifo;
        let narrow = &self.head_valid & &!&q.head("wide");
        let active = q.head("active");
        let go = &narrow & &active;
        m.connect(req.valid(), &go);
        let bits = req.bits();
        for f in ["addr", "op", "data", "mask", "size"] {
            m.connect(bits.get(f).value(), &q.head(f));
        }
        let tag = bits.get("tag").value();
        m.connect(tag, &k(&go, 0, tag.width()));
        let fire = &go & req.ready();
        let drop = &narrow & &!&active;
        q.pop(m, &(&(&fire | &drop) | wide_fire));
        fire
    }

    /// Room for a whole warp instruction beyond the entries held and the slots still to
    /// come of the one being received.
    pub fn room(&self, p: &FgsimtParams, rx: &Receive) -> Value {
        let t = p.threads_per_lane() as u64;
        let count = self.fifo.count();
        let w = addr_width(2 * self.depth as u64 + 1) + 1;
        let c = rx.c.zext(w);
        let rest = &k(&c, t, w) - &c;
        let coming = hdl::mux(&rx.partial, &rest, &k(&c, 0, w));
        let need = &(&count.zext(w) + &coming) + &k(&c, t, w);
        need.le(&k(&c, self.depth as u64, w))
    }
}
