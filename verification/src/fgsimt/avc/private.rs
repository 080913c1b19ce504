//! A kernel's private-memory traffic as AVC transactions (seed 002, sections 2 and 3.2):
//! each warp instruction's stack accesses from the SIMT model ([`super::super::warp`]),
//! mapped to interleaved blocks and replayed through golden controllers
//! ([`super::controller`]), one per cache configuration.
//!
//! The mapping is the one spec 002 leaves open ([I], "private address → physical block"),
//! settled here as its proposal: word `w` of thread `t`'s stack (counted from the
//! stack's low end) sits at block `w * W + t / n` (`W` the launch's warps of `n`
//! threads), lane `t % n`. So one warp's accesses to the same stack slot are one block,
//! and a warp's consecutive slots are `W` blocks apart.
//!
//! Each instruction's accesses are grouped as the engine groups them (`smu/private.rs`):
//! the lowest thread left picks its stack word, and every thread left on that word goes
//! in one transaction. Word accesses (`lw`, `sw`, `flw`, `fsw`, AMOs) are a read, a
//! write, or for an AMO both (the engine faults on an AMO to a stack); byte and
//! halfword accesses a read, and for stores a write of the words with their bytes
//! merged in. So the engine's AVC makes exactly this replay's memory accesses.
//!
//! The controllers drop their contents, without writing back, when each launch ends: a
//! kernel's stacks are dead then. The traffic is what the launch's own capacity misses
//! make.
//! Every word a thread reads, once written in the launch, is checked against the ISS's
//! value.

use super::controller::{AvcParams, Controller, Counters};
use crate::elf::Program;
use crate::fgsimt::affine::Mechanisms;
use crate::fgsimt::program::{host, run_host, ProgramError};
use crate::fgsimt::warp::{KernelRun, WarpCommit};
use crate::iss::commitlog::Commit;
use crate::iss::IssConfig;
use std::collections::HashSet;

/// The stack layout of a launch: `stack` top, bytes a thread, threads, warp size.
#[derive(Clone, Copy, Debug)]
pub struct Stacks {
    pub top: u64,
    pub bytes: u64,
    pub threads: u32,
    pub warp_size: u32,
}

/// RISC-V's load and store/AMO access-fault causes.
pub const LOAD_ACCESS_FAULT: u64 = 5;
pub const STORE_ACCESS_FAULT: u64 = 7;

impl Stacks {
    /// The launch's stacks as the ISS's `stack` command set them.
    pub fn of_launch(iss: &crate::iss::Iss, threads: u32, warp_size: u32) -> Option<Stacks> {
        let [top, bytes, ..] = iss.launch_constants()?;
        Some(Stacks {
            top,
            bytes,
            threads,
            warp_size,
        })
    }

    /// Private memory's rule (the engine with `avc`; spec 002 leaves it open): the
    /// launch's stacks `[top - threads * bytes, top)` are private, so a thread may access
    /// only its own stack there, and no atomic (LR, SC, AMO) may. The trap (cause, tval)
    /// of `insn` (about to run on `thread`) if it breaks the rule, checked before it
    /// runs: an access fault (5 for a load or LR, 7 for a store, SC or AMO) with the
    /// address; a misaligned access is the ISS's own trap, first.
    pub fn violation(&self, insn: u32, thread: &crate::iss::simt::Thread) -> Option<(u64, u64)> {
        let (addr, size, write) = thread.access(insn)?;
        let region = (self.threads as u64 * self.bytes) & 0xffff_ffff;
        let below_top = self.top.wrapping_sub(1).wrapping_sub(addr) & 0xffff_ffff;
        if !addr.is_multiple_of(size) || below_top >= region {
            return None;
        }
        let own = self.locate(thread.tid, addr).is_some();
        if own && insn & 0x7f != crate::iss::decode::opcode::AMO {
            return None;
        }
        let cause = if write {
            STORE_ACCESS_FAULT
        } else {
            LOAD_ACCESS_FAULT
        };
        Some((cause, addr))
    }

    /// Thread `t`'s word index of `addr` and its byte in the word, if `addr` is in
    /// thread `t`'s stack.
    fn locate(&self, t: u32, addr: u64) -> Option<(u32, u32)> {
        let low = self.top.checked_sub((t as u64 + 1) * self.bytes)?;
        let off = addr.checked_sub(low).filter(|&o| o < self.bytes)?;
        Some(((off / 4) as u32, (off % 4) as u32))
    }

