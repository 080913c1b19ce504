//! The DWS sequencer (seed 001, spec section 3 "each cycle"): each warp's re-convergence
//! stack, the SIMD groups (the WST's entries), the scheduler slots and the pick, apart
//! from the datapath (the threads and the memory, [`super::machine`]). This is the state
//! and the per-cycle transitions an RTL sequencer mirrors: the datapath answers each
//! issued group with its outcome (a branch's taken mask, a memory access's hit mask, a
//! common next pc or the threads' end) and reports the fills of missed threads.
//!
//! A cycle: fills clear pending threads; groups waiting for memory with none pending
//! become ready (to replay their access); each warp whose groups at the top of its stack
//! all wait merges or takes a frame (`reconv.rs`); free slots go to the oldest groups;
//! then one action: the picked group issues, or re-converges or waits (the cycle is
//! used), or nothing is runnable (a stall, when ReviveSplit splits one suspended group).

use super::machine::LaunchStats;
use super::reconv::BranchOutcome;
use super::state::{check_warp, Frame, Group, Status};
use super::{DwsConfig, Reconv, SplitPolicy};
use crate::iss::simt::EXIT_PC;

/// A group picked to issue: its instruction at `pc` for threads `mask`, of which
/// `ready`'s memory access is already satisfied (a replay).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    pub id: u64,
    pub warp: usize,
    pub pc: u64,
    pub mask: u32,
    pub ready: u32,
}

/// What the sequencer does in a cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// The group's instruction issues (the datapath answers with its outcome).
    Issue(Pick),
    /// A group re-converged at its post-dominator or began to wait there.
    Control,
    /// No group can run.
    Stall,
}

/// A group as an RTL sequencer in lockstep holds it (oldest first in
/// [`Snapshot::groups`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupState {
    pub warp: usize,
    pub depth: usize,
    pub pc: u64,
    pub mask: u32,
    pub status: Status,
    /// Ready: cycles from the next one until it may issue.
    pub delay: u64,
    pub data_ready: u32,
    pub pending: u32,
    pub slot: Option<usize>,
    /// It is the running group (issues again without a pick).
    pub running: bool,
    /// It awaits a late answer.
    pub awaiting: bool,
}

/// The sequencer's state between two cycles (slip's counters aside).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub groups: Vec<GroupState>,
    pub stacks: Vec<Vec<Frame>>,
    pub last_slot: usize,
}

/// The sequencer's state.
pub struct DwsControl {
    pub(super) cfg: DwsConfig,
    pub(super) now: u64,
    /// Each warp context's stack (empty: the context is idle).
    pub(super) stacks: Vec<Vec<Frame>>,
    pub(super) groups: Vec<Group>,
    next_id: u64,
    slots: Vec<Option<u64>>,
    last_slot: usize,
    /// The group that issued last cycle and goes on (no memory access, no wait).
    pub(super) running: Option<u64>,
    /// Slip: the limit, and the current interval's cycles, issuing cycles and cycles
    /// stalled on memory.
    slip_limit: u32,
    interval: (u64, u64, u64),
    pub stats: LaunchStats,
}

impl DwsControl {
    pub fn new(cfg: DwsConfig) -> DwsControl {
        DwsControl {
            slots: vec![None; cfg.slot_count()],
            stacks: vec![Vec::new(); cfg.warps as usize],
            cfg,
            now: 0,
            groups: Vec::new(),
            next_id: 0,
            last_slot: 0,
            running: None,
            slip_limit: cfg.slip_start,
            interval: (0, 0, 0),
            stats: LaunchStats::default(),
        }
    }

