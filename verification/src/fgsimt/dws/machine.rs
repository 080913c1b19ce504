//! The DWS model's core loop (seed 001, spec section 3 "each cycle"): warp contexts,
//! scheduler slots, the pick, and the issue of one warp instruction a cycle, with the
//! memory instructions' hit masks, splits and ReviveSplit (section 2.4).

use super::cfg::{Cfg, CfgError};
use super::memory::{MemorySystem, ThreadAccess};
use super::state::{check_warp, Frame, Group, GroupView, Status, WarpCtx};
use super::{DwsConfig, Reconv, SplitPolicy};
use crate::iss::decode::{self, opcode};
use crate::iss::simt::{Launch, EXIT_PC};
use crate::iss::{Iss, IssError};

/// Why a launch cannot run on the DWS model.
#[derive(Debug, thiserror::Error)]
pub enum DwsError {
    #[error(transparent)]
    Iss(#[from] IssError),
    #[error(transparent)]
    Cfg(#[from] CfgError),
    #[error(
        "the jump at pc {pc:#x} goes to different targets for threads {first_tid} and \
         {other_tid} of one SIMD group; indirect jumps must agree across a group"
    )]
    DivergentJump {
        pc: u64,
        first_tid: u32,
        other_tid: u32,
    },
    /// A bug of the model: an invariant broke or no group can ever run.
    #[error("cycle {cycle}: {what}")]
    Model { cycle: u64, what: String },
    #[error("cycle limit of {0} reached without the launch ending")]
    CycleLimit(u64),
}

/// Counters of a launch (spec sections 4.2-4.3).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LaunchStats {
    pub cycles: u64,
    /// Cycles no warp instruction issued, and those of them with a group waiting for
    /// memory.
    pub stall_cycles: u64,
    pub memory_stall_cycles: u64,
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub branches: u64,
    pub divergent_branches: u64,
    /// Memory warp instructions (replays included), those with a miss, those with hits
    /// and misses.
    pub memory_instructions: u64,
    pub missed: u64,
    pub divergent_memory: u64,
    pub branch_splits: u64,
    pub memory_splits: u64,
    pub revive_splits: u64,
    pub pc_merges: u64,
    /// Groups merged at the top of stack's post-dominator, at BL barriers.
    pub reconv_merges: u64,
    pub barrier_merges: u64,
    /// Divergent branches of divided warps that waited for a WST entry, and frames
    /// pushed for such a group (the WST-full fallback).
    pub wst_waits: u64,
    pub own_frames: u64,
    pub max_wst: u64,
    pub max_slotted: u64,
}

impl std::ops::AddAssign<&LaunchStats> for LaunchStats {
    /// Sums the counters (the maxima take the larger).
    fn add_assign(&mut self, o: &LaunchStats) {
        self.cycles += o.cycles;
        self.stall_cycles += o.stall_cycles;
        self.memory_stall_cycles += o.memory_stall_cycles;
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        self.branches += o.branches;
        self.divergent_branches += o.divergent_branches;
        self.memory_instructions += o.memory_instructions;
        self.missed += o.missed;
        self.divergent_memory += o.divergent_memory;
        self.branch_splits += o.branch_splits;
        self.memory_splits += o.memory_splits;
        self.revive_splits += o.revive_splits;
        self.pc_merges += o.pc_merges;
        self.reconv_merges += o.reconv_merges;
        self.barrier_merges += o.barrier_merges;
        self.wst_waits += o.wst_waits;
        self.own_frames += o.own_frames;
        self.max_wst = self.max_wst.max(o.max_wst);
        self.max_slotted = self.max_slotted.max(o.max_slotted);
    }
}

