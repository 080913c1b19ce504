//! The coalescer (seed 000, section 1.5: "requests to the same address or consecutive
//! addresses across lanes can be coalesced into a single wide access ... only when cache
//! line aligned"; docs/fgsimt-engine.md, "SMU"): only across the lanes of one thread
//! group (slot), never across slots or warps.
//!
//! A slot is wide when its op is a plain load or store, at least one lane is active, every
//! active lane's address lies in one line, and that line is outside the uncached region (the D$ serves wide accesses from its banks only). The
//! decision is taken as the slot enters the SMRQs (`classify`); the request goes when
//! every lane's SMRQ head is the slot (`wide_port`): the active lanes' line,
//! and for a store each active lane's data and byte mask at its word (where two lanes
//! write one byte, the higher lane's, the later thread's, is kept).

use super::smrq::Smrq;
use super::{all, cat_low_first, k};
use crate::fgsimt::l1::{op, BLOCK_OFFSET_BITS};
use crate::fgsimt::params::{FgsimtParams, BLOCK_BYTES};
use hdl::{mux, Bundle, ModuleBuilder, Value};

/// The OR of the active lanes' line addresses (`addr` without its offset bits): their
/// line when they share one; when they do not, some active lane's line differs from it
/// (were every one equal to the OR, all would be equal). An AND-OR, not a priority
/// chain, on the path from `slot` into the SMRQs.
fn common_line(active: &[Value], addrs: &[Value]) -> Value {
    let lines: Vec<Value> = active
        .iter()
        .zip(addrs)
        .map(|(a, addr)| &a.repeat(32 - BLOCK_OFFSET_BITS) & &addr.slice(31, BLOCK_OFFSET_BITS))
        .collect();
    lines[1..].iter().fold(lines[0].clone(), |acc, l| &acc | l)
}

/// The line at `line` (an address without its offset bits) lies outside the uncached
/// region.
fn cacheable(p: &FgsimtParams, line: &Value) -> Value {
    if p.uncached_size == 0 {
        return k(line, 1, 1);
    }
    let start = line.zext(34).shl(BLOCK_OFFSET_BITS);
    let c = |v: u64| k(&start, v, 34);
    let end = &start + &c(BLOCK_BYTES as u64);
    let base = c(p.uncached_base);
    &end.le(&base) | &start.ge(&(&base + &c(p.uncached_size)))
}

/// Whether the incoming `slot` (`bundles::mem_slot`) goes as one wide request.
pub fn classify(p: &FgsimtParams, slot: &Bundle) -> Value {
    let bits = slot.bits();
    let opv = bits.get("op").value();
    let active_v = bits.get("active").value();
    let active: Vec<Value> = (0..p.lanes).map(|l| active_v.bit(l)).collect();
    let addrs: Vec<Value> = (0..p.lanes as usize)
        .map(|l| bits.get("lane").index(l).get("addr").value().clone())
        .collect();
    let line = common_line(&active, &addrs);
    let same: Vec<Value> = active
        .iter()
        .zip(&addrs)
        .map(|(a, addr)| &!a | &addr.slice(31, BLOCK_OFFSET_BITS).eq(&line))
        .collect();
    let plain = opv.le(&k(opv, op::STORE, op::BITS));
    let some = active_v.or_r();
    &(&(&plain & &some) & &all(&same)) & &cacheable(p, &line)
}

/// Drives the wide request from the SMRQ heads, or with +m from `affine` (the affine
/// queue's request valid and line address; never both valid: `affine_queue.rs`);
/// returns the SMRQ heads' request's acceptance.
pub fn wide_port(
    m: &mut ModuleBuilder,
    queues: &[Smrq],
    req: &Bundle,
    affine: Option<(&Value, &Value)>,
) -> Value {
    let heads: Vec<Value> = queues.iter().map(Smrq::wide_head).collect();
    let go = all(&heads);
    let field = |n: &str| -> Vec<Value> { queues.iter().map(|q| q.fifo.head(n)).collect() };
    let (active, addrs) = (field("active"), field("addr"));
    let line = common_line(&active, &addrs);
    let bits = req.bits();
    let mut addr = line.cat(&k(&line, 0, BLOCK_OFFSET_BITS));
    let opv = queues[0].fifo.head("op");
    let mut write = opv.eq(&k(&opv, op::STORE, op::BITS));
    let mut valid = go.clone();
    if let Some((ago, aaddr)) = affine {
        valid = &valid | ago;
        addr = mux(ago, aaddr, &addr);
        write = &write & &!ago;
    }
    m.connect(req.valid(), &valid);
    m.connect(bits.get("addr").value(), &addr);
    m.connect(bits.get("write").value(), &write);
    let (data, mask) = merge(&active, &addrs, &field("data"), &field("mask"));
    m.connect(bits.get("data").value(), &data);
    m.connect(bits.get("mask").value(), &mask);
    let tag = bits.get("tag").value();
    m.connect(tag, &k(&go, 0, tag.width()));
    &go & req.ready()
}

/// The line's data and byte mask from each active lane's word: lane by lane, a lane's
/// bytes replace the lower lanes' at the same place.
fn merge(active: &[Value], addrs: &[Value], data: &[Value], mask: &[Value]) -> (Value, Value) {
    let words = BLOCK_BYTES / 4;
    let mut line_data = Vec::new();
    let mut line_mask = Vec::new();
    for w in 0..words {
        let mut d = k(&data[0], 0, 32);
        let mut be = k(&mask[0], 0, 4);
        for l in 0..active.len() {
            let word = addrs[l].slice(BLOCK_OFFSET_BITS - 1, 2);
            let here = &active[l] & &word.eq(&k(&word, w as u64, BLOCK_OFFSET_BITS - 2));
            let mine = &here.repeat(4) & &mask[l];
            let bytes: Vec<Value> = (0..4).map(|b| mine.bit(b).repeat(8)).collect();
            let keep = cat_low_first(&bytes);
            d = &(&d & &!&keep) | &(&data[l] & &keep);
            be = &be | &mine;
        }
        line_data.push(d);
        line_mask.push(be);
    }
    (cat_low_first(&line_data), cat_low_first(&line_mask))
}
