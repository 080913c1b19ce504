//! `FgsimtDcacheBank`: one bank of the FG-SIMT L1 D$ (seed 000, section 1.7, Figure 3):
//! blocking, `ways`-way set-associative (direct-mapped in seed 000; 8 ways in seed 001's
//! Table 3), lines of `line_bytes` (32 in seed 000, 128 in Table 3), write-back
//! write-allocate, one 32-bit or one 256-bit (block) access per cycle.
//!
//! A request is looked up the cycle after the bank accepts it (a tag and a data array a
//! way, all read at once; synchronous-read, one read and one write port each, so the
//! memory policy makes the large ones macros; valid and dirty bits are registers, a
//! way's `sets` bits each). A hit is performed in that cycle on the way whose tag
//! matches and answered; the bank accepts the next request in the same cycle unless the
//! hit writes the set the next one reads (one bubble, no forwarding). A miss picks its
//! victim (the first invalid way, else tree pseudo-LRU, `../plru.rs`, touched by every
//! performed access), writes it back if it is dirty, refills the line with one read a
//! line wide, rereads the arrays and performs the access as a hit. The requests arrive
//! in the crossbar's form: narrow data replicated over the 32-byte block and its byte
//! mask in place, so stores of both widths are the same masked write; the bank places
//! the block in the line (`Geometry::to_line`) and answers the block the address names.
//!
//! Ports: `req` (decoupled), `resp` (valid: the block, the access's word, port, slot),
//! `mem_req`/`mem_resp` (a memory port a line wide, untagged, in order), `flush`/`flushed`
//! (every way of every set is walked), `idle`, `bank_id` (with more than one bank),
//! `resv_other` (ports whose LR or SC another bank performed this cycle, which ends their
//! reservation here) and `resv_done` (the ports whose LR or SC this bank performed).

use super::{any, cat_low_first, k, op, uint, Geometry, BLOCK_OFFSET_BITS};
use crate::blocks::amo_alu;
use crate::blocks::bit_at;
use crate::fgsimt::params::{DcacheParams, BLOCK_BYTES};
use crate::fgsimt::plru::Plru;
use crate::memory::{self, ArrayPorts};
use hdl::helpers::{onehot_decode, onehot_encode, onehot_mux};
use hdl::{cat, mux, Bundle, Dir, HdlErrors, Mem, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

/// Bits of a block: a bank request's data, a response's.
pub(super) const BLOCK_BITS: u32 = BLOCK_BYTES * 8;

/// Bank states.
pub(super) const LOOKUP: u64 = 0;
const WB: u64 = 1;
const RD: u64 = 2;
const WAIT: u64 = 3;
const REPLAY: u64 = 4;
pub(super) const FREAD: u64 = 5;
pub(super) const FCHECK: u64 = 6;
pub(super) const FLUSHED: u64 = 7;

/// The request a bank takes from the crossbar (decoupled).
pub fn bank_request(g: &Geometry) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", 32),
        uint("op", op::BITS),
        uint("data", BLOCK_BITS),
        uint("mask", BLOCK_BYTES),
        uint("port", g.port_bits),
        uint("slot", g.slot_bits),
    ]))
}

/// The bank's answer (valid only): the block read (`line`, the wide port's), the word
/// answered to a narrow port.
pub fn bank_response(g: &Geometry) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("line", BLOCK_BITS),
        uint("word", 32),
        uint("port", g.port_bits),
        uint("slot", g.slot_bits),
    ]))
}

/// The request being looked up (datapath registers without reset but `valid`).
pub(super) struct Stage1 {
    pub valid: Value,
    pub addr: Value,
    pub op: Value,
    pub data: Value,
    pub mask: Value,
    pub port: Value,
    pub slot: Value,
}

/// Bank-wide state: the FSM, the arrays' last read set, the way being replaced or
/// flushed, flush walk, outstanding write-back response, the lines' bits, reservations.
struct State {
    state: Value,
    array_set: Value,
    way: Value,
    fset: Value,
    skip: Value,
    lines: Lines,
    resv: Resv,
}

impl State {
    fn st(&self, v: u64) -> Value {
        self.state.eq(&k(&self.state, v, 3))
    }
}

