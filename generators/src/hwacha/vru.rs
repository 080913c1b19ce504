//! `HwachaVru`: the vector runahead unit (thesis 8.4, Figure 8.5). It takes the VRCMDQ's
//! commands (`vmca` into its own vector address registers; a `vf` carries the vector
//! length it runs with, so `vsetvl` and `vsetcfg` need nothing more), reads each
//! vector-fetch block's instructions through its own L2 port (the thesis reads the vector
//! I$; here the L2 serves both), decodes the unit-stride loads and stores (segments of
//! any length: `vl*`/`vs*` with `vseglen`, contiguous `vlen x (seglen + 1)` elements
//! from the base in the `va` register) and prefetches their lines into the L2: one read
//! of the line's first beat each, whose answer it drops. Prefetches are never
//! speculative in address (a worker thread cannot change `va` registers or the vector
//! length), only in predication.
//!
//! Settled here, as the thesis leaves them open:
//! - Trackers: at most `trackers` prefetches in flight, a third of the L2's MSHRs
//!   (`soc.rs`), since only misses take MSHRs and every prefetch may miss.
//! - A block's walk ends at its `vstop` or at a consensual jump (`vcjal`, `vcjalr`:
//!   what follows depends on the lanes), or when its instructions leave the RAM window;
//!   an access's lines are clipped to the RAM window.
//! - Acknowledgements: the scalar unit's `vstop` (`ack`, one a block, in order) stands
//!   for the lanes' end of a block; the sequencer's window is the rest of the distance.
//! - Throttle (the thesis's byte-count queue and global runahead counter): a block's
//!   decoded bytes enter the queue when its walk ends; an acknowledgement pops the
//!   oldest and takes its bytes off the counter; no block starts while the counter is at
//!   `throttle_bytes` or more, or the queue is full (`blocks` entries). An
//!   acknowledgement of a block still being walked ends its walk; of a block not yet
//!   taken, marks it to be dropped when it comes (`behind`).
//! - Startup skip: the first `skip_blocks` blocks after a configuration (`vsetcfg`, a
//!   kernel's start; and after reset or a halt) enter the queue with no bytes and are
//!   not walked.
//! - `halt` (an exception): commands are dropped and the bookkeeping cleared; requests in
//!   flight still finish.
//!
//! Ports: `vrcmd` (decoupled `rocc::vcmd_entry`), `ack`, `halt`, `busy` (commands, a
//! walk or requests here), and `mem_req`/
//! `mem_resp` (an L2 client port, `l2::client_request`/`client_response`).

