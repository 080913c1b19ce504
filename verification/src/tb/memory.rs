//! A memory model that serves a design's memory ports, one call per clock cycle.
//!
//! Each port is a pair of ready/valid channels. Requests (design to model) carry a byte
//! address, a write flag, write data with a byte mask, the access size (log2 bytes) and
//! an optional tag; responses (model to design) carry read data and the request's tag.
//! Every request gets exactly one response (writes too, with zero data), `latency` cycles
//! or more after it was accepted.
//!
//! Data is lane-aligned as on TileLink: the bus carries the naturally aligned
//! `data_bytes` block holding the address, byte `i` of the bus is address `block + i`,
//! a read returns the whole block and a write changes the bytes set in its mask. A
//! mask byte outside the lanes the address and size cover, a misaligned address or an
//! access wider than the bus is a protocol error of the design, reported as such.
//!
//! A port may also carry atomic memory operations (`amo`, [`amo`]): an AMO request reads
//! the old value, writes the operation's result in the same step and answers with the
//! old block, so that AMOs from several ports on one address are atomic (the L2 of the
//! thesis's SoC performs them). The model logs every AMO it performs, in the order it
//! performed them ([`MemoryModel::take_amo_log`]), so that a golden model can apply
//! AMOs colliding on one address in the order the memory chose.
//!
//! Memory effects happen in acceptance order when a request is accepted; only the
//! responses are delayed (and, optionally, reordered). All randomness (back-pressure,
//! latency jitter, response order) comes from one seeded generator, so a run repeats
//! exactly for a given seed and design.

use super::{peek, peek_u64, poke, poke_u64, SignalError, Simulator};
use crate::elf::{self, ElfError, Program};
use crate::rng::Rng;
use hdl::{Bits, Shape};
use std::collections::BTreeMap;
use std::path::Path;

const PAGE_BITS: u32 = 12;
const PAGE: usize = 1 << PAGE_BITS;

/// Width of the request's size field (log2 of the access size in bytes): enough for the
/// widest bus the model supports, 128 bytes.
pub const SIZE_BITS: u32 = 3;
/// The widest bus the model supports, in bytes.
pub const MAX_DATA_BYTES: u32 = 128;

