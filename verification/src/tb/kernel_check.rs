//! The FG-SIMT engine's kernel lockstep checker (seed 000; docs/fgsimt-engine.md,
//! "Lockstep"): a launch's warp instructions and SRF writes, as the engine's `ftrace` and
//! `wtrace` show them, against the SIMT model (`fgsimt::warp::KernelRun`, one run of
//! each warp alone: [`KernelRun::for_warp`]).
//!
//! - Each `ftrace` entry (warp, pc, insn, mask) must be the next [`WarpCommit`] of that
//!   warp's model: the model is stepped by the engine's trace, so the two follow the same
//!   PWFB order. Where the engine's own sequencer picks the groups
//!   ([`KernelShape::followed`]), the model executes the entry's group instead: every
//!   thread of it must be at its pc, and the instruction there must be the entry's. The
//!   engine may interleave warps (memory between them is ordered as the trace orders
//!   their instructions), as its warp contexts allow: a context holds one warp from its
//!   first instruction to its end, and warps go to contexts in index order. So with one
//!   context, warps run one at a time, in order.
//! - Each `wtrace` write (warp `w`, lane `l`, port, register, slot `c`, data) is thread
//!   `w * warp_size + c * lanes + l`'s: it must be that thread's next write of that
//!   register in the model's commits (a queue per thread and register, so the order
//!   across units, lanes and warps is free; the model's x0 is never written). Writes the
//!   engine keeps in the CP's ASRF (classes `Cp`, `UniformBranch`) are not expected in
//!   the SRF, but for an FP operation on uniforms, which the lanes compute for the
//!   fragment's lowest thread (docs/fgsimt-engine.md): that thread's write. The lazy
//!   expansion's materialisation is expected exactly: an instruction for the lanes that
//!   overwrites a compact register while the warp is diverged first writes the
//!   register's old value (the model's entry before the instruction) to the warp's
//!   threads outside the fragment. A write with none pending is an error, except once
//!   the model has trapped: instructions committed past the trap are not checked, nor
//!   their writes.
//! - Atomics: the model performs a warp instruction's AMOs in thread order, the engine in
//!   any order. The old values the engine returns for one address must come from some
//!   order of that instruction's AMOs on it, starting from the value the model's first
//!   one read (checked by replaying the operations, [`replay`]); AMOs with rd = x0 return
//!   nothing and fit anywhere. The model's later use of the returned values still
//!   follows its thread order.
//! - A fault must be the model's trap (cause, pc, lowest thread), as the ISS's
//!   `KernelTrap` reports it: the trap a warp's model met, or that of the faulting
//!   thread's warp.
//! - At the launch's end every warp has run, every model instruction and every expected
//!   write has been seen.
//!
//! The checker takes the traces as values, so it is tested without an engine
//! (`tests/fgsimt_tile.rs` feeds it the model's own commits, shuffled, interleaved
//! across warps and corrupted).

use crate::fgsimt::affine::alu::Compact;
use crate::fgsimt::affine::asrf::{Asrf, Class};
use crate::fgsimt::affine::operands::operands;
use crate::fgsimt::affine::Mechanisms;
use crate::fgsimt::pwfb::Fragment;
use crate::fgsimt::warp::{launch_warps, KernelRun, KernelStats, SimtError, WarpCommit};
use crate::iss::decode::{self, opcode};
use crate::iss::simt::Launch;
use crate::iss::{Iss, IssError};
use crate::tb::memory::amo;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fmt;

/// The engine's shape as the checker needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelShape {
    pub lanes: u32,
    pub warp_size: u32,
    pub mech: Mechanisms,
    /// Warp contexts (the engine's `warps`, 1 or more): warps of a launch resident at
    /// once, their instructions interleaved.
    pub contexts: u32,
    /// The engine's own sequencer chooses each warp's groups (dynamic warp
    /// subdivision): each warp's model follows the trace's groups
    /// ([`KernelRun::step_group`]) instead of stepping in its PWFB's order.
    pub followed: bool,
}

/// A warp instruction as the front end commits it (`ftrace`): the launch's `warp` (its
/// threads' first tid / warp size), and `cp` when the CP completed it (the model's
/// classes `Cp` and `UniformBranch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FetchRecord {
    pub warp: u32,
    pub pc: u64,
    pub insn: u32,
    pub mask: u32,
    pub cp: bool,
}

