//! Parameters of the FG-SIMT engine (seed 000, Figure 3 and section 1): one flat serde
//! struct (every knob sweepable with `--set name=value`), with its description (`params`)
//! and typed views for the blocks that take a subset.

use super::cp::shared_load_cache::{SharedLoadCacheParams, MAX_ENTRIES};
use super::dws::params::{self as dws, DwsParams, SplitPolicy};
use crate::rocket::params::{MemoryKind, RocketParams, MAX_CACHE_SETS};
use crate::schema::{self, Param};
use crate::ParamError;
use serde::{Deserialize, Serialize};

/// Bytes in a wide (256-bit) access, fixed by seed 000: the wide port's block, the
/// coalescer's span and the SLDQ's unit; the I$'s line, and the D$'s shortest line (the
/// D$'s line is `dcache_line_bytes`, a multiple of it).
pub const BLOCK_BYTES: u32 = 32;

/// The longest D$ line (seed 001's Table 3: 128 bytes); a bank's memory port is a line
/// wide.
pub const MAX_DCACHE_LINE_BYTES: u32 = 128;

/// Which of the paper's affine mechanisms are built (section 2): none, affine arithmetic
/// with lazy expansion (+a), uniform branches in the CP (+b), affine unit-stride loads on
/// the wide port (+m).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Affine {
    None,
    A,
    Ab,
    Abm,
}

/// How a warp's threads re-converge after divergence: seed 000's PWFB (its front end
/// with no sequencer), or seed 001's DWS sequencer (`dws/`) with its stacks and one of
/// its re-convergence modes (section 2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reconvergence {
    Pwfb,
    Stack,
    Bl,
    Bypass,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FgsimtParams {
    /// SIMT lanes (8 in the paper).
    pub lanes: u32,
    /// Threads per warp (32): each lane holds warp_size / lanes of them, so a warp
    /// instruction occupies a functional unit that many cycles.
    pub warp_size: u32,
    /// Warp contexts resident at once (the DWS paper's multithreading, seed 001's
    /// baseline): each has its own AWFR/PWFB and SRF registers, and the front end
    /// switches context after a load (docs/fgsimt-engine.md,
    /// "Multithreading"). 1 is seed 000's engine, one warp at a time.
    pub warps: u32,
    pub affine: Affine,
    /// L1 I$ bytes (16 KiB, direct-mapped, 32-byte lines).
    pub icache_bytes: u32,
    /// L1 D$ bytes over all banks (128 KiB).
    pub dcache_bytes: u32,
    /// Bytes in a D$ line (32, seed 000's; 128 in seed 001's Table 3): the unit of a
    /// tag, a refill and a write-back, and of the bank interleave.
    pub dcache_line_bytes: u32,
    /// D$ banks, interleaved by line (8).
    pub dcache_banks: u32,
    /// Ways of each bank's sets, replaced by tree pseudo-LRU (1: direct-mapped, seed
    /// 000's; 8 in seed 001's Table 3).
    pub dcache_ways: u32,
    /// MSHRs a D$ bank: 0 is a blocking bank (seed 000's); more make it non-blocking,
    /// hits going on under misses (seed 001's Table 3 has 32 for the whole L1).
    pub dcache_mshrs: u32,
    /// Requests an MSHR holds (Table 3: 32).
    pub dcache_mshr_targets: u32,
    /// Data accesses here bypass the D$ (the HTIF mailbox the host polls).
    pub uncached_base: u64,
    pub uncached_size: u64,
    /// Arrays above this many bits are SRAM macros where a macro serves their ports.
    pub sram_threshold_bits: u64,
    /// Warp instructions the SIU's instruction queue (SIQ) holds.
    pub siq_depth: u32,
    /// Loads waiting for their data in the SIU's load writeback queue (SLWQ).
    pub slwq_depth: u32,
    /// SAU0's pipelined multiplier: cycles from a warp instruction's issue until a
    /// consumer of its result may issue (the ALU's is 1).
    pub mul_latency: u32,
    /// Quotient bits per cycle of SAU1's iterative dividers (one per thread slot).
    pub div_bits_per_cycle: u32,
    /// Stages of SAU0's pipelined fused multiply-add (`lane/sfpu.rs`).
    pub fma_stages: u32,
    /// Each lane's SMRQ holds this many warp instructions (each `threads_per_lane` entries).
    pub smrq_insts: u32,
    /// The SLDQs hold the data of this many load warp instructions.
    pub sldq_loads: u32,
    /// Words the CP's shared load cache holds (+a; `cp/shared_load_cache.rs`), 0 for none.
    pub shared_load_cache: u32,
    /// The affine vector cache (seed 002, `avc/`): the threads' stacks become private
    /// memory, served by an AVC and its own L1 (`smu/private.rs`) instead of the D$.
    pub avc: bool,
    /// The AVC's and its L1's shape (Table 3's configuration 2 by default).
    pub avc_ways: u32,
    pub avc_sets: u32,
    pub avc_vectors_per_line: u32,
    pub avc_l1_ways: u32,
    pub avc_l1_sets: u32,
    /// Re-convergence: `pwfb` is seed 000's front end; the others put seed 001's DWS
    /// sequencer in front of the SIU (docs/fgsimt-engine.md, "DWS in the engine").
    pub reconv: Reconvergence,
    /// With the sequencer: when a group splits on memory divergence, whether divergent
    /// branches of short blocks split undivided warps, and its table's sizes
    /// (`dws::params::DwsParams`).
    pub dws: SplitPolicy,
    pub branch_dws: bool,
    pub wst_entries: u32,
    pub dws_slots: u32,
    pub stack_depth: u32,
    pub short_block: u32,
    pub branch_entries: u32,
    /// With the sequencer and `dws` other than off: the cycles a load's hit mask waits
    /// for its data after the load reaches the SMU (`smu/hit_mask.rs`).
    pub hit_window: u32,
    /// Where the loader puts the re-convergence directory the launch reads
    /// (`cp/branch_directory.rs`).
    pub dws_directory: u64,
}

