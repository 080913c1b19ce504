//! The BBS's RTL (`generators::vgiw::bbs`, with its CVT) as a [`LaunchRunner`]: the
//! `VgiwBbs` module in a simulator schedules the launch; a stand-in for the fabric runs
//! each thread the BBS injects through its block with the graph interpreter and reports
//! its completion to the CVU's port after a random latency, out of order; configuration
//! is answered after a random delay; the ports take and offer at random cycles.
//!
//! The runner checks the BBS against the execution model's rules as it goes: each
//! block scheduled is the smallest with a non-empty vector, every thread of that vector
//! is injected exactly once (with its stack pointer) and no other, a thread's bit is in
//! at most one vector, and the CVT is empty when a tile ends. The CVT's contents are
//! followed from the BBS's `trace_or` port (every OR) and its reads (the threads it
//! injects), so the steps it returns are directly comparable with the model's trace.

use super::cvt_trace::{err, CvtTrace};
use super::fabric::Stimulus;
use super::interp::{run_block, DataMemory, Order, ThreadInit};
use super::lvc::Lvc;
use super::machine::{launch_lvc, LaunchInit, LaunchRunner, LaunchStats, MachineError, Step};
use crate::rng::Rng;
use crate::simulator::Simulator;
use generators::vgiw::compiler::image::EXIT;
use generators::vgiw::compiler::{Kernel, Next, Succ};
use generators::vgiw::params::VgiwParams;

/// Cycles without any port moving before the BBS is declared hung.
const HUNG_CYCLES: u64 = 100_000;

/// A block's successors as the configuration gives them (`EXIT` for the exit).
fn successors(next: Next) -> (u16, u16) {
    let id = |s: Succ| match s {
        Succ::Block(b) => b,
        Succ::Exit => EXIT,
    };
    match next {
        Next::Goto(s) => (id(s), id(s)),
        Next::Cond { taken, fall } => (id(taken), id(fall)),
    }
}

/// A completion waiting to be reported: when, the thread and whether it took the
/// branch.
type Completion = (u64, u32, bool);

/// What the runner knows of the launch in progress.
struct Launch<'a> {
    kernel: &'a Kernel,
    init: LaunchInit,
    /// The CVT as its ORs and reads left it, the scheduled block and its vector.
    cvt: CvtTrace,
    /// The threads the scheduled block injected.
    injected: Vec<u32>,
    /// Configuration: the cycle it is answered, once asked.
    configure_at: Option<u64>,
    completions: Vec<Vec<Completion>>,
    stats: LaunchStats,
    configured: Option<u16>,
}

pub struct BbsRunner<S: Simulator> {
    sim: S,
    cvus: usize,
    rng: Rng,
    stim: Stimulus,
    pub cycles: u64,
}

impl<S: Simulator> BbsRunner<S>
where
    S::Error: std::fmt::Display,
{
    /// A runner on `sim`, a simulator of `generators::vgiw::bbs::bbs(p)`.
    pub fn new(sim: S, p: &VgiwParams, stim: Stimulus) -> BbsRunner<S> {
        BbsRunner {
            sim,
            cvus: p.cvus as usize,
            rng: Rng::new(stim.seed),
            stim,
            cycles: 0,
        }
    }

    fn poke(&mut self, port: &str, v: u64) -> Result<(), MachineError> {
        self.sim.poke_u64(port, v).map_err(err)
    }

    fn peek(&mut self, port: &str) -> Result<u64, MachineError> {
        self.sim.peek_u64(port).map_err(err)
    }

    fn reset(&mut self) -> Result<(), MachineError> {
        self.poke("reset", 1)?;
        self.sim.step();
        self.poke("reset", 0)
    }

    fn offer(&mut self) -> bool {
        !self.rng.chance(self.stim.refuse_percent)
    }

    fn latency(&mut self) -> u64 {
        self.rng.range(1, self.stim.max_latency.max(1)) as u64
    }
}