    /// The state after the cycle just run (`now` is still that cycle's).
    pub fn snapshot(&self) -> Snapshot {
        let next = self.now + 1;
        Snapshot {
            groups: self
                .groups
                .iter()
                .map(|g| GroupState {
                    warp: g.warp,
                    depth: g.depth,
                    pc: g.pc,
                    mask: g.mask,
                    status: g.status,
                    delay: g.ready_at.saturating_sub(next),
                    data_ready: g.data_ready,
                    pending: g.pending,
                    slot: g.slot,
                    running: self.running == Some(g.id),
                    awaiting: g.awaiting,
                })
                .collect(),
            stacks: self.stacks.clone(),
            last_slot: self.last_slot,
        }
    }

    /// Slip's current limit.
    pub fn slip_limit(&self) -> u32 {
        self.slip_limit
    }

    /// After each cycle (slip's adaptation, spec section 2.8): whether a warp
    /// instruction issued, and whether the cycle stalled with a group waiting for
    /// memory.
    pub fn end_cycle(&mut self, issued: bool, memory_stall: bool) {
        let (cycles, issuing, stalled) = &mut self.interval;
        *cycles += 1;
        *issuing += u64::from(issued);
        *stalled += u64::from(memory_stall);
        if *cycles == self.cfg.slip_interval {
            if *stalled * 10 > *cycles * 7 {
                self.slip_limit += 1;
            } else if *issuing * 2 > *cycles {
                self.slip_limit = self.slip_limit.saturating_sub(1);
            }
            self.interval = (0, 0, 0);
        }
        self.stats.slip_limit = self.slip_limit as u64;
    }

    /// Whether warp context `w` is idle.
    pub fn idle(&self, w: usize) -> bool {
        self.stacks[w].is_empty()
    }

    /// Starts a warp in idle context `w`: threads `mask` at `entry`.
    pub fn start_warp(&mut self, w: usize, entry: u64, mask: u32) {
        self.stacks[w] = vec![Frame {
            pc: entry,
            rpc: EXIT_PC,
            mask,
        }];
        self.new_group(w, 0, entry, mask);
    }

    /// Warp context `w`'s stack and groups (oldest first).
    pub fn state(&self, w: usize) -> (&[Frame], impl Iterator<Item = &Group>) {
        (
            &self.stacks[w],
            self.groups.iter().filter(move |g| g.warp == w),
        )
    }

    /// The data of warp `w`'s threads `mask` arrived.
    pub fn fill(&mut self, w: usize, mask: u32) {
        for g in self.groups.iter_mut().filter(|g| g.warp == w) {
            g.pending &= !mask;
        }
    }

    /// The cycle's bookkeeping before its action: wakes, merges, slots (and the
    /// invariants, with `check`). An error if no group can ever run again.
    pub fn begin_cycle(&mut self, now: u64) -> Result<(), String> {
        self.now = now;
        for g in self.groups.iter_mut() {
            if g.status == Status::WaitMem && g.pending == 0 {
                g.status = Status::Ready;
                g.ready_at = now;
                // It replays its access, every thread satisfied, or goes on past it.
                match self.cfg.replay {
                    true => g.data_ready = g.mask,
                    false => {
                        g.pc = (g.pc + 4) & 0xffff_ffff;
                        g.data_ready = 0;
                    }
                }
            }
        }
        // Every warp's sync sees the WST's use at its start (the warps sync in parallel).
        let wst = self.wst_used();
        for w in 0..self.stacks.len() {
            self.sync(w, wst);
        }
        if !self.groups.is_empty()
            && !self
                .groups
                .iter()
                .any(|g| matches!(g.status, Status::Ready | Status::WaitMem))
        {
            return Err("no SIMD group can run, wait for memory or merge (deadlock)".into());
        }
        self.assign_slots();
        if self.cfg.check {
            self.check()?;
        }
        Ok(())
    }

    /// The cycle's action.
    pub fn action(&mut self) -> Action {
        let Some(id) = self.pick() else {
            return Action::Stall;
        };
        let i = self.at(id);
        let g = &self.groups[i];
        if g.pc == self.stacks[g.warp][g.depth].rpc {
            self.reconverge(i);
            return Action::Control;
        }
        Action::Issue(Pick {
            id,
            warp: g.warp,
            pc: g.pc,
            mask: g.mask,
            ready: g.data_ready,
        })
    }

