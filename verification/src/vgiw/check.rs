//! The compiler checked against the ISS on every block a program executes: at each block
//! entry of each thread, the block's graph is evaluated by the interpreter (nodes firing
//! in a random order the graph allows) on the live values the ISS's registers hold and
//! on the ISS's memory; then the ISS runs the block's instructions. The successor, every
//! live value live after the block and every byte the block writes must agree.

use super::interp::{run_block, DataMemory, InterpError, LiveValues, Order, ThreadInit};
use super::kernels::KernelError;
use crate::elf::Program;
use crate::fgsimt::program::{host, run_host, ProgramError};
use crate::iss::mem::Memory;
use crate::iss::simt::{Launch, Thread};
use crate::iss::{Iss, IssConfig, IssError};
use crate::rng::Rng;
use generators::vgiw::compiler::decode::Reg;
use generators::vgiw::compiler::{Block, Kernel, Succ};
use std::collections::BTreeMap;

/// What a check covered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    pub launches: u64,
    pub threads: u64,
    /// Block executions checked (block 0 included).
    pub blocks: u64,
}

/// Where the compiled kernel and the ISS disagree, or why the check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Kernel(#[from] KernelError),
    #[error(transparent)]
    Iss(#[from] IssError),
    #[error(transparent)]
    Interp(#[from] InterpError),
    #[error("launch of {entry:#x}: no compiled kernel has that entry")]
    Unknown { entry: u64 },
    #[error("thread {tid} of {kernel}: pc {pc:#x} after block {block} is not a block's start")]
    NotABlock {
        kernel: String,
        tid: u32,
        block: u16,
        pc: u64,
    },
    #[error("thread {tid} of {kernel}, block {block}: {what}")]
    Mismatch {
        kernel: String,
        tid: u32,
        block: u16,
        what: String,
    },
}

impl From<ProgramError> for CheckError {
    fn from(e: ProgramError) -> Self {
        CheckError::Kernel(e.into())
    }
}

/// The ISS's memory with a block's writes kept aside.
struct Overlay<'a> {
    mem: &'a Memory,
    bytes: BTreeMap<u32, u8>,
}

impl DataMemory for Overlay<'_> {
    fn read(&mut self, addr: u32, bytes: u32) -> Option<u32> {
        let mut v = 0u32;
        for k in (0..bytes).rev() {
            let a = addr.wrapping_add(k);
            let b = match self.bytes.get(&a) {
                Some(b) => *b,
                None => self.mem.read(a as u64, 1)? as u8,
            };
            v = v << 8 | b as u32;
        }
        Some(v)
    }

    fn write(&mut self, addr: u32, bytes: u32, value: u32) -> bool {
        if self.mem.read(addr as u64, bytes as usize).is_none() {
            return false;
        }
        for k in 0..bytes {
            self.bytes
                .insert(addr.wrapping_add(k), (value >> (8 * k)) as u8);
        }
        true
    }
}

/// Live values from registers at the block's entry; a load after a store of its LVID
/// reads the stored value, as from the LVC (so a graph whose store may overtake an
/// earlier load of the same live value is caught under the random firing order).
struct Registers {
    values: Vec<u32>,
    stored: BTreeMap<u16, u32>,
}

impl LiveValues for Registers {
    fn load(&mut self, lvid: u16, _tid: u32) -> u32 {
        (self.stored.get(&lvid).copied()).unwrap_or(self.values[lvid as usize])
    }

    fn store(&mut self, lvid: u16, _tid: u32, value: u32) {
        self.stored.insert(lvid, value);
    }
}

fn reg(t: &Thread, r: Reg) -> u32 {
    if r.is_float() {
        t.f(r.0 as usize - 32) as u32
    } else {
        t.x(r.0 as usize) as u32
    }
}

/// The values the CVU gives thread `t` at its start.
pub fn thread_init(t: &Thread) -> ThreadInit {
    ThreadInit {
        tid: t.tid,
        gp: t.x(3) as u32,
        tp: t.x(4) as u32,
        sp: t.x(2) as u32,
    }
}

