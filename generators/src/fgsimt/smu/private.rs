//! The SMU's private path (with `avc`; seed 002, sections 2 and 3.2, Figure 3: warp
//! transactions on private memory go to the AVC beside the L1): the threads of a memory
//! slot that access their own stack (`mem_slot`'s `private`, `stack_check.rs`) leave the
//! SMRQs to this path, which turns the warp instruction's private threads into AVC
//! transactions (`avc/controller.rs`, the tile's `AvcController`).
//!
//! The mapping, spec 002's proposal as the golden model settles it
//! (`verification::fgsimt::avc::private`): word `w` of thread `t`'s stack is lane `t % n`
//! of block `w * W + t / n` (`n` the warp size, `W` the launch's warps), byte address
//! `block * 4n` in the AVC's own memory space (the tile's `avc_mem`).
//!
//! - **Gather** (G): each private thread's word index, byte, store data and byte mask,
//!   written as its slot arrives; with the warp instruction's op, size and SLDQ entry.
//! - **Process** (P): G moves here at the instruction's last slot (or, if P is busy,
//!   once it is free). Then, while P has threads left: the lowest one's word picks the
//!   group (every thread left with that word), the block's address is computed (a
//!   cycle), and the group goes as one transaction: a load's a read whose words fill
//!   the SLDQ entry, shifted by each thread's byte (`sldq.rs`); a word store's a write;
//!   a byte or halfword store's a read, its bytes merged into each word, then a write.
//! - **Space:** the SMU takes a whole instruction more only while P is free and G holds
//!   no finished instruction: so the instruction being received always finds P free
//!   at its end, or waits in G, and a new one finds G free.

use super::sldq::Sldq;
use super::{k, Receive};
use crate::blocks::cat_low_first;
use crate::fgsimt::avc::params::AvcParams;
use crate::fgsimt::l1::op;
use crate::fgsimt::params::FgsimtParams;
use hdl::helpers::{lowest_one, onehot_decode, onehot_mux, popcount};
use hdl::{mux, Bundle, ModuleBuilder, ResetValue, Value};

mod st {
    pub const IDLE: u64 = 0;
    pub const ADDR: u64 = 1;
    pub const REQ: u64 = 2;
    pub const WAIT: u64 = 3;
    pub const BITS: u32 = 2;
}

/// One buffer's per-thread fields (word index, byte, data, byte mask) and the
/// instruction's (store, log2 bytes, SLDQ entry, its warp's `tid_base`); `pend` has the
/// threads left.
struct Buffer {
    pend: Value,
    word: Vec<Value>,
    byte: Vec<Value>,
    data: Vec<Value>,
    bmask: Vec<Value>,
    store: Value,
    size: Value,
    entry: Value,
    tid_base: Value,
}

impl Buffer {
    fn new(m: &mut ModuleBuilder, p: &FgsimtParams, name: &str) -> Buffer {
        let n = p.warp_size as usize;
        let mut regs = |f: &str, w: u32| -> Vec<Value> {
            (0..n)
                .map(|i| m.reg(&format!("{name}_{f}{i}"), w, ResetValue::None))
                .collect()
        };
        let (word, byte, data, bmask) = (
            regs("word", 30),
            regs("byte", 2),
            regs("data", 32),
            regs("bmask", 4),
        );
        let lw = hdl::ir::addr_width(p.sldq_loads as u64);
        Buffer {
            pend: m.reg(&format!("{name}_pend"), p.warp_size, 0u64),
            word,
            byte,
            data,
            bmask,
            store: m.reg(&format!("{name}_store"), 1, ResetValue::None),
            size: m.reg(&format!("{name}_size"), 2, ResetValue::None),
            entry: m.reg(&format!("{name}_entry"), lw, ResetValue::None),
            tid_base: m.reg(&format!("{name}_tid_base"), 32, ResetValue::None),
        }
    }

    /// Every field but `pend`, in one list (per-thread fields first).
    fn fields(&self) -> Vec<&Value> {
        let per: Vec<&Value> = (0..self.word.len())
            .flat_map(|i| [&self.word[i], &self.byte[i], &self.data[i], &self.bmask[i]])
            .collect();
        per.into_iter()
            .chain([&self.store, &self.size, &self.entry, &self.tid_base])
            .collect()
    }
}

