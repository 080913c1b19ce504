//! RV64IMAFD and RV32IMAFD (+ Zicsr, Zifencei) instruction-set simulator: the control
//! processor's golden model and the host side of every accelerator test.
//!
//! Machine mode only. The register width comes from the program (its ELF class); F and D
//! are configured ([`IssConfig::fp`]): without them their encodings raise an
//! illegal-instruction trap, as on the Rocket designs. No interrupt sources are modelled
//! (`mip` reads 0). On RV32 the integer registers hold their 32-bit values sign-extended
//! to 64 bits, and addresses and the pc are the low 32 bits.
//!
//! Execution is organised like Spike's: the hart runs in chunks of
//! [`CHUNK`] instructions; a trap ends a chunk early; between chunks the
//! host polls `tohost`, the timer advances and any LR reservation is dropped. Matching
//! this schedule makes polling loops, `time` reads and LR/SC outcomes identical to
//! Spike's, so commit logs can be compared exactly.

pub mod commitlog;
pub mod csr;
pub mod decode;
mod exec;
mod fp;
pub mod htif;
pub mod mem;
pub mod rocc;
pub mod simt;

use crate::elf::Program;
use commitlog::Commit;
use csr::Csrs;
use exec::Event;
use htif::{Htif, HtifError};
use mem::Memory;
use rocc::{RoccAccelerator, RoccError};
use simt::Simt;
use std::io::{self, Write};

/// Instructions per execution chunk (Spike's INTERLEAVE).
pub const CHUNK: u64 = 5000;
/// The most steps one kernel launch may take under [`Iss::step_one`] (which has no step
/// limit of its own): about ten seconds of the ISS.
pub const KERNEL_STEP_LIMIT: u64 = 1_000_000_000;
/// Timer ticks per chunk (Spike: one tick per 100 instructions, applied per chunk).
pub const TICKS_PER_CHUNK: u64 = CHUNK / 100;

/// Errors that stop a simulation (as opposed to traps, which the program handles).
#[derive(Debug, thiserror::Error)]
pub enum IssError {
    #[error(
        "ELF segment at {addr:#x} (+{len} bytes) is outside simulated RAM {base:#x}..{end:#x}"
    )]
    SegmentOutsideRam {
        addr: u64,
        len: u64,
        base: u64,
        end: u64,
    },
    #[error(transparent)]
    Htif(#[from] HtifError),
    #[error("writing the commit log failed: {0}")]
    Log(io::Error),
    #[error(
        "kernel thread {tid} of {n} trapped at pc {pc:#x}: {} (mcause {cause}, mtval {tval:#x}); \
         kernels have no trap handler",
        crate::exit::cause_name(*cause)
    )]
    KernelTrap {
        tid: u32,
        n: u32,
        pc: u64,
        cause: u64,
        tval: u64,
    },
    #[error("a kernel launch ran {limit} steps without all its threads returning")]
    KernelStepLimit { limit: u64 },
    #[error("at pc {pc:#x}: {source}")]
    Accelerator {
        pc: u64,
        #[source]
        source: RoccError,
    },
}

/// The integer register width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Xlen {
    Rv32,
    #[default]
    Rv64,
}

impl Xlen {
    /// Bits in a register.
    pub fn bits(self) -> u32 {
        match self {
            Xlen::Rv32 => 32,
            Xlen::Rv64 => 64,
        }
    }

    /// `v` as an address or pc: its low XLEN bits.
    #[inline(always)]
    pub fn address(self, v: u64) -> u64 {
        match self {
            Xlen::Rv32 => v as u32 as u64,
            Xlen::Rv64 => v,
        }
    }

    /// `v` as a register holds it: on RV32, its low 32 bits sign-extended.
    #[inline(always)]
    pub fn sext(self, v: u64) -> u64 {
        match self {
            Xlen::Rv32 => v as i32 as i64 as u64,
            Xlen::Rv64 => v,
        }
    }
}

/// The floating-point extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FpExt {
    /// Neither F nor D (the Rocket designs' ISA).
    #[default]
    None,
    F,
    FD,
}

/// The hart's ISA: IMA + Zicsr + Zifencei + Zicntr, the register width and the
/// floating-point extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Isa {
    pub xlen: Xlen,
    pub fp: FpExt,
}

impl Isa {
    /// Bits in an f register (Spike's FLEN; 0 without F).
    pub fn flen(self) -> u32 {
        match self.fp {
            FpExt::None => 0,
            FpExt::F => 32,
            FpExt::FD => 64,
        }
    }