use super::params::HwachaParams;
use super::rocc::{vcmd_entry, vlen_bits, vrcmd};
use super::scalar::RamWindow;
use crate::blocks::{amo, k, up_down};
use crate::examples::queue::{queue, QueueParams};
use crate::l2::{client_request, client_response, Geometry, BEAT_BYTES};
use hdl::ir::addr_width;
use hdl::{mux, Bundle, Dir, HdlErrors, MemStyle, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

/// Worker-thread major opcodes (`11..7`, with `6..0 = 0x3f`) the walk decodes.
const OP_LOAD: u64 = 0x16;
const OP_STORE: u64 = 0x1e;
const OP_STOP: u64 = 0x18;
const OP_CJAL: u64 = 0x1b;
const OP_CJALR: u64 = 0x19;

/// The L2 the VRU prefetches into.
#[derive(Clone, Copy, Debug)]
pub struct VruSystem {
    pub geometry: Geometry,
    /// Prefetches in flight at most.
    pub trackers: u32,
}

/// Width of the byte counters.
const BYTE_BITS: u32 = 32;

/// Instruction reads carry tag `1 + 2 x slot`, prefetches tag 0.
const TAG_FETCH: u64 = 1;

/// Instruction chunks the walk reads ahead at most (a power of two): the L2's hit
/// latency is several cycles, a chunk holds two instructions. Fewer when the port's tag
/// cannot name the slots.
const AHEAD: u32 = 4;

struct Io {
    cmd: Bundle,
    ack: Value,
    halt: Value,
    busy: Value,
    req: Bundle,
    resp: Bundle,
}

/// The walk's state: the block's next instruction and the chunks read ahead.
struct Walk {
    active: Value,
    pc: Value,
    vlen: Value,
    bytes: Value,
    fetch: Fetch,
}

/// The instruction buffer: up to `n` 16-byte chunks from the decoded one on, read
/// through the port; slot `c % n` holds chunk `c` (`chunks`) once answered. `next` is
/// the next chunk to read; a slot is read again only once its answer is in.
struct Fetch {
    n: u32,
    next: Value,
    valid: Value,
    pending: Value,
    chunks: Vec<Value>,
    data: Vec<Value>,
}

impl Fetch {
    fn new(m: &mut ModuleBuilder, tag_bits: u32) -> Fetch {
        let none = || ResetValue::None;
        let n = AHEAD.min(1 << (tag_bits - 1));
        Fetch {
            n,
            next: m.reg("fetch_next", 28, none()),
            valid: m.reg("fetch_valid", n, 0u64),
            pending: m.reg("fetch_pending", n, 0u64),
            chunks: (0..n)
                .map(|i| m.reg(&format!("fetch_chunk{i}"), 28, none()))
                .collect(),
            data: (0..n)
                .map(|i| m.reg(&format!("fetch_data{i}"), 8 * BEAT_BYTES, none()))
                .collect(),
        }
    }

    /// Slot `i` as a one-bit condition on `sel` (a slot number).
    fn is_slot(sel: &Value, i: u32) -> Value {
        sel.eq(&k(sel, i as u64, sel.width()))
    }

    /// The slot of chunk `c` (or named by an answer's tag shifted right by one).
    fn slot(&self, c: &Value) -> Value {
        match self.n.trailing_zeros() {
            0 => k(c, 0, 1),
            sb => c.trunc(sb),
        }
    }
}

/// The line generator: the lines of one decoded access, first to last.
struct Lines {
    active: Value,
    line: Value,
    last: Value,
    in_flight: Value,
}

pub fn vru(p: &HwachaParams, sys: &VruSystem, ram: RamWindow) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaVru");
    let g = &sys.geometry;
    let io = Io {
        cmd: m.io("vrcmd", Dir::In, &Shape::decoupled(vcmd_entry(p))),
        ack: m.input("ack", 1),
        halt: m.input("halt", 1),
        busy: m.output("busy", 1),
        req: m.io("mem_req", Dir::Out, &client_request(g)),
        resp: m.io("mem_resp", Dir::In, &client_response(g)),
    };
    let va = m.mem("va", 32, 32, MemStyle::Inferred);
    let vb = vlen_bits(p);
    let walk = Walk {
        active: m.reg("walking", 1, false),
        pc: m.reg("pc", 32, ResetValue::None),
        vlen: m.reg("vlen", vb, ResetValue::None),
        bytes: m.reg("block_bytes", BYTE_BITS, ResetValue::None),
        fetch: Fetch::new(&mut m, g.tag_bits),
    };
    let lb = 32 - g.off_bits;
    let lines = Lines {
        active: m.reg("lines_active", 1, false),
        line: m.reg("line", lb, ResetValue::None),
        last: m.reg("last_line", lb, ResetValue::None),
        in_flight: m.reg("prefetches", addr_width(sys.trackers as u64 + 1), 0u64),
    };
    let ended = walk_block(&mut m, (sys, ram), &io, &walk, &lines, &va);
    let t = throttle(&mut m, p, &io, &walk, &ended)?;
    // Commands: vmca writes its register, vf starts (or skips, or drops) a block.
    let cmd = &io.cmd;
    let kind = cmd.bits().get("cmd").value().clone();
    let is = |c: u64| kind.eq(&k(&kind, c, 2));
    let is_vf = is(vrcmd::VF);
    // A block starts with no instruction read in flight, so none of the last block's
    // answers lands in the new one's buffer.
    let fetching = walk.fetch.pending.or_r();
    let free = &(&!&walk.active & &!&lines.active) & &!&fetching;
    let ready = &io.halt | &(&free & &(&!&is_vf | &t.may_start));
    m.connect(cmd.ready(), &ready);
    let take = &(cmd.valid() & &ready) & &!&io.halt;
    let value = cmd.bits().get("value").value().clone();
    let reg = cmd.bits().get("reg").value().slice(4, 0);
    m.when(&(&take & &is(vrcmd::VMCA)), |m| {
        m.write(&va, &reg, &value.trunc(32))
    });
    let start = &(&take & &is_vf) & &t.walks;
    let one = k(&start, 1, 1);
    m.when(&start, |m| {
        m.connect(&walk.active, &one);
        m.connect(&walk.pc, &value.trunc(32));
        m.connect(&walk.vlen, cmd.bits().get("vlen").value());
        m.connect(&walk.bytes, &k(&start, 0, BYTE_BITS));
        // Code may have changed since the last block: its chunks are read again.
        m.connect(&walk.fetch.valid, &k(&start, 0, walk.fetch.n));
        m.connect(&walk.fetch.next, &value.slice(31, 4));
    });
    let stop = &(&io.halt | &t.abort) | &ended.last;
    let zero = k(&start, 0, 1);
    m.when(&(&walk.active & &stop), |m| m.connect(&walk.active, &zero));
    m.when(&(&io.halt | &t.abort), |m| m.connect(&lines.active, &zero));
    let outstanding = lines
        .in_flight
        .ne(&k(&lines.in_flight, 0, lines.in_flight.width()));
    let busy = &(&(cmd.valid() | &walk.active) | &(&lines.active | &fetching)) | &outstanding;
    m.connect(&io.busy, &busy);
    m.finish()
}