impl<S: Simulator> LaunchRunner for BbsRunner<S>
where
    S::Error: std::fmt::Display,
{
    fn launch(
        &mut self,
        kernel: &Kernel,
        n: u32,
        init: LaunchInit,
        params: &VgiwParams,
        mem: &mut dyn DataMemory,
        trace: Option<&mut Vec<Step>>,
    ) -> Result<LaunchStats, MachineError> {
        let mut lvc = launch_lvc(kernel, params)?;
        self.reset()?;
        let words = params.tile_words(kernel.blocks.len());
        let mut l = Launch {
            kernel,
            init,
            cvt: CvtTrace::new(words),
            injected: Vec::new(),
            configure_at: None,
            completions: vec![Vec::new(); self.cvus],
            stats: LaunchStats::default(),
            configured: None,
        };
        for (port, v) in [
            ("launch_bits_threads", n as u64),
            ("launch_bits_words", words as u64),
            ("launch_bits_stack_top", init.stack_top as u64),
            ("launch_bits_stack_bytes", init.stack_bytes as u64),
            ("launch_valid", 1),
        ] {
            self.poke(port, v)?;
        }
        let mut started = false;
        let mut quiet = 0;
        loop {
            let moved = self.cycle(&mut l, mem, &mut lvc)?;
            if !started {
                started = self.peek("launch_ready")? == 1;
                self.sim.step();
                self.cycles += 1;
                if started {
                    self.poke("launch_valid", 0)?;
                }
                continue;
            }
            if self.peek("busy")? == 0 {
                break;
            }
            self.sim.step();
            self.cycles += 1;
            quiet = if moved { 0 } else { quiet + 1 };
            if quiet > HUNG_CYCLES {
                return Err(err(format!(
                    "nothing moved for {HUNG_CYCLES} cycles (block {:?})",
                    l.cvt.scheduled().0
                )));
            }
        }
        l.finish_step()?;
        let steps = l.cvt.finish()?;
        l.stats.lvc = lvc.stats;
        if let Some(t) = trace {
            t.extend(steps);
        }
        Ok(l.stats)
    }
}

impl<S: Simulator> BbsRunner<S>
where
    S::Error: std::fmt::Display,
{
    /// One cycle's inputs and the moves they make; whether anything moved.
    fn cycle(
        &mut self,
        l: &mut Launch,
        mem: &mut dyn DataMemory,
        lvc: &mut Lvc,
    ) -> Result<bool, MachineError> {
        let now = self.cycles;
        let mut moved = self.schedule(l, lvc)?;
        moved |= self.completions(l, now)?;
        moved |= self.injections(l, mem, lvc, now)?;
        if self.peek("trace_or_valid")? == 1 {
            self.follow_tile(l, lvc)?;
            let addr = self.peek("trace_or_bits_addr")? as u32;
            let bits = self.peek("trace_or_bits_bits")?;
            l.cvt.or(addr, bits)?;
            moved = true;
        }
        Ok(moved)
    }

    /// The `sched` and `configured` handshakes.
    fn schedule(&mut self, l: &mut Launch, lvc: &mut Lvc) -> Result<bool, MachineError> {
        let ready = self.offer() && l.configure_at.is_none();
        self.poke("sched_ready", ready as u64)?;
        let mut moved = false;
        if ready && self.peek("sched_valid")? == 1 {
            let b = self.peek("sched_bits_block")? as u16;
            self.follow_tile(l, lvc)?;
            l.select(b)?;
            l.configure_at = Some(self.cycles + self.latency());
            moved = true;
        }
        let answer = l.configure_at.is_some_and(|at| at <= self.cycles);
        let block = (l.cvt.scheduled().0).map(|b| &l.kernel.blocks[b as usize]);
        let (taken, fall) = block.map_or((0, 0), |b| successors(b.next));
        let replicas = block.map_or(0, |b| b.replicas as usize);
        self.poke("configured_valid", answer as u64)?;
        self.poke("configured_bits_taken", taken as u64)?;
        self.poke("configured_bits_fall", fall as u64)?;
        for i in 0..self.cvus {
            let active = l.configure_at.is_none() && i < replicas;
            self.poke(&format!("cvu{i}_active"), active as u64)?;
        }
        if answer && self.peek("configured_ready")? == 1 {
            l.configure_at = None;
            moved = true;
        }
        Ok(moved)
    }

    /// A new tile when the BBS's differs from the one followed: the last one's CVT
    /// must be empty, and the LVC's mapping changes.
    fn follow_tile(&mut self, l: &mut Launch, lvc: &mut Lvc) -> Result<(), MachineError> {
        let base = self.peek("tile_base")? as u32;
        if l.cvt.is_new_tile(base) {
            l.finish_step()?;
            l.cvt.follow_tile(base)?;
            l.stats.tiles += 1;
            lvc.start_tile(base, self.peek("tile_threads")? as u32);
        }
        Ok(())
    }

    /// Each CVU's completions, a due one at random.
    fn completions(&mut self, l: &mut Launch, now: u64) -> Result<bool, MachineError> {
        let mut moved = false;
        for i in 0..self.cvus {
            let due: Vec<usize> = (0..l.completions[i].len())
                .filter(|&j| l.completions[i][j].0 <= now)
                .collect();
            let pick = (!due.is_empty()).then(|| due[self.rng.below(due.len() as u64) as usize]);
            let done = |p: &str| format!("cvu{i}_done_{p}");
            self.poke(&done("valid"), pick.is_some() as u64)?;
            if let Some(j) = pick {
                let (_, tid, taken) = l.completions[i][j];
                self.poke(&done("bits_tid"), (tid & 0xffff) as u64)?;
                self.poke(&done("bits_taken"), taken as u64)?;
                if self.peek(&done("ready"))? == 1 {
                    l.completions[i].swap_remove(j);
                    moved = true;
                }
            }
        }
        Ok(moved)
    }

    /// Each CVU's injections: the thread runs through the block at once.
    fn injections(
        &mut self,
        l: &mut Launch,
        mem: &mut dyn DataMemory,
        lvc: &mut Lvc,
        now: u64,
    ) -> Result<bool, MachineError> {
        let mut moved = false;
        for i in 0..self.cvus {
            let ready = self.offer();
            let inject = |p: &str| format!("cvu{i}_inject_{p}");
            self.poke(&inject("ready"), ready as u64)?;
            if !ready || self.peek(&inject("valid"))? == 0 {
                continue;
            }
            let tid = self.peek(&inject("bits_tid"))? as u32;
            let sp = self.peek(&inject("bits_sp"))? as u32;
            let taken = l.run(tid, sp, mem, lvc)?;
            let at = now + self.latency();
            l.completions[i].push((at, tid, taken));
            moved = true;
        }
        Ok(moved)
    }
}

