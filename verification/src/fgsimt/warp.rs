//! The SIMT execution model of a kernel launch (seed 000, sections 3.1-3.2): warps of
//! `warp_size` threads run one at a time ([`KernelRun::new`]; or one warp alone,
//! [`KernelRun::for_warp`], for an engine that interleaves warps), each warp instruction
//! executed by the active fragment's threads in thread order, with the fragments of a
//! divergent warp scheduled by the PWFB ([`super::pwfb`]). Each thread is the RV32IMAF
//! ISS's ([`Iss::step_thread`]), so a thread's own instructions and results are exactly
//! those of the ISS running it alone; only the interleaving of threads differs (memory
//! races and atomics between threads are ordered by warp instruction, then thread
//! index).
//!
//! Control flow, as the engine resolves it: a conditional branch splits the fragment by
//! outcome; jal and jalr must agree across the fragment (jalr targets that differ are an
//! error of the kernel: the CP resolves unconditional jumps alone); threads that return
//! (jump to [`EXIT_PC`]) leave their fragment.

use super::affine::asrf::{AffineStats, Asrf, Class, Executed};
use super::affine::Mechanisms;
use super::avc::private::Stacks;
use super::pwfb::{Fragment, Pwfb};
use crate::iss::commitlog::Commit;
use crate::iss::simt::{Launch, Thread, EXIT_PC};
use crate::iss::{Iss, IssError};

/// Why a kernel cannot run on the SIMT model.
#[derive(Debug, thiserror::Error)]
pub enum SimtError {
    #[error(transparent)]
    Iss(#[from] IssError),
    #[error(
        "the jump at pc {pc:#x} goes to {first:#x} for thread {first_tid} and to {other:#x} \
         for thread {other_tid} of the same warp fragment; indirect jumps must agree across \
         a fragment"
    )]
    DivergentJump {
        pc: u64,
        first_tid: u32,
        first: u64,
        other_tid: u32,
        other: u64,
    },
    /// An engine's group ([`KernelRun::step_group`]) holds a thread elsewhere (`at`),
    /// or one that is not running (or no thread at all: `tid` is the warp's first).
    #[error(
        "the group at pc {pc:#x} holds thread {tid}, which is {}",
        match .at { Some(at) => format!("at {at:#x}"), None => "not running".into() }
    )]
    NotAtPc { pc: u64, tid: u32, at: Option<u64> },
    /// The affine model's invariant broke: a rule is unsound (a bug of the model).
    #[error("after the warp instruction at pc {pc:#x}: {what}")]
    Asrf { pc: u64, what: String },
}

/// One warp instruction as it commits: the fragment's pc, instruction and mask, and
/// each active thread's commit (in thread order).
#[derive(Debug, Clone)]
pub struct WarpCommit {
    pub warp: u32,
    pub pc: u64,
    pub insn: u32,
    pub mask: u32,
    /// What the engine does with it under the launch's affine mechanisms, and whether
    /// the warp was converged (the first fragment's threads all active, none pending).
    pub class: Class,
    pub converged: bool,
    pub threads: Vec<Commit>,
    /// Each active thread's pc after the instruction, in thread order ([`EXIT_PC`] once
    /// it returned): the outcome of a branch or jump as the lanes report it.
    pub next: Vec<u64>,
}

/// Counts over a launch.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct KernelStats {
    pub warps: u64,
    pub warp_instructions: u64,
    /// Thread instructions: the sum of active threads over warp instructions.
    pub thread_instructions: u64,
    /// Conditional branches whose threads split.
    pub divergent_branches: u64,
    /// The most fragments a warp had pending at once.
    pub max_pending: usize,
    pub affine: AffineStats,
}

/// The counts of two runs of one launch together (of warps run alone,
/// [`KernelRun::for_warp`]): the sums, but `max_pending`, the larger.
impl std::ops::AddAssign for KernelStats {
    fn add_assign(&mut self, o: KernelStats) {
        self.warps += o.warps;
        self.warp_instructions += o.warp_instructions;
        self.thread_instructions += o.thread_instructions;
        self.divergent_branches += o.divergent_branches;
        self.max_pending = self.max_pending.max(o.max_pending);
        self.affine += o.affine;
    }
}

/// Warps in `launch` at `warp_size` (1..=32) threads a warp: ceil(n / warp size).
pub fn launch_warps(launch: Launch, warp_size: u32) -> u32 {
    assert!((1..=32).contains(&warp_size), "warp size {warp_size}");
    launch.n.div_ceil(warp_size)
}

/// A launch in progress on the SIMT model: its warps `warp..end`, one after another.
pub struct KernelRun {
    launch: Launch,
    warp_size: u32,
    warp: u32,
    /// The warp after the last one this run runs.
    end: u32,
    threads: Vec<Thread>,
    /// The warp's threads at its start (the converged test's mask).
    full_mask: u32,
    pwfb: Pwfb,
    mech: Mechanisms,
    asrf: Option<Asrf>,
    /// With `mech.private`: the launch's stacks, private memory.
    stacks: Option<Stacks>,
    /// The engine chooses the groups ([`KernelRun::step_group`]); the PWFB is unused.
    followed: bool,
    pub stats: KernelStats,
}

