//! `AvcController`: the AVC and the L1 beside it (seed 002, Figure 3, Algorithms 1 and
//! 2, sections 3.3-3.7; spec 002 section 5.3), one warp transaction at a time: a read
//! or a write of one block of `threads` words (thread i's word at `addr + 4i`) under an
//! activity mask. The golden model is `verification::fgsimt::avc::controller`, which
//! settles the gaps of the paper's algorithms; this block performs its steps in its
//! order, so the two make the same memory accesses:
//! - **Read:** the AVC's valid threads are decoded (a hit); the rest, if any, are
//!   replayed: an L1 hit, else a fill whose words (overlaid with the L1's) are encoded
//!   into the AVC or, generic, filled into the L1 where neither cache holds them.
//! - **Write:** encoded, into the AVC (merged with the same (base, stride), after a
//!   conflicting vector's eviction) and dropped from the L1; generic, into the L1
//!   (write-validate) and cleared from the AVC.
//! - **Evicting a vector** writes back its decoded words (when dirty) merged with the
//!   L1's of the block, and invalidates that L1 line; **an AVC line** evicts each live
//!   vector; **an L1 line** writes back its dirty words.
//! - **Flush** evicts every AVC line, then every L1 line.
//!
//! Arrays in `arrays.rs`, replacement in `plru.rs` (both caches), the encoder and the
//! decoder (`encode.rs`, `decode.rs`) one each, shared by the steps.
//!
//! A request's mask has at least one thread (the engine sends none for an empty one).
//!
//! Ports: `req` (decoupled: `write`, `addr`, `mask`, `data`), `resp` (valid: `data`, the
//! read threads' words, others 0), `mem_req` (decoupled: `write`, `addr`, `mask`,
//! `data`; a write has no answer), `mem_resp` (valid: `data`), `flush` (held until
//! `flushed`), `flushed`, `discard` (a cycle, taken while idle: both caches emptied at
//! once, nothing written back), `idle`, and the events `ev_replay`, `ev_conflict`, `ev_merge`,
//! `ev_line_evict` (one cycle each).

use super::arrays::{Arrays, Reads};
use super::decode::decoder;
use super::encode::encoder;
use super::params::AvcParams;
use super::CODE_BITS;
use crate::blocks::{any, bit_at, cat_low_first, k};
use crate::fgsimt::l1::uint;
use crate::fgsimt::plru::Plru;
use hdl::helpers::{lowest_one, onehot_decode, onehot_encode, onehot_mux, priority_encode};
use hdl::{cat, mux, Bundle, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

mod st {
    pub const IDLE: u64 = 0;
    pub const LOOK: u64 = 1;
    pub const FILL_REQ: u64 = 2;
    pub const FILL_WAIT: u64 = 3;
    pub const DECIDE_FILL: u64 = 4;
    pub const AVC_ALLOC: u64 = 5;
    pub const EV_READ: u64 = 6;
    pub const EV_WRITE: u64 = 7;
    pub const TAG_WRITE: u64 = 8;
    pub const VEC_WRITE: u64 = 9;
    pub const L1_ALLOC: u64 = 10;
    pub const L1_EV_READ: u64 = 11;
    pub const L1_EV_WRITE: u64 = 12;
    pub const L1_WRITE: u64 = 13;
    pub const RESP: u64 = 14;
    pub const FL_TAG: u64 = 15;
    pub const FL_LINE: u64 = 16;
    pub const VEC_LOOP: u64 = 17;
    pub const FL_NEXT: u64 = 18;
    pub const FL_L1: u64 = 19;
    pub const FL_L1_NEXT: u64 = 20;
    pub const FLUSHED: u64 = 21;
    pub const W_DECIDE: u64 = 22;
    pub const ENCODE: u64 = 23;
    pub const BITS: u32 = 5;
}

/// A block transaction (the request and the memory request have this shape).
pub fn transaction(g: &AvcParams) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("write", 1),
        uint("addr", 32),
        uint("mask", g.threads),
        uint("data", g.data_bits()),
    ]))
}

/// A block's words (the response and the memory response).
pub fn words(g: &AvcParams) -> Shape {
    Shape::valid(Shape::bundle(vec![uint("data", g.data_bits())]))
}

/// Word-wise select: thread i's word of `a` where `sel` bit i is set, else of `b`.
fn pick(sel: &Value, a: &Value, b: &Value, n: u32) -> Value {
    let words: Vec<Value> = (0..n)
        .map(|i| {
            mux(
                &sel.bit(i),
                &a.slice(32 * i + 31, 32 * i),
                &b.slice(32 * i + 31, 32 * i),
            )
        })
        .collect();
    cat_low_first(&words)
}

/// A vector slot's fields.
#[derive(Clone)]
struct Slot {
    base: Value,
    code: Value,
    valid: Value,
    dirty: Value,
}

impl Slot {
    fn unpack(e: &Value, n: u32) -> Slot {
        Slot {
            base: e.slice(31, 0),
            code: e.slice(31 + CODE_BITS, 32),
            valid: e.slice(31 + CODE_BITS + n, 32 + CODE_BITS),
            dirty: e.bit(32 + CODE_BITS + n),
        }
    }
    fn pack(&self) -> Value {
        cat(&[&self.dirty, &self.valid, &self.code, &self.base])
    }
}

/// An L1 line's meta fields.
struct Meta {
    tag: Value,
    wvalid: Value,
    wdirty: Value,
}