impl Default for FgsimtParams {
    /// The paper's engine (`configs/fgsimt.toml`).
    fn default() -> Self {
        FgsimtParams {
            lanes: 8,
            warp_size: 32,
            warps: 1,
            affine: Affine::None,
            icache_bytes: 16 * 1024,
            dcache_bytes: 128 * 1024,
            dcache_line_bytes: BLOCK_BYTES,
            dcache_banks: 8,
            dcache_ways: 1,
            dcache_mshrs: 0,
            dcache_mshr_targets: 4,
            uncached_base: 0x8000_0000,
            uncached_size: 0x1000,
            sram_threshold_bits: crate::memory::DEFAULT_SRAM_THRESHOLD_BITS,
            siq_depth: 4,
            slwq_depth: 4,
            mul_latency: 3,
            div_bits_per_cycle: 2,
            fma_stages: 3,
            smrq_insts: 2,
            sldq_loads: 4,
            shared_load_cache: 8,
            avc: false,
            avc_ways: 2,
            avc_sets: 64,
            avc_vectors_per_line: 16,
            avc_l1_ways: 4,
            avc_l1_sets: 64,
            reconv: Reconvergence::Pwfb,
            dws: SplitPolicy::Off,
            branch_dws: false,
            wst_entries: 16,
            dws_slots: 0,
            stack_depth: 16,
            short_block: 50,
            branch_entries: 16,
            hit_window: 6,
            dws_directory: 0x4000_0000,
        }
    }
}

/// Result bits per cycle of SAU1's FP dividers (`fpu::divsqrt`, one per thread slot).
pub const FDIV_BITS_PER_CYCLE: u32 = 1;

