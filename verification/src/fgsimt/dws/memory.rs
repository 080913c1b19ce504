//! The DWS model's memory timing (seed 001, Table 3 and section 3.1): a lane-banked,
//! write-back, write-allocate L1 D$ with LRU sets, MSHRs that each hold up to
//! `mshr_requests` requests of one line, a 1-cycle penalty per bank conflict, misses sent
//! to the L2 one line a cycle, and an L2 (LRU, write-back) whose misses add the memory
//! latency. Timing only: values live in the ISS's flat memory.
//!
//! A fill's arrival is known when its miss is sent (fixed latencies), so the tags hold
//! a pending line with its arrival cycle: a later access to it joins the MSHR (a
//! secondary miss) and a pending line is never a victim while another way can be taken.
//! A thread whose request finds no MSHR (all busy, or its line's MSHR full) is sent when
//! the first outstanding fill returns.

use serde::{Deserialize, Serialize};

/// One thread's access of a warp memory instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadAccess {
    /// The thread's index in its warp (its lane).
    pub lane: u32,
    pub addr: u64,
    pub write: bool,
}

/// What the memory answers for a warp memory instruction issued at `now`: per access
/// (in the order given), the cycle its data is there. An access whose data is there by
/// `now + l1_hit + conflicts` hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub arrive: Vec<u64>,
    /// Which accesses hit.
    pub hit: Vec<bool>,
    /// Bank-conflict cycles added to the hits.
    pub conflicts: u64,
}

/// The memory side of the DWS model: a cache hierarchy, or a test's injected hit masks.
pub trait MemorySystem {
    /// A warp memory instruction at `pc`, issued at `now` by warp `warp`.
    fn access(&mut self, now: u64, warp: usize, pc: u64, accesses: &[ThreadAccess]) -> Answer;
    /// The L1 hit latency.
    fn hit_latency(&self) -> u64;
    /// Counters so far.
    fn stats(&self) -> MemoryStats;
}

/// The cache hierarchy's shape (defaults: seed 001's Table 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MemoryConfig {
    pub l1_kib: u32,
    pub l1_ways: u32,
    pub line_bytes: u32,
    pub l1_hit: u64,
    pub mshrs: u32,
    pub mshr_requests: u32,
    /// The L1's banks (the paper: one a lane); 0 for the SIMD width.
    pub banks: u32,
    pub l2_kib: u32,
    pub l2_ways: u32,
    /// An L1 miss that hits in the L2: from send to fill (the paper's aggregate 30).
    pub l2_latency: u64,
    /// Added by an L2 miss.
    pub memory_latency: u64,
}

impl Default for MemoryConfig {
    fn default() -> Self {
        MemoryConfig {
            l1_kib: 32,
            l1_ways: 8,
            line_bytes: 128,
            l1_hit: 3,
            mshrs: 32,
            mshr_requests: 32,
            banks: 0,
            l2_kib: 4096,
            l2_ways: 16,
            l2_latency: 30,
            memory_latency: 100,
        }
    }
}

impl MemoryConfig {
    /// Why the shape cannot be built, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        let pow2 = |v: u32| v.is_power_of_two();
        let sets =
            |kib: u32, ways: u32| (kib as u64 * 1024) / (ways as u64 * self.line_bytes as u64);
        if !pow2(self.line_bytes) || !(4..=4096).contains(&self.line_bytes) {
            return Err(format!(
                "line_bytes {} is not a power of two in 4..=4096",
                self.line_bytes
            ));
        }
        for (name, kib, ways) in [
            ("l1", self.l1_kib, self.l1_ways),
            ("l2", self.l2_kib, self.l2_ways),
        ] {
            if ways == 0 || kib == 0 || kib as u64 * 1024 / self.line_bytes as u64 > 1 << 20 {
                return Err(format!(
                    "{name}: {kib} KiB in {ways} ways of {} B lines is not a cache of 1 to \
                     1,048,576 lines",
                    self.line_bytes
                ));
            }
            let s = sets(kib, ways);
            if s == 0
                || !s.is_power_of_two()
                || s * ways as u64 * self.line_bytes as u64 != kib as u64 * 1024
            {
                return Err(format!(
                    "{name}: {kib} KiB in {ways} ways of {} B lines is not a power-of-two number of sets",
                    self.line_bytes
                ));
            }
        }
        if self.mshrs == 0 || self.mshr_requests == 0 || self.banks > 64 || self.l1_hit == 0 {
            return Err(
                "mshrs, mshr_requests and l1_hit must be at least 1, banks at most 64".into(),
            );
        }
        if self.l2_latency > 100_000 || self.memory_latency > 100_000 {
            return Err("latencies above 100,000 cycles".into());
        }
        Ok(())
    }
}

