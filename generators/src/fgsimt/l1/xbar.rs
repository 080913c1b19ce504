//! `FgsimtL1Dcache`: the FG-SIMT D$ (seed 000, section 1.7, Figure 3): the banks of
//! `dcache.rs` behind the queued request/response crossbar of the narrow ports and the
//! wide port, and the uncached path (the conventions are in `l1/mod.rs`).
//!
//! Each port's request goes to its line's bank (or to the uncached path); each bank,
//! and the uncached path, grants one requesting port per cycle round-robin (the port
//! after the last one granted first). An accepted request takes the port's reorder
//! buffer slot at its tail; the answer of any bank fills its slot, and the head's answer
//! leaves as the port's response as soon as it is in, so each port sees its responses in
//! request order.

use super::dcache::bank;
use super::{any, cat_low_first, k, narrow_request, narrow_response, op, wide_request};
use super::{uint, wide_response, Geometry, BLOCK_OFFSET_BITS, PORT_ENTRIES};
use crate::blocks::round_robin;
use crate::fgsimt::params::{DcacheParams, BLOCK_BYTES};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::{cat, mux, Bits, Bundle, Dir, HdlErrors, Inst, Module, ModuleBuilder, ResetValue};
use hdl::{Shape, Value};
use std::rc::Rc;

/// A bank's memory request, a line wide: the memory model's `request_shape(32, line
/// bytes, 0)`.
pub fn line_mem_request(g: &Geometry) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", 32),
        uint("write", 1),
        uint("data", g.line_bits),
        uint("mask", g.line_bytes),
        uint("size", 3),
    ]))
}

/// A bank's memory response (valid only, always accepted).
pub fn line_mem_response(g: &Geometry) -> Shape {
    Shape::valid(Shape::bundle(vec![uint("data", g.line_bits)]))
}

/// Tag of the uncached port: SC flag, port, slot.
pub fn io_tag_bits(g: &Geometry) -> u32 {
    1 + g.port_bits + g.slot_bits
}

/// The uncached port's request: the memory model's `amo_request_shape(32, 4, tag)`.
pub fn io_mem_request(tag_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", 32),
        uint("write", 1),
        uint("data", 32),
        uint("mask", 4),
        uint("size", 3),
        uint("tag", tag_bits),
        uint("amo", 4),
    ]))
}

/// The uncached port's response (valid only).
pub fn io_mem_response(tag_bits: u32) -> Shape {
    Shape::valid(Shape::bundle(vec![uint("data", 32), uint("tag", tag_bits)]))
}

/// A port's reorder buffer: per slot a done bit, the answer and the requester's tag.
struct Rob {
    count: Value,
    head: Value,
    tail: Value,
    done: Vec<Value>,
    data: Vec<Value>,
    tags: Vec<Value>,
    /// An ordered request (LR, SC, uncached) is in flight.
    hold: Value,
}

fn rob(m: &mut ModuleBuilder, name: &str, g: &Geometry, data_w: u32, tag_w: u32) -> Rob {
    let e = PORT_ENTRIES as usize;
    Rob {
        count: m.reg(&format!("{name}_count"), g.slot_bits + 1, 0u64),
        head: m.reg(&format!("{name}_head"), g.slot_bits, 0u64),
        tail: m.reg(&format!("{name}_tail"), g.slot_bits, 0u64),
        done: (0..e)
            .map(|i| m.reg(&format!("{name}_done{i}"), 1, false))
            .collect(),
        data: (0..e)
            .map(|i| m.reg(&format!("{name}_data{i}"), data_w, ResetValue::None))
            .collect(),
        tags: (0..e)
            .map(|i| m.reg(&format!("{name}_tag{i}"), tag_w, ResetValue::None))
            .collect(),
        hold: m.reg(&format!("{name}_hold"), 1, false),
    }
}

/// An answer from a bank or the uncached path: valid, port, slot, data.
#[derive(Clone)]
struct Answer {
    valid: Value,
    port: Value,
    slot: Value,
    data: Value,
}