/// Errors from configuring the model, loading memory, or a design breaking the port
/// protocol.
#[derive(Debug, thiserror::Error)]
pub enum MemError {
    #[error("the memory model needs at least one port")]
    NoPorts,
    #[error("latency must be at least 1 cycle")]
    ZeroLatency,
    #[error("bus width of {0} bytes is not a power of two in 1..={MAX_DATA_BYTES}")]
    DataBytes(u32),
    #[error("bandwidth of {requests} requests per {cycles} cycles: both must be at least 1")]
    Bandwidth { requests: u32, cycles: u32 },
    #[error("stall probability {0}% must be below 100% or no request would ever be accepted")]
    StallPercent(u32),
    #[error("at least one outstanding request per port is needed")]
    ZeroOutstanding,
    #[error("port {port}: out-of-order responses need request tags to tell them apart")]
    UntaggedReorder { port: usize },
    #[error("port {port}: `{signal}` is {width} bits, expected {expected}")]
    Width {
        port: usize,
        signal: String,
        width: u32,
        expected: u32,
    },
    #[error("port {port}: `{signal}` is {width} bits, at most {max} are supported")]
    TooWide {
        port: usize,
        signal: String,
        width: u32,
        max: u32,
    },
    #[error("cycle {cycle}, port {port}: access of 2^{size} bytes is wider than the {data_bytes}-byte bus")]
    SizeTooLarge {
        cycle: u64,
        port: usize,
        size: u64,
        data_bytes: u32,
    },
    #[error("cycle {cycle}, port {port}: access of 2^{size} bytes at {addr:#x} is not aligned to its size")]
    Misaligned {
        cycle: u64,
        port: usize,
        addr: u64,
        size: u64,
    },
    #[error("cycle {cycle}, port {port}: write mask {mask} enables bytes outside the 2^{size}-byte access at {addr:#x}")]
    MaskOutsideAccess {
        cycle: u64,
        port: usize,
        addr: u64,
        size: u64,
        mask: Bits,
    },
    #[error("cycle {cycle}, port {port}: AMO {op} of 2^{size} bytes at {addr:#x} (AMOs are 4 or 8 bytes, codes 1-9, with `write` set)")]
    BadAmo {
        cycle: u64,
        port: usize,
        op: u64,
        addr: u64,
        size: u64,
    },
    #[error("image of {len} bytes at {addr:#x} runs past the end of the 64-bit address space")]
    ImageWraps { addr: u64, len: u64 },
    #[error(transparent)]
    Elf(#[from] ElfError),
    #[error(transparent)]
    Signal(#[from] SignalError),
}

/// Sparse byte-addressed memory over the whole 64-bit address space, in 4 KiB pages
/// allocated on first write. Bytes never written read as zero; addresses wrap at 2^64.
#[derive(Debug, Default, Clone)]
pub struct SparseMemory {
    pages: BTreeMap<u64, Box<[u8; PAGE]>>,
}

impl SparseMemory {
    pub fn new() -> SparseMemory {
        SparseMemory::default()
    }

    /// The base addresses of the pages written so far, in increasing order.
    pub fn pages(&self) -> impl Iterator<Item = u64> + '_ {
        self.pages.keys().map(|p| p << PAGE_BITS)
    }

    /// Fills `buf` from `addr` upwards.
    pub fn read(&self, addr: u64, buf: &mut [u8]) {
        let mut at = addr;
        let mut done = 0;
        while done < buf.len() {
            let off = (at as usize) & (PAGE - 1);
            let n = (PAGE - off).min(buf.len() - done);
            let dst = &mut buf[done..done + n];
            match self.pages.get(&(at >> PAGE_BITS)) {
                Some(page) => dst.copy_from_slice(&page[off..off + n]),
                None => dst.fill(0),
            }
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// Copies `data` to `addr` upwards.
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut at = addr;
        let mut done = 0;
        while done < data.len() {
            let off = (at as usize) & (PAGE - 1);
            let n = (PAGE - off).min(data.len() - done);
            let page = self
                .pages
                .entry(at >> PAGE_BITS)
                .or_insert_with(|| Box::new([0; PAGE]));
            page[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
            at = at.wrapping_add(n as u64);
        }
    }

    /// The little-endian doubleword at `addr`.
    pub fn read_u64(&self, addr: u64) -> u64 {
        let mut b = [0; 8];
        self.read(addr, &mut b);
        u64::from_le_bytes(b)
    }

    /// Loads a raw image at `addr`. Unlike `write`, an image running past the top of
    /// the address space is refused: it is a wrong load address, not a wish to wrap.
    pub fn load_image(&mut self, addr: u64, data: &[u8]) -> Result<(), MemError> {
        let len = data.len() as u64;
        if len > 0 && addr.checked_add(len - 1).is_none() {
            return Err(MemError::ImageWraps { addr, len });
        }
        self.write(addr, data);
        Ok(())
    }

    /// Loads every segment of `program` at its physical address.
    pub fn load_program(&mut self, program: &Program) -> Result<(), MemError> {
        for seg in &program.segments {
            self.load_image(seg.addr, &seg.data)?;
        }
        Ok(())
    }

    /// Loads the ELF executable at `path`; returns it for its entry point and symbols.
    pub fn load_elf(&mut self, path: &Path) -> Result<Program, MemError> {
        let program = elf::load_file(path)?;
        self.load_program(&program)?;
        Ok(program)
    }
}

impl crate::iss::htif::HostMemory for SparseMemory {
    fn read(&self, addr: u64, size: usize) -> Option<u64> {
        let mut b = [0; 8];
        SparseMemory::read(self, addr, &mut b[..size.min(8)]);
        Some(u64::from_le_bytes(b))
    }

    fn write(&mut self, addr: u64, size: usize, value: u64) -> bool {
        SparseMemory::write(self, addr, &value.to_le_bytes()[..size.min(8)]);
        true
    }

    fn bytes(&self, addr: u64, len: usize) -> Option<Vec<u8>> {
        let mut buf = vec![0; len];
        SparseMemory::read(self, addr, &mut buf);
        Some(buf)
    }
}

/// The request's `amo` field (4 bits): 0 for a plain read or write, else the operation
/// (RV64A's, at the access size: 4 or 8 bytes; `min`/`max` signed). An AMO request has
/// `write` set, its operand in the access's lanes of `data` and the mask of those lanes.
pub mod amo {
    /// The codes, shared with the generators' AMO ALUs.
    pub use generators::blocks::amo::*;

    /// The value `op` writes over `old` with operand `src`, both `bytes` wide (4 or 8).
    pub fn apply(op: u64, bytes: u32, old: u64, src: u64) -> Option<u64> {
        let bits = bytes * 8;
        let mask = u64::MAX >> (64 - bits);
        let signed = |v: u64| ((v << (64 - bits)) as i64) >> (64 - bits);
        let (o, s) = (old & mask, src & mask);
        let v = match op {
            SWAP => s,
            ADD => o.wrapping_add(s),
            XOR => o ^ s,
            AND => o & s,
            OR => o | s,
            MIN => [o, s][(signed(s) < signed(o)) as usize],
            MAX => [o, s][(signed(s) > signed(o)) as usize],
            MINU => o.min(s),
            MAXU => o.max(s),
            _ => return None,
        };
        Some(v & mask)
    }
}

/// One AMO the memory performed: where it came from and what it did. Records are logged
/// in the order the AMOs were performed (acceptance order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmoRecord {
    /// The port that sent it (index into the model's ports).
    pub port: usize,
    pub addr: u64,
    /// Access size in bytes, 4 or 8.
    pub bytes: u32,
    /// The operation ([`amo`] code).
    pub op: u64,
    /// The operand, the access's lanes of the request's data (zero-extended).
    pub operand: u64,
}

/// Shape of a request channel, as the design declares it with
/// `m.io("<prefix>_req", Dir::Out, &request_shape(..))`; `tag_bits` 0 leaves out the tag.
pub fn request_shape(addr_bits: u32, data_bytes: u32, tag_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(request_fields(
        addr_bits, data_bytes, tag_bits,
    )))
}

/// [`request_shape`] with the `amo` field last, for a port whose memory performs AMOs.
pub fn amo_request_shape(addr_bits: u32, data_bytes: u32, tag_bits: u32) -> Shape {
    let mut fields = request_fields(addr_bits, data_bytes, tag_bits);
    fields.push(Shape::field("amo", Shape::UInt(amo::BITS)));
    Shape::decoupled(Shape::bundle(fields))
}

fn request_fields(addr_bits: u32, data_bytes: u32, tag_bits: u32) -> Vec<hdl::Field> {
    let mut fields = vec![
        Shape::field("addr", Shape::UInt(addr_bits)),
        Shape::field("write", Shape::UInt(1)),
        Shape::field("data", Shape::UInt(data_bytes * 8)),
        Shape::field("mask", Shape::UInt(data_bytes)),
        Shape::field("size", Shape::UInt(SIZE_BITS)),
    ];
    if tag_bits > 0 {
        fields.push(Shape::field("tag", Shape::UInt(tag_bits)));
    }
    fields
}

/// Shape of a response channel, declared with `m.io("<prefix>_resp", Dir::In, ..)`.
pub fn response_shape(data_bytes: u32, tag_bits: u32) -> Shape {
    let mut fields = vec![Shape::field("data", Shape::UInt(data_bytes * 8))];
    if tag_bits > 0 {
        fields.push(Shape::field("tag", Shape::UInt(tag_bits)));
    }
    Shape::decoupled(Shape::bundle(fields))
}

/// The names of one memory port's signals on the design's top level. Optional signals
/// that are absent take defaults: no mask writes every byte of the access, no size means
/// whole-bus accesses, no tag means responses stay in order, no response ready means the
/// design always accepts responses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemPort {
    pub req_valid: String,
    pub req_ready: String,
    pub req_addr: String,
    pub req_write: String,
    pub req_data: String,
    pub req_mask: Option<String>,
    pub req_size: Option<String>,
    /// The AMO operation ([`amo`]); absent: no AMOs.
    pub req_amo: Option<String>,
    pub resp_valid: String,
    pub resp_ready: Option<String>,
    pub resp_data: String,
    /// Request tag and response tag, which must have the same width.
    pub tag: Option<(String, String)>,
}

