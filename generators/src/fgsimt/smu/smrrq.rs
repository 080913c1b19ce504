//! The SMRRQs (seed 000, Figure 3: "SMRRQ", the SIMT memory response reorder queue that
//! "ensures that data is written back in order"; docs/fgsimt-engine.md, "SMU"): one per
//! D$ port, each lane's narrow port and the wide port, holding that port's requests in
//! flight in request order (the L1 answers each port in request order). An entry says
//! whether the response carries data for the SLDQ (not for a store), the SLDQ entry and
//! slot it fills, and the byte offsets within the word (narrow) or the line (wide, one a
//! lane) that the response's word is shifted by. Each is `l1::PORT_ENTRIES` deep, the
//! requests the L1 keeps in flight a port, so it never overflows; their occupancy is the
//! SMU's in-flight count.

use super::affine_queue::AffineQueue;
use super::rotate::LINE_INDEX_BITS;
use super::smrq::Smrq;
use super::{cat_low_first, k, Fifo, Layout};
use crate::fgsimt::l1::{op, BLOCK_OFFSET_BITS, PORT_ENTRIES};
use crate::fgsimt::params::FgsimtParams;
use hdl::ir::addr_width;
use hdl::{mux, Bundle, HdlErrors, ModuleBuilder, Value};

/// The fields every SMRRQ entry has, then the byte offsets of `offset_bits`.
fn layout(p: &FgsimtParams, offset_bits: u32) -> Layout {
    Layout(vec![
        ("load", 1),
        ("ldq", addr_width(p.sldq_loads as u64)),
        ("slot", addr_width(p.threads_per_lane() as u64)),
        ("offset", offset_bits),
    ])
}

/// Whether the head of `q` returns data (its op is not a store).
fn returns_data(q: &Smrq) -> Value {
    let opv = q.fifo.head("op");
    opv.ne(&k(&opv, op::STORE, op::BITS))
}

/// Lane `l`'s narrow port's SMRQ: pushed when the request of `q`'s head is accepted
/// (`fire`), popped by each response.
pub fn narrow(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    l: usize,
    (q, fire): (&Smrq, &Value),
    resp: &Bundle,
) -> Result<Fifo, HdlErrors> {
    let f = Fifo::new(m, p, &format!("smrrq{l}"), PORT_ENTRIES, layout(p, 2))?;
    let values = [
        returns_data(q),
        q.fifo.head("ldq"),
        q.fifo.head("slot"),
        q.fifo.head("addr").slice(1, 0),
    ];
    f.push(m, fire, &values);
    f.pop(m, resp.valid());
    Ok(f)
}

/// The wide port's SMRRQ: pushed when the wide request of the SMRQ heads is accepted
/// (`fire`), with each lane's byte offset in the line; popped by each response. With +m
/// also when the affine queue's request is accepted (`affine`: its acceptance and the
/// queue): an entry then says `affine`, with the load's `base`, `size` and `line` for
/// the rotation network (`rotate.rs`), and not `load` (the SLDQ's per-lane path).
pub fn wide(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (queues, fire): (&[Smrq], &Value),
    resp: &Bundle,
    affine: Option<(&Value, &AffineQueue)>,
) -> Result<Fifo, HdlErrors> {
    let mut fields = layout(p, BLOCK_OFFSET_BITS * p.lanes);
    if affine.is_some() {
        fields.0.extend([
            ("affine", 1),
            ("base", BLOCK_OFFSET_BITS),
            ("size", 2),
            ("line", LINE_INDEX_BITS),
        ]);
    }
    let f = Fifo::new(m, p, "smrrq_w", PORT_ENTRIES, fields)?;
    let offsets: Vec<Value> = queues
        .iter()
        .map(|q| q.fifo.head("addr").slice(BLOCK_OFFSET_BITS - 1, 0))
        .collect();
    let head = &queues[0].fifo;
    let mut values = vec![
        returns_data(&queues[0]),
        head.head("ldq"),
        head.head("slot"),
        cat_low_first(&offsets),
    ];
    let mut push = fire.clone();
    if let Some((afire, aq)) = affine {
        values[0] = &values[0] & &!afire;
        values[1] = mux(afire, &aq.head("ldq"), &values[1]);
        values.extend([
            afire.clone(),
            aq.head("base"),
            aq.head("size"),
            aq.line.clone(),
        ]);
        push = &push | afire;
    }
    f.push(m, &push, &values);
    f.pop(m, resp.valid());
    Ok(f)
}
