//! The DWS sequencer inside the FG-SIMT engine (`reconv` other than `pwfb`) in lockstep
//! with the golden model's `DwsControl` (docs/fgsimt-engine.md, "DWS in the engine",
//! plan step 5). Each cycle the engine's `strace` (`generators::fgsimt::bundles::strace`)
//! shows what its sequencer takes: the warps started, the fills, whether the issue stage
//! is held, the issued instruction's kind and next pc, and a late answer (a branch's
//! taken mask and target, a jump's target, a load's hit mask). The model takes the same
//! inputs at the same cycles, in its own cycle's order (`Machine::cycle`: starts, the
//! late answer, fills, then wakes, merges and slots, then the action), and the RTL's
//! decisions must be the model's: an issue, a re-convergence or a stall; the issued
//! group's warp, pc, threads and satisfied threads; a load's PC-merged group; whether a
//! branch's answer executed it; the threads a load's answer lets run.
//!
//! What the model does not take from the RTL: an instruction's kind comes from the
//! program's code (the RTL's `op` must match it: a branch, `jalr`, a load-like
//! instruction as the engine's decode names them, or another), and a branch's
//! post-dominator and short-block bit from the loader's analysis of the kernel
//! ([`Directory::kernels`]), not from the RTL's table. The model checks the invariants
//! I1-I3 every cycle (`DwsConfig::check`) on the state that made the RTL's decisions.
//! (The standalone lockstep, `tb::dws_seq`, also compares the whole state each cycle.)

use super::dws_seq::SeqError;
use super::{peek_u64, Simulator};
use crate::elf::Program;
use crate::fgsimt::dws::cfg::BranchInfo;
use crate::fgsimt::dws::control::{Action, DwsControl, Pick};
use crate::fgsimt::dws::directory::Directory;
use crate::fgsimt::dws::machine::LaunchStats;
use crate::fgsimt::dws::reconv::BranchOutcome;
use crate::fgsimt::dws::DwsConfig;
use crate::iss::decode::opcode;
use generators::fgsimt::cp::warp_sequencer::op;

/// The op the engine's decode gives the instruction `insn` (`warp_sequencer::op`).
fn engine_op(insn: u32) -> u64 {
    match insn & 0x7f {
        opcode::BRANCH => op::BRANCH,
        opcode::JALR => op::JUMP,
        opcode::LOAD | opcode::LOAD_FP | opcode::AMO => op::MEMORY,
        _ => op::OTHER,
    }
}

/// The golden sequencer following the engine's.
pub struct SeqFollower {
    ctl: DwsControl,
    /// The program's code (its segments).
    code: Vec<(u64, Vec<u8>)>,
    /// Each kernel's entry and its branches' facts.
    kernels: Vec<(u64, Vec<(u64, BranchInfo)>)>,
    /// The running kernel (an index into `kernels`).
    kernel: Option<usize>,
    /// Per warp context: the group whose branch, jump or load awaits its answer.
    awaiting: Vec<Option<Pick>>,
    fills: Vec<String>,
    /// The RTL raised its error.
    stopped: bool,
    now: u64,
    /// Cycles followed, and the decisions (actions and late answers) compared.
    pub cycles: u64,
    pub decisions: u64,
}

impl SeqFollower {
    /// The model of configuration `cfg` (the engine's sequencer, `dws_seq::config_of`)
    /// for `program`, whose kernels `directory` analysed.
    pub fn new(cfg: DwsConfig, program: &Program, directory: &Directory) -> SeqFollower {
        let warps = cfg.warps as usize;
        SeqFollower {
            ctl: DwsControl::new(cfg),
            code: (program.segments.iter())
                .map(|s| (s.addr, s.data.clone()))
                .collect(),
            kernels: directory.kernels.clone(),
            kernel: None,
            awaiting: vec![None; warps],
            fills: (0..warps).map(|k| format!("strace_fill{k}")).collect(),
            stopped: false,
            now: 0,
            cycles: 0,
            decisions: 0,
        }
    }

    fn differs(&self, what: &str, rtl: u64, model: u64) -> SeqError {
        SeqError::Differs {
            cycle: self.now,
            what: what.to_string(),
            rtl: format!("{rtl:#x}"),
            model: format!("{model:#x}"),
        }
    }