impl MemPort {
    /// The names `request_shape` and `response_shape` give ports declared as
    /// `<prefix>_req` and `<prefix>_resp`.
    pub fn decoupled(prefix: &str, tagged: bool) -> MemPort {
        let req = |f: &str| format!("{prefix}_req_bits_{f}");
        MemPort {
            req_valid: format!("{prefix}_req_valid"),
            req_ready: format!("{prefix}_req_ready"),
            req_addr: req("addr"),
            req_write: req("write"),
            req_data: req("data"),
            req_mask: Some(req("mask")),
            req_size: Some(req("size")),
            req_amo: None,
            resp_valid: format!("{prefix}_resp_valid"),
            resp_ready: Some(format!("{prefix}_resp_ready")),
            resp_data: format!("{prefix}_resp_bits_data"),
            tag: tagged.then(|| (req("tag"), format!("{prefix}_resp_bits_tag"))),
        }
    }

    /// As [`MemPort::decoupled`], with the request's `amo` field (AMOs performed by the
    /// memory).
    pub fn decoupled_with_amo(prefix: &str, tagged: bool) -> MemPort {
        MemPort {
            req_amo: Some(format!("{prefix}_req_bits_amo")),
            ..MemPort::decoupled(prefix, tagged)
        }
    }
}

/// Requests accepted per cycle, as a ratio: at most `requests` every `cycles` cycles on
/// average, over all ports together. 1/1 accepts one request per cycle, 2/1 two (from
/// different ports), 1/4 one every fourth cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bandwidth {
    pub requests: u32,
    pub cycles: u32,
}