/// The parameters (the fields of [`FgsimtParams`]), in declaration order.
pub fn params() -> Vec<Param> {
    let [icache, uncached_base, uncached_size] =
        host_params("start of the data region that bypasses the D$ (HTIF mailbox)");
    vec![
        Param::int("lanes", 1, 32, "SIMT lanes").pow2(),
        Param::int(
            "warp_size",
            1,
            32,
            "threads per warp, a multiple of lanes (each lane runs warp_size / lanes per warp instruction)",
        )
        .pow2(),
        Param::int(
            "warps",
            1,
            MAX_WARPS as u64,
            "resident warp contexts: the front end switches context after a load",
        )
        .pow2(),
        Param::choice(
            "affine",
            &["none", "a", "ab", "abm"],
            "affine mechanisms: arithmetic + lazy expansion (a), uniform branches (b), affine loads (m)",
        ),
        icache,
        Param::int(
            "dcache_bytes",
            1024,
            1 << 22,
            "L1 D$ bytes over all banks",
        )
        .pow2(),
        Param::int(
            "dcache_line_bytes",
            BLOCK_BYTES as u64,
            MAX_DCACHE_LINE_BYTES as u64,
            "bytes in a D$ line: a tag, a refill, a write-back (Table 3 of seed 001: 128)",
        )
        .pow2(),
        Param::int("dcache_banks", 1, 32, "D$ banks, interleaved by line").pow2(),
        Param::int(
            "dcache_ways",
            1,
            MAX_DCACHE_WAYS as u64,
            "ways of each D$ bank (1: direct-mapped; tree pseudo-LRU)",
        )
        .pow2(),
        Param::int(
            "dcache_mshrs",
            0,
            MAX_DCACHE_MSHRS as u64,
            "MSHRs a D$ bank (0: blocking; more: hits under misses)",
        ),
        Param::int(
            "dcache_mshr_targets",
            1,
            MAX_DCACHE_MSHRS as u64 * 2,
            "requests an MSHR holds (with dcache_mshrs)",
        ),
        uncached_base,
        uncached_size,
        crate::memory::threshold_param(),
        Param::int("siq_depth", 2, 16, "warp instructions in the SIU's queue (SIQ)"),
        Param::int(
            "slwq_depth",
            2,
            16,
            "loads waiting for data in the SIU's load writeback queue (SLWQ)",
        ),
        Param::int(
            "mul_latency",
            1,
            8,
            "cycles from a multiply's issue to its consumer's (SAU0, pipelined)",
        ),
        Param::int(
            "div_bits_per_cycle",
            1,
            32,
            "quotient bits per cycle of SAU1's dividers (32 / this + 2 cycles to a consumer)",
        )
        .pow2(),
        Param::int(
            "fma_stages",
            1,
            5,
            "stages of SAU0's pipelined FP fused multiply-add (lane/sfpu.rs)",
        ),
        Param::int(
            "smrq_insts",
            1,
            8,
            "SMRQ depth in warp instructions (each warp_size / lanes entries a lane)",
        )
        .pow2(),
        Param::int(
            "sldq_loads",
            1,
            8,
            "SLDQ depth in load warp instructions (each warp_size / lanes words a lane)",
        )
        .pow2(),
        Param::int(
            "shared_load_cache",
            0,
            MAX_ENTRIES as u64,
            "words of the CP's shared load cache, emptied per kernel (with affine a, ab, abm; 0 for none)",
        ),
        Param::boolean(
            "avc",
            "affine vector cache (seed 002): the threads' stacks are private memory in an AVC and its own L1",
        ),
        // The controller's line valid bits and PLRU state are registers: at most 256 sets.
        Param::int("avc_ways", 1, 8, "AVC ways (1-3 in the paper's Table 3)"),
        Param::int("avc_sets", 2, 256, "AVC sets").pow2(),
        Param::int(
            "avc_vectors_per_line",
            2,
            64,
            "warp vectors one AVC tag covers (16 in the paper)",
        )
        .pow2(),
        Param::int("avc_l1_ways", 1, 8, "ways of the AVC's L1 (3-6 in Table 3)"),
        Param::int("avc_l1_sets", 2, 256, "sets of the AVC's L1").pow2(),
        Param::choice(
            "reconv",
            &["pwfb", "stack", "bl", "bypass"],
            "re-convergence: seed 000's PWFB, or seed 001's DWS sequencer with its stacks (stack), branch-limited (bl) or BranchBypass (bypass)",
        ),
        Param::choice(
            "dws",
            &["off", "aggress", "lazy", "revive"],
            "with the sequencer: when a group splits on memory divergence (seed 001, section 2.4)",
        ),
        Param::boolean(
            "branch_dws",
            "with the sequencer: divergent branches of short blocks split undivided warps (section 2.3)",
        ),
        Param::int("wst_entries", 2, 32, "with the sequencer: warp-split table entries"),
        Param::int(
            "dws_slots",
            0,
            16,
            "with the sequencer: scheduler slots, at least warps (0: 2 x warps)",
        ),
        Param::int(
            "stack_depth",
            2,
            32,
            "with the sequencer: re-convergence stack entries a warp (deeper divergence is a fault)",
        ),
        Param::int(
            "short_block",
            0,
            (1 << dws::BLOCK_BITS) - 1,
            "with the sequencer: the longest block after a post-dominator that counts as short",
        ),
        Param::int(
            "branch_entries",
            1,
            64,
            "with the sequencer: re-convergence table entries, the most conditional branches a kernel may have",
        ),
        Param::int(
            "hit_window",
            0,
            255,
            "with the sequencer and dws: cycles after a load reaches the SMU that its threads' data count as hits",
        ),
        Param::int(
            "dws_directory",
            0,
            (1 << 32) - 8,
            "with the sequencer: where the loader puts the re-convergence directory (8-byte aligned)",
        )
        .hex(),
    ]
}