    /// Adds a ready group; its id.
    pub(super) fn new_group(&mut self, warp: usize, depth: usize, pc: u64, mask: u32) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.groups.push(Group {
            id,
            warp,
            depth,
            pc,
            mask,
            status: Status::Ready,
            ready_at: self.now,
            data_ready: 0,
            pending: 0,
            slipped: 0,
            slot: None,
            awaiting: false,
        });
        id
    }

    pub(super) fn at(&self, id: u64) -> usize {
        self.groups
            .iter()
            .position(|g| g.id == id)
            .expect("a live group")
    }

    /// Groups of warp `w`.
    fn count(&self, w: usize) -> usize {
        self.groups.iter().filter(|g| g.warp == w).count()
    }

    /// WST entries in use (I2): the groups of every warp that has two or more.
    pub fn wst_used(&self) -> usize {
        (0..self.stacks.len())
            .map(|w| self.count(w))
            .filter(|&c| c >= 2)
            .sum()
    }

    /// Whether warp `w` may split one more group off (the overwrite-parent rule).
    pub(super) fn can_split(&self, w: usize) -> bool {
        let need = if self.count(w) == 1 { 2 } else { 1 };
        self.wst_used() + need <= self.cfg.wst_entries as usize
    }

    /// Frees the slot of the group at index `i`.
    pub(super) fn unslot(&mut self, i: usize) {
        if let Some(s) = self.groups[i].slot.take() {
            self.slots[s] = None;
        }
        if self.running == Some(self.groups[i].id) {
            self.running = None;
        }
    }

    /// Removes the group at index `i`.
    pub(super) fn remove(&mut self, i: usize) {
        self.unslot(i);
        self.groups.remove(i);
    }

    /// Gives free slots to the oldest unslotted groups that can run.
    fn assign_slots(&mut self) {
        for i in 0..self.groups.len() {
            let g = &self.groups[i];
            if g.slot.is_some() || g.status == Status::Wait {
                continue;
            }
            let Some(s) = self.slots.iter().position(|s| s.is_none()) else {
                break;
            };
            self.slots[s] = Some(g.id);
            self.groups[i].slot = Some(s);
        }
        let slotted = self.slots.iter().filter(|s| s.is_some()).count() as u64;
        self.stats.max_slotted = self.stats.max_slotted.max(slotted);
        self.stats.max_wst = self.stats.max_wst.max(self.wst_used() as u64);
        let depth = self.stacks.iter().map(Vec::len).max().unwrap_or(0) as u64;
        self.stats.max_depth = self.stats.max_depth.max(depth);
    }

    fn runnable(&self, g: &Group) -> bool {
        g.status == Status::Ready
            && g.slot.is_some()
            && g.ready_at <= self.now
            && !self.groups.iter().any(|o| o.warp == g.warp && o.awaiting)
    }

    /// Answers come late (`answer_delay` > 0).
    pub(super) fn late(&self) -> bool {
        self.cfg.answer_delay > 0
    }

    /// Late answers: group `id` sent its branch, indirect jump or memory instruction
    /// (after [`Self::memory_merge`]) and awaits the answer; it is switched out.
    pub fn send(&mut self, id: u64) {
        let i = self.at(id);
        self.groups[i].awaiting = true;
        self.running = None;
    }

    /// Late answers: the answer to group `id`'s sent instruction comes in cycle `now`
    /// (before its fills), and the group awaits no more. Its index.
    fn answered(&mut self, now: u64, id: u64) -> usize {
        self.now = now;
        let i = self.at(id);
        self.groups[i].awaiting = false;
        i
    }

    /// Late answers: the answer to group `id`'s branch ([`Self::branch`]).
    pub fn answer_branch(&mut self, now: u64, id: u64, o: BranchOutcome) -> bool {
        self.answered(now, id);
        self.branch(id, o)
    }

    /// Late answers: the answer to group `id`'s indirect jump: its threads' common
    /// target, or (`None`) their end.
    pub fn answer_jump(&mut self, now: u64, id: u64, next: Option<u64>) {
        let i = self.answered(now, id);
        match next {
            Some(pc) => self.groups[i].pc = pc,
            None => self.exit(i),
        }
    }

    /// Late answers: the answer to group `id`'s memory instruction
    /// ([`Self::memory_done`]).
    pub fn answer_memory(&mut self, now: u64, id: u64, satisfied: u32, hit_at: u64) -> u32 {
        self.answered(now, id);
        self.memory_done(id, satisfied, hit_at)
    }

    /// The group to act on: the running one, else the next ready slot after the last
    /// picked.
    fn pick(&mut self) -> Option<u64> {
        if let Some(id) = self.running {
            if let Some(g) = self.groups.iter().find(|g| g.id == id) {
                if self.runnable(g) {
                    return Some(id);
                }
            }
            self.running = None;
        }
        let n = self.slots.len();
        for k in 1..=n {
            let s = (self.last_slot + k) % n;
            let Some(id) = self.slots[s] else { continue };
            if self.runnable(&self.groups[self.at(id)]) {
                self.last_slot = s;
                return Some(id);
            }
        }
        None
    }

    /// After group `id` executed a non-memory instruction: its threads' common next pc,
    /// or (`None`) their end. The group goes on running.
    pub fn advance(&mut self, id: u64, next: Option<u64>) {
        let i = self.at(id);
        match next {
            Some(pc) => {
                self.groups[i].pc = pc;
                self.running = Some(id);
            }
            None => self.exit(i),
        }
    }

    /// Group `id` is at a memory instruction: PC-based re-convergence (section 2.3)
    /// merges ready groups of the same warp and stack entry at its pc into it (with
    /// slip, also those waiting there at their limit). Its threads and those already
    /// satisfied, to access memory; `None` if it waits at its slip limit instead.
    pub fn memory_merge(&mut self, id: u64) -> Option<(u32, u32)> {
        let i = self.at(id);
        let (w, depth, pc) = (self.groups[i].warp, self.groups[i].depth, self.groups[i].pc);
        let slip = self.cfg.dws == SplitPolicy::Slip;
        let mergeable = |r: &Group, now: u64| {
            r.id != id
                && r.warp == w
                && r.depth == depth
                && r.pc == pc
                && ((r.status == Status::Ready && r.ready_at <= now)
                    || (slip && r.status == Status::Wait))
        };
        let others = self
            .groups
            .iter()
            .any(|r| r.warp == w && r.depth == depth && r.id != id);
        if slip
            && others
            && self.groups[i].slipped >= self.slip_limit
            && !self.groups.iter().any(|r| mergeable(r, self.now))
        {
            self.stats.slip_waits += 1;
            self.groups[i].status = Status::Wait;
            self.unslot(i);
            return None;
        }
        while self.cfg.reconv != Reconv::Stack || slip {
            let Some(j) = self.groups.iter().position(|r| mergeable(r, self.now)) else {
                break;
            };
            let (m, d) = (self.groups[j].mask, self.groups[j].data_ready);
            self.remove(j);
            let i = self.at(id);
            let g = &mut self.groups[i];
            g.mask |= m;
            g.data_ready |= d;
            g.slipped = 0;
            self.stats.pc_merges += 1;
        }
        let g = &self.groups[self.at(id)];
        Some((g.mask, g.data_ready))
    }

    /// Group `id`'s memory instruction was accessed (after [`Self::memory_merge`]):
    /// threads `satisfied` have their data, the hits ready at `hit_at`. It completes,
    /// waits, or splits by the hit mask (section 2.4). The threads that execute it now
    /// (the others replay it when their data is in); the group is switched out.
    pub fn memory_done(&mut self, id: u64, satisfied: u32, hit_at: u64) -> u32 {
        if !self.late() {
            self.running = None;
        }
        let i = self.at(id);
        let (w, depth, pc, mask) = {
            let g = &self.groups[i];
            (g.warp, g.depth, g.pc, g.mask)
        };
        let missing = mask & !satisfied;
        if missing != 0 {
            self.stats.missed += 1;
        }
        if missing == 0 {
            self.complete(i, hit_at);
            return mask;
        }
        if satisfied == 0 {
            self.suspend(i, 0, missing);
            return 0;
        }
        self.stats.divergent_memory += 1;
        let split = match self.cfg.dws {
            SplitPolicy::Off => false,
            SplitPolicy::Aggress | SplitPolicy::Slip => true,
            SplitPolicy::Lazy | SplitPolicy::Revive => !self
                .groups
                .iter()
                .any(|o| o.id != id && o.status == Status::Ready && o.slot.is_some()),
        } && self.can_split(w);
        if !split {
            self.suspend(i, satisfied, missing);
            return 0;
        }
        self.stats.memory_splits += 1;
        let behind = self.new_group(w, depth, pc, missing);
        let b = self.at(behind);
        self.suspend(b, 0, missing);
        let i = self.at(id);
        self.groups[i].mask = satisfied;
        self.complete(i, hit_at);
        satisfied
    }

    /// The group at index `i` waits for memory: `ready` threads are satisfied, `pending`
    /// wait for their fills.
    fn suspend(&mut self, i: usize, ready: u32, pending: u32) {
        let g = &mut self.groups[i];
        g.status = Status::WaitMem;
        g.data_ready = ready;
        g.pending = pending;
    }

    /// The memory instruction completes for the group at index `i`: it goes on at the
    /// next pc, ready at `at`.
    fn complete(&mut self, i: usize, at: u64) {
        let g = &mut self.groups[i];
        g.slipped += 1;
        g.pc = (g.pc + 4) & 0xffff_ffff;
        g.status = Status::Ready;
        g.ready_at = at;
        g.data_ready = 0;
    }

    /// A stalled cycle: ReviveSplit subdivides the oldest suspended group that has both
    /// arrived and pending threads (at most one a cycle).
    pub fn stall(&mut self) {
        if self.cfg.dws == SplitPolicy::Revive {
            let pick = self
                .groups
                .iter()
                .position(|c| c.status == Status::WaitMem && c.pending != 0 && c.pending != c.mask);
            if let Some(i) = pick.filter(|&i| self.can_split(self.groups[i].warp)) {
                let (w, depth, pc, mask, pending) = {
                    let c = &self.groups[i];
                    (c.warp, c.depth, c.pc, c.mask, c.pending)
                };
                self.groups[i].mask = pending;
                self.groups[i].data_ready = 0;
                // The arrived threads replay the access satisfied, or (no replay) have
                // completed it and go on past it.
                let arrived = mask & !pending;
                let (at, ready) = match self.cfg.replay {
                    true => (pc, arrived),
                    false => ((pc + 4) & 0xffff_ffff, 0),
                };
                let id = self.new_group(w, depth, at, arrived);
                let r = self.at(id);
                self.groups[r].data_ready = ready;
                self.stats.revive_splits += 1;
            }
        }
    }

    /// Invariants I1-I3 (spec section 3).
    fn check(&self) -> Result<(), String> {
        for (w, frames) in self.stacks.iter().enumerate() {
            if !frames.is_empty() {
                check_warp(w, frames, &self.groups)?;
            }
        }
        if self.wst_used() > self.cfg.wst_entries as usize {
            return Err(format!("I2: {} WST entries in use", self.wst_used()));
        }
        let slotted = self.groups.iter().filter(|g| g.slot.is_some()).count();
        if slotted > self.slots.len() {
            return Err(format!("I3: {slotted} groups hold slots"));
        }
        Ok(())
    }
}
