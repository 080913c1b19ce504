//! `l2`: the banked, non-blocking, write-back L2 cache of the Hwacha SoC (thesis Table
//! 9.2: 4 banks of 64 KiB, 8 ways, 64-byte lines, shared by the control processor and
//! the vector unit's ports), with the memory-side AMO ALUs the thesis puts in its banks
//! (thesis 8.7, "atomic memory operations are performed at the L2").
//!
//! Clients: `ports` uniform 16-byte ports in the shape of a Hwacha lane's memory port
//! (`verification::tb::memory::amo_request_shape(32, 16, tag_bits)` and
//! `response_shape(16, tag_bits)`): lane-aligned data and byte mask, log2 size, a tag,
//! and an `amo` code (the memory model's, `crate::blocks::amo`; AMOs have `write` set and
//! answer with the old beat). Writes answer with zero data. A port may keep any number of
//! requests in flight; each answer carries its request's tag (the L2 does not need tags
//! to differ: a Hwacha lane's writes share one), and answers come in any order (the
//! port's response channel has a ready). Requests to one line are performed in the
//! order they were accepted, from any ports.
//!
//! Lines are interleaved over the banks (bank = line address mod `banks`), and each bank
//! (`bank.rs`) is a three-stage pipeline taking one operation a cycle: A (admission and
//! the tag read), B (tag compare; a hit reads the data array, a miss takes an MSHR) and
//! C (the data: a read answers, a write or an AMO writes the array, a refill is written).
//! A miss does not block the bank: later hits go on under it (non-blocking, "hit under
//! miss"), and up to `mshrs` misses per bank are outstanding (`mshr.rs`: each writes
//! back its dirty victim, refills the line with one line-wide memory read, writes it and
//! replays its request as a hit). A request to a line a miss is outstanding for waits
//! at its port until the miss is over. Arrays: the tags (one synchronous-read array per
//! bank, a way per mask granule) and the data (one array of `sets x ways` lines with a
//! byte mask) are SRAM macros above the threshold (`crate::memory`); valid and dirty bits
//! are registers (hence at most [`MAX_BANK_LINES`] lines per bank).
//!
//! Memory side: one tagged, line-wide port per bank (`b<i>_mem_req`/`b<i>_mem_resp`,
//! responses valid only): the banks' misses overlap with no arbiter between them, and
//! the memory model's latency, bandwidth and stalls stand for DRAM's.
//!
//! Coherence: the L2 is the point every client's accesses meet, so a write is seen by
//! every later access of any port. With the core's write-through L1 D$, that is what
//! the SoC's fences need (a fence drops the D$).
//!
//! `b<i>_trace` (valid: port, tag): the request the bank performed this cycle, so that a
//! bench applies the accesses to a flat reference memory in the order the RTL performed
//! them (accesses to different banks touch different lines).

mod bank;
mod mshr;
pub mod narrow;

use crate::blocks::{cat_low_first, round_robin};
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::helpers::onehot_mux;
use hdl::ir::addr_width;
use hdl::{Dir, Field, HdlErrors, Module, ModuleBuilder, Shape};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The most lines a bank holds: its valid and dirty bits are registers.
pub const MAX_BANK_LINES: u32 = 4096;

/// Bytes of a client port's data.
pub const BEAT_BYTES: u32 = 16;
/// Width of the requests' log2-size field (the memory model's).
pub const SIZE_BITS: u32 = 3;

/// The cache's shape: the `l2` design's `[cache]` table and `rocket-hwacha`'s `[l2]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L2Cache {
    /// Banks (lines interleaved).
    pub banks: u32,
    /// Capacity of a bank.
    pub bank_bytes: u32,
    pub ways: u32,
    pub line_bytes: u32,
    /// Outstanding misses per bank (miss status holding registers). With more than
    /// `ways`, a request waits at its port while every way of its set is held by a miss.
    pub mshrs: u32,
    /// Entries of a bank's response queue (answers waiting for their port).
    pub resp_entries: u32,
    pub sram_threshold_bits: u64,
}

impl Default for L2Cache {
    /// Thesis Table 9.2's L2: 4 banks of 64 KiB, 8 ways, 64-byte lines.
    fn default() -> Self {
        L2Cache {
            banks: 4,
            bank_bytes: 64 << 10,
            ways: 8,
            line_bytes: 64,
            mshrs: 4,
            resp_entries: 4,
            sram_threshold_bits: crate::memory::DEFAULT_SRAM_THRESHOLD_BITS,
        }
    }
}

