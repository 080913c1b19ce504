//! The AVC and L1 pair's controller (seed 002, Algorithms 1 and 2, sections 3.3-3.7;
//! spec 002 section 5.3), the golden model of a warp's private-memory transactions:
//! `read(a, m)` and `write(a, m, d)` of one block of `threads` words (thread i's word at
//! `a + 4i`) under the activity mask `m`.
//!
//! - **AVC:** a sectored set-associative cache whose line is one tag and
//!   `vectors_per_line` vectors, each (base, stride code, valid mask, dirty).
//! - **L1:** set-associative, one block a line, word-granular valid and dirty bits.
//!   Write-validate: a generic store allocates without a fetch.
//! - Both use tree pseudo-LRU (`plru.rs`); misses fill from, and evictions write back
//!   masked to, a flat word memory.
//!
//! Algorithms 1 and 2 leave gaps in exclusivity; spec 002 section 5.3 fills them, settled
//! here as follows:
//! - A fill is overlaid with the L1's valid words; encoded, it goes to the AVC and those
//!   words leave the L1.
//! - A generic fill goes to the L1 only where neither cache holds the word.
//! - An affine store drops the L1's copies of its words.
//! - A generic store clears the AVC's valid bits of its words.
//! - Evicting a vector writes back its decoded words (when dirty) merged with the L1's
//!   words of the block, then invalidates that L1 block.
//!
//! The invariant, checked by [`Controller::check_exclusive`]: no word is valid in both
//! caches.

use super::codec::{encode, Class, Encoded};
use super::plru::Plru;
use std::collections::HashMap;

/// The geometry of the pair (the paper's Table 3 with [`AvcParams::table3`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AvcParams {
    /// Threads of a warp: words of a block (32).
    pub threads: u32,
    /// Vectors (blocks) one AVC tag covers (16).
    pub vectors_per_line: u32,
    pub avc_sets: u32,
    /// 0: no AVC (the baseline).
    pub avc_ways: u32,
    pub l1_sets: u32,
    pub l1_ways: u32,
}

/// The golden model's shape of an RTL pair (`generators::fgsimt::avc`).
impl From<&generators::fgsimt::avc::params::AvcParams> for AvcParams {
    fn from(p: &generators::fgsimt::avc::params::AvcParams) -> Self {
        AvcParams {
            threads: p.threads,
            vectors_per_line: p.vectors_per_line,
            avc_sets: p.avc_sets,
            avc_ways: p.avc_ways,
            l1_sets: p.l1_sets,
            l1_ways: p.l1_ways,
        }
    }
}

impl AvcParams {
    /// Table 3's configuration `config`: 0 is the baseline (48 KB 6-way L1), 1-3 trade L1
    /// ways for AVC ways (40K + 8K direct-mapped, 32K + 16K 2-way, 24K + 24K 3-way); 64
    /// sets each, 32 threads, 16 vectors a line.
    pub fn table3(config: u32) -> AvcParams {
        assert!(config <= 3, "configurations 0 (baseline) to 3");
        AvcParams {
            threads: 32,
            vectors_per_line: 16,
            avc_sets: 64,
            avc_ways: config,
            l1_sets: 64,
            l1_ways: 6 - config,
        }
    }

    fn block_bytes(&self) -> u32 {
        4 * self.threads
    }

    fn all(&self) -> u32 {
        if self.threads == 32 {
            u32::MAX
        } else {
            (1 << self.threads) - 1
        }
    }
}

/// What the pair did, counted as the paper's metrics (section 6 and Figure 6).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Block reads from memory.
    pub fills: u64,
    /// Masked block writes to memory of an evicted AVC vector (merged with the L1's).
    pub writebacks_affine: u64,
    /// Masked block writes to memory of an evicted L1 line.
    pub writebacks_generic: u64,
    pub fill_bytes: u64,
    pub writeback_bytes: u64,
    /// Reads served in part by the AVC and replayed for the rest (Figure 5).
    pub replays: u64,
    /// Older partial vectors evicted by a different (base, stride) (section 3.5).
    pub conflicts: u64,
    /// Stores that only added valid bits to the same (base, stride) (section 3.6).
    pub merges: u64,
    /// AVC lines evicted while holding at least one vector.
    pub line_evictions: u64,
    /// Transactions by the class of their data under their mask: zero, non-zero uniform,
    /// non-uniform affine, generic (Figure 1(b)).
    pub classes: [u64; 4],
}

