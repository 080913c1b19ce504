//! Parameters of the Rocket-like control processor: one flat serde struct (so that every
//! knob can be swept with `--set name=value`), with typed views for the blocks that take
//! a subset of them.

use crate::ParamError;
use serde::{Deserialize, Serialize};

/// Branch prediction in the front end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Predictor {
    /// Always fall through; every taken branch or jump redirects from execute.
    None,
    /// Branch history table of 2-bit counters consulted in decode (taken branches and
    /// jal redirect from decode, one bubble).
    Bht,
    /// Branch target buffer with 2-bit counters consulted in fetch (no bubble on a hit).
    Btb,
}

/// Multiplier organisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MulKind {
    /// Shift-and-add, `mul_bits_per_cycle` multiplier bits per cycle.
    Iterative,
    /// Fully pipelined, result after `mul_stages` cycles, one new multiply per cycle.
    Pipelined,
}

/// What sits between the core and the outer memory port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    /// Blocking L1 instruction and data caches.
    Cache,
    /// Every fetch and data access goes to the outer port.
    Direct,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RocketParams {
    pub predictor: Predictor,
    pub bht_entries: u32,
    pub btb_entries: u32,
    pub mul: MulKind,
    pub mul_bits_per_cycle: u32,
    pub mul_stages: u32,
    pub div_bits_per_cycle: u32,
    pub memory: MemoryKind,
    pub icache_sets: u32,
    pub icache_ways: u32,
    pub icache_line_bytes: u32,
    pub dcache_sets: u32,
    pub dcache_ways: u32,
    pub dcache_line_bytes: u32,
    pub ram_base: u64,
    pub ram_size: u64,
    /// Data accesses here bypass the D$ (the HTIF mailbox the host writes behind the
    /// core's back; the linker script puts `.tohost` at the start of RAM).
    pub uncached_base: u64,
    pub uncached_size: u64,
    /// An accelerator is attached to the RoCC port; without one, custom-0..3 are illegal
    /// instructions (as on the ISS without an accelerator model).
    pub rocc: bool,
}

impl Default for RocketParams {
    /// The `rocket-default` preset.
    fn default() -> Self {
        RocketParams {
            predictor: Predictor::Btb,
            bht_entries: 64,
            btb_entries: 16,
            mul: MulKind::Iterative,
            mul_bits_per_cycle: 8,
            mul_stages: 3,
            div_bits_per_cycle: 1,
            memory: MemoryKind::Cache,
            icache_sets: 32,
            icache_ways: 2,
            icache_line_bytes: 64,
            dcache_sets: 32,
            dcache_ways: 2,
            dcache_line_bytes: 64,
            ram_base: 0x8000_0000,
            ram_size: 0x8000_0000,
            uncached_base: 0x8000_0000,
            uncached_size: 0x1000,
            rocc: false,
        }
    }
}

pub const PARAM_DOCS: &[(&str, &str)] = &[
    (
        "predictor",
        "branch prediction: \"none\", \"bht\" (in decode) or \"btb\" (in fetch)",
    ),
    (
        "bht_entries",
        "2-bit counters of the BHT (power of two, 2..=4096)",
    ),
    (
        "btb_entries",
        "entries of the fully associative BTB (1..=64)",
    ),
    ("mul", "multiplier: \"iterative\" or \"pipelined\""),
    (
        "mul_bits_per_cycle",
        "iterative multiplier: bits retired per cycle (1, 2, 4, .., 64)",
    ),
    (
        "mul_stages",
        "pipelined multiplier: cycles from operands to result (1..=8)",
    ),
    (
        "div_bits_per_cycle",
        "divider: quotient bits per cycle (1, 2 or 4)",
    ),
    (
        "memory",
        "\"cache\" (blocking L1 I$ and D$) or \"direct\" (no caches)",
    ),
    ("icache_sets", "I$ sets (power of two, 1..=4096)"),
    ("icache_ways", "I$ ways (1..=8)"),
    (
        "icache_line_bytes",
        "I$ line size in bytes (power of two, 8..=256)",
    ),
    ("dcache_sets", "D$ sets (power of two, 1..=4096)"),
    ("dcache_ways", "D$ ways (1..=8)"),
    (
        "dcache_line_bytes",
        "D$ line size in bytes (power of two, 8..=256)",
    ),
    (
        "ram_base",
        "RAM base address (aligned to ram_size); accesses outside RAM and the reset ROM fault",
    ),
    (
        "ram_size",
        "RAM size in bytes (power of two); RAM must end at or below 2^32",
    ),
    (
        "uncached_base",
        "start of the data region that bypasses the D$ (HTIF mailbox)",
    ),
    (
        "uncached_size",
        "size of the uncached region in bytes (0 for none)",
    ),
    (
        "rocc",
        "an accelerator is attached: custom-0..3 go to the RoCC port (else they are illegal)",
    ),
];