/// The cache's parameters, in declaration order.
pub fn cache_params() -> Vec<Param> {
    vec![
        Param::int("banks", 1, 16, "banks, lines interleaved").pow2(),
        Param::int("bank_bytes", 256, 1 << 19, "bytes of a bank").pow2(),
        Param::int("ways", 1, 16, "ways of each set").pow2(),
        Param::int("line_bytes", 16, 128, "bytes of a line").pow2(),
        Param::int("mshrs", 1, 16, "outstanding misses per bank"),
        Param::int("resp_entries", 2, 16, "entries of a bank's response queue"),
        crate::memory::threshold_param(),
    ]
}

impl L2Cache {
    /// Checks the values (errors name the parameter within the table).
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&cache_params(), self)?;
        if self.bank_bytes < self.line_bytes * self.ways {
            return Err(ParamError::new(
                "bank_bytes",
                format!(
                    "must hold at least one set of {} ways of {} bytes, got {}",
                    self.ways, self.line_bytes, self.bank_bytes
                ),
            ));
        }
        let lines = self.bank_bytes / self.line_bytes;
        if lines > MAX_BANK_LINES {
            return Err(ParamError::new(
                "bank_bytes",
                format!(
                    "holds {lines} lines of {} bytes, at most {MAX_BANK_LINES} are supported (the valid and dirty bits are registers)",
                    self.line_bytes
                ),
            ));
        }
        Ok(())
    }
}

/// The `l2` design's parameters: its clients and the cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct L2Params {
    /// Client ports.
    pub ports: u32,
    /// Tag bits of a client port.
    pub tag_bits: u32,
    pub cache: L2Cache,
}

impl Default for L2Params {
    fn default() -> Self {
        L2Params {
            ports: 4,
            tag_bits: 8,
            cache: L2Cache::default(),
        }
    }
}

/// The parameters, in declaration order.
pub fn params() -> Vec<Param> {
    vec![
        Param::int("ports", 1, 32, "client ports (16 bytes each)"),
        Param::int("tag_bits", 1, 16, "tag bits of a client port"),
        Param::table(
            "cache",
            cache_params(),
            "the cache's shape (thesis Table 9.2)",
        ),
    ]
}

impl L2Params {
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&params(), self)?;
        self.cache.validate().map_err(|e| e.within("cache"))
    }
}

pub struct L2;

impl Generator for L2 {
    type Params = L2Params;
    const NAME: &'static str = "l2";
    const DESCRIPTION: &'static str =
        "banked non-blocking write-back L2 cache with MSHRs and AMO ALUs (thesis Table 9.2)";

    fn params() -> Vec<Param> {
        params()
    }

    fn validate(p: &L2Params) -> Result<(), ParamError> {
        p.validate()
    }

    fn build(p: &L2Params) -> Result<Rc<Module>, HdlErrors> {
        l2(p)
    }
}

/// The address fields of an L2 shape: `[tag | set | bank | offset]`, and the internal
/// widths.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub ports: u32,
    pub port_bits: u32,
    pub tag_bits: u32,
    pub ways: u32,
    pub way_bits: u32,
    pub sets: u32,
    pub set_bits: u32,
    pub off_bits: u32,
    pub bank_bits: u32,
    /// Lowest bit of the address tag, and its width.
    pub tag_lo: u32,
    pub atag_bits: u32,
    pub line_bytes: u32,
    /// 16-byte beats of a line, and the bits of a beat's index.
    pub chunks: u32,
    pub chunk_bits: u32,
    pub mshrs: u32,
    pub mshr_bits: u32,
    pub resp_entries: u32,
}

impl Geometry {
    pub fn new(p: &L2Params) -> Geometry {
        let (ports, tag_bits, p) = (p.ports, p.tag_bits, &p.cache);
        let sets = p.bank_bytes / p.line_bytes / p.ways;
        let off_bits = p.line_bytes.trailing_zeros();
        let bank_bits = p.banks.trailing_zeros();
        let set_bits = sets.trailing_zeros();
        let tag_lo = off_bits + bank_bits + set_bits;
        let chunks = p.line_bytes / BEAT_BYTES;
        Geometry {
            ports,
            port_bits: addr_width(ports as u64),
            tag_bits,
            ways: p.ways,
            way_bits: addr_width(p.ways as u64),
            sets,
            set_bits,
            off_bits,
            bank_bits,
            tag_lo,
            atag_bits: 32 - tag_lo,
            line_bytes: p.line_bytes,
            chunks,
            chunk_bits: addr_width(chunks as u64),
            mshrs: p.mshrs,
            mshr_bits: addr_width(p.mshrs as u64),
            resp_entries: p.resp_entries,
        }
    }