/// An ASRF write (`atrace`, +a): warp `warp`'s register `reg` (0-31 x, 32-63 f) becomes
/// compact (`ok`: `base`, `stride`) or generic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsrfRecord {
    pub warp: u32,
    pub reg: u8,
    pub ok: bool,
    pub base: u32,
    pub stride: u16,
}

/// One SRF write (`wtrace`): the warp whose register it writes, lane, write port,
/// register (0-31 x, 32-63 f), slot, data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteRecord {
    pub warp: u32,
    pub lane: u32,
    pub port: u32,
    pub reg: u8,
    pub slot: u32,
    pub data: u32,
}

/// A kernel fault (`fault`): cause, pc, lowest faulting thread, tval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultRecord {
    pub cause: u64,
    pub pc: u64,
    pub thread: u32,
    pub tval: u64,
}

/// Where the engine and the model part.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error(
        "warp instruction {index}: the engine committed {actual}, the model's next is {expected}"
    )]
    Insn {
        index: u64,
        expected: String,
        actual: FetchRecord,
    },
    #[error("lane {} port {} wrote {} = {:#x} for thread {thread} (warp {}, slot {}): {why} (the last warp instruction committed: {last})", .write.lane, .write.port, reg_name(.write.reg), .write.data, .write.warp, .write.slot)]
    Write {
        write: WriteRecord,
        thread: u32,
        why: String,
        last: String,
    },
    #[error("the AMOs of the warp instruction at pc {pc:#x} on address {addr:#x} returned {returned}: no order of them starting from {before:#x} gives these old values")]
    Atomics {
        pc: u64,
        addr: u64,
        before: u32,
        returned: String,
    },
    #[error("the engine faulted with cause {} ({}) at pc {:#x} for thread {} (tval {:#x}); {expected}", .fault.cause, crate::exit::cause_name(.fault.cause), .fault.pc, .fault.thread, .fault.tval)]
    Fault {
        fault: FaultRecord,
        expected: String,
    },
    #[error("warp instruction {index}: the ASRF wrote {} {}; the model's entry is {expected}", reg_name(.write.reg), compact_name(.write))]
    Asrf {
        index: u64,
        write: AsrfRecord,
        expected: String,
    },
    #[error("warp instruction {index}: the engine committed {actual}, but the launch of {threads} threads has {warps} warps")]
    NoWarp {
        index: u64,
        actual: FetchRecord,
        threads: u32,
        warps: u32,
    },
    #[error("warp instruction {index}: the engine started warp {} ({actual}) while its {contexts} warp context(s) hold warps {held}", .actual.warp)]
    Contexts {
        index: u64,
        actual: FetchRecord,
        contexts: u32,
        held: String,
    },
    #[error("the engine finished the launch early: {what}")]
    Unfinished { what: String },
    #[error("the model: {0}")]
    Model(#[from] SimtError),
}

impl fmt::Display for FetchRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "warp {} pc {:#x} insn {:#010x} mask {:#x}{}",
            self.warp,
            self.pc,
            self.insn,
            self.mask,
            if self.cp { " in the CP" } else { "" }
        )
    }
}

/// `generic`, `uniform 0x5`, `(0x100, stride -4)`.
fn compact_name(w: &AsrfRecord) -> String {
    match (w.ok, w.stride) {
        (false, _) => "generic".into(),
        (true, 0) => format!("uniform {:#x}", w.base),
        (true, s) => format!("({:#x}, stride {})", w.base, s as i16),
    }
}

/// `x5`, `f3`.
fn reg_name(reg: u8) -> String {
    if reg < 32 {
        format!("x{reg}")
    } else {
        format!("f{}", reg - 32)
    }
}

/// What a thread's next write of a register must be.
#[derive(Debug, Clone, Copy)]
enum Want {
    Value(u32),
    /// The old value of an AMO of group `.0`.
    Amo(usize),
}

