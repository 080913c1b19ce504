//! The L2 (`generators::l2`, thesis Table 9.2) under Verilator against a flat memory.
//!
//! Random traffic on every client port at once (reads of a beat or a doubleword, writes
//! of 1 to 16 bytes, every AMO at both widths, random tags in flight, response
//! back-pressure) over a pool of lines that alias in few sets of every bank, so lines are
//! evicted dirty and clean, refilled and replayed while other requests hit under the
//! misses. The memory model behind the banks answers at latency 1 to 100 with jitter,
//! stalls and out-of-order responses. Each access is applied to a flat reference memory
//! (`SparseMemory`, with the memory model's AMO semantics) in the order the banks
//! performed them (`b<i>_trace` names the port and tag; the request itself is the
//! bench's record), every response is checked against it, no port's requests to one line
//! are performed out of order, and at the end every byte of the pool is read back
//! through the L2. Directed tests measure hits at one per cycle, a hit's latency and hits
//! under a miss; the shapes are lint clean at their extremes.

mod l1_rig;
mod lint_rig;
use generators::l2::{self, L2Cache, L2Params};
use hdl::{Bits, Design};
use std::collections::{BTreeMap, VecDeque};
use verification::rng::Rng;
use verification::tb::memory::{amo, MemConfig, MemPort, MemoryModel, SparseMemory};
use verification::verilator::{Model, Options};

/// The pool of lines the traffic uses starts here.
const REGION: u64 = 0x4000_0000;

#[derive(Clone, Copy, Debug)]
struct Req {
    addr: u64,
    write: bool,
    data: [u8; 16],
    mask: u16,
    size: u64,
    amo: u64,
}

impl Req {
    fn read(addr: u64, size: u64) -> Req {
        Req {
            addr,
            write: false,
            data: [0; 16],
            mask: 0,
            size,
            amo: amo::NONE,
        }
    }
}

/// Memory timing of a run and the bench's own back-pressure.
#[derive(Clone, Copy, Debug)]
struct Stress {
    latency: u32,
    jitter: u32,
    stall_percent: u32,
    out_of_order: bool,
    /// Percent of cycles a port withholds its next request, and its response ready.
    gap_percent: u64,
    busy_percent: u64,
}

const CALM: Stress = Stress {
    latency: 1,
    jitter: 0,
    stall_percent: 0,
    out_of_order: false,
    gap_percent: 0,
    busy_percent: 0,
};

/// A request in flight: its sequence number on its port, the request, and the beat it
/// must answer once performed.
type Flight = (u64, Req, Option<[u8; 16]>);

struct Tb {
    dut: Model,
    mem: MemoryModel,
    refm: SparseMemory,
    p: L2Params,
    queue: Vec<VecDeque<Req>>,
    /// Per port: the requests in flight by tag.
    flight: Vec<BTreeMap<u64, Flight>>,
    seq: Vec<u64>,
    answered: u64,
    /// Cycle each port's requests were accepted and answered, by sequence number.
    accepted_at: Vec<BTreeMap<u64, u64>>,
    answered_at: Vec<BTreeMap<u64, u64>>,
    /// Trace events on a bank while its memory port had a refill outstanding.
    under_miss: u64,
    /// Lines the flush wrote back.
    flushed: u64,
    cycle: u64,
    rng: Rng,
    stress: Stress,
}

fn model_of(p: &L2Params) -> Model {
    let top = l2::l2(p).unwrap_or_else(|e| panic!("{e}"));
    Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap()
}

fn beat_bytes(bits: &Bits) -> [u8; 16] {
    let mut out = [0; 16];
    for (i, w) in bits.words().iter().take(2).enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    out
}

