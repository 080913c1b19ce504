//! The DWS model (seed 001, Table 3's WPU): the sequencer of [`super::control`] over
//! the datapath: warp contexts of ISS threads, one warp instruction issued a cycle
//! (latency 1 but for memory), and the memory system's hit masks and fill times.

use super::cfg::{Cfg, CfgError};
use super::control::{Action, DwsControl, Pick};
use super::memory::{MemorySystem, ThreadAccess};
use super::reconv::BranchOutcome;
use super::state::{Frame, GroupView, Status};
use super::DwsConfig;
use crate::iss::decode::{self, opcode};
use crate::iss::simt::{Launch, Thread, EXIT_PC};
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
    /// The deepest re-convergence stack (entries) of any warp.
    pub max_depth: u64,
    /// Slip: run-aheads that waited at the limit; the limit at the launch's end.
    pub slip_waits: u64,
    pub slip_limit: u64,
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
        self.max_depth = self.max_depth.max(o.max_depth);
        self.slip_waits += o.slip_waits;
        self.slip_limit = o.slip_limit;
    }
}

/// The DWS model running launches.
pub struct Machine {
    ctl: DwsControl,
    mem: Box<dyn MemorySystem>,
    /// The clock (it runs on across launches, as the memory system's does).
    now: u64,
    /// The cycle the launch started.
    started: u64,
    launch: Launch,
    code: Cfg,
    next_warp: u32,
    /// Per warp context: its threads (empty: idle), and each thread's data arrival
    /// cycle while it waits for a fill.
    threads: Vec<Vec<Thread>>,
    arrive: Vec<[u64; 32]>,
    /// The warp instruction issued in the last cycle.
    last_issue: Option<IssueView>,
    /// The issue stage is held by the last warp instruction until this cycle.
    busy_until: u64,
    /// Late answers: the sent instructions, in the order their answers come.
    sent: std::collections::VecDeque<Sent>,
    /// What the sequencer was told and did in the last cycle.
    log: CycleLog,
}

/// A branch or memory instruction awaiting its late answer.
#[derive(Debug, Clone, Copy)]
struct Sent {
    /// The cycle its answer comes.
    at: u64,
    pick: Pick,
    op: SentOp,
}

/// What a sent instruction is.
#[derive(Debug, Clone, Copy)]
enum SentOp {
    Branch,
    Jump,
    /// The merged group's threads and those already satisfied.
    Memory(u32, u32),
}

/// One cycle of the sequencer as its datapath drives it (`Machine::log`): what an RTL
/// sequencer in lockstep is given, and what it must decide.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CycleLog {
    /// Warps started: (context, entry pc, threads).
    pub starts: Vec<(usize, u64, u32)>,
    /// Per context: the threads whose data arrived.
    pub fills: Vec<u32>,
    /// A late answer (before the fills): the warp, and the answer (`LoggedOp::Branch`,
    /// `LoggedOp::Other` for a jump, or `LoggedOp::Memory`) with what the sequencer
    /// decided.
    pub answer: Option<(usize, LoggedOp)>,
    /// The issue stage was held (no action).
    pub busy: bool,
    /// The action (`None` when busy).
    pub action: Option<Logged>,
}

/// A cycle's action, with the datapath's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Logged {
    Stall,
    Control,
    Issue(Pick, LoggedOp),
}

/// An issued group's instruction, as the datapath answered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoggedOp {
    /// A conditional branch: its outcome, and whether it executed (else the group
    /// waits at it).
    Branch(BranchOutcome, bool),
    /// A memory instruction: the merged group's threads and those already satisfied
    /// (`None`: it waited at its slip limit), the threads satisfied after the access,
    /// the cycles until the hits' data (`hit_at - now`), and the threads that executed.
    Memory {
        merged: Option<(u32, u32)>,
        satisfied: u32,
        hit_delay: u64,
        run: u32,
    },
    /// Anything else: the threads' common next pc, or their end.
    Other(Option<u64>),
    /// Late answers: a branch sent to the datapath (its answer comes later).
    SentBranch,
    /// Late answers: an indirect jump sent (its answer, `Other`, comes later).
    SentJump,
    /// Late answers: a memory instruction sent, with the merged group's threads and
    /// those already satisfied (its access and answer come later).
    SentMemory { mask: u32, ready: u32 },
}

/// An issued warp instruction, as tests see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IssueView {
    pub cycle: u64,
    pub warp: usize,
    pub pc: u64,
    pub mask: u32,
}

/// No fill is awaited.
const NONE: u64 = u64::MAX;

fn is_memory(insn: u32) -> bool {
    matches!(
        insn & 0x7f,
        opcode::LOAD | opcode::LOAD_FP | opcode::STORE | opcode::STORE_FP | opcode::AMO
    )
}