/// One access of the memory below, as the RTL's memory port carries it: a block read,
/// or a masked block write (the words outside the mask 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemOp {
    Read {
        addr: u32,
    },
    Write {
        addr: u32,
        mask: u32,
        data: Vec<u32>,
    },
}

#[derive(Clone, Copy, Debug, Default)]
struct Vector {
    enc: Option<Encoded>,
    valid: u32,
    dirty: bool,
}

#[derive(Clone, Debug)]
struct AvcLine {
    tag: Option<u32>,
    vectors: Vec<Vector>,
}

#[derive(Clone, Debug)]
struct L1Line {
    tag: Option<u32>,
    wvalid: u32,
    wdirty: u32,
    data: Vec<u32>,
}

/// Where a block sits in the AVC: set, way (when its line is present), vector.
struct Slot {
    set: usize,
    way: Option<usize>,
    vector: usize,
}

pub struct Controller {
    p: AvcParams,
    avc: Vec<Vec<AvcLine>>,
    avc_lru: Vec<Plru>,
    l1: Vec<Vec<L1Line>>,
    l1_lru: Vec<Plru>,
    memory: HashMap<u32, u32>,
    pub counters: Counters,
    /// The memory accesses, in order, since the log was last taken.
    pub log: Vec<MemOp>,
}

fn bits(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |i| mask >> i & 1 == 1)
}

impl Controller {
    pub fn new(p: AvcParams) -> Controller {
        assert!((1..=32).contains(&p.threads) && p.threads.is_power_of_two());
        let avc_line = AvcLine {
            tag: None,
            vectors: vec![Vector::default(); p.vectors_per_line as usize],
        };
        let l1_line = L1Line {
            tag: None,
            wvalid: 0,
            wdirty: 0,
            data: vec![0; p.threads as usize],
        };
        let ways = p.avc_ways as usize;
        Controller {
            avc: vec![vec![avc_line; ways]; p.avc_sets as usize],
            avc_lru: vec![Plru::new(ways.max(1)); p.avc_sets as usize],
            l1: vec![vec![l1_line; p.l1_ways as usize]; p.l1_sets as usize],
            l1_lru: vec![Plru::new(p.l1_ways as usize); p.l1_sets as usize],
            memory: HashMap::new(),
            counters: Counters::default(),
            log: Vec::new(),
            p,
        }
    }

    /// Threads of a warp: words of a block.
    pub fn threads(&self) -> u32 {
        self.p.threads
    }

    /// The memory's word at byte address `addr` (0 where never written).
    pub fn memory_word(&self, addr: u32) -> u32 {
        *self.memory.get(&(addr >> 2)).unwrap_or(&0)
    }

    fn block_of(&self, addr: u32) -> u32 {
        assert_eq!(
            addr % self.p.block_bytes(),
            0,
            "{addr:#x}: not a block address"
        );
        addr / self.p.block_bytes()
    }

    fn slot(&self, block: u32) -> Slot {
        let line = block / self.p.vectors_per_line;
        let set = (line % self.p.avc_sets.max(1)) as usize;
        let tag = line / self.p.avc_sets.max(1);
        let way = (self.avc.get(set)).and_then(|s| s.iter().position(|l| l.tag == Some(tag)));
        Slot {
            set,
            way,
            vector: (block % self.p.vectors_per_line) as usize,
        }
    }

    fn vector(&mut self, s: &Slot) -> Option<&mut Vector> {
        let way = s.way?;
        Some(&mut self.avc[s.set][way].vectors[s.vector])
    }

    fn l1_find(&self, block: u32) -> (usize, Option<usize>) {
        let set = (block % self.p.l1_sets) as usize;
        let tag = block / self.p.l1_sets;
        (set, self.l1[set].iter().position(|l| l.tag == Some(tag)))
    }