/// A warp instruction's AMOs on one address.
#[derive(Debug)]
struct AmoGroup {
    pc: u64,
    addr: u64,
    op: u64,
    /// The value before the first of them (the model's first thread's old value).
    before: u32,
    /// Per thread: its operand and, once the engine wrote it, the old value it got
    /// (`None` and never expected when rd is x0).
    threads: Vec<(u32, u32, Option<u32>)>,
    /// Threads whose old value is still to come.
    waiting: usize,
}

/// The model's trap, which the engine must report as a fault.
#[derive(Debug, Clone, Copy)]
struct Trap {
    tid: u32,
    pc: u64,
    cause: u64,
}

/// The checker of one launch.
pub struct KernelChecker {
    launch: Launch,
    shape: KernelShape,
    /// The model of each warp that started and has not been seen to end (a run of the
    /// warp alone); a run seen to end leaves its counts in `ended`.
    runs: BTreeMap<u32, KernelRun>,
    ended: KernelStats,
    /// Per warp of the launch: its first instruction arrived (or its fault).
    started: Vec<bool>,
    /// The lowest warp not started.
    unstarted: u32,
    /// The warp of the last warp instruction matched, and that instruction.
    warp: u32,
    last: Option<FetchRecord>,
    writes: HashMap<(u32, u8), VecDeque<Want>>,
    amos: Vec<AmoGroup>,
    /// The model trapped (the engine must fault; instructions it committed past the trap
    /// are not checked).
    trap: Option<Trap>,
    /// The model's warp instruction [`KernelChecker::insn`] matched last, until taken.
    matched: Option<WarpCommit>,
    pub insns: u64,
    pub writes_checked: u64,

    /// Base addresses of the pages the model's threads stored to.
    pub stored_pages: BTreeSet<u64>,
}

impl KernelChecker {
    /// Starts checking `launch` (each warp's model starts from the ISS at its first
    /// instruction).
    pub fn new(launch: Launch, shape: KernelShape) -> KernelChecker {
        let warps = launch_warps(launch, shape.warp_size);
        KernelChecker {
            launch,
            shape,
            runs: BTreeMap::new(),
            ended: KernelStats::default(),
            started: vec![false; warps as usize],
            unstarted: 0,
            warp: 0,
            last: None,
            writes: HashMap::new(),
            amos: Vec::new(),
            trap: None,
            matched: None,
            insns: 0,
            writes_checked: 0,
            stored_pages: BTreeSet::new(),
        }
    }

    /// The model's counts so far, over the warps started.
    pub fn stats(&self) -> KernelStats {
        self.runs.values().fold(self.ended, |mut s, r| {
            s += r.stats;
            s
        })
    }