impl Machine {
    /// A machine of `cfg` (checked by the caller) on `mem`.
    pub fn new(cfg: DwsConfig, mem: Box<dyn MemorySystem>) -> Machine {
        let n = cfg.warps as usize;
        Machine {
            ctl: DwsControl::new(cfg),
            mem,
            now: 0,
            started: 0,
            launch: Launch { n: 0, entry: 0 },
            code: Cfg::default(),
            next_warp: 0,
            threads: vec![Vec::new(); n],
            arrive: vec![[NONE; 32]; n],
            last_issue: None,
            busy_until: 0,
            sent: Default::default(),
            log: CycleLog::default(),
        }
    }

    /// What the sequencer was given and did in the last cycle.
    /// The running kernel's control-flow facts (its branches' post-dominators).
    pub fn code(&self) -> &Cfg {
        &self.code
    }

    pub fn log(&self) -> &CycleLog {
        &self.log
    }

    /// The sequencer's whole state (for an RTL sequencer in lockstep).
    pub fn snapshot(&self) -> super::control::Snapshot {
        self.ctl.snapshot()
    }

    /// The warp instruction the last cycle issued (`None`: none did).
    pub fn last_issue(&self) -> Option<IssueView> {
        self.last_issue
    }

    /// The cycle about to run.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// WST entries in use.
    pub fn wst_used(&self) -> usize {
        self.ctl.wst_used()
    }

    /// The launch's counters so far.
    pub fn stats(&self) -> LaunchStats {
        self.ctl.stats
    }

    /// Starts `launch` (the previous one must have ended).
    pub fn start(&mut self, iss: &Iss, launch: Launch) -> Result<(), DwsError> {
        self.code = Cfg::of_kernel(iss, launch.entry)?;
        self.launch = launch;
        self.next_warp = 0;
        self.ctl.stats = LaunchStats::default();
        self.started = self.now;
        Ok(())
    }

    /// The memory system.
    pub fn memory(&self) -> &dyn MemorySystem {
        self.mem.as_ref()
    }

    /// Warp context `w`'s stack and groups (oldest first).
    pub fn warp_state(&self, w: usize) -> (Vec<Frame>, Vec<GroupView>) {
        let (frames, groups) = self.ctl.state(w);
        let groups = groups
            .map(|g| GroupView {
                depth: g.depth,
                pc: g.pc,
                mask: g.mask,
                status: g.status,
                slotted: g.slot.is_some(),
            })
            .collect();
        (frames.to_vec(), groups)
    }

    /// Runs the launch to its end within `max_cycles`: its counters.
    pub fn run(&mut self, iss: &mut Iss, max_cycles: u64) -> Result<LaunchStats, DwsError> {
        while !self.cycle(iss)? {
            if self.now - self.started >= max_cycles {
                return Err(DwsError::CycleLimit(max_cycles));
            }
        }
        Ok(self.ctl.stats)
    }

    /// One cycle; `true` once the launch has ended.
    pub fn cycle(&mut self, iss: &mut Iss) -> Result<bool, DwsError> {
        self.log = CycleLog {
            fills: vec![0; self.threads.len()],
            ..CycleLog::default()
        };
        self.start_warps(iss);
        if (0..self.threads.len()).all(|w| self.ctl.idle(w)) {
            self.ctl.stats.cycles = self.now - self.started;
            return Ok(true);
        }
        let now = self.now;
        if self.sent.front().is_some_and(|s| s.at == now) {
            let s = self.sent.pop_front().expect("a sent instruction");
            let op = self.resolve(iss, s.pick, s.op)?;
            self.log.answer = Some((s.pick.warp, op));
        }
        for w in 0..self.arrive.len() {
            let mut mask = 0;
            for (t, a) in self.arrive[w].iter_mut().enumerate() {
                if *a <= now {
                    *a = NONE;
                    mask |= 1 << t;
                }
            }
            if mask != 0 {
                if !self.ctl.cfg.replay {
                    // The arrivals complete the threads' access: they execute it now.
                    self.execute(iss, w, mask)?;
                }
                self.ctl.fill(w, mask);
                self.log.fills[w] = mask;
            }
        }
        let model = |what| DwsError::Model { cycle: now, what };
        self.ctl.begin_cycle(now).map_err(model)?;
        self.last_issue = None;
        if now < self.busy_until {
            self.log.busy = true;
            self.now += 1; // the last warp instruction's thread groups
            return Ok(false);
        }
        let action = self.ctl.action();
        self.log.action = match action {
            Action::Issue(_) => None, // logged with its outcome
            Action::Control => Some(Logged::Control),
            Action::Stall => Some(Logged::Stall),
        };
        match action {
            Action::Issue(p) => {
                if self.issue(iss, p)? {
                    self.busy_until = now + self.ctl.cfg.issue_cycles();
                    self.last_issue = Some(IssueView {
                        cycle: now,
                        warp: p.warp,
                        pc: p.pc,
                        mask: p.mask,
                    });
                }
            }
            Action::Control => {}
            Action::Stall => self.ctl.stall(),
        }
        let waiting = self.ctl.groups.iter().any(|g| g.status == Status::WaitMem);
        if self.last_issue.is_none() {
            let stats = &mut self.ctl.stats;
            stats.stall_cycles += 1;
            stats.memory_stall_cycles += u64::from(waiting);
        }
        self.ctl.end_cycle(
            self.last_issue.is_some(),
            self.last_issue.is_none() && waiting,
        );
        self.now += 1;
        Ok(false)
    }