impl Launch<'_> {
    /// Block `b` scheduled (the last block's step checked and ended).
    fn select(&mut self, b: u16) -> Result<(), MachineError> {
        self.finish_step()?;
        let vector = self.cvt.select(b)?.len() as u64;
        self.stats.blocks_executed += 1;
        self.stats.max_vector = self.stats.max_vector.max(vector);
        if self.configured != Some(b) {
            self.stats.reconfigurations += 1;
            self.configured = Some(b);
        }
        Ok(())
    }

    /// Runs thread `tid` (injected with `sp`) through the scheduled block; whether it
    /// took the branch.
    fn run(
        &mut self,
        tid: u32,
        sp: u32,
        mem: &mut dyn DataMemory,
        lvc: &mut Lvc,
    ) -> Result<bool, MachineError> {
        let (block, expected) = self.cvt.scheduled();
        let b = block.ok_or_else(|| err("a thread injected before any block"))?;
        if !expected.contains(&tid) || self.injected.contains(&tid) {
            return Err(err(format!(
                "thread {tid} injected into block {b}, not (or no longer) in its vector"
            )));
        }
        let want = (self.init.stack_top).wrapping_sub(tid.wrapping_mul(self.init.stack_bytes));
        if sp != want {
            return Err(err(format!("thread {tid}: sp {sp:#x}, not {want:#x}")));
        }
        self.injected.push(tid);
        let block = &self.kernel.blocks[b as usize];
        let t = ThreadInit {
            tid,
            gp: self.init.gp,
            tp: self.init.tp,
            sp,
        };
        let succ = run_block(block, &t, mem, lvc, Order::Graph)?;
        self.stats.thread_blocks += 1;
        let insns = (block.end - block.start.unwrap_or(block.end)) as u64 / 4;
        self.stats.thread_instructions += insns;
        Ok(match block.next {
            Next::Goto(_) => true,
            Next::Cond { taken, .. } => succ == taken,
        })
    }

    /// The scheduled block's step, once its threads are all in: exactly its vector's.
    fn finish_step(&mut self) -> Result<(), MachineError> {
        let (Some(b), expected) = self.cvt.scheduled() else {
            return Ok(());
        };
        let mut injected = std::mem::take(&mut self.injected);
        injected.sort_unstable();
        if injected != expected {
            return Err(err(format!(
                "block {b}: injected threads {injected:?}, its vector held {expected:?}"
            )));
        }
        self.cvt.finish_step();
        Ok(())
    }
}
