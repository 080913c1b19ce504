//! SPMD kernel launches (`kernels/runtime/simt.h`): the golden model of the FG-SIMT
//! engine and the VGIW fabric runs a launch's threads one after another on this hart.
//!
//! The instructions (custom-0, RoCC-style funct3 = {xd, xs1, xs2}):
//! - `tidx rd` (funct7 0, funct3 4): the running thread's index; illegal on the host.
//! - `launch rs1, rs2` (funct7 1, funct3 7, rd x0): runs the kernel at address rs2 on
//!   threads 0..rs1-1 and retires when all have returned; illegal in a kernel. xd is set
//!   so that a RoCC-attached engine's response is what the control processor waits for.
//! - `stack rs1, rs2` (funct7 2, funct3 3): thread `t` of later launches starts with
//!   sp = rs1 - t * rs2; illegal in a kernel.
//! - `globals rs1, rs2` (funct7 3, funct3 3): threads of later launches start with gp =
//!   rs1, tp = rs2; illegal in a kernel.
//!
//! A thread starts at the entry with every integer register zero except ra =
//! [`EXIT_PC`] (returning ends the thread), sp, gp and tp as above;
//! f registers +0.0 and fcsr 0 (dynamic rounding is to nearest even; the flags a thread
//! accrues are not observable). In a kernel, CSR instructions are illegal (the engine
//! keeps no per-thread CSRs), and any trap is an error of the run
//! ([`super::IssError::KernelTrap`]): kernels have no trap handler.

use super::commitlog::Commit;
use super::decode::{self, opcode};
use super::exec::Event;
use super::{Iss, IssError, Stop};
use std::io::Write;

/// Jumping here ends a thread (its initial ra).
pub const EXIT_PC: u64 = 0;

/// The funct7 values of the SIMT instructions on custom-0.
mod funct7 {
    pub const TIDX: u32 = 0;
    pub const LAUNCH: u32 = 1;
    pub const STACK: u32 = 2;
    pub const GLOBALS: u32 = 3;
}

/// One launch: `n` threads of the kernel at `entry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    pub n: u32,
    pub entry: u64,
}

/// The launch state of the hart: the stack layout set by `stack`, the gp and tp set by
/// `globals`, the thread running now (none on the host) and whether `step_one` hands
/// launches to its caller ([`Iss::defer_launches`]).
#[derive(Debug, Default)]
pub(super) struct Simt {
    stack_top: u64,
    stack_bytes: u64,
    gp: u64,
    tp: u64,
    thread: Option<u32>,
    pub(super) deferred: bool,
}

/// One thread of a launch, stepped by [`Iss::step_thread`] (for models that interleave
/// threads, such as the SIMT engine's).
#[derive(Clone)]
pub struct Thread {
    pub tid: u32,
    ctx: Context,
}

impl Thread {
    /// The thread's pc ([`EXIT_PC`] once it has returned).
    pub fn pc(&self) -> u64 {
        self.ctx.pc
    }

    /// Integer register `r`.
    pub fn x(&self, r: usize) -> u64 {
        self.ctx.x[r]
    }

    /// f register `r` (NaN-boxed as the hart keeps it).
    pub fn f(&self, r: usize) -> u64 {
        self.ctx.f[r]
    }

    /// Whether the thread has returned.
    pub fn exited(&self) -> bool {
        self.ctx.pc == EXIT_PC
    }

    /// The memory access `insn` makes for this thread, before it executes: (address,
    /// bytes, whether it writes), or `None` if it is no load, store or AMO. LR reads; SC
    /// and AMOs write.
    pub fn access(&self, insn: u32) -> Option<(u64, u64, bool)> {
        let base = self.x(decode::rs1(insn));
        let size = 1u64 << (decode::funct3(insn) & 3);
        let (offset, size, write) = match insn & 0x7f {
            opcode::LOAD | opcode::LOAD_FP => (decode::imm_i(insn), size, false),
            opcode::STORE | opcode::STORE_FP => (decode::imm_s(insn), size, true),
            opcode::AMO => (0, 4, insn >> 27 != 0b00010),
            _ => return None,
        };
        Some((base.wrapping_add(offset) & 0xffff_ffff, size, write))
    }
}

/// The architectural state a thread switch saves and restores.
#[derive(Clone)]
struct Context {
    x: [u64; 32],
    f: [u64; 32],
    f_written: u32,
    pc: u64,
    fflags: u8,
    frm: u8,
    reservation: Option<u64>,
}

impl Iss {
    /// Turns on the SIMT instructions (custom-0 stops going to a RoCC accelerator).
    pub fn enable_simt(&mut self) {
        self.simt = Some(Simt::default());
    }