impl KernelRun {
    /// Starts `launch` on warps of `warp_size` (1..=32) threads with the affine
    /// mechanisms `mech`: every warp, in order.
    pub fn new(iss: &Iss, launch: Launch, warp_size: u32, mech: Mechanisms) -> KernelRun {
        let warps = launch_warps(launch, warp_size);
        KernelRun::of_warps(iss, launch, (warp_size, mech), 0..warps)
    }

    /// Starts warp `warp` (below [`launch_warps`]) of `launch` alone, as
    /// [`KernelRun::new`] would run it: [`KernelRun::step`] ends with that warp.
    pub fn for_warp(
        iss: &Iss,
        launch: Launch,
        warp_size: u32,
        mech: Mechanisms,
        warp: u32,
    ) -> KernelRun {
        let warps = launch_warps(launch, warp_size);
        assert!(warp < warps, "warp {warp} of a launch of {warps} warps");
        KernelRun::of_warps(iss, launch, (warp_size, mech), warp..warp + 1)
    }

    /// Starts the warps `warps` of `launch`.
    fn of_warps(
        iss: &Iss,
        launch: Launch,
        (warp_size, mech): (u32, Mechanisms),
        warps: std::ops::Range<u32>,
    ) -> KernelRun {
        let mut run = KernelRun {
            launch,
            warp_size,
            warp: warps.start,
            end: warps.end,
            threads: Vec::new(),
            full_mask: 0,
            pwfb: Pwfb::default(),
            mech,
            asrf: None,
            stacks: mech
                .private
                .then(|| Stacks::of_launch(iss, launch.n, warp_size))
                .flatten(),
            followed: false,
            stats: KernelStats::default(),
        };
        run.start_warp(iss, warps.start);
        run
    }

    /// The running warp's ASRF (as the affine mechanisms keep it).
    pub fn asrf(&self) -> Option<&Asrf> {
        self.asrf.as_ref()
    }

    /// Thread `tid`, if it belongs to the running warp.
    pub fn thread(&self, tid: u32) -> Option<&Thread> {
        self.threads.iter().find(|t| t.tid == tid)
    }

    /// Whether the run is over (its last warp has no fragment left): [`KernelRun::step`]
    /// would return `None`.
    pub fn finished(&self) -> bool {
        let done = match self.followed {
            true => self.threads.iter().all(Thread::exited),
            false => self.pwfb.done(),
        };
        self.warp >= self.end || self.warp + 1 == self.end && done
    }

    fn start_warp(&mut self, iss: &Iss, warp: u32) {
        self.warp = warp;
        if warp >= self.end {
            return;
        }
        let first = warp * self.warp_size;
        let count = (self.launch.n - first).min(self.warp_size);
        self.threads = (0..count)
            .map(|i| iss.launch_thread(self.launch, first + i))
            .collect();
        let mask = if count == 32 {
            u32::MAX
        } else {
            (1 << count) - 1
        };
        self.full_mask = mask;
        self.pwfb = Pwfb::new(self.launch.entry, mask);
        let mut asrf = Asrf::warp_start(&self.threads, self.warp_size);
        if let Some(s) = &self.stacks {
            let region = (s.threads as u64 * s.bytes) as u32;
            asrf.private_stacks(s.top as u32, region);
        }
        self.asrf = Some(asrf);
        self.stats.warps += 1;
    }

    /// Executes the next warp instruction; `None` once every warp of the run has
    /// finished.
    pub fn step(&mut self, iss: &mut Iss) -> Result<Option<WarpCommit>, SimtError> {
        let frag = loop {
            if self.warp >= self.end {
                return Ok(None);
            }
            match self.pwfb.select() {
                Some(f) => break f,
                None => self.start_warp(iss, self.warp + 1),
            }
        };
        let converged = frag.mask == self.full_mask && self.pwfb.pending() == 0;
        self.execute(iss, frag, converged).map(Some)
    }

    /// Executes the warp instruction of group `frag`, which an engine's own scheduler
    /// chose (the DWS sequencer): its threads, each at `frag.pc`, step; the PWFB is not
    /// used from then on. The warp is converged when the group holds all its threads.
    pub fn step_group(&mut self, iss: &mut Iss, frag: Fragment) -> Result<WarpCommit, SimtError> {
        self.followed = true;
        let first = self.warp * self.warp_size;
        let stray = (0..32).filter(|&i| frag.mask >> i & 1 != 0).find_map(|i| {
            let at = (self.threads.get(i as usize))
                .filter(|t| !t.exited())
                .map(Thread::pc);
            (at != Some(frag.pc)).then_some((first + i, at))
        });
        if let Some((tid, at)) = stray {
            return Err(SimtError::NotAtPc {
                pc: frag.pc,
                tid,
                at,
            });
        }
        if frag.mask == 0 {
            let (pc, tid) = (frag.pc, first);
            return Err(SimtError::NotAtPc { pc, tid, at: None });
        }
        self.execute(iss, frag, frag.mask == self.full_mask)
    }