    /// The byte address of the block of stack word `w` of `warp`'s threads.
    fn block(&self, w: u32, warp: u32) -> u32 {
        let warps = self.threads.div_ceil(self.warp_size);
        (w * warps + warp) * 4 * self.warp_size
    }
}

/// One thread's private access: lane, word, byte, size, loaded value (a word load's
/// result as the ISS gave it), stored value.
struct Access {
    lane: u32,
    word: u32,
    byte: u32,
    size: u32,
    load: Option<Option<u32>>,
    store: Option<u32>,
}

/// A thread's memory access as its commit shows it: address, size, and for a load its
/// result when it is a word (`Some(None)` for a narrower load), for a store the value.
struct Op {
    addr: u64,
    size: u32,
    load: Option<Option<u32>>,
    store: Option<u32>,
}

fn access(c: &Commit) -> Option<Op> {
    let opcode = c.insn & 0x7f;
    let result = c
        .xreg
        .map(|(_, v)| v)
        .or(c.freg.map(|(_, v)| v))
        .map(|v| v as u32);
    if let Some((addr, value, size)) = c.store {
        let load = (opcode == 0x2f).then_some(result);
        return Some(Op {
            addr,
            size: size as u32,
            load,
            store: Some(value as u32),
        });
    }
    let addr = c.load?;
    let size = if opcode == 0x03 {
        1 << ((c.insn >> 12) & 3)
    } else {
        4
    };
    let word = (size == 4).then_some(result).flatten();
    Some(Op {
        addr,
        size,
        load: Some(word),
        store: None,
    })
}

/// The replay: controllers (one per configuration) and what was checked.
pub struct Replay {
    pub controllers: Vec<Controller>,
    /// Word loads checked against the ISS.
    pub checked: u64,
    /// Private accesses that were not word-sized.
    pub sub_word: u64,
    /// Private loads (any size) of a word the launch had not written: undefined in C
    /// (a stack slot read before it is set), so not checked.
    pub unwritten: u64,
    written: HashSet<(u32, u32)>,
}

impl Replay {
    pub fn new(controllers: Vec<Controller>) -> Replay {
        Replay {
            controllers,
            checked: 0,
            sub_word: 0,
            unwritten: 0,
            written: HashSet::new(),
        }
    }

    /// Each configuration's counters.
    pub fn counters(&self) -> Vec<Counters> {
        self.controllers
            .iter()
            .map(|c| c.counters.clone())
            .collect()
    }

    /// A launch ended: its stacks are dead, dropped without a write-back.
    pub fn end_launch(&mut self) {
        self.controllers.iter_mut().for_each(Controller::discard);
        self.written.clear();
    }

    /// One warp instruction's private accesses; an error names a word a controller
    /// answered differently from the ISS.
    pub fn warp(&mut self, wc: &WarpCommit, stacks: &Stacks) -> Result<(), String> {
        let lanes = (0..32).filter(|l| wc.mask >> l & 1 == 1);
        let mut accesses = Vec::new();
        for (lane, c) in lanes.zip(&wc.threads) {
            let tid = wc.warp * stacks.warp_size + lane;
            let Some(Op {
                addr,
                size,
                load,
                store,
            }) = access(c)
            else {
                continue;
            };
            if let Some((word, byte)) = stacks.locate(tid, addr) {
                accesses.push(Access {
                    lane,
                    word,
                    byte,
                    size,
                    load,
                    store,
                });
            }
        }
        // The engine's order (`smu/private.rs`): the lowest thread left picks the word,
        // every thread left on that word goes with it.
        while let Some(first) = accesses.first() {
            let w = first.word;
            let (group, rest): (Vec<Access>, Vec<Access>) =
                accesses.into_iter().partition(|a| a.word == w);
            let block = stacks.block(w, wc.warp);
            if group[0].size == 4 {
                self.words(block, &group, wc.pc)?;
            } else {
                self.sub_word += group.len() as u64;
                self.parts(block, &group);
            }
            accesses = rest;
        }
        Ok(())
    }

