//! Parameters of the Rocket-like control processor: one flat serde struct (so that every
//! knob can be swept with `--set name=value`) with its description (`params`), typed
//! views for the blocks that take a subset of them, and design `rocket`'s parameters (the
//! tile's plus `rocc`).

use crate::arith::adder::Style as AdderStyle;
use crate::schema::{self, Param};
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
    /// Register width: 64 (RV64IMA) or 32 (RV32IMA: the register file, pc, ALU, CSRs and
    /// bypasses are 32 bits wide; the memory side keeps its 64-bit lanes).
    pub xlen: u32,
    /// The F extension (single precision, `rocket::fpu`); at `xlen` 32 only.
    pub fpu: bool,
    /// The FPU's fused multiply-add pipeline: cycles from operands to result.
    pub fma_stages: u32,
    pub predictor: Predictor,
    pub bht_entries: u32,
    pub btb_entries: u32,
    pub mul: MulKind,
    pub mul_bits_per_cycle: u32,
    /// The iterative multiplier finishes as soon as the multiplier's remaining bits are
    /// zero (Rocket's `mulEarlyOut`, `muldiv::early_out`).
    pub mul_early_out: bool,
    pub mul_stages: u32,
    pub div_bits_per_cycle: u32,
    /// The divider skips a dividend's leading zero bytes (Rocket's `divEarlyOut`,
    /// `muldiv::skip_zero_bytes`).
    pub div_early_out: bool,
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
    /// Arrays above this many bits are SRAM macros where a macro serves their ports
    /// (`crate::memory`): the caches' data arrays at the default.
    pub sram_threshold_bits: u64,
    /// The core's adders and compares: parallel-prefix networks (ASIC) or `+`/`-` for
    /// the FPGA's carry chain (`accelgen fpga` picks `inferred` unless told otherwise).
    pub adders: AdderStyle,
}

impl Default for RocketParams {
    /// The `rocket-default` preset.
    fn default() -> Self {
        RocketParams {
            xlen: 64,
            fpu: false,
            fma_stages: 3,
            predictor: Predictor::Btb,
            bht_entries: 64,
            btb_entries: 16,
            mul: MulKind::Iterative,
            mul_bits_per_cycle: 8,
            mul_early_out: true,
            mul_stages: 3,
            div_bits_per_cycle: 1,
            div_early_out: true,
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
            sram_threshold_bits: crate::memory::DEFAULT_SRAM_THRESHOLD_BITS,
            adders: AdderStyle::Prefix,
        }
    }
}

/// Design `rocket`'s parameters: the tile's and whether its bare RoCC port has an
/// accelerator. Designs built around a fixed accelerator take [`RocketParams`] alone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RocketDesignParams {
    #[serde(flatten)]
    pub tile: RocketParams,
    /// An accelerator is attached to the RoCC port; without one, custom-0..3 are illegal
    /// instructions (as on the ISS without an accelerator model).
    pub rocc: bool,
}

/// The largest L1 cache (sets, ways) and its line sizes (bytes): the tile's I$ and D$,
/// and the Hwacha vector I$ (the same cache).
pub const MAX_CACHE_SETS: u64 = 4096;
pub const MAX_CACHE_WAYS: u64 = 8;
pub const CACHE_LINE_BYTES: (u64, u64) = (8, 256);

/// RAM lies above the reset ROM (`0..0x2000`) and ends at or below 2^32.
const RAM_START: u64 = 0x2000;
const RAM_END: u64 = 1 << 32;

/// The sets, ways and line bytes of a cache, named `names`, described by `docs`.
pub fn cache_params(names: [&'static str; 3], docs: [&'static str; 3]) -> Vec<Param> {
    let (min_line, max_line) = CACHE_LINE_BYTES;
    vec![
        Param::int(names[0], 1, MAX_CACHE_SETS, docs[0]).pow2(),
        Param::int(names[1], 1, MAX_CACHE_WAYS, docs[1]),
        Param::int(names[2], min_line, max_line, docs[2]).pow2(),
    ]
}

