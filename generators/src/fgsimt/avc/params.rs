//! Parameters of the AVC and L1 pair (seed 002, Table 3 and Figure 4; spec 002 section
//! 3.2): one serde struct, its description, and the address split of both caches.

use crate::schema::{self, Param};
use crate::ParamError;
use hdl::ir::addr_width;
use hdl::Value;
use serde::{Deserialize, Serialize};

/// The pair's shape, in the golden model's terms
/// (`verification::fgsimt::avc::controller::AvcParams`). The default is the paper's
/// headline configuration 2 (Table 3): a 32 KB 4-way L1 and a 16 KB 2-way AVC, 64 sets
/// each, for warps of 32 threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AvcParams {
    /// Threads of a warp: 32-bit words of a block.
    pub threads: u32,
    /// Vectors (blocks) one AVC tag covers.
    pub vectors_per_line: u32,
    pub avc_sets: u32,
    pub avc_ways: u32,
    pub l1_sets: u32,
    pub l1_ways: u32,
    /// Arrays above this many bits are SRAM macros.
    pub sram_threshold_bits: u64,
}

impl Default for AvcParams {
    fn default() -> Self {
        AvcParams {
            threads: 32,
            vectors_per_line: 16,
            avc_sets: 64,
            avc_ways: 2,
            l1_sets: 64,
            l1_ways: 4,
            sram_threshold_bits: crate::memory::DEFAULT_SRAM_THRESHOLD_BITS,
        }
    }
}

/// The parameters (the fields of [`AvcParams`]), in declaration order.
pub fn params() -> Vec<Param> {
    vec![
        Param::int(
            "threads",
            1,
            32,
            "threads of a warp: 32-bit words of a block",
        )
        .pow2(),
        Param::int(
            "vectors_per_line",
            2,
            64,
            "vectors (blocks) one AVC tag covers (16 in the paper)",
        )
        .pow2(),
        // Line valid bits and PLRU state are registers: at most 256 sets.
        Param::int("avc_sets", 2, 256, "AVC sets").pow2(),
        Param::int("avc_ways", 1, 8, "AVC ways (1-3 in the paper's Table 3)"),
        Param::int("l1_sets", 2, 256, "L1 sets").pow2(),
        Param::int("l1_ways", 1, 8, "L1 ways (3-6 in the paper's Table 3)"),
        crate::memory::threshold_param(),
    ]
}

fn log2(v: u32) -> u32 {
    v.trailing_zeros()
}

impl AvcParams {
    /// Every value in its range (the rules `params` states).
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&params(), self)
    }

    pub fn data_bits(&self) -> u32 {
        32 * self.threads
    }
    pub fn offset_bits(&self) -> u32 {
        log2(4 * self.threads)
    }
    pub fn vec_bits(&self) -> u32 {
        log2(self.vectors_per_line)
    }
    pub fn set_bits(&self) -> u32 {
        log2(self.avc_sets)
    }
    pub fn tag_bits(&self) -> u32 {
        32 - self.offset_bits() - self.vec_bits() - self.set_bits()
    }
    pub fn l1_set_bits(&self) -> u32 {
        log2(self.l1_sets)
    }
    pub fn l1_tag_bits(&self) -> u32 {
        32 - self.offset_bits() - self.l1_set_bits()
    }
    pub fn avc_way_bits(&self) -> u32 {
        addr_width(self.avc_ways as u64)
    }
    pub fn l1_way_bits(&self) -> u32 {
        addr_width(self.l1_ways as u64)
    }
    /// A vector slot: base (32), code (3), valid mask, dirty.
    pub fn vector_bits(&self) -> u32 {
        32 + super::CODE_BITS + self.threads + 1
    }

    /// An address's vector index within its AVC line.
    pub fn vec_of(&self, addr: &Value) -> Value {
        let lo = self.offset_bits();
        addr.slice(lo + self.vec_bits() - 1, lo)
    }
    /// An address's AVC set.
    pub fn set_of(&self, addr: &Value) -> Value {
        let lo = self.offset_bits() + self.vec_bits();
        addr.slice(lo + self.set_bits() - 1, lo)
    }
    /// An address's vector slot (set and vector): the vector arrays' index.
    pub fn slot_of(&self, addr: &Value) -> Value {
        let lo = self.offset_bits();
        addr.slice(lo + self.vec_bits() + self.set_bits() - 1, lo)
    }
    pub fn tag_of(&self, addr: &Value) -> Value {
        addr.slice(31, 32 - self.tag_bits())
    }
    pub fn l1_set_of(&self, addr: &Value) -> Value {
        let lo = self.offset_bits();
        addr.slice(lo + self.l1_set_bits() - 1, lo)
    }
    pub fn l1_tag_of(&self, addr: &Value) -> Value {
        addr.slice(31, 32 - self.l1_tag_bits())
    }
}
