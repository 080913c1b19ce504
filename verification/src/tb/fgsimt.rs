//! The bench of design `fgsimt` (seed 000; docs/fgsimt-engine.md, "Lockstep"): runs an
//! SPMD program (`accelgen asm --target simt`) on the tile, optionally in lockstep.
//!
//! The memory model serves the tile's ports: the I$'s `icache_mem` (8 bytes), each D$
//! bank's `b<i>_mem` (32 bytes) and the uncached `io_mem` (4 bytes, tagged, AMOs), one
//! request per port and cycle (the banks are independent, `generators::fgsimt::l1`). The
//! host (HTIF) is served when the CP commits a store to `tohost`, as `tb::soc` does.
//!
//! With lockstep ([`SpmdGolden`]): the CP's commits are checked against the RV32IMAF ISS
//! as `sim rocket --lockstep` checks them; the ISS hands launches over
//! (`Iss::defer_launches`), and while the engine runs one, its `ftrace` and `wtrace` are
//! checked against the SIMT model by [`KernelChecker`]; the launch instruction's commit
//! then requires the whole launch seen. With the DWS sequencer its `strace` drives the
//! golden sequencer, which every decision must match ([`SeqFollower`]). After the exit
//! the D$ is flushed and memory must equal the ISS's (the pages either wrote). A `fault` ends the run with an error naming
//! cause, pc and thread (and, with lockstep, it must be the model's trap).

use super::dws_follow::SeqFollower;
use super::dws_seq::{config_of, SeqError};
use super::fast_forward::{self, host_golden, FastForwardError, Window};
use super::kernel_check::WriteRecord;
use super::kernel_check::{
    AsrfRecord, FaultRecord, FetchRecord, KernelChecker, KernelError, KernelShape,
};
use super::lockstep::{CommitRecord, GoldenModel, GoldenStep, IssGolden, IssGoldenError};
use super::lockstep::{Lockstep, LockstepError};
use super::memory::{Bandwidth, MemConfig, MemError, MemPort, MemStats, MemoryModel, SparseMemory};
use super::soc::{program_memory, HostSide, SocError};
use super::{peek_u64, poke_u64, SignalError, Simulator};
use crate::elf::Program;
use crate::exit::{trap_report, TrapReport};
use crate::fgsimt::avc::controller::{AvcParams, Controller};
use crate::fgsimt::avc::private::{Replay, Stacks};
use crate::fgsimt::dws::directory::Directory;
use crate::fgsimt::dws::machine::LaunchStats;
use crate::fgsimt::warp::KernelStats;
use crate::iss::htif::HtifError;
use crate::iss::{Iss, IssError};
use generators::fgsimt::dws::params::DwsParams;
use generators::fgsimt::params::DcacheParams;
use hdl::sim::Init;
use std::collections::{BTreeSet, VecDeque};
use std::io::Write;

/// SRF write ports per lane in `wtrace` (`generators::fgsimt::bundles::SRF_WRITE_PORTS`).
pub const SRF_WRITE_PORTS: u32 = 3;

/// How to run.
#[derive(Debug, Clone)]
pub struct FgsimtConfig {
    pub shape: KernelShape,
    /// D$ banks (one memory port each, a line wide) and bytes in a line.
    pub banks: u32,
    pub line_bytes: u32,
    /// Timing of the memory model (ports' widths are set by the bench).
    pub mem: MemConfig,
    pub max_cycles: u64,
    /// With lockstep: cycles without a CP commit (a kernel runs meanwhile) before the
    /// run counts as hung.
    pub max_idle: u64,
    pub init: Init,
    /// Run only the program's kernels on the tile (`super::fast_forward`): from its first
    /// SIMT instruction, the ISS having run the host's setup, to its last launch.
    pub fast_forward: bool,
    /// Steps the ISS may take (lockstep's and the fast-forward's).
    pub max_steps: u64,
    /// With private stacks (`avc`): the AVC's shape. Lockstep replays the kernels'
    /// private accesses through the golden controller in the engine's order (the warp
    /// instructions as the front end committed them, warps of several contexts
    /// interleaved) and requires the engine's AVC memory traffic to be the replay's.
    pub avc: Option<AvcParams>,
    /// With the DWS sequencer: the program's re-convergence directory
    /// (`fgsimt::dws::directory`), which the bench puts in memory before reset.
    pub directory: Option<Directory>,
    /// With the DWS sequencer: its parameters. Lockstep (with `directory`) follows it
    /// with the golden sequencer (`super::dws_follow`), every decision compared.
    pub sequencer: Option<DwsParams>,
}