/// The lines' valid and dirty bits: a register a way, a bit a set.
pub(super) struct Lines {
    pub valid: Vec<Value>,
    pub dirty: Vec<Value>,
}

impl Lines {
    pub fn new(m: &mut ModuleBuilder, g: &Geometry) -> Lines {
        let bits = |m: &mut ModuleBuilder, name: &str| -> Vec<Value> {
            (0..g.ways)
                .map(|w| m.reg(&way_name(name, g, w), g.sets, 0u64))
                .collect()
        };
        Lines {
            valid: bits(m, "valid"),
            dirty: bits(m, "dirty"),
        }
    }

    /// Each way's bit of `set` in `bits` (valid or dirty), way 0 lowest.
    pub fn at(bits: &[Value], set: &Value) -> Value {
        cat_low_first(&bits.iter().map(|b| bit_at(b, set)).collect::<Vec<_>>())
    }

    /// The way a miss in `set` replaces (more than one way): the first invalid one, else
    /// the tree's.
    pub fn victim(&self, plru: &Plru, set: &Value) -> Value {
        plru.victim(set, &Lines::at(&self.valid, set))
    }

    /// Each way's line of `set` is valid and dirty.
    pub fn dirty_at(&self, set: &Value) -> Value {
        &Lines::at(&self.valid, set) & &Lines::at(&self.dirty, set)
    }
}

/// The narrow ports' LR reservations: a valid bit and a line each.
pub(super) struct Resv {
    pub valid: Vec<Value>,
    pub line: Vec<Value>,
}

impl Resv {
    pub fn new(m: &mut ModuleBuilder, g: &Geometry) -> Resv {
        Resv {
            valid: (0..g.narrow_ports)
                .map(|q| m.reg(&format!("resv{q}_valid"), 1, false))
                .collect(),
            line: (0..g.narrow_ports)
                .map(|q| {
                    m.reg(
                        &format!("resv{q}_line"),
                        32 - g.offset_bits,
                        ResetValue::None,
                    )
                })
                .collect(),
        }
    }
}

/// The arrays of every way and their read data.
pub(super) struct Arrays {
    pub tags: Vec<Mem>,
    pub datas: Vec<Mem>,
    pub tag_out: Vec<Value>,
    pub data_out: Vec<Value>,
}

impl Arrays {
    /// The address of the line in one-hot `way` of `set` (read last), in bank `bank_id`.
    pub fn line_address(&self, g: &Geometry, way: &Value, set: &Value, bank_id: &Value) -> Value {
        let mut parts = vec![onehot_mux(way, &self.tag_out)];
        if g.set_bits > 0 {
            parts.push(set.clone());
        }
        if g.bank_bits > 0 {
            parts.push(bank_id.clone());
        }
        parts.push(k(set, 0, g.offset_bits));
        cat(&parts.iter().collect::<Vec<_>>())
    }
}

/// What the looked-up request does this cycle.
pub(super) struct Access {
    pub set: Value,
    pub perform: Value,
    pub miss: Value,
    pub writes: Value,
    /// The ways whose tag matched (one-hot, or none).
    pub hits: Value,
    pub line: Value,
    /// The performed write's data and byte mask.
    pub wdata: Value,
    pub wmask: Value,
}

