//! The RTL DWS sequencer (`generators::fgsimt::dws`, design block `DwsSequencer`) in
//! lockstep with the golden model's (`fgsimt::dws::control::DwsControl`): each cycle
//! the model's datapath (`fgsimt::dws::Machine`: ISS threads, the memory's hit masks
//! and fill times) runs the model, and the RTL gets the same inputs (`Machine::log`:
//! warps started, fills, the issue stage held, and the answer to the issued group). Its
//! decisions must be the model's (the pick, a re-convergence, a stall, whether a branch
//! executed, a memory instruction's merged group and the threads it runs), and after
//! the clock edge its whole state the model's (`Machine::snapshot`: every group oldest
//! first, every stack, the round-robin pointer). The model checks the invariants I1-I3
//! every cycle (`DwsConfig::check`), so the RTL's state, equal to it, keeps them.

use super::{peek_u64, poke_u64, SignalError, Simulator};
use crate::fgsimt::dws::cfg::BranchInfo;
use crate::fgsimt::dws::control::{GroupState, Snapshot};
use crate::fgsimt::dws::{CycleLog, DwsConfig, Logged, LoggedOp, SplitPolicy, Status};
use generators::fgsimt::dws::params::{self, DwsParams};

/// The RTL's parameters for the model's configuration (`None`: the RTL lacks it: slip,
/// or a machine the RTL does not take).
pub fn params_of(cfg: &DwsConfig, stack_depth: u32) -> Option<DwsParams> {
    let dws = match cfg.dws {
        SplitPolicy::Off => params::SplitPolicy::Off,
        SplitPolicy::Aggress => params::SplitPolicy::Aggress,
        SplitPolicy::Lazy => params::SplitPolicy::Lazy,
        SplitPolicy::Revive => params::SplitPolicy::Revive,
        SplitPolicy::Slip => return None,
    };
    let p = DwsParams {
        warps: cfg.warps,
        warp_size: cfg.warp_size,
        dws,
        branch_dws: cfg.branch_dws,
        reconv: cfg.reconv,
        wst_entries: cfg.wst_entries,
        slots: cfg.slots,
        stack_depth,
        short_block: cfg.short_block,
        branch_entries: DwsParams::default().branch_entries,
        late_answers: cfg.answer_delay > 0,
        replay: cfg.replay,
    };
    p.validate().ok().map(|_| p)
}

/// The model's configuration of the engine's sequencer `d` (its answers late, no
/// replay), checking the invariants every cycle: `params_of`'s inverse.
pub fn config_of(d: &DwsParams) -> DwsConfig {
    let dws = match d.dws {
        params::SplitPolicy::Off => SplitPolicy::Off,
        params::SplitPolicy::Aggress => SplitPolicy::Aggress,
        params::SplitPolicy::Lazy => SplitPolicy::Lazy,
        params::SplitPolicy::Revive => SplitPolicy::Revive,
    };
    DwsConfig {
        warps: d.warps,
        warp_size: d.warp_size,
        dws,
        branch_dws: d.branch_dws,
        reconv: d.reconv,
        wst_entries: d.wst_entries,
        slots: d.slots,
        short_block: d.short_block,
        answer_delay: d.late_answers as u64,
        replay: d.replay,
        check: true,
        ..DwsConfig::default()
    }
}

/// Where the RTL and the model part.
#[derive(Debug, thiserror::Error)]
pub enum SeqError {
    #[error(transparent)]
    Signal(#[from] SignalError),
    #[error("cycle {cycle}: {what}: the RTL has {rtl}, the model {model}")]
    Differs {
        cycle: u64,
        what: String,
        rtl: String,
        model: String,
    },
    #[error("cycle {cycle}: the golden sequencer: {what}")]
    Model { cycle: u64, what: String },
    #[error("cycle {cycle}: the RTL sequencer raised its error (a deadlock, a stack or its group table overflowed, or a branch its re-convergence table lacks)")]
    Error { cycle: u64 },
    #[error("the kernel has {branches} conditional branches; the sequencer's re-convergence table holds {entries} (branch_entries)")]
    TableFull { branches: usize, entries: u32 },
}

/// Checks the RTL's `port` against the model's value in `cycle` (also the engine's
/// sequencer's lockstep, `super::dws_follow`).
pub(super) fn same<S: Simulator>(
    dut: &mut S,
    cycle: u64,
    (what, port): (&str, &str),
    model: u64,
) -> Result<(), SeqError> {
    let rtl = peek_u64(dut, port)?;
    if rtl == model {
        return Ok(());
    }
    Err(SeqError::Differs {
        cycle,
        what: what.to_string(),
        rtl: format!("{rtl:#x}"),
        model: format!("{model:#x}"),
    })
}

/// The lockstep of one RTL sequencer.
pub struct SeqLockstep<S: Simulator> {
    pub dut: S,
    pub p: DwsParams,
    /// Cycles compared.
    pub cycles: u64,
}

fn status_code(s: Status) -> u64 {
    match s {
        Status::Ready => 1,
        Status::WaitMem => 2,
        Status::Wait => 3,
    }
}

impl<S: Simulator> SeqLockstep<S> {
    /// `dut` just reset (an empty table).
    pub fn new(dut: S, p: DwsParams) -> SeqLockstep<S> {
        SeqLockstep { dut, p, cycles: 0 }
    }