impl Meta {
    fn unpack(e: &Value, g: &AvcParams) -> Meta {
        let (t, n) = (g.l1_tag_bits(), g.threads);
        Meta {
            tag: e.slice(t - 1, 0),
            wvalid: e.slice(t + n - 1, t),
            wdirty: e.slice(t + 2 * n - 1, t + n),
        }
    }
    fn pack(&self) -> Value {
        cat(&[&self.wdirty, &self.wvalid, &self.tag])
    }
}

/// The controller's registers: the FSM and the transaction (datapath registers have no
/// reset: each is written before the states that read it).
struct Regs {
    state: Value,
    ret: Value,
    flushing: Value,
    /// The request.
    write: Value,
    addr: Value,
    mask: Value,
    data: Value,
    /// The request's AVC line and vector as looked up (valid 0 unless live).
    line: Value,
    way: Value,
    live_bits: Value,
    vec: Slot,
    /// The request's L1 line as looked up.
    l1_hit: Value,
    l1_way: Value,
    l1_wvalid: Value,
    l1_wdirty: Value,
    l1_data: Value,
    /// Each AVC way's tag and live bits in the request's set.
    look_tag: Vec<Value>,
    look_live: Vec<Value>,
    /// Threads a read still needs, its answer, a fill's words.
    rest: Value,
    out: Value,
    buf: Value,
    /// The vector to write: encoding, mask, dirty; whether it encoded; whether the
    /// encoder reads the fill (`buf`, `rest`) rather than the request.
    enc: Slot,
    enc_ok: Value,
    enc_src: Value,
    /// An AVC line being evicted (way, tag, live vectors left), a vector being evicted.
    vway: Value,
    vtag: Value,
    vlive: Value,
    ev_block: Value,
    ev_way: Value,
    /// The flush's walk.
    f_set: Value,
    f_way: Value,
    /// Line valid bits, a register of one bit a set for each way.
    avc_valid: Vec<Value>,
    l1_valid: Vec<Value>,
}

fn regs(m: &mut ModuleBuilder, g: &AvcParams) -> Regs {
    let n = g.threads;
    let state = m.reg("state", st::BITS, st::IDLE);
    let flushing = m.reg("flushing", 1, 0u64);
    let avc_valid = (0..g.avc_ways)
        .map(|w| m.reg(&format!("avc_line_valid_{w}"), g.avc_sets, 0u64))
        .collect();
    let l1_valid = (0..g.l1_ways)
        .map(|w| m.reg(&format!("l1_line_valid_{w}"), g.l1_sets, 0u64))
        .collect();
    let mut r = |name: &str, w: u32| m.reg(name, w, ResetValue::None);
    let (aw, lw, tb, v) = (
        g.avc_way_bits(),
        g.l1_way_bits(),
        g.tag_bits(),
        g.vectors_per_line,
    );
    let slot = |r: &mut dyn FnMut(&str, u32) -> Value, p: &str| Slot {
        base: r(&format!("{p}_base"), 32),
        code: r(&format!("{p}_code"), CODE_BITS),
        valid: r(&format!("{p}_valid"), n),
        dirty: r(&format!("{p}_dirty"), 1),
    };
    Regs {
        state,
        ret: r("ret", st::BITS),
        flushing,
        write: r("q_write", 1),
        addr: r("q_addr", 32),
        mask: r("q_mask", n),
        data: r("q_data", g.data_bits()),
        line: r("cur_line", 1),
        way: r("cur_way", aw),
        live_bits: r("cur_live_bits", v),
        vec: slot(&mut r, "cur"),
        l1_hit: r("l1_hit", 1),
        l1_way: r("l1_way", lw),
        l1_wvalid: r("l1_wvalid", n),
        l1_wdirty: r("l1_wdirty", n),
        l1_data: r("l1_data", g.data_bits()),
        look_tag: (0..g.avc_ways)
            .map(|w| r(&format!("look_tag_{w}"), tb))
            .collect(),
        look_live: (0..g.avc_ways)
            .map(|w| r(&format!("look_live_{w}"), v))
            .collect(),
        rest: r("rest", n),
        out: r("out", g.data_bits()),
        buf: r("buf", g.data_bits()),
        enc: slot(&mut r, "enc"),
        enc_ok: r("enc_ok", 1),
        enc_src: r("enc_src", 1),
        vway: r("vway", aw),
        vtag: r("vtag", tb),
        vlive: r("vlive", v),
        ev_block: r("ev_block", 32),
        ev_way: r("ev_way", aw),
        f_set: r("f_set", g.set_bits().max(g.l1_set_bits())),
        f_way: r("f_way", aw.max(lw)),
        avc_valid,
        l1_valid,
    }
}

fn is(r: &Regs, s: u64) -> Value {
    r.state.eq(&k(&r.state, s, st::BITS))
}

fn go(m: &mut ModuleBuilder, r: &Regs, when: &Value, s: u64) {
    m.when(when, |m| m.connect(&r.state, &k(&r.state, s, st::BITS)));
}

fn zero(anchor: &Value, w: u32) -> Value {
    anchor.konst(hdl::Bits::zero(w))
}

/// The request's AVC set as the arrays read it: the ways' tags and live bits, the hit.
struct AvcView {
    tags: Vec<Value>,
    lives: Vec<Value>,
    line_hit: Value,
    way: Value,
    live_bits: Value,
    /// The hit way's vector (valid 0 unless live).
    slot: Slot,
}