/// The lookup of `s1` when `active` and the hit's effects when `may_perform`: dirty bit,
/// response, reservations.
#[allow(clippy::too_many_arguments)]
pub(super) fn access(
    m: &mut ModuleBuilder,
    g: &Geometry,
    s1: &Stage1,
    (lines, resv): (&Lines, &Resv),
    (active, may_perform): (&Value, &Value),
    a: &Arrays,
    resp: &Bundle,
    (resv_other, resv_done): (&Value, &Value),
) -> Access {
    let set = set_of(g, &s1.addr);
    let valid = Lines::at(&lines.valid, &set);
    let tag = s1.addr.slice(31, g.tag_lo);
    let hit_ways: Vec<Value> = (0..g.ways)
        .map(|w| &valid.bit(w) & &a.tag_out[w as usize].eq(&tag))
        .collect();
    let hits = cat_low_first(&hit_ways);
    let hit = any(&hit_ways);
    let block = g.block_of(&s1.addr);
    let data_out = g.block_in(&onehot_mux(&hits, &a.data_out), &block);
    let perform = &(active & &hit) & may_perform;
    let miss = active & &!&hit;
    let is = |x: u64| s1.op.eq(&k(&s1.op, x, op::BITS));
    let (is_store, is_lr, is_sc) = (is(op::STORE), is(op::LR), is(op::SC));
    let is_amo = s1.op.ge(&k(&s1.op, op::SWAP, op::BITS));
    let word = s1.addr.slice(BLOCK_OFFSET_BITS - 1, 2);
    let old = data_out.dshr(&cat(&[&word, &k(&word, 0, 5)])).slice(31, 0);
    let line = g.line_of(&s1.addr);
    let ports: Vec<Value> = (0..g.narrow_ports)
        .map(|q| s1.port.eq(&k(&s1.port, q as u64, g.port_bits)))
        .collect();
    let sel = cat_low_first(&ports);
    let reserved = &onehot_mux(&sel, &resv.valid) & &onehot_mux(&sel, &resv.line).eq(&line);
    let sc_ok = &is_sc & &reserved;
    let writes = any(&[is_store, is_amo.clone(), sc_ok.clone()]);
    let is_op = |code| s1.op.eq(&k(&s1.op, code + op::AMO_BASE, op::BITS));
    let new = amo_alu(is_op, &old, &s1.data.slice(31, 0));
    let wdata = mux(&is_amo, &new.repeat(BLOCK_BYTES / 4), &s1.data);
    let word_mask = k(&word, 0xf, BLOCK_BYTES).dshl(&cat(&[&word, &k(&word, 0, 2)]));
    let [wdata, wmask] = g.to_line(&block, &wdata, &mux(&is_amo, &word_mask, &s1.mask));
    let set_bit = onehot_decode(&set, g.sets);
    for (w, dirty) in lines.dirty.iter().enumerate() {
        m.when(&(&(&perform & &writes) & &hit_ways[w]), |m| {
            m.connect(dirty, &(dirty | &set_bit));
        });
    }
    let rb = resp.bits();
    m.connect(resp.valid(), &perform);
    m.connect(rb.get("line").value(), &data_out);
    let sc_word = (!&sc_ok).zext(32);
    m.connect(rb.get("word").value(), &mux(&is_sc, &sc_word, &old));
    m.connect(rb.get("port").value(), &s1.port);
    m.connect(rb.get("slot").value(), &s1.slot);
    let mut ends_here = Vec::new();
    let wrote = &perform & &writes;
    for (q, mine) in ports.iter().enumerate() {
        let set_q = &(&perform & &is_lr) & mine;
        let broken = &wrote & &resv.line[q].eq(&line);
        let sc_q = &(&perform & &is_sc) & mine;
        let clear = any(&[broken, sc_q.clone(), resv_other.bit(q as u32)]);
        m.connect(&resv.valid[q], &(&set_q | &(&resv.valid[q] & &!&clear)));
        m.when(&set_q, |m| m.connect(&resv.line[q], &line));
        ends_here.push(&set_q | &sc_q);
    }
    m.connect(resv_done, &cat_low_first(&ends_here));
    Access {
        set,
        perform,
        miss,
        writes,
        hits,
        line,
        wdata,
        wmask,
    }
}

/// The set field of `addr` (a constant 0 with a single set).
pub(super) fn set_of(g: &Geometry, addr: &Value) -> Value {
    if g.set_bits == 0 {
        k(addr, 0, 1)
    } else {
        addr.slice(g.tag_lo - 1, g.offset_bits + g.bank_bits)
    }
}

/// The way a miss replaces (registered in `s.way` as the miss leaves LOOKUP), or the
/// flush walk's way: one-hot.
fn victim_way(g: &Geometry, s: &State, a: &Access, plru: &Plru) -> Value {
    if g.ways == 1 {
        return k(&s.way, 1, 1);
    }
    let choice = s.lines.victim(plru, &a.set);
    onehot_decode(&mux(&s.st(LOOKUP), &choice, &s.way), g.ways)
}

/// The index of one-hot way `way`.
pub(super) fn way_index(g: &Geometry, way: &Value) -> Value {
    match g.ways {
        1 => k(way, 0, 1),
        _ => onehot_encode(way),
    }
}

