//! `FgsimtDcacheBank` with `mshrs` > 0: a non-blocking bank of the FG-SIMT L1 D$, the
//! lane-banked L1 of seed 001's Table 3 ("32 MSHRs, each holding up to 32 requests";
//! spec 001 section 1.2). The arrays, the lookup and a hit's effects are the blocking
//! bank's (`dcache.rs`); a miss no longer stops the bank:
//!
//! - A miss takes a free MSHR (`mshr.rs`) with the request as its first target, unless
//!   another MSHR is active in its set (one a set, so a victim is never another's): the
//!   victim way (first invalid, else pseudo-LRU) is invalidated at once, and a dirty
//!   victim's line goes to the write-back buffer (one; a dirty miss waits for it).
//! - A request to a line an MSHR holds joins it (its FIFO of targets), hit or not, so a
//!   line's accesses are performed in the order the bank took them. Hits to other lines
//!   go on under the misses.
//! - The memory port sends the write-back buffer first, then the MSHRs' refill reads;
//!   responses come back in order (`Outstanding`). A refill is written to its way at
//!   once; in that cycle the bank takes and performs nothing, and a request already
//!   looked up reads the arrays again the next.
//! - A filled MSHR's targets replay through the lookup stage ahead of everything else,
//!   one a cycle, and hit; its entry ends with its last target.
//! - A request that cannot go on (no free MSHR, its set busy, its MSHR full, the
//!   write-back buffer full) waits in the lookup stage; while replays are due it waits in
//!   the retry register instead (one), so the replays that free MSHRs always get through,
//!   and the bank takes no new request until it has gone.
//! - `flush` drains the MSHRs, then walks every way of every set through the write-back
//!   buffer; `flushed` once every write-back is answered.

