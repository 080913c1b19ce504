//! The DWS sequencer's parameters (seed 001, sections 2.2-2.5 and Table 3; the golden
//! model's `verification::fgsimt::dws::DwsConfig`, whose fields these mirror).

use crate::schema::{self, Param};
use crate::ParamError;
use serde::{Deserialize, Serialize};

/// When a SIMD group splits on memory divergence (section 2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitPolicy {
    Off,
    Aggress,
    Lazy,
    Revive,
}

/// How splits re-converge (section 2.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Reconv {
    /// Only at the top of stack's post-dominator.
    Stack,
    /// PC-based merges, and branches as barriers.
    Bl,
    /// BranchBypass: PC-based merges; splits run past branches.
    Bypass,
}

/// The sequencer's shape and policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DwsParams {
    /// Resident warps (N), 1-8.
    pub warps: u32,
    /// Threads a warp (W), 1-32.
    pub warp_size: u32,
    pub dws: SplitPolicy,
    pub branch_dws: bool,
    pub reconv: Reconv,
    /// WST entries (2-32).
    pub wst_entries: u32,
    /// Scheduler slots (0: 2 N; else at least N, at most 16).
    pub slots: u32,
    /// Re-convergence stack entries a warp (2-32).
    pub stack_depth: u32,
    /// A branch splits an undivided warp only if the block after its post-dominator has
    /// at most this many instructions.
    pub short_block: u32,
    /// Re-convergence table entries: the most conditional branches a kernel may have.
    pub branch_entries: u32,
    /// The datapath answers branches and memory instructions cycles after their issue
    /// (an engine's pipeline), on the `ans` ports; else in the issue cycle (the paper's
    /// WPU).
    pub late_answers: bool,
    /// A group whose missed threads' data has all arrived replays its access (the
    /// paper's WPU); else the arrivals complete it and the group goes on past it (the
    /// FG-SIMT engine, whose load writeback writes every thread).
    pub replay: bool,
}

impl Default for DwsParams {
    /// The paper's shape (N = 4, W = 16, 16 WST entries, 8 slots), ReviveSplit with
    /// BranchBypass.
    fn default() -> Self {
        DwsParams {
            warps: 4,
            warp_size: 16,
            dws: SplitPolicy::Revive,
            branch_dws: true,
            reconv: Reconv::Bypass,
            wst_entries: 16,
            slots: 0,
            stack_depth: 16,
            short_block: 50,
            branch_entries: 16,
            late_answers: false,
            replay: true,
        }
    }
}

/// Bits of a ready delay: a hit's latency plus its bank conflicts.
pub const DELAY_BITS: u32 = 8;
/// Bits of a branch's `block_after` (the loader's: the table holds whether it is short).
pub const BLOCK_BITS: u32 = 16;

impl DwsParams {
    /// Scheduler slots.
    pub fn slot_count(&self) -> u32 {
        if self.slots == 0 {
            2 * self.warps
        } else {
            self.slots
        }
    }

    /// Group table entries: every warp's one group, and the WST's.
    pub fn groups(&self) -> u32 {
        self.warps + self.wst_entries
    }

    /// Why the sequencer cannot be built with these parameters, if it cannot: a value
    /// out of its range (`params`), or a rule across them.
    pub fn validate(&self) -> Result<(), ParamError> {
        schema::check_fields(&params(), self)?;
        if self.slots != 0 && self.slots < self.warps {
            return Err(ParamError::new(
                "slots",
                format!(
                    "{} slots for {} warps: every warp needs a slot (0 for 2 x warps)",
                    self.slots, self.warps
                ),
            ));
        }
        if self.reconv == Reconv::Bl && self.branch_dws {
            return Err(ParamError::new(
                "branch_dws",
                "reconv = \"bl\" makes branches barriers: branch_dws must be off",
            ));
        }
        Ok(())
    }

    /// WST storage in bits (spec section 5): entries x (W + log2 N + PC bits + 2).
    pub fn wst_bits(&self) -> u64 {
        let warp_bits = self.warps.next_power_of_two().trailing_zeros() as u64;
        self.wst_entries as u64 * (self.warp_size as u64 + warp_bits + 32 + 2)
    }
}

/// The parameters (the fields of [`DwsParams`]), in declaration order.
pub fn params() -> Vec<Param> {
    vec![
        Param::int("warps", 1, 8, "resident warps (N), each with its stack"),
        Param::int("warp_size", 1, 32, "threads a warp (W): the groups' masks"),
        Param::choice(
            "dws",
            &["off", "aggress", "lazy", "revive"],
            "when a group splits on memory divergence (section 2.4)",
        ),
        Param::boolean(
            "branch_dws",
            "split undivided warps at divergent branches of short blocks (section 2.3)",
        ),
        Param::choice(
            "reconv",
            &["stack", "bl", "bypass"],
            "re-convergence: the stack alone, branch-limited, or BranchBypass (section 2.5)",
        ),
        Param::int("wst_entries", 2, 32, "warp-split table entries"),
        Param::int(
            "slots",
            0,
            16,
            "scheduler slots, at least warps (0: 2 x warps)",
        ),
        Param::int(
            "stack_depth",
            2,
            32,
            "re-convergence stack entries a warp (deeper divergence stops the sequencer with its error)",
        ),
        Param::int(
            "short_block",
            0,
            (1 << BLOCK_BITS) - 1,
            "a branch splits an undivided warp if the block after its post-dominator has at most this many instructions",
        ),
        Param::int(
            "branch_entries",
            1,
            64,
            "re-convergence table entries: the most conditional branches a kernel may have",
        ),
        Param::boolean(
            "late_answers",
            "branches and memory instructions are answered cycles after their issue (an engine's pipeline): a warp awaits one answer at a time",
        ),
        Param::boolean(
            "replay",
            "a group whose missed data has all arrived replays its access (the paper's WPU); off: it goes on past it",
        ),
    ]
}