/// Timing and ordering behaviour of the model.
#[derive(Debug, Clone)]
pub struct MemConfig {
    /// Bus width in bytes (a power of two up to [`MAX_DATA_BYTES`]).
    pub data_bytes: u32,
    /// Cycles from a request's acceptance to the first cycle its response can be valid.
    pub latency: u32,
    /// Extra latency per request, uniform in `0..=jitter` cycles.
    pub jitter: u32,
    pub bandwidth: Bandwidth,
    /// Return ready responses in random order rather than acceptance order (per port).
    pub out_of_order: bool,
    /// Probability in percent that a port's request ready is withheld in a cycle.
    pub stall_percent: u32,
    /// Requests per port accepted but not yet answered; ready drops at the limit.
    pub max_outstanding: usize,
    pub seed: u64,
}

impl Default for MemConfig {
    fn default() -> MemConfig {
        MemConfig {
            data_bytes: 8,
            latency: 1,
            jitter: 0,
            bandwidth: Bandwidth {
                requests: 1,
                cycles: 1,
            },
            out_of_order: false,
            stall_percent: 0,
            max_outstanding: 8,
            seed: 0,
        }
    }
}

/// Counters since construction.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MemStats {
    pub reads: u64,
    pub writes: u64,
    pub amos: u64,
    pub responses: u64,
    /// Port-cycles in which a valid request was not accepted.
    pub refused: u64,
    /// Bytes read (whole blocks of the port's width) and written (bytes the masks set).
    pub read_bytes: u64,
    pub write_bytes: u64,
}

/// An accepted request waiting for its response to be taken.
struct Pending {
    /// First cycle the response may be presented.
    due: u64,
    data: Bits,
    tag: Option<Bits>,
}

struct PortState {
    names: MemPort,
    /// In acceptance order.
    pending: Vec<Pending>,
    /// The response on the bus; it stays there until the design takes it, as the
    /// ready/valid protocol requires.
    presented: Option<usize>,
    /// Bytes of this port's data bus (`MemConfig::data_bytes` unless set per port).
    bytes: u32,
    /// Accepts nothing while set ([`MemoryModel::hold`]).
    held: bool,
}

/// The memory model: a backing store plus the timing of every port.
pub struct MemoryModel {
    config: MemConfig,
    ports: Vec<PortState>,
    store: SparseMemory,
    rng: Rng,
    /// Calls of `tick` so far: the time base of latencies, which need no agreement with
    /// the simulator's count (that includes cycles before the model was attached).
    cycle: u64,
    /// Token bucket for the bandwidth limit: each cycle adds `requests` tokens, each
    /// accepted request costs `cycles`.
    credits: u64,
    credit_cap: u64,
    /// Port that gets the first chance at the bandwidth next cycle (round robin).
    first_port: usize,
    widths_checked: bool,
    stats: MemStats,
    /// AMOs performed since the last [`MemoryModel::take_amo_log`], in order.
    amo_log: Vec<AmoRecord>,
}