fn avc_view(g: &AvcParams, r: &Regs, a: &Arrays) -> AvcView {
    let (tb, v) = (g.tag_bits(), g.vectors_per_line);
    let set = g.set_of(&r.addr);
    let tags: Vec<Value> = a.tags.out.iter().map(|e| e.slice(tb - 1, 0)).collect();
    let lives: Vec<Value> = a.tags.out.iter().map(|e| e.slice(tb + v - 1, tb)).collect();
    let hits: Vec<Value> = (0..g.avc_ways as usize)
        .map(|w| &bit_at(&r.avc_valid[w], &set) & &tags[w].eq(&g.tag_of(&r.addr)))
        .collect();
    let sel = cat_low_first(&hits);
    let live_bits = onehot_mux(&sel, &lives);
    let live = bit_at(&live_bits, &g.vec_of(&r.addr));
    let mut slot = Slot::unpack(&a.vectors.of(&sel), g.threads);
    slot.valid = &slot.valid & &live.repeat(g.threads);
    AvcView {
        line_hit: any(&hits),
        way: onehot_encode(&sel),
        tags,
        lives,
        live_bits,
        slot,
    }
}

/// The L1's ways in `addr`'s set as the arrays read them: the hit (zero masks without).
struct L1View {
    set: Value,
    hit: Value,
    way: Value,
    meta: Meta,
    data: Value,
}

fn l1_view(g: &AvcParams, r: &Regs, a: &Arrays, addr: &Value) -> L1View {
    let set = g.l1_set_of(addr);
    let hits: Vec<Value> = (0..g.l1_ways as usize)
        .map(|w| {
            let tag = Meta::unpack(&a.meta.out[w], g).tag;
            &bit_at(&r.l1_valid[w], &set) & &tag.eq(&g.l1_tag_of(addr))
        })
        .collect();
    let sel = cat_low_first(&hits);
    L1View {
        set,
        hit: any(&hits),
        way: onehot_encode(&sel),
        meta: Meta::unpack(&a.meta.of(&sel), g),
        data: a.data.of(&sel),
    }
}

/// One of several writers of an array (or a memory request): enable, and its fields.
struct Write {
    en: Value,
    way: Value,
    addr: Value,
    data: Value,
}

/// The array's one write port, taken by whichever writer is enabled (at most one is).
fn write_port(m: &mut ModuleBuilder, bank: &super::arrays::Banked, writes: &[Write]) {
    let field = |f: &dyn Fn(&Write) -> &Value| {
        let cases: Vec<(Value, Value)> = writes
            .iter()
            .map(|w| (w.en.clone(), f(w).clone()))
            .collect();
        hdl::helpers::priority_mux(&cases, f(&writes[0]))
    };
    let en = any(&writes.iter().map(|w| w.en.clone()).collect::<Vec<_>>());
    let (way, addr, data) = (field(&|w| &w.way), field(&|w| &w.addr), field(&|w| &w.data));
    bank.write(m, &en, (&way, &addr, &data));
}

/// Sets (`on`) or clears bit `set` of way `way`'s register of line valid bits when `en`.
fn mark(
    m: &mut ModuleBuilder,
    valid: &[Value],
    en: &Value,
    (way, set): (&Value, &Value),
    on: bool,
) {
    for (w, reg) in valid.iter().enumerate() {
        let here = en & &way.eq(&k(way, w as u64, way.width()));
        let bit = onehot_decode(set, reg.width());
        let next = if on { reg | &bit } else { reg & &!&bit };
        m.when(&here, |m| m.connect(reg, &next));
    }
}

/// The encoder's answer.
struct Enc {
    affine: Value,
    base: Value,
    code: Value,
}

fn same(s: &Slot, e: &Enc) -> Value {
    &s.base.eq(&e.base) & &s.code.eq(&e.code)
}

/// Starts evicting the request's own vector (a conflict), then `ret`.
fn evict_own(m: &mut ModuleBuilder, r: &Regs, en: &Value, way: &Value, ret: u64) {
    m.when(en, |m| {
        m.connect(&r.ev_block, &r.addr);
        m.connect(&r.ev_way, way);
        m.connect(&r.ret, &k(&r.ret, ret, st::BITS));
    });
    go(m, r, en, st::EV_READ);
}

/// LOOK: the arrays' answer for the request. A read takes the AVC's valid threads and,
/// for the rest, the L1's words on a full hit, else a fill; a write goes by its
/// encoding, registered here and decided in W_DECIDE. Returns the replay event and the
/// AVC's and the L1's PLRU touches.
fn look(
    m: &mut ModuleBuilder,
    g: &AvcParams,
    r: &Regs,
    (v, l, decoded, enc): (&AvcView, &L1View, &Value, &Enc),
) -> [Value; 3] {
    let n = g.threads;
    let here = is(r, st::LOOK);
    let served = &v.slot.valid & &r.mask;
    let rest = &r.mask & &!&served;
    let none = |x: &Value| x.eq(&k(x, 0, x.width()));
    let avc_words = pick(&served, decoded, &zero(decoded, g.data_bits()), n);
    let l1_full = &l.hit & &none(&(&rest & &!&l.meta.wvalid));
    m.when(&here, |m| {
        m.connect(&r.line, &v.line_hit);
        m.connect(&r.way, &v.way);
        m.connect(&r.live_bits, &v.live_bits);
        for (reg, val) in [(&r.vec.base, &v.slot.base), (&r.vec.code, &v.slot.code)] {
            m.connect(reg, val);
        }
        m.connect(&r.vec.valid, &v.slot.valid);
        m.connect(&r.vec.dirty, &v.slot.dirty);
        m.connect(&r.l1_hit, &l.hit);
        m.connect(&r.l1_way, &l.way);
        m.connect(&r.l1_wvalid, &l.meta.wvalid);
        m.connect(&r.l1_wdirty, &l.meta.wdirty);
        m.connect(&r.l1_data, &l.data);
        for w in 0..r.look_tag.len() {
            m.connect(&r.look_tag[w], &v.tags[w]);
            m.connect(&r.look_live[w], &v.lives[w]);
        }
        m.connect(&r.rest, &rest);
        m.connect(
            &r.out,
            &mux(&l1_full, &pick(&rest, &l.data, &avc_words, n), &avc_words),
        );
        m.connect(&r.enc.base, &enc.base);
        m.connect(&r.enc.code, &enc.code);
        m.connect(&r.enc_ok, &enc.affine);
        m.connect(&r.enc.valid, &r.mask);
        m.connect(&r.enc.dirty, &k(&here, 1, 1));
    });
    let rd = &here & &!&r.write;
    let answered = &none(&rest) | &l1_full;
    go(m, r, &(&rd & &answered), st::RESP);
    go(m, r, &(&rd & &!&answered), st::FILL_REQ);
    let hit = !&none(&served);
    let replay = &(&rd & &hit) & &!&none(&rest);
    let l1_touch = &(&rd & &!&none(&rest)) & &l1_full;

    go(m, r, &(&here & &r.write), st::W_DECIDE);
    [replay, &rd & &hit, l1_touch]
}