    /// Spike's `--isa` value for this ISA.
    pub fn spike_isa(self) -> String {
        let fp = match self.fp {
            FpExt::None => "",
            FpExt::F => "f",
            FpExt::FD => "fd",
        };
        format!("rv{}ima{fp}_zicsr_zifencei_zicntr", self.xlen.bits())
    }
}

/// Machine configuration.
pub struct IssConfig {
    /// The floating-point extensions (default none); the register width is the program's.
    pub fp: FpExt,
    pub ram_base: u64,
    pub ram_size: u64,
    /// Where the program's stdout (HTIF console and `write(1, ...)`) goes.
    pub stdout: Box<dyn Write>,
    /// Where the program's `write(2, ...)` goes.
    pub stderr: Box<dyn Write>,
}

impl Default for IssConfig {
    fn default() -> Self {
        IssConfig {
            fp: FpExt::None,
            ram_base: mem::DEFAULT_RAM_BASE,
            ram_size: mem::DEFAULT_RAM_SIZE,
            stdout: Box::new(io::stdout()),
            stderr: Box::new(io::stderr()),
        }
    }
}

/// Why `run` returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The program exited through HTIF with this code.
    Exit(u64),
    /// The step limit (instructions retired plus traps taken) was reached first.
    InstretLimit,
    /// The first instruction of the trap handler traps itself, so the machine would trap
    /// at `pc` forever (e.g. `mtvec` pointing at an illegal instruction).
    TrapLoop { pc: u64, cause: u64, tval: u64 },
}

/// What one call of [`Iss::step_one`] did.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    /// An instruction retired with these effects.
    Retired(Commit),
    /// The instruction at the old pc trapped; `pc` is now the trap handler.
    Trapped { cause: u64, tval: u64 },
    /// The program exited through HTIF with this code (seen at a chunk boundary).
    Exited(u64),
    /// A kernel launch, with launches deferred ([`Iss::defer_launches`]): the caller runs
    /// its threads and retires it ([`Iss::finish_launch`]).
    Launch(simt::Launch),
}

/// One hart with its memory, CSRs, HTIF host and optional RoCC accelerator.
pub struct Iss {
    pub isa: Isa,
    pub x: [u64; 32],
    /// f registers: a single NaN-boxed in the upper 32 bits.
    pub f: [u64; 32],
    /// Bit `i`: f register `i` has been written. Spike's f registers are 128 bits wide and
    /// reset to zero, so until written a register is not a boxed value of any format
    /// and reads as the canonical NaN (moves and stores see its zero bits).
    pub f_written: u32,
    pub pc: u64,
    pub mem: Memory,
    pub csrs: Csrs,
    htif: Htif,
    rocc: Option<Box<dyn RoccAccelerator>>,
    retired: u64,
    /// Traps taken so far; with `retired`, what the step limit of `run` counts.
    traps: u64,
    time: u64,
    reservation: Option<u64>,
    /// Keep an LR reservation across chunk boundaries (see `keep_reservation`).
    keep_reservation: bool,
    /// Instructions left in the chunk `step_one` is in; 0 when the next step starts a chunk.
    chunk_left: u64,
    /// SPMD launches (`enable_simt`); `None`: custom-0 goes to the RoCC port.
    simt: Option<Simt>,
    /// Instructions kernel threads retired, and steps launches took (those plus one a
    /// thread for its start).
    thread_retired: u64,
    kernel_steps: u64,
}

impl Iss {
    /// Loads `program` into a fresh machine; execution starts at the reset vector.
    pub fn new(program: &Program, config: IssConfig) -> Result<Iss, IssError> {
        let isa = Isa {
            xlen: program.xlen,
            fp: config.fp,
        };
        let mut mem = Memory::new(config.ram_base, config.ram_size, program.entry, isa.xlen);
        for seg in &program.segments {
            if !mem.write_slice(seg.addr, &seg.data) {
                return Err(IssError::SegmentOutsideRam {
                    addr: seg.addr,
                    len: seg.data.len() as u64,
                    base: config.ram_base,
                    end: config.ram_base + config.ram_size,
                });
            }
        }
        let htif = Htif::new(
            program.tohost,
            program.fromhost,
            config.stdout,
            config.stderr,
        );
        Ok(Iss {
            isa,
            x: [0; 32],
            f: [0; 32],
            f_written: 0,
            pc: mem::RESET_VECTOR,
            mem,
            csrs: Csrs::new(isa),
            htif,
            rocc: None,
            retired: 0,
            traps: 0,
            time: 0,
            reservation: None,
            keep_reservation: false,
            chunk_left: 0,
            simt: None,
            thread_retired: 0,
            kernel_steps: 0,
        })
    }

