//! `L2Bank`: one bank of the L2 (thesis Table 9.2), a three-stage pipeline that takes one
//! operation a cycle and never stalls:
//!
//! - **A (admission).** An MSHR's operation (an evict read, a fill or a replay) goes
//!   first; else the ports' requests for this bank are granted round-robin among those
//!   that may enter: not to a line an MSHR holds or the request missing in stage B is
//!   for, with room in the response queue for every answer in flight, and with an MSHR
//!   free after stage B's miss takes one (a request may miss, and the bank cannot tell
//!   before its lookup: with every MSHR busy the bank takes only the MSHRs' operations);
//!   with more MSHRs than ways, also with a way of its set that no MSHR holds after
//!   stage B's (`set_full`).
//!   The tag array is read (synchronous); a fill writes its tag and valid bit here.
//! - **B (lookup).** Tags compare; a hit reads its line from the data array and a write
//!   or AMO hit sets the dirty bit; a miss takes an MSHR with a victim way (an invalid
//!   way first, else a pseudo-random one, never a way another miss of the set holds)
//!   and invalidates the victim. An evict read reads its victim's line.
//! - **C (data).** A read answers with its beat of the line, an AMO with the old beat
//!   while it writes the ALU's result, a write with zero while it writes its bytes. A
//!   fill writes the refilled line, an evict read hands the line to its MSHR. The line
//!   read in B is merged with the write C made in that same cycle (a one-entry forward),
//!   so back-to-back accesses to one line see each other.

use super::mshr::{kind, Miss, Mshrs, Op};
use super::{client_request, mem_request, mem_response, trace_shape, uint};
use super::{Geometry, L2Params, Req, BEAT_BYTES};
use crate::blocks::{amo, amo_alu, any, cat_low_first, k, round_robin};
use crate::examples::queue::{queue, QueueParams};
use crate::memory::{self, ArrayPorts};
use hdl::helpers::{
    lowest_one, onehot_decode, onehot_encode, onehot_mux, popcount, priority_encode,
};
use hdl::{cat, mux, Bits, Bundle, Dir, HdlErrors, Inst, Mem, Module, ModuleBuilder, Shape};
use hdl::{ResetValue, Value};
use std::rc::Rc;

/// A bank's answer (decoupled): the port it is for, the tag and the beat.
pub(super) fn resp_shape(g: &Geometry) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("port", g.port_bits),
        uint("tag", g.tag_bits),
        uint("data", 8 * BEAT_BYTES),
    ]))
}

/// A pipeline stage's registers.
struct Stage {
    valid: Value,
    kind: Value,
    req: Req,
    /// One-hot: the MSHR of an evict read or a fill.
    sel: Value,
}

impl Stage {
    fn regs(m: &mut ModuleBuilder, name: &str, g: &Geometry) -> Stage {
        Stage {
            valid: m.reg(&format!("{name}_valid"), 1, false),
            kind: m.reg(&format!("{name}_kind"), kind::BITS, ResetValue::None),
            req: Req::regs(m, name, g),
            sel: m.reg(&format!("{name}_sel"), g.mshrs, ResetValue::None),
        }
    }

    fn is(&self, kd: u64) -> Value {
        self.kind.eq(&k(&self.kind, kd, kind::BITS))
    }

    /// Holds a request that will answer.
    fn answers(&self) -> Value {
        &self.valid & &self.is(kind::REQ)
    }
}

/// The tag and data arrays and the valid and dirty bits.
struct Arrays {
    tags: Mem,
    data: Mem,
    /// One bit per line, `set * ways + way`.
    valid: Value,
    dirty: Value,
}

impl Arrays {
    fn new(m: &mut ModuleBuilder, p: &L2Params, g: &Geometry) -> Arrays {
        let t = p.cache.sram_threshold_bits;
        let tw = g.ways * g.atag_bits;
        let lines = (g.sets * g.ways) as u64;
        let tag_style = memory::style(g.sets as u64, tw, ArrayPorts::SYNC_1R1W, t);
        let data_style = memory::style(lines, g.line_bits(), ArrayPorts::SYNC_1R1W, t);
        Arrays {
            tags: m.mem("tags", g.sets as u64, tw, tag_style),
            data: m.mem("data", lines, g.line_bits(), data_style),
            valid: m.reg("valid", lines as u32, 0u64),
            dirty: m.reg("dirty", lines as u32, 0u64),
        }
    }
}

