//! The bench of design `vgiw` (seed 004; `generators::vgiw::system`): runs an SPMD
//! program (`accelgen asm --target simt`) on the tile, its kernels compiled and placed
//! by the loader (`crate::vgiw::loader`), optionally in lockstep.
//!
//! The memory model serves the tile's ports: the I$'s `icache_mem` and the launcher's
//! `dir_mem` (8 bytes), each L1 bank's `b<i>_mem` and each LVC bank's `lvc_b<i>_mem` (32
//! bytes), the uncached `io_mem` and `lvc_io_mem` (4 bytes, tagged, AMOs) and the
//! configurator's `cfg_mem` (8 bytes, tagged). The host (HTIF) is served when the CP
//! commits a store to `tohost`, as `tb::soc` does.
//!
//! With lockstep, the CP's commits are checked against the RV32IMAF ISS, which runs each
//! launch's threads one after another when it reaches the launch (`crate::iss::simt`);
//! after the exit the L1 is flushed and memory must equal the ISS's over every page of
//! the program and every page the design wrote. The launcher's `fault` ends the run with
//! an error naming it. With `fast_forward`, only the kernels run on the tile
//! (`super::fast_forward`).
//!
//! Every run follows the CVT from the tile's `trace_bbs` (launches, schedules, the
//! running tile) and `trace_or` (`crate::vgiw::cvt_trace`, checking the scheduling
//! rules as it goes) and returns each launch's steps, to compare with the execution
//! model's trace.

use super::fast_forward::{self, host_golden, FastForwardError, Window};
use super::fgsimt::{compare_memory, flush, FgsimtError};
use super::lockstep::LockstepError;
use super::memory::{Bandwidth, MemConfig, MemError, MemPort, MemStats, MemoryModel};
use super::soc::{program_memory, program_pages, HostSide, SocError};
use super::{peek_u64, SignalError, Simulator};
use crate::elf::Program;
use crate::exit::{trap_report, TrapReport};
use crate::iss::IssError;
use crate::vgiw::cvt_trace::CvtTrace;
use crate::vgiw::loader::Loaded;
use crate::vgiw::machine::{MachineError, Step};
use generators::vgiw::launcher::{FAULT_BAD_COMMAND, FAULT_NO_KERNEL};
use generators::vgiw::params::VgiwParams;
use generators::vgiw::system::STATS;
use hdl::sim::Init;
use std::io::Write;

/// How to run.
#[derive(Debug, Clone)]
pub struct VgiwConfig {
    pub params: VgiwParams,
    /// Timing of the memory model (ports' widths are set by the bench).
    pub mem: MemConfig,
    pub max_cycles: u64,
    /// With lockstep: cycles without a CP commit or a CVT update before the run counts
    /// as hung.
    pub max_idle: u64,
    pub init: Init,
    /// Run only the program's kernels on the tile (`super::fast_forward`): from its first
    /// SIMT instruction, the ISS having run the host's setup, to its last launch.
    pub fast_forward: bool,
    /// Steps the ISS may take (lockstep's and the fast-forward's).
    pub max_steps: u64,
}

impl VgiwConfig {
    pub fn new(params: VgiwParams, mem: MemConfig, max_cycles: u64) -> Self {
        VgiwConfig {
            params,
            mem,
            max_cycles,
            max_idle: 1_000_000,
            init: Init::Random {
                seed: crate::verilator::INIT_SEEDS[0],
            },
            fast_forward: false,
            max_steps: 1_000_000_000,
        }
    }
}

/// The tile's counters at the exit (`generators::vgiw::system::STATS`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VgiwStats {
    pub kernel_cycles: u64,
    pub blocks: u64,
    pub config_cycles: u64,
    pub threads: u64,
    pub lvc: u64,
}

impl VgiwStats {
    fn read<S: Simulator>(dut: &mut S) -> Result<VgiwStats, VgiwError> {
        let mut v = [0u64; STATS.len()];
        for (x, name) in v.iter_mut().zip(STATS) {
            *x = peek_u64(dut, &format!("stat_{name}"))?;
        }
        let [kernel_cycles, blocks, config_cycles, threads, lvc] = v;
        Ok(VgiwStats {
            kernel_cycles,
            blocks,
            config_cycles,
            threads,
            lvc,
        })
    }
}

