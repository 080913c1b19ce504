//! The Hwacha VMU of one lane under Verilator against a per-element reference written
//! from the ISA's memory semantics (chapter 7): element k of lane `lane_id` is global
//! element e(k) = ((k / strip) * lanes + lane_id) * strip + k % strip; its address is
//! base + e(k) * stride (the element size for unit stride) or base + offset (indexed,
//! AMO); loads sign- or zero-extend, stores write the low bytes, AMOs return the old
//! value (sign-extended) and write the RV64A combination; commands and their active
//! elements happen in order; the first misaligned active element is an exception that
//! ends its command. Random commands of every mode, width and signedness run against the
//! tagged, out-of-order memory model with latency, jitter and back-pressure, and random
//! back-pressure on the `vlu` and `vlu_next` writes; the final memory image and every write are
//! compared. The designs tested are also lint clean (Verilator -Wall, Yosys, Icarus).

use asic_flow::lint::{run_all, LintTarget};
use generators::hwacha::params::HwachaParams;
use generators::hwacha::vmu::{self, tag_bits, vmu};
use hdl::sim::Init;
use hdl::{Bits, Design};
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;
use verification::rng::Rng;
use verification::tb::memory::{MemConfig, MemPort, MemoryModel, SparseMemory};
use verification::verilator::{Model, Options, INIT_SEEDS};

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// The configurations tested: lanes 1, 2, 4 with different strips and slice counts, the
/// last with tiny queues and VLT so that every back-pressure path is exercised.
fn configs() -> Vec<HwachaParams> {
    let with = |lanes, banks, bank_width, small: bool| {
        let mut p = HwachaParams {
            lanes,
            banks,
            bank_width,
            ..HwachaParams::default()
        };
        if small {
            p.vvaq_entries = 2;
            p.vpaq_entries = 2;
            p.vsdq_entries = 2;
            p.vldq_entries = 2;
            p.vlt_entries = 3;
        }
        p.validate().unwrap();
        p
    };
    let mut v = vec![
        with(1, 4, 128, false),
        with(2, 2, 256, false),
        with(4, 2, 64, true),
    ];
    if long() {
        // Eight slices, one bank; byte-sized strips; four lanes of the default lane.
        v.push(with(2, 1, 512, true));
        v.push(with(1, 1, 64, false));
        v.push(with(4, 4, 128, false));
    }
    v
}

// ------------------------------------------------------------------ reference

/// The command encoding of the `cmd` port: op, mode.
const LOAD: u64 = 0;
const STORE: u64 = 1;
const AMO: u64 = 2;
const UNIT: u64 = 0;
const STRIDED: u64 = 1;
const INDEXED: u64 = 2;

#[derive(Clone, Debug)]
struct Cmd {
    op: u64,
    amo_fn: u64,
    mode: u64,
    width: u64,
    unsigned: bool,
    base: u64,
    stride: u64,
    vlen: u64,
    /// Per lane-local element: predicate, VVAQ offset, store data / AMO operand.
    pred: Vec<bool>,
    offset: Vec<u64>,
    data: Vec<u64>,
}

/// What the reference expects of a run.
#[derive(Default)]
struct Expect {
    /// (load or AMO command ordinal, element) -> value written back.
    vlu: BTreeMap<(usize, u64), u64>,
    xcpt: Vec<(u64, bool)>,
    /// Memory requests: one per 16-byte beat with an active element in each contiguous
    /// run of a unit-stride or narrow-stride command (a lane strip, with several lanes),
    /// one per active element otherwise (an AMO's one, which the memory performs).
    requests: u64,
}

fn ext(raw: u64, width: u64, unsigned: bool) -> u64 {
    let bits = 8u32 << width;
    if bits == 64 {
        return raw;
    }
    let raw = raw & ((1u64 << bits) - 1);
    if unsigned {
        raw
    } else {
        (((raw << (64 - bits)) as i64) >> (64 - bits)) as u64
    }
}

/// RV64A: the value an AMO writes, compared at the access width; `f` is the port's
/// `amo_fn` (swap add xor and or min max minu maxu).
fn amo(f: u64, width: u64, old: u64, src: u64) -> u64 {
    let (os, ss) = (ext(old, width, false) as i64, ext(src, width, false) as i64);
    let (ou, su) = (ext(old, width, true), ext(src, width, true));
    match f {
        0 => src,
        1 => old.wrapping_add(src),
        2 => old ^ src,
        3 => old & src,
        4 => old | src,
        5 => {
            if os <= ss {
                old
            } else {
                src
            }
        }
        6 => {
            if os >= ss {
                old
            } else {
                src
            }
        }
        7 => {
            if ou <= su {
                old
            } else {
                src
            }
        }
        8 => {
            if ou >= su {
                old
            } else {
                src
            }
        }
        _ => unreachable!(),
    }
}