/// The set field of an address.
fn set_of(g: &Geometry, addr: &Value) -> Value {
    if g.set_bits == 0 {
        k(addr, 0, 1)
    } else {
        addr.slice(g.tag_lo - 1, g.tag_lo - g.set_bits)
    }
}

/// The line address (the address without its offset).
fn line_of(g: &Geometry, addr: &Value) -> Value {
    addr.slice(31, g.off_bits)
}

/// The bit index of line (`set`, `way`) in the valid and dirty bits, and the data
/// array's index.
fn line_index(g: &Geometry, set: &Value, way: &Value) -> Value {
    match (g.set_bits, g.ways) {
        (0, 1) => k(set, 0, 1),
        (0, _) => way.clone(),
        (_, 1) => set.clone(),
        _ => cat(&[set, way]),
    }
}

pub(super) fn bank(p: &L2Params, g: &Geometry) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("L2Bank");
    let bank_id = m.input("bank_id", g.bank_bits.max(1));
    let ins: Vec<Bundle> = (0..g.ports)
        .map(|i| m.io(&format!("in{i}"), Dir::In, &client_request(g)))
        .collect();
    let resp = m.io("resp", Dir::Out, &resp_shape(g));
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(g));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(g));
    let trace = m.io("trace", Dir::Out, &trace_shape(g));
    let flush = m.input("flush", 1);
    let flushed = m.output("flushed", 1);
    let arrays = Arrays::new(&mut m, p, g);
    let mshrs = Mshrs::new(&mut m, g);
    let s1 = Stage::regs(&mut m, "s1", g);
    let s2 = Stage::regs(&mut m, "s2", g);
    let respq = response_queue(&mut m, p, g, &resp)?;
    // Room for every answer in flight (after this cycle's) and one more.
    let count = respq.port("count");
    let cw = count.width() + 1;
    let staying = &count.zext(cw) - &resp.fire().zext(cw);
    let in_flight = &(&staying + &s1.answers().zext(cw)) + &s2.answers().zext(cw);
    let credit = in_flight.lt(&k(&count, g.resp_entries as u64, cw));
    let op = mshrs.op(&mut m, &credit);
    // The way of the evict read or fill in stage B.
    let s1_way = m.reg("s1_way", g.way_bits, ResetValue::None);
    let s1_miss = m.wire("s1_miss", 1);
    let s1_alloc = m.wire("s1_alloc", 1);
    let quiet = &(&mshrs.all_idle() & &!&s1.valid) & &!&s2.valid;
    let walk = flush_walker(&mut m, g, &flush, &quiet, &op, &mshrs.room(&s1_alloc));
    m.connect(&flushed, &(&walk.done & &quiet));
    let (tags_out, filled) = stage_a(
        &mut m,
        g,
        &ins,
        (&s1, &s1_way, &s1_miss, &arrays, &mshrs),
        (&op, &walk),
        (&credit, &flush, &s1_alloc),
    );
    let lfsr = m.reg("victim_lfsr", 16, 1u64);
    let feedback = [13, 12, 10]
        .iter()
        .fold(lfsr.bit(15), |a, &b| &a ^ &lfsr.bit(b));
    m.connect(&lfsr, &lfsr.slice(14, 0).cat(&feedback));
    let b = stage_b(
        &mut m,
        g,
        (&bank_id, &tags_out, &lfsr),
        (&s1, &s1_way, &s2, &arrays, &mshrs),
    );
    m.connect(&s1_miss, &b.miss);
    m.connect(&s1_alloc, &b.alloc);
    let evicted = &b.evicted;
    m.connect(&arrays.valid, &(&(&arrays.valid & &!evicted) | &filled));
    let dirty = &(&arrays.dirty & &!&filled) | &b.dirtied;
    m.connect(&arrays.dirty, &dirty);
    let answer = stage_c(&mut m, g, (&s2, &b.index, &b.line), (&arrays, &mshrs));
    let enq = |f: &str| respq.port(&format!("enq_{f}"));
    m.connect(&enq("valid"), &s2.answers());
    let bits = cat(&[s2.req.get("port"), s2.req.get("tag"), &answer]);
    m.connect(&enq("bits"), &bits);
    m.connect(trace.valid(), &s2.answers());
    for f in ["port", "tag", "amo", "addr", "size", "data"] {
        m.connect(trace.bits().get(f).value(), s2.req.get(f));
    }
    mshrs.memory(&mut m, &mem_req, &mem_resp);
    m.finish()
}