/// The registered encoding as an encoder's answer.
fn registered(r: &Regs) -> Enc {
    Enc {
        affine: r.enc_ok.clone(),
        base: r.enc.base.clone(),
        code: r.enc.code.clone(),
    }
}

/// W_DECIDE: a write by its encoding (registered in LOOK): into the AVC, after evicting
/// a conflicting vector whose threads it does not all cover, or into the L1. Returns
/// the conflict event.
fn decide_write(m: &mut ModuleBuilder, r: &Regs) -> Value {
    let here = is(r, st::W_DECIDE);
    let enc = registered(r);
    let crowded = (&r.vec.valid & &!&r.mask).or_r();
    let conflict = &(&(&here & &enc.affine) & &crowded) & &!&same(&r.vec, &enc);
    evict_own(m, r, &conflict, &r.way, st::VEC_WRITE);
    let placed = &(&here & &enc.affine) & &!&conflict;
    go(m, r, &(&placed & &!&r.line), st::AVC_ALLOC);
    go(m, r, &(&placed & &r.line), st::VEC_WRITE);
    go(m, r, &(&here & &!&enc.affine), st::L1_ALLOC);
    conflict
}

/// FILL_REQ, FILL_WAIT, ENCODE, DECIDE_FILL: a read's missing threads from memory,
/// overlaid with the L1's valid words, encoded (registered), then into the AVC or the
/// L1. Returns the conflict event.
fn fill(
    m: &mut ModuleBuilder,
    g: &AvcParams,
    r: &Regs,
    (mem_fire, mem_resp, enc): (&Value, &Bundle, &Enc),
) -> Value {
    let n = g.threads;
    go(m, r, &(&is(r, st::FILL_REQ) & mem_fire), st::FILL_WAIT);
    let arrived = &is(r, st::FILL_WAIT) & mem_resp.valid();
    let overlay = pick(
        &r.l1_wvalid,
        &r.l1_data,
        mem_resp.bits().get("data").value(),
        n,
    );
    m.when(&arrived, |m| {
        m.connect(&r.buf, &overlay);
        m.connect(&r.out, &pick(&r.rest, &overlay, &r.out, n));
        m.connect(&r.enc_src, &k(&arrived, 1, 1));
    });
    go(m, r, &arrived, st::ENCODE);
    let encoding = is(r, st::ENCODE);
    m.when(&encoding, |m| {
        m.connect(&r.enc.base, &enc.base);
        m.connect(&r.enc.code, &enc.code);
        m.connect(&r.enc_ok, &enc.affine);
        m.connect(&r.enc.valid, &r.rest);
        m.connect(&r.enc.dirty, &(&r.l1_wdirty & &r.rest).or_r());
    });
    go(m, r, &encoding, st::DECIDE_FILL);
    let here = is(r, st::DECIDE_FILL);
    let enc = registered(r);
    let affine = &here & &enc.affine;
    let conflict = &(&(&affine & &r.line) & &r.vec.valid.or_r()) & &!&same(&r.vec, &enc);
    evict_own(m, r, &conflict, &r.way, st::VEC_WRITE);
    go(m, r, &(&affine & &!&r.line), st::AVC_ALLOC);
    go(m, r, &(&(&affine & &r.line) & &!&conflict), st::VEC_WRITE);
    go(m, r, &(&here & &!&enc.affine), st::L1_ALLOC);
    conflict
}

/// An eviction's memory write: valid, addr, mask, data.
struct MemReq {
    valid: Value,
    addr: Value,
    mask: Value,
    data: Value,
}

/// EV_READ, EV_WRITE: evicts the vector of `ev_block` (way `ev_way`): its decoded words
/// where dirty, merged with the L1's words of the block, written back; the L1's line
/// invalidated. `slot` is the vector as read, `decoded` its words.
fn evict(
    m: &mut ModuleBuilder,
    g: &AvcParams,
    r: &Regs,
    (a, slot, decoded, mem_fire): (&Arrays, &Slot, &Value, &Value),
) -> MemReq {
    let n = g.threads;
    go(m, r, &is(r, st::EV_READ), st::EV_WRITE);
    let here = is(r, st::EV_WRITE);
    let l = l1_view(g, r, a, &r.ev_block);
    let data = pick(&(&l.meta.wvalid & &!&slot.valid), &l.data, decoded, n);
    let mask = &(&slot.valid & &slot.dirty.repeat(n)) | &l.meta.wdirty;
    let need = mask.or_r();
    let done = &here & &(&!&need | mem_fire);
    mark(m, &r.l1_valid, &(&done & &l.hit), (&l.way, &l.set), false);
    m.when(&done, |m| m.connect(&r.state, &r.ret));
    let own = &(&done & &r.ev_block.eq(&r.addr)) & &!&r.flushing;
    m.when(&own, |m| {
        m.connect(&r.vec.valid, &zero(&r.vec.valid, n));
        m.connect(&r.l1_hit, &k(&here, 0, 1));
        m.connect(&r.l1_wvalid, &zero(&r.vec.valid, n));
        m.connect(&r.l1_wdirty, &zero(&r.vec.valid, n));
    });
    MemReq {
        valid: &here & &need,
        addr: r.ev_block.clone(),
        mask,
        data,
    }
}