impl FgsimtConfig {
    /// A run of a tile whose D$ is `dcache` (its banks' memory ports).
    pub fn new(shape: KernelShape, dcache: &DcacheParams, mem: MemConfig, max_cycles: u64) -> Self {
        FgsimtConfig {
            shape,
            banks: dcache.banks,
            line_bytes: dcache.line_bytes,
            mem,
            max_cycles,
            max_idle: 2_000_000,
            init: Init::Random {
                seed: crate::verilator::INIT_SEEDS[0],
            },
            fast_forward: false,
            max_steps: 1_000_000_000,
            avc: None,
            directory: None,
            sequencer: None,
        }
    }
}

/// What a finished run measured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FgsimtOutcome {
    /// The program's exit code (fast-forwarded: the ISS's, its check having read the
    /// memory the tile left).
    pub exit_code: u64,
    /// Cycles from the end of reset to the exit store's commit (fast-forwarded: from the
    /// restore stub's end to the last launch's commit).
    pub cycles: u64,
    /// Fast-forwarded: the window the tile ran, and the cycles of the restore stub.
    pub window: Option<(Window, u64)>,
    /// CP instructions committed.
    pub instret: u64,
    /// CP commits checked against the ISS (0 without lockstep).
    pub matched: u64,
    /// Warp instructions the front end committed (`ftrace`), their active threads, and
    /// those the CP completed (`ftrace`'s `cp`: the affine share with +a).
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub cp_instructions: u64,
    /// SRF writes (`wtrace`) and ASRF writes (`atrace`, +a).
    pub srf_writes: u64,
    pub asrf_writes: u64,
    /// With lockstep: each launch's model counts, and the SRF writes checked.
    pub launches: Vec<KernelStats>,
    pub writes_checked: u64,
    /// With lockstep on the DWS sequencer: its decisions the golden sequencer matched,
    /// and the golden sequencer's counters (`SeqFollower::stats`).
    pub sequencer: Option<(u64, LaunchStats)>,
    pub trap: Option<TrapReport>,
    pub mem: MemStats,
    /// With `avc`: the AVC's memory port (`avc_mem`, its own space).
    pub private_mem: Option<MemStats>,
    pub engine: EngineStats,
}

/// The engine's Table 3 counters at the exit (`stat_*` ports of the tile).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineStats {
    /// Cycles launches ran (from a launch's acceptance to its answer).
    pub kernel_cycles: u64,
    /// D$ accesses of the SMU: wide (one line for a thread group) and narrow.
    pub wide: u64,
    pub narrow: u64,
    /// Bytes the threads' memory accesses asked for.
    pub bytes: u64,
}

impl EngineStats {
    fn read<S: Simulator>(dut: &mut S) -> Result<EngineStats, FgsimtError> {
        let mut f = |n: &str| peek_u64(dut, &format!("stat_{n}"));
        Ok(EngineStats {
            kernel_cycles: f("kernel_cycles")?,
            wide: f("wide")?,
            narrow: f("narrow")?,
            bytes: f("bytes")?,
        })
    }
}