fn global(k: u64, p: &HwachaParams, lane: u64) -> u64 {
    let strip = p.strip() as u64;
    ((k / strip) * p.lanes as u64 + lane) * strip + k % strip
}

fn elem_addr(c: &Cmd, k: u64, p: &HwachaParams, lane: u64) -> u64 {
    match (c.op, c.mode) {
        (AMO, _) | (_, INDEXED) => c.base.wrapping_add(c.offset[k as usize]),
        (_, UNIT) => c.base.wrapping_add(global(k, p, lane) << c.width),
        _ => c
            .base
            .wrapping_add(global(k, p, lane).wrapping_mul(c.stride)),
    }
}

/// Whether `c`'s elements coalesce into beats: unit stride, or a constant stride of 1, 2,
/// 4 or 8 bytes and at least the element size (not AMOs).
fn coalesces(c: &Cmd) -> bool {
    let narrow = c.stride.is_power_of_two() && c.stride <= 8 && c.stride >= 1 << c.width;
    c.op != AMO && (c.mode == UNIT || (c.mode == STRIDED && narrow))
}

/// Runs `cmds` element by element on `mem`.
fn reference(cmds: &[Cmd], p: &HwachaParams, lane: u64, mem: &mut SparseMemory) -> Expect {
    let mut x = Expect::default();
    let mut loads = 0;
    for c in cmds {
        let bytes = 1usize << c.width;
        let mut beats = std::collections::BTreeSet::new();
        for k in 0..c.vlen {
            if !c.pred[k as usize] {
                continue;
            }
            let a = elem_addr(c, k, p, lane);
            if !a.is_multiple_of(bytes as u64) {
                x.xcpt.push((a, c.op != LOAD));
                break;
            }
            if coalesces(c) {
                let run = if p.lanes > 1 { k / p.strip() as u64 } else { 0 };
                beats.insert((run, a / 16));
            } else {
                x.requests += 1;
            }
            let mut b = [0u8; 8];
            mem.read(a, &mut b[..bytes]);
            let old = u64::from_le_bytes(b);
            match c.op {
                LOAD => {
                    x.vlu.insert((loads, k), ext(old, c.width, c.unsigned));
                }
                STORE => mem.write(a, &c.data[k as usize].to_le_bytes()[..bytes]),
                _ => {
                    let new = amo(c.amo_fn, c.width, old, c.data[k as usize]);
                    mem.write(a, &new.to_le_bytes()[..bytes]);
                    x.vlu.insert((loads, k), ext(old, c.width, false));
                }
            }
        }
        x.requests += beats.len() as u64;
        if c.op != STORE {
            loads += 1;
        }
    }
    x
}

#[test]
fn reference_semantics() {
    assert_eq!(ext(0x80, 0, false), u64::MAX - 0x7f);
    assert_eq!(ext(0x1_8000, 1, true), 0x8000);
    assert_eq!(amo(5, 2, 0xffff_ffff, 1), 0xffff_ffff);
    assert_eq!(amo(7, 2, 0xffff_ffff, 1), 1);
    assert_eq!(amo(1, 3, u64::MAX, 2), 1);
    let p = HwachaParams {
        lanes: 4,
        banks: 2,
        bank_width: 64,
        ..HwachaParams::default()
    };
    // Strips of two elements dealt round-robin to four lanes.
    let e: Vec<u64> = (0..5).map(|k| global(k, &p, 1)).collect();
    assert_eq!(e, vec![2, 3, 10, 11, 18]);
    // The lanes' elements are every global element exactly once.
    for p in configs() {
        let lanes = p.lanes as u64;
        let mut all: Vec<u64> = (0..lanes)
            .flat_map(|lane| (0..40).map(move |k| (lane, k)))
            .map(|(lane, k)| global(k, &p, lane))
            .collect();
        all.sort();
        assert_eq!(all, (0..40 * lanes).collect::<Vec<_>>());
    }
}

// ------------------------------------------------------------------ stimulus