/// AVC_ALLOC, VEC_LOOP, TAG_WRITE: the request's AVC line allocated, the victim's live
/// vectors evicted first (VEC_LOOP also walks the flush's lines). Returns the line
/// eviction event and the tag array's writer.
fn allocate(m: &mut ModuleBuilder, g: &AvcParams, r: &Regs, plru: &Plru) -> (Value, Write) {
    let set = g.set_of(&r.addr);
    let here = is(r, st::AVC_ALLOC);
    let valid: Vec<Value> = r.avc_valid.iter().map(|v| bit_at(v, &set)).collect();
    let valid = cat_low_first(&valid);
    let victim = plru.victim(&set, &valid);
    let sel = onehot_decode(&victim, g.avc_ways);
    let live =
        &onehot_mux(&sel, &r.look_live) & &bit_at(&valid, &victim).repeat(g.vectors_per_line);
    m.when(&here, |m| {
        m.connect(&r.vway, &victim);
        m.connect(&r.vtag, &onehot_mux(&sel, &r.look_tag));
        m.connect(&r.vlive, &live);
    });
    go(m, r, &here, st::VEC_LOOP);
    let line_evict = &here & &live.or_r();

    let lp = is(r, st::VEC_LOOP);
    let empty = r.vlive.eq(&k(&r.vlive, 0, g.vectors_per_line));
    go(m, r, &(&(&lp & &empty) & &r.flushing), st::FL_NEXT);
    go(m, r, &(&(&lp & &empty) & &!&r.flushing), st::TAG_WRITE);
    let next = &lp & &!&empty;
    let vset = mux(&r.flushing, &r.f_set.slice(g.set_bits() - 1, 0), &set);
    let vector = priority_encode(&r.vlive);
    let block = cat(&[&r.vtag, &vset, &vector, &zero(&vset, g.offset_bits())]);
    let vway = mux(
        &r.flushing,
        &r.f_way.slice(g.avc_way_bits() - 1, 0),
        &r.vway,
    );
    m.when(&next, |m| {
        m.connect(&r.ev_block, &block);
        m.connect(&r.ev_way, &vway);
        m.connect(&r.vlive, &(&r.vlive & &!&lowest_one(&r.vlive)));
        m.connect(&r.ret, &k(&r.ret, st::VEC_LOOP, st::BITS));
    });
    go(m, r, &next, st::EV_READ);

    let tw = is(r, st::TAG_WRITE);
    mark(m, &r.avc_valid, &tw, (&r.vway, &set), true);
    m.when(&tw, |m| {
        m.connect(&r.line, &k(&tw, 1, 1));
        m.connect(&r.way, &r.vway);
        m.connect(&r.live_bits, &zero(&r.live_bits, g.vectors_per_line));
        m.connect(&r.vec.valid, &zero(&r.vec.valid, g.threads));
    });
    go(m, r, &tw, st::VEC_WRITE);
    let entry = cat(&[&zero(&r.vlive, g.vectors_per_line), &g.tag_of(&r.addr)]);
    let write = Write {
        en: tw,
        way: r.vway.clone(),
        addr: set,
        data: entry,
    };
    (line_evict, write)
}

/// The writers of the vector, tag and L1 meta arrays besides allocation's.
struct Writers {
    vector: Vec<Write>,
    tag: Vec<Write>,
    meta: Vec<Write>,
}

/// VEC_WRITE: the encoded vector into the request's slot (merged with the same (base,
/// stride)), its live bit set, its words dropped from the L1. Returns the merge event.
fn vector_write(m: &mut ModuleBuilder, g: &AvcParams, r: &Regs, w: &mut Writers) -> Value {
    let here = is(r, st::VEC_WRITE);
    let enc = Enc {
        affine: k(&here, 1, 1),
        base: r.enc.base.clone(),
        code: r.enc.code.clone(),
    };
    let merging = &r.vec.valid.or_r() & &same(&r.vec, &enc);
    let slot = Slot {
        base: r.enc.base.clone(),
        code: r.enc.code.clone(),
        valid: mux(&merging, &(&r.vec.valid | &r.enc.valid), &r.enc.valid),
        dirty: mux(&merging, &(&r.vec.dirty | &r.enc.dirty), &r.enc.dirty),
    };
    let vec_bit = onehot_decode(&g.vec_of(&r.addr), g.vectors_per_line);
    w.vector.push(Write {
        en: here.clone(),
        way: r.way.clone(),
        addr: g.slot_of(&r.addr),
        data: slot.pack(),
    });
    w.tag.push(Write {
        en: here.clone(),
        way: r.way.clone(),
        addr: g.set_of(&r.addr),
        data: cat(&[&(&r.live_bits | &vec_bit), &g.tag_of(&r.addr)]),
    });
    let dropped = Meta {
        tag: g.l1_tag_of(&r.addr),
        wvalid: &r.l1_wvalid & &!&r.enc.valid,
        wdirty: &r.l1_wdirty & &!&r.enc.valid,
    };
    w.meta.push(Write {
        en: &here & &r.l1_hit,
        way: r.l1_way.clone(),
        addr: g.l1_set_of(&r.addr),
        data: dropped.pack(),
    });
    go(m, r, &here, st::RESP);
    &(&here & &merging) & &r.write
}

