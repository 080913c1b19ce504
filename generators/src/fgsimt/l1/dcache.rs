//! `FgsimtDcacheBank`: one bank of the FG-SIMT L1 D$ (seed 000, section 1.7, Figure 3):
//! blocking, direct-mapped, 32-byte lines, write-back write-allocate, one 32-bit or one
//! 256-bit access per cycle.
//!
//! A request is looked up the cycle after the bank accepts it (tag and data arrays are
//! synchronous-read, one read and one write port each, so the memory policy makes the
//! large ones macros; valid and dirty bits are registers). A hit is performed in that
//! cycle and answered; the bank accepts the next request in the same cycle unless the
//! hit writes the set the next one reads (one bubble, no forwarding). A miss writes the
//! victim back if it is dirty, refills the line with one 32-byte read, rereads the
//! arrays and performs the access as a hit. The requests arrive in the crossbar's form:
//! narrow data replicated over the line and its byte mask in place, so stores of both
//! widths are the same masked write.
//!
//! Ports: `req` (decoupled), `resp` (valid: the line, the access's word, port, slot),
//! `mem_req`/`mem_resp` (32-byte memory port, untagged, in order), `flush`/`flushed`,
//! `idle`, `bank_id` (with more than one bank), `resv_other` (ports whose LR or SC another
//! bank performed this cycle, which ends their reservation here) and `resv_done` (the
//! ports whose LR or SC this bank performed).

use super::{any, cat_low_first, k, op, uint, Geometry, OFFSET_BITS};
use crate::blocks::amo_alu;
use crate::blocks::bit_at;
use crate::fgsimt::params::{DcacheParams, LINE_BYTES};
use crate::memory::{self, ArrayPorts};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::{cat, mux, Bundle, Dir, HdlErrors, Mem, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

const LINE_BITS: u32 = LINE_BYTES * 8;

/// Bank states.
const LOOKUP: u64 = 0;
const WB: u64 = 1;
const RD: u64 = 2;
const WAIT: u64 = 3;
const REPLAY: u64 = 4;
const FREAD: u64 = 5;
const FCHECK: u64 = 6;
const FLUSHED: u64 = 7;

/// The request a bank takes from the crossbar (decoupled).
pub fn bank_request(g: &Geometry) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", 32),
        uint("op", op::BITS),
        uint("data", LINE_BITS),
        uint("mask", LINE_BYTES),
        uint("port", g.port_bits),
        uint("slot", g.slot_bits),
    ]))
}

/// The bank's answer (valid only): the line read, the word answered to a narrow port.
pub fn bank_response(g: &Geometry) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("line", LINE_BITS),
        uint("word", 32),
        uint("port", g.port_bits),
        uint("slot", g.slot_bits),
    ]))
}

/// The request being looked up (datapath registers without reset but `valid`).
struct Stage1 {
    valid: Value,
    addr: Value,
    op: Value,
    data: Value,
    mask: Value,
    port: Value,
    slot: Value,
}

/// Bank-wide state: the FSM, the arrays' last read set, flush walk, outstanding
/// write-back response, valid/dirty bits, reservations.
struct State {
    state: Value,
    array_set: Value,
    fset: Value,
    skip: Value,
    valid: Value,
    dirty: Value,
    resv_valid: Vec<Value>,
    resv_line: Vec<Value>,
}

impl State {
    fn st(&self, v: u64) -> Value {
        self.state.eq(&k(&self.state, v, 3))
    }
}

/// What the looked-up request does this cycle.
struct Access {
    set: Value,
    perform: Value,
    miss: Value,
    writes: Value,
    line: Value,
    /// The performed write's data and byte mask.
    wdata: Value,
    wmask: Value,
}