/// The response queue, its head driving `resp`.
fn response_queue(
    m: &mut ModuleBuilder,
    p: &L2Params,
    g: &Geometry,
    resp: &Bundle,
) -> Result<Inst, HdlErrors> {
    let width = g.port_bits + g.tag_bits + 8 * BEAT_BYTES;
    let q = m.instance(
        "respq",
        &queue(&QueueParams {
            depth: g.resp_entries,
            width,
            flow: false,
            pipe: false,
            sram_threshold_bits: p.cache.sram_threshold_bits,
        })?,
    );
    let head = q.port("deq_bits");
    m.connect(resp.valid(), &q.port("deq_valid"));
    m.connect(&q.port("deq_ready"), resp.ready());
    let data_w = 8 * BEAT_BYTES;
    let b = resp.bits();
    m.connect(b.get("data").value(), &head.slice(data_w - 1, 0));
    let tag_hi = data_w + g.tag_bits - 1;
    m.connect(b.get("tag").value(), &head.slice(tag_hi, data_w));
    m.connect(b.get("port").value(), &head.slice(width - 1, tag_hi + 1));
    Ok(q)
}

/// The flush walk's operation for stage A.
struct Walk {
    valid: Value,
    /// An address in the line's set, and its way.
    addr: Value,
    way: Value,
    /// Every line has been visited.
    done: Value,
}

/// The flush walk: once `flush` is high and the bank `quiet` (it takes no requests
/// while flushing), one operation per line in stage A, when no MSHR operation goes and
/// an MSHR is `room`; stage B invalidates the line and hands it, if dirty, to an MSHR
/// that only writes it back.
/// `flush` low resets the walk.
fn flush_walker(
    m: &mut ModuleBuilder,
    g: &Geometry,
    flush: &Value,
    quiet: &Value,
    op: &Op,
    room: &Value,
) -> Walk {
    let n = g.sets * g.ways;
    let iw = hdl::ir::addr_width(n as u64);
    let started = m.reg("flush_started", 1, false);
    let done = m.reg("flush_done", 1, false);
    let idx = m.reg("flush_index", iw, 0u64);
    let valid = &(&(flush & &started) & &!&done) & &(&!&op.valid & room);
    m.when(&(flush & quiet), |m| m.connect(&started, &k(flush, 1, 1)));
    m.when(&valid, |m| {
        m.connect(&idx, &(&idx + &k(&idx, 1, iw)));
        m.when(&idx.eq(&k(&idx, n as u64 - 1, iw)), |m| {
            m.connect(&done, &k(flush, 1, 1))
        });
    });
    m.when(&!flush, |m| {
        m.connect(&started, &k(flush, 0, 1));
        m.connect(&done, &k(flush, 0, 1));
        m.connect(&idx, &k(&idx, 0, iw));
    });
    let wb = g.ways.trailing_zeros();
    let way = if g.ways == 1 {
        k(flush, 0, g.way_bits)
    } else {
        idx.slice(wb - 1, 0)
    };
    let addr = if g.set_bits == 0 {
        k(flush, 0, 32)
    } else {
        let set = idx.slice(wb + g.set_bits - 1, wb);
        set.cat(&k(flush, 0, g.tag_lo - g.set_bits)).zext(32)
    };
    Walk {
        valid,
        addr,
        way,
        done,
    }
}

/// Stage A: picks the operation entering the pipeline and reads its set's tags.
/// Returns the tags (for stage B) and the line a fill makes valid (one-hot).
/// With more MSHRs than ways, a miss may find every way of its set held by other
/// misses: a request waits at its port while the ways MSHRs hold in its set, and the
/// one stage B may take if it is in the same set, leave none free.
fn set_full(g: &Geometry, mshrs: &Mshrs, s1: &Stage, set: &Value) -> Value {
    let held = popcount(&mshrs.pinned(set));
    let ahead = &s1.valid & &set_of(g, s1.req.get("addr")).eq(set);
    let w = held.width() + 1;
    let taken = &held.zext(w) + &ahead.zext(w);
    taken.ge(&k(set, g.ways as u64, w))
}

