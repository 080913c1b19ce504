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

#[cfg(test)]
mod tests {
    use super::*;

    /// Figure 2's first steps, 8 threads in one word a block: block 0 runs all, its
    /// completions OR them into 1; 1 sends threads 1, 3, 8 (bits 0, 2, 7) to 2 and the
    /// rest to 3.
    fn fig2_start() -> CvtTrace {
        let mut t = CvtTrace::new(1);
        t.follow_tile(1).unwrap();
        t.or(0, 0xff).unwrap();
        assert_eq!(t.select(0).unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8]);
        t.or(1, 0xff).unwrap();
        t.select(1).unwrap();
        t.or(2, 0b1000_0101).unwrap();
        t.or(3, 0b0111_1010).unwrap();
        t
    }

    #[test]
    fn a_trace_by_the_rules_gives_its_steps() {
        let mut t = fig2_start();
        assert_eq!(t.select(2).unwrap(), &[1, 3, 8]);
        t.or(6, 0b1000_0101).unwrap();
        assert_eq!(t.select(3).unwrap(), &[2, 4, 5, 6, 7]);
        t.or(6, 0b0111_1010).unwrap();
        t.select(6).unwrap();
        let steps = t.finish().unwrap();
        let blocks: Vec<u16> = steps.iter().map(|s| s.block).collect();
        assert_eq!(blocks, [0, 1, 2, 3, 6]);
        assert_eq!(
            steps[1].cvt_after,
            [(2, vec![1, 3, 8]), (3, vec![2, 4, 5, 6, 7])]
        );
        assert!(steps[4].cvt_after.is_empty());
    }

    #[test]
    fn a_thread_in_two_vectors_is_refused() {
        let mut t = fig2_start();
        let e = t.or(4, 0b1).unwrap_err().to_string();
        assert!(
            e.contains("thread 1 ORed into block 4's vector while in block 2's"),
            "{e}"
        );
    }

    #[test]
    fn a_block_not_the_smallest_non_empty_is_refused() {
        let mut t = fig2_start();
        let e = t.select(3).unwrap_err().to_string();
        assert!(
            e.contains("scheduled block 3, the smallest non-empty is Some(2)"),
            "{e}"
        );
        let mut t = fig2_start();
        t.select(2).unwrap();
        t.select(3).unwrap();
        let e = t.select(6).unwrap_err().to_string();
        assert!(
            e.contains("scheduled block 6, the smallest non-empty is None"),
            "{e}"
        );
    }

    #[test]
    fn a_tile_ending_with_threads_left_is_refused() {
        let mut t = fig2_start();
        t.select(2).unwrap();
        let e = t.follow_tile(65).unwrap_err().to_string();
        assert!(
            e.contains("tile ended with threads [2, 4, 5, 6, 7] in block 3"),
            "{e}"
        );
        let e = fig2_start().finish().unwrap_err().to_string();
        assert!(e.contains("tile ended"), "{e}");
    }

    #[test]
    fn an_or_outside_a_tile_is_refused() {
        let mut t = CvtTrace::new(1);
        assert!(t
            .or(0, 1)
            .unwrap_err()
            .to_string()
            .contains("outside a tile"));
    }
}