/// L1_ALLOC, L1_EV_READ, L1_EV_WRITE: the request's L1 line, allocated by evicting the
/// victim (its dirty words written back); L1_EV_* also evict the flush's lines.
fn l1_allocate(
    m: &mut ModuleBuilder,
    g: &AvcParams,
    r: &Regs,
    (a, plru, mem_fire): (&Arrays, &Plru, &Value),
) -> MemReq {
    let set = g.l1_set_of(&r.addr);
    let here = is(r, st::L1_ALLOC);
    let valid = cat_low_first(
        &r.l1_valid
            .iter()
            .map(|v| bit_at(v, &set))
            .collect::<Vec<_>>(),
    );
    let victim = plru.victim(&set, &valid);
    let alloc = &here & &!&r.l1_hit;
    let occupied = bit_at(&valid, &victim);
    m.when(&alloc, |m| {
        m.connect(&r.l1_way, &victim);
        m.connect(&r.ret, &k(&r.ret, st::L1_WRITE, st::BITS));
    });
    go(m, r, &(&here & &!&(&alloc & &occupied)), st::L1_WRITE);
    go(m, r, &(&alloc & &occupied), st::L1_EV_READ);
    go(m, r, &is(r, st::L1_EV_READ), st::L1_EV_WRITE);

    let ev = is(r, st::L1_EV_WRITE);
    let vset = mux(&r.flushing, &r.f_set.slice(g.l1_set_bits() - 1, 0), &set);
    let sel = onehot_decode(&r.l1_way, g.l1_ways);
    let meta = Meta::unpack(&a.meta.of(&sel), g);
    let need = meta.wdirty.or_r();
    let done = &ev & &(&!&need | mem_fire);
    mark(m, &r.l1_valid, &done, (&r.l1_way, &vset), false);
    m.when(&done, |m| m.connect(&r.state, &r.ret));
    MemReq {
        valid: &ev & &need,
        addr: cat(&[&meta.tag, &vset, &zero(&vset, g.offset_bits())]),
        mask: meta.wdirty,
        data: a.data.of(&sel),
    }
}

/// L1_WRITE: a generic write's words (write-validate, dirty) or a generic fill's (where
/// neither cache holds them) into the request's L1 line; a write's words leave the AVC.
/// Returns the L1 data array's writer.
fn l1_write(m: &mut ModuleBuilder, g: &AvcParams, r: &Regs, w: &mut Writers) -> Write {
    let n = g.threads;
    let here = is(r, st::L1_WRITE);
    let hv = &r.l1_wvalid & &r.l1_hit.repeat(n);
    let hd = &r.l1_wdirty & &r.l1_hit.repeat(n);
    let fill_words = &!&r.vec.valid & &!&hv;
    let meta = Meta {
        tag: g.l1_tag_of(&r.addr),
        wvalid: &hv | &mux(&r.write, &r.mask, &fill_words),
        wdirty: &hd | &mux(&r.write, &r.mask, &zero(&hd, n)),
    };
    let data = mux(&r.write, &pick(&r.mask, &r.data, &r.l1_data, n), &r.buf);
    let set = g.l1_set_of(&r.addr);
    w.meta.push(Write {
        en: here.clone(),
        way: r.l1_way.clone(),
        addr: set.clone(),
        data: meta.pack(),
    });
    mark(m, &r.l1_valid, &here, (&r.l1_way, &set), true);
    // A generic write clears its threads from the AVC's vector (dead when none is left).
    let clear = &(&here & &r.write) & &r.vec.valid.or_r();
    let left = &r.vec.valid & &!&r.mask;
    let slot = Slot {
        valid: left.clone(),
        ..r.vec.clone()
    };
    w.vector.push(Write {
        en: clear.clone(),
        way: r.way.clone(),
        addr: g.slot_of(&r.addr),
        data: slot.pack(),
    });
    let vec_bit = onehot_decode(&g.vec_of(&r.addr), g.vectors_per_line);
    w.tag.push(Write {
        en: &clear & &!&left.or_r(),
        way: r.way.clone(),
        addr: g.set_of(&r.addr),
        data: cat(&[&(&r.live_bits & &!&vec_bit), &g.tag_of(&r.addr)]),
    });
    go(m, r, &here, st::RESP);
    Write {
        en: here,
        way: r.l1_way.clone(),
        addr: set,
        data,
    }
}

/// Discard (`when`, in IDLE): every line of both caches invalid at once, nothing written
/// back (the golden model's `discard`: a launch's stacks are dead at its end).
fn drop_all(m: &mut ModuleBuilder, r: &Regs, when: &Value) {
    m.when(when, |m| {
        for v in r.avc_valid.iter().chain(&r.l1_valid) {
            m.connect(v, &zero(v, v.width()));
        }
    });
}

