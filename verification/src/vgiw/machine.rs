//! The VGIW execution model (seed 004 sections 2 and 3.2, Figure 2): a launch runs in
//! tiles of as many threads as the CVT holds for the kernel's blocks. A tile starts with
//! every thread in block 0's vector; the BBS then repeatedly picks the smallest block ID
//! whose vector is not empty, reads its vector word by word (each word a batch packet of
//! a base TID and a 64-bit bitmap, reset as it is read), runs each thread of the batch
//! through the block's graph (the fabric, coalesced: every thread that reached the block
//! by any path) and ORs the batch's two completion bitmaps into its successors' vectors.
//! A tile ends when every vector is empty. Live values live in the LVC per tile.
//!
//! A block that is its own successor (a one-block loop): its threads re-enter the
//! block's vector after the BBS has read their word, and the block is scheduled again
//! right after (it is still the smallest non-empty one). The paper leaves this open; we
//! count no reconfiguration between the two schedulings, since the fabric's
//! configuration is unchanged.

use super::cvt::{Cvt, TwoEntries};
use super::interp::{run_block, DataMemory, InterpError, LiveValues, Order, ThreadInit};
use super::lvc::{Lvc, LvcShape, LvcStats};
use generators::vgiw::compiler::{Kernel, Succ};
use generators::vgiw::params::VgiwParams;

/// One scheduling of a block: its thread vector (launch thread IDs) and every non-empty
/// vector of the CVT after its completions were ORed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub block: u16,
    pub threads: Vec<u32>,
    pub cvt_after: Vec<(u16, Vec<u32>)>,
}

/// What a launch did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchStats {
    pub tiles: u64,
    /// Block schedulings (steps).
    pub blocks_executed: u64,
    /// Schedulings of a block other than the one configured before.
    pub reconfigurations: u64,
    /// Thread-block executions.
    pub thread_blocks: u64,
    /// The kernel instructions the threads' blocks stand for (the ISS would retire them).
    pub thread_instructions: u64,
    pub lvc: LvcStats,
    /// Largest thread vector scheduled.
    pub max_vector: u64,
}

/// Why a launch could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MachineError {
    #[error(transparent)]
    Interp(#[from] InterpError),
    #[error(transparent)]
    Cvt(#[from] TwoEntries),
    #[error("the fabric: {0}")]
    Fabric(String),
    #[error("kernel {kernel} has {blocks} blocks, more than the CVT's {words} words or the BBS's max_blocks ({max_blocks}) hold")]
    CvtTooSmall {
        kernel: String,
        blocks: usize,
        words: u32,
        max_blocks: u32,
    },
}

/// A launch's threads' start (launch constants): gp, tp, stack top and bytes a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchInit {
    pub gp: u32,
    pub tp: u32,
    pub stack_top: u32,
    pub stack_bytes: u32,
}

/// What runs a batch of threads through a block: the graph interpreter
/// ([`Interpreter`]) or the fabric's RTL (`super::fabric`).
pub trait BlockRunner {
    /// Runs `threads` (one batch packet's) through block `block` (an index into
    /// `kernel.blocks`) over `mem` and the live values `lvs`; each thread's successor, in
    /// the order of `threads`.
    fn run_batch(
        &mut self,
        kernel: &Kernel,
        block: usize,
        threads: &[ThreadInit],
        mem: &mut dyn DataMemory,
        lvs: &mut dyn LiveValues,
    ) -> Result<Vec<Succ>, MachineError>;
}

/// The block interpreter, a thread after another, each graph in graph order.
pub struct Interpreter;

impl BlockRunner for Interpreter {
    fn run_batch(
        &mut self,
        kernel: &Kernel,
        block: usize,
        threads: &[ThreadInit],
        mem: &mut dyn DataMemory,
        lvs: &mut dyn LiveValues,
    ) -> Result<Vec<Succ>, MachineError> {
        let block = &kernel.blocks[block];
        (threads.iter())
            .map(|t| Ok(run_block(block, t, mem, lvs, Order::Graph)?))
            .collect()
    }
}

/// What runs a launch: the execution model's scheduler around a block runner
/// ([`Coalescing`]) or the BBS's RTL (`super::bbs`).
pub trait LaunchRunner {
    /// Runs `n` threads of `kernel` on `mem`; `trace` receives every step.
    fn launch(
        &mut self,
        kernel: &Kernel,
        n: u32,
        init: LaunchInit,
        params: &VgiwParams,
        mem: &mut dyn DataMemory,
        trace: Option<&mut Vec<Step>>,
    ) -> Result<LaunchStats, MachineError>;
}

/// The model's BBS and CVT ([`run_launch_on`]) with the batches run by a block runner.
pub struct Coalescing<'a>(pub &'a mut dyn BlockRunner);