/// Why a run failed: as `tb::soc`'s, or the engine's own.
#[derive(Debug, thiserror::Error)]
pub enum FgsimtError {
    #[error(transparent)]
    Soc(#[from] SocError),
    #[error(transparent)]
    Golden(#[from] SpmdError),
    #[error("cycle {cycle}: kernel thread {} trapped at pc {:#x}: {} (mcause {}, mtval {:#x}); kernels have no trap handler", .fault.thread, .fault.pc, crate::exit::cause_name(.fault.cause), .fault.cause, .fault.tval)]
    Fault { cycle: u64, fault: FaultRecord },
    #[error("fast-forward: {0}")]
    FastForward(#[from] FastForwardError),
    #[error("the DWS sequencer against its golden model: {0}")]
    Sequencer(#[from] SeqError),
    #[error("the D$ did not finish its flush within {0} cycles")]
    Flush(u64),
    #[error(
        "after the D$ flush, memory at {addr:#x} is {design:#010x}, the ISS's is {model:#010x}"
    )]
    MemoryDiffers { addr: u64, design: u32, model: u32 },
    #[error("the AVC's memory traffic (blocks read, written) is {engine:?}; the golden replay of the engine's private accesses, in its order, makes {model:?}")]
    AvcTraffic {
        engine: (u64, u64),
        model: (u64, u64),
    },
}

/// The errors a run shares with `tb::soc`'s, through [`SocError`].
macro_rules! via_soc {
    ($($t:ty),*) => {
        $(impl From<$t> for FgsimtError {
            fn from(e: $t) -> Self {
                FgsimtError::Soc(e.into())
            }
        })*
    };
}
via_soc!(MemError, HtifError, IssError, LockstepError, SignalError);

/// Errors of [`SpmdGolden`].
#[derive(Debug, thiserror::Error)]
pub enum SpmdError {
    #[error(transparent)]
    Host(#[from] IssGoldenError),
    #[error("kernel {launch}: {err}")]
    Kernel { launch: usize, err: KernelError },
    #[error("the engine ran a kernel, but the program has no launch left")]
    NoLaunch,
    #[error("kernel {launch}: the AVC's golden replay: {what}")]
    Avc { launch: usize, what: String },
}

/// The host on the RV32IMAF ISS with its launches run on the SIMT model beside the
/// engine (the golden model of a lockstep run of design `fgsimt`).
pub struct SpmdGolden {
    host: IssGolden,
    shape: KernelShape,
    /// Host records the ISS retired on its way to a launch that the CP has not
    /// committed yet.
    ahead: VecDeque<CommitRecord>,
    kernel: Option<KernelChecker>,
    pub launches: Vec<KernelStats>,
    pub writes_checked: u64,
    /// Pages the kernels stored to (compared after the run).
    pub stored_pages: BTreeSet<u64>,
    /// With private stacks (`avc`): each launch's, dead after it and not compared.
    pub private_ranges: Vec<(u64, u64)>,
    /// With `FgsimtConfig::avc`: the golden AVC replaying the engine's private
    /// accesses, and the running launch's stacks.
    avc: Option<(Replay, Option<Stacks>)>,
}

impl SpmdGolden {
    pub fn new(program: &Program, shape: KernelShape, max_steps: u64) -> Result<Self, IssError> {
        Ok(Self::from_host(host_golden(program, max_steps)?, shape))
    }

    /// The model continuing from `host` (the host's ISS with SIMT, before a launch).
    pub fn from_host(mut host: IssGolden, shape: KernelShape) -> Self {
        host.iss_mut().defer_launches();
        SpmdGolden {
            host,
            shape,
            ahead: VecDeque::new(),
            kernel: None,
            launches: Vec::new(),
            writes_checked: 0,
            stored_pages: BTreeSet::new(),
            private_ranges: Vec::new(),
            avc: None,
        }
    }

    /// Replays the kernels' private accesses through a golden AVC of shape `p`, in the
    /// engine's order ([`SpmdGolden::avc_traffic`]).
    pub fn with_avc(mut self, p: AvcParams) -> Self {
        self.avc = Some((Replay::new(vec![Controller::new(p)]), None));
        self
    }

    /// With an AVC replay: its memory traffic so far (blocks filled, blocks written
    /// back), as the engine's `avc_mem` port counts its reads and writes.
    pub fn avc_traffic(&self) -> Option<(u64, u64)> {
        let (replay, _) = self.avc.as_ref()?;
        let c = &replay.counters()[0];
        Some((c.fills, c.writebacks_affine + c.writebacks_generic))
    }

    pub fn iss(&mut self) -> &mut Iss {
        self.host.iss_mut()
    }

    /// The launch the engine runs (the host's next one, once the engine shows it) and
    /// the ISS.
    fn kernel(&mut self) -> Result<(&mut KernelChecker, &mut Iss), SpmdError> {
        while self.kernel.is_none() {
            match self.host.next_step()? {
                Some(GoldenStep::Record(r)) => self.ahead.push_back(r),
                Some(GoldenStep::Launch(l)) => {
                    let iss = self.host.iss_mut();
                    let stacks = Stacks::of_launch(iss, l.n, self.shape.warp_size);
                    if let Some(s) = stacks.filter(|_| self.shape.mech.private) {
                        let low = s.top.wrapping_sub(l.n as u64 * s.bytes);
                        self.private_ranges.push((low, s.top));
                    }
                    if let Some((_, running)) = self.avc.as_mut() {
                        *running = stacks;
                    }
                    let k = KernelChecker::new(l, self.shape);
                    self.kernel = Some(k);
                }
                None => return Err(SpmdError::NoLaunch),
            }
        }
        let k = self.kernel.as_mut().expect("started above");
        Ok((k, self.host.iss_mut()))
    }

    fn kernel_err(&self, err: KernelError) -> SpmdError {
        SpmdError::Kernel {
            launch: self.launches.len(),
            err,
        }
    }

    /// Checks a warp instruction the engine committed.
    pub fn insn(&mut self, r: FetchRecord) -> Result<(), SpmdError> {
        let (k, iss) = self.kernel()?;
        let checked = k.insn(iss, r);
        let matched = k.take_matched();
        checked.map_err(|e| self.kernel_err(e))?;
        if let (Some((replay, Some(stacks))), Some(c)) = (self.avc.as_mut(), matched) {
            let launch = self.launches.len();
            (replay.warp(&c, stacks)).map_err(|what| SpmdError::Avc { launch, what })?;
        }
        Ok(())
    }

    /// Checks an SRF write.
    pub fn write(&mut self, w: WriteRecord) -> Result<(), SpmdError> {
        let (k, _) = self.kernel()?;
        k.write(w).map_err(|e| self.kernel_err(e))
    }

    /// Checks an ASRF write of the running launch.
    pub fn asrf(&mut self, w: AsrfRecord) -> Result<(), SpmdError> {
        let (k, _) = self.kernel()?;
        k.asrf(w).map_err(|e| self.kernel_err(e))
    }

    /// Checks the engine's fault against the model's trap.
    pub fn fault(&mut self, f: FaultRecord) -> Result<(), SpmdError> {
        let (k, iss) = self.kernel()?;
        k.fault(iss, f).map_err(|e| self.kernel_err(e))
    }

    /// Ends the running launch: the engine must have shown all of it.
    fn finish_kernel(&mut self) -> Result<CommitRecord, SpmdError> {
        let (k, iss) = self.kernel()?;
        let done = k.finish(iss);
        let k = self.kernel.take().expect("running");
        done.map_err(|e| self.kernel_err(e))?;
        self.launches.push(k.stats());
        if let Some((replay, _)) = self.avc.as_mut() {
            replay.end_launch();
        }
        self.writes_checked += k.writes_checked;
        self.stored_pages.extend(&k.stored_pages);
        Ok(self.host.finish_launch())
    }
}

impl GoldenModel for SpmdGolden {
    type Error = SpmdError;

    fn next_record(&mut self) -> Result<Option<CommitRecord>, SpmdError> {
        if let Some(r) = self.ahead.pop_front() {
            return Ok(Some(r));
        }
        if self.kernel.is_some() {
            return self.finish_kernel().map(Some);
        }
        match self.host.next_step()? {
            Some(GoldenStep::Record(r)) => Ok(Some(r)),
            // A launch the engine answered without tracing anything (no threads).
            Some(GoldenStep::Launch(l)) => {
                self.kernel = Some(KernelChecker::new(l, self.shape));
                self.finish_kernel().map(Some)
            }
            None => Ok(None),
        }
    }

    fn reconcile(&mut self, expected: &mut CommitRecord, actual: &CommitRecord) {
        self.host.reconcile(expected, actual);
    }
}

/// The tile's memory ports with their widths in bytes, in the memory model's order: a
/// D$ bank's is a line of `line_bytes`.
pub fn ports(banks: u32, line_bytes: u32) -> Vec<(MemPort, u32)> {
    let plain = |name: &str| MemPort {
        resp_ready: None,
        ..MemPort::decoupled(name, false)
    };
    let mut ports = vec![(plain("icache_mem"), 8)];
    ports.extend((0..banks).map(|b| (plain(&format!("b{b}_mem")), line_bytes)));
    let io = MemPort {
        resp_ready: None,
        ..MemPort::decoupled_with_amo("io_mem", true)
    };
    ports.push((io, 4));
    ports
}

/// With private stacks (`shape.mech.private`, the tile's `avc`): the memory behind the
/// AVC's `avc_mem` port (blocks of `4 * warp_size` bytes with a byte mask), a space of
/// its own, empty at reset.
fn private_memory(config: &FgsimtConfig) -> Result<Option<MemoryModel>, MemError> {
    if !config.shape.mech.private {
        return Ok(None);
    }
    let port = MemPort {
        resp_ready: None,
        req_size: None,
        ..MemPort::decoupled("avc_mem", false)
    };
    let mem = MemConfig {
        bandwidth: Bandwidth {
            requests: 1,
            cycles: 1,
        },
        ..config.mem.clone()
    };
    let mut model = MemoryModel::new(mem, vec![port])?;
    model.set_port_bytes(0, 4 * config.shape.warp_size)?;
    Ok(Some(model))
}

/// The memory model holding `program` and the reset ROM, serving [`ports`].
fn memory(program: &Program, config: &FgsimtConfig) -> Result<MemoryModel, MemError> {
    let ports = ports(config.banks, config.line_bytes);
    let mem = MemConfig {
        bandwidth: Bandwidth {
            requests: ports.len() as u32,
            cycles: 1,
        },
        ..config.mem.clone()
    };
    program_memory(mem, ports, program)
}

/// Counts of the engine's traces over a run, and the warp each context holds.
#[derive(Default)]
struct Traced {
    warp_instructions: u64,
    thread_instructions: u64,
    cp_instructions: u64,
    srf_writes: u64,
    asrf_writes: u64,
    /// Per context: the warp of its last `ftrace` (a context's writes come after its
    /// warp's first instruction, and its next warp's first instruction after them).
    context_warps: Vec<u32>,
}

/// Runs `program` from reset until it exits through HTIF (fast-forwarded: from the end
/// of the restore stub to the last launch), then flushes the D$. With `lockstep`, the
/// CP's commits and the kernels are checked against the ISS, and memory after the
/// flush.
pub fn run<S: Simulator>(
    dut: &mut S,
    program: &Program,
    config: &FgsimtConfig,
    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
    lockstep: bool,
) -> Result<FgsimtOutcome, FgsimtError> {
    let mut memory = memory(program, config)?;
    if let Some(d) = &config.directory {
        memory.memory_mut().write(d.base, &d.bytes);
    }
    let mut private = private_memory(config)?;
    let (golden, start) = if config.fast_forward {
        let (start, g) = fast_forward::prepare(program, config.max_steps, memory.memory_mut())?;
        let g = lockstep.then(|| SpmdGolden::from_host(g, config.shape));
        (g, Some(start))
    } else {
        let g = lockstep.then(|| SpmdGolden::new(program, config.shape, config.max_steps));
        (g.transpose()?, None)
    };
    let golden = match config.avc {
        Some(p) => golden.map(|g| g.with_avc(p)),
        None => golden,
    };
    let mut side = HostSide::new(program, (stdout, stderr), golden, config.max_idle)?;
    super::signal(dut.reinit(config.init))?;
    poke_u64(dut, "flush", 0)?;
    super::signal(dut.poke_u64("reset", 1))?;
    dut.step();
    super::signal(dut.poke_u64("reset", 0))?;
    let window = start.map(|s| s.run(dut, &mut memory)).transpose()?;
    let mut follower = match (lockstep, &config.sequencer, &config.directory) {
        (true, Some(d), Some(dir)) => Some(SeqFollower::new(config_of(d), program, dir)),
        _ => None,
    };
    let mut traced = Traced {
        context_warps: vec![0; config.shape.contexts as usize],
        ..Traced::default()
    };
    for cycle in 0..config.max_cycles {
        let exit = side.cycle(dut, memory.memory_mut())?;
        if let Some(code) = fast_forward::end(window.as_ref(), side.instret, exit) {
            let engine = EngineStats::read(dut)?;
            flush(dut, &mut memory)?;
            let (launches, writes_checked) = match side.lockstep.as_mut() {
                Some(l) => {
                    let g = l.golden_mut();
                    let pages = g.stored_pages.clone();
                    let dead = g.private_ranges.clone();
                    let iss = g.iss();
                    compare_memory(memory.memory(), iss, &pages, (program, &dead))?;
                    let g = l.golden();
                    let engine = private
                        .as_ref()
                        .map(|p| (p.stats().reads, p.stats().writes));
                    if let (Some(model), Some(engine)) = (g.avc_traffic(), engine) {
                        if model != engine {
                            return Err(FgsimtError::AvcTraffic { engine, model });
                        }
                    }
                    (g.launches.clone(), g.writes_checked)
                }
                None => (Vec::new(), 0),
            };
            return Ok(FgsimtOutcome {
                exit_code: code,
                cycles: cycle + 1,
                window,
                instret: side.instret,
                matched: side.matched(),
                warp_instructions: traced.warp_instructions,
                thread_instructions: traced.thread_instructions,
                cp_instructions: traced.cp_instructions,
                srf_writes: traced.srf_writes,
                asrf_writes: traced.asrf_writes,
                launches,
                writes_checked,
                sequencer: follower.as_ref().map(|f| (f.decisions, f.stats())),
                trap: trap_report(program, |a| memory.memory().read_u64(a)),
                engine,
                mem: memory.stats(),
                private_mem: private.as_ref().map(MemoryModel::stats),
            });
        }
        let golden = side.lockstep.as_mut().map(Lockstep::golden_mut);
        let before = traced.warp_instructions;
        engine_traces(dut, config.shape, cycle, golden, &mut traced)?;
        // A kernel's warp instructions are progress although the CP commits nothing
        // while it waits for the launch (which may take more than `max_idle` cycles).
        if let (Some(l), true) = (side.lockstep.as_mut(), traced.warp_instructions > before) {
            l.progressed();
        }
        memory.tick(dut)?;
        if let Some(p) = private.as_mut() {
            p.tick(dut)?;
        }
        // After the memories drove this cycle's responses: the sequencer's inputs as
        // the clock edge takes them.
        if let Some(f) = follower.as_mut() {
            f.cycle(dut)?;
        }
        dut.step();
    }
    Err(SocError::Timeout {
        cycles: config.max_cycles,
        instret: side.instret,
    }
    .into())
}

/// Reads the engine's `fault`, `wtrace` and `ftrace` this cycle (writes before the
/// cycle's warp instruction: they belong to instructions committed earlier), counting
/// them and, with `golden`, checking them. With several contexts, a write's register
/// field is `context * 64 + register`: the write is for the warp that context holds.
fn engine_traces<S: Simulator>(
    dut: &mut S,
    shape: KernelShape,
    cycle: u64,
    mut golden: Option<&mut SpmdGolden>,
    traced: &mut Traced,
) -> Result<(), FgsimtError> {
    if peek_u64(dut, "fault_valid")? == 1 {
        let mut f = |n: &str| peek_u64(dut, &format!("fault_bits_{n}"));
        let fault = FaultRecord {
            cause: f("cause")?,
            pc: f("pc")?,
            thread: f("thread")? as u32,
            tval: f("tval")?,
        };
        if let Some(g) = golden.as_mut() {
            g.fault(fault)?;
        }
        return Err(FgsimtError::Fault { cycle, fault });
    }
    for lane in 0..shape.lanes {
        for port in 0..SRF_WRITE_PORTS {
            let name = |f: &str| format!("wtrace_{lane}_{port}_{f}");
            if peek_u64(dut, &name("valid"))? == 0 {
                continue;
            }
            traced.srf_writes += 1;
            let reg = peek_u64(dut, &name("bits_reg"))?;
            let context = (reg / 64) as usize;
            let w = WriteRecord {
                warp: *(traced.context_warps.get(context))
                    .expect("wtrace's context is one of the shape's contexts"),
                lane,
                port,
                reg: (reg % 64) as u8,
                slot: peek_u64(dut, &name("bits_slot"))? as u32,
                data: peek_u64(dut, &name("bits_data"))? as u32,
            };
            if let Some(g) = golden.as_mut() {
                g.write(w)?;
            }
        }
    }
    if peek_u64(dut, "ftrace_valid")? == 1 {
        let warp = peek_u64(dut, "ftrace_bits_warp")? as u32;
        let context = match shape.contexts {
            1 => 0,
            _ => peek_u64(dut, "ftrace_bits_ctx")? as usize,
        };
        *(traced.context_warps.get_mut(context))
            .expect("ftrace's context is one of the shape's contexts") = warp;
        let r = FetchRecord {
            warp,
            pc: peek_u64(dut, "ftrace_bits_pc")?,
            insn: peek_u64(dut, "ftrace_bits_insn")? as u32,
            mask: peek_u64(dut, "ftrace_bits_mask")? as u32,
            cp: peek_u64(dut, "ftrace_bits_cp")? == 1,
        };
        traced.warp_instructions += 1;
        traced.thread_instructions += r.mask.count_ones() as u64;
        traced.cp_instructions += r.cp as u64;
        if let Some(g) = golden.as_mut() {
            g.insn(r)?;
        }
    }
    // The ASRF's write of this cycle's warp instruction (or of a scalar one's result).
    if shape.mech.arith && peek_u64(dut, "atrace_valid")? == 1 {
        let mut f = |n: &str| peek_u64(dut, &format!("atrace_bits_{n}"));
        let context = match shape.contexts {
            1 => 0,
            _ => f("ctx")? as usize,
        };
        let w = AsrfRecord {
            warp: *(traced.context_warps.get(context))
                .expect("atrace's context is one of the shape's contexts"),
            reg: f("reg")? as u8,
            ok: f("ok")? == 1,
            base: f("base")? as u32,
            stride: f("stride")? as u16,
        };
        traced.asrf_writes += 1;
        if let Some(g) = golden {
            g.asrf(w)?;
        }
    }
    Ok(())
}

/// Cycles a D$ flush may take.
const FLUSH_CYCLES: u64 = 10_000_000;

/// Writes the D$'s dirty lines back (`flush` until `flush_done`), serving memory (also
/// design `vgiw`'s L1).
pub(crate) fn flush<S: Simulator>(
    dut: &mut S,
    memory: &mut MemoryModel,
) -> Result<(), FgsimtError> {
    poke_u64(dut, "flush", 1)?;
    for _ in 0..FLUSH_CYCLES {
        if peek_u64(dut, "flush_done")? == 1 {
            poke_u64(dut, "flush", 0)?;
            return Ok(());
        }
        memory.tick(dut)?;
        dut.step();
    }
    Err(FgsimtError::Flush(FLUSH_CYCLES))
}

/// Compares the design's memory with the ISS's over the pages either wrote: the
/// design's (the program's are loaded into the design's memory) and `written` (the ISS's
/// RAM only; HTIF's `tohost` and `fromhost` words, which host and ISS clear on their own
/// schedules, excepted, and the `dead` ranges: private stacks, which the design keeps
/// in a space of its own). Also design `vgiw`'s.
pub(crate) fn compare_memory(
    design: &SparseMemory,
    iss: &Iss,
    written: &BTreeSet<u64>,
    (program, dead): (&Program, &[(u64, u64)]),
) -> Result<(), FgsimtError> {
    let mut pages: BTreeSet<u64> = design.pages().collect();
    pages.extend(written);
    let mailbox = |a: u64| {
        let word = a & !7;
        word == program.tohost & !7 || Some(word) == program.fromhost.map(|f| f & !7)
    };
    for page in pages {
        let Some(want) = iss.mem.slice(page, 4096) else {
            continue;
        };
        let mut got = vec![0u8; 4096];
        design.read(page, &mut got);
        for off in (0..4096).step_by(4) {
            let addr = page + off as u64;
            let word = |b: &[u8]| u32::from_le_bytes(b[off..off + 4].try_into().unwrap());
            let (d, m) = (word(&got), word(want));
            let private = dead.iter().any(|&(lo, hi)| (lo..hi).contains(&addr));
            if d != m && !mailbox(addr) && !private {
                return Err(FgsimtError::MemoryDiffers {
                    addr,
                    design: d,
                    model: m,
                });
            }
        }
    }
    Ok(())
}