/// The flush walk: every way of every set, each dirty line written back.
fn flush_walk(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (s1, s): (&Stage1, &State),
    flush: &Value,
    victim_dirty: &Value,
) {
    let start = &(&(&s.st(LOOKUP) & &!&s1.valid) & flush) & &!&s.skip;
    let next = &(&s.st(FCHECK) & &!victim_dirty) & &!&s.skip;
    m.when(&(&s.st(FCHECK) & victim_dirty), |m| {
        m.connect(&s.state, &k(&s.state, WB, 3))
    });
    walk(m, g, (&s.state, &s.fset, &s.way), (&start, &next), flush);
}

/// The flush walk's steps over (`fset`, `way`) in `state`: `start` at set 0 way 0, read
/// a set (FREAD), check each of its ways (FCHECK) and go on with `next`; FLUSHED after
/// the last, until `flush` falls.
pub(super) fn walk(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (state, fset, way): (&Value, &Value, &Value),
    (start, next): (&Value, &Value),
    flush: &Value,
) {
    let go = |m: &mut ModuleBuilder, v: u64| m.connect(state, &k(state, v, 3));
    let st = |v: u64| state.eq(&k(state, v, 3));
    m.when(start, |m| {
        m.connect(fset, &k(flush, 0, g.set_w()));
        m.connect(way, &k(flush, 0, g.way_w()));
        go(m, FREAD);
    });
    m.when(&st(FREAD), |m| go(m, FCHECK));
    let last_set = fset.eq(&k(flush, (g.sets - 1) as u64, g.set_w()));
    let last_way = way.eq(&k(flush, (g.ways - 1) as u64, g.way_w()));
    m.when(&(next & &!&last_way), |m| {
        m.connect(way, &(way + &k(flush, 1, g.way_w())));
    });
    m.when(&(next & &last_way), |m| {
        m.connect(
            state,
            &mux(&last_set, &k(flush, FLUSHED, 3), &k(flush, FREAD, 3)),
        );
        m.connect(way, &k(flush, 0, g.way_w()));
        m.connect(fset, &(fset + &k(flush, 1, g.set_w())));
    });
    m.when(&(&st(FLUSHED) & &!flush), |m| go(m, LOOKUP));
}

/// The miss state machine, the memory port, and the arrays' writes.
#[allow(clippy::too_many_arguments)]
fn miss(
    m: &mut ModuleBuilder,
    g: &Geometry,
    s1: &Stage1,
    s: &State,
    a: &Access,
    arrays: &Arrays,
    plru: &Plru,
    (mem_req, mem_resp, flush, bank_id): (&Bundle, &Bundle, &Value, &Value),
) {
    let st = |v| s.st(v);
    let go = |m: &mut ModuleBuilder, v: u64| m.connect(&s.state, &k(&s.state, v, 3));
    let way = victim_way(g, s, a, plru);
    let way_dirty = s.lines.dirty_at(&s.array_set);
    let victim_dirty = (&way_dirty & &way).or_r();
    m.when(&a.miss, |m| {
        m.connect(&s.way, &way_index(g, &way));
        m.connect(
            &s.state,
            &mux(&victim_dirty, &k(&s.state, WB, 3), &k(&s.state, RD, 3)),
        )
    });
    // The memory port: the victim's (or flushed line's) write-back, then the refill.
    let off = k(&s1.addr, 0, g.offset_bits);
    let victim_addr = arrays.line_address(g, &way, &s.array_set, bank_id);
    let refill_addr = cat(&[&a.line, &off]);
    m.connect(mem_req.valid(), &(&st(WB) | &st(RD)));
    let mb = mem_req.bits();
    m.connect(
        mb.get("addr").value(),
        &mux(&st(RD), &refill_addr, &victim_addr),
    );
    m.connect(mb.get("write").value(), &st(WB));
    m.connect(mb.get("data").value(), &onehot_mux(&way, &arrays.data_out));
    m.connect(mb.get("mask").value(), &k(&off, 1, 1).repeat(g.line_bytes));
    m.connect(mb.get("size").value(), &k(&off, g.offset_bits as u64, 3));
    let fire = mem_req.fire();
    let array_bit = onehot_decode(&s.array_set, g.sets);
    m.when(&(&st(WB) & &fire), |m| {
        m.connect(&s.skip, &k(&off, 1, 1));
        for (w, dirty) in s.lines.dirty.iter().enumerate() {
            let keep = &!&array_bit | &!&way.bit(w as u32).repeat(g.sets);
            m.connect(dirty, &(dirty & &keep));
        }
        m.connect(
            &s.state,
            &mux(&s1.valid, &k(&s.state, RD, 3), &k(&s.state, FCHECK, 3)),
        );
    });
    m.when(&(&st(RD) & &fire), |m| go(m, WAIT));
    let resp = mem_resp.valid();
    m.when(&(resp & &s.skip), |m| m.connect(&s.skip, &k(&off, 0, 1)));
    let refill = &(&st(WAIT) & resp) & &!&s.skip;
    let set_bit = onehot_decode(&a.set, g.sets);
    for w in 0..g.ways as usize {
        let here = &refill & &way.bit(w as u32);
        m.when(&here, |m| {
            m.write(&arrays.tags[w], &a.set, &s1.addr.slice(31, g.tag_lo));
            m.connect(&s.lines.valid[w], &(&s.lines.valid[w] | &set_bit));
            m.connect(&s.lines.dirty[w], &(&s.lines.dirty[w] & &!&set_bit));
        });
    }
    m.when(&refill, |m| go(m, REPLAY));
    // One write port on each data array: a refill of the victim or a performed write
    // on the hit way, both at s1's set.
    let rdata = mem_resp.bits().get("data").value();
    let wdata = mux(&refill, rdata, &a.wdata);
    let wmask = mux(&refill, &k(&off, 1, 1).repeat(g.line_bytes), &a.wmask);
    let written = mux(&refill, &way, &a.hits);
    let writes = &refill | &(&a.perform & &a.writes);
    for (w, data) in arrays.datas.iter().enumerate() {
        m.when(&(&writes & &written.bit(w as u32)), |m| {
            m.write_masked(data, &a.set, &wdata, &wmask)
        });
    }
    m.when(&st(REPLAY), |m| go(m, LOOKUP));
    plru.touch(m, &a.perform, &a.set, &way_index(g, &a.hits));
    flush_walk(m, g, (s1, s), flush, &victim_dirty);
}