impl Tb {
    fn new(dut: Model, p: &L2Params, s: Stress, seed: u64) -> Tb {
        let mut dut = dut;
        let ports = (0..p.cache.banks)
            .map(|b| MemPort {
                resp_ready: None,
                ..MemPort::decoupled(&format!("b{b}_mem"), true)
            })
            .collect();
        let config = MemConfig {
            data_bytes: p.cache.line_bytes,
            latency: s.latency,
            jitter: s.jitter,
            out_of_order: s.out_of_order,
            stall_percent: s.stall_percent,
            max_outstanding: 8,
            seed,
            ..MemConfig::default()
        };
        let mut mem = MemoryModel::new(config, ports).unwrap();
        let mut rng = Rng::new(seed);
        let image: Vec<u8> = (0..pool_bytes(p)).map(|_| rng.next_u64() as u8).collect();
        mem.memory_mut().write(REGION, &image);
        let refm = mem.memory().clone();
        dut.restart(seed).unwrap();
        let n = p.ports as usize;
        Tb {
            dut,
            mem,
            refm,
            p: p.clone(),
            queue: vec![VecDeque::new(); n],
            flight: vec![BTreeMap::new(); n],
            seq: vec![0; n],
            answered: 0,
            accepted_at: vec![BTreeMap::new(); n],
            answered_at: vec![BTreeMap::new(); n],
            under_miss: 0,
            flushed: 0,
            cycle: 0,
            rng,
            stress: s,
        }
    }

    fn sent(&self) -> u64 {
        self.seq.iter().sum()
    }

    /// Drives each port's next request with a free tag (or none); returns the tags.
    fn drive(&mut self) -> Vec<Option<u64>> {
        let tags = 1u64 << self.p.tag_bits;
        let mut driving = Vec::new();
        for i in 0..self.queue.len() {
            let free: Vec<u64> = (0..tags)
                .filter(|t| !self.flight[i].contains_key(t))
                .collect();
            let hold = self.rng.chance(self.stress.gap_percent) || free.is_empty();
            let req = if hold {
                None
            } else {
                self.queue[i].front().copied()
            };
            let pre = format!("p{i}_req");
            let d = &mut self.dut;
            d.poke_u64(&format!("{pre}_valid"), req.is_some() as u64)
                .unwrap();
            let ready = !self.rng.chance(self.stress.busy_percent);
            d.poke_u64(&format!("p{i}_resp_ready"), ready as u64)
                .unwrap();
            let Some(r) = req else {
                driving.push(None);
                continue;
            };
            let tag = *self.rng.pick(&free);
            for (f, v) in [
                ("addr", r.addr),
                ("write", r.write as u64),
                ("mask", r.mask as u64),
                ("size", r.size),
                ("amo", r.amo),
                ("tag", tag),
            ] {
                d.poke_u64(&format!("{pre}_bits_{f}"), v).unwrap();
            }
            let words = [
                u64::from_le_bytes(r.data[..8].try_into().unwrap()),
                u64::from_le_bytes(r.data[8..].try_into().unwrap()),
            ];
            d.poke(&format!("{pre}_bits_data"), &Bits::from_words(128, &words))
                .unwrap();
            driving.push(Some(tag));
        }
        driving
    }

    /// Applies the requests the banks performed this cycle to the reference.
    fn performed(&mut self) {
        for b in 0..self.p.cache.banks {
            let pre = format!("b{b}_trace");
            if self.dut.peek_u64(&format!("{pre}_valid")).unwrap() == 0 {
                continue;
            }
            if self.mem.outstanding(b as usize) > 0 {
                self.under_miss += 1;
            }
            let port = self.dut.peek_u64(&format!("{pre}_bits_port")).unwrap() as usize;
            let tag = self.dut.peek_u64(&format!("{pre}_bits_tag")).unwrap();
            let cycle = self.cycle;
            let (seq, req) = match self.flight.get(port).and_then(|f| f.get(&tag)) {
                Some((seq, req, None)) => (*seq, *req),
                _ => {
                    panic!("cycle {cycle}: bank {b} performed port {port} tag {tag}, not in flight")
                }
            };
            let line = req.addr / self.p.cache.line_bytes as u64;
            let line_bytes = self.p.cache.line_bytes as u64;
            if let Some((s, r, _)) = self.flight[port]
                .values()
                .find(|(s, r, w)| *s < seq && w.is_none() && r.addr / line_bytes == line)
            {
                panic!("cycle {cycle}: port {port}'s request {seq} ({req:x?}) performed before its request {s} ({r:x?}) to the same line");
            }
            let want = self.apply(&req);
            self.flight[port].get_mut(&tag).unwrap().2 = Some(want);
        }
    }

