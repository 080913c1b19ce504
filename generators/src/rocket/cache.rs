//! `Cache`: a blocking L1 cache (the I$ and the D$), write-through without write
//! allocation, with `sets` x `ways` lines of `line_bytes`.
//!
//! A request is looked up the cycle after it is accepted (tags and data come from
//! synchronous-read arrays, one per way); a read hit answers then, and another request
//! can be accepted in the same cycle, so hits stream at one per cycle. A read miss
//! refills the whole line with sequential doubleword reads (an invalid way first, else
//! round-robin) and answers from the refill. Writes update a hitting line and always go
//! to memory; they answer when memory does. The uncached region goes straight to memory.
//! `invalidate` clears every valid bit in one cycle (valid bits are registers).
//!
//! With `posted_writes` (the core's D$, Rocket's store path) a cacheable write gets no
//! answer: its lookup updates a hitting line and moves the write into a one-entry write
//! buffer, which drains to memory on its own, so the next request is accepted in that
//! same cycle (a store costs the core no stall on a hit or a miss). A read accepted then
//! reads the arrays as the write updates them: the written bytes are forwarded to its
//! lookup from a register (`Forward`). A write finding the buffer full waits in its
//! lookup; a read miss and an uncached access wait for the buffer to drain, so memory
//! sees every access in program order. `writes_pending` is high while a write is in the
//! lookup or the buffer: the core's fences and accelerator commands wait for it.
//! `cpu_kill`, in the cycle after a read was taken, cancels its lookup (no answer, no
//! refill): the core sends a load's request from execute before knowing whether the load
//! advances or faults, as Rocket's `s1_kill`.
//!
//! Ports: `cpu_req`/`cpu_resp` towards the core, `mem_req`/`mem_resp` towards memory
//! (the shapes of `bus.rs`), `invalidate`, and with `posted_writes` `writes_pending` and
//! `cpu_kill`.