const REGION: u64 = 0x4000_0000;
const REGION_BYTES: u64 = 1 << 16;

fn random_cmd(rng: &mut Rng, p: &HwachaParams, fault_percent: u64) -> Cmd {
    let op = *rng.pick(&[LOAD, LOAD, STORE, STORE, AMO]);
    let width = if op == AMO {
        2 + rng.below(2)
    } else {
        rng.below(4)
    };
    let bytes = 1u64 << width;
    let mode = if op == AMO { INDEXED } else { rng.below(3) };
    let strip = p.strip() as u64;
    let vlen = if rng.chance(3) {
        0
    } else if rng.chance(10) {
        1
    } else if rng.chance(4) {
        // Longer than the retired-element window.
        1 + rng.below(200)
    } else {
        1 + rng.below(4 * strip + 3)
    };
    let fault = width > 0 && rng.chance(fault_percent);
    let mid = REGION + REGION_BYTES / 2;
    let mut base = (mid + rng.below(REGION_BYTES / 4)) & !(bytes - 1);
    let mut stride = 0;
    match mode {
        // The base is aligned to the element only: beats are rarely aligned.
        UNIT if fault => base += 1,
        STRIDED => {
            let max = 64 / bytes;
            let n = rng.below(2 * max + 1) as i64 - max as i64;
            stride = (n * bytes as i64) as u64;
            if op == STORE && stride == 0 {
                stride = bytes;
            }
            if fault {
                stride = stride.wrapping_add(1);
            }
        }
        _ => {}
    }
    // Dense, sparse (whole groups off, skipped in one cycle) or all on.
    let density = *rng.pick(&[100, 100, 70, 70, 10]);
    let n = vlen as usize;
    let pred: Vec<bool> = (0..n).map(|_| rng.chance(density)).collect();
    let offset: Vec<u64> = (0..n)
        .map(|_| {
            // A few repeats of one address (AMOs on one counter), else scattered.
            let o = if rng.chance(20) {
                0
            } else {
                (rng.below(REGION_BYTES / 4) as i64 - (REGION_BYTES / 8) as i64) as u64
            };
            let o = o & !(bytes - 1);
            if fault && rng.chance(20) {
                o + 1
            } else {
                o
            }
        })
        .collect();
    let data: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    Cmd {
        op,
        amo_fn: rng.below(9),
        mode,
        width,
        unsigned: op == LOAD && rng.chance(50),
        base,
        stride,
        vlen,
        pred,
        offset,
        data,
    }
}

// ------------------------------------------------------------------ bench

/// A producer of one decoupled input: its entries, offered with random gaps.
struct Source {
    port: &'static str,
    /// (field, value) pairs of each entry.
    entries: VecDeque<Vec<(&'static str, Bits)>>,
    offering: bool,
}

impl Source {
    fn new(port: &'static str) -> Source {
        Source {
            port,
            entries: VecDeque::new(),
            offering: false,
        }
    }

    fn drive(&mut self, dut: &mut Model, rng: &mut Rng, gap_percent: u64) {
        // Once offered, an entry stays valid until taken (the ready/valid rule).
        self.offering = !self.entries.is_empty() && (self.offering || !rng.chance(gap_percent));
        dut.poke_u64(&format!("{}_valid", self.port), self.offering as u64)
            .unwrap();
        if let Some(e) = self.entries.front().filter(|_| self.offering) {
            for (f, v) in e {
                dut.poke(&format!("{}_bits_{f}", self.port), v).unwrap();
            }
        }
    }