    /// The next warp instruction of `warp`'s model (a started warp), or its trap
    /// (`Ok(None)` at the warp's end, or once it was seen to end). With `group`, the
    /// model executes that group (the engine's choice) rather than its PWFB's next.
    fn next(
        &mut self,
        iss: &mut Iss,
        warp: u32,
        group: Option<Fragment>,
    ) -> Result<Option<WarpCommit>, KernelError> {
        let Some(run) = self.runs.get_mut(&warp) else {
            return Ok(None);
        };
        let step = match group {
            Some(g) if !run.finished() => run.step_group(iss, g).map(Some),
            Some(_) => Ok(None),
            None => run.step(iss),
        };
        match step {
            Ok(c) => Ok(c),
            Err(SimtError::Iss(IssError::KernelTrap { tid, pc, cause, .. })) => {
                self.trap = Some(Trap { tid, pc, cause });
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Starts the model of `warp` (of the launch, not started) from the ISS as it is.
    fn open(&mut self, iss: &Iss, warp: u32) {
        let s = self.shape;
        let run = KernelRun::for_warp(iss, self.launch, s.warp_size, s.mech, warp);
        self.runs.insert(warp, run);
        self.started[warp as usize] = true;
        while self.started.get(self.unstarted as usize) == Some(&true) {
            self.unstarted += 1;
        }
    }

    /// Drops the runs that have ended, keeping their counts.
    fn close_finished(&mut self) {
        let ended = &mut self.ended;
        self.runs.retain(|_, r| {
            let done = r.finished();
            if done {
                *ended += r.stats;
            }
            !done
        });
    }

    /// Starts the model of `actual`'s warp at its first instruction (number `index`),
    /// where the engine's contexts allow it. A context holds a warp from its first
    /// instruction to its end, and the engine hands warps to contexts in index order; so
    /// the warps started and not ended (runs seen to end are closed first), those below
    /// the new one not started yet (each already in a context) and the new one must fit
    /// in `contexts`.
    fn start(&mut self, iss: &Iss, index: u64, actual: FetchRecord) -> Result<(), KernelError> {
        let warp = actual.warp;
        if warp as usize >= self.started.len() {
            return Err(KernelError::NoWarp {
                index,
                actual,
                threads: self.launch.n,
                warps: self.started.len() as u32,
            });
        }
        if self.started[warp as usize] {
            return Ok(());
        }
        self.close_finished();
        let contexts = self.shape.contexts as usize;
        let mut held: Vec<(u32, &str)> = self.runs.keys().map(|&w| (w, "not ended")).collect();
        let waiting = (self.unstarted..warp).filter(|&w| !self.started[w as usize]);
        held.extend(waiting.take(contexts).map(|w| (w, "not started")));
        if held.len() >= contexts {
            held.sort_unstable();
            let held: Vec<String> = held.iter().map(|(w, s)| format!("{w} ({s})")).collect();
            return Err(KernelError::Contexts {
                index,
                actual,
                contexts: self.shape.contexts,
                held: held.join(", "),
            });
        }
        self.open(iss, warp);
        Ok(())
    }

    /// Checks a warp instruction the front end committed: its warp's model's next.
    pub fn insn(&mut self, iss: &mut Iss, actual: FetchRecord) -> Result<(), KernelError> {
        if self.trap.is_some() {
            return Ok(());
        }
        let index = self.insns;
        self.start(iss, index, actual)?;
        let warp = actual.warp;
        let before = self.runs.get(&warp).and_then(KernelRun::asrf).cloned();
        let group = (self.shape.followed).then_some(Fragment {
            pc: actual.pc,
            mask: actual.mask,
        });
        let Some(c) = self.next(iss, warp, group)? else {
            if self.trap.is_some() {
                return Ok(());
            }
            return Err(KernelError::Insn {
                index,
                expected: format!("the end of warp {warp}"),
                actual,
            });
        };
        let expected = FetchRecord {
            warp: c.warp,
            pc: c.pc,
            insn: c.insn,
            mask: c.mask,
            cp: matches!(c.class, Class::Cp | Class::UniformBranch),
        };
        if expected != actual {
            return Err(KernelError::Insn {
                index,
                expected: expected.to_string(),
                actual,
            });
        }
        self.insns += 1;
        self.last = Some(actual);
        self.warp = c.warp;
        let stores = c.threads.iter().filter_map(|t| t.store);
        self.stored_pages.extend(stores.map(|(a, _, _)| a & !0xfff));
        match c.class {
            Class::Cp if is_fp_op(c.insn) => self.expect_lowest_write(&c),
            Class::Cp | Class::UniformBranch => {}
            _ => {
                if let (true, false, Some(before)) = (self.shape.mech.arith, c.converged, before) {
                    self.expect_materialization(&c, &before);
                }
                self.expect_writes(&c);
            }
        }
        self.matched = Some(c);
        Ok(())
    }

    /// The model's warp instruction the last [`KernelChecker::insn`] matched (its
    /// threads' commits), once.
    pub fn take_matched(&mut self) -> Option<WarpCommit> {
        self.matched.take()
    }

    /// The write of the lowest active thread (an FP operation on uniforms, computed by
    /// the lanes for that thread alone).
    fn expect_lowest_write(&mut self, c: &WarpCommit) {
        let tid = c.warp * self.shape.warp_size + c.mask.trailing_zeros();
        let t = &c.threads[0];
        let f = t.freg.map(|(r, v)| (r + 32, v));
        if let Some((reg, v)) = t.xreg.into_iter().chain(f).next() {
            self.queue(tid, reg).push_back(Want::Value(v as u32));
        }
    }

    /// The old value of `c`'s destination, when the ASRF held it (`before`, the model's
    /// entry before `c`), for the warp's threads outside `c`'s fragment.
    fn expect_materialization(&mut self, c: &WarpCommit, before: &Asrf) {
        let ops = operands(c.insn);
        let (reg, old) = match (ops.xd, ops.fd) {
            (Some(r), _) => (r as u8, before.x(r)),
            (_, Some(r)) => ((r + 32) as u8, before.f(r).map(Compact::uniform)),
            _ => return,
        };
        let Some(old) = old else { return };
        let first = c.warp * self.shape.warp_size;
        for i in (0..self.shape.warp_size).filter(|i| c.mask >> i & 1 == 0) {
            if first + i < self.launch.n {
                self.queue(first + i, reg).push_back(Want::Value(old.at(i)));
            }
        }
    }

    /// Queues the register writes of `c`'s threads.
    fn expect_writes(&mut self, c: &WarpCommit) {
        let first = c.warp * self.shape.warp_size;
        let tids = (0..32).filter(|i| c.mask >> i & 1 != 0).map(|i| first + i);
        let is_amo = c.insn & 0x7f == opcode::AMO && !matches!(c.insn >> 27, 2 | 3);
        if is_amo {
            self.expect_amos(c, &tids.collect::<Vec<_>>());
            return;
        }
        for (tid, t) in tids.zip(&c.threads) {
            let x = t.xreg;
            let f = t.freg.map(|(r, v)| (r + 32, v));
            for (reg, v) in x.into_iter().chain(f) {
                self.queue(tid, reg).push_back(Want::Value(v as u32));
            }
        }
    }

    fn queue(&mut self, tid: u32, reg: u8) -> &mut VecDeque<Want> {
        self.writes.entry((tid, reg)).or_default()
    }

    /// Groups an AMO warp instruction's threads by address.
    fn expect_amos(&mut self, c: &WarpCommit, tids: &[u32]) {
        let (rd, rs2) = (decode::rd(c.insn) as u8, decode::rs2(c.insn));
        let op = amo_op(c.insn >> 27);
        for (&tid, t) in tids.iter().zip(&c.threads) {
            let addr = t.load.unwrap_or(0);
            let old = t.xreg.map_or(0, |(_, v)| v) as u32;
            let new = t.store.map_or(0, |(_, v, _)| v) as u32;
            let src = self.operand(tid, rs2, rd, (op, old, new));
            let g = match self
                .amos
                .iter()
                .position(|g| g.pc == c.pc && g.addr == addr && g.waiting > 0)
            {
                Some(g) => g,
                None => {
                    self.amos.push(AmoGroup {
                        pc: c.pc,
                        addr,
                        op,
                        before: old,
                        threads: Vec::new(),
                        waiting: 0,
                    });
                    self.amos.len() - 1
                }
            };
            self.amos[g].threads.push((tid, src, None));
            if rd != 0 {
                self.amos[g].waiting += 1;
                self.queue(tid, rd).push_back(Want::Amo(g));
            }
        }
    }

    /// An AMO's operand: rs2 of the thread after it ran (unchanged unless rd = rs2),
    /// else recovered from the old and new values where the operation allows.
    fn operand(&self, tid: u32, rs2: usize, rd: u8, (op, old, new): (u64, u32, u32)) -> u32 {
        if rd as usize != rs2 {
            let run = self.runs.get(&(tid / self.shape.warp_size));
            if let Some(t) = run.and_then(|r| r.thread(tid)) {
                return t.x(rs2) as u32;
            }
        }
        match op {
            amo::ADD => new.wrapping_sub(old),
            amo::XOR => new ^ old,
            _ => new,
        }
    }

    /// Checks one SRF write.
    pub fn write(&mut self, w: WriteRecord) -> Result<(), KernelError> {
        let s = self.shape;
        let thread = w.warp * s.warp_size + w.slot * s.lanes + w.lane;
        let last = match self.last {
            Some(r) => format!("number {}, {r}", self.insns - 1),
            None => "none".into(),
        };
        let fail = |why: String| KernelError::Write {
            write: w,
            thread,
            why,
            last,
        };
        if w.reg == 0 {
            return Ok(());
        }
        let Some(want) = self
            .writes
            .get_mut(&(thread, w.reg))
            .and_then(VecDeque::pop_front)
        else {
            // An instruction the engine committed past the model's trap (another warp's,
            // issued before the fault stopped the engine) is not checked, nor its writes.
            if self.trap.is_some() {
                return Ok(());
            }
            return Err(fail(format!(
                "the model has no pending write of {} for that thread",
                reg_name(w.reg)
            )));
        };
        self.writes_checked += 1;
        match want {
            Want::Value(v) if v == w.data => Ok(()),
            Want::Value(v) => Err(fail(format!("the model's next write of it is {v:#x}"))),
            Want::Amo(g) => self.amo_result(g, thread, w.data),
        }
    }

    /// Checks an ASRF write of warp `w.warp` against its model's entry after the warp's
    /// instruction last matched (base and stride only for a compact entry; a shared
    /// load's value arrives after later instructions of its warp, which do not touch its
    /// destination).
    pub fn asrf(&mut self, w: AsrfRecord) -> Result<(), KernelError> {
        if self.trap.is_some() {
            return Ok(());
        }
        let r = (w.reg % 32) as usize;
        let model = match self.runs.get(&w.warp).and_then(KernelRun::asrf) {
            Some(a) if w.reg < 32 => a.x(r).map(|c| (c.base, c.stride as u16)),
            Some(a) => a.f(r).map(|v| (v, 0)),
            None => None,
        };
        let want = AsrfRecord {
            warp: w.warp,
            reg: w.reg,
            ok: model.is_some(),
            base: model.map_or(w.base, |m| m.0),
            stride: model.map_or(w.stride, |m| m.1),
        };
        if want == w {
            return Ok(());
        }
        Err(KernelError::Asrf {
            index: self.insns.saturating_sub(1),
            write: w,
            expected: compact_name(&want),
        })
    }

    /// Records an AMO's old value; replays the group once every value is in.
    fn amo_result(&mut self, g: usize, tid: u32, got: u32) -> Result<(), KernelError> {
        let group = &mut self.amos[g];
        if let Some(t) = group.threads.iter_mut().find(|t| t.0 == tid) {
            t.2 = Some(got);
        }
        group.waiting -= 1;
        if group.waiting > 0 || replay(group.op, group.before, &group.threads) {
            return Ok(());
        }
        let returned = group
            .threads
            .iter()
            .filter_map(|&(t, _, r)| r.map(|r| format!("thread {t}: {r:#x}")))
            .collect::<Vec<_>>()
            .join(", ");
        Err(KernelError::Atomics {
            pc: group.pc,
            addr: group.addr,
            before: group.before,
            returned,
        })
    }

    /// Checks the engine's fault against the model's trap: the trap the models met, else
    /// that of the faulting thread's warp (its model started if need be and stepped to
    /// the trap, the engine having faulted before committing the instruction).
    pub fn fault(&mut self, iss: &mut Iss, fault: FaultRecord) -> Result<(), KernelError> {
        let warp = fault.thread / self.shape.warp_size;
        let in_launch = (warp as usize) < self.started.len();
        if self.trap.is_none() && in_launch {
            if !self.started[warp as usize] {
                self.open(iss, warp);
            }
            while self.trap.is_none() {
                let group = self.alone(fault);
                if self.shape.followed && group.is_none() || self.next(iss, warp, group)?.is_none()
                {
                    break;
                }
            }
        }
        let expected = match self.trap {
            Some(t) if (t.cause, t.pc, t.tid) == (fault.cause, fault.pc, fault.thread) => {
                return Ok(())
            }
            Some(t) => format!(
                "the model's thread {} traps at pc {:#x} with cause {} ({})",
                t.tid,
                t.pc,
                t.cause,
                crate::exit::cause_name(t.cause)
            ),
            None if in_launch && self.shape.followed => format!(
                "the model runs thread {} to its end without a trap",
                fault.thread
            ),
            None if in_launch => format!("the model runs warp {warp} to its end without a trap"),
            None => format!("the launch has {} threads", self.launch.n),
        };
        Err(KernelError::Fault { fault, expected })
    }

    /// With the engine's own groups: the faulting thread alone at its pc, the group
    /// that steps it towards its trap (`None`: the PWFB's order, or the thread ended).
    fn alone(&self, fault: FaultRecord) -> Option<Fragment> {
        let s = self.shape;
        let run = self.runs.get(&(fault.thread / s.warp_size))?;
        let t = run.thread(fault.thread).filter(|t| !t.exited())?;
        s.followed.then_some(Fragment {
            pc: t.pc(),
            mask: 1 << (fault.thread % s.warp_size),
        })
    }

    /// The model's trap as the reason a launch the engine finished is unfinished.
    fn trapped(&self) -> Result<(), KernelError> {
        match self.trap {
            Some(t) => Err(KernelError::Unfinished {
                what: format!(
                    "the model's thread {} traps at pc {:#x} (cause {})",
                    t.tid, t.pc, t.cause
                ),
            }),
            None => Ok(()),
        }
    }

    /// Checks that the launch is complete: every warp of it ran (unless it has no
    /// threads), its model has no instruction left and does not trap, and every write it
    /// expects has been seen.
    pub fn finish(&mut self, iss: &mut Iss) -> Result<(), KernelError> {
        let unfinished = |what: String| Err(KernelError::Unfinished { what });
        self.trapped()?;
        for warp in self.runs.keys().copied().collect::<Vec<_>>() {
            if self.shape.followed {
                let run = &self.runs[&warp];
                let ws = self.shape.warp_size;
                if let Some(t) = (warp * ws..((warp + 1) * ws).min(self.launch.n))
                    .filter_map(|tid| run.thread(tid))
                    .find(|t| !t.exited())
                {
                    return unfinished(format!(
                        "thread {} of warp {warp} (at pc {:#x}) never ended",
                        t.tid,
                        t.pc()
                    ));
                }
                continue;
            }
            if let Some(c) = self.next(iss, warp, None)? {
                return unfinished(format!(
                    "the model's next warp instruction of warp {warp} (pc {:#x}, mask {:#x}) \
                     was never committed",
                    c.pc, c.mask
                ));
            }
        }
        self.trapped()?;
        self.close_finished();
        if let Some(warp) = self.started.iter().position(|s| !s) {
            return unfinished(format!("warp {warp} never ran"));
        }
        let mut left: Vec<(u32, u8)> = self
            .writes
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(&k, _)| k)
            .collect();
        left.sort_unstable();
        if let Some(&(tid, reg)) = left.first() {
            return unfinished(format!(
                "thread {tid}'s write of {} was never seen ({} register queues left)",
                reg_name(reg),
                left.len()
            ));
        }
        Ok(())
    }
}

/// An RV32F operation (OP-FP or a fused multiply-add), not a load or store.
fn is_fp_op(insn: u32) -> bool {
    matches!(
        insn & 0x7f,
        opcode::OP_FP | opcode::MADD | opcode::MSUB | opcode::NMSUB | opcode::NMADD
    )
}

/// The memory model's AMO code of an AMO's funct5.
fn amo_op(funct5: u32) -> u64 {
    match funct5 {
        0x00 => amo::ADD,
        0x01 => amo::SWAP,
        0x04 => amo::XOR,
        0x0c => amo::AND,
        0x08 => amo::OR,
        0x10 => amo::MIN,
        0x14 => amo::MAX,
        0x18 => amo::MINU,
        _ => amo::MAXU,
    }
}

/// Whether some order of the AMOs `threads` (thread, operand, old value returned: `None`
/// fits anywhere) of operation `op`, starting from `before`, returns each its old value.
pub fn replay(op: u64, before: u32, threads: &[(u32, u32, Option<u32>)]) -> bool {
    fn go(op: u64, v: u32, left: &mut Vec<(u32, u32, Option<u32>)>, budget: &mut u32) -> bool {
        if left.is_empty() {
            return true;
        }
        for i in 0..left.len() {
            if *budget == 0 {
                return false;
            }
            let (_, src, got) = left[i];
            if got.is_some_and(|g| g != v) {
                continue;
            }
            *budget -= 1;
            let t = left.remove(i);
            let next = amo::apply(op, 4, v as u64, src as u64).unwrap_or(0) as u32;
            if go(op, next, left, budget) {
                return true;
            }
            left.insert(i, t);
        }
        false
    }
    let mut left = threads.to_vec();
    go(op, before, &mut left, &mut 100_000)
}