    /// Steps `frag`'s threads through its instruction; with the PWFB, moves it on.
    fn execute(
        &mut self,
        iss: &mut Iss,
        frag: Fragment,
        converged: bool,
    ) -> Result<WarpCommit, SimtError> {
        let mut commits = Vec::with_capacity(frag.mask.count_ones() as usize);
        for i in (0..self.threads.len()).filter(|&i| frag.mask >> i & 1 != 0) {
            self.check_private(iss, frag.pc, &self.threads[i])?;
            commits.push(iss.step_thread(&mut self.threads[i], self.launch.n)?);
        }
        let insn = commits[0].insn;
        let class = self.affine(frag, insn, converged, &commits)?;
        let splits = self.stats.divergent_branches;
        self.resolve(frag, insn)?;
        if class == Class::UniformBranch && self.stats.divergent_branches != splits {
            return Err(SimtError::Asrf {
                pc: frag.pc,
                what: "a branch the CP resolved for the whole warp split its threads".into(),
            });
        }
        self.stats.warp_instructions += 1;
        self.stats.thread_instructions += commits.len() as u64;
        self.stats.max_pending = self.stats.max_pending.max(self.pwfb.pending());
        let next = (0..self.threads.len())
            .filter(|&i| frag.mask >> i & 1 != 0)
            .map(|i| self.threads[i].pc())
            .collect();
        Ok(WarpCommit {
            warp: self.warp,
            pc: frag.pc,
            insn,
            mask: frag.mask,
            class,
            converged,
            threads: commits,
            next,
        })
    }

    /// With private stacks: the access fault `thread`'s instruction at `pc` takes if it
    /// breaks their rule ([`Stacks::violation`]).
    fn check_private(&self, iss: &Iss, pc: u64, thread: &Thread) -> Result<(), SimtError> {
        let Some(stacks) = &self.stacks else {
            return Ok(());
        };
        let insn = iss.mem.read(pc, 4).unwrap_or(0) as u32;
        match stacks.violation(insn, thread) {
            Some((cause, tval)) => Err(SimtError::Iss(IssError::KernelTrap {
                tid: thread.tid,
                n: self.launch.n,
                pc,
                cause,
                tval,
            })),
            None => Ok(()),
        }
    }

    /// Classifies the warp instruction and updates the ASRF, then checks the ASRF's
    /// invariant against the threads' registers.
    fn affine(
        &mut self,
        frag: Fragment,
        insn: u32,
        converged: bool,
        commits: &[Commit],
    ) -> Result<Class, SimtError> {
        let asrf = self.asrf.as_mut().expect("a warp is running");
        let executed = Executed {
            pc: frag.pc,
            insn,
            mask: frag.mask,
            converged,
            commits,
        };
        let class = asrf.step(&executed, self.mech, &mut self.stats.affine);
        match asrf.check(&self.threads) {
            Some(what) => Err(SimtError::Asrf { pc: frag.pc, what }),
            None => Ok(class),
        }
    }

    /// Sets the AWFR after `frag` executed `insn`: the common next pc, a split at a
    /// conditional branch, or the loss of threads that returned (a followed run only
    /// counts the split and checks that a jump's threads agree).
    fn resolve(&mut self, frag: Fragment, insn: u32) -> Result<(), SimtError> {
        let next = |i: usize| self.threads[i].pc();
        let active: Vec<usize> = (0..self.threads.len())
            .filter(|&i| frag.mask >> i & 1 != 0)
            .collect();
        let fall = frag.pc.wrapping_add(4) & 0xffff_ffff;
        let first = next(active[0]);
        if let Some(&i) = active.iter().find(|&&i| next(i) != first) {
            if insn & 0x7f != crate::iss::decode::opcode::BRANCH {
                return Err(SimtError::DivergentJump {
                    pc: frag.pc,
                    first_tid: self.threads[active[0]].tid,
                    first,
                    other_tid: self.threads[i].tid,
                    other: next(i),
                });
            }
            let target = if first == fall { next(i) } else { first };
            let taken = active
                .iter()
                .filter(|&&i| next(i) == target)
                .fold(0u32, |m, &i| m | 1 << i);
            self.stats.divergent_branches += 1;
            if !self.followed {
                self.pwfb.push_taken(frag.pc, target, taken);
                self.pwfb.awfr.pc = fall;
            }
        } else if !self.followed && first == EXIT_PC {
            self.pwfb.awfr.mask = 0;
        } else if !self.followed {
            self.pwfb.awfr.pc = first;
        }
        Ok(())
    }
}