impl MemoryModel {
    pub fn new(config: MemConfig, ports: Vec<MemPort>) -> Result<MemoryModel, MemError> {
        if ports.is_empty() {
            return Err(MemError::NoPorts);
        }
        if config.latency == 0 {
            return Err(MemError::ZeroLatency);
        }
        if !config.data_bytes.is_power_of_two() || config.data_bytes > MAX_DATA_BYTES {
            return Err(MemError::DataBytes(config.data_bytes));
        }
        let Bandwidth { requests, cycles } = config.bandwidth;
        if requests == 0 || cycles == 0 {
            return Err(MemError::Bandwidth { requests, cycles });
        }
        if config.stall_percent >= 100 {
            return Err(MemError::StallPercent(config.stall_percent));
        }
        if config.max_outstanding == 0 {
            return Err(MemError::ZeroOutstanding);
        }
        if config.out_of_order {
            if let Some(port) = ports.iter().position(|p| p.tag.is_none()) {
                return Err(MemError::UntaggedReorder { port });
            }
        }
        // Room for a whole number of requests and for at least one cycle's tokens, so
        // neither a fast nor a slow ratio loses credit to the cap.
        let credit_cap = cycles as u64 * (requests as u64).div_ceil(cycles as u64);
        let bytes = config.data_bytes;
        Ok(MemoryModel {
            rng: Rng::new(config.seed),
            config,
            ports: ports
                .into_iter()
                .map(|names| PortState {
                    names,
                    pending: Vec::new(),
                    presented: None,
                    bytes,
                    held: false,
                })
                .collect(),
            store: SparseMemory::new(),
            cycle: 0,
            credits: credit_cap,
            credit_cap,
            first_port: 0,
            widths_checked: false,
            stats: MemStats::default(),
            amo_log: Vec::new(),
        })
    }

    /// Gives port `port` a data bus of `bytes` bytes (a power of two up to
    /// [`MAX_DATA_BYTES`]), for designs whose ports differ in width.
    /// Port `port` accepts no request while `held` (a bench keeping a request waiting
    /// while it does something of its own; responses still come).
    pub fn hold(&mut self, port: usize, held: bool) {
        self.ports[port].held = held;
    }

    pub fn set_port_bytes(&mut self, port: usize, bytes: u32) -> Result<(), MemError> {
        if !bytes.is_power_of_two() || bytes > MAX_DATA_BYTES {
            return Err(MemError::DataBytes(bytes));
        }
        self.ports[port].bytes = bytes;
        Ok(())
    }

    pub fn memory(&self) -> &SparseMemory {
        &self.store
    }

    pub fn memory_mut(&mut self) -> &mut SparseMemory {
        &mut self.store
    }

    /// The memory's contents, the model done with.
    pub fn into_memory(self) -> SparseMemory {
        self.store
    }

    pub fn stats(&self) -> MemStats {
        self.stats
    }

    /// The AMOs performed since the last call, in the order the memory performed them.
    pub fn take_amo_log(&mut self) -> Vec<AmoRecord> {
        std::mem::take(&mut self.amo_log)
    }

    /// Requests accepted on `port` whose responses the design has not taken yet.
    pub fn outstanding(&self, port: usize) -> usize {
        self.ports.get(port).map_or(0, |p| p.pending.len())
    }

    /// Serves one cycle: drives responses and request readies, reads the requests and
    /// response readies, and updates the model. Call it once per cycle after poking the
    /// design's other inputs and before the clock edge.
    ///
    /// Everything the model drives (responses, request readies) is decided from its own
    /// state before the design's signals are read, and valid never depends on ready on
    /// either channel, so the design may react combinationally to anything the model
    /// drives and the values read are the settled ones.
    pub fn tick(&mut self, dut: &mut impl Simulator) -> Result<(), MemError> {
        if !self.widths_checked {
            self.check_widths(dut)?;
            self.widths_checked = true;
        }
        for p in 0..self.ports.len() {
            self.present(p, dut)?;
        }
        self.credits = (self.credits + self.config.bandwidth.requests as u64).min(self.credit_cap);
        let cost = self.config.bandwidth.cycles as u64;
        let n = self.ports.len();
        let start = self.first_port;
        for k in 0..n {
            let p = (start + k) % n;
            let stall =
                self.config.stall_percent > 0 && self.rng.chance(self.config.stall_percent as u64);
            let ready = !stall
                && !self.ports[p].held
                && self.ports[p].pending.len() < self.config.max_outstanding
                && self.credits >= cost;
            let names = &self.ports[p].names;
            poke_u64(dut, &names.req_ready, ready as u64)?;
            if peek_u64(dut, &names.req_valid)? & 1 == 0 {
                continue;
            }
            if ready {
                self.credits -= cost;
                self.first_port = (p + 1) % n;
                self.accept(p, dut)?;
            } else {
                self.stats.refused += 1;
            }
        }
        for port in &mut self.ports {
            let Some(i) = port.presented else { continue };
            let taken = match &port.names.resp_ready {
                Some(r) => peek_u64(dut, r)? & 1 == 1,
                None => true,
            };
            if taken {
                port.pending.remove(i);
                port.presented = None;
                self.stats.responses += 1;
            }
        }
        self.cycle += 1;
        Ok(())
    }