/// Shape of the banked L1 D$ and its port crossbar (`l1/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DcacheParams {
    pub bytes: u32,
    /// Bytes in a line: [`BLOCK_BYTES`] to [`MAX_DCACHE_LINE_BYTES`], a power of two.
    pub line_bytes: u32,
    pub banks: u32,
    /// Ways of each bank's sets (1: direct-mapped, seed 000's).
    pub ways: u32,
    /// MSHRs a bank (0: blocking, seed 000's) and requests an MSHR holds.
    pub mshrs: u32,
    pub mshr_targets: u32,
    /// Narrow (32-bit) ports: one per lane and one for the control processor.
    pub narrow_ports: u32,
    pub uncached_base: u64,
    pub uncached_size: u64,
    pub sram_threshold_bits: u64,
}

impl Affine {
    /// The parameter's value for this setting.
    pub fn name(self) -> &'static str {
        match self {
            Affine::None => "none",
            Affine::A => "a",
            Affine::Ab => "ab",
            Affine::Abm => "abm",
        }
    }
}

impl FgsimtParams {
    /// With +a: the ASRF, and warp instructions carrying compact sources the lanes expand.
    pub fn affine_arith(&self) -> bool {
        self.affine != Affine::None
    }

    /// Bits of a warp context's number (0 with one context).
    pub fn ctx_bits(&self) -> u32 {
        self.warps.trailing_zeros()
    }

    /// Bits of an SRF register number in the execute side: the context's number above
    /// the 64 registers of a context (x0-x31, f0-f31).
    pub fn reg_bits(&self) -> u32 {
        6 + self.ctx_bits()
    }

    /// Threads of a warp in each lane: cycles a warp instruction occupies a unit.
    pub fn threads_per_lane(&self) -> u32 {
        self.warp_size / self.lanes
    }