/// What a finished run measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VgiwOutcome {
    /// The program's exit code (fast-forwarded: the ISS's, its check having read the
    /// memory the tile left).
    pub exit_code: u64,
    /// Cycles from the end of reset to the exit store's commit (fast-forwarded: from the
    /// restore stub's end to the last launch's commit).
    pub cycles: u64,
    /// Fast-forwarded: the window the tile ran, and the cycles of the restore stub.
    pub window: Option<(Window, u64)>,
    /// CP instructions committed, and those checked against the ISS (0 without
    /// lockstep).
    pub instret: u64,
    pub matched: u64,
    /// Thread instructions the ISS ran in kernels (lockstep only).
    pub thread_instructions: u64,
    pub stats: VgiwStats,
    /// Each launch's steps as the tile's BBS took them (`trace_bbs`, `trace_or`): the
    /// execution model's trace ([`crate::vgiw::machine::Step`]), Figure 2's for its kernel.
    pub steps: Vec<Vec<Step>>,
    pub trap: Option<TrapReport>,
    pub mem: MemStats,
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum VgiwError {
    #[error(transparent)]
    Run(#[from] FgsimtError),
    #[error("starting the ISS: {0}")]
    Iss(#[from] IssError),
    #[error("cycle {cycle}: the BBS's schedule: {error}")]
    Schedule { cycle: u64, error: MachineError },
    #[error("fast-forward: {0}")]
    FastForward(#[from] FastForwardError),
    #[error("cycle {cycle}: {}", launcher_fault(*.code, *.entry))]
    Launcher { cycle: u64, code: u64, entry: u64 },
}

fn launcher_fault(code: u64, entry: u64) -> String {
    match code {
        FAULT_BAD_COMMAND => "the launcher took a command the SIMT runtime never sends".into(),
        FAULT_NO_KERNEL => format!("launch of {entry:#x}: the kernel directory has no such kernel"),
        _ => format!("launcher fault code {code}"),
    }
}

/// The errors a run shares with `tb::soc`'s, through [`SocError`].
macro_rules! via_soc {
    ($($t:ty),*) => {
        $(impl From<$t> for VgiwError {
            fn from(e: $t) -> Self {
                VgiwError::Run(FgsimtError::Soc(e.into()))
            }
        })*
    };
}
via_soc!(SocError, MemError, LockstepError, SignalError);

/// The tile's memory ports with their widths in bytes, in the memory model's order.
pub fn ports(p: &VgiwParams) -> Vec<(MemPort, u32)> {
    let plain = |name: &str| MemPort {
        resp_ready: None,
        ..MemPort::decoupled(name, false)
    };
    let io = |name: &str| MemPort {
        resp_ready: None,
        ..MemPort::decoupled_with_amo(name, true)
    };
    let tagged = MemPort {
        resp_ready: None,
        ..MemPort::decoupled("cfg_mem", true)
    };
    let mut ports = vec![(plain("icache_mem"), 8), (plain("dir_mem"), 8), (tagged, 8)];
    for (prefix, banks) in [("", p.l1_banks), ("lvc_", p.lvc_banks)] {
        ports.extend((0..banks).map(|b| (plain(&format!("{prefix}b{b}_mem")), 32)));
        ports.push((io(&format!("{prefix}io_mem")), 4));
    }
    ports
}

/// The memory model holding `program`, the reset ROM and the kernels.
fn memory(
    program: &Program,
    loaded: &Loaded,
    config: &VgiwConfig,
) -> Result<MemoryModel, VgiwError> {
    let ports = ports(&config.params);
    let mem = MemConfig {
        bandwidth: Bandwidth {
            requests: ports.len() as u32,
            cycles: 1,
        },
        ..config.mem.clone()
    };
    let mut memory = program_memory(mem, ports, program)?;
    memory.memory_mut().write(loaded.base, &loaded.bytes);
    Ok(memory)
}

/// Runs `program` with its `loaded` kernels from reset until it exits through HTIF
/// (fast-forwarded: from the end of the restore stub to the last launch), then flushes
/// the L1. With `lockstep`, the CP's commits are checked against the ISS, and memory
/// after the flush.
pub fn run<S: Simulator>(
    dut: &mut S,
    program: &Program,
    loaded: &Loaded,
    config: &VgiwConfig,
    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
    lockstep: bool,
) -> Result<VgiwOutcome, VgiwError> {
    let mut memory = memory(program, loaded, config)?;
    let (golden, start) = if config.fast_forward {
        let (start, g) = fast_forward::prepare(program, config.max_steps, memory.memory_mut())?;
        (lockstep.then_some(g), Some(start))
    } else {
        let g = lockstep.then(|| host_golden(program, config.max_steps));
        (g.transpose()?, None)
    };
    let mut side = HostSide::new(program, (stdout, stderr), golden, config.max_idle)?;
    super::signal(dut.reinit(config.init))?;
    super::poke_u64(dut, "flush", 0)?;
    super::signal(dut.poke_u64("reset", 1))?;
    dut.step();
    super::signal(dut.poke_u64("reset", 0))?;
    let window = start.map(|s| s.run(dut, &mut memory)).transpose()?;
    let mut schedule = Schedule::default();
    for cycle in 0..config.max_cycles {
        let fail = |error| VgiwError::Schedule { cycle, error };
        let exit = side.cycle(dut, memory.memory_mut())?;
        if let Some(code) = fast_forward::end(window.as_ref(), side.instret, exit) {
            let stats = VgiwStats::read(dut)?;
            let steps = schedule.finish().map_err(fail)?;
            flush(dut, &mut memory)?;
            let (matched, thread_instructions) = match side.lockstep.as_mut() {
                Some(l) => {
                    let matched = l.matched();
                    let iss = l.golden_mut().iss_mut();
                    compare_memory(
                        memory.memory(),
                        iss,
                        &program_pages(program),
                        (program, &[]),
                    )?;
                    (matched, iss.thread_instret())
                }
                None => (0, 0),
            };
            return Ok(VgiwOutcome {
                exit_code: code,
                cycles: cycle + 1,
                window,
                instret: side.instret,
                matched,
                thread_instructions,
                stats,
                steps,
                trap: trap_report(program, |a| memory.memory().read_u64(a)),
                mem: memory.stats(),
            });
        }
        if peek_u64(dut, "fault_valid")? == 1 {
            return Err(VgiwError::Launcher {
                cycle,
                code: peek_u64(dut, "fault_bits_code")?,
                entry: peek_u64(dut, "fault_bits_entry")?,
            });
        }
        // A kernel's progress although the CP commits nothing while it waits for the
        // launch (which may take more than `max_idle` cycles).
        let ored = schedule.cycle(dut)?.map_err(fail)?;
        if let (Some(l), true) = (side.lockstep.as_mut(), ored) {
            l.progressed();
        }
        memory.tick(dut)?;
        dut.step();
    }
    Err(SocError::Timeout {
        cycles: config.max_cycles,
        instret: side.instret,
    }
    .into())
}

/// The tile's CVT followed from `trace_bbs` and `trace_or`: each launch's steps.
#[derive(Default)]
struct Schedule {
    launch: Option<CvtTrace>,
    done: Vec<Vec<Step>>,
}

impl Schedule {
    /// This cycle's launch, schedule and OR (a schedule before an OR, as the BBS makes
    /// them); whether the BBS ORed.
    fn cycle<S: Simulator>(
        &mut self,
        dut: &mut S,
    ) -> Result<Result<bool, MachineError>, SignalError> {
        let mut f = |name: &str| peek_u64(dut, &format!("trace_bbs_{name}"));
        let (launch, sched, tile) = (f("launch")? == 1, f("sched")? == 1, f("tile")? as u32);
        let (words, block) = (f("words")? as u32, f("block")? as u16);
        let or = peek_u64(dut, "trace_or_valid")? == 1;
        let (addr, bits) = match or {
            true => (
                peek_u64(dut, "trace_or_bits_addr")? as u32,
                peek_u64(dut, "trace_or_bits_bits")?,
            ),
            false => (0, 0),
        };
        Ok((|| {
            if launch {
                self.end()?;
                self.launch = Some(CvtTrace::new(words));
            }
            let Some(l) = self.launch.as_mut().filter(|_| sched || or) else {
                return Ok(or);
            };
            l.follow_tile(tile)?;
            if sched {
                l.select(block)?;
            }
            if or {
                l.or(addr, bits)?;
            }
            Ok(or)
        })())
    }

    /// The running launch's end.
    fn end(&mut self) -> Result<(), MachineError> {
        if let Some(l) = self.launch.take() {
            self.done.push(l.finish()?);
        }
        Ok(())
    }

    /// Every launch's steps.
    fn finish(mut self) -> Result<Vec<Vec<Step>>, MachineError> {
        self.end()?;
        Ok(self.done)
    }
}