/// A port's request, decoded for the crossbar.
struct PortReq {
    req: Bundle,
    rob: Rob,
    /// Valid and allowed to go now.
    go: Value,
    cached: Value,
    bank: Value,
    ordered: Value,
    /// The fields of `bank_request`, in order.
    to_bank: Vec<Value>,
    /// The fields of `io_mem_request` (narrow ports).
    to_io: Vec<Value>,
}

/// `addr` in `[base, base + size)`.
fn uncached(addr: &Value, p: &DcacheParams) -> Value {
    if p.uncached_size == 0 {
        return k(addr, 0, 1);
    }
    let a = addr.zext(33);
    let c = |v: u64| a.konst(Bits::from_u64(33, v));
    &a.ge(&c(p.uncached_base)) & &a.lt(&c(p.uncached_base + p.uncached_size))
}

/// The bank of `addr` (a constant 0 with one bank).
fn bank_of(g: &Geometry, addr: &Value) -> Value {
    if g.bank_bits == 0 {
        k(addr, 0, 1)
    } else {
        addr.slice(g.offset_bits + g.bank_bits - 1, g.offset_bits)
    }
}

/// Whether the port may send a request now: a free slot, no ordered request in flight,
/// an ordered request only into an empty buffer, and no flush.
fn may_go(rob: &Rob, ordered: &Value, flush: &Value) -> Value {
    let c = &rob.count;
    let room = c.lt(&k(c, PORT_ENTRIES as u64, c.width()));
    let empty = c.eq(&k(c, 0, c.width()));
    let ok = &(&room & &!&rob.hold) & &(&!ordered | &empty);
    &ok & &!flush
}

fn narrow_port(
    m: &mut ModuleBuilder,
    p: &DcacheParams,
    g: &Geometry,
    i: u32,
    tag_bits: u32,
    flush: &Value,
) -> PortReq {
    let req = m.io(&format!("n{i}_req"), Dir::In, &narrow_request(tag_bits));
    let rob = rob(m, &format!("n{i}_rob"), g, 32, tag_bits);
    let f = |n: &str| req.bits().get(n).value().clone();
    let (addr, opv, data, mask) = (f("addr"), f("op"), f("data"), f("mask"));
    let is = |x: u64| opv.eq(&k(&opv, x, op::BITS));
    let is_amo = opv.ge(&k(&opv, op::SWAP, op::BITS));
    let unc = uncached(&addr, p);
    let ordered = any(&[unc.clone(), is(op::LR), is(op::SC)]);
    let go = req.valid() & &may_go(&rob, &ordered, flush);
    let word = addr.slice(BLOCK_OFFSET_BITS - 1, 2);
    let port = k(&addr, i as u64, g.port_bits);
    let to_bank = vec![
        addr.clone(),
        opv.clone(),
        data.repeat(BLOCK_BYTES / 4),
        mask.zext(BLOCK_BYTES).dshl(&cat(&[&word, &k(&word, 0, 2)])),
        port.clone(),
        rob.tail.clone(),
    ];
    let write = &is(op::STORE) | &is_amo;
    let zero4 = k(&addr, 0, 4);
    let io_mask = mux(
        &is_amo,
        &k(&addr, 0xf, 4),
        &mux(&is(op::STORE), &mask, &zero4),
    );
    let amo_code = &opv - &k(&opv, op::AMO_BASE, op::BITS);
    let to_io = vec![
        addr.clone(),
        write,
        data,
        io_mask,
        mux(&is_amo, &k(&addr, 2, 3), &f("size").zext(3)),
        cat(&[&is(op::SC), &port, &rob.tail]),
        mux(&is_amo, &amo_code, &zero4),
    ];
    PortReq {
        go,
        cached: !&unc,
        bank: bank_of(g, &addr),
        ordered,
        to_bank,
        to_io,
        req,
        rob,
    }
}

fn wide_port(m: &mut ModuleBuilder, g: &Geometry, tag_bits: u32, flush: &Value) -> PortReq {
    let req = m.io("w_req", Dir::In, &wide_request(tag_bits));
    let rob = rob(m, "w_rob", g, BLOCK_BYTES * 8, tag_bits);
    let f = |n: &str| req.bits().get(n).value().clone();
    let addr = f("addr");
    let ordered = k(&addr, 0, 1);
    let go = req.valid() & &may_go(&rob, &ordered, flush);
    let to_bank = vec![
        addr.clone(),
        f("write").zext(op::BITS),
        f("data"),
        f("mask"),
        k(&addr, g.narrow_ports as u64, g.port_bits),
        rob.tail.clone(),
    ];
    PortReq {
        go,
        cached: k(&addr, 1, 1),
        bank: bank_of(g, &addr),
        ordered,
        to_bank,
        to_io: Vec::new(),
        req,
        rob,
    }
}