/// Counters of the hierarchy.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MemoryStats {
    /// Thread accesses to the L1, and those that missed (primary and secondary).
    pub accesses: u64,
    pub misses: u64,
    /// Lines sent to the L2, and those the L2 missed.
    pub l2_requests: u64,
    pub l2_misses: u64,
    /// Dirty lines written back from the L1.
    pub writebacks: u64,
    /// Bank-conflict cycles.
    pub conflict_cycles: u64,
}

/// One way of a set.
#[derive(Debug, Clone, Copy, Default)]
struct Way {
    valid: bool,
    tag: u64,
    dirty: bool,
    /// When the line's fill arrives (0: present).
    fill: u64,
    /// Requests waiting on the fill (the MSHR's occupancy).
    requests: u32,
    /// Last use, for LRU.
    used: u64,
}

/// A set-associative LRU tag array.
#[derive(Debug, Clone)]
struct Tags {
    sets: Vec<Vec<Way>>,
    line_shift: u32,
}

impl Tags {
    fn new(kib: u32, ways: u32, line: u32) -> Tags {
        let sets = (kib as usize * 1024) / (ways as usize * line as usize);
        Tags {
            sets: vec![vec![Way::default(); ways as usize]; sets],
            line_shift: line.trailing_zeros(),
        }
    }

    fn locate(&self, addr: u64) -> (usize, u64) {
        let line = addr >> self.line_shift;
        ((line % self.sets.len() as u64) as usize, line)
    }

    fn find(&mut self, addr: u64) -> Option<&mut Way> {
        let (set, tag) = self.locate(addr);
        self.sets[set].iter_mut().find(|w| w.valid && w.tag == tag)
    }

    /// Takes a way for `addr` (absent): an invalid one, else the LRU among those not
    /// pending at `now`. The evicted way, if any, and the new way (`None`: every way is
    /// pending).
    fn allocate(&mut self, addr: u64, now: u64) -> Option<(Option<Way>, &mut Way)> {
        let (set, tag) = self.locate(addr);
        let ways = &mut self.sets[set];
        let i = match ways.iter().position(|w| !w.valid) {
            Some(i) => i,
            None => (0..ways.len())
                .filter(|&i| ways[i].fill <= now)
                .min_by_key(|&i| ways[i].used)?,
        };
        let old = ways[i].valid.then_some(ways[i]);
        ways[i] = Way {
            valid: true,
            tag,
            ..Way::default()
        };
        Some((old, &mut ways[i]))
    }
}

/// The cache hierarchy.
pub struct CacheMemory {
    cfg: MemoryConfig,
    l1: Tags,
    l2: Tags,
    /// The next cycle the L1 can send a miss to the L2.
    next_send: u64,
    /// Fill cycles of the outstanding MSHRs.
    outstanding: Vec<u64>,
    stats: MemoryStats,
    banks: u32,
}

impl CacheMemory {
    /// The hierarchy of `cfg` (checked) for warps of `warp_size` threads.
    pub fn new(cfg: MemoryConfig, warp_size: u32) -> CacheMemory {
        CacheMemory {
            l1: Tags::new(cfg.l1_kib, cfg.l1_ways, cfg.line_bytes),
            l2: Tags::new(cfg.l2_kib, cfg.l2_ways, cfg.line_bytes),
            next_send: 0,
            outstanding: Vec::new(),
            stats: MemoryStats::default(),
            banks: if cfg.banks == 0 { warp_size } else { cfg.banks },
            cfg,
        }
    }

    /// Bank-conflict cycles: the most distinct words any bank serves, less one.
    fn conflicts(&self, accesses: &[ThreadAccess]) -> u64 {
        let mut per_bank: Vec<Vec<u64>> = vec![Vec::new(); self.banks as usize];
        for a in accesses {
            let word = a.addr >> 2;
            let bank = &mut per_bank[(word % self.banks as u64) as usize];
            if !bank.contains(&word) {
                bank.push(word);
            }
        }
        per_bank
            .iter()
            .map(|b| b.len() as u64)
            .max()
            .unwrap_or(1)
            .saturating_sub(1)
    }