/// Checks `kernels` (every kernel the program launches) on every block execution of a
/// run of `program` within `max_steps`; `seed` picks the interpreter's firing orders.
pub fn check_program(
    program: &Program,
    kernels: &[Kernel],
    max_steps: u64,
    seed: u64,
) -> Result<Coverage, CheckError> {
    let mut iss = host(program, IssConfig::default()).map_err(KernelError::from)?;
    let mut rng = Rng::new(seed);
    let mut cov = Coverage::default();
    run_host(&mut iss, max_steps, |iss, launch| {
        let kernel = (kernels.iter())
            .find(|k| k.entry as u64 == launch.entry)
            .ok_or(CheckError::Unknown {
                entry: launch.entry,
            })?;
        cov.launches += 1;
        for tid in 0..launch.n {
            cov.threads += 1;
            cov.blocks += check_thread(iss, kernel, launch, tid, &mut rng)?;
        }
        Ok::<(), CheckError>(())
    })?;
    Ok(cov)
}

/// Runs thread `tid` block by block, checking each; the blocks it ran.
fn check_thread(
    iss: &mut Iss,
    kernel: &Kernel,
    launch: Launch,
    tid: u32,
    rng: &mut Rng,
) -> Result<u64, CheckError> {
    let mut t = iss.launch_thread(launch, tid);
    let init = thread_init(&t);
    let mut block = &kernel.blocks[0];
    let mut blocks = 0;
    loop {
        blocks += 1;
        let succ = check_block(iss, kernel, block, (&mut t, &init, launch.n), rng)?;
        match succ {
            Succ::Exit => return Ok(blocks),
            Succ::Block(b) => block = &kernel.blocks[b as usize],
        }
    }
}

/// Checks one block execution of thread `t`; its successor.
fn check_block(
    iss: &mut Iss,
    kernel: &Kernel,
    block: &Block,
    (t, init, n): (&mut Thread, &ThreadInit, u32),
    rng: &mut Rng,
) -> Result<Succ, CheckError> {
    let tid = t.tid;
    let mismatch = |what: String| CheckError::Mismatch {
        kernel: kernel.name.clone(),
        tid,
        block: block.id,
        what,
    };
    let mut lv = Registers {
        values: kernel.live_values.iter().map(|r| reg(t, *r)).collect(),
        stored: BTreeMap::new(),
    };
    let mut overlay = Overlay {
        mem: &iss.mem,
        bytes: BTreeMap::new(),
    };
    let succ = run_block(block, init, &mut overlay, &mut lv, Order::Random(rng))?;
    let written = overlay.bytes;
    let mut stored: BTreeMap<u32, u8> = BTreeMap::new();
    let steps = (block.end - block.start.unwrap_or(block.end)) / 4;
    for _ in 0..steps {
        let c = iss.step_thread(t, n)?;
        if let Some((addr, value, size)) = c.store {
            for k in 0..size as u64 {
                stored.insert((addr + k) as u32, (value >> (8 * k)) as u8);
            }
        }
    }
    let want = if t.exited() {
        Succ::Exit
    } else {
        match kernel.block_at(t.pc() as u32) {
            Some(b) => Succ::Block(b.id),
            None => {
                return Err(CheckError::NotABlock {
                    kernel: kernel.name.clone(),
                    tid: t.tid,
                    block: block.id,
                    pc: t.pc(),
                })
            }
        }
    };
    if succ != want {
        return Err(mismatch(format!(
            "successor {succ}, the ISS went to {want}"
        )));
    }
    for &l in &block.live_out {
        let r = kernel.live_values[l as usize];
        let got = lv.stored.get(&l).copied().unwrap_or(lv.values[l as usize]);
        let want = reg(t, r);
        if got != want {
            return Err(mismatch(format!(
                "live value lv{l} ({r}) is {got:#x} after the block, the ISS has {want:#x}"
            )));
        }
    }
    if written != stored {
        let diff = (written.iter())
            .find(|(a, v)| stored.get(a) != Some(v))
            .map(|(a, v)| {
                format!(
                    "the graph wrote {v:#04x} at {a:#x}, the ISS {:?}",
                    stored.get(a)
                )
            })
            .or_else(|| {
                (stored.iter())
                    .find(|(a, _)| !written.contains_key(a))
                    .map(|(a, v)| format!("the ISS wrote {v:#04x} at {a:#x}, the graph nothing"))
            })
            .unwrap_or_default();
        return Err(mismatch(diff));
    }
    Ok(succ)
}
