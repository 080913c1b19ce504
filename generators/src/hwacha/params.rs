//! Parameters of the Hwacha vector unit: one flat serde struct (every knob sweepable with
//! `--set name=value`), named after thesis Table 8.7 where the thesis has a name, and its
//! description (`params`: meanings and accepted values).

use crate::rocket::params::cache_params;
use crate::schema::{self, Param};
use crate::ParamError;
use serde::{Deserialize, Serialize};

/// The most lanes the generator builds; `accelgen iss --hwacha --lanes` takes the same.
pub const MAX_LANES: u32 = 64;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HwachaParams {
    /// HwachaNLanes: vector lanes (a power of two).
    pub lanes: u32,
    /// HwachaNSeqEntries: master/lane sequencer slots.
    pub seq_entries: u32,
    /// Register-file banks per lane (the systolic schedule's depth).
    pub banks: u32,
    /// Entries of each bank's 1R1W SRAM.
    pub bank_entries: u32,
    /// Bits per bank entry: `bank_width / 64` 64-bit elements (slices) per entry.
    pub bank_width: u32,
    /// Entries of each bank's predicate register file (one bit per slice each; four
    /// strips' bits per entry with `mixed_precision`).
    pub pred_entries: u32,
    /// The mixed-precision extension (thesis 8, "Mixed-Precision Support"): the banks
    /// segmented into doubleword, word and halfword regions with 32- and 16-bit
    /// registers packed two and four strips to an entry (`lane::regmap`), the predicate
    /// file four strips to an entry, and maxvl to match (`rocc::maxvl`).
    pub mixed_precision: bool,
    /// HwachaStagesALU: pipeline stages of the bank ALU (0 = combinational).
    pub stages_alu: u32,
    /// HwachaStagesPLU: pipeline stages of the bank predicate logic unit.
    pub stages_plu: u32,
    /// HwachaStagesIMul: pipeline stages of the shared integer multiplier (at least 1).
    pub stages_imul: u32,
    /// HwachaStagesDFMA / SFMA / HFMA: pipeline stages of the FMA units' double, single
    /// and half precision pipes (`fpu::fma`, 1..=5).
    pub stages_dfma: u32,
    pub stages_sfma: u32,
    pub stages_hfma: u32,
    /// HwachaStagesFConv: pipeline stages of the conversion unit (`fpu::convert`, 1..=2).
    pub stages_fconv: u32,
    /// HwachaStagesFCmp: pipeline stages of the compare unit (`fpu::compare`, 1..=2).
    pub stages_fcmp: u32,
    /// Quotient bits per cycle of the iterative dividers: each lane's IDiv and FDiv/FSqrt
    /// (VFU2), the scalar unit's MulDiv and the scalar FPU's FDiv/FSqrt.
    pub idiv_bits_per_cycle: u32,
    /// Entries of each bank's write queue (results of variable-latency units, loads).
    /// The thesis gives neither this depth nor `brq_entries`; both are 2 by default:
    /// at 4 they cost 6.9k um^2 more per bank (nangate45) for at most 0.2 % fewer cycles
    /// (igemm, `hwacha_soc`).
    pub bwq_entries: u32,
    /// Entries of each bank's read and predicate read queues (store data, predicates):
    /// readout strips in flight.
    pub brq_entries: u32,
    /// HwachaNVVAQEntries: vector virtual address queue.
    pub vvaq_entries: u32,
    /// HwachaNVPAQEntries: vector physical address queue.
    pub vpaq_entries: u32,
    /// HwachaNVSDQEntries: vector store-data queue.
    pub vsdq_entries: u32,
    /// HwachaNVLDQEntries: vector load-data queue.
    pub vldq_entries: u32,
    /// HwachaNVLTEntries: vector load table (outstanding load requests per lane).
    pub vlt_entries: u32,
    /// Vector command queue between the RoCC unit and the scalar unit.
    pub vcmdq_entries: u32,
    /// Vector runahead command queue between the RoCC unit and the VRU (Table 8.1).
    pub vrcmdq_entries: u32,
    /// HwachaBuildVRU: the vector runahead unit (`vru.rs`), built where there is an L2
    /// to prefetch into (`rocket-hwacha` with `memory = "l2"`).
    pub vru: bool,
    /// Blocks the VRU may run ahead of the scalar unit (its byte-count queue).
    pub vru_blocks: u32,
    /// Bytes of decoded, unacknowledged accesses at which the VRU stops taking blocks.
    pub vru_throttle_bytes: u32,
    /// Blocks the VRU skips after each `vsetcfg` (the thesis's startup skip; 0 by
    /// default: measured, skipping only cost cycles, see the README).
    pub vru_skip_blocks: u32,
    /// Vector instruction cache: sets, ways and bytes per line (4 KiB 2-way by default).
    pub icache_sets: u32,
    pub icache_ways: u32,
    pub icache_line_bytes: u32,
    /// Arrays above this many bits are SRAM macros where a macro serves their ports
    /// (`crate::memory`): the vector I$'s data arrays and the VPAQ at the default.
    pub sram_threshold_bits: u64,
}

