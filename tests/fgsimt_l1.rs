//! The FG-SIMT L1 D$ (`generators::fgsimt::l1`, seed 000 section 1.7) under Verilator
//! against the reference memory semantics of `verification::fgsimt::l1`: random traffic
//! on every narrow port and the wide port at once (loads, stores with random masks,
//! AMOs, LR/SC, wide reads and writes, uncached accesses) over addresses that make every
//! bank conflict, evict and refill, and ports contend for the same lines. Each access is
//! applied to the reference in the order the design performed it (its `trace_*` port
//! names, per bank, the port whose access it performed; accesses of a port to a bank are
//! performed in acceptance order), every response is checked, and after `flush` the
//! memory equals the reference's. Uncached accesses are applied when accepted (each port
//! has its own mailbox word, so their order across ports does not matter). Directed
//! tests measure the bank throughput, the round-robin fairness, blocking per bank, LR/SC,
//! the uncached path and flush; the D$ and I$ are lint clean at the default and small
//! shapes.

mod l1_rig;
mod lint_rig;
use generators::fgsimt::l1::{self, op};
use generators::fgsimt::params::{DcacheParams, FgsimtParams};
use hdl::{Bits, Design};
use l1_rig::Stress;
use std::collections::{BTreeMap, VecDeque};
use verification::fgsimt::l1::L1Model;
use verification::rng::Rng;
use verification::tb::memory::{MemConfig, MemPort, MemoryModel};
use verification::verilator::{Model, Options};

const TAG_BITS: u32 = 8;
/// Cached data lives here (the uncached region is the default's 0x8000_0000 page).
const REGION: u64 = 0x1000_0000;
/// Aliases of each set used: more than the ways, so lines evict one another.
fn aliases(p: &DcacheParams) -> u64 {
    p.ways as u64 + 2
}

#[derive(Clone, Debug)]
enum Req {
    Narrow {
        op: u64,
        addr: u64,
        data: u32,
        mask: u64,
        size: u64,
    },
    Wide {
        write: bool,
        addr: u64,
        data: [u8; 32],
        mask: u32,
    },
}

/// What a response must carry.
#[derive(Clone, Debug, PartialEq)]
enum Want {
    Word(u32),
    Line([u8; 32]),
    Any,
}

/// A run: the design, memory, reference and per-port bookkeeping.
struct Tb {
    dut: Model,
    mem: MemoryModel,
    refm: L1Model,
    p: DcacheParams,
    /// Per port (narrow ports, then the wide one): requests still to send.
    queue: Vec<VecDeque<Req>>,
    sent: Vec<u64>,
    got: Vec<u64>,
    /// Per (port, bank): accepted, not yet performed.
    pending: BTreeMap<(usize, u64), VecDeque<(u64, Req)>>,
    want: Vec<BTreeMap<u64, Want>>,
    /// Per port, the cycle of each acceptance and the responses' words (narrow).
    accepted_at: Vec<Vec<u64>>,
    answers: Vec<Vec<u32>>,
    /// Per port, the requests accepted, by sequence number (for messages).
    log: Vec<Vec<Req>>,
    /// Per port, the cycle of each response.
    answered_at: Vec<Vec<u64>>,
    cycle: u64,
    rng: Rng,
    gap_percent: u64,
}

fn params() -> DcacheParams {
    FgsimtParams::default().dcache()
}

fn model_of(p: &DcacheParams) -> Model {
    let top = l1::dcache(p, TAG_BITS).unwrap_or_else(|e| panic!("{e}"));
    static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap()
}