    /// Attaches an accelerator model to the RoCC port (custom-0..3 opcodes).
    pub fn attach_rocc(&mut self, acc: Box<dyn RoccAccelerator>) {
        self.rocc = Some(acc);
    }

    /// Hands the attached accelerator the AMOs a design's memory performed
    /// ([`RoccAccelerator::memory_amos`]).
    pub fn rocc_memory_amos(&mut self, performed: &[crate::tb::memory::AmoRecord]) {
        if let Some(acc) = self.rocc.as_mut() {
            acc.memory_amos(performed);
        }
    }

    /// The FP exception flags the attached accelerator has accrued
    /// ([`RoccAccelerator::fflags`]; `None` without one that keeps them), once the work
    /// it put off is done as a `fence` would have it done.
    pub fn rocc_fflags(&mut self) -> Result<Option<u8>, IssError> {
        let Some(acc) = self.rocc.as_mut() else {
            return Ok(None);
        };
        if let Err(source) = acc.fence(&mut self.mem) {
            return Err(IssError::Accelerator {
                pc: self.pc,
                source,
            });
        }
        Ok(acc.fflags())
    }

    /// Serves the host now (what the chunk schedule does between chunks): a command in
    /// `tohost` is handled and a pending `fromhost` response delivered. For lockstep with
    /// a design whose bench serves the host when the `tohost` store commits.
    pub fn poll_host(&mut self) -> Result<Option<u64>, IssError> {
        Ok(self.htif.poll(&mut self.mem)?)
    }

    /// Keeps an LR reservation across chunk boundaries (traps still drop it), as a
    /// design without Spike's chunk schedule does; Spike drops it every chunk.
    pub fn keep_reservation(&mut self) {
        self.keep_reservation = true;
    }

    /// The widths the commit log prints values at.
    pub fn log_widths(&self) -> commitlog::Widths {
        commitlog::Widths {
            xlen: self.isa.xlen.bits(),
            flen: self.isa.flen(),
        }
    }

    /// Instructions retired so far (including the reset ROM's five).
    pub fn instret(&self) -> u64 {
        self.retired
    }

    /// Traps taken so far.
    pub fn traps(&self) -> u64 {
        self.traps
    }

    /// Instructions kernel threads retired so far (not in [`Iss::instret`]).
    pub fn thread_instret(&self) -> u64 {
        self.thread_retired
    }

    /// Steps so far, what the step limit of `run` counts: instructions retired and traps
    /// taken by the host, and the steps of its kernel launches.
    pub fn steps(&self) -> u64 {
        self.retired + self.traps + self.kernel_steps
    }

    /// Runs until the program exits, its trap handler traps itself, or `max_instret`
    /// steps (instructions retired plus traps taken) have been made. With `log`, every
    /// retired instruction is written there in Spike's commit-log format.
    pub fn run(
        &mut self,
        max_instret: Option<u64>,
        log: Option<&mut dyn Write>,
    ) -> Result<Stop, IssError> {
        match log {
            Some(out) => self.run_inner::<true>(max_instret, out),
            None => self.run_inner::<false>(max_instret, &mut io::sink()),
        }
    }

    /// Executes one instruction (or takes one trap), for co-simulation in lockstep.
    ///
    /// Keeps the same chunk schedule as an uninterrupted `run` (HTIF polled, timer
    /// advanced and reservation dropped every [`CHUNK`] instructions or after a trap), so
    /// stepping gives exactly the commit stream `run` logs. A `run` after some steps
    /// starts a fresh chunk.
    pub fn step_one(&mut self) -> Result<Step, IssError> {
        if self.chunk_left == 0 {
            if let Some(code) = self.htif.poll(&mut self.mem)? {
                return Ok(Step::Exited(code));
            }
            self.chunk_left = CHUNK;
        }
        let mut commit = Commit::default();
        let outcome = match self.step::<true>(&mut commit) {
            Ok(()) => {
                self.retired += 1;
                self.chunk_left -= 1;
                Step::Retired(commit)
            }
            Err(Event::Trap { cause, tval }) => {
                self.pc = self.csrs.enter_trap(self.pc, cause, tval);
                self.traps += 1;
                self.chunk_left = 0;
                Step::Trapped { cause, tval }
            }
            Err(Event::Abort(source)) => return Err(self.abort(*source)),
            Err(Event::Launch(launch)) if self.simt.as_ref().is_some_and(|s| s.deferred) => {
                return Ok(Step::Launch(launch));
            }
            Err(Event::Launch(launch)) => {
                let limit = KERNEL_STEP_LIMIT;
                self.launch_within::<true>(
                    launch,
                    &commit,
                    Some(self.steps() + limit),
                    &mut io::sink(),
                )?
                .map_or(Ok(()), |_| Err(IssError::KernelStepLimit { limit }))?;
                self.chunk_left -= 1;
                Step::Retired(commit)
            }
        };
        if self.chunk_left == 0 {
            if !self.keep_reservation || matches!(outcome, Step::Trapped { .. }) {
                self.reservation = None;
            }
            self.time += TICKS_PER_CHUNK;
        }
        Ok(outcome)
    }