/// The tile's parameters (the fields of [`RocketParams`]), in declaration order.
pub fn params() -> Vec<Param> {
    let mut v = vec![
        Param::int(
            "xlen",
            32,
            64,
            "register width in bits: 64 (RV64IMA) or 32 (RV32IMA; the memory side stays 64 bits wide)",
        )
        .pow2(),
        Param::boolean(
            "fpu",
            "the F extension (single precision; RV32 only): f registers, FMA, div/sqrt, conversions, compares",
        ),
        Param::int(
            "fma_stages",
            crate::fpu::fma::MIN_STAGES as u64,
            crate::fpu::fma::MAX_STAGES as u64,
            "FPU: pipeline stages of the fused multiply-add (its latency in cycles)",
        ),
        Param::choice(
            "predictor",
            &["none", "bht", "btb"],
            "branch prediction: none, a BHT in decode or a BTB in fetch",
        ),
        Param::int("bht_entries", 2, 4096, "2-bit counters of the BHT").pow2(),
        Param::int("btb_entries", 1, 64, "entries of the fully associative BTB"),
        Param::choice(
            "mul",
            &["iterative", "pipelined"],
            "multiplier organisation",
        ),
        Param::int(
            "mul_bits_per_cycle",
            1,
            64,
            "iterative multiplier: bits retired per cycle",
        )
        .pow2(),
        Param::boolean(
            "mul_early_out",
            "iterative multiplier: finish once the multiplier's remaining bits are zero (at byte boundaries)",
        ),
        Param::int(
            "mul_stages",
            1,
            8,
            "pipelined multiplier: cycles from operands to result",
        ),
        Param::int(
            "div_bits_per_cycle",
            1,
            4,
            "divider: quotient bits per cycle",
        )
        .pow2(),
        Param::boolean(
            "div_early_out",
            "divider: skip the dividend's leading zero bytes (not for a zero divisor)",
        ),
        Param::choice(
            "memory",
            &["cache", "direct"],
            "blocking L1 I$ and D$, or every access to the outer port",
        ),
    ];
    v.extend(cache_params(
        ["icache_sets", "icache_ways", "icache_line_bytes"],
        ["I$ sets", "I$ ways", "I$ line size in bytes"],
    ));
    v.extend(cache_params(
        ["dcache_sets", "dcache_ways", "dcache_line_bytes"],
        ["D$ sets", "D$ ways", "D$ line size in bytes"],
    ));
    v.extend([
        Param::int(
            "ram_base",
            RAM_START,
            RAM_END - 1,
            "RAM base address, aligned to ram_size; accesses outside RAM and the reset ROM fault",
        )
        .hex(),
        Param::int(
            "ram_size",
            1,
            RAM_END,
            "RAM size in bytes; RAM must end at or below 2^32",
        )
        .pow2()
        .hex(),
        Param::int(
            "uncached_base",
            0,
            RAM_END - 1,
            "start of the data region that bypasses the D$ (HTIF mailbox)",
        )
        .hex(),
        Param::int(
            "uncached_size",
            0,
            RAM_END,
            "size of the uncached region in bytes (0 for none), inside RAM",
        )
        .hex(),
        crate::memory::threshold_param(),
        Param::choice(
            "adders",
            AdderStyle::NAMES,
            "the core's adders: Kogge-Stone prefix networks (ASIC) or inferred +/- (FPGA carry chains)",
        ),
    ]);
    v
}

/// Design `rocket`'s parameters (the fields of [`RocketDesignParams`]).
pub fn design_params() -> Vec<Param> {
    let mut v = params();
    v.push(Param::boolean(
        "rocc",
        "an accelerator is attached: custom-0..3 go to the RoCC port (else they are illegal)",
    ));
    v
}

/// Shape of one L1 cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheParams {
    pub sets: u32,
    pub ways: u32,
    pub line_bytes: u32,
    /// `[base, base + size)` bypasses the cache: reads and writes go straight through.
    pub uncached_base: u64,
    pub uncached_size: u64,
    /// The memory policy's threshold (`crate::memory::style`).
    pub sram_threshold_bits: u64,
    /// Cacheable writes are not answered: they drain to memory from a write buffer
    /// (`cache.rs`; the D$ of the Rocket core).
    pub posted_writes: bool,
}

/// Shape of the multiply/divide unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MulDivParams {
    pub mul: MulKind,
    pub mul_bits_per_cycle: u32,
    /// The iterative multiplier finishes early (`muldiv::early_out`).
    pub mul_early_out: bool,
    pub mul_stages: u32,
    pub div_bits_per_cycle: u32,
    /// The divider skips leading zero bytes (`muldiv::skip_zero_bytes`).
    pub div_early_out: bool,
    /// The iterative engine's adders, subtractors and negations.
    pub adders: AdderStyle,
    /// The iterative engine's result leaves from a register, a cycle later (`muldiv`).
    pub registered_result: bool,
}

impl RocketParams {
    pub fn icache(&self) -> CacheParams {
        CacheParams {
            sets: self.icache_sets,
            ways: self.icache_ways,
            line_bytes: self.icache_line_bytes,
            uncached_base: 0,
            uncached_size: 0,
            sram_threshold_bits: self.sram_threshold_bits,
            posted_writes: false,
        }
    }

    pub fn dcache(&self) -> CacheParams {
        CacheParams {
            sets: self.dcache_sets,
            ways: self.dcache_ways,
            line_bytes: self.dcache_line_bytes,
            uncached_base: self.uncached_base,
            uncached_size: self.uncached_size,
            sram_threshold_bits: self.sram_threshold_bits,
            posted_writes: true,
        }
    }

    pub fn muldiv(&self) -> MulDivParams {
        MulDivParams {
            mul: self.mul,
            mul_bits_per_cycle: self.mul_bits_per_cycle,
            mul_early_out: self.mul_early_out,
            mul_stages: self.mul_stages,
            div_bits_per_cycle: self.div_bits_per_cycle,
            div_early_out: self.div_early_out,
            adders: self.adders,
            registered_result: true,
        }
    }

    /// Refuses the RV32 and F variants for a design built around the RV64IMA core
    /// (`rocket-hwacha`'s RV64 control thread, the accumulator's doubleword loads, the
    /// board's boot ROM).
    pub fn require_rv64(&self) -> Result<(), ParamError> {
        if self.xlen != 64 {
            return Err(ParamError::new(
                "xlen",
                format!(
                    "this design is built around the RV64 core; got {}",
                    self.xlen
                ),
            ));
        }
        if self.fpu {
            return Err(ParamError::new(
                "fpu",
                "this design is built around the RV64IMA core, without F",
            ));
        }
        Ok(())
    }

    /// Checks every field against [`params`], then the rules across fields.
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&params(), self)?;
        if self.fpu && self.xlen != 32 {
            return Err(ParamError::new(
                "fpu",
                "the F extension is built for xlen = 32 only (RV64's f registers would need NaN-boxing and fcvt.l[u].s)",
            ));
        }
        if !self.ram_base.is_multiple_of(self.ram_size) {
            return Err(ParamError::new(
                "ram_size",
                format!(
                    "must be a power of two dividing ram_base, got {:#x} at {:#x}",
                    self.ram_size, self.ram_base
                ),
            ));
        }
        if self.ram_base + self.ram_size > RAM_END {
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