fn state(m: &mut ModuleBuilder, g: &Geometry) -> State {
    State {
        state: m.reg("state", 3, LOOKUP),
        array_set: m.reg("array_set", g.set_w(), ResetValue::None),
        way: m.reg("way", g.way_w(), 0u64),
        fset: m.reg("flush_set", g.set_w(), ResetValue::None),
        skip: m.reg("wb_pending", 1, false),
        lines: Lines::new(m, g),
        resv: Resv::new(m, g),
    }
}

/// `name`, suffixed with the way when there are several.
pub(super) fn way_name(name: &str, g: &Geometry, w: u32) -> String {
    match g.ways {
        1 => name.to_string(),
        _ => format!("{name}{w}"),
    }
}

/// The bank request's fields, in [`bank_request`]'s order.
pub(super) const FIELDS: [&str; 6] = ["addr", "op", "data", "mask", "port", "slot"];

impl Stage1 {
    pub fn new(m: &mut ModuleBuilder, g: &Geometry) -> Stage1 {
        let widths = super::mshr::field_widths(g);
        let mut reg = |f: usize| m.reg(&format!("s1_{}", FIELDS[f]), widths[f], ResetValue::None);
        Stage1 {
            addr: reg(0),
            op: reg(1),
            data: reg(2),
            mask: reg(3),
            port: reg(4),
            slot: reg(5),
            valid: m.reg("s1_valid", 1, false),
        }
    }

    /// The held request's fields, in [`FIELDS`] order.
    pub fn fields(&self) -> Vec<Value> {
        [
            &self.addr, &self.op, &self.data, &self.mask, &self.port, &self.slot,
        ]
        .map(Value::clone)
        .to_vec()
    }

    /// Takes `fields` when `en`.
    pub fn load(&self, m: &mut ModuleBuilder, en: &Value, fields: &[Value]) {
        m.when(en, |m| {
            for (r, v) in self.fields().iter().zip(fields) {
                m.connect(r, v);
            }
        });
    }
}

/// A request bundle's fields, in [`FIELDS`] order.
pub(super) fn request_fields(req: &Bundle) -> Vec<Value> {
    FIELDS.map(|f| req.bits().get(f).value().clone()).to_vec()
}