    fn read_block(&mut self, block: u32) -> Vec<u32> {
        self.counters.fills += 1;
        self.counters.fill_bytes += self.p.block_bytes() as u64;
        let base = block * self.p.threads;
        self.log.push(MemOp::Read {
            addr: block * self.p.block_bytes(),
        });
        (0..self.p.threads)
            .map(|i| *self.memory.get(&(base + i)).unwrap_or(&0))
            .collect()
    }

    fn write_block(&mut self, block: u32, data: &[u32], mask: u32) {
        self.counters.writeback_bytes += 4 * mask.count_ones() as u64;
        let base = block * self.p.threads;
        for i in bits(mask) {
            self.memory.insert(base + i as u32, data[i]);
        }
        self.log.push(MemOp::Write {
            addr: block * self.p.block_bytes(),
            mask,
            data: (0..data.len())
                .map(|i| if mask >> i & 1 == 1 { data[i] } else { 0 })
                .collect(),
        });
    }

    fn count_class(&mut self, data: &[u32], mask: u32) {
        let class = encode(data, mask).map_or(Class::Generic, Encoded::class);
        self.counters.classes[class as usize] += 1;
    }
}

/// Replacement and eviction in both caches.
impl Controller {
    /// Evicts the L1's line `way` of `set`: a masked write-back of its dirty words.
    fn l1_evict(&mut self, set: usize, way: usize) {
        let line = &self.l1[set][way];
        if let (Some(tag), true) = (line.tag, line.wdirty != 0) {
            let (data, mask) = (line.data.clone(), line.wdirty);
            self.counters.writebacks_generic += 1;
            self.write_block(tag * self.p.l1_sets + set as u32, &data, mask);
        }
        self.l1[set][way] = L1Line {
            tag: None,
            wvalid: 0,
            wdirty: 0,
            data: vec![0; self.p.threads as usize],
        };
    }

    /// The L1's line of `block`, allocated (empty) where missing.
    fn l1_line(&mut self, block: u32) -> (usize, usize) {
        let (set, way) = self.l1_find(block);
        let way = way.unwrap_or_else(|| {
            let valid: Vec<bool> = self.l1[set].iter().map(|l| l.tag.is_some()).collect();
            let victim = self.l1_lru[set].victim(&valid);
            self.l1_evict(set, victim);
            self.l1[set][victim].tag = Some(block / self.p.l1_sets);
            victim
        });
        self.l1_lru[set].touch(way);
        (set, way)
    }

    /// Drops the L1's copies of `mask`'s words of `block` (the AVC holds them now).
    fn l1_drop(&mut self, block: u32, mask: u32) {
        if let (set, Some(way)) = self.l1_find(block) {
            let line = &mut self.l1[set][way];
            line.wvalid &= !mask;
            line.wdirty &= !mask;
        }
    }

    /// Evicts the AVC's vector of `block`: its words decoded (where dirty) and the L1's
    /// of the block merged into one masked write-back; the L1's copy is invalidated.
    fn evict_vector(&mut self, block: u32, s: &Slot) {
        let n = self.p.threads;
        let v = std::mem::take(self.vector(s).expect("the vector's line is present"));
        let mut data = v.enc.map_or(vec![0; n as usize], |e| e.decode(n));
        let mut mask = if v.dirty { v.valid } else { 0 };
        if let (set, Some(way)) = self.l1_find(block) {
            let line = &self.l1[set][way];
            for j in bits(line.wvalid & !v.valid) {
                data[j] = line.data[j];
            }
            mask |= line.wdirty;
            self.l1[set][way].tag = None;
            self.l1[set][way].wvalid = 0;
            self.l1[set][way].wdirty = 0;
        }
        if mask != 0 {
            self.counters.writebacks_affine += 1;
            self.write_block(block, &data, mask);
        }
    }