/// The DWS model running launches.
pub struct Machine {
    pub(super) cfg: DwsConfig,
    pub(super) mem: Box<dyn MemorySystem>,
    /// The clock (it runs on across launches, as the memory system's does).
    pub(super) now: u64,
    /// The cycle the launch started.
    started: u64,
    pub(super) launch: Launch,
    pub(super) code: Cfg,
    pub(super) next_warp: u32,
    pub(super) warps: Vec<WarpCtx>,
    pub(super) groups: Vec<Group>,
    pub(super) next_id: u64,
    pub(super) slots: Vec<Option<u64>>,
    pub(super) last_slot: usize,
    /// The group that issued last cycle and goes on (no memory access, no wait).
    pub(super) running: Option<u64>,
    /// The warp instruction issued in the last cycle.
    last_issue: Option<IssueView>,
    pub stats: LaunchStats,
}

/// An issued warp instruction, as tests see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IssueView {
    pub cycle: u64,
    pub warp: usize,
    pub pc: u64,
    pub mask: u32,
}

/// What one attempt to issue did.
pub(super) enum Issue {
    Issued,
    /// The group waits or changed without issuing: pick again.
    Again,
}

impl Machine {
    /// A machine of `cfg` (checked by the caller) on `mem`.
    pub fn new(cfg: DwsConfig, mem: Box<dyn MemorySystem>) -> Machine {
        Machine {
            slots: vec![None; cfg.slot_count()],
            warps: vec![WarpCtx::default(); cfg.warps as usize],
            cfg,
            mem,
            now: 0,
            started: 0,
            launch: Launch { n: 0, entry: 0 },
            code: Cfg::default(),
            next_warp: 0,
            groups: Vec::new(),
            next_id: 0,
            last_slot: 0,
            running: None,
            last_issue: None,
            stats: LaunchStats::default(),
        }
    }

    /// The warp instruction the last cycle issued (`None`: it stalled).
    pub fn last_issue(&self) -> Option<IssueView> {
        self.last_issue
    }

    /// The cycle about to run.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Starts `launch` (the previous one must have ended).
    pub fn start(&mut self, iss: &Iss, launch: Launch) -> Result<(), DwsError> {
        self.code = Cfg::of_kernel(iss, launch.entry)?;
        self.launch = launch;
        self.next_warp = 0;
        self.stats = LaunchStats::default();
        self.started = self.now;
        self.running = None;
        Ok(())
    }

    /// The memory system.
    pub fn memory(&self) -> &dyn MemorySystem {
        self.mem.as_ref()
    }

    /// Warp context `w`'s stack and groups (oldest first).
    pub fn warp_state(&self, w: usize) -> (Vec<Frame>, Vec<GroupView>) {
        let groups = self
            .groups
            .iter()
            .filter(|g| g.warp == w)
            .map(|g| GroupView {
                depth: g.depth,
                pc: g.pc,
                mask: g.mask,
                status: g.status,
                slotted: g.slot.is_some(),
            })
            .collect();
        (self.warps[w].frames.clone(), groups)
    }

    /// Runs the launch to its end within `max_cycles`: its counters.
    pub fn run(&mut self, iss: &mut Iss, max_cycles: u64) -> Result<LaunchStats, DwsError> {
        while !self.cycle(iss)? {
            if self.now - self.started >= max_cycles {
                return Err(DwsError::CycleLimit(max_cycles));
            }
        }
        Ok(self.stats)
    }

    /// One cycle; `true` once the launch has ended.
    pub fn cycle(&mut self, iss: &mut Iss) -> Result<bool, DwsError> {
        self.start_warps(iss);
        if self.warps.iter().all(|w| w.index.is_none()) {
            self.stats.cycles = self.now - self.started;
            return Ok(true);
        }
        let now = self.now;
        for g in self.groups.iter_mut() {
            if g.status == Status::WaitMem && g.arrived(now) == g.mask {
                g.status = Status::Ready;
                g.ready_at = now;
                g.data_ready = g.mask;
            }
        }
        for w in 0..self.warps.len() {
            self.sync(w);
        }
        self.assign_slots();
        if self.cfg.check {
            self.check()?;
        }
        self.last_issue = None;
        for _ in 0..4 * self.groups.len() + 16 {
            let Some(g) = self.pick() else { break };
            let i = self.at(g);
            let view = IssueView {
                cycle: self.now,
                warp: self.groups[i].warp,
                pc: self.groups[i].pc,
                mask: self.groups[i].mask,
            };
            if let Issue::Issued = self.step_group(iss, g)? {
                self.last_issue = Some(view);
                break;
            }
        }
        if self.last_issue.is_none() {
            self.stall()?;
        }
        self.now += 1;
        Ok(false)
    }