    /// Performs `r` on the reference; returns the beat it answers.
    fn apply(&mut self, r: &Req) -> [u8; 16] {
        let base = r.addr & !15;
        let mut old = [0u8; 16];
        self.refm.read(base, &mut old);
        if r.amo != amo::NONE {
            let bytes = 1u32 << r.size;
            let off = (r.addr - base) as usize;
            let mut o = [0u8; 8];
            o[..bytes as usize].copy_from_slice(&old[off..off + bytes as usize]);
            let mut s = [0u8; 8];
            s[..bytes as usize].copy_from_slice(&r.data[off..off + bytes as usize]);
            let new = amo::apply(r.amo, bytes, u64::from_le_bytes(o), u64::from_le_bytes(s))
                .expect("a valid AMO");
            self.refm
                .write(r.addr, &new.to_le_bytes()[..bytes as usize]);
            old
        } else if r.write {
            for i in 0..16 {
                if r.mask >> i & 1 == 1 {
                    self.refm.write(base + i, &[r.data[i as usize]]);
                }
            }
            [0; 16]
        } else {
            old
        }
    }

    /// Checks the responses taken this cycle.
    fn responses(&mut self) {
        for i in 0..self.p.ports as usize {
            let pre = format!("p{i}_resp");
            let fire = self.dut.peek_u64(&format!("{pre}_valid")).unwrap()
                & self.dut.peek_u64(&format!("{pre}_ready")).unwrap();
            if fire == 0 {
                continue;
            }
            let tag = self.dut.peek_u64(&format!("{pre}_bits_tag")).unwrap();
            let cycle = self.cycle;
            let (seq, req, want) = self.flight[i].remove(&tag).unwrap_or_else(|| {
                panic!("cycle {cycle}: port {i} answered tag {tag}, not in flight")
            });
            let want = want.unwrap_or_else(|| {
                panic!("cycle {cycle}: port {i} answered request {seq} before performing it")
            });
            let got = beat_bytes(&self.dut.peek(&format!("{pre}_bits_data")).unwrap());
            assert_eq!(got, want, "cycle {cycle}: port {i} request {seq} {req:x?}");
            self.answered_at[i].insert(seq, cycle);
            self.answered += 1;
        }
    }

