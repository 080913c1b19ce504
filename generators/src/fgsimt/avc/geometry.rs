//! The AVC and L1 pair's shape (seed 002, Table 3 and Figure 4; spec 002 section 3.2):
//! the address split of both caches, checked once.

use hdl::ir::addr_width;
use hdl::Value;

/// Parameters of the pair, in the golden model's terms
/// (`verification::fgsimt::avc::controller::AvcParams`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvcGeometry {
    /// Threads of a warp: 32-bit words of a block (a power of two, 1 to 32).
    pub threads: u32,
    /// Vectors one AVC tag covers (a power of two, 2 to 64).
    pub vectors_per_line: u32,
    /// Sets of the AVC and of the L1 (powers of two, at least 2).
    pub avc_sets: u32,
    pub l1_sets: u32,
    /// Ways (1 to 8 each).
    pub avc_ways: u32,
    pub l1_ways: u32,
    /// Arrays above this many bits are SRAM macros.
    pub sram_threshold_bits: u64,
}

fn log2(v: u32) -> u32 {
    v.trailing_zeros()
}

impl AvcGeometry {
    /// Checks the shape: the reason it is not built, if any.
    pub fn check(&self) -> Result<(), String> {
        let pow2 = |v: u32| v.is_power_of_two();
        if !(pow2(self.threads) && self.threads <= 32) {
            return Err(format!("threads {}: a power of two up to 32", self.threads));
        }
        if !(pow2(self.vectors_per_line) && (2..=64).contains(&self.vectors_per_line)) {
            return Err(format!(
                "vectors_per_line {}: a power of two, 2 to 64",
                self.vectors_per_line
            ));
        }
        for (name, sets) in [("avc_sets", self.avc_sets), ("l1_sets", self.l1_sets)] {
            if !(pow2(sets) && (2..=4096).contains(&sets)) {
                return Err(format!("{name} {sets}: a power of two, 2 to 4096"));
            }
        }
        for (name, ways) in [("avc_ways", self.avc_ways), ("l1_ways", self.l1_ways)] {
            if !(1..=8).contains(&ways) {
                return Err(format!("{name} {ways}: 1 to 8"));
            }
        }
        Ok(())
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