    fn taken(&mut self, dut: &mut Model) {
        if self.offering && dut.peek_u64(&format!("{}_ready", self.port)).unwrap() == 1 {
            self.entries.pop_front();
            self.offering = false;
        }
    }
}

fn wide(words: &[u64]) -> Bits {
    Bits::from_words(64 * words.len() as u32, words)
}

/// Queues `c`'s command and its per-group and per-element entries.
fn enqueue(c: &Cmd, p: &HwachaParams, srcs: &mut [Source; 4]) {
    let s = p.slices() as usize;
    let u = |v: u64, w: u32| Bits::from_u64(w, v);
    srcs[0].entries.push_back(vec![
        ("op", u(c.op, 2)),
        ("amo_fn", u(c.amo_fn, 4)),
        ("mode", u(c.mode, 2)),
        ("width", u(c.width, 2)),
        ("unsigned", u(c.unsigned as u64, 1)),
        ("base", u(c.base, 64)),
        ("stride", u(c.stride, 64)),
        ("vlen", u(c.vlen, 32)),
    ]);
    let n = c.vlen as usize;
    for g in 0..n.div_ceil(s) {
        let slots = g * s..((g + 1) * s).min(n);
        let pred = slots
            .clone()
            .fold(0, |a, k| a | (c.pred[k] as u64) << (k - g * s));
        srcs[1].entries.push_back(vec![("pred", u(pred, s as u32))]);
        if c.op != LOAD {
            let mut words = vec![0; s];
            for k in slots {
                words[k - g * s] = c.data[k];
            }
            srcs[3].entries.push_back(vec![("data", wide(&words))]);
        }
    }
    if c.op == AMO || c.mode == INDEXED {
        for k in 0..n {
            srcs[2]
                .entries
                .push_back(vec![("offset", u(c.offset[k], 64))]);
        }
    }
}

/// Stress of one run.
#[derive(Clone, Copy, Debug)]
struct Stress {
    latency: u32,
    jitter: u32,
    stall_percent: u32,
    /// Percent of cycles an input withholds its next entry / the lane refuses a write.
    gap_percent: u64,
    vlu_stall_percent: u64,
}

/// Outcome counters of one run.
#[derive(Default, Debug)]
struct Stats {
    cycles: u64,
    requests: u64,
    elements: usize,
    xcpts: usize,
}

/// Runs `cmds` on lane `lane`, checks memory and writebacks against the reference.
fn run(
    dut: &mut Model,
    p: &HwachaParams,
    lane: u64,
    cmds: &[Cmd],
    stress: Stress,
    seed: u64,
) -> Stats {
    let mut rng = Rng::new(seed);
    let config = MemConfig {
        data_bytes: 16,
        latency: stress.latency,
        jitter: stress.jitter,
        out_of_order: true,
        stall_percent: stress.stall_percent,
        max_outstanding: 16,
        seed,
        ..MemConfig::default()
    };
    let mut mem = MemoryModel::new(config, vec![MemPort::decoupled_with_amo("mem", true)]).unwrap();
    let image: Vec<u8> = (0..REGION_BYTES).map(|_| rng.next_u64() as u8).collect();
    mem.memory_mut().write(REGION, &image);
    let mut golden = mem.memory().clone();
    let expect = reference(cmds, p, lane, &mut golden);

    // Runs alternate the design's two random initial states by their seed.
    let init = Init::Random {
        seed: INIT_SEEDS[(seed % 2) as usize],
    };
    dut.reinit(init).unwrap();
    dut.poke_u64("reset", 1).unwrap();
    dut.step();
    dut.poke_u64("reset", 0).unwrap();
    dut.poke_u64("lane_id", lane).unwrap();
    let mut srcs = [
        Source::new("cmd"),
        Source::new("vpq"),
        Source::new("vvaq"),
        Source::new("vsdq"),
    ];
    for c in cmds {
        enqueue(c, p, &mut srcs);
    }
    let load_vlens: Vec<u64> = cmds
        .iter()
        .filter(|c| c.op != STORE)
        .map(|c| c.vlen)
        .collect();
    let load_cmds = load_vlens.len();
    let mut counted = 0;
    let store_cmds = cmds.len() - load_cmds;
    let s = p.slices() as u64;
    let mut seen: BTreeMap<(usize, u64), u64> = BTreeMap::new();
    let mut xcpts = Vec::new();
    let (mut loads_done, mut stores_done) = (0, 0);
    let mut stats = Stats::default();
    let limit = 2000 + 400 * cmds.iter().map(|c| c.vlen).sum::<u64>();
    loop {
        for src in srcs.iter_mut() {
            src.drive(dut, &mut rng, stress.gap_percent);
        }
        let ready: Vec<bool> = (0..2)
            .map(|_| !rng.chance(stress.vlu_stall_percent))
            .collect();
        for (port, r) in ["vlu_ready", "vlu_next_ready"].iter().zip(&ready) {
            dut.poke_u64(port, *r as u64).unwrap();
        }
        mem.tick(dut).unwrap_or_else(|e| panic!("{e}"));
        for src in srcs.iter_mut() {
            src.taken(dut);
        }
        if dut.peek_u64("mem_req_valid").unwrap() & dut.peek_u64("mem_req_ready").unwrap() == 1 {
            stats.requests += 1;
        }
        for (port, r) in ["vlu", "vlu_next"].iter().zip(&ready) {
            if *r {
                take_vlu_write(dut, port, s, loads_done, &mut seen);
            }
        }
        if dut.peek_u64("xcpt_valid").unwrap() == 1 {
            xcpts.push((
                dut.peek_u64("xcpt_bits_addr").unwrap(),
                dut.peek_u64("xcpt_bits_store").unwrap() == 1,
            ));
        }
        // Elements below `retired` are finished: written back unless inactive.
        let retired = dut.peek_u64("retired").unwrap();
        assert!(
            retired >= counted && retired <= counted + 2 * s,
            "retired steps by two groups at most"
        );
        for k in counted..retired {
            let key = (loads_done, k);
            assert!(
                !expect.vlu.contains_key(&key) || seen.contains_key(&key),
                "element {key:?} retired before it was written"
            );
        }
        counted = retired;
        if dut.peek_u64("done_load").unwrap() == 1 {
            assert_eq!(
                retired, load_vlens[loads_done],
                "retired at the end of a load"
            );
            loads_done += 1;
            counted = 0;
        }
        stores_done += dut.peek_u64("done_store").unwrap() as usize;
        dut.step();
        stats.cycles += 1;
        if srcs.iter().all(|s| s.entries.is_empty()) && dut.peek_u64("busy").unwrap() == 0 {
            break;
        }
        assert!(stats.cycles < limit, "no progress after {limit} cycles");
    }
    drain(dut, &mut mem);
    assert_eq!(
        (loads_done, stores_done),
        (load_cmds, store_cmds),
        "done pulses"
    );
    assert_eq!(xcpts, expect.xcpt, "exceptions");
    assert_eq!(stats.requests, expect.requests, "requests");
    compare_writes(&seen, &expect.vlu);
    compare_memory(&mem, &golden);
    stats.elements = expect.vlu.len();
    stats.xcpts = expect.xcpt.len();
    stats
}

/// Records the VLU's write on `port` (`vlu` or `vlu_next`) of this cycle (to load
/// command `load`) in `seen`.
fn take_vlu_write(
    dut: &mut Model,
    port: &str,
    s: u64,
    load: usize,
    seen: &mut BTreeMap<(usize, u64), u64>,
) {
    if dut.peek_u64(&format!("{port}_valid")).unwrap() == 0 {
        return;
    }
    let g = dut.peek_u64(&format!("{port}_bits_group")).unwrap();
    let mask = dut.peek_u64(&format!("{port}_bits_mask")).unwrap();
    let data = dut.peek(&format!("{port}_bits_data")).unwrap();
    assert!(mask != 0, "a write of no element");
    for j in 0..s {
        if mask >> j & 1 == 1 {
            let key = (load, g * s + j);
            let v = data.words()[j as usize];
            assert!(
                seen.insert(key, v).is_none(),
                "element {key:?} written twice"
            );
        }
    }
}

/// After `busy` drops, nothing is left to signal or send.
fn drain(dut: &mut Model, mem: &mut MemoryModel) {
    for _ in 0..4 {
        mem.tick(dut).unwrap_or_else(|e| panic!("{e}"));
        for port in [
            "done_load",
            "done_store",
            "xcpt_valid",
            "vlu_valid",
            "vlu_next_valid",
            "mem_req_valid",
        ] {
            assert_eq!(dut.peek_u64(port).unwrap(), 0, "{port} after busy dropped");
        }
        dut.step();
    }
}

/// Every expected element written with its value, and nothing else.
fn compare_writes(seen: &BTreeMap<(usize, u64), u64>, want: &BTreeMap<(usize, u64), u64>) {
    for (key, w) in want {
        let got = seen
            .get(key)
            .unwrap_or_else(|| panic!("element {key:?} not written"));
        assert_eq!(*got, *w, "element {key:?}: {got:#x} != {w:#x}");
    }
    assert_eq!(seen.len(), want.len(), "writes of inactive elements");
}

/// The memory region after the run equals the golden model's.
fn compare_memory(mem: &MemoryModel, golden: &SparseMemory) {
    let mut got = vec![0u8; REGION_BYTES as usize];
    let mut want = got.clone();
    mem.memory().read(REGION, &mut got);
    golden.read(REGION, &mut want);
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "memory differs first at {:#x}: {:#x} != {:#x}",
            REGION + i as u64,
            got[i],
            want[i]
        );
    }
}