    /// Chooses the response port `p` shows this cycle, if none is showing, and drives it.
    fn present(&mut self, p: usize, dut: &mut impl Simulator) -> Result<(), MemError> {
        let cycle = self.cycle;
        let port = &mut self.ports[p];
        if port.presented.is_none() {
            port.presented = if self.config.out_of_order {
                let due: Vec<usize> = (0..port.pending.len())
                    .filter(|&i| port.pending[i].due <= cycle)
                    .collect();
                match due.len() {
                    0 => None,
                    n => Some(due[self.rng.below(n as u64) as usize]),
                }
            } else {
                port.pending.first().filter(|r| r.due <= cycle).map(|_| 0)
            };
        }
        let data_bits = port.bytes * 8;
        let resp = port.presented.map(|i| &port.pending[i]);
        poke_u64(dut, &port.names.resp_valid, resp.is_some() as u64)?;
        let zero = Bits::zero(data_bits);
        poke(dut, &port.names.resp_data, resp.map_or(&zero, |r| &r.data))?;
        if let Some((_, resp_tag)) = &port.names.tag {
            match resp.and_then(|r| r.tag.as_ref()) {
                Some(tag) => poke(dut, resp_tag, tag)?,
                None => poke_u64(dut, resp_tag, 0)?,
            }
        }
        Ok(())
    }

    /// Reads the request port `p` is making, performs it, and queues its response.
    /// Errors give the simulator's cycle, to find the request in a waveform.
    fn accept(&mut self, p: usize, dut: &mut impl Simulator) -> Result<(), MemError> {
        let cycle = dut.cycle();
        let names = &self.ports[p].names;
        let bus_bytes = self.ports[p].bytes;
        let bus = bus_bytes as u64;
        let max_size = bus.trailing_zeros() as u64;
        let addr = peek_u64(dut, &names.req_addr)?;
        let write = peek_u64(dut, &names.req_write)? & 1 == 1;
        let size = match &names.req_size {
            Some(s) => peek_u64(dut, s)?,
            None => max_size,
        };
        let tag = match &names.tag {
            Some((req_tag, _)) => Some(peek(dut, req_tag)?),
            None => None,
        };
        let op = match &names.req_amo {
            Some(a) => peek_u64(dut, a)?,
            None => amo::NONE,
        };
        if size > max_size {
            return Err(MemError::SizeTooLarge {
                cycle,
                port: p,
                size,
                data_bytes: bus_bytes,
            });
        }
        let len = 1u64 << size;
        if addr % len != 0 {
            return Err(MemError::Misaligned {
                cycle,
                port: p,
                addr,
                size,
            });
        }
        let offset = addr % bus;
        let lanes = offset..offset + len;
        let base = addr - offset;
        let mut block = vec![0u8; bus as usize];
        self.store.read(base, &mut block);
        let old = from_bytes(&block);
        if op != amo::NONE {
            let bad = || MemError::BadAmo {
                cycle,
                port: p,
                op,
                addr,
                size,
            };
            if !write || !(2..=3).contains(&size) {
                return Err(bad());
            }
            let lane = |b: &[u8]| {
                let mut v = [0u8; 8];
                v[..len as usize].copy_from_slice(&b[offset as usize..(offset + len) as usize]);
                u64::from_le_bytes(v)
            };
            let src = lane(&to_bytes(&peek(dut, &names.req_data)?, bus as usize));
            let new = amo::apply(op, len as u32, lane(&block), src).ok_or_else(bad)?;
            block[offset as usize..(offset + len) as usize]
                .copy_from_slice(&new.to_le_bytes()[..len as usize]);
            self.store.write(base, &block);
            self.stats.amos += 1;
            self.amo_log.push(AmoRecord {
                port: p,
                addr,
                bytes: len as u32,
                op,
                operand: src,
            });
        }
        let data = if op != amo::NONE {
            old
        } else if write {
            let wdata = peek(dut, &names.req_data)?;
            let mask = match &names.req_mask {
                Some(m) => peek(dut, m)?,
                None => lane_mask(bus_bytes, &lanes),
            };
            if (0..bus).any(|i| mask.bit(i as u32) && !lanes.contains(&i)) {
                return Err(MemError::MaskOutsideAccess {
                    cycle,
                    port: p,
                    addr,
                    size,
                    mask,
                });
            }
            let wbytes = to_bytes(&wdata, bus as usize);
            for (i, b) in block.iter_mut().enumerate() {
                if mask.bit(i as u32) {
                    *b = wbytes[i];
                }
            }
            self.store.write(base, &block);
            self.stats.writes += 1;
            self.stats.write_bytes += (0..bus).filter(|&i| mask.bit(i as u32)).count() as u64;
            Bits::zero(bus_bytes * 8)
        } else {
            self.stats.reads += 1;
            self.stats.read_bytes += bus;
            from_bytes(&block)
        };
        let jitter = match self.config.jitter {
            0 => 0,
            j => self.rng.below(j as u64 + 1),
        };
        self.ports[p].pending.push(Pending {
            due: self.cycle + self.config.latency as u64 + jitter,
            data,
            tag,
        });
        Ok(())
    }

