//! The generator-wide memory policy (issue 17, "Memories"): every array larger than a
//! design's `sram_threshold_bits` whose ports a macro can serve is an SRAM macro
//! (`MemStyle::Sram`: a macro instance with its behavioural model, listed in
//! `sram_macros.json`, with fakeram LEF/LIB); every other array is inferred, i.e. flops
//! for an ASIC flow and LUT/block RAM for an FPGA flow. `generate --all-inferred` still
//! turns every macro back into an inferred array.
//!
//! The default threshold, 4096 bits (4 Kib, e.g. 64 x 64), is where arrays start to
//! dominate a tile's area: the caches' data arrays (16 Kib each at 4 KiB 2-way) and the
//! VPAQ (24 x 243) are above it; tag arrays, small queues and buffers (at most ~1.5 Kib
//! here) stay flop arrays with a single-cycle read. The fakeram area model alone would
//! make even a 16 x 64 array a macro (measured, README "Synthesis and timing"), but it
//! leaves out what a designer pays per macro: a hard block to place with its halo and
//! power straps, a memory compiler's minimum size and a one-cycle read.

use crate::schema::Param;
use hdl::MemStyle;

/// The default `sram_threshold_bits` of ASIC designs.
pub const DEFAULT_SRAM_THRESHOLD_BITS: u64 = 4096;

/// The largest accepted threshold: no array comes near it, so every array is inferred
/// (the FPGA board's default).
pub const NEVER_SRAM_BITS: u64 = 1 << 40;

/// The ports a macro offers: one synchronous read port and one write port (a 1R1W
/// macro, the shape the fakeram models and memory compilers have in common).
pub const MACRO_READ_PORTS: usize = 1;
pub const MACRO_WRITE_PORTS: usize = 1;

/// The ports an array needs, as its generator will build them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayPorts {
    /// Synchronous (registered, one-cycle) read ports.
    pub sync_reads: usize,
    /// Combinational read ports: no macro has them.
    pub comb_reads: usize,
    pub writes: usize,
}

impl ArrayPorts {
    /// One synchronous read port and one write port.
    pub const SYNC_1R1W: ArrayPorts = ArrayPorts {
        sync_reads: 1,
        comb_reads: 0,
        writes: 1,
    };

    /// A macro can serve these ports.
    pub fn macro_capable(&self) -> bool {
        self.comb_reads == 0
            && self.sync_reads <= MACRO_READ_PORTS
            && self.writes <= MACRO_WRITE_PORTS
    }
}

/// The style of an array of `depth` x `width` bits with `ports`: an SRAM macro when it
/// holds more than `threshold_bits` and a macro can serve its ports, else inferred.
pub fn style(depth: u64, width: u32, ports: ArrayPorts, threshold_bits: u64) -> MemStyle {
    if depth * width as u64 > threshold_bits && ports.macro_capable() {
        MemStyle::Sram
    } else {
        MemStyle::Inferred
    }
}

/// The ports of an elaborated memory, for checking a design against the policy.
pub fn ports_of(mem: &hdl::ir::Memory) -> ArrayPorts {
    let sync_reads = mem.reads.iter().filter(|r| r.sync.is_some()).count();
    ArrayPorts {
        sync_reads,
        comb_reads: mem.reads.len() - sync_reads,
        writes: mem.writes.len(),
    }
}

/// The `sram_threshold_bits` parameter's description.
pub fn threshold_param() -> Param {
    Param::int(
        "sram_threshold_bits",
        0,
        NEVER_SRAM_BITS,
        "arrays of more bits are SRAM macros where a 1R1W macro serves their ports",
    )
}