/// Grants `ports`' requests to a target (a bank or the uncached path) whose request
/// channel is `out` (fields in `fields` order, taken from `pick`): returns each port's
/// acceptance by this target.
fn arbitrate(
    m: &mut ModuleBuilder,
    name: &str,
    wants: &[Value],
    (out_valid, out_ready, out_fields): (&Value, &Value, &[Value]),
    pick: &dyn Fn(usize) -> Vec<Value>,
) -> Vec<Value> {
    let fire = m.wire(&format!("{name}_fire"), 1);
    let grant = round_robin(m, &format!("{name}_last"), wants, &fire);
    let valid = any(wants);
    m.connect(out_valid, &valid);
    m.connect(&fire, &(&valid & out_ready));
    let sel = cat_low_first(&grant);
    let fields: Vec<Vec<Value>> = (0..wants.len()).map(pick).collect();
    for (f, out) in out_fields.iter().enumerate() {
        let column: Vec<Value> = fields.iter().map(|v| v[f].clone()).collect();
        m.connect(out, &onehot_mux(&sel, &column));
    }
    grant.iter().map(|g| g & out_ready).collect()
}

/// The port's reorder buffer: allocation on acceptance, fills from the answers, the
/// head's answer out as the response.
fn rob_update(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (pr, index, accept): (&PortReq, u32, &Value),
    answers: &[Answer],
    resp: &Bundle,
) {
    let rob = &pr.rob;
    let sw = g.slot_bits;
    let head_sel = onehot_decode(&rob.head, PORT_ENTRIES);
    let out = onehot_mux(&head_sel, &rob.done);
    m.connect(resp.valid(), &out);
    let rb = resp.bits();
    m.connect(rb.get("data").value(), &onehot_mux(&head_sel, &rob.data));
    m.connect(rb.get("tag").value(), &onehot_mux(&head_sel, &rob.tags));
    let me = |a: &Answer| &a.valid & &a.port.eq(&k(&a.port, index as u64, g.port_bits));
    for e in 0..PORT_ENTRIES as usize {
        let hits: Vec<Value> = answers
            .iter()
            .map(|a| &me(a) & &a.slot.eq(&k(&a.slot, e as u64, sw)))
            .collect();
        let datas: Vec<Value> = answers.iter().map(|a| a.data.clone()).collect();
        let d = onehot_mux(&cat_low_first(&hits), &datas);
        let tail_here = rob.tail.eq(&k(&rob.tail, e as u64, sw));
        m.when(&(accept & &tail_here), |m| {
            m.connect(&rob.tags[e], pr.req.bits().get("tag").value())
        });
        m.when(&(&out & &head_sel.bit(e as u32)), |m| {
            m.connect(&rob.done[e], &k(&out, 0, 1))
        });
        m.when(&any(&hits), |m| {
            m.connect(&rob.done[e], &k(&out, 1, 1));
            m.connect(&rob.data[e], &d);
        });
    }
    let one = |w| k(&out, 1, w);
    m.when(accept, |m| m.connect(&rob.tail, &(&rob.tail + &one(sw))));
    m.when(&out, |m| m.connect(&rob.head, &(&rob.head + &one(sw))));
    let cw = sw + 1;
    let count = &(&rob.count + &accept.zext(cw)) - &out.zext(cw);
    m.connect(&rob.count, &count);
    let last = &out & &rob.count.eq(&one(cw));
    let hold = &(accept & &pr.ordered) | &(&rob.hold & &!&last);
    m.connect(&rob.hold, &hold);
}