    fn model(&self, what: String) -> SeqError {
        SeqError::Model {
            cycle: self.now,
            what,
        }
    }

    /// Checks the RTL's `strace_<port>` against the model's `model`.
    fn same<S: Simulator>(
        &self,
        dut: &mut S,
        what: &str,
        port: &str,
        model: u64,
    ) -> Result<(), SeqError> {
        super::dws_seq::same(dut, self.now, (what, port), model)
    }

    /// The instruction word at `pc` in the program's code.
    fn insn(&self, pc: u64) -> Option<u32> {
        let (base, data) = self
            .code
            .iter()
            .find(|(a, d)| (*a..*a + d.len() as u64).contains(&pc))?;
        let at = (pc - base) as usize;
        let bytes = data.get(at..at + 4)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?))
    }

    /// One cycle (before the clock edge): the engine's sequencer's inputs to the model,
    /// its decisions checked. Once the RTL raised its error (a stack or the table
    /// overflowed: the model's are unbounded) nothing more is compared; the engine
    /// reports it as its fault.
    pub fn cycle<S: Simulator>(&mut self, dut: &mut S) -> Result<(), SeqError> {
        if self.stopped || peek_u64(dut, "strace_error")? == 1 {
            self.stopped = true;
            return Ok(());
        }
        self.starts(dut)?;
        let ans = peek_u64(dut, "strace_ans")?;
        if ans != 0 {
            self.late_answer(dut, ans)?;
        }
        for w in 0..self.awaiting.len() {
            let fill = peek_u64(dut, &self.fills[w])? as u32;
            if fill != 0 {
                self.ctl.fill(w, fill);
            }
        }
        let now = self.now;
        self.ctl.begin_cycle(now).map_err(|e| self.model(e))?;
        if peek_u64(dut, "strace_busy")? == 0 {
            self.action(dut)?;
        }
        self.now += 1;
        self.cycles += 1;
        Ok(())
    }

    /// Warps starting this cycle, in idle contexts (a new kernel's entry selects its
    /// branches).
    fn starts<S: Simulator>(&mut self, dut: &mut S) -> Result<(), SeqError> {
        let start = peek_u64(dut, "strace_start")?;
        if start == 0 {
            return Ok(());
        }
        let pc = peek_u64(dut, "strace_start_pc")?;
        let mask = peek_u64(dut, "strace_start_mask")? as u32;
        let Some(k) = self.kernels.iter().position(|(entry, _)| *entry == pc) else {
            return Err(self.model(format!(
                "a warp starts at {pc:#x}, which is no kernel the loader analysed"
            )));
        };
        self.kernel = Some(k);
        for w in 0..self.awaiting.len() {
            if start >> w & 1 == 0 {
                continue;
            }
            if !self.ctl.idle(w) {
                return Err(self.model(format!("a warp starts in busy context {w}")));
            }
            self.ctl.start_warp(w, pc, mask);
        }
        Ok(())
    }

    /// The golden sequencer's counters over the run so far (its splits, merges and
    /// waits: the engine's, which made the same decisions). The datapath's counts
    /// (cycles, warp instructions, memory instructions) stay at zero: the engine has
    /// its own.
    pub fn stats(&self) -> LaunchStats {
        self.ctl.stats
    }

    /// The facts of the running kernel's branch at `pc`.
    fn branch_info(&self, pc: u64) -> Result<BranchInfo, SeqError> {
        let found = self
            .kernel
            .and_then(|k| self.kernels[k].1.iter().find(|(b, _)| *b == pc));
        found
            .map(|&(_, info)| info)
            .ok_or_else(|| self.model(format!("the kernel has no branch at {pc:#x}")))
    }

    /// The late answer `ans` (`op` 1 a branch, 2 a load, 3 a jump) to the group its warp
    /// sent; the RTL's decision on it checked.
    fn late_answer<S: Simulator>(&mut self, dut: &mut S, ans: u64) -> Result<(), SeqError> {
        let w = peek_u64(dut, "strace_ans_warp")? as usize;
        let Some(p) = self.awaiting.get_mut(w).and_then(Option::take) else {
            return Err(self.model(format!("an answer for warp {w}, which awaits none")));
        };
        let sent = engine_op(self.insn(p.pc).unwrap_or(0));
        if sent != ans {
            return Err(self.differs("the late answer's kind", ans, sent));
        }
        self.decisions += 1;
        let now = self.now;
        match ans {
            op::BRANCH => {
                let outcome = BranchOutcome {
                    taken: peek_u64(dut, "strace_taken")? as u32,
                    target: peek_u64(dut, "strace_target")?,
                    info: self.branch_info(p.pc)?,
                };
                let executed = self.ctl.answer_branch(now, p.id, outcome);
                let what = "whether the branch's answer executed it";
                self.same(dut, what, "strace_executed", executed as u64)
            }
            op::MEMORY => {
                let satisfied = peek_u64(dut, "strace_satisfied")? as u32;
                let hit_at = now + peek_u64(dut, "strace_hit_delay")?;
                let run = self.ctl.answer_memory(now, p.id, satisfied, hit_at);
                let what = "the threads a load's answer runs";
                self.same(dut, what, "strace_run", run as u64)
            }
            _ => {
                let next = match peek_u64(dut, "strace_ans_next_valid")? {
                    0 => None,
                    _ => Some(peek_u64(dut, "strace_ans_next_pc")?),
                };
                self.ctl.answer_jump(now, p.id, next);
                Ok(())
            }
        }
    }

    /// The cycle's action (the issue stage not held).
    fn action<S: Simulator>(&mut self, dut: &mut S) -> Result<(), SeqError> {
        let action = self.ctl.action();
        self.decisions += 1;
        let (issue, control, stall) = match action {
            Action::Issue(_) => (1, 0, 0),
            Action::Control => (0, 1, 0),
            Action::Stall => (0, 0, 1),
        };
        self.same(dut, "an issue", "strace_issue", issue)?;
        self.same(dut, "a re-convergence", "strace_control", control)?;
        self.same(dut, "a stall", "strace_stall", stall)?;
        match action {
            Action::Issue(p) => self.issue(dut, p),
            Action::Control => Ok(()),
            Action::Stall => {
                self.ctl.stall();
                Ok(())
            }
        }
    }

    /// The picked group `p` issues its instruction: a plain one goes on at the RTL's
    /// next pc; a branch, a jump or a load is sent (a load with its PC-merged group).
    fn issue<S: Simulator>(&mut self, dut: &mut S, p: Pick) -> Result<(), SeqError> {
        for (what, port, model) in [
            (
                "the issued group's warp",
                "strace_issue_warp",
                p.warp as u64,
            ),
            ("the issued group's pc", "strace_issue_pc", p.pc),
            (
                "the issued group's threads",
                "strace_issue_mask",
                p.mask as u64,
            ),
            (
                "its satisfied threads",
                "strace_issue_ready",
                p.ready as u64,
            ),
        ] {
            self.same(dut, what, port, model)?;
        }
        let Some(insn) = self.insn(p.pc) else {
            return Err(self.model(format!("the pick's pc {:#x} is outside the code", p.pc)));
        };
        let kind = engine_op(insn);
        self.same(dut, "the instruction's kind (op)", "strace_op", kind)?;
        match kind {
            op::OTHER => {
                let next = match peek_u64(dut, "strace_next_valid")? {
                    0 => None,
                    _ => Some(peek_u64(dut, "strace_next_pc")?),
                };
                self.ctl.advance(p.id, next);
                return Ok(());
            }
            op::MEMORY => {
                let (mask, ready) = self
                    .ctl
                    .memory_merge(p.id)
                    .expect("a merge without slip always accesses");
                self.same(
                    dut,
                    "the merged group's threads",
                    "strace_mem_mask",
                    mask as u64,
                )?;
                let what = "the merged group's satisfied threads";
                self.same(dut, what, "strace_mem_ready", ready as u64)?;
            }
            _ => {}
        }
        self.ctl.send(p.id);
        self.awaiting[p.warp] = Some(p);
        Ok(())
    }
}