/// The lookup and the hit's effects: array write, dirty bit, response, reservations.
#[allow(clippy::too_many_arguments)]
fn access(
    m: &mut ModuleBuilder,
    g: &Geometry,
    s1: &Stage1,
    s: &State,
    (tag_out, data_out): (&Value, &Value),
    resp: &Bundle,
    resv_other: &Value,
    resv_done: &Value,
) -> Access {
    let set = set_of(g, &s1.addr);
    let v = bit_at(&s.valid, &set);
    let hit = &v & &tag_out.eq(&s1.addr.slice(31, g.tag_lo));
    let active = &s1.valid & &s.st(LOOKUP);
    let perform = &active & &hit;
    let miss = &active & &!&hit;
    let is = |x: u64| s1.op.eq(&k(&s1.op, x, op::BITS));
    let (is_store, is_lr, is_sc) = (is(op::STORE), is(op::LR), is(op::SC));
    let is_amo = s1.op.ge(&k(&s1.op, op::SWAP, op::BITS));
    let word = s1.addr.slice(OFFSET_BITS - 1, 2);
    let old = data_out.dshr(&cat(&[&word, &k(&word, 0, 5)])).slice(31, 0);
    let line = s1.addr.slice(31, OFFSET_BITS);
    let ports: Vec<Value> = (0..g.narrow_ports)
        .map(|q| s1.port.eq(&k(&s1.port, q as u64, g.port_bits)))
        .collect();
    let sel = cat_low_first(&ports);
    let reserved = &onehot_mux(&sel, &s.resv_valid) & &onehot_mux(&sel, &s.resv_line).eq(&line);
    let sc_ok = &is_sc & &reserved;
    let writes = any(&[is_store, is_amo.clone(), sc_ok.clone()]);
    let is_op = |code| s1.op.eq(&k(&s1.op, code + op::AMO_BASE, op::BITS));
    let new = amo_alu(is_op, &old, &s1.data.slice(31, 0));
    let wdata = mux(&is_amo, &new.repeat(LINE_BYTES / 4), &s1.data);
    let word_mask = k(&word, 0xf, LINE_BYTES).dshl(&cat(&[&word, &k(&word, 0, 2)]));
    let wmask = mux(&is_amo, &word_mask, &s1.mask);
    m.when(&(&perform & &writes), |m| {
        m.connect(&s.dirty, &(&s.dirty | &onehot_decode(&set, g.sets)));
    });
    let rb = resp.bits();
    m.connect(resp.valid(), &perform);
    m.connect(rb.get("line").value(), data_out);
    let sc_word = (!&sc_ok).zext(32);
    m.connect(rb.get("word").value(), &mux(&is_sc, &sc_word, &old));
    m.connect(rb.get("port").value(), &s1.port);
    m.connect(rb.get("slot").value(), &s1.slot);
    let mut ends_here = Vec::new();
    let wrote = &perform & &writes;
    for (q, mine) in ports.iter().enumerate() {
        let set_q = &(&perform & &is_lr) & mine;
        let broken = &wrote & &s.resv_line[q].eq(&line);
        let sc_q = &(&perform & &is_sc) & mine;
        let clear = any(&[broken, sc_q.clone(), resv_other.bit(q as u32)]);
        m.connect(&s.resv_valid[q], &(&set_q | &(&s.resv_valid[q] & &!&clear)));
        m.when(&set_q, |m| m.connect(&s.resv_line[q], &line));
        ends_here.push(&set_q | &sc_q);
    }
    m.connect(resv_done, &cat_low_first(&ends_here));
    Access {
        set,
        perform,
        miss,
        writes,
        line,
        wdata,
        wmask,
    }
}

/// The set field of `addr` (a constant 0 with a single set).
fn set_of(g: &Geometry, addr: &Value) -> Value {
    if g.set_bits == 0 {
        k(addr, 0, 1)
    } else {
        addr.slice(g.tag_lo - 1, OFFSET_BITS + g.bank_bits)
    }
}