    /// Cycles from a divide's issue until its consumer may issue: one to read the
    /// operands, one to start the divider, its iterations, one to answer.
    pub fn div_latency(&self) -> u32 {
        32 / self.div_bits_per_cycle + 2
    }

    /// Cycles from an FP operation's issue to SAU0 until its consumer may issue: one to
    /// read the operands, then the lane FP unit's fixed latency.
    pub fn fp_latency(&self) -> u32 {
        crate::fgsimt::lane::sfpu::latency(self.fma_stages) + 1
    }

    /// Cycles from an fdiv.s or fsqrt.s issue to SAU1 until its consumer may issue: one
    /// to read the operands, then `fpu::divsqrt`'s latency at one bit a cycle (Rocket's
    /// FPU's), at which every slot's result is taken (special operands finish early and
    /// wait).
    pub fn fdiv_latency(&self) -> u32 {
        use crate::fpu::divsqrt::{latency, DivSqrtOp};
        latency(crate::fpu::SINGLE, DivSqrtOp::Div, FDIV_BITS_PER_CYCLE) + 1
    }

    pub fn dcache(&self) -> DcacheParams {
        DcacheParams {
            bytes: self.dcache_bytes,
            line_bytes: self.dcache_line_bytes,
            banks: self.dcache_banks,
            ways: self.dcache_ways,
            mshrs: self.dcache_mshrs,
            mshr_targets: self.dcache_mshr_targets,
            narrow_ports: self.lanes + 1,
            uncached_base: self.uncached_base,
            uncached_size: self.uncached_size,
            sram_threshold_bits: self.sram_threshold_bits,
        }
    }

    /// The shared load cache's shape (`cp/shared_load_cache.rs`).
    pub fn shared_load_cache(&self) -> SharedLoadCacheParams {
        SharedLoadCacheParams {
            entries: self.shared_load_cache,
            lanes: self.lanes,
            uncached_base: self.uncached_base,
            uncached_size: self.uncached_size,
        }
    }

    /// The AVC and its L1 (with `avc`): blocks of one word a thread of the warp.
    pub fn avc_cache(&self) -> crate::fgsimt::avc::params::AvcParams {
        crate::fgsimt::avc::params::AvcParams {
            threads: self.warp_size,
            vectors_per_line: self.avc_vectors_per_line,
            avc_sets: self.avc_sets,
            avc_ways: self.avc_ways,
            l1_sets: self.avc_l1_sets,
            l1_ways: self.avc_l1_ways,
            sram_threshold_bits: self.sram_threshold_bits,
        }
    }

    /// The control processor (docs/fgsimt-engine.md, System): the Rocket-like core at
    /// RV32IMAF with direct instruction and data ports (the tile's L1 serves them).
    /// Lazy expansion's materialisation goes right after its instruction (+a with the
    /// DWS sequencer; before it with the PWFBs): the SIU lets it pass its own
    /// instruction's pending write (`siu.rs`, the scoreboard).
    pub fn mat_after(&self) -> bool {
        self.affine_arith() && self.reconv != Reconvergence::Pwfb
    }

    /// The DWS sequencer's parameters, with a sequencer (`reconv` other than `pwfb`): a
    /// warp a context, its answers late (the engine's pipeline answers branches, jumps
    /// and loads cycles after their issue).
    pub fn sequencer(&self) -> Option<DwsParams> {
        let reconv = match self.reconv {
            Reconvergence::Pwfb => return None,
            Reconvergence::Stack => dws::Reconv::Stack,
            Reconvergence::Bl => dws::Reconv::Bl,
            Reconvergence::Bypass => dws::Reconv::Bypass,
        };
        Some(DwsParams {
            warps: self.warps,
            warp_size: self.warp_size,
            dws: self.dws,
            branch_dws: self.branch_dws,
            reconv,
            wst_entries: self.wst_entries,
            slots: self.dws_slots,
            stack_depth: self.stack_depth,
            short_block: self.short_block,
            branch_entries: self.branch_entries,
            late_answers: true,
            replay: false,
        })
    }