/// A bank instance's ports, with its memory port brought out as `b<i>_mem`.
fn bank_inst(m: &mut ModuleBuilder, module: &Rc<Module>, g: &Geometry, b: u32) -> Inst {
    let inst = m.instance(&format!("bank{b}"), module);
    let mem_req = m.io(&format!("b{b}_mem_req"), Dir::Out, &line_mem_request(g));
    let mem_resp = m.io(&format!("b{b}_mem_resp"), Dir::In, &line_mem_response(g));
    m.connect(mem_req.valid(), &inst.port("mem_req_valid"));
    m.connect(&inst.port("mem_req_ready"), mem_req.ready());
    for f in ["addr", "write", "data", "mask", "size"] {
        let v = inst.port(&format!("mem_req_bits_{f}"));
        m.connect(mem_req.bits().get(f).value(), &v);
    }
    m.connect(&inst.port("mem_resp_valid"), mem_resp.valid());
    let d = mem_resp.bits().get("data").value();
    m.connect(&inst.port("mem_resp_bits_data"), d);
    if g.bank_bits > 0 {
        let id = m.lit(b as u64, g.bank_bits);
        m.connect(&inst.port("bank_id"), &id);
    }
    inst
}

const BANK_FIELDS: [&str; 6] = ["addr", "op", "data", "mask", "port", "slot"];
const IO_FIELDS: [&str; 7] = ["addr", "write", "data", "mask", "size", "tag", "amo"];

/// The D$ of `p` with `tag_bits` (at least 1) of request tag on every port.
pub fn dcache(p: &DcacheParams, tag_bits: u32) -> Result<Rc<Module>, HdlErrors> {
    let g = Geometry::new(p);
    let mut m = ModuleBuilder::new("FgsimtL1Dcache");
    let flush = m.input("flush", 1);
    let bank_mod = match p.mshrs {
        0 => bank(p)?,
        _ => super::nonblocking::bank(p)?,
    };
    let mut ports: Vec<PortReq> = (0..p.narrow_ports)
        .map(|i| narrow_port(&mut m, p, &g, i, tag_bits, &flush))
        .collect();
    ports.push(wide_port(&mut m, &g, tag_bits, &flush));
    let banks: Vec<Inst> = (0..p.banks)
        .map(|b| bank_inst(&mut m, &bank_mod, &g, b))
        .collect();
    let mut accepts: Vec<Vec<Value>> = vec![Vec::new(); ports.len()];
    for (b, inst) in banks.iter().enumerate() {
        let wants: Vec<Value> = ports
            .iter()
            .map(|pr| &(&pr.go & &pr.cached) & &pr.bank.eq(&k(&pr.bank, b as u64, pr.bank.width())))
            .collect();
        let outs: Vec<Value> = BANK_FIELDS
            .iter()
            .map(|f| inst.port(&format!("req_bits_{f}")))
            .collect();
        let io = (&inst.port("req_valid"), &inst.port("req_ready"), &outs[..]);
        let pick = |i: usize| ports[i].to_bank.clone();
        let got = arbitrate(&mut m, &format!("bank{b}_arb"), &wants, io, &pick);
        for (i, a) in got.into_iter().enumerate() {
            accepts[i].push(a);
        }
    }
    let io_answer = uncached_path(&mut m, &g, &ports, &mut accepts);
    let answers = answers(&mut m, &g, &banks, &flush);
    for (i, pr) in ports.iter().enumerate() {
        let accept = any(&accepts[i]);
        m.connect(pr.req.ready(), &accept);
        let wide = i == p.narrow_ports as usize;
        let resp = if wide {
            m.io("w_resp", Dir::Out, &wide_response(tag_bits))
        } else {
            m.io(&format!("n{i}_resp"), Dir::Out, &narrow_response(tag_bits))
        };
        let mut srcs: Vec<Answer> = answers
            .iter()
            .map(|(a, line)| Answer {
                data: if wide { line.clone() } else { a.data.clone() },
                ..a.clone()
            })
            .collect();
        if !wide {
            srcs.push(io_answer.clone());
        }
        rob_update(&mut m, &g, (pr, i as u32, &accept), &srcs, &resp);
    }
    status(&mut m, &banks, &ports);
    m.finish()
}