use super::bus::{mem_request, mem_response};
use super::params::CacheParams;
use crate::memory::{self, ArrayPorts};
use hdl::ir::addr_width;
use hdl::{cat, mux, Bits, Bundle, Dir, HdlErrors, Mem, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// `values[idx]` for `values` of one width: each bit position gathered across the
/// values and shifted down by `idx` (a chain of comparisons would nest as deep as there
/// are values, which Yosys refuses for a thousand sets).
fn select(idx: &Value, values: &[Value]) -> Value {
    let bits: Vec<Value> = (0..values[0].width())
        .rev()
        .map(|b| {
            let column: Vec<Value> = values.iter().rev().map(|v| v.bit(b)).collect();
            let refs: Vec<&Value> = column.iter().collect();
            cat(&refs).dshr(idx).bit(0)
        })
        .collect();
    let refs: Vec<&Value> = bits.iter().collect();
    cat(&refs)
}

/// The address fields of a cache's geometry: `[tag | set | word | byte]` of a 32-bit
/// address (a field is 0 bits wide when there is a single set or word).
struct Geometry {
    words: u32,
    off_bits: u32,
    idx_bits: u32,
    word_bits: u32,
    tag_lo: u32,
    tag_bits: u32,
    way_bits: u32,
    /// The set and word fields' widths as values (at least 1).
    set_w: u32,
    word_w: u32,
    /// A value of the module, for constants.
    anchor: Value,
}

impl Geometry {
    fn new(p: &CacheParams, anchor: &Value) -> Geometry {
        let words = p.line_bytes / 8;
        let off_bits = p.line_bytes.trailing_zeros();
        let idx_bits = p.sets.trailing_zeros();
        let word_bits = words.trailing_zeros();
        let tag_lo = off_bits + idx_bits;
        Geometry {
            words,
            off_bits,
            idx_bits,
            word_bits,
            tag_lo,
            tag_bits: 32 - tag_lo,
            way_bits: addr_width(p.ways as u64).max(1),
            set_w: idx_bits.max(1),
            word_w: word_bits.max(1),
            anchor: anchor.clone(),
        }
    }

    /// The constant `v` of `w` bits.
    fn k(&self, v: u64, w: u32) -> Value {
        self.anchor.konst(Bits::from_u64(w, v))
    }

    fn set_of(&self, a: &Value) -> Value {
        if self.idx_bits == 0 {
            self.k(0, 1)
        } else {
            a.slice(self.tag_lo - 1, self.off_bits)
        }
    }

    fn word_of(&self, a: &Value) -> Value {
        if self.word_bits == 0 {
            self.k(0, 1)
        } else {
            a.slice(self.off_bits - 1, 3)
        }
    }

    /// The data arrays' index of word `word` of set `set`.
    fn array_addr(&self, set: &Value, word: &Value) -> Value {
        match (self.idx_bits, self.word_bits) {
            (0, 0) => self.k(0, 1),
            (0, _) => word.clone(),
            (_, 0) => set.clone(),
            _ => cat(&[set, word]),
        }
    }
}

/// Stage 1: the request being looked up or served. Its fields are datapath registers
/// without reset: every use is gated by `s1_valid` (a lookup) or a state that only a
/// lookup enters, and `fire` writes them all with `s1_valid`.
struct Stage1 {
    valid: Value,
    addr: Value,
    write: Value,
    data: Value,
    mask: Value,
    size: Value,
    /// 0 lookup, 1 refill, 2 single memory access, 3 answer from the refill.
    state: Value,
}

impl Stage1 {
    fn new(m: &mut ModuleBuilder) -> Stage1 {
        Stage1 {
            valid: m.reg("s1_valid", 1, false),
            addr: m.reg("s1_addr", 32, ResetValue::None),
            write: m.reg("s1_write", 1, ResetValue::None),
            data: m.reg("s1_data", 64, ResetValue::None),
            mask: m.reg("s1_mask", 8, ResetValue::None),
            size: m.reg("s1_size", 3, ResetValue::None),
            state: m.reg("state", 2, 0u64),
        }
    }

    /// `state == v`.
    fn st(&self, v: u64) -> Value {
        self.state.eq(&self.state.konst(Bits::from_u64(2, v)))
    }
}

/// The arrays: per way a tag array and a data array, both read at acceptance (`fire`,
/// at `req_addr`), each with one read and one write port, so the memory policy makes
/// the large ones macros. Returns the arrays and their read data.
fn arrays(
    m: &mut ModuleBuilder,
    p: &CacheParams,
    g: &Geometry,
    req_addr: &Value,
    fire: &Value,
) -> (Vec<Mem>, Vec<Mem>, Vec<Value>, Vec<Value>) {
    let depth = (p.sets * g.words) as u64;
    let array = |m: &mut ModuleBuilder, name: String, depth: u64, width: u32| {
        let style = memory::style(depth, width, ArrayPorts::SYNC_1R1W, p.sram_threshold_bits);
        m.mem(&name, depth, width, style)
    };
    let tags: Vec<_> = (0..p.ways)
        .map(|w| array(m, format!("tag{w}"), p.sets as u64, g.tag_bits))
        .collect();
    let datas: Vec<_> = (0..p.ways)
        .map(|w| array(m, format!("data{w}"), depth, 64))
        .collect();
    let read_set = g.set_of(req_addr);
    let read_index = g.array_addr(&read_set, &g.word_of(req_addr));
    let tag_out: Vec<Value> = tags
        .iter()
        .map(|t| m.read_sync(t, &read_set.slice(g.set_w - 1, 0), fire))
        .collect();
    let data_out: Vec<Value> = datas
        .iter()
        .map(|d| m.read_sync(d, &read_index, fire))
        .collect();
    (tags, datas, tag_out, data_out)
}

/// Stage 1's lookup: the valid bits (registers, per set), the hit per way and its data,
/// the uncached region, and what the request turns out to be.
struct Lookup {
    valid: Vec<Value>,
    /// Stage 1's set and tag fields.
    set: Value,
    tag: Value,
    set_valid: Value,
    hits: Vec<Value>,
    hit_data: Value,
    lookup: Value,
    read_hit: Value,
    read_miss: Value,
    write_hit: Value,
    single: Value,
    /// A cacheable write moving into the write buffer (`posted_writes`; else 0).
    post: Value,
    /// The lookup was killed (`posted_writes`; else 0).
    killed: Value,
}

/// The write buffer of `posted_writes`: one write on its way to memory. `valid` and
/// `issued` have a reset; the write's fields are observed only under `valid`.
struct WriteBuffer {
    valid: Value,
    issued: Value,
    addr: Value,
    data: Value,
    mask: Value,
    size: Value,
    /// Memory answered the buffered write this cycle.
    drained: Value,
}

impl WriteBuffer {
    fn new(m: &mut ModuleBuilder, mresp: &Value) -> WriteBuffer {
        let (valid, issued) = (
            m.reg("wbuf_valid", 1, false),
            m.reg("wbuf_issued", 1, false),
        );
        let drained = &(&valid & &issued) & mresp;
        WriteBuffer {
            addr: m.reg("wbuf_addr", 32, ResetValue::None),
            data: m.reg("wbuf_data", 64, ResetValue::None),
            mask: m.reg("wbuf_mask", 8, ResetValue::None),
            size: m.reg("wbuf_size", 3, ResetValue::None),
            valid,
            issued,
            drained,
        }
    }

    /// Takes stage 1's write on `post`; drains to memory (`mem_fire`: its request
    /// accepted). Returns `writes_pending`: a write in the lookup or the buffer.
    fn update(&self, m: &mut ModuleBuilder, s1: &Stage1, look: &Lookup, mem_fire: &Value) -> Value {
        let one = self.valid.konst(Bits::from_u64(1, 1));
        let zero = self.valid.konst(Bits::from_u64(1, 0));
        m.when(&(&(&self.valid & &!&self.issued) & mem_fire), |m| {
            m.connect(&self.issued, &one)
        });
        m.when(&self.drained, |m| m.connect(&self.valid, &zero));
        m.when(&look.post, |m| {
            m.connect(&self.valid, &one);
            m.connect(&self.issued, &zero);
            for (r, f) in [
                (&self.addr, &s1.addr),
                (&self.data, &s1.data),
                (&self.mask, &s1.mask),
                (&self.size, &s1.size),
            ] {
                m.connect(r, f);
            }
        });
        &self.valid | &(&look.lookup & &s1.write)
    }
}

/// A write hit's bytes, forwarded to the lookup of the read accepted in the same cycle
/// (which reads the data arrays as the write updates them): the array index, the ways
/// written, the data and the byte mask. `valid` has a reset; the rest is observed only
/// under it.
struct Forward {
    valid: Value,
    index: Value,
    ways: Value,
    data: Value,
    mask: Value,
}

impl Forward {
    fn new(m: &mut ModuleBuilder, p: &CacheParams, g: &Geometry) -> Forward {
        let index_w = g.array_addr(&g.k(0, g.set_w), &g.k(0, g.word_w)).width();
        Forward {
            valid: m.reg("fwd_valid", 1, false),
            index: m.reg("fwd_index", index_w, ResetValue::None),
            ways: m.reg("fwd_ways", p.ways, ResetValue::None),
            data: m.reg("fwd_data", 64, ResetValue::None),
            mask: m.reg("fwd_mask", 8, ResetValue::None),
        }
    }

    /// Takes this cycle's write hit when a request is accepted beside it (`fire`).
    fn update(
        &self,
        m: &mut ModuleBuilder,
        g: &Geometry,
        s1: &Stage1,
        look: &Lookup,
        fire: &Value,
    ) {
        m.connect(&self.valid, &(&look.write_hit & fire));
        m.connect(&self.index, &g.array_addr(&look.set, &g.word_of(&s1.addr)));
        let hits: Vec<&Value> = look.hits.iter().rev().collect();
        m.connect(&self.ways, &cat(&hits));
        m.connect(&self.data, &s1.data);
        m.connect(&self.mask, &s1.mask);
    }

    /// `data` of way `w` at array index `index`, with the forwarded bytes over it.
    fn over(&self, w: u32, index: &Value, data: &Value) -> Value {
        let bytes: Vec<Value> = (0..8).rev().map(|b| self.mask.bit(b).sext(8)).collect();
        let refs: Vec<&Value> = bytes.iter().collect();
        let mask64 = cat(&refs);
        let merged = &(data & &!&mask64) | &(&self.data & &mask64);
        let applies = &(&self.valid & &self.ways.bit(w)) & &self.index.eq(index);
        mux(&applies, &merged, data)
    }
}

fn lookup(
    m: &mut ModuleBuilder,
    p: &CacheParams,
    g: &Geometry,
    s1: &Stage1,
    (tag_out, data_out): (&[Value], &[Value]),
    posted: Option<(&Forward, &WriteBuffer, &Value)>,
) -> Lookup {
    let valid: Vec<Value> = (0..p.sets)
        .map(|s| m.reg(&format!("valid{s}"), p.ways, 0u64))
        .collect();
    let s1_set = g.set_of(&s1.addr);
    let s1_tag = s1.addr.slice(31, g.tag_lo);
    let set_valid = select(&s1_set, &valid);
    let hits: Vec<Value> = (0..p.ways)
        .map(|w| &set_valid.bit(w) & &tag_out[w as usize].eq(&s1_tag))
        .collect();
    let hit = hits[1..].iter().fold(hits[0].clone(), |a, h| &a | h);
    let s1_index = g.array_addr(&s1_set, &g.word_of(&s1.addr));
    let data_out: Vec<Value> = match posted {
        Some((fwd, _, _)) => (0..p.ways)
            .map(|w| fwd.over(w, &s1_index, &data_out[w as usize]))
            .collect(),
        None => data_out.to_vec(),
    };
    let mut hit_data = data_out[0].clone();
    for w in 1..p.ways as usize {
        hit_data = mux(&hits[w], &data_out[w], &hit_data);
    }
    let addr64 = s1.addr.zext(64);
    let cacheable = if p.uncached_size == 0 {
        g.k(1, 1)
    } else {
        let lo = addr64.ge(&addr64.konst(Bits::from_u64(64, p.uncached_base)));
        let hi = addr64.lt(&addr64.konst(Bits::from_u64(64, p.uncached_base + p.uncached_size)));
        !&(&lo & &hi)
    };
    // A killed lookup (`cpu_kill`, with the write buffer) does nothing and ends.
    let looking = &s1.valid & &s1.st(0);
    let (lookup, killed) = match posted {
        Some((_, _, kill)) => (&looking & &!kill, &looking & kill),
        None => (looking, g.k(0, 1)),
    };
    let read_hit = &(&(&lookup & &!&s1.write) & &cacheable) & &hit;
    let read_miss = &(&(&lookup & &!&s1.write) & &cacheable) & &!&hit;
    let write_hit = &(&(&lookup & &s1.write) & &cacheable) & &hit;
    // With the write buffer, misses and uncached accesses wait for it to drain, and a
    // cacheable write for it to have room.
    let (read_miss, single, post) = match posted {
        Some((_, wbuf, _)) => {
            let empty = !&wbuf.valid;
            let room = &empty | &wbuf.drained;
            (
                &read_miss & &empty,
                &(&lookup & &!&cacheable) & &empty,
                &(&(&lookup & &s1.write) & &cacheable) & &room,
            )
        }
        None => (read_miss, &lookup & &(&s1.write | &!&cacheable), g.k(0, 1)),
    };
    Lookup {
        valid,
        set: s1_set,
        tag: s1_tag,
        set_valid,
        hits,
        hit_data,
        lookup,
        read_hit,
        read_miss,
        write_hit,
        single,
        post,
        killed,
    }
}

/// Refill bookkeeping: the victim way (an invalid way first, else round-robin), the
/// words sent and received, the wanted word, and the single access's issue flag.
struct Refill {
    victim: Value,
    round_robin: Value,
    sent: Value,
    got: Value,
    /// The refill word answered in state 3, written during the refill: no reset.
    captured: Value,
    dropped: Value,
    issued: Value,
    first_invalid: Value,
    any_invalid: Value,
    rr_next: Value,
}

fn refill_regs(m: &mut ModuleBuilder, p: &CacheParams, g: &Geometry, set_valid: &Value) -> Refill {
    let (way_bits, word_w) = (g.way_bits, g.word_w);
    let victim = m.reg("victim", way_bits, 0u64);
    let round_robin = m.reg("round_robin", way_bits, 0u64);
    let sent = m.reg("refill_sent", word_w + 1, 0u64);
    let got = m.reg("refill_got", word_w + 1, 0u64);
    let captured = m.reg("captured", 64, ResetValue::None);
    let dropped = m.reg("refill_dropped", 1, false);
    let issued = m.reg("single_issued", 1, false);
    let mut first_invalid = g.k(0, way_bits);
    let mut any_invalid = g.k(0, 1);
    for w in (0..p.ways).rev() {
        let inv = !&set_valid.bit(w);
        first_invalid = mux(&inv, &g.k(w as u64, way_bits), &first_invalid);
        any_invalid = &any_invalid | &inv;
    }
    let last_way = g.k((p.ways - 1) as u64, way_bits);
    let rr_next = mux(
        &round_robin.eq(&last_way),
        &g.k(0, way_bits),
        &(&round_robin + &g.k(1, way_bits)),
    );
    Refill {
        victim,
        round_robin,
        sent,
        got,
        captured,
        dropped,
        issued,
        first_invalid,
        any_invalid,
        rr_next,
    }
}

/// The memory side: the refill's sequential doubleword reads and the single access.
/// Returns `refilling` (state 1).
fn memory_side(
    m: &mut ModuleBuilder,
    g: &Geometry,
    s1: &Stage1,
    r: &Refill,
    mem_req: &Bundle,
    wbuf: Option<&WriteBuffer>,
) -> Value {
    let (off_bits, word_w) = (g.off_bits, g.word_w);
    let line_base = cat(&[&s1.addr.slice(31, off_bits), &g.k(0, off_bits)]);
    let refill_addr = &line_base + &cat(&[&r.sent.slice(word_w - 1, 0).zext(32 - 3), &g.k(0, 3)]);
    let refilling = s1.st(1);
    let words_c = g.k(g.words as u64, word_w + 1);
    let mreq_valid = &(&refilling & &r.sent.lt(&words_c)) | &(&s1.st(2) & &!&r.issued);
    let mb = mem_req.bits();
    let addr = mux(&refilling, &refill_addr, &s1.addr);
    let write = &s1.st(2) & &s1.write;
    let mask = mux(&refilling, &g.k(0xff, 8), &s1.mask);
    let size = mux(&refilling, &g.k(3, 3), &s1.size);
    // The write buffer is never full while a refill or a single access runs (they wait
    // for it to drain), so its request takes the port whenever it has one.
    let fields = match wbuf {
        Some(w) => [
            (mem_req.valid(), &mreq_valid | &(&w.valid & &!&w.issued)),
            (mb.get("addr").value(), mux(&w.valid, &w.addr, &addr)),
            (mb.get("write").value(), &w.valid | &write),
            (mb.get("data").value(), mux(&w.valid, &w.data, &s1.data)),
            (mb.get("mask").value(), mux(&w.valid, &w.mask, &mask)),
            (mb.get("size").value(), mux(&w.valid, &w.size, &size)),
        ],
        None => [
            (mem_req.valid(), mreq_valid),
            (mb.get("addr").value(), addr),
            (mb.get("write").value(), write),
            (mb.get("data").value(), s1.data.clone()),
            (mb.get("mask").value(), mask),
            (mb.get("size").value(), size),
        ],
    };
    for (port, value) in fields {
        m.connect(port, &value);
    }
    refilling
}

/// The CPU side: read hits answer from the arrays, single accesses when memory does,
/// refills from the captured word; stage 1 takes the accepted request. Returns
/// `single_done`.
fn cpu_side(
    m: &mut ModuleBuilder,
    g: &Geometry,
    s1: &Stage1,
    look: &Lookup,
    captured: &Value,
    (cpu_req, fire, cpu_resp): (&Bundle, &Value, &Bundle),
    (mresp, mdata): (&Value, &Value),
) -> Value {
    let single_done = &s1.st(2) & mresp;
    let read_hit = &look.read_hit;
    m.connect(
        cpu_resp.valid(),
        &any(&[read_hit.clone(), single_done.clone(), s1.st(3)]),
    );
    m.connect(
        cpu_resp.bits().get("data").value(),
        &mux(read_hit, &look.hit_data, &mux(&s1.st(3), captured, mdata)),
    );
    let finishing = any(&[
        read_hit.clone(),
        single_done.clone(),
        s1.st(3),
        look.post.clone(),
        look.killed.clone(),
    ]);
    let free = any(&[
        !&s1.valid,
        read_hit.clone(),
        look.post.clone(),
        look.killed.clone(),
    ]);
    m.connect(cpu_req.ready(), &(&s1.st(0) & &free));

    let req = cpu_req.bits();
    m.when(&finishing, |m| m.connect(&s1.valid, &g.k(0, 1)));
    m.when(fire, |m| {
        m.connect(&s1.valid, &g.k(1, 1));
        for (r, f) in [
            (&s1.addr, "addr"),
            (&s1.write, "write"),
            (&s1.data, "data"),
            (&s1.mask, "mask"),
            (&s1.size, "size"),
        ] {
            m.connect(r, req.get(f).value());
        }
    });
    single_done
}

/// A single access's issue, the refill (its array writes, the captured word, the tag
/// write at its end), and write hits updating the line (nothing reads the arrays until
/// the write is done). Returns `last`, the refill's last response.
#[allow(clippy::too_many_arguments)]
fn serve(
    m: &mut ModuleBuilder,
    g: &Geometry,
    s1: &Stage1,
    look: &Lookup,
    r: &Refill,
    (tags, datas): (&[Mem], &[Mem]),
    mem_req: &Bundle,
    (single_done, refilling, mresp, mdata): (&Value, &Value, &Value, &Value),
) -> (Value, Value) {
    let (way_bits, word_w, word_bits) = (g.way_bits, g.word_w, g.word_bits);
    let write_hit = look.write_hit.clone();
    let s1_set = &look.set;
    let s1_index = g.array_addr(s1_set, &g.word_of(&s1.addr));

    m.when(&look.single, |m| {
        m.connect(&s1.state, &g.k(2, 2));
        m.connect(&r.issued, &g.k(0, 1));
    });
    m.when(&(&s1.st(2) & mem_req.fire()), |m| {
        m.connect(&r.issued, &g.k(1, 1))
    });
    m.when(single_done, |m| m.connect(&s1.state, &g.k(0, 2)));

    let way_of_victim = mux(&r.any_invalid, &r.first_invalid, &r.round_robin);
    m.when(&look.read_miss, |m| {
        m.connect(&s1.state, &g.k(1, 2));
        m.connect(&r.victim, &way_of_victim);
        m.when(&!&r.any_invalid, |m| m.connect(&r.round_robin, &r.rr_next));
        m.connect(&r.sent, &g.k(0, word_w + 1));
        m.connect(&r.got, &g.k(0, word_w + 1));
        m.connect(&r.dropped, &g.k(0, 1));
    });
    m.when(&(refilling & mem_req.fire()), |m| {
        m.connect(&r.sent, &(&r.sent + &g.k(1, word_w + 1)))
    });
    let got_word = r.got.slice(word_w - 1, 0);
    let refill_index = g.array_addr(s1_set, &got_word.slice(word_bits.max(1) - 1, 0));
    let refill_resp = refilling & mresp;
    // One write port per data array: a write hit (byte-masked) or a refill word (whole).
    // They never coincide: a write hit is a lookup, a refill response comes in state 1.
    let wr_index = mux(&write_hit, &s1_index, &refill_index);
    let wr_data = mux(&write_hit, &s1.data, mdata);
    let wr_mask = mux(&write_hit, &s1.mask, &g.k(0xff, 8));
    for (w, d) in datas.iter().enumerate() {
        let mine = r.victim.eq(&g.k(w as u64, way_bits));
        let wen = &(&write_hit & &look.hits[w]) | &(&refill_resp & &mine);
        m.when(&wen, |m| m.write_masked(d, &wr_index, &wr_data, &wr_mask));
    }
    let wanted = if word_bits == 0 {
        g.k(1, 1)
    } else {
        got_word.eq(&g.word_of(&s1.addr))
    };
    m.when(&(&refill_resp & &wanted), |m| m.connect(&r.captured, mdata));
    m.when(&refill_resp, |m| {
        m.connect(&r.got, &(&r.got + &g.k(1, word_w + 1)))
    });
    let last = &refill_resp & &r.got.eq(&g.k((g.words - 1) as u64, word_w + 1));
    m.when(&last, |m| {
        m.connect(&s1.state, &g.k(3, 2));
        for (w, t) in tags.iter().enumerate() {
            let mine = r.victim.eq(&g.k(w as u64, way_bits));
            m.when(&mine, |m| {
                m.write(t, &s1_set.slice(g.set_w - 1, 0), &look.tag)
            });
        }
    });
    m.when(&s1.st(3), |m| m.connect(&s1.state, &g.k(0, 2)));
    (last, way_of_victim)
}

/// Valid bits: the victim's goes off when its refill starts and on when it ends
/// (unless an invalidate came in between); invalidate clears them all.
fn valid_bits(
    m: &mut ModuleBuilder,
    p: &CacheParams,
    g: &Geometry,
    look: &Lookup,
    r: &Refill,
    (last, way_of_victim, invalidate): (&Value, &Value, &Value),
) {
    let way_bits = g.way_bits;
    let victim_bit = |way: &Value| {
        (0..p.ways).fold(g.k(0, p.ways), |acc, w| {
            let one = g.k(1u64 << w, p.ways);
            mux(&way.eq(&g.k(w as u64, way_bits)), &one, &acc)
        })
    };
    for (s, v) in look.valid.iter().enumerate() {
        let this_set = look.set.eq(&g.k(s as u64, g.set_w));
        m.when(&(&look.read_miss & &this_set), |m| {
            m.connect(v, &(v & &!&victim_bit(way_of_victim)))
        });
        m.when(&(&(last & &this_set) & &!&r.dropped), |m| {
            m.connect(v, &(v | &victim_bit(&r.victim)))
        });
        m.when(invalidate, |m| m.connect(v, &g.k(0, p.ways)));
    }
    m.when(invalidate, |m| m.connect(&r.dropped, &g.k(1, 1)));
}

pub fn cache(name: &str, p: &CacheParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(name);
    let cpu_req = m.io("cpu_req", Dir::In, &mem_request(0));
    let cpu_resp = m.io("cpu_resp", Dir::Out, &mem_response(0));
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(0));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(0));
    let invalidate = m.input("invalidate", 1);
    let g = Geometry::new(p, &invalidate);
    let s1 = Stage1::new(&mut m);
    let fire = cpu_req.fire();
    let req_addr = cpu_req.bits().get("addr").value().clone();
    let (tags, datas, tag_out, data_out) = arrays(&mut m, p, &g, &req_addr, &fire);
    let mresp = mem_resp.valid().clone();
    let mdata = mem_resp.bits().get("data").value().clone();
    let resp = (&mresp, &mdata);
    let posted = p.posted_writes.then(|| {
        (
            Forward::new(&mut m, p, &g),
            WriteBuffer::new(&mut m, &mresp),
            m.input("cpu_kill", 1),
        )
    });
    let look = lookup(
        &mut m,
        p,
        &g,
        &s1,
        (&tag_out, &data_out),
        posted.as_ref().map(|(f, w, kill)| (f, w, kill)),
    );
    let r = refill_regs(&mut m, p, &g, &look.set_valid);
    let wbuf = posted.as_ref().map(|(_, w, _)| w);
    let refilling = memory_side(&mut m, &g, &s1, &r, &mem_req, wbuf);
    if let Some((fwd, wbuf, _)) = &posted {
        let pending = wbuf.update(&mut m, &s1, &look, &mem_req.fire());
        let out = m.output("writes_pending", 1);
        m.connect(&out, &pending);
        fwd.update(&mut m, &g, &s1, &look, &fire);
    }
    let single_done = cpu_side(
        &mut m,
        &g,
        &s1,
        &look,
        &r.captured,
        (&cpu_req, &fire, &cpu_resp),
        resp,
    );
    let (last, way_of_victim) = serve(
        &mut m,
        &g,
        &s1,
        &look,
        &r,
        (&tags, &datas),
        &mem_req,
        (&single_done, &refilling, &mresp, &mdata),
    );
    valid_bits(
        &mut m,
        p,
        &g,
        &look,
        &r,
        (&last, &way_of_victim, &invalidate),
    );
    m.finish()
}

fn any(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}