/// A tag and a data array a way, all read at `addr` when `en`.
pub(super) fn arrays(
    m: &mut ModuleBuilder,
    g: &Geometry,
    style: impl Fn(u32) -> hdl::MemStyle,
    (addr, en): (&Value, &Value),
) -> Arrays {
    let tag_w = 32 - g.tag_lo;
    let tags: Vec<Mem> = (0..g.ways)
        .map(|w| m.mem(&way_name("tags", g, w), g.sets as u64, tag_w, style(tag_w)))
        .collect();
    let datas: Vec<Mem> = (0..g.ways)
        .map(|w| {
            m.mem(
                &way_name("data", g, w),
                g.sets as u64,
                g.line_bits,
                style(g.line_bits),
            )
        })
        .collect();
    let tag_out = tags.iter().map(|t| m.read_sync(t, addr, en)).collect();
    let data_out = datas.iter().map(|d| m.read_sync(d, addr, en)).collect();
    Arrays {
        tags,
        datas,
        tag_out,
        data_out,
    }
}

/// One bank of `p`'s D$.
pub fn bank(p: &DcacheParams) -> Result<Rc<Module>, HdlErrors> {
    let g = Geometry::new(p);
    let mut m = ModuleBuilder::new("FgsimtDcacheBank");
    let req = m.io("req", Dir::In, &bank_request(&g));
    let resp = m.io("resp", Dir::Out, &bank_response(&g));
    let mem_req = m.io("mem_req", Dir::Out, &super::xbar::line_mem_request(&g));
    let mem_resp = m.io("mem_resp", Dir::In, &super::xbar::line_mem_response(&g));
    let flush = m.input("flush", 1);
    let flushed = m.output("flushed", 1);
    let idle = m.output("idle", 1);
    let bank_id = if g.bank_bits > 0 {
        m.input("bank_id", g.bank_bits)
    } else {
        k(&flush, 0, 1)
    };
    let resv_other = m.input("resv_other", g.narrow_ports);
    let resv_done = m.output("resv_done", g.narrow_ports);
    let s = state(&mut m, &g);
    let ready = m.wire("ready", 1);
    let fire = req.valid() & &ready;
    let s1 = Stage1::new(&mut m, &g);
    s1.load(&mut m, &fire, &request_fields(&req));

    let style = |w| {
        memory::style(
            g.sets as u64,
            w,
            ArrayPorts::SYNC_1R1W,
            p.sram_threshold_bits,
        )
    };
    let req_set = set_of(&g, req.bits().get("addr").value());
    let s1_set = set_of(&g, &s1.addr);
    let rd_set = mux(&fire, &req_set, &mux(&s.st(FREAD), &s.fset, &s1_set));
    let rd_en = any(&[fire.clone(), s.st(REPLAY), s.st(FREAD)]);
    let arrays = arrays(&mut m, &g, style, (&rd_set, &rd_en));
    m.when(&rd_en, |m| m.connect(&s.array_set, &rd_set));

    let active = &s1.valid & &s.st(LOOKUP);
    let a = access(
        &mut m,
        &g,
        &s1,
        (&s.lines, &s.resv),
        (&active, &k(&active, 1, 1)),
        &arrays,
        &resp,
        (&resv_other, &resv_done),
    );
    let hazard = &(&a.perform & &a.writes) & &req_set.eq(&s1_set);
    let free = &!&s1.valid | &(&a.perform & &!&hazard);
    m.connect(&ready, &(&(&s.st(LOOKUP) & &!&flush) & &free));
    m.connect(req.ready(), &ready);
    m.when(&a.perform, |m| m.connect(&s1.valid, &k(&flush, 0, 1)));
    m.when(&fire, |m| m.connect(&s1.valid, &k(&flush, 1, 1)));
    let plru = Plru::new(&mut m, "plru", g.sets, g.ways);
    let io = (&mem_req, &mem_resp, &flush, &bank_id);
    miss(&mut m, &g, &s1, &s, &a, &arrays, &plru, io);
    m.connect(&flushed, &s.st(FLUSHED));
    let quiet = &(&s.st(LOOKUP) & &!&s1.valid) & &!&s.skip;
    m.connect(&idle, &quiet);
    m.finish()
}