/// The path's outputs to the rest of the SMU.
pub struct Private {
    /// A whole instruction more fits (see the module's doc).
    pub space: Value,
    /// Nothing gathered, left or in flight (the controller idle too).
    pub idle: Value,
    /// The bytes the threads of a finished group asked for (for `stat_bytes`).
    pub bytes: Value,
}

/// The path fed by `slot` (`rx` its slot counter, `entry` its load's SLDQ entry), with
/// the launch's `threads`, sending on `req`, answered on `resp`, filling `ldq`;
/// `avc_idle` is the controller's.
pub fn private_path(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (slot, rx, entry): (&Bundle, &Receive, &Value),
    (threads, avc_idle): (&Value, &Value),
    (req, resp): (&Bundle, &Bundle),
    ldq: &mut Sldq,
) -> Private {
    let g = p.avc_cache();
    let state = m.reg("prv_state", st::BITS, st::IDLE);
    let is = |s: u64| state.eq(&k(&state, s, st::BITS));
    let gb = Buffer::new(m, p, "prv_g");
    let pb = Buffer::new(m, p, "prv_p");
    let waiting = m.reg("prv_waiting", 1, false);
    let p_free = &!&pb.pend.or_r() & &is(st::IDLE);

    let (g_next, arrived) = gather(p, (slot, rx, entry), &gb);
    let ends = slot.valid() & slot.bits().get("last").value();
    let finished = &(&ends & &arrived.or_r()) | &waiting;
    let transfer = &finished & &p_free;
    m.connect(&waiting, &(&finished & &!&p_free));
    m.connect(
        &gb.pend,
        &mux(&transfer, &k(&gb.pend, 0, p.warp_size), &arrived),
    );
    for (r, v) in gb.fields().into_iter().zip(&g_next) {
        m.connect(r, v);
    }
    m.when(&transfer, |m| {
        m.connect(&pb.pend, &arrived);
        for (r, v) in pb.fields().into_iter().zip(&g_next) {
            m.connect(r, v);
        }
    });

    let group = m.reg("prv_group", p.warp_size, ResetValue::None);
    let merge = m.reg("prv_merge", 1, false);
    let addr = m.reg("prv_addr", 32, ResetValue::None);
    let lead = lowest_one(&pb.pend);
    let w0 = onehot_mux(&lead, &pb.word);
    let same: Vec<Value> = pb.word.iter().map(|w| w.eq(&w0)).collect();
    let pick = &is(st::IDLE) & &pb.pend.or_r();
    let chosen = m.reg("prv_word", 30, ResetValue::None);
    m.when(&pick, |m| {
        m.connect(&group, &(&pb.pend & &cat_low_first(&same)));
        m.connect(&chosen, &w0);
        m.connect(&merge, &k(&merge, 0, 1));
    });
    m.when(&is(st::ADDR), |m| {
        m.connect(&addr, &block_addr(&g, &chosen, &pb.tid_base, threads))
    });

    let bits = req.bits();
    let whole = pb.size.eq(&k(&pb.size, 2, 2));
    let write = &pb.store & &(&whole | &merge);
    m.connect(req.valid(), &is(st::REQ));
    m.connect(bits.get("write").value(), &write);
    m.connect(bits.get("addr").value(), &addr);
    m.connect(bits.get("mask").value(), &group);
    m.connect(bits.get("data").value(), &cat_low_first(&pb.data));
    let fire = req.valid() & req.ready();

    let answered = &is(st::WAIT) & resp.valid();
    let words: Vec<Value> = (0..g.threads)
        .map(|i| resp.bits().get("data").value().slice(32 * i + 31, 32 * i))
        .collect();
    let read_back = &answered & &(&pb.store & &!&(&whole | &merge));
    merge_bytes(m, &pb, (&read_back, &group), &words);
    let load = &answered & &!&pb.store;
    ldq.fill_private(m, p, (&load, &pb.entry, &group), &shifted(&pb, &words));
    let done = &answered & &!&read_back;
    m.when(&read_back, |m| m.connect(&merge, &k(&merge, 1, 1)));
    m.when(&done, |m| m.connect(&pb.pend, &(&pb.pend & &!&group)));

    let next = mux(
        &pick,
        &k(&state, st::ADDR, st::BITS),
        &mux(
            &is(st::ADDR),
            &k(&state, st::REQ, st::BITS),
            &mux(
                &fire,
                &k(&state, st::WAIT, st::BITS),
                &mux(
                    &read_back,
                    &k(&state, st::REQ, st::BITS),
                    &mux(&done, &k(&state, st::IDLE, st::BITS), &state),
                ),
            ),
        ),
    );
    m.connect(&state, &next);

    let count = popcount(&group).zext(32);
    let bytes = mux(&done, &count.dshl(&pb.size), &k(&count, 0, 32));
    let quiet = &(&p_free & &!&waiting) & &!&gb.pend.or_r();
    Private {
        space: &p_free & &!&waiting,
        idle: &quiet & avc_idle,
        bytes,
    }
}

