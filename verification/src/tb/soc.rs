//! A system bench for processor designs: runs an ELF program on a design with the
//! Rocket-like tile's top ports, optionally in lockstep with the ISS.
//!
//! The design's `mem` port (tagged requests, valid-only responses) is served by the
//! [`MemoryModel`] holding the program and the reset ROM. The host (HTIF) is served when
//! the design commits a store to `tohost`, as the trace port shows it: the store has
//! reached memory by then (a design commits a store only after memory answered it), and
//! the host is served before the memory model accepts the cycle's requests, so
//! exits and system calls (console output) happen at a point of the program that the
//! golden model reproduces exactly (`IssGolden::with_design_conventions`). RoCC inputs
//! are held idle unless the design wires an accelerator of its own. With lockstep, the
//! AMOs the memory performs are handed to the golden model as they happen
//! ([`super::lockstep::GoldenModel::memory_amos`]).

use super::lockstep::{GoldenModel, IssGolden, Lockstep, LockstepError, TracePort};
use super::memory::{
    AmoRecord, Bandwidth, MemConfig, MemError, MemPort, MemStats, MemoryModel, SparseMemory,
};
use super::{peek_u64 as signal_u64, poke_u64, SignalError, Simulator};
use crate::elf::Program;
use crate::exit::{trap_report, TrapReport};
use crate::iss::htif::{Htif, HtifError};
use crate::iss::mem::{reset_rom, RESET_VECTOR};
use crate::iss::{FpExt, IssConfig, IssError};
use generators::hwacha::soc::{RocketHwachaParams, SocMemory};
use hdl::sim::Init;
use std::collections::BTreeSet;
use std::io::Write;

/// How to run.
#[derive(Debug, Clone)]
pub struct SocConfig {
    /// Timing of the memory model (its `data_bytes` must be 8).
    pub mem: MemConfig,
    /// Clock cycles after reset before the run counts as hung.
    pub max_cycles: u64,
    /// Hold the RoCC inputs (`rocc_cmd_ready`, `rocc_resp_valid`, `rocc_busy`,
    /// `rocc_xcpt_valid`, `rocc_mem_req_valid`) at 0: the design has no accelerator.
    pub idle_rocc: bool,
    /// Further memory ports of the design (an accelerator's own), with their bus widths
    /// in bytes, served from the same memory.
    pub extra_ports: Vec<(MemPort, u32)>,
    /// A valid-only output of the design showing each accelerator exception its core
    /// takes (`<name>_valid`, `<name>_bits_cause`, `<name>_bits_tval`): counted, and
    /// with lockstep the golden model takes its deferred exception at the same point
    /// ([`Lockstep::accelerator_trap`]).
    pub xcpt: Option<String>,
    /// A design whose accelerator keeps its own FP state (rocket-hwacha): its `frm`
    /// input is held at this dynamic rounding mode (RISC-V frm, 0-4; the golden model's
    /// must be set alike). At the exit the bench runs the design on until its `vbusy`
    /// output falls (the accelerator has finished what it was given; at most
    /// `max_idle` cycles), reads its `fflags` output (the flags the accelerator has
    /// accrued) into [`SocOutcome::fflags`] and, with lockstep, checks them against the
    /// golden model's ([`Lockstep::check_accelerator_fflags`]).
    pub frm: Option<u32>,
    /// With lockstep: cycles without a commit before the run counts as hung.
    pub max_idle: u64,
    /// The design's state before reset (registers without reset, memories): a run
    /// starts over from it.
    pub init: Init,
    /// The design has the L2 of rocket-hwacha's `memory = "l2"` with this many banks
    /// ([`hwacha_l2_config`]): the AMOs its banks perform (`l2_b<j>_trace`) go to the
    /// golden model; an HTIF call other than the exit is served once the L2 is flushed
    /// (`l2_flush`: dirty lines written back, every line invalidated), the tile's
    /// uncached port held meanwhile so that the program cannot read `fromhost` early;
    /// and at the exit the bench flushes it before reading memory.
    pub l2_banks: Option<u32>,
}