/// Whether the walk's block ended this cycle, and with how many bytes.
struct Ended {
    last: Value,
    bytes: Value,
}

/// The walk: fetch the chunk holding `pc`, decode its instruction, generate the lines
/// of a unit-stride access; the port's requests and answers.
fn walk_block(
    m: &mut ModuleBuilder,
    (sys, ram): (&VruSystem, RamWindow),
    io: &Io,
    w: &Walk,
    l: &Lines,
    va: &hdl::Mem,
) -> Ended {
    let g = &sys.geometry;
    let (base, size) = (ram.base, ram.size);
    let in_ram = |a: &Value| {
        let lo = a.zext(33).ge(&k(a, base, 33));
        let hi = a.zext(33).lt(&k(a, base + size, 33));
        &lo & &hi
    };
    let f = &w.fetch;
    let chunk = w.pc.slice(31, 4);
    let slot = f.slot(&chunk);
    let mut have = k(&chunk, 0, 1);
    let mut buf = f.data[0].clone();
    for i in 0..f.n {
        let here = Fetch::is_slot(&slot, i);
        have = &have | &(&(&here & &f.valid.bit(i)) & &f.chunks[i as usize].eq(&chunk));
        buf = mux(&here, &f.data[i as usize], &buf);
    }
    let have = &have & &!&l.active;
    let insn = mux(&w.pc.bit(3), &buf.slice(127, 64), &buf.slice(63, 0));
    let op = insn.slice(11, 7);
    let major = insn.slice(6, 0).eq(&k(&insn, 0x3f, 7));
    let is_op = |c: u64| &major & &op.eq(&k(&op, c, 5));
    let unit_stride = &insn.slice(63, 60).eq(&k(&insn, 8, 4)) & &!&insn.bit(41);
    let mem = &(&is_op(OP_LOAD) | &is_op(OP_STORE)) & &unit_stride;
    let ends = &(&is_op(OP_STOP) | &is_op(OP_CJAL)) | &is_op(OP_CJALR);
    let decode = &w.active & &have;
    // The access's bytes: vlen x (seglen + 1) elements of 2^size bytes.
    let segment = insn.slice(47, 45).addc(&k(&insn, 1, 3));
    let elems = w.vlen.mul(&segment);
    let bytes = elems.zext(BYTE_BITS).dshl(&insn.slice(43, 42));
    // The access's bytes clipped to the RAM window (33 bits: no wrap past 2^32).
    let start = m.read(va, &insn.slice(28, 24)).zext(33);
    let end = &start + &(&bytes - &k(&bytes, 1, BYTE_BITS)).zext(33);
    let (lo, hi) = (k(&start, base, 33), k(&start, base + size - 1, 33));
    let first = mux(&start.lt(&lo), &lo, &start);
    let last = mux(&end.gt(&hi), &hi, &end);
    let ob = g.off_bits;
    let step = &w.pc + &k(&w.pc, 8, 32);
    let out_of_ram = &(&w.active & &!&have) & &!&in_ram(&w.pc);
    m.when(&(&decode & &!&ends), |m| m.connect(&w.pc, &step));
    m.when(&(&decode & &mem), |m| {
        m.connect(&l.active, &first.le(&last));
        m.connect(&l.line, &first.slice(31, ob));
        m.connect(&l.last, &last.slice(31, ob));
        m.connect(&w.bytes, &(&w.bytes + &bytes));
    });
    // One request a cycle: a prefetch while lines are left, else the walk's fetch.
    let req = &io.req;
    let line_addr = l.line.cat(&k(&l.line, 0, ob));
    let room = l
        .in_flight
        .lt(&k(&l.in_flight, sys.trackers as u64, l.in_flight.width()));
    let prefetch = &l.active & &room;
    // Instruction reads: up to `n` chunks from the decoded one, into free slots.
    let fetch_addr = f.next.cat(&k(&f.next, 0, 4));
    let ahead = (&f.next - &chunk).lt(&k(&chunk, f.n as u64, 28));
    let next_slot = f.slot(&f.next);
    let slot_free = !&f.pending.dshr(&next_slot).bit(0);
    let fetch = &(&(&w.active & &!&l.active) & &(&ahead & &slot_free)) & &in_ram(&fetch_addr);
    m.connect(req.valid(), &(&prefetch | &fetch));
    let rb = req.bits();
    m.connect(
        rb.get("addr").value(),
        &mux(&prefetch, &line_addr, &fetch_addr),
    );
    m.connect(rb.get("write").value(), &k(&chunk, 0, 1));
    m.connect(rb.get("data").value(), &k(&chunk, 0, 8 * BEAT_BYTES));
    m.connect(rb.get("mask").value(), &k(&chunk, 0, BEAT_BYTES));
    m.connect(rb.get("size").value(), &k(&chunk, 4, crate::l2::SIZE_BITS));
    m.connect(
        rb.get("tag").value(),
        &mux(
            &prefetch,
            &k(&chunk, 0, g.tag_bits),
            &(&next_slot.zext(g.tag_bits).shl(1) | &k(&chunk, TAG_FETCH, g.tag_bits)),
        ),
    );
    m.connect(rb.get("amo").value(), &k(&chunk, amo::NONE, amo::BITS));
    let sent = req.fire();
    let advance = &sent & &prefetch;
    m.when(&advance, |m| {
        m.connect(&l.line, &(&l.line + &k(&l.line, 1, l.line.width())));
        m.when(&l.line.eq(&l.last), |m| {
            m.connect(&l.active, &k(&mem, 0, 1))
        });
    });
    // Answers: an instruction chunk fills its slot, a prefetch's is dropped.
    let resp = &io.resp;
    m.connect(resp.ready(), &k(&mem, 1, 1));
    let rtag = resp.bits().get("tag").value().clone();
    let fetched = resp.valid() & &rtag.bit(0);
    let read = &sent & &!&prefetch;
    let answer_slot = f.slot(&rtag.shr(1));
    let (mut valid, mut pending) = (Vec::new(), Vec::new());
    for i in (0..f.n).rev() {
        let sent_here = &read & &Fetch::is_slot(&next_slot, i);
        let answered_here = &fetched & &Fetch::is_slot(&answer_slot, i);
        m.when(&sent_here, |m| m.connect(&f.chunks[i as usize], &f.next));
        m.when(&answered_here, |m| {
            m.connect(&f.data[i as usize], resp.bits().get("data").value())
        });
        // A read empties its slot until the answer fills it.
        valid.push(&(&f.valid.bit(i) | &answered_here) & &!&sent_here);
        pending.push(&(&f.pending.bit(i) | &sent_here) & &!&answered_here);
    }
    m.connect(&f.valid, &hdl::cat(&valid.iter().collect::<Vec<_>>()));
    m.connect(&f.pending, &hdl::cat(&pending.iter().collect::<Vec<_>>()));
    m.when(&read, |m| {
        m.connect(&f.next, &(&f.next + &k(&f.next, 1, 28)))
    });
    let answered = resp.valid() & &!&rtag.bit(0);
    m.connect(&l.in_flight, &up_down(&l.in_flight, &advance, &answered));
    let last = &(&decode & &ends) | &out_of_ram;
    Ended {
        last,
        bytes: w.bytes.clone(),
    }
}

