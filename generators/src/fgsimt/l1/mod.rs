//! The FG-SIMT engine's L1 memory system (seed 000, section 1.7 and Figure 3): a blocking,
//! direct-mapped I$ ([`icache`]) and a banked, write-back D$ behind a queued crossbar of
//! `narrow_ports` 32-bit ports and one 256-bit port ([`dcache`]): blocking and
//! direct-mapped with 32-byte lines as in seed 000, or `ways`-way set-associative,
//! non-blocking with `mshrs` MSHRs a bank and with lines of up to 128 bytes as in seed
//! 001's Table 3.
//!
//! D$ (`FgsimtL1Dcache`, top of `xbar.rs` with the banks of `dcache.rs`, or of
//! `nonblocking.rs` and `mshr.rs` with MSHRs):
//! - Lines (`line_bytes`: 32, 64 or 128) are interleaved over the banks: bank = line
//!   address mod banks. Each bank is a tag array and a data array a line wide with
//!   byte-mask writes (SRAM macros above the threshold, `crate::memory`) a way,
//!   write-back write-allocate. The ports see 32-byte blocks (the wide port's, seed
//!   000's): a lookup reads the whole line and answers the block its address names; a
//!   write enables that block's bytes only. Blocking: a miss stalls
//!   its bank until the refill, the other banks go on; with MSHRs, hits and other misses
//!   go on under it. A bank performs one 32-bit or one 256-bit access per cycle (the
//!   paper's "one 32 b or one 256 b read/write per cycle").
//! - Narrow port request ([`narrow_request`]): `addr`, `op` ([`op`]), `data`, `mask`
//!   (store byte enables), `size` (log2 bytes, used by uncached accesses), `tag`. The
//!   response is the naturally aligned word holding `addr` (the old value for AMOs, 0 or
//!   1 for SC) with the tag; the requester extracts and sign-extends sub-words.
//! - Wide port request ([`wide_request`]): a block-aligned `addr`, `write`, 256-bit `data`
//!   and 32-bit `mask`; the response carries the block (reads) with the tag.
//! - Requests are decoupled, responses valid-only and always accepted (the convention of
//!   `rocket/bus.rs`). Each port keeps [`PORT_ENTRIES`] requests in flight in a reorder
//!   buffer, so it sees its responses in request order although banks answer out of
//!   order; each bank grants the ports' requests round-robin.
//! - Ordering: accesses of one port to one line are performed in request order (one bank,
//!   granted in order; a non-blocking bank keeps a line's accesses in the order it took
//!   them, and may perform a hit before an earlier miss to another line). LR, SC and uncached accesses are accepted only when their port
//!   has nothing in flight, and the port accepts nothing else until they answer, so they
//!   are ordered with every other access of that port.
//! - LR/SC: one reservation per narrow port (the line of its last LR), broken by any
//!   write to that line (store, AMO, successful SC, wide write, from any port), ended
//!   by the port's next LR or SC. SC answers 0 on success, 1 on failure, as RISC-V.
//! - Uncached region `[uncached_base, +uncached_size)`: narrow accesses there bypass the
//!   D$ through the `io_mem` port (the memory performs the AMOs); LR there is a load and
//!   SC always fails (no reservation is kept outside the D$). Wide accesses are always
//!   cached.
//! - Memory side: one port a line wide per bank (`b<i>_mem`, untagged, answered in
//!   order; a refill or a write-back is one access of the whole line):
//!   the banks are independent, so a port each lets one bank's refill overlap
//!   another's with no arbiter in between (a non-blocking bank keeps several requests in
//!   flight on its port, in order), and the memory model's bandwidth and
//!   stall settings stand for the contention an outer level would add. The `io_mem`
//!   port is 4 bytes wide and tagged (port, slot, SC flag), so uncached accesses of
//!   different ports may be answered in any order.
//! - `flush` (held high until `flush_done`): the banks finish their current access (and
//!   their MSHRs' requests), then write back every dirty line (lines stay valid and become clean); `flush_done` is
//!   high once every bank has and nothing is in flight. `idle`: nothing in flight.
//! - `trace_valid`/`trace_port`/`trace_slot`: per bank, the port and reorder-buffer
//!   slot of the access it performed this cycle, so that a bench applies accesses to a
//!   reference memory in the order the RTL performed them.

pub mod dcache;
pub mod icache;
pub mod mshr;
pub mod nonblocking;
pub mod xbar;

pub use icache::icache;
pub use xbar::dcache;

use super::params::{DcacheParams, BLOCK_BYTES};
use crate::blocks::{any, cat_low_first, k};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{cat, Shape, Value};

/// Requests of each port in flight at once (its reorder buffer's entries).
pub const PORT_ENTRIES: u32 = 4;

/// The narrow request's `op` field (4 bits): load, store, LR.W, SC.W, then the AMOs in
/// the memory model's order (`verification::tb::memory::amo`, code = op - 3).
pub mod op {
    pub const LOAD: u64 = 0;
    pub const STORE: u64 = 1;
    pub const LR: u64 = 2;
    pub const SC: u64 = 3;
    pub const SWAP: u64 = 4;
    pub const ADD: u64 = 5;
    pub const XOR: u64 = 6;
    pub const AND: u64 = 7;
    pub const OR: u64 = 8;
    pub const MIN: u64 = 9;
    pub const MAX: u64 = 10;
    pub const MINU: u64 = 11;
    pub const MAXU: u64 = 12;
    /// Width of the field.
    pub const BITS: u32 = 4;
    /// `op` minus this is the memory model's AMO code.
    pub const AMO_BASE: u64 = 3;
}

