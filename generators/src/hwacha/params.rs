//! Parameters of the Hwacha vector unit: one flat serde struct (every knob sweepable with
//! `--set name=value`), named after thesis Table 8.7 where the thesis has a name.

use crate::ParamError;
use serde::{Deserialize, Serialize};

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
    /// Entries of each bank's predicate register file (one bit per slice each).
    pub pred_entries: u32,
    /// HwachaStagesALU: pipeline stages of the bank ALU (0 = combinational).
    pub stages_alu: u32,
    /// HwachaStagesPLU: pipeline stages of the bank predicate logic unit.
    pub stages_plu: u32,
    /// HwachaStagesIMul: pipeline stages of the shared integer multiplier (at least 1).
    pub stages_imul: u32,
    /// Quotient bits per cycle of the iterative dividers: each lane's IDiv and the scalar
    /// unit's.
    pub idiv_bits_per_cycle: u32,
    /// Entries of each bank's write queue (results of variable-latency units, loads).
    pub bwq_entries: u32,
    /// Entries of each bank's read and predicate read queues (store data, predicates).
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
    /// Vector instruction cache: sets, ways and bytes per line (4 KiB 2-way by default).
    pub icache_sets: u32,
    pub icache_ways: u32,
    pub icache_line_bytes: u32,
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
            stages_alu: 1,
            stages_plu: 0,
            stages_imul: 3,
            idiv_bits_per_cycle: 1,
            bwq_entries: 4,
            brq_entries: 4,
            vvaq_entries: 4,
            vpaq_entries: 24,
            vsdq_entries: 4,
            vldq_entries: 4,
            vlt_entries: 64,
            vcmdq_entries: 16,
            vrcmdq_entries: 16,
            icache_sets: 32,
            icache_ways: 2,
            icache_line_bytes: 64,
        }
    }
}

/// `(parameter, meaning)` in declaration order, for `accelgen list`.
pub const PARAM_DOCS: &[(&str, &str)] = &[
    ("lanes", "vector lanes (HwachaNLanes), a power of two"),
    ("seq_entries", "sequencer slots (HwachaNSeqEntries)"),
    ("banks", "register-file banks per lane"),
    ("bank_entries", "entries of each bank SRAM"),
    ("bank_width", "bits per bank entry, a multiple of 64"),
    (
        "pred_entries",
        "entries of each bank's predicate register file",
    ),
    ("stages_alu", "bank ALU pipeline stages (HwachaStagesALU)"),
    ("stages_plu", "bank PLU pipeline stages (HwachaStagesPLU)"),
    (
        "stages_imul",
        "integer multiplier stages (HwachaStagesIMul)",
    ),
    (
        "idiv_bits_per_cycle",
        "integer divider quotient bits per cycle",
    ),
    ("bwq_entries", "bank write queue entries"),
    ("brq_entries", "bank read/predicate queue entries"),
    ("vvaq_entries", "VVAQ entries (HwachaNVVAQEntries)"),
    ("vpaq_entries", "VPAQ entries (HwachaNVPAQEntries)"),
    ("vsdq_entries", "VSDQ entries (HwachaNVSDQEntries)"),
    ("vldq_entries", "VLDQ entries (HwachaNVLDQEntries)"),
    (
        "vlt_entries",
        "vector load table entries (HwachaNVLTEntries)",
    ),
    ("vcmdq_entries", "vector command queue entries"),
    (
        "vrcmdq_entries",
        "vector runahead command queue entries (to the VRU)",
    ),
    ("icache_sets", "vector instruction cache sets"),
    ("icache_ways", "vector instruction cache ways"),
    ("icache_line_bytes", "vector instruction cache line bytes"),
];

impl HwachaParams {
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_pow2("lanes", self.lanes)?;
        ParamError::check_range("lanes", self.lanes, 1, 64)?;
        // An AMO takes four slots (Table 8.4).
        ParamError::check_range("seq_entries", self.seq_entries, 4, 32)?;
        ParamError::check_pow2("banks", self.banks)?;
        ParamError::check_range("banks", self.banks, 1, 16)?;
        ParamError::check_pow2("bank_entries", self.bank_entries)?;
        ParamError::check_range("bank_entries", self.bank_entries, 16, 4096)?;
        if !self.bank_width.is_multiple_of(64) || !(self.bank_width / 64).is_power_of_two() {
            return Err(ParamError::new(
                "bank_width",
                format!("must be 64 times a power of two, got {}", self.bank_width),
            ));
        }
        ParamError::check_range("bank_width", self.bank_width, 64, 512)?;
        ParamError::check_pow2("pred_entries", self.pred_entries)?;
        ParamError::check_range("pred_entries", self.pred_entries, 16, 4096)?;
        ParamError::check_range("stages_alu", self.stages_alu, 0, 4)?;
        ParamError::check_range("stages_plu", self.stages_plu, 0, 4)?;
        ParamError::check_range("stages_imul", self.stages_imul, 1, 8)?;
        ParamError::check_range("idiv_bits_per_cycle", self.idiv_bits_per_cycle, 1, 4)?;
        ParamError::check_pow2("idiv_bits_per_cycle", self.idiv_bits_per_cycle)?;
        for (name, v) in [
            ("bwq_entries", self.bwq_entries),
            ("brq_entries", self.brq_entries),
            ("vvaq_entries", self.vvaq_entries),
            ("vpaq_entries", self.vpaq_entries),
            ("vsdq_entries", self.vsdq_entries),
            ("vldq_entries", self.vldq_entries),
            ("vlt_entries", self.vlt_entries),
            ("vcmdq_entries", self.vcmdq_entries),
            ("vrcmdq_entries", self.vrcmdq_entries),
        ] {
            ParamError::check_range(name, v, 2, 256)?;
        }
        ParamError::check_pow2("icache_sets", self.icache_sets)?;
        ParamError::check_range("icache_ways", self.icache_ways, 1, 8)?;
        ParamError::check_pow2("icache_line_bytes", self.icache_line_bytes)?;
        ParamError::check_range("icache_line_bytes", self.icache_line_bytes, 8, 256)?;
        Ok(())
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