    /// Fills idle warp contexts with the launch's next warps.
    fn start_warps(&mut self, iss: &Iss) {
        let count = self.launch.n.div_ceil(self.ctl.cfg.warp_size);
        for w in 0..self.threads.len() {
            if !self.ctl.idle(w) || self.next_warp >= count {
                continue;
            }
            let first = self.next_warp * self.ctl.cfg.warp_size;
            let n = (self.launch.n - first).min(self.ctl.cfg.warp_size);
            let mask = if n == 32 { u32::MAX } else { (1 << n) - 1 };
            self.threads[w] = (0..n)
                .map(|i| iss.launch_thread(self.launch, first + i))
                .collect();
            self.next_warp += 1;
            self.ctl.start_warp(w, self.launch.entry, mask);
            self.log.starts.push((w, self.launch.entry, mask));
        }
    }

    /// Issues picked group `p`'s instruction: `false` if it waited instead. With late
    /// answers a branch, an indirect jump or a memory instruction is sent: its answer
    /// comes `answer_delay` cycles later.
    fn issue(&mut self, iss: &mut Iss, p: Pick) -> Result<bool, DwsError> {
        let insn = iss.mem.read(p.pc, 4).unwrap_or(0) as u32;
        let delay = self.ctl.cfg.answer_delay;
        let op = match insn & 0x7f {
            _ if is_memory(insn) => match self.ctl.memory_merge(p.id) {
                Some((mask, ready)) => SentOp::Memory(mask, ready),
                None => {
                    let op = LoggedOp::Memory {
                        merged: None,
                        satisfied: 0,
                        hit_delay: 0,
                        run: 0,
                    };
                    self.log.action = Some(Logged::Issue(p, op));
                    return Ok(false);
                }
            },
            opcode::BRANCH => SentOp::Branch,
            opcode::JALR if delay > 0 => SentOp::Jump,
            _ => {
                let next = self.other(iss, p)?;
                self.ctl.advance(p.id, next);
                self.log.action = Some(Logged::Issue(p, LoggedOp::Other(next)));
                return Ok(true);
            }
        };
        if delay == 0 {
            let op = self.resolve(iss, p, op)?;
            self.log.action = Some(Logged::Issue(p, op));
            return Ok(!matches!(op, LoggedOp::Branch(_, false)));
        }
        self.ctl.send(p.id);
        self.sent.push_back(Sent {
            at: self.now + delay,
            pick: p,
            op,
        });
        let op = match op {
            SentOp::Memory(mask, ready) => LoggedOp::SentMemory { mask, ready },
            SentOp::Branch => LoggedOp::SentBranch,
            SentOp::Jump => LoggedOp::SentJump,
        };
        self.log.action = Some(Logged::Issue(p, op));
        Ok(true)
    }

    /// The datapath's answer to group `p`'s branch, jump, or memory instruction (after
    /// the sequencer's merge): the sequencer's decision on it.
    fn resolve(&mut self, iss: &mut Iss, p: Pick, op: SentOp) -> Result<LoggedOp, DwsError> {
        let insn = iss.mem.read(p.pc, 4).unwrap_or(0) as u32;
        match op {
            SentOp::Memory(mask, ready) => self.memory_op(iss, p, insn, mask, ready),
            SentOp::Branch => self.branch(iss, p, insn),
            SentOp::Jump => {
                let next = self.other(iss, p)?;
                self.ctl.answer_jump(self.now, p.id, next);
                Ok(LoggedOp::Other(next))
            }
        }
    }