fn line_words(b: &[u8; 32]) -> Vec<u64> {
    b.chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn line_bytes(bits: &Bits) -> [u8; 32] {
    let mut out = [0; 32];
    for (i, w) in bits.words().iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    out
}

impl Tb {
    fn new(p: &DcacheParams, s: Stress, seed: u64) -> Tb {
        let mut dut = model_of(p);
        let mut mem = l1_rig::memory(p, s, seed);
        let mut rng = Rng::new(seed);
        let span = (aliases(p) as usize + 1) * p.bytes as usize;
        let image: Vec<u8> = (0..span).map(|_| rng.next_u64() as u8).collect();
        mem.memory_mut().write(REGION, &image);
        let refm = L1Model::new(
            mem.memory().clone(),
            p.narrow_ports as usize,
            p.line_bytes as u64,
        );
        dut.restart(seed).unwrap();
        let n = p.narrow_ports as usize + 1;
        Tb {
            dut,
            mem,
            refm,
            p: *p,
            queue: vec![VecDeque::new(); n],
            sent: vec![0; n],
            got: vec![0; n],
            pending: BTreeMap::new(),
            want: vec![BTreeMap::new(); n],
            accepted_at: vec![Vec::new(); n],
            answers: vec![Vec::new(); n],
            log: vec![Vec::new(); n],
            answered_at: vec![Vec::new(); n],
            cycle: 0,
            rng,
            gap_percent: s.gap_percent,
        }
    }

    fn wide_port(&self) -> usize {
        self.p.narrow_ports as usize
    }

    fn uncached(&self, addr: u64) -> bool {
        addr >= self.p.uncached_base && addr < self.p.uncached_base + self.p.uncached_size
    }

    fn bank(&self, addr: u64) -> u64 {
        (addr / self.p.line_bytes as u64) % self.p.banks as u64
    }

    /// Drives every port's next request (or none); returns which ports drive one.
    fn drive(&mut self) -> Vec<bool> {
        let mut driving = Vec::new();
        for i in 0..self.queue.len() {
            let gap = self.rng.chance(self.gap_percent);
            let req = if gap {
                None
            } else {
                self.queue[i].front().cloned()
            };
            let pre = if i == self.wide_port() {
                "w_req".to_string()
            } else {
                format!("n{i}_req")
            };
            let d = &mut self.dut;
            d.poke_u64(&format!("{pre}_valid"), req.is_some() as u64)
                .unwrap();
            let tag = self.sent[i] % (1 << TAG_BITS);
            d.poke_u64(&format!("{pre}_bits_tag"), tag).unwrap();
            match req {
                Some(Req::Narrow {
                    op,
                    addr,
                    data,
                    mask,
                    size,
                }) => {
                    for (f, v) in [
                        ("op", op),
                        ("addr", addr),
                        ("data", data as u64),
                        ("mask", mask),
                        ("size", size),
                    ] {
                        d.poke_u64(&format!("{pre}_bits_{f}"), v).unwrap();
                    }
                }
                Some(Req::Wide {
                    write,
                    addr,
                    data,
                    mask,
                }) => {
                    d.poke_u64(&format!("{pre}_bits_write"), write as u64)
                        .unwrap();
                    d.poke_u64(&format!("{pre}_bits_addr"), addr).unwrap();
                    d.poke_u64(&format!("{pre}_bits_mask"), mask as u64)
                        .unwrap();
                    let bits = Bits::from_words(256, &line_words(&data));
                    d.poke(&format!("{pre}_bits_data"), &bits).unwrap();
                }
                None => {}
            }
            driving.push(req.is_some());
        }
        driving
    }

    /// Applies the accesses the banks performed this cycle to the reference.
    fn performed(&mut self) {
        let valid = self.dut.peek_u64("trace_valid").unwrap();
        let ports = self.dut.peek("trace_port").unwrap();
        let slots = self.dut.peek("trace_slot").unwrap();
        let pb = hdl::ir::addr_width(self.p.narrow_ports as u64 + 1);
        let sb = hdl::ir::addr_width(l1::PORT_ENTRIES as u64);
        for b in 0..self.p.banks as u64 {
            if valid >> b & 1 == 0 {
                continue;
            }
            let field = |bits: &Bits, w: u32| {
                (0..w).fold(0usize, |a, i| {
                    a | (bits.bit(b as u32 * w + i) as usize) << i
                })
            };
            let (port, slot) = (field(&ports, pb), field(&slots, sb) as u64);
            // A blocking bank performs a port's accesses in order; a non-blocking one
            // may perform a hit before an earlier miss, so the slot names the access.
            let entries = l1::PORT_ENTRIES as u64;
            let (seq, req) = self
                .pending
                .get_mut(&(port, b))
                .and_then(|q| {
                    let at = q.iter().position(|(seq, _)| seq % entries == slot)?;
                    assert!(
                        self.p.mshrs > 0 || at == 0,
                        "bank {b} performed port {port}'s accesses out of order"
                    );
                    q.remove(at)
                })
                .unwrap_or_else(|| {
                    panic!(
                        "cycle {}: bank {b} performed an access port {port} never sent it",
                        self.cycle
                    )
                });
            let want = match req {
                Req::Narrow {
                    op,
                    addr,
                    data,
                    mask,
                    ..
                } => {
                    let w = self.refm.narrow(port, op, addr, data, mask);
                    if op == op::STORE {
                        Want::Any
                    } else {
                        Want::Word(w)
                    }
                }
                Req::Wide {
                    write,
                    addr,
                    data,
                    mask,
                } => {
                    let line = self.refm.wide(write, addr, &data, mask);
                    if write {
                        Want::Any
                    } else {
                        Want::Line(line)
                    }
                }
            };
            self.want[port].insert(seq, want);
        }
    }

    /// Checks the responses of this cycle.
    fn responses(&mut self) {
        for i in 0..self.queue.len() {
            let wide = i == self.wide_port();
            let pre = if wide {
                "w_resp".to_string()
            } else {
                format!("n{i}_resp")
            };
            if self.dut.peek_u64(&format!("{pre}_valid")).unwrap() == 0 {
                continue;
            }
            let seq = self.got[i];
            self.got[i] += 1;
            self.answered_at[i].push(self.cycle);
            let tag = self.dut.peek_u64(&format!("{pre}_bits_tag")).unwrap();
            assert_eq!(tag, seq % (1 << TAG_BITS), "port {i}: response {seq}'s tag");
            let want = self.want[i].remove(&seq).unwrap_or_else(|| {
                panic!(
                    "cycle {}: port {i} answered request {seq} before it was performed",
                    self.cycle
                )
            });
            let data = self.dut.peek(&format!("{pre}_bits_data")).unwrap();
            let req = &self.log[i][seq as usize];
            match want {
                Want::Word(w) => {
                    assert_eq!(data.to_u64() as u32, w, "port {i} request {seq}: {req:x?}")
                }
                Want::Line(l) => assert_eq!(line_bytes(&data), l, "wide request {seq}"),
                Want::Any => {}
            }
            if !wide {
                self.answers[i].push(data.to_u64() as u32);
            }
        }
    }

    /// Records this cycle's acceptances.
    fn accepted(&mut self, driving: &[bool]) {
        for (i, drives) in driving.iter().enumerate() {
            let pre = if i == self.wide_port() {
                "w_req".to_string()
            } else {
                format!("n{i}_req")
            };
            if !*drives || self.dut.peek_u64(&format!("{pre}_ready")).unwrap() == 0 {
                continue;
            }
            let req = self.queue[i].pop_front().unwrap();
            let seq = self.sent[i];
            self.sent[i] += 1;
            self.accepted_at[i].push(self.cycle);
            self.log[i].push(req.clone());
            match req {
                Req::Narrow {
                    op,
                    addr,
                    data,
                    mask,
                    ..
                } if self.uncached(addr) => {
                    let w = self.refm.uncached(op, addr, data, mask);
                    let want = if op == op::STORE {
                        Want::Any
                    } else {
                        Want::Word(w)
                    };
                    self.want[i].insert(seq, want);
                }
                Req::Narrow { addr, .. } | Req::Wide { addr, .. } => {
                    let b = self.bank(addr);
                    self.pending
                        .entry((i, b))
                        .or_default()
                        .push_back((seq, req));
                }
            }
        }
    }

    fn cycle(&mut self) {
        let driving = self.drive();
        self.mem
            .tick(&mut self.dut)
            .unwrap_or_else(|e| panic!("{e}"));
        self.performed();
        self.responses();
        self.accepted(&driving);
        self.dut.step();
        self.cycle += 1;
    }

    /// Runs until every request is sent and answered.
    fn run(&mut self, limit: u64) {
        let start = self.cycle;
        while self.queue.iter().any(|q| !q.is_empty())
            || self.got != self.sent
            || self.dut.peek_u64("idle").unwrap() == 0
        {
            self.cycle();
            assert!(
                self.cycle - start < limit,
                "no progress after {limit} cycles"
            );
        }
    }

    /// Flushes the D$ and compares memory with the reference.
    fn flush_and_compare(&mut self) {
        self.dut.poke_u64("flush", 1).unwrap();
        let start = self.cycle;
        while self.dut.peek_u64("flush_done").unwrap() == 0 {
            self.cycle();
            assert!(self.cycle - start < 1_000_000, "flush never done");
        }
        self.dut.poke_u64("flush", 0).unwrap();
        self.cycle();
        let span = (aliases(&self.p) + 1) * self.p.bytes as u64;
        l1_rig::compare(self.mem.memory(), &self.refm.mem, REGION, span);
        l1_rig::compare(self.mem.memory(), &self.refm.mem, self.p.uncached_base, 64);
    }
}

// ------------------------------------------------------------------ random traffic

/// A block address (32 bytes, the wide port's) in the conflict pool: a few sets of every
/// bank, each at `aliases` aliases, so lines of one set evict one another; with lines
/// longer than a block, any block of the line.
fn pool_block(rng: &mut Rng, p: &DcacheParams) -> u64 {
    let line = p.line_bytes as u64;
    let sets = (p.bytes / p.line_bytes / p.banks / p.ways) as u64;
    let set = *rng.pick(&[0, 1, sets - 1]) % sets;
    let bank = rng.below(p.banks as u64);
    let alias = rng.below(aliases(p));
    let block = match line / 32 {
        1 => 0,
        n => 32 * rng.below(n),
    };
    REGION + alias * p.bytes as u64 + (set * p.banks as u64 + bank) * line + block
}

fn random_narrow(rng: &mut Rng, p: &DcacheParams, port: u64, last_lr: &mut Option<u64>) -> Req {
    let data = rng.next_u64() as u32;
    if rng.chance(10) {
        // The port's own mailbox word.
        let addr = p.uncached_base + 4 * port;
        let op = *rng.pick(&[
            op::LOAD,
            op::STORE,
            op::ADD,
            op::SWAP,
            op::MAXU,
            op::LR,
            op::SC,
        ]);
        let mask = rng.below(16);
        return Req::Narrow {
            op,
            addr,
            data,
            mask,
            size: 2,
        };
    }
    let mut addr = pool_block(rng, p) + 4 * rng.below(8);
    let op = match rng.below(100) {
        0..=29 => op::LOAD,
        30..=59 => op::STORE,
        60..=79 => op::SWAP + rng.below(9),
        80..=89 => {
            *last_lr = Some(addr);
            op::LR
        }
        _ => {
            if let (Some(a), true) = (*last_lr, rng.chance(70)) {
                addr = a;
            }
            op::SC
        }
    };
    let mask = if op == op::SC { 0xf } else { rng.below(16) };
    Req::Narrow {
        op,
        addr,
        data,
        mask,
        size: 2,
    }
}

fn random_wide(rng: &mut Rng, p: &DcacheParams) -> Req {
    let mut data = [0u8; 32];
    data.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
    Req::Wide {
        write: rng.chance(50),
        addr: pool_block(rng, p),
        data,
        mask: rng.next_u64() as u32,
    }
}

fn random_run(p: &DcacheParams, s: Stress, per_port: usize, seed: u64) -> u64 {
    let mut tb = Tb::new(p, s, seed);
    let mut rng = Rng::new(seed ^ 0x5eed);
    for port in 0..p.narrow_ports as usize {
        let mut last_lr = None;
        for _ in 0..per_port {
            let r = random_narrow(&mut rng, p, port as u64, &mut last_lr);
            tb.queue[port].push_back(r);
        }
    }
    let w = tb.wide_port();
    for _ in 0..per_port {
        let r = random_wide(&mut rng, p);
        tb.queue[w].push_back(r);
    }
    tb.run(2_000_000);
    let s = tb.mem.stats();
    eprintln!(
        "  refills and uncached reads {}, write-backs and uncached writes {}, uncached AMOs {}",
        s.reads, s.writes, s.amos
    );
    tb.flush_and_compare();
    tb.cycle
}

const STRESSES: [Stress; 3] = [
    Stress {
        latency: 1,
        jitter: 2,
        stall_percent: 10,
        gap_percent: 10,
    },
    Stress {
        latency: 20,
        jitter: 5,
        stall_percent: 20,
        gap_percent: 30,
    },
    Stress {
        latency: 100,
        jitter: 10,
        stall_percent: 30,
        gap_percent: 0,
    },
];

#[test]
fn random_traffic_matches_the_reference() {
    let p = params();
    for (i, s) in STRESSES.iter().enumerate() {
        let n = if s.latency >= 100 { 60 } else { 150 };
        let cycles = random_run(&p, *s, n, 100 + i as u64);
        eprintln!("{s:?}: {n} requests per port in {cycles} cycles");
    }
}

/// The edge shapes: one bank (no bank field), one line per bank (no set field).
#[test]
fn random_traffic_at_small_shapes() {
    let small = |banks, narrow_ports| DcacheParams {
        bytes: 1024,
        banks,
        narrow_ports,
        ..params()
    };
    for (i, p) in [small(1, 1), small(32, 2)].iter().enumerate() {
        let cycles = random_run(p, STRESSES[1], 200, 200 + i as u64);
        eprintln!("{p:?}: 200 requests per port in {cycles} cycles");
    }
}

/// Set-associative banks: 8 ways at the default size (seed 001's Table 3 associativity),
/// 4 ways in one bank, and one fully associative set of 16 ways a bank.
#[test]
fn random_traffic_with_ways() {
    let shapes = [
        DcacheParams {
            ways: 8,
            ..params()
        },
        DcacheParams {
            bytes: 1024,
            banks: 1,
            narrow_ports: 2,
            ways: 4,
            ..params()
        },
        DcacheParams {
            bytes: 1024,
            banks: 2,
            narrow_ports: 3,
            ways: 16,
            ..params()
        },
    ];
    for (i, p) in shapes.iter().enumerate() {
        let cycles = random_run(p, STRESSES[i % 2], 150, 300 + i as u64);
        eprintln!("{p:?}: 150 requests per port in {cycles} cycles");
    }
}

/// Lines longer than the wide port's block (`line_bytes`): a blocking bank of 64-byte
/// lines, and seed 001's Table 3 bank (128-byte lines, 8 ways, non-blocking) at 2 sets.
/// Blocks of one line share its tag, refill and write-back, and its LR reservation.
#[test]
fn random_traffic_long_lines() {
    let shapes = [
        DcacheParams {
            bytes: 4096,
            line_bytes: 64,
            banks: 2,
            ways: 2,
            narrow_ports: 3,
            ..params()
        },
        DcacheParams {
            bytes: 8192,
            line_bytes: 128,
            banks: 4,
            ways: 8,
            mshrs: 2,
            mshr_targets: 8,
            narrow_ports: 3,
            ..params()
        },
    ];
    for (i, p) in shapes.iter().enumerate() {
        let cycles = random_run(p, STRESSES[i + 1], 150, 700 + i as u64);
        eprintln!("{p:?}: 150 requests per port in {cycles} cycles");
    }
}

/// Non-blocking banks (`mshrs` > 0): hits under misses, misses under misses, requests
/// joining an MSHR, full MSHRs and full targets, replays and the retry register, at
/// 1-16 ways, 1-32 banks, and one to many entries of one to eight targets.
#[test]
fn random_traffic_nonblocking() {
    let nb = |mshrs, mshr_targets, ways| DcacheParams {
        mshrs,
        mshr_targets,
        ways,
        ..params()
    };
    let shapes = [
        nb(4, 4, 1),
        nb(2, 1, 8),
        nb(16, 8, 2),
        // (Five models: three shared with the PLRU and hit-under-miss tests, and two
        // small extremes: one MSHR in each of 32 banks; one bank of 16 ways.)
        DcacheParams {
            bytes: 1024,
            banks: 32,
            narrow_ports: 2,
            ..nb(1, 3, 1)
        },
        DcacheParams {
            bytes: 1024,
            banks: 1,
            narrow_ports: 3,
            ..nb(4, 8, 16)
        },
    ];
    for (i, p) in shapes.iter().enumerate() {
        let s = STRESSES[i % 3];
        let n = if s.latency >= 100 { 60 } else { 150 };
        let cycles = random_run(p, s, n, 400 + i as u64);
        eprintln!("{p:?}: {n} requests per port in {cycles} cycles");
    }
}

/// Longer runs, with `ACCELGEN_LONG=1` only: 8 seeds x 3 memory settings x 1,000
/// requests a port on the blocking default (275 s), then on a 4-way non-blocking bank
/// of 4 MSHRs of 4 requests and on a direct-mapped one of 1 MSHR of 1 request.
#[test]
fn random_traffic_long() {
    if std::env::var_os("ACCELGEN_LONG").is_none() {
        return;
    }
    let nonblocking = DcacheParams {
        ways: 4,
        mshrs: 4,
        mshr_targets: 4,
        ..params()
    };
    let tight = DcacheParams {
        mshrs: 1,
        mshr_targets: 1,
        ..params()
    };
    for p in [params(), nonblocking, tight] {
        for seed in 0..8 {
            for s in STRESSES {
                random_run(&p, s, 1000, 1000 + seed);
            }
        }
    }
}

// ------------------------------------------------------------------ directed

const QUIET: Stress = Stress {
    latency: 1,
    jitter: 0,
    stall_percent: 0,
    gap_percent: 0,
};

fn load(addr: u64) -> Req {
    Req::Narrow {
        op: op::LOAD,
        addr,
        data: 0,
        mask: 0,
        size: 2,
    }
}

fn narrow(op: u64, addr: u64, data: u32) -> Req {
    Req::Narrow {
        op,
        addr,
        data,
        mask: 0xf,
        size: 2,
    }
}

/// The first line of bank `b` (set 0, alias 0).
fn line_of_bank(b: u64) -> u64 {
    REGION + 32 * b
}

/// Loads every bank's first line into the D$ through port 0.
fn warm(tb: &mut Tb) {
    for b in 0..tb.p.banks as u64 {
        let a = line_of_bank(b);
        tb.queue[0].push_back(load(a));
    }
    tb.run(10_000);
}

#[test]
fn one_access_per_bank_per_cycle() {
    let p = params();
    let mut tb = Tb::new(&p, QUIET, 1);
    warm(&mut tb);
    // Eight ports, eight banks: all accepted in one cycle, all answered in the next.
    for i in 0..8 {
        let a = line_of_bank(i as u64) + 4 * i as u64;
        tb.queue[i].push_back(load(a));
    }
    tb.run(1000);
    let at: Vec<u64> = (0..8).map(|i| *tb.accepted_at[i].last().unwrap()).collect();
    let back: Vec<u64> = (0..8).map(|i| *tb.answered_at[i].last().unwrap()).collect();
    assert!(at.iter().all(|&c| c == at[0]), "accepted at {at:?}");
    assert!(
        back.iter().all(|&c| c == at[0] + 2),
        "answered at {back:?} (accepted {})",
        at[0]
    );
    // Eight ports, one bank: one per cycle.
    for i in 0..8 {
        tb.queue[i].push_back(load(line_of_bank(0) + 4 * i as u64));
    }
    tb.run(1000);
    let mut at: Vec<u64> = (0..8).map(|i| *tb.accepted_at[i].last().unwrap()).collect();
    at.sort();
    assert!(
        at.windows(2).all(|w| w[1] == w[0] + 1),
        "accepted at {at:?}"
    );
    tb.flush_and_compare();
}

#[test]
fn round_robin_is_fair_under_full_contention() {
    let p = params();
    let mut tb = Tb::new(&p, QUIET, 2);
    warm(&mut tb);
    let ports = p.narrow_ports as usize + 1;
    for i in 0..ports - 1 {
        for _ in 0..30 {
            tb.queue[i].push_back(load(line_of_bank(0) + 4 * (i as u64 % 8)));
        }
    }
    for _ in 0..30 {
        let w = Req::Wide {
            write: false,
            addr: line_of_bank(0),
            data: [0; 32],
            mask: 0,
        };
        tb.queue[ports - 1].push_back(w);
    }
    tb.run(10_000);
    let mut order: Vec<(u64, usize)> = (0..ports)
        .flat_map(|i| {
            tb.accepted_at[i]
                .iter()
                .skip(if i == 0 { 8 } else { 0 })
                .map(move |&c| (c, i))
        })
        .collect();
    order.sort();
    assert!(
        order.windows(2).all(|w| w[1].0 == w[0].0 + 1),
        "one grant per cycle"
    );
    for round in order.chunks(ports) {
        let mut who: Vec<usize> = round.iter().map(|&(_, i)| i).collect();
        who.sort();
        assert_eq!(
            who,
            (0..ports).collect::<Vec<_>>(),
            "every port once per round: {round:?}"
        );
    }
}

#[test]
fn a_miss_blocks_only_its_bank() {
    let p = params();
    let slow = Stress {
        latency: 100,
        ..QUIET
    };
    let mut tb = Tb::new(&p, slow, 3);
    warm(&mut tb);
    tb.queue[0].push_back(load(line_of_bank(p.banks as u64)));
    tb.run(10_000);
    let cold = line_of_bank(0) + p.bytes as u64; // same set, another alias: a miss
    tb.queue[0].push_back(load(cold));
    for _ in 0..20 {
        tb.queue[1].push_back(load(line_of_bank(1)));
    }
    for _ in 0..3 {
        tb.cycle();
    }
    // Port 2 comes after the miss, to a line bank 0 holds in another set.
    tb.queue[2].push_back(load(line_of_bank(p.banks as u64)));
    tb.run(10_000);
    let miss_done = tb.answered_at[0].last().unwrap();
    let other_bank = tb.answered_at[1].last().unwrap();
    let same_bank = tb.answered_at[2].last().unwrap();
    eprintln!("miss answered at {miss_done}, 20 hits on bank 1 by {other_bank}, bank 0 hit at {same_bank}");
    assert!(
        other_bank < miss_done,
        "bank 1 went on during bank 0's refill"
    );
    assert!(same_bank > miss_done, "bank 0 blocked until its refill");
    tb.flush_and_compare();
}

/// Loads of one set, one at a time through one port: the lines the bank refills must be
/// those an independent tree pseudo-LRU of `ways` ways (the golden model's) misses on,
/// so a set keeps `ways` lines (a direct-mapped bank would refill at every alias) and
/// the victim is the tree's.
#[test]
fn a_set_holds_its_ways_and_replaces_pseudo_lru() {
    use verification::fgsimt::avc::plru::Plru;
    // The shapes of the random tests (their models are built once): blocking at 8 ways,
    // non-blocking at 8 ways (2 MSHRs of 1) and at 2 (16 MSHRs of 8).
    for (ways, mshrs, mshr_targets) in [(8u32, 0u32, 4u32), (8, 2, 1), (2, 16, 8)] {
        let p = DcacheParams {
            ways,
            mshrs,
            mshr_targets,
            ..params()
        };
        let mut tb = Tb::new(&p, QUIET, 7);
        let mut rng = Rng::new(ways as u64);
        let (mut lines, mut tree) = (vec![None; ways as usize], Plru::new(ways as usize));
        let mut refills = 0;
        // Tags 0..ways+2 of bank 0's set 3: the first `ways` rounds are all hits.
        let stride = (p.bytes / ways) as u64;
        let picks: Vec<u64> = (0..ways as u64)
            .chain((0..ways as u64).rev())
            .chain((0..300).map(|_| rng.below(ways as u64 + 2)))
            .collect();
        for &t in &picks {
            let addr = REGION + 3 * 32 * p.banks as u64 + t * stride;
            let way = match lines.iter().position(|&l| l == Some(t)) {
                Some(w) => w,
                None => {
                    refills += 1;
                    let valid: Vec<bool> = lines.iter().map(|l| l.is_some()).collect();
                    let w = tree.victim(&valid);
                    lines[w] = Some(t);
                    w
                }
            };
            tree.touch(way);
            tb.queue[0].push_back(load(addr));
            tb.run(10_000);
        }
        assert_eq!(
            tb.mem.stats().reads,
            refills,
            "{ways} ways: refills against the reference tree's misses"
        );
        eprintln!("{ways} ways: {refills} refills for {} loads", picks.len());
        tb.flush_and_compare();
    }
}

/// With MSHRs, a miss no longer blocks its bank: a later hit to that bank is answered
/// first, requests of other ports to the missing line join its MSHR (one refill), and
/// misses to other sets overlap (their refills are in flight together).
#[test]
fn hits_and_misses_go_on_under_a_miss() {
    let p = DcacheParams {
        mshrs: 4,
        ..params()
    };
    let slow = Stress {
        latency: 100,
        ..QUIET
    };
    let mut tb = Tb::new(&p, slow, 3);
    let hot = line_of_bank(0);
    // A line of bank 0 in set 3, which none of the misses below touches.
    let held = hot + 3 * 32 * p.banks as u64;
    tb.queue[0].push_back(load(held));
    tb.run(10_000);
    let reads = tb.mem.stats().reads;
    // A miss; then three ports join it.
    let cold = hot + p.bytes as u64;
    tb.queue[0].push_back(load(cold));
    tb.cycle();
    for port in 1..4 {
        tb.queue[port].push_back(load(cold + 4 * port as u64));
    }
    // Two misses to other sets of bank 0.
    let (other1, other2) = (hot + 32 * p.banks as u64, hot + 64 * p.banks as u64);
    tb.queue[4].push_back(load(other1));
    tb.queue[5].push_back(load(other2));
    for _ in 0..8 {
        tb.cycle();
    }
    // A hit to bank 0 after all of them.
    tb.queue[6].push_back(load(held + 8));
    tb.run(10_000);
    let miss_done = tb.answered_at[0].last().copied().unwrap();
    let hit_done = tb.answered_at[6].last().copied().unwrap();
    let others = [4, 5].map(|q| tb.answered_at[q].last().copied().unwrap());
    eprintln!(
        "miss answered at {miss_done}, the hit at {hit_done}, two other misses at {others:?}"
    );
    assert!(hit_done < miss_done, "the hit went on under the miss");
    assert_eq!(
        tb.mem.stats().reads - reads,
        3,
        "one refill for the joined line, one for each other line"
    );
    // The three misses overlap: all answered within a few cycles of one another, not
    // one memory latency apart.
    assert!(
        others.iter().all(|&c| c < miss_done + 50),
        "the misses overlapped: {miss_done} {others:?}"
    );
    tb.flush_and_compare();
}

#[test]
fn lr_sc_succeed_and_fail() {
    let p = params();
    let mut tb = Tb::new(&p, QUIET, 4);
    let a = line_of_bank(3) + 8;
    let b = line_of_bank(5);
    let steps: [(usize, Req); 11] = [
        (0, narrow(op::LR, a, 0)),
        (0, narrow(op::SC, a, 11)), // succeeds
        (0, narrow(op::SC, a, 12)), // no reservation left
        (0, narrow(op::LR, a, 0)),
        (1, narrow(op::STORE, a + 4, 13)), // same line: breaks port 0's reservation
        (0, narrow(op::SC, a, 14)),
        (0, narrow(op::LR, a, 0)),
        (0, narrow(op::LR, b, 0)), // moves the reservation to another bank
        (0, narrow(op::SC, a, 15)),
        (0, narrow(op::SC, b, 16)), // ended by the SC before
        (0, load(a)),
    ];
    for (port, r) in steps {
        tb.queue[port].push_back(r);
        tb.run(1000);
    }
    let sc: Vec<u32> = [1, 2, 4, 7, 8].iter().map(|&i| tb.answers[0][i]).collect();
    assert_eq!(sc, [0, 1, 1, 1, 1], "SC answers");
    assert_eq!(
        *tb.answers[0].last().unwrap(),
        11,
        "only the first SC wrote"
    );
    tb.flush_and_compare();
}

#[test]
fn uncached_accesses_bypass_the_cache() {
    let p = params();
    let mut tb = Tb::new(&p, QUIET, 5);
    let mbox = p.uncached_base + 8;
    tb.queue[2].push_back(narrow(op::STORE, mbox, 40));
    tb.queue[2].push_back(narrow(op::ADD, mbox, 2));
    tb.queue[2].push_back(narrow(op::SC, mbox, 7)); // no reservation outside the D$
    tb.queue[2].push_back(load(mbox));
    tb.run(1000);
    assert_eq!(
        tb.answers[2][1..],
        [40, 1, 42],
        "AMO old value, SC failure, load"
    );
    assert_eq!(
        tb.mem.memory().read_u64(mbox) as u32,
        42,
        "in memory without a flush"
    );
    let s = tb.mem.stats();
    assert_eq!(
        (s.reads + s.writes + s.amos, s.amos),
        (4, 1),
        "only the mailbox accesses reach memory"
    );
}

#[test]
fn flush_writes_back_dirty_lines_and_wide_accesses_work() {
    let p = params();
    let mut tb = Tb::new(&p, QUIET, 6);
    let a = line_of_bank(6);
    let mut data = [0u8; 32];
    data.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
    tb.queue[p.narrow_ports as usize].push_back(Req::Wide {
        write: true,
        addr: a,
        data,
        mask: 0xffff_00ff,
    });
    tb.run(1000);
    for w in 0..8 {
        tb.queue[0].push_back(load(a + 4 * w));
    }
    tb.run(1000);
    let mut before = [0u8; 32];
    tb.mem.memory().read(a, &mut before);
    let want: Vec<u32> = (0..8)
        .map(|w| {
            let b: Vec<u8> = (0..4)
                .map(|j| {
                    let i = w * 4 + j;
                    if 0xffff_00ffu32 >> i & 1 == 1 {
                        data[i]
                    } else {
                        before[i]
                    }
                })
                .collect();
            u32::from_le_bytes(b.try_into().unwrap())
        })
        .collect();
    assert_eq!(tb.answers[0], want, "narrow loads see the wide write");
    let writes = tb.mem.stats().writes;
    tb.flush_and_compare();
    assert_eq!(
        tb.mem.stats().writes,
        writes + 1,
        "one dirty line written back"
    );
    tb.flush_and_compare();
    assert_eq!(
        tb.mem.stats().writes,
        writes + 1,
        "lines are clean after a flush"
    );
}

// ------------------------------------------------------------------ lint

#[test]
fn default_and_small_shapes_are_lint_clean() {
    let small = |banks, narrow_ports| DcacheParams {
        bytes: 1024,
        banks,
        narrow_ports,
        ..params()
    };
    // 33 narrow ports: the most lanes (32) and the CP.
    for p in [
        params(),
        small(1, 1),
        small(2, 1),
        small(32, 2),
        small(4, 33),
        DcacheParams {
            ways: 8,
            ..params()
        },
        DcacheParams {
            ways: 16,
            ..small(2, 3)
        },
        DcacheParams {
            ways: 8,
            mshrs: 4,
            mshr_targets: 4,
            ..params()
        },
        DcacheParams {
            mshrs: 1,
            mshr_targets: 1,
            ..small(1, 1)
        },
        DcacheParams {
            ways: 2,
            mshrs: 3,
            mshr_targets: 5,
            ..small(16, 2)
        },
    ] {
        let d = Design::new(&l1::dcache(&p, TAG_BITS).unwrap());
        lint_rig::lint_design(&d, &format!("{p:?}"));
    }
    for bytes in [16 * 1024, 1024] {
        let fp = FgsimtParams {
            icache_bytes: bytes,
            ..FgsimtParams::default()
        };
        let d = Design::new(&l1::icache(fp.icache_bytes, fp.sram_threshold_bits).unwrap());
        lint_rig::lint_design(&d, &format!("icache {bytes}"));
    }
}

// ------------------------------------------------------------------ I$

/// Fetches `addrs` through the I$, checking each answer against memory; returns the
/// cycles at which the fetches were accepted.
fn fetch(dut: &mut Model, mem: &mut MemoryModel, addrs: &[u64]) -> Vec<u64> {
    let mut next = 0;
    let mut expect: VecDeque<u64> = VecDeque::new();
    let mut accepted = Vec::new();
    let mut cycle = 0u64;
    while next < addrs.len() || !expect.is_empty() {
        let valid = next < addrs.len();
        dut.poke_u64("cpu_req_valid", valid as u64).unwrap();
        dut.poke_u64("cpu_req_bits_addr", addrs[next.min(addrs.len() - 1)])
            .unwrap();
        mem.tick(dut).unwrap_or_else(|e| panic!("{e}"));
        if dut.peek_u64("cpu_resp_valid").unwrap() == 1 {
            let a = expect.pop_front().expect("an answer to a fetch");
            let want = mem.memory().read_u64(a & !7);
            assert_eq!(
                dut.peek_u64("cpu_resp_bits_data").unwrap(),
                want,
                "fetch at {a:#x}"
            );
        }
        if valid && dut.peek_u64("cpu_req_ready").unwrap() == 1 {
            expect.push_back(addrs[next]);
            accepted.push(cycle);
            next += 1;
        }
        dut.step();
        cycle += 1;
        assert!(cycle < 1_000_000, "fetches stuck");
    }
    accepted
}

#[test]
fn icache_fetches_match_memory_and_hits_stream() {
    let fp = FgsimtParams::default();
    let top = l1::icache(fp.icache_bytes, fp.sram_threshold_bits).unwrap();
    let mut dut = Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap();
    let config = MemConfig {
        data_bytes: 8,
        latency: 20,
        jitter: 3,
        stall_percent: 20,
        seed: 7,
        ..MemConfig::default()
    };
    let port = MemPort {
        resp_ready: None,
        ..MemPort::decoupled("mem", false)
    };
    let mut mem = MemoryModel::new(config, vec![port]).unwrap();
    let mut rng = Rng::new(7);
    let span = 2 * fp.icache_bytes as u64;
    let image: Vec<u8> = (0..span).map(|_| rng.next_u64() as u8).collect();
    mem.memory_mut().write(REGION, &image);
    dut.restart(0).unwrap();
    for f in ["write", "data", "mask", "size"] {
        dut.poke_u64(&format!("cpu_req_bits_{f}"), 0).unwrap();
    }
    dut.poke_u64("invalidate", 0).unwrap();
    // Runs of 1 to 24 instructions at random places of twice the cache: conflicts.
    let mut addrs = Vec::new();
    while addrs.len() < 3000 {
        let start = REGION + 4 * rng.below(span / 4);
        let run = 1 + rng.below(24);
        addrs.extend(
            (0..run)
                .map(|i| start + 4 * i)
                .filter(|&a| a < REGION + span),
        );
    }
    fetch(&mut dut, &mut mem, &addrs);
    // A loop body of 64 instructions, once to fill, then from the cache.
    let body: Vec<u64> = (0..64).map(|i| REGION + 0x400 + 4 * i).collect();
    fetch(&mut dut, &mut mem, &body);
    let at = fetch(&mut dut, &mut mem, &body);
    assert!(
        at.windows(2).all(|w| w[1] == w[0] + 1),
        "hits one per cycle: {at:?}"
    );
}

#[test]
fn memory_ports_have_the_memory_models_shapes_and_output_is_deterministic() {
    use generators::fgsimt::l1::xbar;
    use verification::tb::memory::{amo_request_shape, request_shape};
    let g = l1::Geometry::new(&params());
    let tb = xbar::io_tag_bits(&g);
    assert_eq!(xbar::line_mem_request(&g), request_shape(32, 32, 0));
    for line in [64, 128] {
        let g = l1::Geometry::new(&DcacheParams {
            line_bytes: line,
            ..params()
        });
        assert_eq!(xbar::line_mem_request(&g), request_shape(32, line, 0));
    }
    assert_eq!(xbar::io_mem_request(tb), amo_request_shape(32, 4, tb));
    let verilog = || {
        let d = Design::new(&l1::dcache(&params(), TAG_BITS).unwrap());
        hdl::emit::emit(&d, &Default::default()).single_file()
    };
    assert_eq!(verilog(), verilog(), "the same Verilog twice");
}