fn stage_a(
    m: &mut ModuleBuilder,
    g: &Geometry,
    ins: &[Bundle],
    (s1, s1_way, s1_miss, arrays, mshrs): (&Stage, &Value, &Value, &Arrays, &Mshrs),
    (op, walk): (&Op, &Walk),
    (credit, flush, s1_alloc): (&Value, &Value, &Value),
) -> (Value, Value) {
    // The request in stage B misses now: it takes an MSHR at the end of this cycle.
    let ahead = s1_miss;
    let ahead_line = line_of(g, s1.req.get("addr"));
    let eligible: Vec<Value> = ins
        .iter()
        .map(|b| {
            let addr = b.bits().get("addr").value();
            let line = line_of(g, addr);
            let mut waits = &mshrs.holds(&line) | &(ahead & &ahead_line.eq(&line));
            if g.mshrs > g.ways {
                waits = &waits | &set_full(g, mshrs, s1, &set_of(g, addr));
            }
            b.valid() & &!&waits
        })
        .collect();
    let open = &(&(&!&op.valid & credit) & &mshrs.room(s1_alloc)) & &!flush;
    let fire = &open & &any(&eligible);
    let grant = round_robin(m, "grant_last", &eligible, &fire);
    for (b, gr) in ins.iter().zip(&grant) {
        m.connect(b.ready(), &(&open & gr));
    }
    let sel = cat_low_first(&grant);
    let port = onehot_encode(&sel).zext(g.port_bits);
    let reqs: Vec<Req> = ins
        .iter()
        .map(|b| Req::of_port(b.bits(), port.clone()))
        .collect();
    let client = Req::select(&sel, &reqs);
    let client_addr = mux(&walk.valid, &walk.addr, client.get("addr"));
    let client = client.with("addr", client_addr);
    let req = Req::mux(&op.valid, &op.req, &client);
    m.connect(
        &s1.valid,
        &any(&[op.valid.clone(), fire, walk.valid.clone()]),
    );
    let req_kind = k(&op.kind, kind::REQ, kind::BITS);
    let flush_kind = k(&op.kind, kind::FLUSH, kind::BITS);
    let other = mux(&walk.valid, &flush_kind, &req_kind);
    m.connect(&s1.kind, &mux(&op.valid, &op.kind, &other));
    Req::assign(m, &s1.req, &req);
    m.connect(s1_way, &mux(&op.valid, &op.way, &walk.way));
    m.connect(&s1.sel, &op.sel);
    let addr = req.get("addr");
    let set = set_of(g, addr);
    let one = k(&set, 1, 1);
    // Read every cycle: stage B uses the tags only for a request.
    let tags_out = m.read_sync(&arrays.tags, &set, &one);
    // A fill writes its tag and makes its line valid and clean.
    let fill = &op.valid & &op.kind.eq(&k(&op.kind, kind::FILL, kind::BITS));
    let atag = addr.slice(31, g.tag_lo);
    m.when(&fill, |m| {
        let data = atag.repeat(g.ways);
        let mask = onehot_decode(&op.way, g.ways);
        m.write_masked(&arrays.tags, &set, &data, &mask);
    });
    let bit = onehot_decode(&line_index(g, &set, &op.way), g.sets * g.ways);
    (tags_out, &fill.repeat(g.sets * g.ways) & &bit)
}

/// What stage B did, for stage C and the valid and dirty bits.
struct Lookup {
    /// The request in stage B misses.
    miss: Value,
    /// Stage B hands a line to an MSHR (a miss, or a flushed dirty line).
    alloc: Value,
    /// The data array's index read for stage C, and the line it reads (both in C).
    index: Value,
    line: Value,
    /// The victim a miss invalidated, the line a write hit made dirty (one-hot bits).
    evicted: Value,
    dirtied: Value,
}

/// The ways of `set` in `bits` (one bit per line).
fn ways_of(g: &Geometry, bits: &Value, set: &Value) -> Value {
    if g.set_bits == 0 {
        return bits.clone();
    }
    let shift = if g.ways == 1 {
        set.clone()
    } else {
        set.cat(&k(set, 0, g.ways.trailing_zeros()))
    };
    bits.dshr(&shift).slice(g.ways - 1, 0)
}

/// A miss's victim way among those no MSHR holds: the lowest invalid one, else the
/// first at or after a pseudo-random way.
fn victim_way(g: &Geometry, free: &Value, valid: &Value, lfsr: &Value) -> Value {
    if g.ways == 1 {
        return k(free, 0, 1);
    }
    let invalid = free & &!valid;
    let start = lfsr.slice(g.way_bits - 1, 0);
    let rotated = free.cat(free).dshr(&start).slice(g.ways - 1, 0);
    let random = &start + &priority_encode(&rotated);
    let first_invalid = onehot_encode(&lowest_one(&invalid));
    mux(&invalid.or_r(), &first_invalid, &random)
}