    /// The sequencer splits groups on memory divergence: loads are answered with their
    /// hit masks and written back in passes (`smu/hit_mask.rs`).
    pub fn hit_masks(&self) -> bool {
        self.sequencer().is_some() && self.dws != SplitPolicy::Off
    }

    pub fn cp(&self) -> RocketParams {
        control_processor(
            self.uncached_base,
            self.uncached_size,
            self.sram_threshold_bits,
        )
    }

    /// Checks every field against [`params`], then the rules across fields.
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&params(), self)?;
        if self.warp_size < self.lanes {
            return Err(ParamError::new(
                "warp_size",
                format!(
                    "must be at least lanes ({}) so that every lane has a thread, got {}",
                    self.lanes, self.warp_size
                ),
            ));
        }
        let lines = self.dcache_bytes / self.dcache_line_bytes / self.dcache_banks;
        if lines == 0 {
            return Err(ParamError::new(
                "dcache_bytes",
                format!(
                    "{} bytes over {} banks is less than one {}-byte line a bank",
                    self.dcache_bytes, self.dcache_banks, self.dcache_line_bytes
                ),
            ));
        }
        if lines < self.dcache_ways {
            return Err(ParamError::new(
                "dcache_ways",
                format!(
                    "{} bytes over {} banks of {}-byte lines is {lines} lines a bank, fewer than {} ways",
                    self.dcache_bytes, self.dcache_banks, self.dcache_line_bytes, self.dcache_ways
                ),
            ));
        }
        self.validate_sequencer()?;
        let sets = lines / self.dcache_ways;
        if sets as u64 > MAX_BANK_SETS {
            return Err(ParamError::new(
                "dcache_bytes",
                format!(
                    "{} bytes over {} banks of {} ways is {sets} sets; at most {MAX_BANK_SETS} (a way's valid and dirty bits are registers)",
                    self.dcache_bytes, self.dcache_banks, self.dcache_ways
                ),
            ));
        }
        Ok(())
    }
}

impl FgsimtParams {
    /// The rules of the sequencer's parameters (`reconv` other than `pwfb`).
    fn validate_sequencer(&self) -> Result<(), ParamError> {
        let Some(d) = self.sequencer() else {
            if self.dws != SplitPolicy::Off || self.branch_dws {
                return Err(ParamError::new(
                    "reconv",
                    "dws and branch_dws split warps in the DWS sequencer: choose its re-convergence (stack, bl or bypass), not pwfb",
                ));
            }
            return Ok(());
        };
        if !self.dws_directory.is_multiple_of(8) {
            return Err(ParamError::new(
                "dws_directory",
                format!("{:#x} is not 8-byte aligned", self.dws_directory),
            ));
        }
        d.validate().map_err(|e| match e.param.as_str() {
            "slots" => ParamError::new("dws_slots", e.message),
            _ => e,
        })
    }
}

/// The most warp contexts: the SRF's registers are flops, `warps` x 64 x 32 bits a
/// thread slot.
pub const MAX_WARPS: u32 = 8;

/// The most MSHRs of a D$ bank (registers, each compared with every lookup).
pub const MAX_DCACHE_MSHRS: u32 = 16;

/// The most ways of a D$ bank: each is a tag and a data array read at every lookup.
pub const MAX_DCACHE_WAYS: u32 = 16;

/// Lines a D$ bank may hold: its valid and dirty bits are one register each, of at most
/// the IR's widest value (4096 bits).
pub const MAX_BANK_SETS: u64 = 4096;