    /// Fills idle warp contexts with the launch's next warps.
    fn start_warps(&mut self, iss: &Iss) {
        let count = self.launch.n.div_ceil(self.cfg.warp_size);
        for w in 0..self.warps.len() {
            if self.warps[w].index.is_some() || self.next_warp >= count {
                continue;
            }
            let first = self.next_warp * self.cfg.warp_size;
            let n = (self.launch.n - first).min(self.cfg.warp_size);
            let mask = if n == 32 { u32::MAX } else { (1 << n) - 1 };
            self.warps[w] = WarpCtx {
                index: Some(self.next_warp),
                frames: vec![Frame {
                    pc: self.launch.entry,
                    rpc: EXIT_PC,
                    mask,
                }],
                threads: (0..n)
                    .map(|i| iss.launch_thread(self.launch, first + i))
                    .collect(),
            };
            self.next_warp += 1;
            self.new_group(w, 0, self.launch.entry, mask);
        }
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
            arrive: [0; 32],
            slot: None,
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
    pub(super) fn count(&self, w: usize) -> usize {
        self.groups.iter().filter(|g| g.warp == w).count()
    }

    /// WST entries in use (I2): the groups of every warp that has two or more.
    pub(super) fn wst_used(&self) -> usize {
        (0..self.warps.len())
            .map(|w| self.count(w))
            .filter(|&c| c >= 2)
            .sum()
    }

    /// Whether warp `w` may split one more group off (the overwrite-parent rule).
    pub(super) fn can_split(&self, w: usize) -> bool {
        let need = if self.count(w) == 1 { 2 } else { 1 };
        self.wst_used() + need <= self.cfg.wst_entries as usize
    }

    /// Frees group `id`'s slot.
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
    }

    fn runnable(&self, g: &Group) -> bool {
        g.status == Status::Ready && g.slot.is_some() && g.ready_at <= self.now
    }

    /// The group to issue: the running one, else the next ready slot after the last
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

    /// Issues group `id`'s next instruction (or re-converges it first).
    fn step_group(&mut self, iss: &mut Iss, id: u64) -> Result<Issue, DwsError> {
        let i = self.at(id);
        let g = &self.groups[i];
        let w = g.warp;
        if g.pc == self.warps[w].frames[g.depth].rpc {
            self.reconverge(i);
            return Ok(Issue::Again);
        }
        let pc = g.pc;
        let insn = iss.mem.read(pc, 4).unwrap_or(0) as u32;
        let issue = match insn & 0x7f {
            opcode::LOAD | opcode::LOAD_FP | opcode::STORE | opcode::STORE_FP | opcode::AMO => {
                self.memory_op(iss, id, insn)?
            }
            opcode::BRANCH => self.branch(iss, i, insn)?,
            _ => {
                let mask = g.mask;
                self.count_issue(mask);
                self.execute(iss, w, mask)?;
                self.advance(i, insn)?;
                Issue::Issued
            }
        };
        if let Issue::Issued = issue {
            if self.groups.iter().any(|g| g.id == id) && self.running.is_none() {
                let mem = matches!(
                    insn & 0x7f,
                    opcode::LOAD | opcode::LOAD_FP | opcode::STORE | opcode::STORE_FP | opcode::AMO
                );
                if !mem {
                    self.running = Some(id);
                }
            }
        }
        Ok(issue)
    }

    pub(super) fn count_issue(&mut self, mask: u32) {
        self.stats.warp_instructions += 1;
        self.stats.thread_instructions += mask.count_ones() as u64;
    }

    /// Steps the threads of warp `w` in `mask`, in thread order.
    pub(super) fn execute(&mut self, iss: &mut Iss, w: usize, mask: u32) -> Result<(), DwsError> {
        let n = self.launch.n;
        for t in 0..self.warps[w].threads.len() {
            if mask >> t & 1 != 0 {
                iss.step_thread(&mut self.warps[w].threads[t], n)?;
            }
        }
        Ok(())
    }