    fn same(&mut self, what: &str, port: &str, model: u64) -> Result<(), SeqError> {
        same(&mut self.dut, self.cycles, (what, port), model)
    }

    /// Loads the re-convergence table with the kernel's branches (`Cfg::branches`), one
    /// entry a cycle after a clear, with the issue stage held: between launches, so the
    /// sequencer's state stays as it is.
    pub fn load_table(
        &mut self,
        branches: &[(u64, BranchInfo)],
        short_block: u32,
    ) -> Result<(), SeqError> {
        if branches.len() > self.p.branch_entries as usize {
            return Err(SeqError::TableFull {
                branches: branches.len(),
                entries: self.p.branch_entries,
            });
        }
        let d = &mut self.dut;
        poke_u64(d, "start", 0)?;
        for w in 0..self.p.warps {
            poke_u64(d, &format!("fill{w}"), 0)?;
        }
        poke_u64(d, "busy", 1)?;
        if self.p.late_answers {
            poke_u64(d, "ans", 0)?;
        }
        poke_u64(d, "tbl_clear", 1)?;
        d.step();
        poke_u64(d, "tbl_clear", 0)?;
        poke_u64(d, "tbl_we", 1)?;
        for (e, (pc, info)) in branches.iter().enumerate() {
            poke_u64(d, "tbl_index", e as u64)?;
            poke_u64(d, "tbl_pc", *pc)?;
            poke_u64(d, "tbl_ipdom", info.ipdom)?;
            poke_u64(d, "tbl_short", info.short(short_block) as u64)?;
            d.step();
        }
        Ok(poke_u64(d, "tbl_we", 0)?)
    }

    /// One cycle: the model's `log` (the cycle it just ran) as the RTL's inputs, its
    /// decisions checked, the clock edge, then its state against `snapshot`.
    pub fn cycle(&mut self, log: &CycleLog, snapshot: &Snapshot) -> Result<(), SeqError> {
        let d = &mut self.dut;
        let start = log.starts.iter().fold(0, |a, &(w, ..)| a | 1 << w);
        poke_u64(d, "start", start)?;
        for &(w, pc, mask) in &log.starts {
            poke_u64(d, "start_pc", pc)?;
            poke_u64(d, &format!("start_mask{w}"), mask as u64)?;
        }
        for (w, &f) in log.fills.iter().enumerate() {
            poke_u64(d, &format!("fill{w}"), f as u64)?;
        }
        poke_u64(d, "busy", log.busy as u64)?;
        poke_u64(d, "op", 0)?;
        if self.p.late_answers {
            self.late_answer(log.answer)?;
        }
        let (issue, control, stall) = match log.action {
            None => (0, 0, 0),
            Some(Logged::Stall) => (0, 0, 1),
            Some(Logged::Control) => (0, 1, 0),
            Some(Logged::Issue(..)) => (1, 0, 0),
        };
        self.same("an issue", "issue", issue)?;
        self.same("a re-convergence", "control", control)?;
        self.same("a stall", "stall", stall)?;
        if let Some(Logged::Issue(pick, op)) = log.action {
            self.same("the issued group's warp", "issue_warp", pick.warp as u64)?;
            self.same("the issued group's pc", "issue_pc", pick.pc)?;
            self.same("the issued group's threads", "issue_mask", pick.mask as u64)?;
            self.same(
                "the issued group's satisfied threads",
                "issue_ready",
                pick.ready as u64,
            )?;
            self.answer(op)?;
        }
        self.dut.step();
        self.cycles += 1;
        if peek_u64(&mut self.dut, "error")? != 0 {
            return Err(SeqError::Error { cycle: self.cycles });
        }
        self.state(snapshot)
    }

    /// Pokes the datapath's late answer, if one comes this cycle, and checks the RTL's
    /// decision.
    fn late_answer(&mut self, answer: Option<(usize, LoggedOp)>) -> Result<(), SeqError> {
        let Some((warp, op)) = answer else {
            return Ok(poke_u64(&mut self.dut, "ans", 0)?);
        };
        poke_u64(&mut self.dut, "ans_warp", warp as u64)?;
        let code = match op {
            LoggedOp::Branch(..) => 1,
            LoggedOp::Memory { .. } => 2,
            _ => 3,
        };
        poke_u64(&mut self.dut, "ans", code)?;
        self.outcome(op, "ans_")
    }

