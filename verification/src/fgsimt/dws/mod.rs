//! Dynamic warp subdivision (seed 001; `../shared/specs/001-dynamic-warp-subdivision.md`):
//! the golden model of a multithreaded SIMT core with the warp-split table, cycle by
//! cycle (spec section 3), over the per-thread RV32IMAF ISS. It defines what the
//! `fgsimt` engine's `warps`, `dws` and `reconv` parameters do, and measures the
//! mechanism on the kernels at the paper's memory shapes.
//!
//! The machine (section 1, Table 3): `warps` resident warps of `warp_size` threads, one
//! warp instruction issued a cycle (or every `warp_size / lanes` cycles: the FG-SIMT
//! engine's shape), latency 1 for everything but memory, a switch to
//! another SIMD group on every D-cache access at no cost, the lane-banked L1 of
//! [`memory`]. Control flow is the re-convergence stack of Fung et al. (Fig. 3) with the
//! post-dominators of [`cfg`]; a divergent branch pushes the not-taken path on top (it
//! runs first) and the taken path below it.
//!
//! The WST (section 2.2) holds every SIMD group of a warp that has two or more; an
//! undivided warp holds none. Splits (section 2.3-2.4): at a divergent branch of a short
//! block (`short_block`) with `branch_dws`, and on memory divergence under the `dws`
//! policy; a group of a divided warp must split at a divergent branch (the shared stack
//! cannot be pushed). Re-convergence (section 2.5): at the top of stack's post-dominator
//! always; PC-based merges of ready groups at a memory instruction except with
//! `reconv = "stack"`; with `"bl"` branches are barriers too (and `branch_dws` is off).
//!
//! Spec section 8, settled here (and mirrored by the RTL):
//! - **Status** (2 bits): free, ready, waiting for memory, waiting at a synchronization
//!   pc (the top of stack's post-dominator, a BL barrier, or a branch whose split has no
//!   WST entry: the pc tells which). Waiting groups give up their scheduler slot; a
//!   group waiting for memory keeps it.
//! - **Scheduling**: the running group issues until it accesses memory or waits; then
//!   the next ready group in slot order after the last one picked (round robin). Free
//!   slots go to the oldest unslotted group each cycle. A merge keeps the running
//!   group's slot (the other's is freed).
//! - **Fall-behind**: becomes ready when its last fill arrives and replays its memory
//!   instruction (so it meets the PC compare again); its data is already there, so the
//!   replay always completes. Stores and atomics split exactly as loads.
//! - **LazySplit**: "every other group waits" means no other ready group holding a slot
//!   (waiting at a synchronization pc counts as waiting).
//! - **ReviveSplit**: at most one suspended group is split per stalled cycle, the
//!   oldest that has both arrived and pending threads.
//! - **WST full at a divergent branch of a divided warp**: the group waits at the branch
//!   and retries when an entry frees. If every group of the warp at the stack's top
//!   waits and they cannot merge, the oldest waiting at a branch gets a stack frame of
//!   its own (its threads, re-converging at the top of stack's post-dominator), where it
//!   is undivided and pushes the stack as a conventional warp does. Its frame pops back
//!   to the waiting groups. No deadlock: a warp always has a runnable group, one waiting
//!   for memory, or a merge or frame to make.
//! - **PC compare latency** (3-4 cycles): hidden by the switch on the memory access, so
//!   a merge costs nothing.
//! - **Slip** (section 2.8; `dws = "slip"`; with `reconv = "bl"` the run-ahead stalls at
//!   every branch, as without predication; with BranchBypass it splits there, the
//!   paper's Slip.BranchBypass): the unit of the "allowed divergence" is memory
//!   instructions. A group split off completes at most the limit of them while its warp
//!   is divided, then waits at its next one. The fall-behind, arriving there, merges it,
//!   as the paper's suspended threads rejoin when the run-ahead comes back. The limit
//!   starts at `slip_start` and moves every `slip_interval` cycles by the paper's
//!   thresholds (never below 0).
//! - **PC bits**: 32 (RV32).
//! - **Late answers** (`answer_delay` > 0; the paper's WPU answers in the issue cycle,
//!   an engine's pipeline cycles later): a group that issues a branch, an indirect jump
//!   (`jalr`: its target is a register's, and `ret` ends the threads) or a memory
//!   instruction is switched out and awaits its answer, which comes `answer_delay`
//!   cycles later, at the start of that cycle (before its fills). A memory
//!   instruction's PC-based merge is made at the issue (it names the threads that
//!   access); its access, the hit mask and the split, complete or suspend are made at
//!   the answer, as a branch's wait, split or push and a jump's target or end. Other
//!   instructions' next pc is known at their decode, and they answer at once. While one
//!   of a warp's groups awaits, none of the warp's groups is picked: a warp awaits one
//!   answer at a time, as the FG-SIMT engine keeps a context on a branch and suspends
//!   it on a load. The answer leaves the running group alone.
//! - **The warps sync in parallel**: each warp's merge, own frame or retry at the top of
//!   its stack is decided on the state at the start of the cycle's syncs, so WST
//!   entries a merge frees serve other warps' retries from the next cycle (the RTL's
//!   syncs then need no chain through the warps).