/// The control processor's memory parameters of the data-parallel designs (`fgsimt`,
/// `vgiw`): its I$ (at most the Rocket cache's sets: the I$ is that cache with one way)
/// and the region its data cache leaves uncached (`uncached_doc` says which).
pub fn host_params(uncached_doc: &'static str) -> [Param; 3] {
    [
        Param::int(
            "icache_bytes",
            1024,
            MAX_CACHE_SETS * BLOCK_BYTES as u64,
            "L1 I$ bytes (direct-mapped, 32-byte lines)",
        )
        .pow2(),
        Param::int("uncached_base", 0, (1 << 32) - 1, uncached_doc).hex(),
        Param::int(
            "uncached_size",
            0,
            1 << 32,
            "size of the uncached region in bytes (0 for none)",
        )
        .hex(),
    ]
}

/// The control processor of the data-parallel designs (`fgsimt`, `vgiw`): the Rocket-like
/// core at RV32IMAF with direct instruction and data ports onto the design's L1s, the
/// region `uncached_base..+uncached_size` (the HTIF mailbox) uncached.
pub fn control_processor(uncached_base: u64, uncached_size: u64, threshold: u64) -> RocketParams {
    RocketParams {
        xlen: 32,
        fpu: true,
        memory: MemoryKind::Direct,
        uncached_base,
        uncached_size,
        sram_threshold_bits: threshold,
        ..RocketParams::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_papers_engine_and_valid() {
        let p = FgsimtParams::default();
        p.validate().unwrap();
        assert_eq!(
            p.threads_per_lane(),
            4,
            "4 cycles of occupancy per warp instruction"
        );
        assert_eq!(p.dcache().narrow_ports, 9, "8 lanes + the CP");
    }

    #[test]
    fn bad_shapes_are_refused_by_name() {
        let bad = |p: FgsimtParams| p.validate().unwrap_err().to_string();
        let p = FgsimtParams {
            warp_size: 4,
            ..FgsimtParams::default()
        };
        assert!(bad(p).contains("warp_size"));
        let p = FgsimtParams {
            lanes: 3,
            ..FgsimtParams::default()
        };
        assert!(bad(p).contains("lanes"));
        FgsimtParams {
            avc: true,
            affine: Affine::Abm,
            ..FgsimtParams::default()
        }
        .validate()
        .unwrap();
        // The DWS sequencer's rules.
        let seq = FgsimtParams {
            reconv: Reconvergence::Bypass,
            warps: 4,
            ..FgsimtParams::default()
        };
        seq.validate().unwrap();
        FgsimtParams {
            affine: Affine::Abm,
            dws: SplitPolicy::Aggress,
            avc: true,
            ..seq.clone()
        }
        .validate()
        .unwrap();
        for (p, name) in [
            (
                FgsimtParams {
                    dws: SplitPolicy::Revive,
                    ..FgsimtParams::default()
                },
                "reconv",
            ),
            (
                FgsimtParams {
                    dws_slots: 2,
                    ..seq.clone()
                },
                "dws_slots",
            ),
            (
                FgsimtParams {
                    dws_directory: 0x4000_0004,
                    ..seq.clone()
                },
                "dws_directory",
            ),
            (
                FgsimtParams {
                    reconv: Reconvergence::Bl,
                    branch_dws: true,
                    ..seq.clone()
                },
                "branch_dws",
            ),
            (
                FgsimtParams {
                    dcache_line_bytes: 48,
                    ..FgsimtParams::default()
                },
                "dcache_line_bytes",
            ),
            (
                FgsimtParams {
                    dcache_line_bytes: 128,
                    dcache_bytes: 1024,
                    dcache_banks: 16,
                    ..FgsimtParams::default()
                },
                "dcache_bytes",
            ),
            (
                FgsimtParams {
                    dcache_line_bytes: 128,
                    dcache_bytes: 4096,
                    dcache_banks: 4,
                    dcache_ways: 16,
                    ..FgsimtParams::default()
                },
                "dcache_ways",
            ),
        ] {
            let e = p.validate().unwrap_err();
            assert_eq!(e.param, name, "{e}");
        }
    }
}