impl Default for SocConfig {
    fn default() -> SocConfig {
        SocConfig {
            mem: MemConfig::default(),
            max_cycles: 50_000_000,
            idle_rocc: true,
            extra_ports: Vec::new(),
            xcpt: None,
            frm: None,
            max_idle: Lockstep::<IssGolden>::MAX_IDLE,
            init: Init::Random {
                seed: crate::verilator::INIT_SEEDS[0],
            },
            l2_banks: None,
        }
    }
}

/// What a finished run measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocOutcome {
    pub exit_code: u64,
    /// Cycles from the end of reset to the exit store's commit.
    pub cycles: u64,
    /// Instructions committed (the trace port's records).
    pub instret: u64,
    /// Records checked against the golden model (0 without lockstep).
    pub matched: u64,
    /// Accelerator exceptions the core took (on [`SocConfig::xcpt`]).
    pub accelerator_traps: u64,
    /// The last of them: (cause, tval).
    pub last_accelerator_trap: Option<(u64, u64)>,
    /// The trap the C runtime's handler recorded, when it ended the program.
    pub trap: Option<TrapReport>,
    /// The FP exception flags the accelerator accrued (with [`SocConfig::frm`]).
    pub fflags: Option<u8>,
    pub mem: MemStats,
}

impl SocOutcome {
    /// Cycles per committed instruction.
    pub fn cpi(&self) -> f64 {
        self.cycles as f64 / self.instret.max(1) as f64
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SocError {
    #[error(transparent)]
    Memory(#[from] MemError),
    #[error(transparent)]
    Htif(#[from] HtifError),
    #[error("golden model: {0}")]
    Iss(#[from] IssError),
    #[error(transparent)]
    Lockstep(#[from] LockstepError),
    #[error(transparent)]
    Signal(#[from] SignalError),
    #[error("the program did not exit within {cycles} cycles ({instret} instructions committed)")]
    Timeout { cycles: u64, instret: u64 },
    #[error("the design exited with code {code} but the golden model had not finished")]
    EarlyExit { code: u64 },
    #[error("the accelerator was still busy {cycles} cycles after the program's exit")]
    AcceleratorBusy { cycles: u64 },
    #[error("the L2 was still flushing {cycles} cycles after the program's exit")]
    L2Busy { cycles: u64 },
}

/// The golden model for `program` on a design: the ISS with its console discarded (the
/// design's output is the one shown) and the design's conventions.
pub fn golden(program: &Program, max_steps: u64) -> Result<IssGolden, IssError> {
    golden_with(program, max_steps, FpExt::None)
}

/// [`golden`] with the floating-point extensions `fp` (`FpExt::F` for a `rocket` design
/// with `fpu`).
pub fn golden_with(program: &Program, max_steps: u64, fp: FpExt) -> Result<IssGolden, IssError> {
    let config = IssConfig {
        fp,
        stdout: Box::new(std::io::sink()),
        stderr: Box::new(std::io::sink()),
        ..IssConfig::default()
    };
    Ok(IssGolden::new(program, config, max_steps)?.with_design_conventions())
}

/// The design's memory port: `mem_req`/`mem_resp`, tagged, responses always accepted.
pub fn mem_port() -> MemPort {
    MemPort {
        resp_ready: None,
        ..MemPort::decoupled("mem", true)
    }
}

/// The memory ports of design `rocket-hwacha` beside the tile's, for
/// [`SocConfig::extra_ports`]: the vector unit's frontend (`vimem`, `vdmem`: 64-bit, in
/// order, responses always accepted) and each of its `lanes` lanes (`l<l>_mem`: 128-bit,
/// tagged).
pub fn hwacha_ports(lanes: u32) -> Vec<(MemPort, u32)> {
    let mut ports: Vec<(MemPort, u32)> = HWACHA_FRONTEND_PORTS
        .iter()
        .map(|n| {
            let port = MemPort {
                resp_ready: None,
                ..MemPort::decoupled(n, false)
            };
            (port, 8)
        })
        .collect();
    ports.extend((0..lanes).map(|l| (MemPort::decoupled_with_amo(&format!("l{l}_mem"), true), 16)));
    ports
}

/// The vector unit's frontend ports, ahead of its lanes' in [`hwacha_ports`].
const HWACHA_FRONTEND_PORTS: [&str; 2] = ["vimem", "vdmem"];

/// The index of each of the `lanes` lanes' ports among the memory model's ports in
/// [`run`] with [`hwacha_ports`] (the tile's port is the first), as
/// [`super::memory::AmoRecord::port`] gives it.
pub fn hwacha_lane_ports(lanes: u32) -> Vec<usize> {
    let first = 1 + HWACHA_FRONTEND_PORTS.len();
    (first..first + lanes as usize).collect()
}

/// The run of a rocket-hwacha design with `lanes` lanes on memory timing `mem`: the
/// vector unit's ports ([`hwacha_ports`]) and exception output; a bandwidth of one
/// request per port and cycle and up to 64 requests in flight per port (the thesis's
/// lanes each have a 128-bit port into a banked L2, and a lane's VMU tracks 64); and a
/// core that may wait long without committing (a fence waits for the vector unit to
/// finish every block queued before it).
pub fn hwacha_config(lanes: u32, mem: MemConfig) -> SocConfig {
    hwacha_base(mem, hwacha_ports(lanes))
}

/// A rocket-hwacha run with `ports` beside the tile's: one request per port and cycle,
/// up to 64 in flight per port, the unit's exceptions and FP state, a long idle bound.
fn hwacha_base(mem: MemConfig, ports: Vec<(MemPort, u32)>) -> SocConfig {
    SocConfig {
        mem: MemConfig {
            bandwidth: Bandwidth {
                requests: 1 + ports.len() as u32,
                cycles: 1,
            },
            max_outstanding: mem.max_outstanding.max(64),
            ..mem
        },
        idle_rocc: false,
        extra_ports: ports,
        xcpt: Some("xcpt".to_string()),
        frm: Some(0),
        max_idle: 2_000_000,
        ..SocConfig::default()
    }
}

/// The run of a rocket-hwacha design `p` on memory timing `mem`: [`hwacha_config`], or
/// with `memory = "l2"` [`hwacha_l2_config`].
pub fn rocket_hwacha_config(p: &RocketHwachaParams, mem: MemConfig) -> SocConfig {
    match p.memory {
        SocMemory::Flat => hwacha_config(p.hwacha.lanes, mem),
        SocMemory::L2 => hwacha_l2_config(p.l2.banks, p.l2.line_bytes, mem),
    }
}

/// [`hwacha_config`] for a design with the L2: the memory model serves the tile's
/// uncached port (`mem`) and the L2 banks' line-wide ports (`l2_b<j>_mem`, tagged,
/// responses always accepted).
pub fn hwacha_l2_config(banks: u32, line_bytes: u32, mem: MemConfig) -> SocConfig {
    let ports: Vec<(MemPort, u32)> = (0..banks)
        .map(|b| {
            let port = MemPort {
                resp_ready: None,
                ..MemPort::decoupled(&format!("l2_b{b}_mem"), true)
            };
            (port, line_bytes)
        })
        .collect();
    SocConfig {
        l2_banks: Some(banks),
        ..hwacha_base(mem, ports)
    }
}

/// The AMOs the L2's `banks` banks performed this cycle (their `l2_b<j>_trace`), as the
/// memory model logs its own: the port is the L2 client's, which is the memory model's
/// port index of the same client with flat memory (the tile, `vimem`, `vdmem`, then the
/// lanes: [`hwacha_lane_ports`]).
fn l2_amos<S: Simulator>(dut: &mut S, banks: u32) -> Result<Vec<AmoRecord>, SignalError> {
    let mut out = Vec::new();
    for b in 0..banks {
        let f = |dut: &mut S, name: &str| signal_u64(dut, &format!("l2_b{b}_trace_{name}"));
        if f(dut, "valid")? == 0 || f(dut, "bits_amo")? == 0 {
            continue;
        }
        let addr = f(dut, "bits_addr")?;
        let bytes = 1u32 << f(dut, "bits_size")?;
        let data = super::peek(dut, &format!("l2_b{b}_trace_bits_data"))?;
        let shift = 8 * (addr & 15) as u32;
        let operand = (0..8 * bytes).fold(0u64, |v, i| v | (data.bit(shift + i) as u64) << i);
        out.push(AmoRecord {
            port: f(dut, "bits_port")? as usize,
            addr,
            bytes,
            op: f(dut, "bits_amo")?,
            operand,
        });
    }
    Ok(out)
}

/// The memory model of `config` serving `ports` (each with its bus width in bytes), holding
/// `program` and the reset ROM.
pub fn program_memory(
    config: MemConfig,
    ports: Vec<(MemPort, u32)>,
    program: &Program,
) -> Result<MemoryModel, MemError> {
    let bytes: Vec<u32> = ports.iter().map(|p| p.1).collect();
    let mut memory = MemoryModel::new(config, ports.into_iter().map(|p| p.0).collect())?;
    for (i, b) in bytes.into_iter().enumerate() {
        memory.set_port_bytes(i, b)?;
    }
    memory.memory_mut().load_program(program)?;
    memory
        .memory_mut()
        .load_image(RESET_VECTOR, &reset_rom(program.entry, program.xlen))?;
    Ok(memory)
}

/// The pages from the program's lowest segment to its stack's top (`__stack_top`) or
/// its highest segment's end: everything a kernel or the host may store to.
pub fn program_pages(program: &Program) -> BTreeSet<u64> {
    let ends = (program.segments.iter()).map(|s| s.addr + s.data.len() as u64);
    let end = ends.chain(program.symbol("__stack_top")).max().unwrap_or(0);
    let start = program.segments.iter().map(|s| s.addr).min().unwrap_or(end);
    (start & !4095..end).step_by(4096).collect()
}

/// Runs `program` from reset until it exits through HTIF. With `golden`, every commit is
/// checked against it and the first divergence is the error.
pub fn run<S: Simulator, G: GoldenModel>(
    dut: &mut S,
    program: &Program,
    config: &SocConfig,
    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
    golden: Option<G>,
) -> Result<SocOutcome, SocError> {
    run_with_memory(dut, program, config, stdout, stderr, golden).map(|(outcome, _)| outcome)
}

/// [`run`], also returning the memory as the program left it at its exit, for the host
/// to inspect what it stored (the tile's data cache is write-through: every store the
/// design performed is there).
pub fn run_with_memory<S: Simulator, G: GoldenModel>(
    dut: &mut S,
    program: &Program,
    config: &SocConfig,
    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
    golden: Option<G>,
) -> Result<(SocOutcome, SparseMemory), SocError> {
    let mut ports = vec![(mem_port(), config.mem.data_bytes)];
    ports.extend(config.extra_ports.iter().cloned());
    let mut memory = program_memory(config.mem.clone(), ports, program)?;
    let mut side = HostSide::new(program, (stdout, stderr), golden, config.max_idle)?;
    side.defer_calls = config.l2_banks.is_some();
    let signal = |r: Result<(), S::Error>| r.map_err(|e| SignalError(Box::new(e)));

    signal(dut.reinit(config.init))?;
    if config.idle_rocc {
        for port in [
            "rocc_cmd_ready",
            "rocc_resp_valid",
            "rocc_busy",
            "rocc_xcpt_valid",
            "rocc_mem_req_valid",
        ] {
            poke_u64(dut, port, 0)?;
        }
    }
    if let Some(frm) = config.frm {
        poke_u64(dut, "frm", frm.into())?;
    }
    signal(dut.poke_u64("reset", 1))?;
    dut.step();
    signal(dut.poke_u64("reset", 0))?;
    let mut accelerator_traps = 0;
    let mut last_accelerator_trap = None;
    for cycle in 0..config.max_cycles {
        if let Some(code) = side.cycle(dut, memory.memory_mut())? {
            let fflags = match config.frm {
                Some(_) => Some(accelerator_fflags(dut, &mut memory, config, &mut side)?),
                None => None,
            };
            flush_l2(dut, &mut memory, config)?;
            let outcome = SocOutcome {
                exit_code: code,
                cycles: cycle + 1,
                instret: side.instret,
                matched: side.matched(),
                accelerator_traps,
                last_accelerator_trap,
                trap: trap_report(program, |a| memory.memory().read_u64(a)),
                fflags,
                mem: memory.stats(),
            };
            return Ok((outcome, memory.into_memory()));
        }
        serve_behind_l2(dut, &mut memory, &mut side)?;
        if let Some(x) = &config.xcpt {
            if signal_u64(dut, &format!("{x}_valid"))? == 1 {
                accelerator_traps += 1;
                let cause = signal_u64(dut, &format!("{x}_bits_cause"))?;
                let tval = signal_u64(dut, &format!("{x}_bits_tval"))?;
                last_accelerator_trap = Some((cause, tval));
                if let Some(l) = side.lockstep.as_mut() {
                    l.accelerator_trap(cycle, cause, tval)?;
                }
            }
        }
        memory.tick(dut)?;
        forward_amos(&mut memory, &mut side);
        forward_l2_amos(dut, config, &mut side)?;
        dut.step();
    }
    Err(SocError::Timeout {
        cycles: config.max_cycles,
        instret: side.instret,
    })
}

/// Hands the golden model (with lockstep) the AMOs the memory performed this cycle.
fn forward_amos<G: GoldenModel>(memory: &mut MemoryModel, side: &mut HostSide<G>) {
    let amos = memory.take_amo_log();
    if let (Some(l), false) = (side.lockstep.as_mut(), amos.is_empty()) {
        l.memory_amos(&amos);
    }
}

/// With the L2, a host call put off: flushes the L2 with the tile's uncached port (port
/// 0) held, then serves the call from memory and lets the port go.
fn serve_behind_l2<S: Simulator, G: GoldenModel>(
    dut: &mut S,
    memory: &mut MemoryModel,
    side: &mut HostSide<G>,
) -> Result<(), SocError> {
    if !side.deferred {
        return Ok(());
    }
    let flushed = signal_u64(dut, "l2_flushed")? == 1;
    poke_u64(dut, "l2_flush", !flushed as u64)?;
    memory.hold(0, !flushed);
    if flushed {
        side.serve_deferred(memory.memory_mut())?;
    }
    Ok(())
}

/// Hands the golden model (with lockstep) the AMOs the L2 performed this cycle.
fn forward_l2_amos<S: Simulator, G: GoldenModel>(
    dut: &mut S,
    config: &SocConfig,
    side: &mut HostSide<G>,
) -> Result<(), SignalError> {
    let (Some(banks), Some(l)) = (config.l2_banks, side.lockstep.as_mut()) else {
        return Ok(());
    };
    let amos = l2_amos(dut, banks)?;
    if !amos.is_empty() {
        l.memory_amos(&amos);
    }
    Ok(())
}

/// At the exit, with the L2: has it write every dirty line back (the design's memory
/// served, for at most `max_idle` cycles), so that memory holds what the program left.
fn flush_l2<S: Simulator>(
    dut: &mut S,
    memory: &mut MemoryModel,
    config: &SocConfig,
) -> Result<(), SocError> {
    if config.l2_banks.is_none() {
        return Ok(());
    }
    poke_u64(dut, "l2_flush", 1)?;
    let mut cycles = 0;
    while signal_u64(dut, "l2_flushed")? == 0 {
        if cycles == config.max_idle {
            return Err(SocError::L2Busy { cycles });
        }
        memory.tick(dut)?;
        dut.step();
        cycles += 1;
    }
    poke_u64(dut, "l2_flush", 0)?;
    Ok(())
}

/// At the exit: runs the design (its memory served, its commits no longer checked: the
/// core spins in the runtime's exit loop) until its accelerator is idle, then reads the
/// FP flags it accrued and, with lockstep, checks them against the golden model's.
fn accelerator_fflags<S: Simulator, G: GoldenModel>(
    dut: &mut S,
    memory: &mut MemoryModel,
    config: &SocConfig,
    side: &mut HostSide<G>,
) -> Result<u8, SocError> {
    let mut cycles = 0;
    while signal_u64(dut, "vbusy")? == 1 {
        if cycles == config.max_idle {
            return Err(SocError::AcceleratorBusy { cycles });
        }
        memory.tick(dut)?;
        forward_amos(memory, side);
        forward_l2_amos(dut, config, side)?;
        dut.step();
        cycles += 1;
    }
    let fflags = signal_u64(dut, "fflags")? as u8;
    if let Some(l) = side.lockstep.as_mut() {
        l.check_accelerator_fflags(fflags)?;
    }
    Ok(fflags)
}

/// The control processor's side of a system bench: its commit trace (counted, and
/// checked against a golden model with lockstep) and the HTIF host, served when a store
/// to `tohost` commits.
pub struct HostSide<G: GoldenModel> {
    host: Htif,
    pub lockstep: Option<Lockstep<G>>,
    trace: TracePort,
    /// The `tohost` doubleword and its byte lanes.
    tohost: (u64, u8),
    /// Instructions committed.
    pub instret: u64,
    /// Put off HTIF calls but the exit until [`HostSide::serve_deferred`] (memory is
    /// behind an L2 the host cannot see into until it is flushed).
    pub defer_calls: bool,
    /// A call is waiting.
    pub deferred: bool,
}

impl<G: GoldenModel> HostSide<G> {
    /// For `program`, with the host's console `streams` (stdout, stderr), a golden model
    /// for lockstep and its hang bound `max_idle`.
    pub fn new(
        program: &Program,
        streams: (Box<dyn Write>, Box<dyn Write>),
        golden: Option<G>,
        max_idle: u64,
    ) -> Result<Self, LockstepError> {
        let lockstep = golden
            .map(|g| Lockstep::new(g, TracePort::new("trace")).map(|l| l.with_max_idle(max_idle)))
            .transpose()?;
        Ok(HostSide {
            host: Htif::new(program.tohost, program.fromhost, streams.0, streams.1),
            lockstep,
            trace: TracePort::new("trace"),
            tohost: (program.tohost & !7, 0xffu8 << (program.tohost & 7)),
            instret: 0,
            defer_calls: false,
            deferred: false,
        })
    }

    /// Checks this cycle's commit (call before the memory model serves the cycle) and
    /// serves the host; the exit code once the program has exited.
    pub fn cycle<S: Simulator>(
        &mut self,
        dut: &mut S,
        memory: &mut SparseMemory,
    ) -> Result<Option<u64>, SocError> {
        // The trace comes from registers, so it is read before the memory model serves
        // this cycle's requests: a load right behind the `tohost` store then sees the
        // host's answer, as in the golden model.
        if let Some(l) = self.lockstep.as_mut() {
            l.check_cycle(dut)?;
        }
        if !self.trace.valid(dut)? {
            return Ok(None);
        }
        self.instret += 1;
        let r = self.trace.read(dut)?;
        if r.mem_addr != self.tohost.0 || r.mem_mask & self.tohost.1 == 0 {
            return Ok(None);
        }
        let command = memory.read_u64(self.tohost.0);
        let exit = command >> 48 == 0 && command & 1 == 1;
        if self.defer_calls && command != 0 && !exit {
            self.deferred = true;
            return Ok(None);
        }
        let Some(code) = self.host.poll(memory)? else {
            return Ok(None);
        };
        if let Some(l) = self.lockstep.as_mut() {
            if !l.finished()? {
                return Err(SocError::EarlyExit { code });
            }
        }
        Ok(Some(code))
    }

    /// Serves the call put off ([`HostSide::defer_calls`]).
    pub fn serve_deferred(&mut self, memory: &mut SparseMemory) -> Result<(), SocError> {
        self.deferred = false;
        self.host.poll(memory)?;
        Ok(())
    }

    /// CP commits checked against the golden model (0 without lockstep).
    pub fn matched(&self) -> u64 {
        self.lockstep.as_ref().map_or(0, Lockstep::matched)
    }
}