/// The uncached path: narrow ports' uncached requests granted round-robin onto `io_mem`;
/// returns its answers (an SC's is 1: it fails).
fn uncached_path(
    m: &mut ModuleBuilder,
    g: &Geometry,
    ports: &[PortReq],
    accepts: &mut [Vec<Value>],
) -> Answer {
    let tb = io_tag_bits(g);
    let req = m.io("io_mem_req", Dir::Out, &io_mem_request(tb));
    let resp = m.io("io_mem_resp", Dir::In, &io_mem_response(tb));
    let narrow = &ports[..ports.len() - 1];
    let wants: Vec<Value> = narrow.iter().map(|pr| &pr.go & &!&pr.cached).collect();
    let outs: Vec<Value> = IO_FIELDS
        .iter()
        .map(|f| req.bits().get(f).value().clone())
        .collect();
    let io = (req.valid(), req.ready(), &outs[..]);
    let pick = |i: usize| narrow[i].to_io.clone();
    let got = arbitrate(m, "io_arb", &wants, io, &pick);
    for (i, a) in got.into_iter().enumerate() {
        accepts[i].push(a);
    }
    let tag = resp.bits().get("tag").value();
    let data = resp.bits().get("data").value();
    let sc = tag.bit(tb - 1);
    Answer {
        valid: resp.valid().clone(),
        port: tag.slice(tb - 2, g.slot_bits),
        slot: tag.slice(g.slot_bits - 1, 0),
        data: mux(&sc, &k(&sc, 1, 32), data),
    }
}

/// The banks' answers (with their lines), their flush input and the LR/SC broadcasts that end reservations, and the
/// trace of the accesses they performed.
fn answers(
    m: &mut ModuleBuilder,
    g: &Geometry,
    banks: &[Inst],
    flush: &Value,
) -> Vec<(Answer, Value)> {
    let ends: Vec<Value> = banks.iter().map(|b| b.port("resv_done")).collect();
    for (b, inst) in banks.iter().enumerate() {
        m.connect(&inst.port("flush"), flush);
        let others: Vec<Value> = (0..banks.len())
            .map(|o| {
                if o == b {
                    k(flush, 0, g.narrow_ports)
                } else {
                    ends[o].clone()
                }
            })
            .collect();
        m.connect(&inst.port("resv_other"), &any(&others));
    }
    let valid: Vec<Value> = banks.iter().map(|b| b.port("resp_valid")).collect();
    let port: Vec<Value> = banks.iter().map(|b| b.port("resp_bits_port")).collect();
    let tv = m.output("trace_valid", banks.len() as u32);
    m.connect(&tv, &cat_low_first(&valid));
    let tp = m.output("trace_port", banks.len() as u32 * g.port_bits);
    m.connect(&tp, &cat_low_first(&port));
    let slot: Vec<Value> = banks.iter().map(|b| b.port("resp_bits_slot")).collect();
    let ts = m.output("trace_slot", banks.len() as u32 * g.slot_bits);
    m.connect(&ts, &cat_low_first(&slot));
    banks
        .iter()
        .map(|b| {
            let a = Answer {
                valid: b.port("resp_valid"),
                port: b.port("resp_bits_port"),
                slot: b.port("resp_bits_slot"),
                data: b.port("resp_bits_word"),
            };
            (a, b.port("resp_bits_line"))
        })
        .collect()
}

/// `idle` (nothing in flight) and `flush_done` (every bank flushed, nothing in flight).
fn status(m: &mut ModuleBuilder, banks: &[Inst], ports: &[PortReq]) {
    let empty: Vec<Value> = ports
        .iter()
        .map(|pr| {
            let c = &pr.rob.count;
            c.eq(&k(c, 0, c.width()))
        })
        .collect();
    let all = |vs: &[Value]| vs[1..].iter().fold(vs[0].clone(), |a, b| &a & b);
    let empty = all(&empty);
    let idle: Vec<Value> = banks.iter().map(|b| b.port("idle")).collect();
    let flushed: Vec<Value> = banks.iter().map(|b| b.port("flushed")).collect();
    let o = m.output("idle", 1);
    m.connect(&o, &(&all(&idle) & &empty));
    let o = m.output("flush_done", 1);
    m.connect(&o, &(&all(&flushed) & &empty));
}