    /// Checks every signal's width once, so a mis-sized port is reported by name rather
    /// than as silently truncated data.
    fn check_widths(&self, dut: &mut impl Simulator) -> Result<(), MemError> {
        for (port, state) in self.ports.iter().enumerate() {
            let n = &state.names;
            let data_bits = state.bytes * 8;
            let mut exact: Vec<(&String, u32)> = vec![
                (&n.req_valid, 1),
                (&n.req_ready, 1),
                (&n.req_write, 1),
                (&n.req_data, data_bits),
                (&n.resp_valid, 1),
                (&n.resp_data, data_bits),
            ];
            exact.extend(n.req_mask.iter().map(|m| (m, state.bytes)));
            exact.extend(n.req_amo.iter().map(|a| (a, amo::BITS)));
            exact.extend(n.resp_ready.iter().map(|r| (r, 1)));
            let mut at_most: Vec<(&String, u32)> = vec![(&n.req_addr, 64)];
            at_most.extend(n.req_size.iter().map(|s| (s, 64)));
            if let Some((req_tag, resp_tag)) = &n.tag {
                at_most.push((req_tag, 64));
                exact.push((resp_tag, peek(dut, req_tag)?.width()));
            }
            for (signal, expected) in exact {
                let width = peek(dut, signal)?.width();
                if width != expected {
                    return Err(MemError::Width {
                        port,
                        signal: signal.clone(),
                        width,
                        expected,
                    });
                }
            }
            for (signal, max) in at_most {
                let width = peek(dut, signal)?.width();
                if width > max {
                    return Err(MemError::TooWide {
                        port,
                        signal: signal.clone(),
                        width,
                        max,
                    });
                }
            }
        }
        Ok(())
    }
}

/// A byte mask with the bits of `lanes` set.
fn lane_mask(bytes: u32, lanes: &std::ops::Range<u64>) -> Bits {
    let mut words = vec![0u64; hdl::bits::words_for(bytes)];
    for i in lanes.clone() {
        words[(i / 64) as usize] |= 1 << (i % 64);
    }
    Bits::from_words(bytes, &words)
}

/// The low `n` bytes of `b`, little-endian.
fn to_bytes(b: &Bits, n: usize) -> Vec<u8> {
    b.words()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .chain(std::iter::repeat(0))
        .take(n)
        .collect()
}

/// Little-endian bytes as a value of `8 * len` bits.
fn from_bytes(bytes: &[u8]) -> Bits {
    let words: Vec<u64> = bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    Bits::from_words(bytes.len() as u32 * 8, &words)
}