    /// Sends the miss of `addr`'s line at or after `now`: its fill cycle.
    fn send(&mut self, now: u64) -> u64 {
        self.outstanding.retain(|&f| f > now);
        let mut at = now.max(self.next_send);
        if self.outstanding.len() >= self.cfg.mshrs as usize {
            let first = *self.outstanding.iter().min().expect("MSHRs outstanding");
            at = at.max(first);
            self.outstanding.retain(|&f| f > first);
        }
        self.next_send = at + 1;
        at
    }

    /// The L2's answer time for a line sent at `at`.
    fn l2(&mut self, addr: u64, at: u64, write_back: bool) -> u64 {
        self.stats.l2_requests += u64::from(!write_back);
        if let Some(w) = self.l2.find(addr) {
            w.used = at;
            w.dirty |= write_back;
            return at + self.cfg.l2_latency;
        }
        self.stats.l2_misses += u64::from(!write_back);
        if let Some((_, w)) = self.l2.allocate(addr, at) {
            w.used = at;
            w.dirty = write_back;
        }
        at + self.cfg.l2_latency + self.cfg.memory_latency
    }

    /// One thread's access at `now` (hits answer at `ready`): its data's arrival cycle.
    fn one(&mut self, now: u64, a: &ThreadAccess, ready: u64) -> u64 {
        let shift = self.cfg.line_bytes.trailing_zeros();
        let line = a.addr >> shift << shift;
        let (limit, hit) = (self.cfg.mshr_requests, self.cfg.l1_hit);
        if let Some(w) = self.l1.find(line) {
            w.used = now;
            w.dirty |= a.write;
            if w.fill <= ready {
                return ready;
            }
            // A secondary miss: joins the line's MSHR, or (full) is sent after its fill.
            let arrive = if w.requests < limit {
                w.requests += 1;
                w.fill
            } else {
                w.fill + hit
            };
            self.stats.misses += 1;
            return arrive;
        }
        self.stats.misses += 1;
        let at = self.send(now);
        let fill = self.l2(line, at, false);
        self.outstanding.push(fill);
        // Every way pending: the data goes to the thread, the line is not cached.
        let Some((old, w)) = self.l1.allocate(line, now) else {
            return fill;
        };
        w.dirty = a.write;
        w.fill = fill;
        w.requests = 1;
        w.used = now;
        if let Some(old) = old.filter(|o| o.dirty) {
            self.stats.writebacks += 1;
            self.l2(old.tag << shift, at, true);
        }
        fill
    }
}

impl MemorySystem for CacheMemory {
    fn access(&mut self, now: u64, _warp: usize, _pc: u64, accesses: &[ThreadAccess]) -> Answer {
        let conflicts = self.conflicts(accesses);
        self.stats.conflict_cycles += conflicts;
        self.stats.accesses += accesses.len() as u64;
        let ready = now + self.cfg.l1_hit + conflicts;
        let arrive: Vec<u64> = accesses.iter().map(|a| self.one(now, a, ready)).collect();
        let hit = arrive.iter().map(|&t| t <= ready).collect();
        Answer {
            arrive,
            hit,
            conflicts,
        }
    }

    fn hit_latency(&self) -> u64 {
        self.cfg.l1_hit
    }

    fn stats(&self) -> MemoryStats {
        self.stats
    }
}

/// A memory that hits or misses at random (a hash of the access and a seed), hits taking
/// 3 cycles and misses 4-200: splits and merges in every order, for tests.
pub struct RandomMemory(pub u64);

impl MemorySystem for RandomMemory {
    fn access(&mut self, now: u64, _warp: usize, _pc: u64, accesses: &[ThreadAccess]) -> Answer {
        let mut arrive = Vec::new();
        for a in accesses {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (self.0 >> 33) ^ a.addr ^ (a.lane as u64) << 7;
            let miss = r.is_multiple_of(3);
            arrive.push(if miss {
                now + 4 + (r >> 4) % 197
            } else {
                now + 3
            });
        }
        Answer {
            hit: arrive.iter().map(|&t| t <= now + 3).collect(),
            arrive,
            conflicts: 0,
        }
    }
    fn hit_latency(&self) -> u64 {
        3
    }
    fn stats(&self) -> MemoryStats {
        MemoryStats::default()
    }
}