    /// Takes the attached accelerator's deferred exception, if it has one, as a trap
    /// before the next instruction (mepc = `pc`), for lockstep with a design whose
    /// decoupled accelerator delivered it there. Returns the trap's (cause, tval).
    pub fn take_deferred_trap(&mut self) -> Result<Option<(u64, u64)>, IssError> {
        let mem = &mut self.mem;
        let Some(e) = self.rocc.as_mut().and_then(|a| a.take_deferred(mem)) else {
            return Ok(None);
        };
        match exec::rocc_event(e, 0) {
            Event::Trap { cause, tval } => {
                self.pc = self.csrs.enter_trap(self.pc, cause, tval);
                self.traps += 1;
                // As after any trap: the next step starts a chunk.
                self.chunk_left = 0;
                self.reservation = None;
                self.time += TICKS_PER_CHUNK;
                Ok(Some((cause, tval)))
            }
            Event::Abort(source) => Err(self.abort(*source)),
            Event::Launch(_) => unreachable!("accelerators do not launch kernels"),
        }
    }

    fn run_inner<const LOG: bool>(
        &mut self,
        max_instret: Option<u64>,
        log: &mut dyn Write,
    ) -> Result<Stop, IssError> {
        loop {
            if let Some(code) = self.htif.poll(&mut self.mem)? {
                return Ok(Stop::Exit(code));
            }
            let mut budget = CHUNK;
            if let Some(max) = max_instret {
                let steps = self.steps();
                if steps >= max {
                    return Ok(Stop::InstretLimit);
                }
                budget = budget.min(max - steps);
            }
            if let Some(stop) = self.run_chunk::<LOG>(budget, max_instret, log)? {
                return Ok(stop);
            }
            self.reservation = None;
            self.time += TICKS_PER_CHUNK;
        }
    }

    /// Executes up to `budget` instructions, stopping early after a trap or a kernel
    /// launch (run within the step limit `max_instret`); a trap of the handler's own first
    /// instruction is a [`Stop::TrapLoop`].
    fn run_chunk<const LOG: bool>(
        &mut self,
        budget: u64,
        max_instret: Option<u64>,
        log: &mut dyn Write,
    ) -> Result<Option<Stop>, IssError> {
        let mut commit = Commit::default();
        let widths = self.log_widths();
        for _ in 0..budget {
            match self.step::<LOG>(&mut commit) {
                Ok(()) => {
                    self.retired += 1;
                    if LOG {
                        commit.write_line(log, widths).map_err(IssError::Log)?;
                    }
                }
                Err(Event::Trap { cause, tval }) => {
                    let pc = self.pc;
                    self.pc = self.csrs.enter_trap(pc, cause, tval);
                    self.traps += 1;
                    // The handler's first instruction trapped; taking the trap changed
                    // only the trap CSRs, so it would trap again, forever.
                    let looping = self.pc == pc;
                    return Ok(looping.then_some(Stop::TrapLoop { pc, cause, tval }));
                }
                Err(Event::Abort(source)) => return Err(self.abort(*source)),
                Err(Event::Launch(launch)) => {
                    return self.launch_within::<LOG>(launch, &commit, max_instret, log)
                }
            }
        }
        Ok(None)
    }

    /// The error that stops a simulation whose accelerator model gave up; `pc` stays at
    /// the custom instruction.
    fn abort(&self, source: RoccError) -> IssError {
        IssError::Accelerator {
            pc: self.pc,
            source,
        }
    }
}