/// The flush's walk: FL_TAG, FL_LINE, FL_NEXT over every AVC line (VEC_LOOP evicts its
/// live vectors), then FL_L1, FL_L1_NEXT over every L1 line (L1_EV_* write it back),
/// then FLUSHED.
fn flush_walk(
    m: &mut ModuleBuilder,
    g: &AvcParams,
    r: &Regs,
    (a, flush): (&Arrays, &Value),
) -> Value {
    let (fs, fw) = (r.f_set.width(), r.f_way.width());
    let start = &is(r, st::IDLE) & flush;
    m.when(&start, |m| {
        m.connect(&r.flushing, &k(flush, 1, 1));
        m.connect(&r.f_set, &k(flush, 0, fs));
        m.connect(&r.f_way, &k(flush, 0, fw));
    });
    go(m, r, &start, st::FL_TAG);
    go(m, r, &is(r, st::FL_TAG), st::FL_LINE);
    let aset = r.f_set.slice(g.set_bits() - 1, 0);
    let sel = onehot_decode(&r.f_way.slice(g.avc_way_bits() - 1, 0), g.avc_ways);
    let entry = a.tags.of(&sel);
    let (tb, v) = (g.tag_bits(), g.vectors_per_line);
    let valid = bit_at(&onehot_mux(&sel, &r.avc_valid), &aset);
    let line = is(r, st::FL_LINE);
    m.when(&line, |m| {
        m.connect(&r.vtag, &entry.slice(tb - 1, 0));
        m.connect(&r.vlive, &(&entry.slice(tb + v - 1, tb) & &valid.repeat(v)));
    });
    go(m, r, &line, st::VEC_LOOP);
    let next = is(r, st::FL_NEXT);
    mark(
        m,
        &r.avc_valid,
        &next,
        (&r.f_way.slice(g.avc_way_bits() - 1, 0), &aset),
        false,
    );
    let done_avc = step_walk(m, r, &next, (g.avc_sets, g.avc_ways));
    go(m, r, &(&next & &!&done_avc), st::FL_TAG);
    go(m, r, &(&next & &done_avc), st::FL_L1);

    let l1 = is(r, st::FL_L1);
    let lway = r.f_way.slice(g.l1_way_bits() - 1, 0);
    let lsel = onehot_decode(&lway, g.l1_ways);
    let lvalid = bit_at(
        &onehot_mux(&lsel, &r.l1_valid),
        &r.f_set.slice(g.l1_set_bits() - 1, 0),
    );
    m.when(&(&l1 & &lvalid), |m| {
        m.connect(&r.l1_way, &lway);
        m.connect(&r.ret, &k(&r.ret, st::FL_L1_NEXT, st::BITS));
    });
    go(m, r, &(&l1 & &lvalid), st::L1_EV_READ);
    go(m, r, &(&l1 & &!&lvalid), st::FL_L1_NEXT);
    let lnext = is(r, st::FL_L1_NEXT);
    let done_l1 = step_walk(m, r, &lnext, (g.l1_sets, g.l1_ways));
    go(m, r, &(&lnext & &!&done_l1), st::FL_L1);
    go(m, r, &(&lnext & &done_l1), st::FLUSHED);
    let flushed = is(r, st::FLUSHED);
    m.when(&flushed, |m| m.connect(&r.flushing, &k(flush, 0, 1)));
    go(m, r, &flushed, st::IDLE);
    flushed
}

/// The walk's next (set, way) of `sets` x `ways` when `en`, back to (0, 0) after the
/// last; whether this was the last.
fn step_walk(m: &mut ModuleBuilder, r: &Regs, en: &Value, (sets, ways): (u32, u32)) -> Value {
    let (fs, fw) = (r.f_set.width(), r.f_way.width());
    let last_way = r.f_way.eq(&k(&r.f_way, ways as u64 - 1, fw));
    let last = &last_way & &r.f_set.eq(&k(&r.f_set, sets as u64 - 1, fs));
    let way = mux(
        &last_way,
        &k(&r.f_way, 0, fw),
        &(&r.f_way + &k(&r.f_way, 1, fw)),
    );
    let set = mux(
        &last,
        &k(&r.f_set, 0, fs),
        &mux(&last_way, &(&r.f_set + &k(&r.f_set, 1, fs)), &r.f_set),
    );
    m.when(en, |m| {
        m.connect(&r.f_way, &way);
        m.connect(&r.f_set, &set);
    });
    last
}