/// The throttle's decisions for the cycle.
struct Throttle {
    /// A `vf` may be taken.
    may_start: Value,
    /// A taken `vf` is walked (not skipped or dropped).
    walks: Value,
    /// The block being walked was acknowledged: its walk ends.
    abort: Value,
}

/// The byte-count queue, the global runahead counter, the blocks acknowledged before
/// they were taken (`behind`) and the startup skip.
fn throttle(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &Io,
    w: &Walk,
    ended: &Ended,
) -> Result<Throttle, HdlErrors> {
    let q = m.instance(
        "byte_counts",
        &queue(&QueueParams {
            depth: p.vru_blocks,
            width: BYTE_BITS,
            flow: false,
            pipe: false,
            sram_threshold_bits: p.sram_threshold_bits,
        })?,
    );
    let global = m.reg("runahead_bytes", BYTE_BITS, 0u64);
    let bw = addr_width(p.vrcmdq_entries as u64 + 1);
    let behind = m.reg("behind", bw, 0u64);
    let sw = addr_width(p.vru_skip_blocks as u64 + 1);
    let skip = m.reg("skip", sw, p.vru_skip_blocks as u64);
    let halt = &io.halt;
    let queued = q.port("deq_valid");
    let ack = &io.ack & &!halt;
    let pop = &ack & &queued;
    let abort = &(&ack & &!&queued) & &w.active;
    let ack_new = &(&ack & &!&queued) & &!&w.active;
    // A vf taken now: dropped if its block was acknowledged (before, or in this cycle
    // while nothing else is outstanding), else skipped or walked.
    let zero_b = k(&behind, 0, bw);
    let owed = &behind.ne(&zero_b) | &ack_new;
    let cmd = &io.cmd;
    let kind = cmd.bits().get("cmd").value().clone();
    let vf = &(&(cmd.valid() & cmd.ready()) & &kind.eq(&k(&kind, vrcmd::VF, 2))) & &!halt;
    let skipping = skip.ne(&k(&skip, 0, sw));
    let drop = &vf & &owed;
    let skipped = &(&vf & &!&owed) & &skipping;
    let walks = &!&owed & &!&skipping;
    let room = q.port("enq_ready");
    let under = global.lt(&k(&global, p.vru_throttle_bytes as u64, BYTE_BITS));
    let may_start = &owed | &(&room & &under);
    let next_behind = up_down(&behind, &ack_new, &drop);
    m.connect(&behind, &mux(halt, &zero_b, &next_behind));
    m.when(&skipped, |m| m.connect(&skip, &(&skip - &k(&skip, 1, sw))));
    let cfg = &(cmd.valid() & cmd.ready()) & &kind.eq(&k(&kind, vrcmd::CFG, 2));
    m.when(&(&cfg | halt), |m| {
        m.connect(&skip, &k(&skip, p.vru_skip_blocks as u64, sw))
    });
    // Entries: a walked block's bytes when it ends, a skipped block's none.
    let push = &(&(&ended.last & &w.active) & &!&abort) & &!halt;
    let push_bytes = mux(&push, &ended.bytes, &k(&global, 0, BYTE_BITS));
    m.connect(&q.port("enq_valid"), &(&push | &skipped));
    m.connect(&q.port("enq_bits"), &push_bytes);
    m.connect(&q.port("deq_ready"), &(&pop | halt));
    let added = mux(&push, &ended.bytes, &k(&global, 0, BYTE_BITS));
    let taken = mux(&pop, &q.port("deq_bits"), &k(&global, 0, BYTE_BITS));
    // Saturating: entries a halt left behind may pop after it cleared the counter.
    let sum = &global + &added;
    let zero = k(&global, 0, BYTE_BITS);
    let next = mux(&sum.lt(&taken), &zero, &(&sum - &taken));
    m.connect(&global, &mux(halt, &zero, &next));
    Ok(Throttle {
        may_start,
        walks: &walks & &!&drop,
        abort,
    })
}