    /// Allocates the AVC line of `block` (evicting the victim's vectors); its slot.
    fn avc_line(&mut self, block: u32) -> Slot {
        let s = self.slot(block);
        if s.way.is_some() {
            return s;
        }
        let valid: Vec<bool> = self.avc[s.set].iter().map(|l| l.tag.is_some()).collect();
        let victim = self.avc_lru[s.set].victim(&valid);
        if let Some(tag) = self.avc[s.set][victim].tag {
            let line = tag * self.p.avc_sets + s.set as u32;
            let mut held = false;
            for k in 0..self.p.vectors_per_line as usize {
                if self.avc[s.set][victim].vectors[k].valid != 0 {
                    held = true;
                    let old = line * self.p.vectors_per_line + k as u32;
                    let slot = Slot {
                        set: s.set,
                        way: Some(victim),
                        vector: k,
                    };
                    self.evict_vector(old, &slot);
                }
            }
            self.counters.line_evictions += held as u64;
        }
        let line = &mut self.avc[s.set][victim];
        line.tag = Some(block / self.p.vectors_per_line / self.p.avc_sets);
        line.vectors.iter_mut().for_each(|v| *v = Vector::default());
        Slot {
            way: Some(victim),
            ..s
        }
    }

    /// Algorithm 1's `AVC.Replace`: a read fill's encoded words into the AVC.
    fn avc_install(&mut self, block: u32, enc: Encoded, mask: u32, dirty: bool) {
        let s = self.avc_line(block);
        let v = *self.vector(&s).unwrap();
        if v.valid != 0 && v.enc != Some(enc) {
            self.counters.conflicts += 1;
            self.evict_vector(block, &s);
        }
        let v = self.vector(&s).unwrap();
        if v.valid != 0 {
            v.valid |= mask;
            v.dirty |= dirty;
        } else {
            *v = Vector {
                enc: Some(enc),
                valid: mask,
                dirty,
            };
        }
        self.avc_lru[s.set].touch(s.way.unwrap());
    }
}

/// The transactions (Algorithms 1 and 2 completed) and the flush.
impl Controller {
    fn has_avc(&self) -> bool {
        self.p.avc_ways > 0
    }

    /// Algorithm 1: the words of block `addr` for `mask`'s threads (0 for the others).
    pub fn read(&mut self, addr: u32, mask: u32) -> Vec<u32> {
        let block = self.block_of(addr);
        let n = self.p.threads as usize;
        let (full, mut m) = (mask & self.p.all(), mask & self.p.all());
        let mut out = vec![0; n];
        if self.has_avc() {
            let s = self.slot(block);
            if let Some(v) = self.vector(&s).copied().filter(|v| v.valid & m != 0) {
                let words = v.enc.unwrap().decode(n as u32);
                for i in bits(m & v.valid) {
                    out[i] = words[i];
                }
                self.avc_lru[s.set].touch(s.way.unwrap());
                m &= !v.valid;
                if m != 0 {
                    self.counters.replays += 1;
                }
            }
        }
        if m != 0 {
            self.read_rest(block, m, &mut out);
        }
        if full != 0 {
            self.count_class(&out, full);
        }
        out
    }

    /// A read's threads the AVC does not hold: an L1 hit, or a fill.
    fn read_rest(&mut self, block: u32, m: u32, out: &mut [u32]) {
        if let (set, Some(way)) = self.l1_find(block) {
            if m & !self.l1[set][way].wvalid == 0 {
                for i in bits(m) {
                    out[i] = self.l1[set][way].data[i];
                }
                self.l1_lru[set].touch(way);
                return;
            }
        }
        let mut d = self.read_block(block);
        let (mut l1_valid, mut l1_dirty) = (0, 0);
        if let (set, Some(way)) = self.l1_find(block) {
            let line = &self.l1[set][way];
            (l1_valid, l1_dirty) = (line.wvalid, line.wdirty);
            for j in bits(l1_valid) {
                d[j] = line.data[j];
            }
        }
        for i in bits(m) {
            out[i] = d[i];
        }
        match encode(&d, m).filter(|_| self.has_avc()) {
            Some(enc) => {
                self.avc_install(block, enc, m, l1_dirty & m != 0);
                self.l1_drop(block, m);
            }
            None => {
                let s = self.slot(block);
                let in_avc = self.vector(&s).map_or(0, |v| v.valid);
                let words = !in_avc & !l1_valid & self.p.all();
                let (set, way) = self.l1_line(block);
                let line = &mut self.l1[set][way];
                for j in bits(words) {
                    line.data[j] = d[j];
                }
                line.wvalid |= words;
            }
        }
    }