    /// Records this cycle's acceptances.
    fn accepted(&mut self, driving: &[Option<u64>]) {
        for (i, tag) in driving.iter().enumerate() {
            let Some(tag) = tag else { continue };
            if self.dut.peek_u64(&format!("p{i}_req_ready")).unwrap() == 0 {
                continue;
            }
            let req = self.queue[i].pop_front().unwrap();
            let seq = self.seq[i];
            self.seq[i] += 1;
            self.accepted_at[i].insert(seq, self.cycle);
            self.flight[i].insert(*tag, (seq, req, None));
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
        while self.queue.iter().any(|q| !q.is_empty()) || self.answered != self.sent() {
            self.cycle();
            assert!(
                self.cycle - start < limit,
                "no progress after {limit} cycles"
            );
        }
    }

    /// Flushes the L2 and compares the memory behind it with the reference.
    fn flush_and_compare(&mut self) {
        self.dut.poke_u64("flush", 1).unwrap();
        let start = self.cycle;
        while self.dut.peek_u64("flushed").unwrap() == 0 {
            self.cycle();
            assert!(self.cycle - start < 1_000_000, "flush never done");
        }
        self.dut.poke_u64("flush", 0).unwrap();
        l1_rig::compare(self.mem.memory(), &self.refm, REGION, pool_bytes(&self.p));
    }

    /// Reads every beat of the pool back through port 0 (checked like any read).
    fn read_back(&mut self) {
        for off in (0..pool_bytes(&self.p)).step_by(16) {
            self.queue[0].push_back(Req::read(REGION + off, 4));
        }
        self.run(2_000_000);
    }
}

/// Bytes of the address pool: four times the L2's capacity, so each set has four
/// aliases per way.
fn pool_bytes(p: &L2Params) -> u64 {
    4 * p.cache.banks as u64 * p.cache.bank_bytes as u64
}

/// A write (or AMO `op`) of 2^`size` bytes at a random aligned place of the beat at
/// `base`, its mask covering those bytes.
fn write_at(rng: &mut Rng, base: u64, size: u64, data: [u8; 16], op: u64) -> Req {
    let bytes = 1u64 << size;
    let addr = base + bytes * rng.below(16 / bytes);
    Req {
        addr,
        write: true,
        data,
        mask: (((1u32 << bytes) - 1) << (addr - base)) as u16,
        size,
        amo: op,
    }
}

/// A random request to the pool: a few sets of every bank at every alias, so lines of
/// one set evict one another.
fn random_request(rng: &mut Rng, p: &L2Params) -> Req {
    let lines = pool_bytes(p) / p.cache.line_bytes as u64;
    let sets = (p.cache.bank_bytes / p.cache.line_bytes / p.cache.ways) as u64;
    let span = p.cache.banks as u64 * sets;
    // Lines of sets 0, 1 and the last, of every bank, at any alias.
    let set = *rng.pick(&[0, 1, sets.max(2) - 1]) % sets;
    let stride = span;
    let line = (rng.below(p.cache.banks as u64)
        + set * p.cache.banks as u64
        + rng.below(lines / stride) * stride)
        % lines;
    let beat = rng.below(p.cache.line_bytes as u64 / 16);
    let base = REGION + line * p.cache.line_bytes as u64 + beat * 16;
    let mut data = [0u8; 16];
    for b in data.iter_mut() {
        *b = rng.next_u64() as u8;
    }
    match rng.below(10) {
        0..=3 => {
            let size = *rng.pick(&[3, 4]);
            let addr = base + if size == 3 { 8 * rng.below(2) } else { 0 };
            Req::read(addr, size)
        }
        4..=7 => {
            let size = rng.below(5);
            write_at(rng, base, size, data, amo::NONE)
        }
        _ => {
            let size = *rng.pick(&[2, 3]);
            let op = 1 + rng.below(9);
            write_at(rng, base, size, data, op)
        }
    }
}

/// `n` random requests per port under `s`, then the read-back; returns the bench.
fn random_run(dut: Model, p: &L2Params, s: Stress, seed: u64, n: usize) -> Tb {
    let mut tb = Tb::new(dut, p, s, seed);
    for q in 0..p.ports as usize {
        for _ in 0..n {
            let r = random_request(&mut tb.rng, p);
            tb.queue[q].push_back(r);
        }
    }
    tb.run(5_000_000);
    let writes = tb.mem.stats().writes;
    tb.flush_and_compare();
    tb.flushed = tb.mem.stats().writes - writes;
    // A host changes memory behind the flushed L2: reads must see it.
    for line in (0..pool_bytes(p)).step_by(p.cache.line_bytes as usize) {
        let bytes = tb.rng.next_u64().to_le_bytes();
        tb.mem.memory_mut().write(REGION + line, &bytes);
        tb.refm.write(REGION + line, &bytes);
    }
    tb.read_back();
    tb
}

/// Small shapes that evict constantly: (banks, bank_bytes, ways, line_bytes, mshrs). The
/// last has three times as many MSHRs as ways: its sets fill with misses.
fn stress_shape(i: usize) -> L2Params {
    let shapes = [
        (2, 1024, 4, 64, 3),
        (1, 256, 1, 16, 1),
        (4, 512, 2, 32, 2),
        (2, 512, 2, 32, 6),
    ];
    let (banks, bank_bytes, ways, line_bytes, mshrs) = shapes[i];
    L2Params {
        ports: 3,
        tag_bits: 3,
        cache: L2Cache {
            banks,
            bank_bytes,
            ways,
            line_bytes,
            mshrs,
            resp_entries: [4, 2, 3, 4][i],
            // The first shape's arrays are all SRAM macros, the others' all flops.
            sram_threshold_bits: if i == 0 {
                0
            } else {
                generators::memory::NEVER_SRAM_BITS
            },
        },
    }
}

const STRESSES: [Stress; 3] = [
    CALM,
    Stress {
        latency: 20,
        jitter: 10,
        stall_percent: 25,
        out_of_order: true,
        gap_percent: 30,
        busy_percent: 30,
    },
    Stress {
        latency: 100,
        jitter: 30,
        stall_percent: 10,
        out_of_order: true,
        gap_percent: 10,
        busy_percent: 10,
    },
];

#[test]
fn random_traffic_matches_a_flat_memory() {
    let shapes: Vec<usize> = if std::env::var_os("ACCELGEN_LONG").is_some() {
        vec![0, 1, 2, 3]
    } else {
        vec![0, 1, 3]
    };
    // `L2_RANDOM_SEEDS=N` runs each shape and stress with N seeds (a campaign).
    let seeds: usize = std::env::var("L2_RANDOM_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for i in shapes {
        let p = stress_shape(i);
        p.validate().unwrap();
        let dut = model_of(&p);
        let mut dut = Some(dut);
        let runs = STRESSES
            .iter()
            .enumerate()
            .flat_map(|(j, s)| (0..seeds).map(move |r| ((r * 9 + i * 3 + j) as u64, s)));
        for (seed, s) in runs {
            let n = if s.latency == 100 { 400 } else { 1500 };
            let tb = random_run(dut.take().unwrap(), &p, *s, seed, n);
            let st = tb.mem.stats();
            println!(
                "shape {i} ({} banks x {} B, {} ways, {} B lines, {} MSHRs), seed {seed}, latency {}: {} requests, {} refills, {} write-backs, {} performed under a miss, {} cycles, {} lines flushed",
                p.cache.banks, p.cache.bank_bytes, p.cache.ways, p.cache.line_bytes, p.cache.mshrs, s.latency,
                tb.sent(), st.reads, st.writes, tb.under_miss, tb.cycle, tb.flushed
            );
            assert!(st.reads > tb.sent() / 10, "few refills: {st:?}");
            assert!(st.writes > tb.sent() / 20, "few write-backs: {st:?}");
            if s.latency > 1 {
                assert!(tb.under_miss > tb.sent() / 20, "few hits under misses");
            }
            dut = Some(tb.dut);
        }
    }
}

#[test]
fn shapes_are_lint_clean_at_their_extremes() {
    let base = L2Params::default();
    // The default, the direct-mapped single-MSHR stress shape and the one with more
    // MSHRs than ways; with ACCELGEN_LONG also the extremes (45 s more; the other stress
    // shapes lie between them).
    let mut shapes = vec![base.clone(), stress_shape(1), stress_shape(3)];
    let long = std::env::var_os("ACCELGEN_LONG").is_some();
    let threshold = base.cache.sram_threshold_bits;
    shapes.push(L2Params {
        ports: 1,
        tag_bits: 1,
        cache: L2Cache {
            banks: 16,
            bank_bytes: 2048,
            ways: 16,
            line_bytes: 128,
            mshrs: 16,
            resp_entries: 16,
            sram_threshold_bits: threshold,
        },
    });
    shapes.push(L2Params {
        ports: 32,
        tag_bits: 16,
        cache: L2Cache {
            banks: 1,
            bank_bytes: 256,
            ways: 16,
            line_bytes: 16,
            mshrs: 1,
            resp_entries: 2,
            sram_threshold_bits: threshold,
        },
    });
    shapes.push(L2Params {
        ports: 4,
        tag_bits: 4,
        cache: L2Cache {
            banks: 2,
            bank_bytes: 1024,
            ways: 1,
            line_bytes: 64,
            mshrs: 16,
            resp_entries: 4,
            sram_threshold_bits: threshold,
        },
    });
    if !long {
        shapes.truncate(3);
    }
    let blocks: Vec<_> = shapes
        .iter()
        .map(|p| {
            p.validate().unwrap();
            l2::l2(p).unwrap()
        })
        .collect();
    lint_rig::lint_blocks("l2", &blocks);
}

/// A bench on stress shape 0 at memory `latency` with no back-pressure, with the lines
/// of `warm` brought in.
fn quiet_bench(latency: u32, warm: &[u64]) -> Tb {
    let p = stress_shape(0);
    let s = Stress { latency, ..CALM };
    let mut tb = Tb::new(model_of(&p), &p, s, 7);
    for &addr in warm {
        tb.queue[0].push_back(Req::read(addr, 4));
    }
    tb.run(10_000);
    tb
}

#[test]
fn hits_stream_at_one_per_cycle_per_bank() {
    let p = stress_shape(0);
    let line = p.cache.line_bytes as u64;
    // Line 0 is in bank 0, line 1 in bank 1.
    let mut tb = quiet_bench(1, &[REGION, REGION + line]);
    let before = tb.sent();
    let n = 32;
    for i in 0..n {
        tb.queue[1].push_back(Req::read(REGION + 16 * (i % 4), 4));
        tb.queue[2].push_back(Req::read(REGION + line + 16 * (i % 4), 4));
    }
    tb.run(1_000);
    assert_eq!(tb.sent() - before, 2 * n);
    for port in [1, 2] {
        let acc: Vec<u64> = tb.accepted_at[port].values().copied().collect();
        let ans: Vec<u64> = tb.answered_at[port].values().copied().collect();
        assert!(
            acc.windows(2).all(|w| w[1] == w[0] + 1),
            "port {port}: hits accepted at {acc:?}"
        );
        let lat: Vec<u64> = acc.iter().zip(&ans).map(|(a, r)| r - a).collect();
        assert!(
            lat.iter().all(|&l| l == 3),
            "port {port}: hit latencies {lat:?}"
        );
    }
    println!("two banks: {n} hits each in {n} consecutive cycles, each answered 3 cycles after acceptance");
}

#[test]
fn hits_go_on_under_misses() {
    let p = stress_shape(0);
    let line = p.cache.line_bytes as u64;
    let bank_stride = line * p.cache.banks as u64;
    let mshrs = p.cache.mshrs as u64;
    let mut tb = quiet_bench(100, &[REGION]);
    // Misses to bank 0 on port 0 with an MSHR left over, then hits on port 1.
    for i in 1..mshrs {
        tb.queue[0].push_back(Req::read(REGION + i * bank_stride, 4));
    }
    for _ in 0..10 {
        tb.cycle();
    }
    for _ in 0..8 {
        tb.queue[1].push_back(Req::read(REGION, 4));
    }
    tb.run(10_000);
    let last_hit = *tb.answered_at[1].values().max().unwrap();
    let first_miss = *tb.answered_at[0].values().skip(1).min().unwrap();
    assert!(
        last_hit + 80 < first_miss,
        "hits answered by cycle {last_hit}, the first miss at {first_miss}"
    );
    // One miss more than there are MSHRs: `mshrs` refills at once, the last miss waits.
    let before = tb.seq[0];
    for i in 0..=mshrs {
        tb.queue[0].push_back(Req::read(REGION + (10 + i) * bank_stride, 4));
    }
    let mut most = 0;
    while !tb.queue[0].is_empty() || tb.answered != tb.sent() {
        tb.cycle();
        most = most.max(tb.mem.outstanding(0));
    }
    assert_eq!(most, p.cache.mshrs as usize, "refills outstanding at once");
    let acc: Vec<u64> = tb.accepted_at[0].range(before..).map(|(_, c)| *c).collect();
    assert!(
        acc[p.cache.mshrs as usize] > acc[0] + 100,
        "the miss beyond the MSHRs waits for one: accepted at {acc:?}"
    );
}