impl LaunchRunner for Coalescing<'_> {
    fn launch(
        &mut self,
        kernel: &Kernel,
        n: u32,
        init: LaunchInit,
        params: &VgiwParams,
        mem: &mut dyn DataMemory,
        trace: Option<&mut Vec<Step>>,
    ) -> Result<LaunchStats, MachineError> {
        run_launch_on(self.0, kernel, n, init, params, mem, trace)
    }
}

/// Runs `n` threads of `kernel` on `mem` with the interpreter; `trace` receives every
/// step.
pub fn run_launch(
    kernel: &Kernel,
    n: u32,
    init: LaunchInit,
    params: &VgiwParams,
    mem: &mut dyn DataMemory,
    trace: Option<&mut Vec<Step>>,
) -> Result<LaunchStats, MachineError> {
    run_launch_on(&mut Interpreter, kernel, n, init, params, mem, trace)
}

/// The empty LVC of a launch of `kernel`, once its blocks are known to fit the CVT and
/// the BBS.
pub fn launch_lvc(kernel: &Kernel, params: &VgiwParams) -> Result<Lvc, MachineError> {
    let blocks = kernel.blocks.len();
    if params.tile_threads(blocks) == 0 {
        return Err(MachineError::CvtTooSmall {
            kernel: kernel.name.clone(),
            blocks,
            words: params.cvt_words,
            max_blocks: params.max_blocks,
        });
    }
    Ok(Lvc::new(LvcShape {
        bytes: params.lvc_bytes,
        ways: 1,
        line_bytes: generators::fgsimt::params::BLOCK_BYTES,
    }))
}

/// [`run_launch`] with the batches run by `runner`.
pub fn run_launch_on(
    runner: &mut dyn BlockRunner,
    kernel: &Kernel,
    n: u32,
    init: LaunchInit,
    params: &VgiwParams,
    mem: &mut dyn DataMemory,
    mut trace: Option<&mut Vec<Step>>,
) -> Result<LaunchStats, MachineError> {
    let blocks = kernel.blocks.len();
    let tile = params.tile_threads(blocks);
    let mut lvc = launch_lvc(kernel, params)?;
    let mut stats = LaunchStats::default();
    let mut configured: Option<u16> = None;
    for base in (0..n).step_by(tile as usize) {
        let threads = tile.min(n - base);
        stats.tiles += 1;
        lvc.start_tile(base, threads);
        let mut cvt = Cvt::new(blocks, threads as usize);
        for w in 0..cvt.words() {
            let live = threads as usize - 64 * w;
            let bitmap = if live >= 64 {
                u64::MAX
            } else {
                (1 << live) - 1
            };
            cvt.or(0, w, bitmap)?;
        }
        while let Some(b) = cvt.next_block() {
            let block = &kernel.blocks[b as usize];
            let vector = cvt.threads(b);
            stats.blocks_executed += 1;
            stats.max_vector = stats.max_vector.max(vector.len() as u64);
            if configured != Some(b) {
                stats.reconfigurations += 1;
                configured = Some(b);
            }
            let insns = (block.end - block.start.unwrap_or(block.end)) as u64 / 4;
            for w in 0..cvt.words() {
                let bitmap = cvt.read_and_reset(b, w);
                let lanes: Vec<u32> = (0..64).filter(|i| bitmap >> i & 1 != 0).collect();
                let batch: Vec<ThreadInit> = (lanes.iter())
                    .map(|i| {
                        let tid = base + 64 * w as u32 + i;
                        ThreadInit {
                            tid,
                            gp: init.gp,
                            tp: init.tp,
                            sp: init
                                .stack_top
                                .wrapping_sub(tid.wrapping_mul(init.stack_bytes)),
                        }
                    })
                    .collect();
                if batch.is_empty() {
                    continue;
                }
                let succs = runner.run_batch(kernel, b as usize, &batch, mem, &mut lvc)?;
                let mut out: Vec<(Succ, u64)> = Vec::new();
                for (&i, s) in lanes.iter().zip(succs) {
                    stats.thread_blocks += 1;
                    stats.thread_instructions += insns;
                    match out.iter_mut().find(|(o, _)| *o == s) {
                        Some((_, m)) => *m |= 1 << i,
                        None => out.push((s, 1 << i)),
                    }
                }
                // The batch's completion packets, one per successor.
                for (s, m) in out {
                    if let Succ::Block(to) = s {
                        cvt.or(to, w, m)?;
                    }
                }
            }
            if let Some(trace) = trace.as_deref_mut() {
                let abs = |v: Vec<u32>| v.into_iter().map(|t| t + base).collect();
                trace.push(Step {
                    block: b,
                    threads: abs(vector),
                    cvt_after: (cvt.contents().into_iter())
                        .map(|(blk, t)| (blk, abs(t)))
                        .collect(),
                });
            }
        }
    }
    stats.lvc = lvc.stats;
    Ok(stats)
}