pub(crate) fn uint(name: &str, width: u32) -> hdl::Field {
    Shape::field(name, Shape::UInt(width))
}

/// Narrow port request (decoupled).
pub fn narrow_request(tag_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", 32),
        uint("op", op::BITS),
        uint("data", 32),
        uint("mask", 4),
        uint("size", 2),
        uint("tag", tag_bits),
    ]))
}

/// Narrow port response (valid only).
pub fn narrow_response(tag_bits: u32) -> Shape {
    Shape::valid(Shape::bundle(vec![uint("data", 32), uint("tag", tag_bits)]))
}

/// Wide port request (decoupled).
pub fn wide_request(tag_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", 32),
        uint("write", 1),
        uint("data", BLOCK_BYTES * 8),
        uint("mask", BLOCK_BYTES),
        uint("tag", tag_bits),
    ]))
}

/// Wide port response (valid only).
pub fn wide_response(tag_bits: u32) -> Shape {
    Shape::valid(Shape::bundle(vec![
        uint("data", BLOCK_BYTES * 8),
        uint("tag", tag_bits),
    ]))
}

/// The address fields and internal widths of a D$ shape: `[tag | set | bank | offset]`,
/// the offset a line's (`[block | byte]`: the 32-byte block the ports see, then its byte).
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub narrow_ports: u32,
    /// Bytes and bits of a line, bits of its offset, and blocks of [`BLOCK_BYTES`] in it.
    pub line_bytes: u32,
    pub line_bits: u32,
    pub offset_bits: u32,
    pub blocks: u32,
    pub bank_bits: u32,
    pub set_bits: u32,
    /// Sets of a bank (lines of a way).
    pub sets: u32,
    pub ways: u32,
    /// Lowest bit of the tag.
    pub tag_lo: u32,
    /// Width of a port index (narrow ports, then the wide port).
    pub port_bits: u32,
    /// Width of a reorder-buffer slot index.
    pub slot_bits: u32,
}

/// Bits of a byte's offset in a block (the wide port's, the coalescer's, the SLDQ's).
pub const BLOCK_OFFSET_BITS: u32 = BLOCK_BYTES.trailing_zeros();

impl Geometry {
    pub fn new(p: &DcacheParams) -> Geometry {
        let sets = p.bytes / p.line_bytes / p.banks / p.ways;
        let bank_bits = p.banks.trailing_zeros();
        let set_bits = sets.trailing_zeros();
        let offset_bits = p.line_bytes.trailing_zeros();
        Geometry {
            narrow_ports: p.narrow_ports,
            line_bytes: p.line_bytes,
            line_bits: p.line_bytes * 8,
            offset_bits,
            blocks: p.line_bytes / BLOCK_BYTES,
            bank_bits,
            set_bits,
            sets,
            ways: p.ways,
            tag_lo: offset_bits + bank_bits + set_bits,
            port_bits: addr_width(p.narrow_ports as u64 + 1),
            slot_bits: addr_width(PORT_ENTRIES as u64),
        }
    }

    /// Width of a set index as a value (at least 1).
    pub fn set_w(&self) -> u32 {
        self.set_bits.max(1)
    }

    /// The line address of byte address `addr` (its bits above the offset).
    pub fn line_of(&self, addr: &Value) -> Value {
        addr.slice(31, self.offset_bits)
    }

    /// The index of `addr`'s block in its line (a constant 0 with one block a line).
    pub fn block_of(&self, addr: &Value) -> Value {
        match self.blocks {
            1 => k(addr, 0, 1),
            _ => addr.slice(self.offset_bits - 1, BLOCK_OFFSET_BITS),
        }
    }

    /// The block at index `block` of `line` (a line's data, `line_bits` wide).
    pub fn block_in(&self, line: &Value, block: &Value) -> Value {
        match self.blocks {
            1 => line.clone(),
            _ => onehot_mux(
                &onehot_decode(block, self.blocks),
                &(0..self.blocks)
                    .map(|b| line.slice((b + 1) * BLOCK_BYTES * 8 - 1, b * BLOCK_BYTES * 8))
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// A block's data and byte mask (`[data, mask]`) placed in a line at index `block`:
    /// the data repeated over the line, the mask on that block only.
    pub fn to_line(&self, block: &Value, data: &Value, mask: &Value) -> [Value; 2] {
        match self.blocks {
            1 => [data.clone(), mask.clone()],
            _ => [
                data.repeat(self.blocks),
                mask.zext(self.line_bytes)
                    .dshl(&cat(&[block, &k(block, 0, BLOCK_OFFSET_BITS)])),
            ],
        }
    }

    /// Width of a way index as a value (at least 1).
    pub fn way_w(&self) -> u32 {
        addr_width(self.ways as u64).max(1)
    }
}