    /// Makes `step_one` return [`super::Step::Launch`] at a launch instead of running its
    /// threads; the caller runs them ([`Iss::launch_thread`], [`Iss::step_thread`]) and
    /// then retires the launch with [`Iss::finish_launch`].
    pub fn defer_launches(&mut self) {
        if let Some(simt) = self.simt.as_mut() {
            simt.deferred = true;
        }
    }

    /// Thread `tid` of `launch` at its start.
    pub fn launch_thread(&self, launch: Launch, tid: u32) -> Thread {
        Thread {
            tid,
            ctx: self.thread_context(launch, tid),
        }
    }

    /// Executes one instruction of `thread` (which must not have exited): its commit
    /// (pc, instruction, register write, memory access). A trap is a
    /// [`IssError::KernelTrap`] of a launch of `n` threads.
    pub fn step_thread(&mut self, thread: &mut Thread, n: u32) -> Result<Commit, IssError> {
        let host = self.save_context();
        self.restore_context(thread.ctx.clone());
        self.set_thread(Some(thread.tid));
        let mut commit = Commit::default();
        let pc = self.pc;
        let outcome = self.step::<true>(&mut commit);
        thread.ctx = self.save_context();
        self.set_thread(None);
        self.restore_context(host);
        match outcome {
            Ok(()) => {
                self.thread_retired += 1;
                self.kernel_steps += 1;
                Ok(commit)
            }
            Err(Event::Trap { cause, tval }) => Err(IssError::KernelTrap {
                tid: thread.tid,
                n,
                pc,
                cause,
                tval,
            }),
            Err(Event::Abort(source)) => Err(self.abort(*source)),
            Err(Event::Launch(_)) => unreachable!("launch is illegal in a kernel"),
        }
    }

    /// Retires a launch `step_one` returned deferred, once its threads have run.
    pub fn finish_launch(&mut self) -> Commit {
        let mut commit = Commit {
            pc: self.pc,
            ..Commit::default()
        };
        if let Some(b) = self.mem.read_bytes::<4>(self.pc) {
            commit.insn = u32::from_le_bytes(b);
        }
        self.chunk_left = self.chunk_left.saturating_sub(1);
        self.pass_launch();
        commit
    }

    /// Moves past a launch instruction whose threads have all run: it retires.
    fn pass_launch(&mut self) {
        self.pc = self.isa.xlen.address(self.pc.wrapping_add(4));
        self.retired += 1;
    }

    /// What the threads of later launches start from (`stack`, `globals`): the stack
    /// top, the stack bytes a thread, gp and tp; `None` with SIMT off.
    pub fn launch_constants(&self) -> Option<[u64; 4]> {
        (self.simt.as_ref()).map(|s| [s.stack_top, s.stack_bytes, s.gp, s.tp])
    }

    /// The thread running now, if a kernel is.
    pub fn current_thread(&self) -> Option<u32> {
        self.simt.as_ref().and_then(|s| s.thread)
    }

    /// Whether CSR instructions are allowed where the hart is: not in a kernel.
    pub(super) fn csr_allowed(&self) -> bool {
        self.current_thread().is_none()
    }