pub mod cfg;
pub mod control;
pub mod directory;
pub mod machine;
pub mod memory;
pub mod program;
pub mod reconv;
pub mod state;

pub use machine::{CycleLog, DwsError, IssueView, LaunchStats, Logged, LoggedOp, Machine};
pub use state::{Frame, GroupView, Status};

use memory::MemoryConfig;
use serde::{Deserialize, Serialize};

/// When a SIMD group splits on memory divergence (section 2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitPolicy {
    Off,
    Aggress,
    Lazy,
    Revive,
    /// The adaptive slip of section 2.8: split on every memory divergence, but a
    /// run-ahead completes at most the current slip limit of memory instructions before
    /// it waits for its warp's other groups at the next one.
    Slip,
}

/// How splits re-converge (section 2.5): the RTL's enum (`stack`, `bl`, `bypass`).
pub use generators::fgsimt::dws::params::Reconv;

/// The DWS model's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DwsConfig {
    /// Resident warps (N).
    pub warps: u32,
    /// Threads a warp (W, the SIMD width).
    pub warp_size: u32,
    pub dws: SplitPolicy,
    pub branch_dws: bool,
    pub reconv: Reconv,
    pub wst_entries: u32,
    /// Scheduler slots (0: 2 N).
    pub slots: u32,
    /// A branch splits an undivided warp only if the block after its post-dominator has
    /// at most this many instructions.
    pub short_block: u32,
    /// Slip: the limit's first value and the cycles between its adjustments (+1 after an
    /// interval over 70 % stalled with a group waiting for memory, -1 after one over
    /// 50 % issuing).
    pub slip_start: u32,
    pub slip_interval: u64,
    /// Lanes: a warp instruction holds the issue stage for warp_size / lanes cycles,
    /// whatever its mask (the FG-SIMT engine's thread groups); 0: one lane a thread.
    pub lanes: u32,
    /// Cycles from a branch's, an indirect jump's or a memory instruction's issue to the
    /// datapath's answer (the taken mask; the target or the threads' end; the access and
    /// its hit mask). 0, the paper's WPU: in the issue cycle. An engine's pipeline
    /// answers later; see "Late answers" above.
    pub answer_delay: u64,
    /// A group whose missed threads' data has all arrived replays its access (the
    /// paper's WPU, `true`); `false`: the arrivals complete the access and the group
    /// goes on past it (an engine whose load writeback writes every thread's data, as
    /// the FG-SIMT engine's SLWQ does).
    pub replay: bool,
    pub memory: MemoryConfig,
    /// Check the invariants I1-I3 every cycle (an error names the first broken one).
    pub check: bool,
}

impl Default for DwsConfig {
    fn default() -> Self {
        DwsConfig {
            warps: 4,
            warp_size: 16,
            dws: SplitPolicy::Off,
            branch_dws: false,
            reconv: Reconv::Bypass,
            wst_entries: 16,
            slots: 0,
            short_block: 50,
            slip_start: 1,
            slip_interval: 100_000,
            lanes: 0,
            answer_delay: 0,
            replay: true,
            memory: MemoryConfig::default(),
            check: false,
        }
    }
}