/// The AVC and L1 pair of shape `g`.
pub fn controller(g: &AvcParams) -> Result<Rc<Module>, HdlErrors> {
    if let Err(e) = g.validate() {
        panic!("AVC controller: {}: {}", e.param, e.message);
    }
    let n = g.threads;
    let mut m = ModuleBuilder::new("AvcController");
    let req = m.io("req", Dir::In, &transaction(g));
    let resp = m.io("resp", Dir::Out, &words(g));
    let mem_req = m.io("mem_req", Dir::Out, &transaction(g));
    let mem_resp = m.io("mem_resp", Dir::In, &words(g));
    let flush = m.input("flush", 1);
    let discard = m.input("discard", 1);
    let r = regs(&mut m, g);
    let ready = &is(&r, st::IDLE) & &!&(&flush | &discard);
    drop_all(&mut m, &r, &(&is(&r, st::IDLE) & &discard));
    let fire = req.valid() & &ready;
    let q = |f: &str| req.bits().get(f).value().clone();
    m.when(&fire, |m| {
        for (reg, f) in [
            (&r.write, "write"),
            (&r.addr, "addr"),
            (&r.mask, "mask"),
            (&r.data, "data"),
        ] {
            m.connect(reg, &q(f));
        }
        m.connect(&r.enc_src, &k(&fire, 0, 1));
    });
    go(&mut m, &r, &fire, st::LOOK);

    let addr = q("addr");
    let (ev_read, l1_ev_read) = (is(&r, st::EV_READ), is(&r, st::L1_EV_READ));
    let tag_addr = mux(
        &is(&r, st::FL_TAG),
        &r.f_set.slice(g.set_bits() - 1, 0),
        &g.set_of(&addr),
    );
    let vec_addr = mux(&ev_read, &g.slot_of(&r.ev_block), &g.slot_of(&addr));
    let own_set = mux(
        &r.flushing,
        &r.f_set.slice(g.l1_set_bits() - 1, 0),
        &g.l1_set_of(&r.addr),
    );
    let l1_addr = mux(
        &ev_read,
        &g.l1_set_of(&r.ev_block),
        &mux(&l1_ev_read, &own_set, &g.l1_set_of(&addr)),
    );
    let reads = Reads {
        tag: (&tag_addr, &(&fire | &is(&r, st::FL_TAG))),
        vector: (&vec_addr, &(&fire | &ev_read)),
        l1: (&l1_addr, &(&(&fire | &ev_read) | &l1_ev_read)),
    };
    let a = Arrays::new(&mut m, g, reads);
    let v = avc_view(g, &r, &a);
    let ev_slot = Slot::unpack(&a.vectors.of(&onehot_decode(&r.ev_way, g.avc_ways)), n);

    let e = m.instance("encode", &encoder(n)?);
    m.connect(&e.port("data"), &mux(&r.enc_src, &r.buf, &r.data));
    m.connect(&e.port("mask"), &mux(&r.enc_src, &r.rest, &r.mask));
    let enc = Enc {
        affine: e.port("affine"),
        base: e.port("base"),
        code: e.port("code"),
    };
    let d = m.instance("decode", &decoder(n)?);
    let evicting = is(&r, st::EV_WRITE);
    m.connect(
        &d.port("base"),
        &mux(&evicting, &ev_slot.base, &v.slot.base),
    );
    m.connect(
        &d.port("code"),
        &mux(&evicting, &ev_slot.code, &v.slot.code),
    );
    let decoded = d.port("data");
    let mem_fire = m.wire("mem_fire", 1);

    let avc_plru = Plru::new(&mut m, "avc_plru", g.avc_sets, g.avc_ways);
    let l1_plru = Plru::new(&mut m, "l1_plru", g.l1_sets, g.l1_ways);
    let l = l1_view(g, &r, &a, &r.addr);
    let [replay, avc_hit, l1_hit] = look(&mut m, g, &r, (&v, &l, &decoded, &enc));
    let conflict_w = decide_write(&mut m, &r);
    let conflict_f = fill(&mut m, g, &r, (&mem_fire, &mem_resp, &enc));
    let ev = evict(&mut m, g, &r, (&a, &ev_slot, &decoded, &mem_fire));
    let (line_evict, alloc_tag) = allocate(&mut m, g, &r, &avc_plru);
    let mut w = Writers {
        vector: Vec::new(),
        tag: vec![alloc_tag],
        meta: Vec::new(),
    };
    let merge = vector_write(&mut m, g, &r, &mut w);
    let l1_ev = l1_allocate(&mut m, g, &r, (&a, &l1_plru, &mem_fire));
    let data_write = l1_write(&mut m, g, &r, &mut w);
    let flushed = flush_walk(&mut m, g, &r, (&a, &flush));
    go(&mut m, &r, &is(&r, st::RESP), st::IDLE);
    write_port(&mut m, &a.vectors, &w.vector);
    write_port(&mut m, &a.tags, &w.tag);
    write_port(&mut m, &a.meta, &w.meta);
    write_port(&mut m, &a.data, &[data_write]);

    // PLRU touches: a read's hits in LOOK, a vector or L1 line written.
    let (vw, lw) = (is(&r, st::VEC_WRITE), is(&r, st::L1_WRITE));
    avc_plru.touch(
        &mut m,
        &(&avc_hit | &vw),
        &g.set_of(&r.addr),
        &mux(&vw, &r.way, &v.way),
    );
    l1_plru.touch(
        &mut m,
        &(&l1_hit | &lw),
        &g.l1_set_of(&r.addr),
        &mux(&lw, &r.l1_way, &l.way),
    );

    connect_mem(&mut m, &r, (&mem_req, &mem_fire), [ev, l1_ev]);
    m.connect(req.ready(), &ready);
    m.connect(resp.valid(), &is(&r, st::RESP));
    m.connect(resp.bits().get("data").value(), &r.out);
    for (name, value) in [
        ("flushed", flushed),
        ("idle", is(&r, st::IDLE)),
        ("ev_replay", replay),
        ("ev_conflict", &conflict_w | &conflict_f),
        ("ev_merge", merge),
        ("ev_line_evict", line_evict),
    ] {
        let out = m.output(name, 1);
        m.connect(&out, &value);
    }
    m.finish()
}

/// The memory request: a fill's read, or an eviction's write.
fn connect_mem(
    m: &mut ModuleBuilder,
    r: &Regs,
    (mem_req, mem_fire): (&Bundle, &Value),
    writes: [MemReq; 2],
) {
    let fill = is(r, st::FILL_REQ);
    let [a, b] = writes;
    let valid = &(&fill | &a.valid) | &b.valid;
    let pick2 = |x: &Value, y: &Value| mux(&a.valid, x, y);
    let f = |name: &str| mem_req.bits().get(name).value().clone();
    m.connect(mem_req.valid(), &valid);
    m.connect(&f("write"), &!&fill);
    m.connect(&f("addr"), &mux(&fill, &r.addr, &pick2(&a.addr, &b.addr)));
    m.connect(&f("mask"), &mux(&fill, &r.mask, &pick2(&a.mask, &b.mask)));
    m.connect(&f("data"), &pick2(&a.data, &b.data));
    m.connect(mem_fire, &(&valid & mem_req.ready()));
}
