//! The live value cache (seed 004 sections 2 and 3.4): logically a memory-resident array
//! of live values, a row per LVID and a column per thread of the tile, accessed a word
//! at a time by ⟨LVID, TID⟩; built as a set-associative write-back, write-allocate cache
//! (LRU) in front of its backing store in memory, so that a cache too small for a tile's
//! live values spills to memory and stays correct. Word address of ⟨l, t⟩:
//! `l * tile_threads + t` (a line holds consecutive threads of one live value).

use super::interp::LiveValues;
use std::collections::HashMap;

/// The cache's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LvcShape {
    pub bytes: u32,
    pub ways: u32,
    pub line_bytes: u32,
}

/// Access counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LvcStats {
    pub loads: u64,
    pub stores: u64,
    pub hits: u64,
    pub misses: u64,
    /// Dirty lines written back to memory (spills).
    pub writebacks: u64,
}

#[derive(Debug, Clone)]
struct Line {
    tag: u64,
    dirty: bool,
    used: u64,
    data: Vec<u32>,
}

/// The cache, its backing store and counts.
#[derive(Debug, Clone)]
pub struct Lvc {
    shape: LvcShape,
    sets: Vec<Vec<Line>>,
    backing: HashMap<u64, u32>,
    tile_threads: u64,
    tile_base: u32,
    clock: u64,
    pub stats: LvcStats,
}

impl Lvc {
    pub fn new(shape: LvcShape) -> Lvc {
        let lines = (shape.bytes / shape.line_bytes).max(1);
        let sets = (lines / shape.ways).max(1) as usize;
        Lvc {
            shape,
            sets: vec![Vec::new(); sets],
            backing: HashMap::new(),
            tile_threads: 1,
            tile_base: 0,
            clock: 0,
            stats: LvcStats::default(),
        }
    }

    /// Starts a tile of `threads` threads from `base`: live values are per tile.
    pub fn start_tile(&mut self, base: u32, threads: u32) {
        self.tile_base = base;
        self.tile_threads = threads as u64;
    }

    fn line_words(&self) -> u64 {
        (self.shape.line_bytes / 4).max(1) as u64
    }

    /// Where ⟨lvid, tid⟩ is in the cache (set, way, word), filled first on a miss.
    fn locate(&mut self, lvid: u16, tid: u32) -> (usize, usize, usize) {
        let addr = lvid as u64 * self.tile_threads + (tid - self.tile_base) as u64;
        let lw = self.line_words();
        let (line, off) = (addr / lw, (addr % lw) as usize);
        let nsets = self.sets.len() as u64;
        let (set, tag) = ((line % nsets) as usize, line / nsets);
        self.clock += 1;
        let clock = self.clock;
        let ways = self.shape.ways as usize;
        let hit = self.sets[set].iter().position(|l| l.tag == tag);
        let way = match hit {
            Some(w) => {
                self.stats.hits += 1;
                w
            }
            None => {
                self.stats.misses += 1;
                if self.sets[set].len() == ways {
                    let lru = (0..ways).min_by_key(|&w| self.sets[set][w].used).unwrap();
                    let old = self.sets[set].swap_remove(lru);
                    if old.dirty {
                        self.stats.writebacks += 1;
                        let base = (old.tag * nsets + set as u64) * lw;
                        for (k, v) in old.data.into_iter().enumerate() {
                            self.backing.insert(base + k as u64, v);
                        }
                    }
                }
                let base = line * lw;
                let data = (0..lw)
                    .map(|k| self.backing.get(&(base + k)).copied().unwrap_or(0))
                    .collect();
                self.sets[set].push(Line {
                    tag,
                    dirty: false,
                    used: 0,
                    data,
                });
                self.sets[set].len() - 1
            }
        };
        self.sets[set][way].used = clock;
        (set, way, off)
    }
}

impl LiveValues for Lvc {
    fn load(&mut self, lvid: u16, tid: u32) -> u32 {
        self.stats.loads += 1;
        let (set, way, off) = self.locate(lvid, tid);
        self.sets[set][way].data[off]
    }

    fn store(&mut self, lvid: u16, tid: u32, value: u32) {
        self.stats.stores += 1;
        let (set, way, off) = self.locate(lvid, tid);
        let line = &mut self.sets[set][way];
        line.data[off] = value;
        line.dirty = true;
    }
}
