//! The CVT followed from a BBS's outside (seed 004 section 3.2, Figure 2): its ORs
//! (completion packets ORed into the successors' vectors) and its schedules (a block's
//! vector read and reset), checked against the rules as they come: a thread's bit in at
//! most one vector, each block scheduled the smallest non-empty, a tile ending with the
//! CVT empty. It gives the launch's steps in the execution model's form
//! ([`Step`]: the block, its vector, the CVT after its completions), so that an RTL's
//! schedule compares with the model's trace directly. `bbs::BbsRunner` follows the BBS
//! alone with it; `tb::vgiw` follows the whole tile's `trace_or` and `trace_bbs`.

use super::machine::{MachineError, Step};
use std::collections::BTreeMap;

pub(super) fn err(e: impl std::fmt::Display) -> MachineError {
    MachineError::Fabric(format!("BBS: {e}"))
}

/// A launch's CVT as its ORs and schedules left it, and its steps so far.
#[derive(Debug, Clone, Default)]
pub struct CvtTrace {
    /// CVT words a block's vector has (a tile's threads are 64 a word).
    words: u32,
    /// The running tile's first thread.
    tile: Option<u32>,
    /// Block → threads (launch IDs).
    cvt: BTreeMap<u16, Vec<u32>>,
    /// The scheduled block and its vector.
    block: Option<u16>,
    threads: Vec<u32>,
    steps: Vec<Step>,
}

impl CvtTrace {
    /// A launch of `words` CVT words a block.
    pub fn new(words: u32) -> CvtTrace {
        CvtTrace {
            words: words.max(1),
            ..CvtTrace::default()
        }
    }

    /// The block scheduled last, and its vector.
    pub fn scheduled(&self) -> (Option<u16>, &[u32]) {
        (self.block, &self.threads)
    }

    /// The running tile starts at thread `base`: when that changes, the last tile's step
    /// ends and its CVT must be empty.
    pub fn follow_tile(&mut self, base: u32) -> Result<(), MachineError> {
        if self.tile != Some(base) {
            self.finish_step();
            self.end_tile()?;
            self.tile = Some(base);
        }
        Ok(())
    }

    /// Whether the tile changed since [`CvtTrace::follow_tile`] last saw it (at `base`).
    pub fn is_new_tile(&self, base: u32) -> bool {
        self.tile != Some(base)
    }

    /// An OR into the CVT at word address `addr`.
    pub fn or(&mut self, addr: u32, bits: u64) -> Result<(), MachineError> {
        let (block, word) = ((addr / self.words) as u16, addr % self.words);
        let base = self.tile.ok_or_else(|| err("an OR outside a tile"))?;
        for i in (0..64).filter(|i| bits >> i & 1 != 0) {
            let tid = base + 64 * word + i;
            if let Some((b, _)) = (self.cvt.iter()).find(|(b, t)| **b != block && t.contains(&tid))
            {
                return Err(err(format!(
                    "thread {tid} ORed into block {block}'s vector while in block {b}'s"
                )));
            }
            let v = self.cvt.entry(block).or_default();
            if !v.contains(&tid) {
                v.push(tid);
                v.sort_unstable();
            }
        }
        Ok(())
    }

    /// Block `b` scheduled (the last step ends): it must be the smallest non-empty; its
    /// vector is read and reset.
    pub fn select(&mut self, b: u16) -> Result<&[u32], MachineError> {
        self.finish_step();
        let smallest = self.cvt.keys().next().copied();
        if smallest != Some(b) {
            return Err(err(format!(
                "scheduled block {b}, the smallest non-empty is {smallest:?}"
            )));
        }
        self.threads = self.cvt.remove(&b).unwrap_or_default();
        self.block = Some(b);
        Ok(&self.threads)
    }

    /// The scheduled block's step, with the CVT as its completions left it.
    pub fn finish_step(&mut self) {
        let Some(block) = self.block.take() else {
            return;
        };
        self.steps.push(Step {
            block,
            threads: std::mem::take(&mut self.threads),
            cvt_after: (self.cvt.iter())
                .filter(|(_, t)| !t.is_empty())
                .map(|(b, t)| (*b, t.clone()))
                .collect(),
        });
    }

    /// The tile's end: its CVT must be empty.
    pub fn end_tile(&self) -> Result<(), MachineError> {
        match self.cvt.iter().find(|(_, t)| !t.is_empty()) {
            Some((b, t)) => Err(err(format!(
                "a tile ended with threads {t:?} in block {b}'s vector"
            ))),
            None => Ok(()),
        }
    }

    /// The launch's end: its last step and tile end; its steps.
    pub fn finish(mut self) -> Result<Vec<Step>, MachineError> {
        self.finish_step();
        self.end_tile()?;
        Ok(self.steps)
    }
}