    /// After the group at index `i` executed a non-branch `insn`: its common next pc, or
    /// its end (every thread returned).
    fn advance(&mut self, i: usize, insn: u32) -> Result<(), DwsError> {
        let (w, mask, pc) = (self.groups[i].warp, self.groups[i].mask, self.groups[i].pc);
        let threads = &self.warps[w].threads;
        let lanes: Vec<usize> = (0..threads.len()).filter(|&t| mask >> t & 1 != 0).collect();
        let next = threads[lanes[0]].pc();
        if let Some(&t) = lanes.iter().find(|&&t| threads[t].pc() != next) {
            debug_assert!(insn & 0x7f == opcode::JALR || insn & 0x7f == opcode::JAL);
            return Err(DwsError::DivergentJump {
                pc,
                first_tid: threads[lanes[0]].tid,
                other_tid: threads[t].tid,
            });
        }
        if next == EXIT_PC {
            self.exit(i);
        } else {
            self.groups[i].pc = next;
        }
        Ok(())
    }

    /// A memory instruction of group `id` (section 2.4): PC-based merge, the access,
    /// then completion, a wait, or a split by the hit mask.
    fn memory_op(&mut self, iss: &mut Iss, id: u64, insn: u32) -> Result<Issue, DwsError> {
        if self.cfg.reconv != Reconv::Stack {
            self.pc_merge(id);
        }
        let i = self.at(id);
        let (w, pc, mask, ready) = {
            let g = &self.groups[i];
            (g.warp, g.pc, g.mask, g.data_ready)
        };
        self.count_issue(mask);
        self.stats.memory_instructions += 1;
        self.running = None;
        let write = matches!(insn & 0x7f, opcode::STORE | opcode::STORE_FP)
            || (insn & 0x7f == opcode::AMO && insn >> 27 != 0b00010);
        let imm = match insn & 0x7f {
            opcode::STORE | opcode::STORE_FP => decode::imm_s(insn),
            opcode::AMO => 0,
            _ => decode::imm_i(insn),
        };
        let threads = &self.warps[w].threads;
        let accesses: Vec<ThreadAccess> = (0..threads.len() as u32)
            .filter(|&t| (mask & !ready) >> t & 1 != 0)
            .map(|t| ThreadAccess {
                lane: t,
                addr: threads[t as usize].x(decode::rs1(insn)).wrapping_add(imm) & 0xffff_ffff,
                write,
            })
            .collect();
        let answer = self.mem.access(self.now, w, pc, &accesses);
        let hit_at = self.now + self.mem.hit_latency() + answer.conflicts;
        let mut satisfied = ready;
        let mut arrive = [0u64; 32];
        for (k, a) in accesses.iter().enumerate() {
            if answer.hit[k] {
                satisfied |= 1 << a.lane;
            } else {
                arrive[a.lane as usize] = answer.arrive[k];
            }
        }
        let missing = mask & !satisfied;
        if missing != 0 {
            self.stats.missed += 1;
        }
        if missing == 0 {
            self.complete(iss, i, mask, hit_at)?;
        } else if satisfied == 0 {
            self.suspend(i, 0, arrive);
        } else {
            self.stats.divergent_memory += 1;
            let split = match self.cfg.dws {
                SplitPolicy::Off => false,
                SplitPolicy::Aggress => true,
                SplitPolicy::Lazy | SplitPolicy::Revive => !self
                    .groups
                    .iter()
                    .any(|o| o.id != id && o.status == Status::Ready && o.slot.is_some()),
            } && self.can_split(w);
            if split {
                self.stats.memory_splits += 1;
                let depth = self.groups[i].depth;
                let behind = self.new_group(w, depth, pc, missing);
                let b = self.at(behind);
                self.suspend(b, 0, arrive);
                let i = self.at(id);
                self.groups[i].mask = satisfied;
                self.complete(iss, i, satisfied, hit_at)?;
            } else {
                self.suspend(i, satisfied, arrive);
            }
        }
        Ok(Issue::Issued)
    }