impl Default for HwachaParams {
    /// The thesis's defaults (Table 8.7, one lane of four 256 x 128-bit banks).
    fn default() -> Self {
        HwachaParams {
            lanes: 1,
            seq_entries: 8,
            banks: 4,
            bank_entries: 256,
            bank_width: 128,
            pred_entries: 256,
            mixed_precision: false,
            stages_alu: 1,
            stages_plu: 0,
            stages_imul: 3,
            stages_dfma: 4,
            stages_sfma: 3,
            stages_hfma: 3,
            stages_fconv: 2,
            stages_fcmp: 1,
            idiv_bits_per_cycle: 1,
            bwq_entries: 2,
            brq_entries: 2,
            vvaq_entries: 4,
            vpaq_entries: 24,
            vsdq_entries: 4,
            vldq_entries: 4,
            vlt_entries: 64,
            vcmdq_entries: 16,
            vrcmdq_entries: 16,
            vru: true,
            vru_blocks: 8,
            vru_throttle_bytes: 64 << 10,
            vru_skip_blocks: 0,
            icache_sets: 32,
            icache_ways: 2,
            icache_line_bytes: 64,
            sram_threshold_bits: crate::memory::DEFAULT_SRAM_THRESHOLD_BITS,
        }
    }
}

/// The parameters (the fields of [`HwachaParams`]), in declaration order.
pub fn params() -> Vec<Param> {
    let queue = |name, doc| Param::int(name, 2, 256, doc);
    let mut v = vec![
        Param::int("lanes", 1, MAX_LANES.into(), "vector lanes (HwachaNLanes)").pow2(),
        // An AMO takes four slots (Table 8.4).
        Param::int("seq_entries", 4, 32, "sequencer slots (HwachaNSeqEntries)"),
        Param::int("banks", 1, 16, "register-file banks per lane").pow2(),
        Param::int("bank_entries", 16, 4096, "entries of each bank SRAM").pow2(),
        Param::int(
            "bank_width",
            64,
            512,
            "bits per bank entry: 64-bit elements (slices) per entry times 64",
        )
        .pow2(),
        Param::int(
            "pred_entries",
            16,
            4096,
            "entries of each bank's predicate register file",
        )
        .pow2(),
        Param::boolean(
            "mixed_precision",
            "mixed-precision extension: packed 32/16-bit registers and predicates, longer vectors",
        ),
        Param::int(
            "stages_alu",
            0,
            4,
            "bank ALU pipeline stages (HwachaStagesALU)",
        ),
        Param::int(
            "stages_plu",
            0,
            4,
            "bank PLU pipeline stages (HwachaStagesPLU)",
        ),
        Param::int(
            "stages_imul",
            1,
            8,
            "integer multiplier stages (HwachaStagesIMul)",
        ),
        Param::int(
            "stages_dfma",
            1,
            5,
            "double-precision FMA stages (HwachaStagesDFMA)",
        ),
        Param::int(
            "stages_sfma",
            1,
            5,
            "single-precision FMA stages (HwachaStagesSFMA)",
        ),
        Param::int(
            "stages_hfma",
            1,
            5,
            "half-precision FMA stages (HwachaStagesHFMA)",
        ),
        Param::int(
            "stages_fconv",
            1,
            2,
            "FP conversion unit stages (HwachaStagesFConv)",
        ),
        Param::int(
            "stages_fcmp",
            1,
            2,
            "FP compare unit stages (HwachaStagesFCmp)",
        ),
        Param::int(
            "idiv_bits_per_cycle",
            1,
            4,
            "quotient bits per cycle of the integer and FP dividers (lanes' VFU2, scalar unit)",
        )
        .pow2(),
        queue("bwq_entries", "bank write queue entries"),
        queue("brq_entries", "bank read and predicate read queue entries"),
        queue("vvaq_entries", "VVAQ entries (HwachaNVVAQEntries)"),
        queue("vpaq_entries", "VPAQ entries (HwachaNVPAQEntries)"),
        queue("vsdq_entries", "VSDQ entries (HwachaNVSDQEntries)"),
        queue("vldq_entries", "VLDQ entries (HwachaNVLDQEntries)"),
        queue(
            "vlt_entries",
            "vector load table entries (HwachaNVLTEntries)",
        ),
        queue("vcmdq_entries", "vector command queue entries"),
        queue(
            "vrcmdq_entries",
            "vector runahead command queue entries (to the VRU)",
        ),
        Param::boolean(
            "vru",
            "the vector runahead unit (HwachaBuildVRU; with an L2 to prefetch into)",
        ),
        Param::int("vru_blocks", 2, 64, "blocks the VRU may run ahead"),
        Param::int(
            "vru_throttle_bytes",
            256,
            1 << 24,
            "bytes of unacknowledged prefetched accesses that stop the VRU",
        ),
        Param::int(
            "vru_skip_blocks",
            0,
            4,
            "blocks the VRU skips after each vsetcfg (thesis 8.4's startup skip)",
        ),
    ];
    v.extend(cache_params(
        ["icache_sets", "icache_ways", "icache_line_bytes"],
        [
            "vector instruction cache sets",
            "vector instruction cache ways",
            "vector instruction cache line bytes",
        ],
    ));
    v.push(crate::memory::threshold_param());
    v
}

impl HwachaParams {
    /// Checks every field against [`params`] (no rule spans fields).
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&params(), self)
    }

    /// S: 64-bit elements per bank entry.
    pub fn slices(&self) -> u32 {
        self.bank_width / 64
    }

    /// Elements of one strip: one pass through the banks (thesis: eight 64-bit elements).
    pub fn strip(&self) -> u32 {
        self.banks * self.slices()
    }
}
