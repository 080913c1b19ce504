//! The control vector table (seed 004 section 3.3): per block ID a bit vector over the
//! tile's threads, in 64-bit words (the batch bitmap's width). A read resets the word it
//! reads; completions OR their bitmaps in, because a block can be reached by several
//! control flows. The table checks the invariant that a thread's bit is set in at most
//! one block's vector on every write.

/// A thread found in two blocks' vectors at once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("CVT invariant broken: thread {tid} is in the vectors of blocks {first} and {second}")]
pub struct TwoEntries {
    pub tid: u32,
    pub first: u16,
    pub second: u16,
}

/// The table for one tile: `blocks` vectors of `words` words each.
#[derive(Debug, Clone)]
pub struct Cvt {
    words: usize,
    bits: Vec<u64>,
    /// Which block holds each thread (tile-relative), for the invariant.
    owner: Vec<Option<u16>>,
}

impl Cvt {
    pub fn new(blocks: usize, threads: usize) -> Cvt {
        let words = threads.div_ceil(64);
        Cvt {
            words,
            bits: vec![0; blocks * words],
            owner: vec![None; words * 64],
        }
    }

    /// Words per vector.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Word `w` of block `b`'s vector, reset (the BBS's read-and-reset).
    pub fn read_and_reset(&mut self, b: u16, w: usize) -> u64 {
        let at = b as usize * self.words + w;
        let v = std::mem::take(&mut self.bits[at]);
        for i in 0..64 {
            if v >> i & 1 != 0 {
                self.owner[w * 64 + i] = None;
            }
        }
        v
    }

    /// ORs `bitmap` into word `w` of block `b`'s vector (a completion packet).
    pub fn or(&mut self, b: u16, w: usize, bitmap: u64) -> Result<(), TwoEntries> {
        for i in 0..64 {
            if bitmap >> i & 1 != 0 {
                let t = w * 64 + i;
                match self.owner[t] {
                    Some(o) if o != b => {
                        return Err(TwoEntries {
                            tid: t as u32,
                            first: o,
                            second: b,
                        })
                    }
                    _ => self.owner[t] = Some(b),
                }
            }
        }
        self.bits[b as usize * self.words + w] |= bitmap;
        Ok(())
    }

    /// The smallest block ID whose vector is not empty (the BBS's choice).
    pub fn next_block(&self) -> Option<u16> {
        (self.bits.chunks(self.words))
            .position(|v| v.iter().any(|w| *w != 0))
            .map(|b| b as u16)
    }

    /// The tile-relative threads in block `b`'s vector.
    pub fn threads(&self, b: u16) -> Vec<u32> {
        let v = &self.bits[b as usize * self.words..][..self.words];
        (0..self.words * 64)
            .filter(|t| v[t / 64] >> (t % 64) & 1 != 0)
            .map(|t| t as u32)
            .collect()
    }

    /// Every non-empty vector: (block, tile-relative threads).
    pub fn contents(&self) -> Vec<(u16, Vec<u32>)> {
        (0..self.bits.len() / self.words.max(1))
            .map(|b| (b as u16, self.threads(b as u16)))
            .filter(|(_, t)| !t.is_empty())
            .collect()
    }
}