/// G's next fields (in `Buffer::fields` order) with this cycle's slot written, and its
/// next `pend` (the threads gathered so far, this slot's included).
fn gather(
    p: &FgsimtParams,
    (slot, rx, entry): (&Bundle, &Receive, &Value),
    gb: &Buffer,
) -> (Vec<Value>, Value) {
    let (lanes, t) = (p.lanes, p.threads_per_lane());
    let bits = slot.bits();
    let private = bits.get("private").value();
    let slots = onehot_decode(&rx.c, t);
    let mut next = Vec::new();
    let mut here_bits = Vec::new();
    for i in 0..p.warp_size {
        let l = i % lanes;
        let here = &(slot.valid() & &slots.bit(i / lanes)) & &private.bit(l);
        let lane = bits.get("lane").index(l as usize);
        let off = lane.get("addr").value();
        let i = i as usize;
        next.push(mux(&here, &off.slice(31, 2), &gb.word[i]));
        next.push(mux(&here, &off.slice(1, 0), &gb.byte[i]));
        next.push(mux(&here, lane.get("data").value(), &gb.data[i]));
        next.push(mux(&here, lane.get("mask").value(), &gb.bmask[i]));
        here_bits.push(here);
    }
    let v = slot.valid();
    let opv = bits.get("op").value();
    let size = bits.get("size").value();
    next.push(mux(v, &opv.eq(&k(opv, op::STORE, op::BITS)), &gb.store));
    next.push(mux(v, size, &gb.size));
    next.push(mux(v, entry, &gb.entry));
    next.push(mux(v, bits.get("tid_base").value(), &gb.tid_base));
    (next, &gb.pend | &cat_low_first(&here_bits))
}

/// The block's byte address: `(word * W + warp) * 4n`, `W` the launch's warps.
fn block_addr(g: &AvcParams, word: &Value, tid_base: &Value, threads: &Value) -> Value {
    let lg = g.threads.trailing_zeros();
    let warp = tid_base.shr(lg);
    let warps = (threads + &k(threads, g.threads as u64 - 1, 32)).shr(lg);
    let block = &word.zext(32).mul(&warps).slice(31, 0) + &warp;
    block.shl(g.offset_bits())
}

/// A byte or halfword store's read: each group thread's word with its store bytes
/// merged in, into P's data.
fn merge_bytes(m: &mut ModuleBuilder, pb: &Buffer, (en, group): (&Value, &Value), words: &[Value]) {
    for (i, old) in words.iter().enumerate() {
        let bm = &pb.bmask[i];
        let bytes: Vec<Value> = (0..4).map(|b| bm.bit(b).repeat(8)).collect();
        let keep = cat_low_first(&bytes);
        let merged = &(old & &!&keep) | &(&pb.data[i] & &keep);
        m.when(&(en & &group.bit(i as u32)), |m| {
            m.connect(&pb.data[i], &merged)
        });
    }
}

/// Each thread's word shifted right by its byte (a load's data as the SLDQ holds it).
fn shifted(pb: &Buffer, words: &[Value]) -> Vec<Value> {
    words
        .iter()
        .zip(&pb.byte)
        .map(|(w, b)| w.dshr(&hdl::cat(&[b, &k(b, 0, 3)])))
        .collect()
}