    /// A group's word accesses: a read (checked where written in this launch), a write.
    fn words(&mut self, block: u32, group: &[Access], pc: u64) -> Result<(), String> {
        let mask = group.iter().fold(0u32, |m, a| m | 1 << a.lane);
        if group.iter().any(|a| a.load.is_some()) {
            self.unwritten += group
                .iter()
                .filter(|a| a.load.is_some() && !self.written.contains(&(block, a.lane)))
                .count() as u64;
            for c in &mut self.controllers {
                let got = c.read(block, mask);
                for a in group {
                    let Some(Some(want)) = a.load else { continue };
                    if self.written.contains(&(block, a.lane)) && got[a.lane as usize] != want {
                        return Err(format!(
                            "pc {pc:#x}: block {block:#x} lane {}: the AVC model read {:#x}, the ISS {want:#x}",
                            a.lane, got[a.lane as usize]
                        ));
                    }
                }
            }
            self.checked += group
                .iter()
                .filter(|a| matches!(a.load, Some(Some(_))))
                .count() as u64;
        }
        if group.iter().any(|a| a.store.is_some()) {
            let n = self.controllers.first().map_or(32, |c| c.threads());
            let mut data = vec![0; n as usize];
            for a in group {
                data[a.lane as usize] = a.store.unwrap_or(0);
                self.written.insert((block, a.lane));
            }
            self.controllers
                .iter_mut()
                .for_each(|c| c.write(block, mask, &data));
        }
        Ok(())
    }

    /// A group's byte or halfword accesses: a read, and for stores a write of each
    /// thread's word with its bytes merged in.
    fn parts(&mut self, block: u32, group: &[Access]) {
        let mask = group.iter().fold(0u32, |m, a| m | 1 << a.lane);
        self.unwritten += group
            .iter()
            .filter(|a| a.load.is_some() && !self.written.contains(&(block, a.lane)))
            .count() as u64;
        for c in &mut self.controllers {
            let old = c.read(block, mask);
            if group[0].store.is_none() {
                continue;
            }
            let mut data = vec![0; c.threads() as usize];
            for a in group {
                let bits = 8 * a.size;
                let field = ((1u64 << bits) - 1) as u32;
                let v = a.store.unwrap_or(0);
                let old = old[a.lane as usize];
                data[a.lane as usize] =
                    (old & !(field << (8 * a.byte))) | ((v & field) << (8 * a.byte));
            }
            c.write(block, mask, &data);
        }
    }
}

/// GCC flags that leave a kernel 10 of the 28 allocatable registers (ra, t0, t1, s0,
/// a0-a5): the paper compiles under register limits, down to half the spill-free count,
/// so that kernels spill.
pub fn register_limit_flags() -> Vec<String> {
    (1..=11)
        .map(|i| format!("s{i}"))
        .chain((2..=6).map(|i| format!("t{i}")))
        .chain(["a6".into(), "a7".into()])
        .map(|r| format!("-ffixed-{r}"))
        .collect()
}

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Program(#[from] ProgramError),
    /// A controller answered a word differently from the ISS, or the run went wrong.
    #[error("{0}")]
    Replay(String),
}

/// Runs `program` on the SIMT model (warps of `warp_size`, no affine mechanisms) with
/// its private accesses replayed through a controller of each of `configs`.
pub fn replay_program(
    program: &Program,
    warp_size: u32,
    configs: &[AvcParams],
) -> Result<Replay, ReplayError> {
    let mut iss = host(program, IssConfig::default())?;
    let mut replay = Replay::new(configs.iter().map(|&p| Controller::new(p)).collect());
    let steps = 1_000_000_000;
    let exit = run_host(&mut iss, steps, |iss, launch| {
        let [top, bytes, ..] = iss.launch_constants().expect("SIMT is on");
        let stacks = Stacks {
            top,
            bytes,
            threads: launch.n,
            warp_size,
        };
        let mut run = KernelRun::new(iss, launch, warp_size, Mechanisms::default());
        while let Some(wc) = run.step(iss).map_err(ProgramError::from)? {
            replay.warp(&wc, &stacks).map_err(ReplayError::Replay)?;
            if iss.steps() >= steps {
                return Err(ProgramError::StepLimit(steps).into());
            }
        }
        replay.end_launch();
        Ok::<(), ReplayError>(())
    })?;
    if exit != 0 {
        return Err(ReplayError::Replay(format!(
            "the program exited with {exit}"
        )));
    }
    Ok(replay)
}