    /// Bits of a line.
    pub fn line_bits(&self) -> u32 {
        self.line_bytes * 8
    }

    /// Bits of a line address (an address without its offset).
    pub fn line_addr_bits(&self) -> u32 {
        32 - self.off_bits
    }

    /// Tag bits of the memory port: which MSHR, and whether a write-back.
    pub fn mem_tag_bits(&self) -> u32 {
        self.mshr_bits + 1
    }
}

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// A client request's fields (without valid/ready).
fn request_fields(g: &Geometry) -> Vec<Field> {
    vec![
        uint("addr", 32),
        uint("write", 1),
        uint("data", 8 * BEAT_BYTES),
        uint("mask", BEAT_BYTES),
        uint("size", SIZE_BITS),
        uint("tag", g.tag_bits),
        uint("amo", crate::blocks::amo::BITS),
    ]
}

/// A client port's request (decoupled).
pub fn client_request(g: &Geometry) -> Shape {
    Shape::decoupled(Shape::bundle(request_fields(g)))
}

/// A client port's response (decoupled).
pub fn client_response(g: &Geometry) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("data", 8 * BEAT_BYTES),
        uint("tag", g.tag_bits),
    ]))
}

/// A bank's memory request (decoupled): a whole line.
pub fn mem_request(g: &Geometry) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", 32),
        uint("write", 1),
        uint("data", g.line_bits()),
        uint("mask", g.line_bytes),
        uint("size", SIZE_BITS),
        uint("tag", g.mem_tag_bits()),
    ]))
}

/// A bank's memory response (valid only).
pub fn mem_response(g: &Geometry) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("data", g.line_bits()),
        uint("tag", g.mem_tag_bits()),
    ]))
}

/// A bank's performed request (valid only): the port, the request's tag, and what an
/// AMO did (`amo` 0 for other requests; the address, log2 size and the beat holding
/// the operand), for a bench handing AMOs to a golden model in the L2's order.
pub fn trace_shape(g: &Geometry) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("port", g.port_bits),
        uint("tag", g.tag_bits),
        uint("amo", crate::blocks::amo::BITS),
        uint("addr", 32),
        uint("size", SIZE_BITS),
        uint("data", 8 * BEAT_BYTES),
    ]))
}

/// Ports: `p<i>_req`/`p<i>_resp` (client `i`), `b<j>_mem_req`/`b<j>_mem_resp` (bank
/// `j`'s memory port), `b<j>_trace`, `flush` and `flushed`.
pub fn l2(p: &L2Params) -> Result<Rc<Module>, HdlErrors> {
    let g = Geometry::new(p);
    let bank_mod = bank::bank(p, &g)?;
    let mut m = ModuleBuilder::new("L2");
    let reqs: Vec<_> = (0..g.ports)
        .map(|i| m.io(&format!("p{i}_req"), Dir::In, &client_request(&g)))
        .collect();
    let resps: Vec<_> = (0..g.ports)
        .map(|i| m.io(&format!("p{i}_resp"), Dir::Out, &client_response(&g)))
        .collect();
    let banks: Vec<_> = (0..p.cache.banks)
        .map(|b| m.instance(&format!("bank{b}"), &bank_mod))
        .collect();
    let flush = m.input("flush", 1);
    let flushed = m.output("flushed", 1);
    let mut ready_terms = vec![Vec::new(); g.ports as usize];
    let mut all_flushed = flush.clone();
    for (b, inst) in banks.iter().enumerate() {
        let id = m.lit(b as u64, g.bank_bits.max(1));
        m.connect(&inst.port("bank_id"), &id);
        m.connect(&inst.port("flush"), &flush);
        all_flushed = &all_flushed & &inst.port("flushed");
        for (i, req) in reqs.iter().enumerate() {
            let addr = req.bits().get("addr").value();
            let mine = if g.bank_bits == 0 {
                req.valid().clone()
            } else {
                req.valid() & &addr.slice(g.off_bits + g.bank_bits - 1, g.off_bits).eq(&id)
            };
            let inp = inst.io(&format!("in{i}"));
            m.connect_bundle(inp.bits(), req.bits());
            m.connect(inp.valid(), &mine);
            ready_terms[i].push(inp.ready().clone());
        }
        for name in ["mem_req", "mem_resp", "trace"] {
            let shape = match name {
                "mem_req" => mem_request(&g),
                "mem_resp" => mem_response(&g),
                _ => trace_shape(&g),
            };
            let dir = if name == "mem_resp" {
                Dir::In
            } else {
                Dir::Out
            };
            let outer = m.io(&format!("b{b}_{name}"), dir, &shape);
            if dir == Dir::In {
                m.connect_bundle(&inst.io(name), &outer);
            } else {
                m.connect_bundle(&outer, &inst.io(name));
            }
        }
    }
    m.connect(&flushed, &all_flushed);
    for (i, req) in reqs.iter().enumerate() {
        m.connect(req.ready(), &crate::blocks::any(&ready_terms[i]));
    }
    responses(&mut m, &g, &banks, &resps);
    m.finish()
}