fn model_of(p: &HwachaParams) -> Model {
    let top = vmu(p).unwrap_or_else(|e| panic!("{e}"));
    // One build at a time (each uses both cores), so that tests wanting the same model
    // find it cached rather than build it again side by side.
    static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap()
}

const STRESSES: [Stress; 4] = [
    Stress {
        latency: 1,
        jitter: 0,
        stall_percent: 0,
        gap_percent: 0,
        vlu_stall_percent: 0,
    },
    Stress {
        latency: 1,
        jitter: 3,
        stall_percent: 20,
        gap_percent: 20,
        vlu_stall_percent: 10,
    },
    Stress {
        latency: 20,
        jitter: 10,
        stall_percent: 30,
        gap_percent: 30,
        vlu_stall_percent: 40,
    },
    Stress {
        latency: 100,
        jitter: 50,
        stall_percent: 10,
        gap_percent: 10,
        vlu_stall_percent: 20,
    },
];

#[test]
fn random_commands_match_the_reference() {
    let start = Instant::now();
    let runs_per = if long() { 60 } else { 8 };
    let mut total = Stats::default();
    let (mut commands, mut amos) = (0, 0);
    for (ci, p) in configs().iter().enumerate() {
        let mut dut = model_of(p);
        for run_i in 0..runs_per * STRESSES.len() {
            let stress = STRESSES[run_i % STRESSES.len()];
            let seed = verification::rng::mix(ci as u64, run_i as u64);
            let mut rng = Rng::new(seed);
            let lane = rng.below(p.lanes as u64);
            let n = 6 + rng.below(10) as usize;
            let mut cmds: Vec<Cmd> = (0..n).map(|_| random_cmd(&mut rng, p, 8)).collect();
            // Stores then loads of the same region.
            for i in 0..n {
                if cmds[i].op == STORE && rng.chance(60) {
                    let mut l = cmds[i].clone();
                    l.op = LOAD;
                    l.pred = (0..l.vlen).map(|_| rng.chance(80)).collect();
                    cmds.push(l);
                }
            }
            let st = run(&mut dut, p, lane, &cmds, stress, seed);
            commands += cmds.len();
            total.cycles += st.cycles;
            total.requests += st.requests;
            total.elements += st.elements;
            total.xcpts += st.xcpts;
            amos += cmds.iter().filter(|c| c.op == AMO).count();
        }
    }
    println!(
        "{} configurations, {commands} commands ({amos} AMO, {} faulting), {} cycles, \
         {} requests, {} elements written back in {:.1} s",
        configs().len(),
        total.xcpts,
        total.cycles,
        total.requests,
        total.elements,
        start.elapsed().as_secs_f64()
    );
    assert!(
        amos > 0 && total.xcpts > 0,
        "the commands cover AMOs and faults"
    );
}