/// The paper's named configurations (Fig. 7, 11, 13): name, policy, branch DWS,
/// re-convergence.
pub const NAMED: [(&str, SplitPolicy, bool, Reconv); 12] = [
    ("conv", SplitPolicy::Off, false, Reconv::Bypass),
    ("branch-only.stack", SplitPolicy::Off, true, Reconv::Stack),
    ("branch-only", SplitPolicy::Off, true, Reconv::Bypass),
    (
        "revive.mem-only",
        SplitPolicy::Revive,
        false,
        Reconv::Bypass,
    ),
    ("aggress", SplitPolicy::Aggress, true, Reconv::Bypass),
    ("lazy", SplitPolicy::Lazy, true, Reconv::Bypass),
    ("revive", SplitPolicy::Revive, true, Reconv::Bypass),
    ("aggress.bl", SplitPolicy::Aggress, false, Reconv::Bl),
    ("lazy.bl", SplitPolicy::Lazy, false, Reconv::Bl),
    ("slip", SplitPolicy::Slip, false, Reconv::Bl),
    ("slip.bypass", SplitPolicy::Slip, true, Reconv::Bypass),
    ("revive.bl", SplitPolicy::Revive, false, Reconv::Bl),
];

impl DwsConfig {
    /// `self` with the named configuration's policy, branch DWS and re-convergence.
    pub fn named(self, name: &str) -> Option<DwsConfig> {
        let &(_, dws, branch_dws, reconv) = NAMED.iter().find(|c| c.0 == name)?;
        Some(DwsConfig {
            dws,
            branch_dws,
            reconv,
            ..self
        })
    }

    /// Cycles a warp instruction holds the issue stage.
    pub fn issue_cycles(&self) -> u64 {
        self.warp_size.checked_div(self.lanes).map_or(1, u64::from)
    }

    /// Scheduler slots.
    pub fn slot_count(&self) -> usize {
        if self.slots == 0 {
            2 * self.warps as usize
        } else {
            self.slots as usize
        }
    }

    /// Why the configuration cannot run, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=32).contains(&self.warp_size) {
            return Err(format!("warp_size {} is not in 1..=32", self.warp_size));
        }
        if self.lanes != 0 && !self.warp_size.is_multiple_of(self.lanes) {
            return Err(format!(
                "lanes {} does not divide warp_size {}",
                self.lanes, self.warp_size
            ));
        }
        if self.slip_interval == 0 || self.slip_start > 1 << 20 {
            return Err("slip_interval must be at least 1, slip_start at most 2^20".into());
        }
        if self.answer_delay > 1024 {
            return Err(format!("answer_delay {} is above 1024", self.answer_delay));
        }
        if !(1..=64).contains(&self.warps) {
            return Err(format!("warps {} is not in 1..=64", self.warps));
        }
        if self.slots != 0 && self.slots < self.warps {
            return Err(format!(
                "slots {} is below warps {}: every warp needs a slot",
                self.slots, self.warps
            ));
        }
        if self.slot_count() > 256 {
            return Err(format!("slots {} is above 256", self.slot_count()));
        }
        if !(2..=1024).contains(&self.wst_entries) {
            return Err(format!(
                "wst_entries {} is not in 2..=1024 (a split takes two)",
                self.wst_entries
            ));
        }
        if self.reconv == Reconv::Bl && self.branch_dws {
            return Err("reconv = \"bl\" makes branches barriers: branch_dws must be off".into());
        }
        self.memory.check()
    }

    /// WST storage in bits (section 5): entries x (W + log2 N + PC bits + 2).
    pub fn wst_bits(&self) -> u64 {
        let warp_bits = (self.warps as u64).next_power_of_two().trailing_zeros() as u64;
        self.wst_entries as u64 * (self.warp_size as u64 + warp_bits + 32 + 2)
    }
}