    /// Algorithm 2: `data`'s words of `mask`'s threads into block `addr`.
    pub fn write(&mut self, addr: u32, mask: u32, data: &[u32]) {
        let block = self.block_of(addr);
        let m = mask & self.p.all();
        assert_eq!(data.len(), self.p.threads as usize);
        if m == 0 {
            return;
        }
        self.count_class(data, m);
        match encode(data, m).filter(|_| self.has_avc()) {
            Some(enc) => {
                let s = self.slot(block);
                if let Some(v) = self.vector(&s).copied() {
                    if v.valid & !m != 0 && v.enc != Some(enc) {
                        self.counters.conflicts += 1;
                        self.evict_vector(block, &s);
                    }
                }
                let s = self.avc_line(block);
                let v = self.vector(&s).unwrap();
                if v.valid != 0 && v.enc == Some(enc) {
                    v.valid |= m;
                    self.counters.merges += 1;
                } else {
                    v.enc = Some(enc);
                    v.valid = m;
                }
                self.vector(&s).unwrap().dirty = true;
                self.avc_lru[s.set].touch(s.way.unwrap());
                self.l1_drop(block, m);
            }
            None => {
                let (set, way) = self.l1_line(block);
                let line = &mut self.l1[set][way];
                for i in bits(m) {
                    line.data[i] = data[i];
                }
                line.wvalid |= m;
                line.wdirty |= m;
                let s = self.slot(block);
                if let Some(v) = self.vector(&s) {
                    v.valid &= !m;
                    if v.valid == 0 {
                        *v = Vector::default();
                    }
                }
            }
        }
    }

    /// Writes every dirty word back and empties both caches.
    pub fn flush(&mut self) {
        for set in 0..self.avc.len() {
            for way in 0..self.avc[set].len() {
                let Some(tag) = self.avc[set][way].tag else {
                    continue;
                };
                let line = tag * self.p.avc_sets + set as u32;
                for k in 0..self.p.vectors_per_line as usize {
                    if self.avc[set][way].vectors[k].valid != 0 {
                        let slot = Slot {
                            set,
                            way: Some(way),
                            vector: k,
                        };
                        self.evict_vector(line * self.p.vectors_per_line + k as u32, &slot);
                    }
                }
                self.avc[set][way].tag = None;
            }
        }
        for set in 0..self.l1.len() {
            for way in 0..self.l1[set].len() {
                self.l1_evict(set, way);
            }
        }
    }

    /// Empties both caches without writing anything back (their data is dead: a
    /// finished kernel's stacks).
    pub fn discard(&mut self) {
        let fresh = Controller::new(self.p);
        (self.avc, self.avc_lru, self.l1, self.l1_lru) =
            (fresh.avc, fresh.avc_lru, fresh.l1, fresh.l1_lru);
    }

    /// The valid masks of block `addr`'s words in the AVC and in the L1.
    pub fn held(&self, addr: u32) -> (u32, u32) {
        let block = self.block_of(addr);
        let s = self.slot(block);
        let avc = s
            .way
            .map_or(0, |w| self.avc[s.set][w].vectors[s.vector].valid);
        let l1 = match self.l1_find(block) {
            (set, Some(way)) => self.l1[set][way].wvalid,
            _ => 0,
        };
        (avc, l1)
    }

    /// The coherence invariant (section 3.3): no word valid in both the AVC and the L1.
    pub fn check_exclusive(&self) -> Result<(), String> {
        for (set, ways) in self.avc.iter().enumerate() {
            for line in ways {
                let Some(tag) = line.tag else { continue };
                for (k, v) in line.vectors.iter().enumerate() {
                    let block =
                        (tag * self.p.avc_sets + set as u32) * self.p.vectors_per_line + k as u32;
                    if let (l1_set, Some(way)) = self.l1_find(block) {
                        let both = self.l1[l1_set][way].wvalid & v.valid;
                        if both != 0 {
                            return Err(format!("block {block:#x}: words {both:#x} in both"));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