use super::dcache::{access, arrays, bank_request, bank_response, request_fields, set_of};
use super::dcache::{walk, way_index, Access, Arrays, Lines, Resv, Stage1, FIELDS};
use super::dcache::{FCHECK, FLUSHED, FREAD, LOOKUP};
use super::mshr::{field_widths, set_of_line, Fields, Mshrs, Outstanding};
use super::xbar::{line_mem_request, line_mem_response};
use super::{any, k, Geometry};
use crate::fgsimt::params::DcacheParams;
use crate::fgsimt::plru::Plru;
use crate::memory::{self, ArrayPorts};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::{cat, mux, Bundle, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// The write-back buffer: a dirty line on its way to memory.
struct WriteBack {
    full: Value,
    addr: Value,
    data: Value,
}

/// Bank-wide registers besides the lookup stage and the MSHRs.
struct Regs {
    state: Value,
    array_set: Value,
    fset: Value,
    fway: Value,
    /// The lookup stage reads the arrays again (a refill was written under it).
    reread: Value,
    /// The lookup stage holds a replay.
    replay: Value,
    wb: WriteBack,
    /// The request waiting out the replays (never a replay).
    retry_full: Value,
    retry: Fields,
    lines: Lines,
    resv: Resv,
}

impl Regs {
    fn new(m: &mut ModuleBuilder, g: &Geometry) -> Regs {
        let none = || ResetValue::None;
        Regs {
            state: m.reg("state", 3, LOOKUP),
            array_set: m.reg("array_set", g.set_w(), none()),
            fset: m.reg("flush_set", g.set_w(), none()),
            fway: m.reg("way", g.way_w(), 0u64),
            reread: m.reg("reread", 1, false),
            replay: m.reg("s1_replay", 1, false),
            wb: WriteBack {
                full: m.reg("wb_full", 1, false),
                addr: m.reg("wb_addr", 32, none()),
                data: m.reg("wb_data", g.line_bits, none()),
            },
            retry_full: m.reg("retry_full", 1, false),
            retry: field_widths(g)
                .iter()
                .zip(FIELDS)
                .map(|(&w, f)| m.reg(&format!("retry_{f}"), w, none()))
                .collect(),
            lines: Lines::new(m, g),
            resv: Resv::new(m, g),
        }
    }

    fn st(&self, v: u64) -> Value {
        self.state.eq(&k(&self.state, v, 3))
    }
}

/// What the looked-up request does, besides a hit.
struct Outcome {
    append: Value,
    alloc: Value,
    /// It leaves the lookup stage (performed, joined or allocated).
    leaves: Value,
    /// It waits in the retry register.
    park: Value,
    /// The MSHR holding its line (one-hot or none).
    matched: Value,
    /// The way it replaces (one-hot) and whether that line is dirty.
    victim: Value,
    dirty: Value,
}

/// The MSHR decisions for the request in the lookup stage.
fn outcome(
    g: &Geometry,
    r: &Regs,
    (mshrs, plru): (&Mshrs, &Plru),
    (a, active, matched): (&Access, &Value, &Value),
) -> Outcome {
    let joins = matched.or_r();
    let append = &(&(active & &!&r.replay) & &joins) & &mshrs.room(matched);
    let busy = mshrs.in_set(g, &a.set).or_r();
    let victim = match g.ways {
        1 => k(&a.set, 1, 1),
        _ => onehot_decode(&r.lines.victim(plru, &a.set), g.ways),
    };
    let dirty = (&r.lines.dirty_at(&a.set) & &victim).or_r();
    let ok = &(&!&busy & &mshrs.free().or_r()) & &(&!&dirty | &!&r.wb.full);
    let alloc = &(&(&a.miss & &!&r.replay) & &!&joins) & &ok;
    let leaves = any(&[a.perform.clone(), append.clone(), alloc.clone()]);
    let stalled = &(active & &!&leaves) & &!&r.replay;
    let park = &(&stalled & &mshrs.replayable().or_r()) & &!&r.retry_full;
    Outcome {
        append,
        alloc,
        leaves,
        park,
        matched: matched.clone(),
        victim,
        dirty,
    }
}

/// Where the lookup stage's next request comes from: a replay, the retry register, or
/// the request port, in that order, when the stage is free and no refill is in the way.
struct Input {
    ready: Value,
    pop: Value,
    from_retry: Value,
    load: Value,
    set: Value,
    fields: Fields,
}

#[allow(clippy::too_many_arguments)]
fn input(
    g: &Geometry,
    (r, s1, mshrs): (&Regs, &Stage1, &Mshrs),
    (a, o): (&Access, &Outcome),
    req: &Bundle,
    (fill, flush): (&Value, &Value),
    replay_sel: &Value,
) -> Input {
    let free = any(&[!&s1.valid, o.leaves.clone(), o.park.clone()]);
    let can = &(&(&free & &r.st(LOOKUP)) & &!fill) & &!&r.reread;
    let due = replay_sel.or_r();
    let from_replay = &can & &due;
    let from_retry = &(&can & &!&due) & &r.retry_full;
    let from_req = &(&(&can & &!&due) & &!&r.retry_full) & &!flush;
    let head = mshrs.head_of(replay_sel);
    let port = request_fields(req);
    let fields: Fields = (0..FIELDS.len())
        .map(|f| {
            mux(
                &from_replay,
                &head[f],
                &mux(&from_retry, &r.retry[f], &port[f]),
            )
        })
        .collect();
    let set = set_of(g, &fields[0]);
    // A performed write to the set the next request reads costs a bubble.
    let hazard = &(&a.perform & &a.writes) & &set.eq(&a.set);
    let go = !&hazard;
    let fire = &(&from_req & req.valid()) & &go;
    Input {
        ready: &from_req & &go,
        pop: &from_replay & &go,
        from_retry: &from_retry & &go,
        load: &(&(&from_replay | &from_retry) & &go) | &fire,
        set,
        fields,
    }
}

/// The memory port: the write-back buffer first, then the MSHRs' refill reads; the
/// order of the responses. Returns the refill arriving this cycle (one-hot MSHR) and
/// the refill reads sent (one-hot).
fn memory_port(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (r, mshrs, out): (&Regs, &Mshrs, &Outstanding),
    (mem_req, mem_resp): (&Bundle, &Bundle),
) -> (Value, Value) {
    let send = mshrs.to_send();
    let n = mshrs.entries.len() as u32;
    let wb = &r.wb;
    m.connect(mem_req.valid(), &(&(&wb.full | &send.or_r()) & &out.room()));
    let (line, _) = mshrs.line_way(&send);
    let refill_addr = cat(&[&line, &k(&line, 0, g.offset_bits)]);
    let mb = mem_req.bits();
    m.connect(
        mb.get("addr").value(),
        &mux(&wb.full, &wb.addr, &refill_addr),
    );
    m.connect(mb.get("write").value(), &wb.full);
    m.connect(mb.get("data").value(), &wb.data);
    m.connect(
        mb.get("mask").value(),
        &k(&wb.full, 1, 1).repeat(g.line_bytes),
    );
    m.connect(
        mb.get("size").value(),
        &k(&wb.full, g.offset_bits as u64, 3),
    );
    let fire = mem_req.fire();
    m.when(&(&fire & &wb.full), |m| {
        m.connect(&wb.full, &k(&fire, 0, 1))
    });
    let sent = &send & &(&fire & &!&wb.full).repeat(n);
    let answered = mem_resp.valid().clone();
    out.update(m, (&fire, &wb.full, &mshrs.index(&send)), &answered);
    let (head_wb, head_idx) = out.head();
    let fill = &answered & &!&head_wb;
    let filled = match n {
        1 => fill,
        _ => &onehot_decode(&head_idx, n) & &fill.repeat(n),
    };
    (filled, sent)
}

/// A refill's writes: its way's tag and line at its set, the line valid and clean.
fn refill(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (r, mshrs, arrays): (&Regs, &Mshrs, &Arrays),
    (filled, rdata): (&Value, &Value),
    a: &Access,
) {
    let fill = filled.or_r();
    let (line, way) = mshrs.line_way(filled);
    let set = set_of_line(g, &line);
    let tag = line.slice(31 - g.offset_bits, g.tag_lo - g.offset_bits);
    let way = match g.ways {
        1 => k(&fill, 1, 1),
        _ => onehot_decode(&way, g.ways),
    };
    let set_bit = onehot_decode(&set, g.sets);
    let performs = &a.perform & &a.writes;
    for w in 0..g.ways as usize {
        let here = &fill & &way.bit(w as u32);
        m.when(&here, |m| {
            m.write(&arrays.tags[w], &set, &tag);
            m.connect(&r.lines.valid[w], &(&r.lines.valid[w] | &set_bit));
            m.connect(&r.lines.dirty[w], &(&r.lines.dirty[w] & &!&set_bit));
        });
        // One write port on each data array: a refill, or a performed write on the hit
        // way (never in the same cycle).
        let wdata = mux(&fill, rdata, &a.wdata);
        let wmask = mux(&fill, &k(&fill, 1, 1).repeat(g.line_bytes), &a.wmask);
        let at = mux(&fill, &set, &a.set);
        let en = &here | &(&performs & &a.hits.bit(w as u32));
        m.when(&en, |m| {
            m.write_masked(&arrays.datas[w], &at, &wdata, &wmask)
        });
    }
}

/// A miss's allocation: its victim invalidated, a dirty one to the write-back buffer.
fn evict(
    m: &mut ModuleBuilder,
    g: &Geometry,
    r: &Regs,
    (o, a, arrays): (&Outcome, &Access, &Arrays),
    bank_id: &Value,
) {
    let set_bit = onehot_decode(&a.set, g.sets);
    for w in 0..g.ways as usize {
        m.when(&(&o.alloc & &o.victim.bit(w as u32)), |m| {
            m.connect(&r.lines.valid[w], &(&r.lines.valid[w] & &!&set_bit));
            m.connect(&r.lines.dirty[w], &(&r.lines.dirty[w] & &!&set_bit));
        });
    }
    write_back(
        m,
        g,
        r,
        (&(&o.alloc & &o.dirty), &o.victim, &a.set),
        arrays,
        bank_id,
    );
}

/// Loads the write-back buffer with way `way` (one-hot) of `set` when `en`.
fn write_back(
    m: &mut ModuleBuilder,
    g: &Geometry,
    r: &Regs,
    (en, way, set): (&Value, &Value, &Value),
    arrays: &Arrays,
    bank_id: &Value,
) {
    let addr = arrays.line_address(g, way, set, bank_id);
    m.when(en, |m| {
        m.connect(&r.wb.full, &k(en, 1, 1));
        m.connect(&r.wb.addr, &addr);
        m.connect(&r.wb.data, &onehot_mux(way, &arrays.data_out));
    });
}

/// The flush: once the MSHRs and the lookup stage are empty, every way of every set,
/// each dirty line through the write-back buffer; `flushed` once all are answered.
#[allow(clippy::too_many_arguments)]
fn flush(
    m: &mut ModuleBuilder,
    g: &Geometry,
    (r, s1, mshrs, out): (&Regs, &Stage1, &Mshrs, &Outstanding),
    arrays: &Arrays,
    (flush, bank_id): (&Value, &Value),
    flushed: &Value,
) {
    let empty = &(&!&s1.valid & &!&r.retry_full) & &!&mshrs.any_valid();
    let start = &(&r.st(LOOKUP) & flush) & &empty;
    let way = match g.ways {
        1 => k(flush, 1, 1),
        _ => onehot_decode(&r.fway, g.ways),
    };
    let dirty = (&r.lines.dirty_at(&r.array_set) & &way).or_r();
    let check = r.st(FCHECK);
    let evict = &(&check & &dirty) & &!&r.wb.full;
    let next = &check & &(&!&dirty | &!&r.wb.full);
    let set_bit = onehot_decode(&r.array_set, g.sets);
    for w in 0..g.ways as usize {
        m.when(&(&evict & &way.bit(w as u32)), |m| {
            m.connect(&r.lines.dirty[w], &(&r.lines.dirty[w] & &!&set_bit));
        });
    }
    write_back(m, g, r, (&evict, &way, &r.array_set), arrays, bank_id);
    walk(m, g, (&r.state, &r.fset, &r.fway), (&start, &next), flush);
    let done = &(&r.st(FLUSHED) & &!&r.wb.full) & &out.empty();
    m.connect(flushed, &done);
}

/// One non-blocking bank of `p`'s D$ (`p.mshrs` > 0).
pub fn bank(p: &DcacheParams) -> Result<Rc<Module>, HdlErrors> {
    let g = Geometry::new(p);
    let mut m = ModuleBuilder::new("FgsimtDcacheBank");
    let req = m.io("req", Dir::In, &bank_request(&g));
    let resp = m.io("resp", Dir::Out, &bank_response(&g));
    let mem_req = m.io("mem_req", Dir::Out, &line_mem_request(&g));
    let mem_resp = m.io("mem_resp", Dir::In, &line_mem_response(&g));
    let flush_in = m.input("flush", 1);
    let flushed = m.output("flushed", 1);
    let idle = m.output("idle", 1);
    let bank_id = match g.bank_bits {
        0 => k(&flush_in, 0, 1),
        b => m.input("bank_id", b),
    };
    let resv_other = m.input("resv_other", g.narrow_ports);
    let resv_done = m.output("resv_done", g.narrow_ports);
    let r = Regs::new(&mut m, &g);
    let s1 = Stage1::new(&mut m, &g);
    let mshrs = Mshrs::new(&mut m, &g, (p.mshrs, p.mshr_targets));
    let idx_w = hdl::ir::addr_width(p.mshrs as u64).max(1);
    let out = Outstanding::new(&mut m, p.mshrs + 2, idx_w);
    let plru = Plru::new(&mut m, "plru", g.sets, g.ways);
    let (filled, sent) = memory_port(&mut m, &g, (&r, &mshrs, &out), (&mem_req, &mem_resp));
    let fill = filled.or_r();

    let rd_addr = m.wire("rd_set", g.set_w());
    let rd_en = m.wire("rd_en", 1);
    let style = |w| {
        memory::style(
            g.sets as u64,
            w,
            ArrayPorts::SYNC_1R1W,
            p.sram_threshold_bits,
        )
    };
    let arrays = arrays(&mut m, &g, style, (&rd_addr, &rd_en));
    let active = &(&(&s1.valid & &r.st(LOOKUP)) & &!&fill) & &!&r.reread;
    let matched = mshrs.holding(&g.line_of(&s1.addr));
    let may_perform = &r.replay | &!&matched.or_r();
    let a = access(
        &mut m,
        &g,
        &s1,
        (&r.lines, &r.resv),
        (&active, &may_perform),
        &arrays,
        &resp,
        (&resv_other, &resv_done),
    );
    let o = outcome(&g, &r, (&mshrs, &plru), (&a, &active, &matched));
    let replay_sel = mshrs.replayable();
    let inp = input(
        &g,
        (&r, &s1, &mshrs),
        (&a, &o),
        &req,
        (&fill, &flush_in),
        &replay_sel,
    );
    m.connect(req.ready(), &inp.ready);
    lookup_stage(&mut m, (&r, &s1), (&o, &inp), &fill);
    let rd = mux(&inp.load, &inp.set, &mux(&r.st(FREAD), &r.fset, &a.set));
    m.connect(&rd_addr, &rd);
    m.connect(
        &rd_en,
        &any(&[inp.load.clone(), r.reread.clone(), r.st(FREAD)]),
    );
    m.when(&rd_en, |m| m.connect(&r.array_set, &rd));

    let line = g.line_of(&s1.addr);
    let victim = way_index(&g, &o.victim);
    mshrs.update(
        &mut m,
        (&o.alloc, &mshrs.free(), &line, &victim),
        (&o.append, &o.matched, &s1.fields()),
        (&inp.pop, &replay_sel),
        (&sent, &filled),
    );
    let rdata = mem_resp.bits().get("data").value().clone();
    refill(&mut m, &g, (&r, &mshrs, &arrays), (&filled, &rdata), &a);
    evict(&mut m, &g, &r, (&o, &a, &arrays), &bank_id);
    plru.touch(&mut m, &a.perform, &a.set, &way_index(&g, &a.hits));
    let io = (&flush_in, &bank_id);
    flush(&mut m, &g, (&r, &s1, &mshrs, &out), &arrays, io, &flushed);
    let quiet = &(&(&r.st(LOOKUP) & &!&s1.valid) & &!&r.retry_full) & &!&mshrs.any_valid();
    m.connect(&idle, &(&(&quiet & &!&r.wb.full) & &out.empty()));
    m.finish()
}

/// The lookup stage's and the retry register's moves.
fn lookup_stage(
    m: &mut ModuleBuilder,
    (r, s1): (&Regs, &Stage1),
    (o, inp): (&Outcome, &Input),
    fill: &Value,
) {
    m.connect(&r.reread, &(fill & &s1.valid));
    m.when(&o.park, |m| {
        m.connect(&r.retry_full, &k(fill, 1, 1));
        for (reg, v) in r.retry.iter().zip(s1.fields()) {
            m.connect(reg, &v);
        }
    });
    m.when(&inp.from_retry, |m| {
        m.connect(&r.retry_full, &k(fill, 0, 1))
    });
    m.when(&(&o.leaves | &o.park), |m| {
        m.connect(&s1.valid, &k(fill, 0, 1))
    });
    s1.load(m, &inp.load, &inp.fields);
    m.when(&inp.load, |m| {
        m.connect(&s1.valid, &k(fill, 1, 1));
        m.connect(&r.replay, &inp.pop);
    });
}