    /// The group at index `i` waits for memory: `ready` threads are satisfied, the
    /// others' data arrives at `arrive`.
    fn suspend(&mut self, i: usize, ready: u32, arrive: [u64; 32]) {
        let g = &mut self.groups[i];
        g.status = Status::WaitMem;
        g.data_ready = ready;
        g.arrive = arrive;
    }

    /// The memory instruction completes for the group at index `i` (threads `mask`): it
    /// goes on at the next pc, ready at `at`.
    fn complete(&mut self, iss: &mut Iss, i: usize, mask: u32, at: u64) -> Result<(), DwsError> {
        let w = self.groups[i].warp;
        self.execute(iss, w, mask)?;
        let g = &mut self.groups[i];
        g.pc = (g.pc + 4) & 0xffff_ffff;
        g.status = Status::Ready;
        g.ready_at = at;
        g.data_ready = 0;
        Ok(())
    }

    /// PC-based re-convergence (section 2.3): ready groups of the same warp and stack
    /// entry at the running group's pc merge into it.
    fn pc_merge(&mut self, id: u64) {
        let i = self.at(id);
        let (w, depth, pc) = (self.groups[i].warp, self.groups[i].depth, self.groups[i].pc);
        while let Some(j) = self.groups.iter().position(|r| {
            r.id != id
                && r.warp == w
                && r.depth == depth
                && r.pc == pc
                && r.status == Status::Ready
                && r.ready_at <= self.now
        }) {
            let (m, d) = (self.groups[j].mask, self.groups[j].data_ready);
            self.remove(j);
            let i = self.at(id);
            self.groups[i].mask |= m;
            self.groups[i].data_ready |= d;
            self.stats.pc_merges += 1;
        }
    }

    /// A cycle without issue: counted, and ReviveSplit subdivides one suspended group.
    fn stall(&mut self) -> Result<(), DwsError> {
        self.stats.stall_cycles += 1;
        let waiting = self.groups.iter().any(|g| g.status == Status::WaitMem);
        self.stats.memory_stall_cycles += u64::from(waiting);
        if self.cfg.dws == SplitPolicy::Revive {
            let now = self.now;
            let pick = self.groups.iter().position(|c| {
                let a = c.arrived(now);
                c.status == Status::WaitMem && a != 0 && a != c.mask
            });
            if let Some(i) = pick.filter(|&i| self.can_split(self.groups[i].warp)) {
                let (w, depth, pc, mask) = {
                    let c = &self.groups[i];
                    (c.warp, c.depth, c.pc, c.arrived(now))
                };
                self.groups[i].mask &= !mask;
                self.groups[i].data_ready = 0;
                let id = self.new_group(w, depth, pc, mask);
                let r = self.at(id);
                self.groups[r].data_ready = mask;
                self.stats.revive_splits += 1;
            }
        }
        if !waiting && !self.groups.iter().any(|g| g.status == Status::Ready) {
            return Err(DwsError::Model {
                cycle: self.now,
                what: "no SIMD group can run, wait for memory or merge (deadlock)".into(),
            });
        }
        Ok(())
    }

    /// Invariants I1-I3 (spec section 3).
    fn check(&self) -> Result<(), DwsError> {
        let fail = |what: String| DwsError::Model {
            cycle: self.now,
            what,
        };
        for (w, ctx) in self.warps.iter().enumerate() {
            if ctx.index.is_some() {
                check_warp(w, &ctx.frames, &self.groups).map_err(fail)?;
            }
        }
        if self.wst_used() > self.cfg.wst_entries as usize {
            return Err(fail(format!("I2: {} WST entries in use", self.wst_used())));
        }
        let slotted = self.groups.iter().filter(|g| g.slot.is_some()).count();
        if slotted > self.slots.len() {
            return Err(fail(format!("I3: {slotted} groups hold slots")));
        }
        Ok(())
    }
}