    /// A custom-0 instruction with SIMT on; `Err(None)` is an illegal instruction.
    pub(super) fn simt_op<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        rs1: u64,
        rs2: u64,
    ) -> Result<(), Option<Event>> {
        let simt = self.simt.as_mut().ok_or(None)?;
        let in_kernel = simt.thread.is_some();
        let (f7, f3) = (insn >> 25, decode::funct3(insn));
        match (f7, f3, in_kernel) {
            (funct7::TIDX, 4, true) if decode::rs1(insn) == 0 && decode::rs2(insn) == 0 => {
                let tid = simt.thread.unwrap_or(0) as u64;
                self.set_x::<LOG>(c, decode::rd(insn), tid);
                Ok(())
            }
            (funct7::STACK, 3, false) if decode::rd(insn) == 0 => {
                simt.stack_top = self.isa.xlen.address(rs1);
                simt.stack_bytes = self.isa.xlen.address(rs2);
                Ok(())
            }
            (funct7::GLOBALS, 3, false) if decode::rd(insn) == 0 => {
                simt.gp = rs1;
                simt.tp = rs2;
                Ok(())
            }
            (funct7::LAUNCH, 7, false) if decode::rd(insn) == 0 => {
                let launch = Launch {
                    n: rs1 as u32,
                    entry: self.isa.xlen.address(rs2),
                };
                Err(Some(Event::Launch(launch)))
            }
            _ => Err(None),
        }
    }

    fn save_context(&self) -> Context {
        Context {
            x: self.x,
            f: self.f,
            f_written: self.f_written,
            pc: self.pc,
            fflags: self.csrs.fflags,
            frm: self.csrs.frm,
            reservation: self.reservation,
        }
    }

    fn restore_context(&mut self, ctx: Context) {
        self.x = ctx.x;
        self.f = ctx.f;
        self.f_written = ctx.f_written;
        self.pc = ctx.pc;
        self.csrs.fflags = ctx.fflags;
        self.csrs.frm = ctx.frm;
        self.reservation = ctx.reservation;
    }

    /// Thread `tid`'s initial state.
    fn thread_context(&self, launch: Launch, tid: u32) -> Context {
        let simt = self.simt.as_ref().expect("a launch needs SIMT on");
        let mut x = [0; 32];
        x[1] = EXIT_PC;
        let sp = simt
            .stack_top
            .wrapping_sub((tid as u64).wrapping_mul(simt.stack_bytes));
        x[2] = self.isa.xlen.sext(sp);
        x[3] = simt.gp;
        x[4] = simt.tp;
        Context {
            x,
            // +0.0 in every f register, NaN-boxed as the hart keeps singles.
            f: [if self.isa.flen() == 64 {
                0
            } else {
                0xffff_ffff << 32
            }; 32],
            f_written: u32::MAX,
            pc: launch.entry,
            fflags: 0,
            frm: 0,
            reservation: None,
        }
    }

    /// Runs every thread of `launch` to its end, counting each thread's start and each
    /// of its instructions against `budget`: the budget left, or `None` if it ran out
    /// first. The host's registers are as before; with `LOG`, each thread's instructions
    /// are logged after a line naming it.
    pub(super) fn run_launch<const LOG: bool>(
        &mut self,
        launch: Launch,
        budget: u64,
        log: &mut dyn Write,
    ) -> Result<Option<u64>, IssError> {
        let host = self.save_context();
        let result = self.run_threads::<LOG>(launch, budget, log);
        self.set_thread(None);
        self.restore_context(host);
        result
    }

    fn run_threads<const LOG: bool>(
        &mut self,
        launch: Launch,
        mut budget: u64,
        log: &mut dyn Write,
    ) -> Result<Option<u64>, IssError> {
        let widths = self.log_widths();
        let mut commit = Commit::default();
        for tid in 0..launch.n {
            self.restore_context(self.thread_context(launch, tid));
            self.set_thread(Some(tid));
            if LOG {
                writeln!(log, "core   0: >>>> simt thread {tid}").map_err(IssError::Log)?;
            }
            loop {
                if budget == 0 {
                    return Ok(None);
                }
                budget -= 1;
                if self.pc == EXIT_PC {
                    break;
                }
                let pc = self.pc;
                match self.step::<LOG>(&mut commit) {
                    Ok(()) => {
                        self.thread_retired += 1;
                        if LOG {
                            commit.write_line(log, widths).map_err(IssError::Log)?;
                        }
                    }
                    Err(Event::Trap { cause, tval }) => {
                        return Err(IssError::KernelTrap {
                            tid,
                            n: launch.n,
                            pc,
                            cause,
                            tval,
                        })
                    }
                    Err(Event::Abort(source)) => return Err(self.abort(*source)),
                    Err(Event::Launch(_)) => unreachable!("launch is illegal in a kernel"),
                }
            }
        }
        Ok(Some(budget))
    }

    fn set_thread(&mut self, tid: Option<u32>) {
        if let Some(simt) = self.simt.as_mut() {
            simt.thread = tid;
        }
    }

    /// Completes a launch instruction at `pc` whose threads have all run: it retires and
    /// is logged.
    pub(super) fn retire_launch<const LOG: bool>(
        &mut self,
        commit: &Commit,
        log: &mut dyn Write,
    ) -> Result<(), IssError> {
        self.pass_launch();
        if LOG {
            commit
                .write_line(log, self.log_widths())
                .map_err(IssError::Log)?;
        }
        Ok(())
    }

    /// Runs a launch within the step limit `max` (steps so far counted), for `run`: the
    /// stop it reached, if any.
    pub(super) fn launch_within<const LOG: bool>(
        &mut self,
        launch: Launch,
        commit: &Commit,
        max: Option<u64>,
        log: &mut dyn Write,
    ) -> Result<Option<Stop>, IssError> {
        let budget = max.map_or(u64::MAX, |m| m.saturating_sub(self.steps()));
        let left = self.run_launch::<LOG>(launch, budget, log)?;
        self.kernel_steps += budget - left.unwrap_or(0);
        match left {
            Some(_) => {
                self.retire_launch::<LOG>(commit, log)?;
                Ok(None)
            }
            None => Ok(Some(Stop::InstretLimit)),
        }
    }
}

/// Whether `insn` is on custom-0 (the SIMT instructions' opcode).
pub(super) fn is_custom0(insn: u32) -> bool {
    insn & 0x7f == opcode::CUSTOM0
}