/// Each port's response: round-robin among the banks whose response queue's head is
/// for it.
fn responses(m: &mut ModuleBuilder, g: &Geometry, banks: &[hdl::Inst], resps: &[hdl::Bundle]) {
    let heads: Vec<_> = banks.iter().map(|b| b.io("resp")).collect();
    let mut deq_terms = vec![Vec::new(); banks.len()];
    for (i, resp) in resps.iter().enumerate() {
        let wants: Vec<_> = heads
            .iter()
            .map(|h| {
                let port = h.bits().get("port").value();
                h.valid() & &port.eq(&m.lit(i as u64, g.port_bits))
            })
            .collect();
        let fire = crate::blocks::any(&wants) & resp.ready();
        let grant = round_robin(m, &format!("p{i}_resp_last"), &wants, &fire);
        let sel = cat_low_first(&grant);
        m.connect(resp.valid(), &crate::blocks::any(&wants));
        for f in ["data", "tag"] {
            let vals: Vec<_> = heads
                .iter()
                .map(|h| h.bits().get(f).value().clone())
                .collect();
            m.connect(resp.bits().get(f).value(), &onehot_mux(&sel, &vals));
        }
        for (b, gr) in grant.iter().enumerate() {
            deq_terms[b].push(gr & resp.ready());
        }
    }
    for (h, terms) in heads.iter().zip(&deq_terms) {
        m.connect(h.ready(), &crate::blocks::any(terms));
    }
}

/// The fields of a request inside a bank, in a fixed order: the client's and its port.
pub(crate) const REQ_FIELDS: [&str; 8] = [
    "addr", "write", "data", "mask", "size", "tag", "amo", "port",
];

/// A request's fields as values (registers, a port's wires or a selection of them).
#[derive(Clone)]
pub(crate) struct Req(Vec<hdl::Value>);

impl Req {
    fn widths(g: &Geometry) -> [u32; 8] {
        let amo = crate::blocks::amo::BITS;
        [
            32,
            1,
            8 * BEAT_BYTES,
            BEAT_BYTES,
            SIZE_BITS,
            g.tag_bits,
            amo,
            g.port_bits,
        ]
    }

    /// Registers without reset (every use is gated by a valid bit written with them).
    fn regs(m: &mut ModuleBuilder, prefix: &str, g: &Geometry) -> Req {
        let widths = Req::widths(g);
        Req(REQ_FIELDS
            .iter()
            .zip(widths)
            .map(|(f, w)| m.reg(&format!("{prefix}_{f}"), w, hdl::ResetValue::None))
            .collect())
    }

    /// A client port's request bundle `b` and the port's index.
    fn of_port(b: &hdl::Bundle, port: hdl::Value) -> Req {
        let mut v: Vec<_> = REQ_FIELDS[..7]
            .iter()
            .map(|f| b.get(f).value().clone())
            .collect();
        v.push(port);
        Req(v)
    }

    fn get(&self, name: &str) -> &hdl::Value {
        &self.0[REQ_FIELDS
            .iter()
            .position(|f| *f == name)
            .expect("a request field")]
    }

    fn with(mut self, name: &str, v: hdl::Value) -> Req {
        let i = REQ_FIELDS
            .iter()
            .position(|f| *f == name)
            .expect("a request field");
        self.0[i] = v;
        self
    }

    fn mux(c: &hdl::Value, a: &Req, b: &Req) -> Req {
        Req(a
            .0
            .iter()
            .zip(&b.0)
            .map(|(x, y)| hdl::mux(c, x, y))
            .collect())
    }

    /// The request `sel` (one-hot) picks among `reqs`.
    fn select(sel: &hdl::Value, reqs: &[Req]) -> Req {
        Req((0..REQ_FIELDS.len())
            .map(|i| {
                let vals: Vec<_> = reqs.iter().map(|r| r.0[i].clone()).collect();
                onehot_mux(sel, &vals)
            })
            .collect())
    }

    /// Connects every field of `dst` (registers or wires) to `src`'s.
    fn assign(m: &mut ModuleBuilder, dst: &Req, src: &Req) {
        for (d, s) in dst.0.iter().zip(&src.0) {
            m.connect(d, s);
        }
    }
}