    /// Pokes the datapath's answer to the issued group (with late answers, what it
    /// sent) and checks the RTL's decision.
    fn answer(&mut self, op: LoggedOp) -> Result<(), SeqError> {
        let d = &mut self.dut;
        match op {
            LoggedOp::Other(_) => self.outcome(op, ""),
            LoggedOp::SentBranch => Ok(poke_u64(d, "op", 1)?),
            LoggedOp::SentJump => Ok(poke_u64(d, "op", 3)?),
            LoggedOp::SentMemory { mask, ready } => {
                poke_u64(d, "op", 2)?;
                self.merged(mask, ready)
            }
            LoggedOp::Branch(..) => {
                poke_u64(d, "op", 1)?;
                self.outcome(op, "")
            }
            LoggedOp::Memory { merged, .. } => {
                let (mask, ready) = merged.expect("no slip in the RTL");
                poke_u64(d, "op", 2)?;
                self.merged(mask, ready)?;
                self.outcome(op, "")
            }
        }
    }

    /// Checks a memory instruction's merged group.
    fn merged(&mut self, mask: u32, ready: u32) -> Result<(), SeqError> {
        self.same("the merged group's threads", "mem_mask", mask as u64)?;
        self.same(
            "the merged group's satisfied threads",
            "mem_ready",
            ready as u64,
        )
    }

    /// Pokes an instruction's outcome and checks the RTL's decision (a next pc on the
    /// ports named after `prefix`).
    fn outcome(&mut self, op: LoggedOp, prefix: &str) -> Result<(), SeqError> {
        let d = &mut self.dut;
        match op {
            LoggedOp::Other(next) => {
                poke_u64(d, &format!("{prefix}next_valid"), next.is_some() as u64)?;
                poke_u64(d, &format!("{prefix}next_pc"), next.unwrap_or(0))?;
                Ok(())
            }
            LoggedOp::Branch(o, executed) => {
                poke_u64(d, "taken", o.taken as u64)?;
                poke_u64(d, "target", o.target)?;
                self.same("whether the branch executed", "executed", executed as u64)
            }
            LoggedOp::Memory {
                satisfied,
                hit_delay,
                run,
                ..
            } => {
                assert!(hit_delay < 1 << params::DELAY_BITS, "hit delay {hit_delay}");
                poke_u64(d, "satisfied", satisfied as u64)?;
                poke_u64(d, "hit_delay", hit_delay)?;
                self.same("the threads that access now", "run", run as u64)
            }
            _ => unreachable!("a sent instruction has no outcome yet"),
        }
    }

    /// The RTL's state after the edge against the model's.
    fn state(&mut self, s: &Snapshot) -> Result<(), SeqError> {
        for i in 0..self.p.groups() as usize {
            let g = s.groups.get(i);
            self.same(
                &format!("group {i}'s status"),
                &format!("g{i}_status"),
                g.map_or(0, |g| status_code(g.status)),
            )?;
            if let Some(g) = g {
                self.group(i, g)?;
            }
        }
        if s.groups.len() > self.p.groups() as usize {
            return Err(SeqError::Differs {
                cycle: self.cycles,
                what: "groups".into(),
                rtl: format!("at most {}", self.p.groups()),
                model: s.groups.len().to_string(),
            });
        }
        for (k, frames) in s.stacks.iter().enumerate() {
            self.same(
                &format!("warp {k}'s stack length"),
                &format!("s{k}_len"),
                frames.len() as u64,
            )?;
            for (f, fr) in frames.iter().enumerate() {
                for (name, v) in [("pc", fr.pc), ("rpc", fr.rpc), ("mask", fr.mask as u64)] {
                    self.same(
                        &format!("warp {k}'s frame {f} {name}"),
                        &format!("s{k}_f{f}_{name}"),
                        v,
                    )?;
                }
            }
        }
        self.same("the last slot picked", "last_slot", s.last_slot as u64)
    }

    fn group(&mut self, i: usize, g: &GroupState) -> Result<(), SeqError> {
        let fields = [
            ("warp", g.warp as u64),
            ("depth", g.depth as u64),
            ("pc", g.pc),
            ("mask", g.mask as u64),
            ("delay", g.delay),
            ("ready", g.data_ready as u64),
            ("pending", g.pending as u64),
            ("slotted", g.slot.is_some() as u64),
            ("running", g.running as u64),
            ("awaiting", g.awaiting as u64),
        ];
        for (name, v) in fields {
            self.same(&format!("group {i}'s {name}"), &format!("g{i}_{name}"), v)?;
        }
        if let Some(slot) = g.slot {
            self.same(
                &format!("group {i}'s slot"),
                &format!("g{i}_slot"),
                slot as u64,
            )?;
        }
        Ok(())
    }
}