/// The miss and flush state machine, the memory port, and the arrays' writes.
#[allow(clippy::too_many_arguments)]
fn miss_and_flush(
    m: &mut ModuleBuilder,
    g: &Geometry,
    s1: &Stage1,
    s: &State,
    a: &Access,
    (tags, datas): (&Mem, &Mem),
    (tag_out, data_out): (&Value, &Value),
    (mem_req, mem_resp, flush, bank_id): (&Bundle, &Bundle, &Value, &Value),
) {
    let st = |v| s.st(v);
    let go = |m: &mut ModuleBuilder, v: u64| m.connect(&s.state, &k(&s.state, v, 3));
    let victim_dirty = &bit_at(&s.valid, &s.array_set) & &bit_at(&s.dirty, &s.array_set);
    m.when(&a.miss, |m| {
        m.connect(
            &s.state,
            &mux(&victim_dirty, &k(&s.state, WB, 3), &k(&s.state, RD, 3)),
        )
    });
    // The memory port: the victim's (or flushed line's) write-back, then the refill.
    let off = k(&s1.addr, 0, OFFSET_BITS);
    let mut victim = vec![tag_out.clone()];
    if g.set_bits > 0 {
        victim.push(s.array_set.clone());
    }
    if g.bank_bits > 0 {
        victim.push(bank_id.clone());
    }
    victim.push(off.clone());
    let victim_refs: Vec<&Value> = victim.iter().collect();
    let victim_addr = cat(&victim_refs);
    let refill_addr = cat(&[&a.line, &off]);
    m.connect(mem_req.valid(), &(&st(WB) | &st(RD)));
    let mb = mem_req.bits();
    m.connect(
        mb.get("addr").value(),
        &mux(&st(RD), &refill_addr, &victim_addr),
    );
    m.connect(mb.get("write").value(), &st(WB));
    m.connect(mb.get("data").value(), data_out);
    m.connect(mb.get("mask").value(), &k(&off, 1, 1).repeat(LINE_BYTES));
    m.connect(mb.get("size").value(), &k(&off, OFFSET_BITS as u64, 3));
    let fire = mem_req.fire();
    let array_bit = onehot_decode(&s.array_set, g.sets);
    m.when(&(&st(WB) & &fire), |m| {
        m.connect(&s.skip, &k(&off, 1, 1));
        m.connect(&s.dirty, &(&s.dirty & &!&array_bit));
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
    m.when(&refill, |m| {
        m.write(tags, &a.set, &s1.addr.slice(31, g.tag_lo));
        m.connect(&s.valid, &(&s.valid | &set_bit));
        m.connect(&s.dirty, &(&s.dirty & &!&set_bit));
        go(m, REPLAY);
    });
    // One write port on the data array: a refill or a performed write, both at s1's set.
    let rdata = mem_resp.bits().get("data").value();
    let wdata = mux(&refill, rdata, &a.wdata);
    let wmask = mux(&refill, &k(&off, 1, 1).repeat(LINE_BYTES), &a.wmask);
    m.when(&(&refill | &(&a.perform & &a.writes)), |m| {
        m.write_masked(datas, &a.set, &wdata, &wmask)
    });
    m.when(&st(REPLAY), |m| go(m, LOOKUP));
    // Flush: walk every set, write back the dirty lines.
    let start = &(&(&st(LOOKUP) & &!&s1.valid) & flush) & &!&s.skip;
    m.when(&start, |m| {
        m.connect(&s.fset, &k(&off, 0, g.set_w()));
        go(m, FREAD);
    });
    m.when(&st(FREAD), |m| go(m, FCHECK));
    let last = s.fset.eq(&k(&off, (g.sets - 1) as u64, g.set_w()));
    let next = &(&st(FCHECK) & &!&victim_dirty) & &!&s.skip;
    m.when(&(&st(FCHECK) & &victim_dirty), |m| go(m, WB));
    m.when(&next, |m| {
        m.connect(
            &s.state,
            &mux(&last, &k(&off, FLUSHED, 3), &k(&off, FREAD, 3)),
        );
        m.connect(&s.fset, &(&s.fset + &k(&off, 1, g.set_w())));
    });
    m.when(&(&st(FLUSHED) & &!flush), |m| go(m, LOOKUP));
}

fn state(m: &mut ModuleBuilder, g: &Geometry) -> State {
    State {
        state: m.reg("state", 3, LOOKUP),
        array_set: m.reg("array_set", g.set_w(), ResetValue::None),
        fset: m.reg("flush_set", g.set_w(), ResetValue::None),
        skip: m.reg("wb_pending", 1, false),
        valid: m.reg("valid", g.sets, 0u64),
        dirty: m.reg("dirty", g.sets, 0u64),
        resv_valid: (0..g.narrow_ports)
            .map(|q| m.reg(&format!("resv{q}_valid"), 1, false))
            .collect(),
        resv_line: (0..g.narrow_ports)
            .map(|q| m.reg(&format!("resv{q}_line"), 32 - OFFSET_BITS, ResetValue::None))
            .collect(),
    }
}

/// Stage 1 takes an accepted request; a performed one leaves.
fn stage1(m: &mut ModuleBuilder, req: &Bundle, fire: &Value) -> Stage1 {
    let rb = req.bits();
    let mut reg = |name: &str| {
        let w = rb.get(name).value().width();
        let r = m.reg(&format!("s1_{name}"), w, ResetValue::None);
        m.when(fire, |m| m.connect(&r, rb.get(name).value()));
        r
    };
    Stage1 {
        addr: reg("addr"),
        op: reg("op"),
        data: reg("data"),
        mask: reg("mask"),
        port: reg("port"),
        slot: reg("slot"),
        valid: m.reg("s1_valid", 1, false),
    }
}

/// One bank of `p`'s D$.
pub fn bank(p: &DcacheParams) -> Result<Rc<Module>, HdlErrors> {
    let g = Geometry::new(p);
    let mut m = ModuleBuilder::new("FgsimtDcacheBank");
    let req = m.io("req", Dir::In, &bank_request(&g));
    let resp = m.io("resp", Dir::Out, &bank_response(&g));
    let mem_req = m.io("mem_req", Dir::Out, &super::xbar::line_mem_request());
    let mem_resp = m.io("mem_resp", Dir::In, &super::xbar::line_mem_response());
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
    let s1 = stage1(&mut m, &req, &fire);

    let style = |w| {
        memory::style(
            g.sets as u64,
            w,
            ArrayPorts::SYNC_1R1W,
            p.sram_threshold_bits,
        )
    };
    let tags = m.mem("tags", g.sets as u64, 32 - g.tag_lo, style(32 - g.tag_lo));
    let datas = m.mem("data", g.sets as u64, LINE_BITS, style(LINE_BITS));
    let req_set = set_of(&g, req.bits().get("addr").value());
    let s1_set = set_of(&g, &s1.addr);
    let rd_set = mux(&fire, &req_set, &mux(&s.st(FREAD), &s.fset, &s1_set));
    let rd_en = any(&[fire.clone(), s.st(REPLAY), s.st(FREAD)]);
    let tag_out = m.read_sync(&tags, &rd_set, &rd_en);
    let data_out = m.read_sync(&datas, &rd_set, &rd_en);
    m.when(&rd_en, |m| m.connect(&s.array_set, &rd_set));

    let outs = (&tag_out, &data_out);
    let a = access(&mut m, &g, &s1, &s, outs, &resp, &resv_other, &resv_done);
    let hazard = &(&a.perform & &a.writes) & &req_set.eq(&s1_set);
    let free = &!&s1.valid | &(&a.perform & &!&hazard);
    m.connect(&ready, &(&(&s.st(LOOKUP) & &!&flush) & &free));
    m.connect(req.ready(), &ready);
    m.when(&a.perform, |m| m.connect(&s1.valid, &k(&flush, 0, 1)));
    m.when(&fire, |m| m.connect(&s1.valid, &k(&flush, 1, 1)));
    let io = (&mem_req, &mem_resp, &flush, &bank_id);
    miss_and_flush(&mut m, &g, &s1, &s, &a, (&tags, &datas), outs, io);
    m.connect(&flushed, &s.st(FLUSHED));
    let quiet = &(&s.st(LOOKUP) & &!&s1.valid) & &!&s.skip;
    m.connect(&idle, &quiet);
    m.finish()
}