#[test]
fn unit_stride_doublewords_coalesce_into_beats() {
    let p = &configs()[0];
    let mut dut = model_of(p);
    for k in [1u64, 3, 5] {
        let n = 8 * k as usize;
        let load = Cmd {
            op: LOAD,
            amo_fn: 0,
            mode: UNIT,
            width: 3,
            unsigned: false,
            base: REGION + 0x100,
            stride: 0,
            vlen: 8 * k,
            pred: vec![true; n],
            offset: vec![0; n],
            data: vec![0; n],
        };
        let store = Cmd {
            op: STORE,
            data: (0..n as u64).collect(),
            ..load.clone()
        };
        let st = run(&mut dut, p, 0, std::slice::from_ref(&load), STRESSES[2], k);
        assert_eq!(st.requests, 4 * k, "{} loads", 8 * k);
        let st = run(&mut dut, p, 0, std::slice::from_ref(&store), STRESSES[2], k);
        assert_eq!(st.requests, 4 * k, "{} stores", 8 * k);
        // With an ideal memory and lane, a group (here a beat) of each goes every cycle.
        let st = run(
            &mut dut,
            p,
            0,
            &[store.clone(), load.clone()],
            STRESSES[0],
            k,
        );
        println!("{n} doublewords stored and loaded in {} cycles", st.cycles);
        assert!(st.cycles <= n as u64 + 10, "{} cycles", st.cycles);
        // Off a 16-byte boundary every group straddles two beats; still a beat a cycle
        // (the reference counts the requests: 4k + 1 beats each).
        let shifted = |c: Cmd| Cmd {
            base: c.base + 8,
            ..c
        };
        let st = run(
            &mut dut,
            p,
            0,
            &[shifted(store.clone()), shifted(load.clone())],
            STRESSES[0],
            k,
        );
        println!(
            "{n} doublewords off a beat boundary in {} cycles",
            st.cycles
        );
        assert!(st.cycles <= n as u64 + 12, "{} cycles", st.cycles);
        // Words at a stride of 8 bytes (a field of 8-byte records): two share a beat,
        // so a group of S = 2 goes every cycle, as unit stride does.
        let narrow = |c: Cmd| Cmd {
            mode: STRIDED,
            width: 2,
            stride: 8,
            ..c
        };
        let st = run(
            &mut dut,
            p,
            0,
            &[narrow(store), narrow(load)],
            STRESSES[0],
            k,
        );
        println!(
            "{n} words at stride 8 stored and loaded in {} cycles",
            st.cycles
        );
        assert!(st.cycles <= n as u64 + 12, "{} cycles", st.cycles);
    }
}