/// Shape of one L1 cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheParams {
    pub sets: u32,
    pub ways: u32,
    pub line_bytes: u32,
    /// `[base, base + size)` bypasses the cache: reads and writes go straight through.
    pub uncached_base: u64,
    pub uncached_size: u64,
}

/// Shape of the multiply/divide unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MulDivParams {
    pub mul: MulKind,
    pub mul_bits_per_cycle: u32,
    pub mul_stages: u32,
    pub div_bits_per_cycle: u32,
}

impl RocketParams {
    pub fn icache(&self) -> CacheParams {
        CacheParams {
            sets: self.icache_sets,
            ways: self.icache_ways,
            line_bytes: self.icache_line_bytes,
            uncached_base: 0,
            uncached_size: 0,
        }
    }

    pub fn dcache(&self) -> CacheParams {
        CacheParams {
            sets: self.dcache_sets,
            ways: self.dcache_ways,
            line_bytes: self.dcache_line_bytes,
            uncached_base: self.uncached_base,
            uncached_size: self.uncached_size,
        }
    }

    pub fn muldiv(&self) -> MulDivParams {
        MulDivParams {
            mul: self.mul,
            mul_bits_per_cycle: self.mul_bits_per_cycle,
            mul_stages: self.mul_stages,
            div_bits_per_cycle: self.div_bits_per_cycle,
        }
    }

    pub fn validate(&self) -> Result<(), ParamError> {
        if self.predictor == Predictor::Bht {
            ParamError::check_pow2("bht_entries", self.bht_entries)?;
            ParamError::check_range("bht_entries", self.bht_entries, 2, 4096)?;
        }
        if self.predictor == Predictor::Btb {
            ParamError::check_range("btb_entries", self.btb_entries, 1, 64)?;
        }
        match self.mul {
            MulKind::Iterative => {
                ParamError::check_pow2("mul_bits_per_cycle", self.mul_bits_per_cycle)?;
                ParamError::check_range("mul_bits_per_cycle", self.mul_bits_per_cycle, 1, 64)?;
            }
            MulKind::Pipelined => ParamError::check_range("mul_stages", self.mul_stages, 1, 8)?,
        }
        ParamError::check_pow2("div_bits_per_cycle", self.div_bits_per_cycle)?;
        ParamError::check_range("div_bits_per_cycle", self.div_bits_per_cycle, 1, 4)?;
        if self.memory == MemoryKind::Cache {
            let i = ["icache_sets", "icache_ways", "icache_line_bytes"];
            let d = ["dcache_sets", "dcache_ways", "dcache_line_bytes"];
            check_cache(i, &self.icache())?;
            check_cache(d, &self.dcache())?;
        }
        let pow2 = |v: u64| v != 0 && v.is_power_of_two();
        if !pow2(self.ram_size) || !self.ram_base.is_multiple_of(self.ram_size) {
            return Err(ParamError::new(
                "ram_size",
                format!(
                    "must be a power of two dividing ram_base, got {:#x} at {:#x}",
                    self.ram_size, self.ram_base
                ),
            ));
        }
        if self.ram_base < 0x2000 || self.ram_base + self.ram_size > 1 << 32 {
            return Err(ParamError::new(
                "ram_base",
                format!(
                    "RAM {:#x}..{:#x} must lie above the reset ROM and below 2^32",
                    self.ram_base,
                    self.ram_base + self.ram_size
                ),
            ));
        }
        let inside = self.uncached_base >= self.ram_base
            && self.uncached_base + self.uncached_size <= self.ram_base + self.ram_size;
        if self.uncached_size != 0 && !inside {
            return Err(ParamError::new(
                "uncached_base",
                "the uncached region must lie inside RAM",
            ));
        }
        Ok(())
    }
}

/// `names`: the parameters holding the cache's sets, ways and line size.
fn check_cache(names: [&'static str; 3], c: &CacheParams) -> Result<(), ParamError> {
    let [sets, ways, line] = names;
    ParamError::check_pow2(sets, c.sets)?;
    ParamError::check_range(sets, c.sets, 1, 4096)?;
    ParamError::check_range(ways, c.ways, 1, 8)?;
    ParamError::check_pow2(line, c.line_bytes)?;
    ParamError::check_range(line, c.line_bytes, 8, 256)
}