/// The line address of `tag` in `set` of this bank.
fn line_address(g: &Geometry, tag: &Value, set: &Value, bank_id: &Value) -> Value {
    let mut parts = vec![tag.clone()];
    if g.set_bits > 0 {
        parts.push(set.clone());
    }
    if g.bank_bits > 0 {
        parts.push(bank_id.clone());
    }
    let refs: Vec<&Value> = parts.iter().collect();
    cat(&refs)
}

/// Stage B: the tag compare, a miss's MSHR and victim, the data array's read.
fn stage_b(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (bank_id, tags_out, lfsr): (&Value, &Value, &Value),
    (s1, s1_way, s2, arrays, mshrs): (&Stage, &Value, &Stage, &Arrays, &Mshrs),
) -> Lookup {
    let addr = s1.req.get("addr");
    let set = set_of(g, addr);
    let valid = ways_of(g, &arrays.valid, &set);
    let dirty = ways_of(g, &arrays.dirty, &set);
    let atb = g.atag_bits;
    let tags: Vec<Value> = (0..g.ways)
        .map(|w| tags_out.slice((w + 1) * atb - 1, w * atb))
        .collect();
    let atag = addr.slice(31, g.tag_lo);
    let hits: Vec<Value> = (0..g.ways)
        .map(|w| &valid.bit(w) & &tags[w as usize].eq(&atag))
        .collect();
    let hit_vec = cat_low_first(&hits);
    let hit = hit_vec.or_r();
    let hit_way = onehot_encode(&hit_vec).zext(g.way_bits);
    let request = s1.answers();
    let miss = &request & &!&hit;
    let free = !&mshrs.pinned(&set);
    let victim = victim_way(g, &free, &valid, lfsr);
    let victim_sel = onehot_decode(&victim, g.ways);
    let victim_valid = (&valid & &victim_sel).or_r();
    let victim_dirty = &victim_valid & &(&dirty & &victim_sel).or_r();
    let victim_line = line_address(g, &onehot_mux(&victim_sel, &tags), &set, bank_id);
    // A flush's line: written back if valid and dirty.
    let flush_sel = onehot_decode(s1_way, g.ways);
    let flush_line = line_address(g, &onehot_mux(&flush_sel, &tags), &set, bank_id);
    let flush_op = &s1.valid & &s1.is(kind::FLUSH);
    let flushing = &flush_op & &(&(&valid & &dirty) & &flush_sel).or_r();
    let dropped = &flush_op & &(&valid & &flush_sel).or_r();
    let alloc = &miss | &flushing;
    mshrs.allocate(
        m,
        &Miss {
            valid: &alloc,
            line: &mux(&flushing, &flush_line, &line_of(g, addr)),
            way: &mux(&flushing, s1_way, &victim),
            victim: &mux(&flushing, &flush_line, &victim_line),
            dirty: &(&flushing | &victim_dirty),
            wb_only: &flushing,
            req: &s1.req,
        },
    );
    let way = mux(&request, &hit_way, s1_way);
    let index = line_index(g, &set, &way);
    let line = m.read_sync(&arrays.data, &index, &s1.valid);
    let n = g.sets * g.ways;
    let victim_bit = &miss.repeat(n) & &onehot_decode(&line_index(g, &set, &victim), n);
    let write_hit = &(&request & &hit) & s1.req.get("write");
    let dirtied = &write_hit.repeat(n) & &onehot_decode(&index, n);
    let evicted = &victim_bit | &(&dropped.repeat(n) & &onehot_decode(&index, n));
    let array_op = &s1.is(kind::EVICT) | &s1.is(kind::FILL);
    m.connect(&s2.valid, &(&s1.valid & &(&array_op | &(&request & &hit))));
    m.connect(&s2.kind, &s1.kind);
    Req::assign(m, &s2.req, &s1.req);
    m.connect(&s2.sel, &s1.sel);
    let s2_index = m.reg("s2_index", index.width(), ResetValue::None);
    m.connect(&s2_index, &index);
    Lookup {
        miss,
        alloc,
        index: s2_index,
        line,
        evicted,
        dirtied,
    }
}

/// Each bit of byte mask `mask` repeated over its byte.
fn byte_bits(mask: &Value) -> Value {
    let bytes: Vec<Value> = (0..mask.width()).map(|i| mask.bit(i).repeat(8)).collect();
    cat_low_first(&bytes)
}