#[cfg(test)]
mod tests {
    #[test]
    fn amos_compute_at_their_width() {
        use super::amo::*;
        assert_eq!(apply(ADD, 8, u64::MAX, 2), Some(1));
        assert_eq!(apply(ADD, 4, 0xffff_ffff, 2), Some(1));
        assert_eq!(apply(SWAP, 4, 5, 0x1_0000_0007), Some(7));
        assert_eq!(apply(MIN, 4, 0xffff_ffff, 1), Some(0xffff_ffff));
        assert_eq!(apply(MINU, 4, 0xffff_ffff, 1), Some(1));
        assert_eq!(apply(MAX, 8, 1 << 63, 3), Some(3));
        assert_eq!(apply(MAXU, 8, 1 << 63, 3), Some(1 << 63));
        assert_eq!(apply(XOR, 8, 0b1100, 0b1010), Some(0b0110));
        assert_eq!(apply(AND, 8, 0b1100, 0b1010), Some(0b1000));
        assert_eq!(apply(OR, 8, 0b1100, 0b1010), Some(0b1110));
        assert_eq!(apply(NONE, 8, 1, 1), None);
        assert_eq!(apply(10, 8, 1, 1), None);
    }

    use super::*;

    #[test]
    fn sparse_memory_crosses_pages_and_reads_zero_where_unwritten() {
        let mut m = SparseMemory::new();
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        m.write(0x8000_0ffe, &data);
        let mut back = vec![0; data.len() + 4];
        m.read(0x8000_0ffc, &mut back);
        assert_eq!(&back[..2], &[0, 0]);
        assert_eq!(&back[2..2 + data.len()], &data[..]);
        assert_eq!(&back[2 + data.len()..], &[0, 0]);
        assert_eq!(m.read_u64(0x1234_5678_9abc_def0), 0);
    }

    #[test]
    fn addresses_wrap_but_images_may_not() {
        let mut m = SparseMemory::new();
        m.write(u64::MAX - 1, &[1, 2, 3, 4]);
        assert_eq!(m.read_u64(u64::MAX - 1) & 0xffff_ffff, 0x0403_0201);
        assert_eq!(m.read_u64(0) & 0xffff, 0x0403);
        m.load_image(u64::MAX - 3, &[9; 4]).unwrap();
        m.load_image(u64::MAX, &[]).unwrap();
        let err = m.load_image(u64::MAX - 2, &[0; 4]).unwrap_err();
        assert!(matches!(err, MemError::ImageWraps { addr, len: 4 } if addr == u64::MAX - 2));
        assert_eq!(
            err.to_string(),
            "image of 4 bytes at 0xfffffffffffffffd runs past the end of the 64-bit address space"
        );
    }

    #[test]
    fn bad_configurations_are_refused() {
        let port = || vec![MemPort::decoupled("mem", false)];
        let with = |f: fn(&mut MemConfig)| {
            let mut c = MemConfig::default();
            f(&mut c);
            MemoryModel::new(c, port()).err().map(|e| e.to_string())
        };
        assert_eq!(with(|_| {}), None);
        assert_eq!(
            with(|c| c.latency = 0).as_deref(),
            Some("latency must be at least 1 cycle")
        );
        assert_eq!(
            with(|c| c.data_bytes = 12).as_deref(),
            Some("bus width of 12 bytes is not a power of two in 1..=128")
        );
        assert_eq!(
            with(|c| c.data_bytes = 256).as_deref(),
            Some("bus width of 256 bytes is not a power of two in 1..=128")
        );
        assert_eq!(
            with(|c| c.bandwidth.cycles = 0).as_deref(),
            Some("bandwidth of 1 requests per 0 cycles: both must be at least 1")
        );
        assert_eq!(
            with(|c| c.stall_percent = 100).as_deref(),
            Some("stall probability 100% must be below 100% or no request would ever be accepted")
        );
        assert_eq!(
            with(|c| c.max_outstanding = 0).as_deref(),
            Some("at least one outstanding request per port is needed")
        );
        assert_eq!(
            with(|c| c.out_of_order = true).as_deref(),
            Some("port 0: out-of-order responses need request tags to tell them apart")
        );
        assert!(matches!(
            MemoryModel::new(MemConfig::default(), vec![]),
            Err(MemError::NoPorts)
        ));
    }

    #[test]
    fn byte_conversions_round_trip() {
        let bytes: Vec<u8> = (1..=16).collect();
        let b = from_bytes(&bytes);
        assert_eq!(b.width(), 128);
        assert_eq!(to_bytes(&b, 16), bytes);
        assert_eq!(to_bytes(&Bits::from_u64(8, 0xab), 2), vec![0xab, 0]);
        assert_eq!(lane_mask(8, &(2..4)).to_u64(), 0b1100);
    }
}