    /// Group `p`'s conditional branch: the taken mask, then the sequencer's decision;
    /// the threads step if it executed.
    fn branch(&mut self, iss: &mut Iss, p: Pick, insn: u32) -> Result<LoggedOp, DwsError> {
        let threads = &self.threads[p.warp];
        let (r1, r2) = (decode::rs1(insn), decode::rs2(insn));
        let t_mask = (0..threads.len())
            .filter(|&t| {
                let (a, b) = (threads[t].x(r1), threads[t].x(r2));
                p.mask >> t & 1 != 0
                    && decode::branch_taken(decode::funct3(insn), a, b) == Some(true)
            })
            .fold(0u32, |m, t| m | 1 << t);
        let target = p.pc.wrapping_add(decode::imm_b(insn)) & 0xffff_ffff;
        let outcome = BranchOutcome {
            taken: t_mask,
            target,
            info: self.code.branch(p.pc)?,
        };
        let executed = match self.ctl.cfg.answer_delay {
            0 => self.ctl.branch(p.id, outcome),
            _ => self.ctl.answer_branch(self.now, p.id, outcome),
        };
        let op = LoggedOp::Branch(outcome, executed);
        if !executed {
            return Ok(op);
        }
        self.count_issue(p.mask);
        self.execute(iss, p.warp, p.mask)?;
        let fall = (p.pc + 4) & 0xffff_ffff;
        let threads = &self.threads[p.warp];
        if (0..threads.len()).any(|t| {
            p.mask >> t & 1 != 0
                && threads[t].pc() != if t_mask >> t & 1 != 0 { target } else { fall }
        }) {
            return Err(DwsError::Model {
                cycle: self.now,
                what: format!(
                    "the branch at {:#x} went elsewhere than the model's compare",
                    p.pc
                ),
            });
        }
        Ok(op)
    }

    /// Group `p`'s instruction other than a branch or a memory access: its threads step;
    /// their common next pc, or (`None`) their end.
    fn other(&mut self, iss: &mut Iss, p: Pick) -> Result<Option<u64>, DwsError> {
        self.count_issue(p.mask);
        self.execute(iss, p.warp, p.mask)?;
        let threads = &self.threads[p.warp];
        let lanes: Vec<usize> = (0..threads.len())
            .filter(|&t| p.mask >> t & 1 != 0)
            .collect();
        let next = threads[lanes[0]].pc();
        if let Some(&t) = lanes.iter().find(|&&t| threads[t].pc() != next) {
            return Err(DwsError::DivergentJump {
                pc: p.pc,
                first_tid: threads[lanes[0]].tid,
                other_tid: threads[t].tid,
            });
        }
        Ok((next != EXIT_PC).then_some(next))
    }

    fn count_issue(&mut self, mask: u32) {
        self.ctl.stats.warp_instructions += 1;
        self.ctl.stats.thread_instructions += mask.count_ones() as u64;
    }

    /// Steps the threads of warp `w` in `mask`, in thread order.
    fn execute(&mut self, iss: &mut Iss, w: usize, mask: u32) -> Result<(), DwsError> {
        let n = self.launch.n;
        for t in 0..self.threads[w].len() {
            if mask >> t & 1 != 0 {
                iss.step_thread(&mut self.threads[w][t], n)?;
            }
        }
        Ok(())
    }

    /// A memory instruction of picked group `p` (section 2.4) after the sequencer's
    /// PC-based merge (`mask`, of which `ready` are satisfied): the access of the
    /// threads not yet satisfied, then the sequencer's decision by the hit mask; the
    /// threads it lets execute step now, the others wait for their fills.
    fn memory_op(
        &mut self,
        iss: &mut Iss,
        p: Pick,
        insn: u32,
        mask: u32,
        ready: u32,
    ) -> Result<LoggedOp, DwsError> {
        self.count_issue(mask);
        self.ctl.stats.memory_instructions += 1;
        let threads = &self.threads[p.warp];
        let accesses: Vec<ThreadAccess> = (0..threads.len() as u32)
            .filter(|&t| (mask & !ready) >> t & 1 != 0)
            .filter_map(|t| {
                let (addr, _, write) = threads[t as usize].access(insn)?;
                Some(ThreadAccess {
                    lane: t,
                    addr,
                    write,
                })
            })
            .collect();
        let answer = self.mem.access(self.now, p.warp, p.pc, &accesses);
        let hit_at = self.now + self.mem.hit_latency() + answer.conflicts;
        let mut satisfied = ready;
        for (k, a) in accesses.iter().enumerate() {
            if answer.hit[k] {
                satisfied |= 1 << a.lane;
            } else {
                self.arrive[p.warp][a.lane as usize] = answer.arrive[k];
            }
        }
        let run = match self.ctl.cfg.answer_delay {
            0 => self.ctl.memory_done(p.id, satisfied, hit_at),
            _ => self.ctl.answer_memory(self.now, p.id, satisfied, hit_at),
        };
        // The threads that execute now (the others replay the access), or without
        // replay every thread whose data is there (the others as their data arrives).
        let now = match self.ctl.cfg.replay {
            true => run,
            false => satisfied,
        };
        self.execute(iss, p.warp, now)?;
        Ok(LoggedOp::Memory {
            merged: Some((mask, ready)),
            satisfied,
            hit_delay: hit_at - self.now,
            run,
        })
    }
}