/// Groups whose predicates are all off go by one per cycle (density-time skipping).
#[test]
fn groups_of_inactive_elements_are_skipped() {
    let p = &configs()[0];
    let mut dut = model_of(p);
    let n = 64;
    let sparse = Cmd {
        op: LOAD,
        amo_fn: 0,
        mode: STRIDED,
        width: 3,
        unsigned: false,
        base: REGION + 0x1000,
        stride: 24,
        vlen: n as u64,
        pred: (0..n).map(|k| k == n - 1).collect(),
        offset: vec![0; n],
        data: vec![0; n],
    };
    let st = run(
        &mut dut,
        p,
        0,
        std::slice::from_ref(&sparse),
        STRESSES[0],
        1,
    );
    let groups = (n as u32 / p.slices()) as u64;
    println!("{n} elements, one active, in {} cycles", st.cycles);
    assert!(st.cycles < groups + 12, "{} cycles", st.cycles);
    // A store of no active element still completes, and says so before `busy` drops.
    let idle_store = Cmd {
        op: STORE,
        pred: vec![false; n],
        ..sparse
    };
    let st = run(&mut dut, p, 0, &[idle_store], STRESSES[0], 2);
    assert_eq!(st.requests, 0);
}

/// Lanes differ only in their `lane_id` input: a design of several lanes holds one VMU.
#[test]
fn lanes_share_one_module() {
    let p = &configs()[2];
    let mut m = hdl::ModuleBuilder::new("Lanes");
    let vmu = vmu(p).unwrap();
    let mut lanes = Vec::new();
    for lane in 0..p.lanes {
        lanes.push(m.instance(&format!("lane{lane}"), &vmu));
    }
    for (i, inst) in lanes.iter().enumerate() {
        let child = vmu.clone();
        for port in &child.body.ports {
            let width = child.signal(port.sig).width;
            let name = format!("l{i}_{}", port.name);
            let pin = inst.port(&port.name);
            if port.dir == hdl::Dir::In {
                let top = m.input(&name, width);
                m.connect(&pin, &top);
            } else {
                let top = m.output(&name, width);
                m.connect(&top, &pin);
            }
        }
    }
    let design = Design::new(&m.finish().unwrap());
    let vmus = design.modules().filter(|(_, m)| m.name == "Vmu").count();
    assert_eq!(vmus, 1);
}

#[test]
fn shapes_match_the_memory_model() {
    let p = HwachaParams::default();
    let tb = tag_bits(&p);
    use verification::tb::memory::{amo_request_shape, response_shape};
    assert_eq!(vmu::mem_request(tb), amo_request_shape(32, 16, tb));
    assert_eq!(vmu::mem_response(tb), response_shape(16, tb));
}

#[test]
fn configurations_are_lint_clean() {
    for p in configs() {
        let design = Design::new(&vmu(&p).unwrap());
        let verilog = hdl::emit::emit(&design, &Default::default()).single_file();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("vmu.v"), verilog).unwrap();
        let target = LintTarget {
            dir: dir.path().to_path_buf(),
            files: vec!["vmu.v".into()],
            top: design.top_name().to_string(),
        };
        let verdicts = run_all(&target).unwrap_or_else(|e| panic!("{e}"));
        let problems: Vec<String> = verdicts
            .iter()
            .filter(|v| !v.clean)
            .map(|v| format!("{p:?}: {}:\n{}", v.tool, v.output))
            .collect();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