/// Stage C: the forward, the request's beat, its write or AMO, a fill's write and an
/// evict read's line. Returns the answer's beat.
fn stage_c(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (s2, index, read): (&Stage, &Value, &Value),
    (arrays, mshrs): (&Arrays, &Mshrs),
) -> Value {
    // The last cycle's write, for a line read while it was written.
    let fwd_valid = m.reg("fwd_valid", 1, false);
    let fwd_index = m.reg("fwd_index", index.width(), ResetValue::None);
    let fwd_data = m.reg("fwd_data", g.line_bits(), ResetValue::None);
    let fwd_mask = m.reg("fwd_mask", g.line_bytes, ResetValue::None);
    let fwd = &fwd_valid & &fwd_index.eq(index);
    let bits = byte_bits(&fwd_mask);
    let merged = &(&fwd_data & &bits) | &(read & &!&bits);
    let line = mux(&fwd, &merged, read);
    let addr = s2.req.get("addr");
    let beat_w = 8 * BEAT_BYTES;
    let (beat, chunk) = if g.chunks == 1 {
        (line.clone(), k(addr, 0, 1))
    } else {
        let chunk = addr.slice(g.off_bits - 1, 4);
        let shift = chunk.cat(&k(addr, 0, beat_w.trailing_zeros()));
        (line.dshr(&shift).slice(beat_w - 1, 0), chunk)
    };
    let (new_beat, amo_mask) = amo_unit(s2, &beat);
    let is_amo = s2.req.get("amo").or_r();
    let data = mux(&is_amo, &new_beat, s2.req.get("data"));
    let mask = mux(&is_amo, &amo_mask, s2.req.get("mask"));
    let shift = chunk.cat(&k(&chunk, 0, BEAT_BYTES.trailing_zeros()));
    let mask_line = mask
        .zext(g.line_bytes)
        .dshl(&shift)
        .slice(g.line_bytes - 1, 0);
    let write = &s2.answers() & s2.req.get("write");
    let fill = &s2.valid & &s2.is(kind::FILL);
    let wdata = mux(&fill, &mshrs.buffer(&s2.sel), &data.repeat(g.chunks));
    let ones = k(&fill, 0, 1).konst(Bits::ones(g.line_bytes));
    let wmask = mux(&fill, &ones, &mask_line);
    let wen = &write | &fill;
    m.when(&wen, |m| {
        m.write_masked(&arrays.data, index, &wdata, &wmask)
    });
    m.connect(&fwd_valid, &wen);
    m.when(&wen, |m| {
        m.connect(&fwd_index, index);
        m.connect(&fwd_data, &wdata);
        m.connect(&fwd_mask, &wmask);
    });
    let evict = &s2.valid & &s2.is(kind::EVICT);
    mshrs.evicted(m, &evict, &s2.sel, &line);
    let plain_write = &write & &!&is_amo;
    mux(&plain_write, &k(&beat, 0, beat_w), &beat)
}

/// The AMO ALU (the memory model's semantics, `crate::blocks::amo`): the beat with the
/// operation's result in its lanes, and the byte mask of those lanes.
fn amo_unit(s2: &Stage, beat: &Value) -> (Value, Value) {
    let addr = s2.req.get("addr");
    let src = s2.req.get("data");
    let half = |v: &Value| mux(&addr.bit(3), &v.slice(127, 64), &v.slice(63, 0));
    let word = |v: &Value| mux(&addr.bit(2), &v.slice(63, 32), &v.slice(31, 0));
    let op = s2.req.get("amo");
    let is = |c: u64| op.eq(&k(op, c, amo::BITS));
    let (old64, src64) = (half(beat), half(src));
    let new64 = amo_alu(is, &old64, &src64);
    let new32 = amo_alu(is, &word(&old64), &word(&src64));
    let is_word = s2.req.get("size").eq(&k(addr, 2, super::SIZE_BITS));
    let new = mux(&is_word, &new32.repeat(4), &new64.repeat(2));
    let word_mask = k(addr, 0xf, BEAT_BYTES).dshl(&addr.slice(3, 2).cat(&k(addr, 0, 2)));
    let dword_mask = k(addr, 0xff, BEAT_BYTES).dshl(&addr.slice(3, 3).cat(&k(addr, 0, 3)));
    (new, mux(&is_word, &word_mask, &dword_mask))
}
