//! The FG-SIMT SMU (`generators::fgsimt::smu`, seed 000 section 1.5) under Verilator, in
//! a test top with the real L1 D$ (`l1::dcache`, small so lines evict) served by the
//! memory model, driven by random streams of memory warp instructions as the SIU issues
//! them (a slot a cycle while `space`): loads and stores of every size, AMOs, LR/SC, random
//! masks, and address patterns unit-stride, permuted within a line, same word, strided
//! across lines, scattered, and mixed within one instruction, with random `pop`
//! back-pressure. The reference is a per-thread memory: each thread writes only bytes it
//! owns (AMO adds to shared counters aside, whose final sums are checked), so applying
//! the instructions one after the other, thread by thread, gives every load's data; an
//! SC's outcome is the design's (0 or 1) and is applied as it says. After a D$ flush the
//! memory equals the reference. Every wide request is checked against the coalescing
//! rule's prediction for each slot (its line, in program order), and the counters against
//! the totals. The SMU is lint clean at lanes 1, 2, 8 and warp sizes 1 to 32, and with
//! the AVC's private path (`avc`) at three shapes (its function: `fgsimt_avc_engine.rs`).

mod l1_rig;
mod lint_rig;
use generators::fgsimt::bundles::MEM_TAG_BITS;
use generators::fgsimt::dws::params::SplitPolicy;
use generators::fgsimt::l1::{self, op};
use generators::fgsimt::params::{Affine, FgsimtParams, Reconvergence};
use generators::fgsimt::smu::smu;
use hdl::{Design, Dir, Module, ModuleBuilder};
use l1_rig::Stress;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::rc::Rc;
use verification::rng::Rng;
use verification::tb::memory::{amo, MemoryModel, SparseMemory};
use verification::verilator::{Model, Options};

const REGION: u64 = 0x1000_0000;
/// Never written: any thread reads any word.
const RO: u64 = REGION;
/// Thread t's words i * W + t (unit stride across a warp).
const OWN: u64 = REGION + 0x1000;
/// Thread t's words i * W + perm(t), perm reversing each group of 8 (one line).
const PERM: u64 = REGION + 0x2000;
/// Thread t's 64-byte block at t * 64 (strided across lines).
const BLOCK: u64 = REGION + 0x3000;
/// Thread t's bytes i * W + t (four threads a word).
const BYTES: u64 = REGION + 0x4000;
/// Thread t's halves i * W + t.
const HALVES: u64 = REGION + 0x5000;
/// AMO add counters, shared by every thread.
const COUNTERS: u64 = REGION + 0x6000;
const SPAN: u64 = 0x7000;
const ROWS: u64 = 8;

/// The SMU with a D$ of `p` (one narrow port a lane), every other port brought out; the
/// D$'s `idle` as `dc_idle`, and the wide requests accepted as `w_fire`, `w_addr`.
fn top(p: &FgsimtParams) -> Rc<Module> {
    let s = smu(p).unwrap_or_else(|e| panic!("{e}"));
    let dp = generators::fgsimt::params::DcacheParams {
        narrow_ports: p.lanes,
        ..p.dcache()
    };
    let d = l1::dcache(&dp, MEM_TAG_BITS).unwrap_or_else(|e| panic!("{e}"));
    let mut m = ModuleBuilder::new("SmuTop");
    let (si, di) = (m.instance("smu", &s), m.instance("dcache", &d));
    let ports = |md: &Rc<Module>| -> Vec<(String, Dir, u32)> {
        md.body
            .ports
            .iter()
            .map(|q| (q.name.clone(), q.dir, md.signal(q.sig).width))
            .collect()
    };
    let (sp, dpn) = (ports(&s), ports(&d));
    for (name, dir, w) in &sp {
        let peer = dpn.iter().find(|(n, pd, _)| n == name && pd != dir);
        match (peer, dir) {
            (Some(_), Dir::Out) => m.connect(&di.port(name), &si.port(name)),
            (Some(_), Dir::In) => m.connect(&si.port(name), &di.port(name)),
            (None, Dir::In) => {
                let t = m.input(name, *w);
                m.connect(&si.port(name), &t);
            }
            (None, Dir::Out) => {
                let t = m.output(name, *w);
                m.connect(&t, &si.port(name));
            }
        }
    }
    for (name, dir, w) in &dpn {
        if sp.iter().any(|(n, pd, _)| n == name && pd != dir) {
            continue;
        }
        let outer = if sp.iter().any(|(n, _, _)| n == name) {
            format!("dc_{name}")
        } else {
            name.clone()
        };
        match dir {
            Dir::In => {
                let t = m.input(&outer, *w);
                m.connect(&di.port(name), &t);
            }
            Dir::Out => {
                let t = m.output(&outer, *w);
                m.connect(&t, &di.port(name));
            }
        }
    }
    let fire = m.output("w_fire", 1);
    m.connect(&fire, &(&si.port("w_req_valid") & &di.port("w_req_ready")));
    let addr = m.output("w_addr", 32);
    m.connect(&addr, &si.port("w_req_bits_addr"));
    m.finish().unwrap()
}

/// One thread's access of a warp instruction.
#[derive(Clone, Copy, Debug)]
struct Access {
    addr: u64,
    /// Store or AMO operand, already at its bytes within the word.
    data: u32,
    mask: u64,
}

/// A memory warp instruction: per thread an access, or None when inactive; `affine` for
/// an affine load (+m) with thread 0's address (thread i's is `addr + (i << size)`).
#[derive(Clone, Debug)]
struct Inst {
    op: u64,
    size: u64,
    threads: Vec<Option<Access>>,
    affine: Option<u64>,
}

impl Inst {
    fn returns_data(&self) -> bool {
        self.op != op::STORE
    }

    /// An affine load: the lines from its lowest active thread's element to its
    /// highest's, in ascending order; their number is the model's formula
    /// (`Asrf::affine_load`: `last / 32 - first / 32 + 1`).
    fn affine_lines(&self) -> Option<Vec<u64>> {
        self.affine?;
        let addrs: Vec<u64> = self.threads.iter().flatten().map(|a| a.addr).collect();
        let first = addrs.iter().min().unwrap() / 32;
        let last = (addrs.iter().max().unwrap() + (1 << self.size) - 1) / 32;
        Some((first..=last).map(|l| l * 32).collect())
    }
}

/// Memory timing of a run; its `gap_percent`: of the cycles the SIU could start an
/// instruction, or the SLU start popping a ready load, those where it does not.
const STRESSES: [Stress; 2] = [
    Stress {
        latency: 1,
        jitter: 0,
        stall_percent: 0,
        gap_percent: 0,
    },
    Stress {
        latency: 20,
        jitter: 10,
        stall_percent: 20,
        gap_percent: 40,
    },
];

fn params(lanes: u32, warp_size: u32) -> FgsimtParams {
    FgsimtParams {
        lanes,
        warp_size,
        dcache_bytes: 2048,
        ..FgsimtParams::default()
    }
}

/// `p` with the affine loads of +m.
fn abm(p: FgsimtParams) -> FgsimtParams {
    FgsimtParams {
        affine: Affine::Abm,
        ..p
    }
}

/// `p` with hit masks (the DWS sequencer splitting on memory divergence) and a window
/// of `window` cycles.
fn hit(p: FgsimtParams, window: u32) -> FgsimtParams {
    FgsimtParams {
        reconv: Reconvergence::Stack,
        dws: SplitPolicy::Aggress,
        hit_window: window,
        ..p
    }
}

/// `params` with the shallowest queues: one warp instruction in the SMRQs, one load in
/// the SLDQs.
fn shallow(lanes: u32, warp_size: u32) -> FgsimtParams {
    FgsimtParams {
        smrq_insts: 1,
        sldq_loads: 1,
        ..params(lanes, warp_size)
    }
}

// ------------------------------------------------------------------ stimulus

/// Where a thread's access goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pattern {
    Unit,
    Permuted,
    SameWord,
    Strided,
    Scattered,
    Bytes,
    Halves,
}

const PATTERNS: [Pattern; 7] = [
    Pattern::Unit,
    Pattern::Permuted,
    Pattern::SameWord,
    Pattern::Strided,
    Pattern::Scattered,
    Pattern::Bytes,
    Pattern::Halves,
];

/// The instruction-wide choices a pattern's address takes.
struct Draw {
    row: u64,
    word: u64,
}

/// Thread `t`'s byte address under `pat` (of a warp of `w`), for an access of `size`;
/// None when the pattern does not fit the access (the byte and half regions take only
/// their own width; loads alone read the shared read-only words).
fn address(
    pat: Pattern,
    t: u64,
    w: u64,
    size: u64,
    store: bool,
    d: &Draw,
    rng: &mut Rng,
) -> Option<u64> {
    let sub = |rng: &mut Rng| rng.below(4 >> size) << size;
    let word = |base: u64, i: u64| base + 4 * i;
    Some(match pat {
        Pattern::Unit => word(OWN, d.row * w + t) + sub(rng),
        Pattern::Permuted => word(PERM, d.row * w + (t ^ 7)) + sub(rng),
        Pattern::SameWord if !store => word(RO, d.word) + sub(rng),
        Pattern::Strided => BLOCK + 64 * t + 4 * (d.word % 16) + sub(rng),
        Pattern::Scattered if store => BLOCK + 64 * t + 4 * rng.below(16) + sub(rng),
        Pattern::Scattered => word(RO, rng.below(256)) + sub(rng),
        Pattern::Bytes if size == 0 => BYTES + d.row * w + t,
        Pattern::Halves if size == 1 => HALVES + 2 * (d.row * w + t),
        _ => return None,
    })
}

/// A random op: loads and stores mostly, then AMOs, LR and SC.
fn random_op(rng: &mut Rng) -> u64 {
    match rng.below(100) {
        0..=39 => op::LOAD,
        40..=74 => op::STORE,
        75..=89 => op::SWAP + rng.below(9),
        90..=94 => op::LR,
        _ => op::SC,
    }
}

/// A random warp instruction of `w` threads.
fn random_inst(rng: &mut Rng, w: u64) -> Inst {
    let opc = random_op(rng);
    let plain = opc <= op::STORE;
    let size = if plain { rng.below(3) } else { 2 };
    // LR's words are the thread's own, so an SC may follow it (`random_stream`).
    let store = opc != op::LOAD;
    let mask = match rng.below(4) {
        0 => u64::MAX,
        1 => rng.next_u64() | rng.next_u64(),
        _ => rng.next_u64(),
    };
    let mixed = rng.chance(25);
    let pat = *rng.pick(&PATTERNS);
    let d = Draw {
        row: rng.below(ROWS),
        word: rng.below(256),
    };
    let counter = COUNTERS + 4 * rng.below(4);
    let threads = (0..w)
        .map(|t| {
            if mask >> t & 1 == 0 {
                return None;
            }
            let addr = if opc == op::ADD {
                counter
            } else {
                let mut a = None;
                while a.is_none() {
                    let p = if mixed { *rng.pick(&PATTERNS) } else { pat };
                    a = address(p, t, w, size, store, &d, rng)
                        .or_else(|| address(Pattern::Unit, t, w, size, store, &d, rng));
                }
                a.unwrap()
            };
            let off = addr & 3;
            let bytes = if size == 2 {
                0xf
            } else {
                (1 << (1 << size)) - 1
            };
            Some(Access {
                addr,
                data: (rng.next_u64() as u32) << (8 * off),
                mask: bytes << off,
            })
        })
        .collect();
    Inst {
        op: opc,
        size,
        threads,
        affine: None,
    }
}

/// An affine load of `w` threads at `addr` (aligned to `size`) with active `mask`.
fn affine_inst(addr: u64, size: u64, mask: u64, w: u64) -> Inst {
    let threads = (0..w)
        .map(|t| {
            (mask >> t & 1 == 1).then(|| {
                let a = addr + (t << size);
                Access {
                    addr: a,
                    data: 0,
                    mask: ((1 << (1 << size)) - 1) << (a & 3),
                }
            })
        })
        .collect();
    Inst {
        op: op::LOAD,
        size,
        threads,
        affine: Some(addr),
    }
}

/// A random affine load of `w` threads: any size, over the lines the other instructions
/// write (or the counters, or the read-only words), at a line start or not, with a full
/// mask, one thread, or random holes.
fn random_affine(rng: &mut Rng, w: u64) -> Inst {
    let size = rng.below(3);
    let region = *rng.pick(&[RO, OWN, PERM, BLOCK, BYTES, HALVES, COUNTERS]);
    let start = if rng.chance(50) {
        0
    } else {
        rng.below(32 >> size) << size
    };
    let addr = region + 32 * rng.below(8) + start;
    let mask = match rng.below(4) {
        0 => u64::MAX,
        1 => 1 << rng.below(w),
        _ => rng.next_u64() | 1 << rng.below(w),
    };
    affine_inst(addr, size, mask & (u64::MAX >> (64 - w)), w)
}

/// The coalescing rule: whether slot `c` of `inst` goes wide, and its line (never one in
/// the uncached region `[base, base + size)`).
fn wide_line(inst: &Inst, lanes: usize, c: usize, (base, size): (u64, u64)) -> Option<u64> {
    let uncached = |a: &Access| a.addr >= base && a.addr < base + size;
    let slot = &inst.threads[c * lanes..(c + 1) * lanes];
    if inst.op > op::STORE || slot.iter().flatten().any(uncached) {
        return None;
    }
    let lines: BTreeSet<u64> = slot.iter().flatten().map(|a| a.addr & !31).collect();
    (lines.len() == 1).then(|| *lines.first().unwrap())
}

// ------------------------------------------------------------------ bench

/// What a run measured.
#[derive(Debug, Default)]
struct Outcome {
    cycles: u64,
    wide: u64,
    narrow: u64,
    sc_ok: u64,
    /// With hit masks: passes made, and first passes that were not the load's last.
    passes: (u64, u64),
}

struct Tb {
    dut: Model,
    mem: MemoryModel,
    /// The per-thread reference, applied up to `applied`.
    refm: SparseMemory,
    applied: usize,
    insts: Vec<Inst>,
    lanes: usize,
    t: usize,
    uncached: (u64, u64),
    /// Wide lines the rule predicts, in program order.
    wides: VecDeque<u64>,
    /// Loads in program order (instruction indices) and the slot to pop next.
    loads: VecDeque<usize>,
    pop_slot: Option<usize>,
    /// Instruction being sent and its next slot; the next instruction to start.
    next: usize,
    sending: Option<(usize, usize)>,
    rng: Rng,
    gap: u64,
    /// The SMU has the `aload` port (+m).
    abm: bool,
    /// With hit masks: the answers and passes.
    hits: Option<Hits>,
    out: Outcome,
}

/// With hit masks (`hit_mask.rs`), what the bench knows of the answers and passes.
struct Hits {
    window: u64,
    /// Loads answered (indices into the loads in program order), and each answered
    /// load's hit mask, until its last pass.
    answered: usize,
    masks: VecDeque<u64>,
    /// The cycle each load (by instruction index) was received whole: its last slot
    /// was sent, or with +m its first slot or the `aload` (+m takes an entry whole
    /// then; the window counts from it, and a load may be answered before its last
    /// slot, its later slots' threads misses).
    sent_at: HashMap<usize, u64>,
    /// The head load's threads written by its passes so far, and its passes.
    written: u64,
    passes: u32,
    /// The pass being popped: its threads and whether it is the last.
    pass: (u64, bool),
    /// Passes made, and first passes that were not the load's last.
    total: u64,
    early: u64,
}

fn word_of(m: &SparseMemory, addr: u64) -> u32 {
    let mut b = [0; 4];
    m.read(addr & !3, &mut b);
    u32::from_le_bytes(b)
}

fn write_masked(m: &mut SparseMemory, addr: u64, data: u32, mask: u64) {
    for (i, b) in data.to_le_bytes().iter().enumerate() {
        if mask >> i & 1 == 1 {
            m.write((addr & !3) + i as u64, &[*b]);
        }
    }
}

impl Tb {
    fn new(p: &FgsimtParams, s: Stress, insts: Vec<Inst>, seed: u64) -> Tb {
        static BUILDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let mut dut = {
            let _one = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
            Model::of_design(&Design::new(&top(p)), &Options::quick_build()).unwrap()
        };
        let mut mem = l1_rig::memory(&p.dcache(), s, seed);
        let mut rng = Rng::new(seed);
        let image: Vec<u8> = (0..SPAN).map(|_| rng.next_u64() as u8).collect();
        mem.memory_mut().write(REGION, &image);
        dut.restart(seed).unwrap();
        let (lanes, t) = (p.lanes as usize, p.threads_per_lane() as usize);
        let uncached = (p.uncached_base, p.uncached_size);
        let wides = insts
            .iter()
            .flat_map(|i| match i.affine_lines() {
                Some(lines) => lines,
                None => (0..t)
                    .filter_map(|c| wide_line(i, lanes, c, uncached))
                    .collect(),
            })
            .collect();
        let loads = (0..insts.len())
            .filter(|&i| insts[i].returns_data())
            .collect();
        Tb {
            uncached,
            refm: mem.memory().clone(),
            dut,
            mem,
            applied: 0,
            insts,
            lanes,
            t,
            wides,
            loads,
            pop_slot: None,
            next: 0,
            sending: None,
            rng,
            gap: s.gap_percent,
            abm: p.affine == Affine::Abm,
            hits: p.hit_masks().then(|| Hits {
                window: p.hit_window as u64,
                answered: 0,
                masks: VecDeque::new(),
                sent_at: HashMap::new(),
                written: 0,
                passes: 0,
                pass: (0, false),
                total: 0,
                early: 0,
            }),
            out: Outcome::default(),
        }
    }

    /// Drives this cycle's slot, as the SIU does: a whole instruction, a slot a cycle,
    /// started only while `space`; an affine load as one `aload` while `space`, also
    /// during the later slots of the instruction before it, never with a first slot.
    fn send(&mut self) {
        let due = |tb: &mut Tb| {
            tb.next < tb.insts.len()
                && tb.dut.peek_u64("space").unwrap() == 1
                && !tb.rng.chance(tb.gap)
        };
        let affine_next = self.next < self.insts.len() && self.insts[self.next].affine.is_some();
        if self.sending.is_none() && !affine_next && due(self) {
            self.sending = Some((self.next, 0));
            self.next += 1;
        }
        if self.abm {
            let aload = self.sending.is_none_or(|(_, c)| c > 0) && affine_next && due(self);
            self.dut.poke_u64("aload_valid", aload as u64).unwrap();
            if aload {
                if let Some(h) = self.hits.as_mut() {
                    h.sent_at.insert(self.next, self.out.cycles);
                }
                let inst = &self.insts[self.next];
                let mask = (0..inst.threads.len())
                    .fold(0, |m, t| m | (inst.threads[t].is_some() as u64) << t);
                for (f, v) in [
                    ("addr", inst.affine.unwrap()),
                    ("size", inst.size),
                    ("mask", mask),
                ] {
                    self.dut.poke_u64(&format!("aload_bits_{f}"), v).unwrap();
                }
                self.next += 1;
            }
        }
        let Some((i, c)) = self.sending else {
            self.dut.poke_u64("slot_valid", 0).unwrap();
            return;
        };
        let inst = &self.insts[i];
        let d = &mut self.dut;
        d.poke_u64("slot_valid", 1).unwrap();
        d.poke_u64("slot_bits_op", inst.op).unwrap();
        d.poke_u64("slot_bits_size", inst.size).unwrap();
        d.poke_u64("slot_bits_last", (c + 1 == self.t) as u64)
            .unwrap();
        let mut active = 0;
        for l in 0..self.lanes {
            let a = inst.threads[c * self.lanes + l].unwrap_or(Access {
                addr: self.rng.next_u64() & 0xffff_fffc,
                data: self.rng.next_u64() as u32,
                mask: self.rng.below(16),
            });
            active |= (inst.threads[c * self.lanes + l].is_some() as u64) << l;
            for (f, v) in [("addr", a.addr), ("data", a.data as u64), ("mask", a.mask)] {
                d.poke_u64(&format!("slot_bits_lane_{l}_{f}"), v).unwrap();
            }
        }
        d.poke_u64("slot_bits_active", active).unwrap();
        self.sending = (c + 1 < self.t).then_some((i, c + 1));
        let received = match self.abm {
            true => c == 0,
            false => c + 1 == self.t,
        };
        if let Some(h) = self
            .hits
            .as_mut()
            .filter(|_| received && inst.returns_data())
        {
            h.sent_at.insert(i, self.out.cycles);
        }
    }
}

impl Tb {
    /// Applies the stores before instruction `k` (every load before it was applied as
    /// it was popped).
    fn apply_until(&mut self, k: usize) {
        while self.applied < k {
            let inst = self.insts[self.applied].clone();
            assert!(
                !inst.returns_data(),
                "load {} was never popped",
                self.applied
            );
            for a in inst.threads.iter().flatten() {
                write_masked(&mut self.refm, a.addr, a.data, a.mask);
            }
            self.applied += 1;
        }
    }

    /// Checks slot `c` of load instruction `k` against the reference (the lanes' words
    /// as `load.data` shows them), then applies its effects.
    fn check_slot(&mut self, k: usize, c: usize, only: u64) {
        let inst = self.insts[k].clone();
        for l in 0..self.lanes {
            let i = c * self.lanes + l;
            let Some(a) = inst.threads[i].filter(|_| only >> i & 1 == 1) else {
                continue;
            };
            let got = self.dut.peek_u64(&format!("load_data_{l}")).unwrap() as u32;
            let old = word_of(&self.refm, a.addr);
            // The whole word shifted right by the byte offset, sub-words too (`load_data`).
            let want = old >> (8 * (a.addr & 3));
            let what = || format!("instruction {k} {inst:x?}, slot {c}, lane {l}");
            match inst.op {
                op::SC => {
                    assert!(got <= 1, "SC answered {got}: {}", what());
                    if got == 0 {
                        write_masked(&mut self.refm, a.addr, a.data, 0xf);
                        self.out.sc_ok += 1;
                    }
                }
                op::ADD => {}
                _ => assert_eq!(got, want, "{}", what()),
            }
            if inst.op >= op::SWAP {
                let v = amo::apply(inst.op - op::AMO_BASE, 4, old as u64, a.data as u64);
                write_masked(&mut self.refm, a.addr, v.unwrap() as u32, 0xf);
            }
        }
    }

    /// Pops load data as the SLU does: once `ready`, T slots in consecutive cycles.
    fn pop(&mut self) {
        if self.pop_slot.is_none()
            && !self.loads.is_empty()
            && self.dut.peek_u64("load_ready").unwrap() == 1
            && !self.rng.chance(self.gap)
        {
            self.pop_slot = Some(0);
        }
        let Some(c) = self.pop_slot else {
            self.dut.poke_u64("load_pop", 0).unwrap();
            return;
        };
        assert_eq!(
            self.dut.peek_u64("load_ready").unwrap(),
            1,
            "ready while popping"
        );
        let k = self.loads[0];
        if c == 0 {
            self.apply_until(k);
        }
        self.check_slot(k, c, u64::MAX);
        self.dut.poke_u64("load_pop", 1).unwrap();
        if c + 1 == self.t {
            self.pop_slot = None;
            self.loads.pop_front();
            self.applied = k + 1;
        } else {
            self.pop_slot = Some(c + 1);
        }
    }

    fn cycle(&mut self) {
        self.send();
        match self.hits.is_some() {
            false => self.pop(),
            true => {
                self.answer();
                self.pass();
            }
        }
        self.mem
            .tick(&mut self.dut)
            .unwrap_or_else(|e| panic!("{e}"));
        if self.dut.peek_u64("w_fire").unwrap() == 1 {
            let addr = self.dut.peek_u64("w_addr").unwrap();
            let want = self.wides.pop_front();
            assert_eq!(
                Some(addr),
                want,
                "cycle {}: a wide request",
                self.out.cycles
            );
        }
        self.dut.step();
        self.out.cycles += 1;
    }

    /// The active threads of instruction `k`.
    fn active(&self, k: usize) -> u64 {
        let threads = &self.insts[k].threads;
        (0..threads.len()).fold(0, |m, t| m | (threads[t].is_some() as u64) << t)
    }

    /// With hit masks: takes the next load's answer (not every cycle it is offered) and
    /// checks it: only the load's threads, all of them or after the window.
    fn answer(&mut self) {
        let take = !self.rng.chance(self.gap);
        self.dut.poke_u64("hits_ready", take as u64).unwrap();
        if self.dut.peek_u64("hits_valid").unwrap() == 0 {
            return;
        }
        let now = self.out.cycles;
        let mask = self.dut.peek_u64("hits_bits").unwrap();
        let h = self.hits.as_ref().unwrap();
        let n = h.answered;
        let k = *self
            .all_loads()
            .get(n)
            .expect("an answer with no load to answer");
        let active = self.active(k);
        assert_eq!(
            mask & !active,
            0,
            "load {k}'s hits {mask:x} beyond its threads {active:x}"
        );
        let sent = *h
            .sent_at
            .get(&k)
            .expect("an answer before the load was received");
        assert!(
            mask == active || now - sent > h.window,
            "cycle {now}: load {k} answered {mask:x} of {active:x} {} cycles after it was received (window {})",
            now - sent,
            h.window
        );
        if take {
            let h = self.hits.as_mut().unwrap();
            h.answered += 1;
            h.masks.push_back(mask);
        }
    }

    /// The loads in program order (instruction indices).
    fn all_loads(&self) -> Vec<usize> {
        (0..self.insts.len())
            .filter(|&i| self.insts[i].returns_data())
            .collect()
    }

    /// With hit masks, the SLU's passes: `take` once `ready` (its threads written by no
    /// pass before, its hits among the first's, every thread by the last, which alone
    /// may follow a first), then its T slots popped in the next cycles, checking its
    /// threads' data.
    fn pass(&mut self) {
        self.dut.poke_u64("load_take", 0).unwrap();
        let Some(c) = self.pop_slot else {
            self.dut.poke_u64("load_pop", 0).unwrap();
            if self.loads.is_empty()
                || self.dut.peek_u64("load_ready").unwrap() == 0
                || self.rng.chance(self.gap)
            {
                return;
            }
            let k = self.loads[0];
            let active = self.active(k);
            let d = &mut self.dut;
            let pass = d.peek_u64("load_pass").unwrap();
            let whole = d.peek_u64("load_whole").unwrap() == 1;
            let first = d.peek_u64("load_first").unwrap() == 1;
            let fill = d.peek_u64("load_fill").unwrap();
            let h = self.hits.as_mut().unwrap();
            let what = format!("load {k}'s pass {} ({pass:x} of {active:x})", h.passes);
            assert!(!h.masks.is_empty(), "{what} before its answer");
            assert_eq!(first, h.passes == 0, "{what}: first");
            assert_eq!(
                pass & (h.written | !active),
                0,
                "{what}: written already or inactive"
            );
            let hit = h.masks[0];
            assert!(
                !first || pass & hit == hit,
                "{what}: misses its hits {hit:x}"
            );
            assert_eq!(fill, pass & !hit, "{what}: fills all but the hits {hit:x}");
            assert!(whole || first, "{what}: a third pass");
            assert_eq!(whole, (h.written | pass) == active, "{what}: whole");
            assert!(whole || pass != 0, "{what}: writes nothing");
            h.written |= pass;
            h.passes += 1;
            h.total += 1;
            h.early += !whole as u64;
            h.pass = (pass, whole);
            self.dut.poke_u64("load_take", 1).unwrap();
            self.pop_slot = Some(0);
            return;
        };
        let k = self.loads[0];
        let (pass, whole) = self.hits.as_ref().unwrap().pass;
        if c == 0 {
            self.apply_until(k);
        }
        self.check_slot(k, c, pass);
        self.dut.poke_u64("load_pop", 1).unwrap();
        if c + 1 < self.t {
            self.pop_slot = Some(c + 1);
            return;
        }
        self.pop_slot = None;
        if whole {
            self.loads.pop_front();
            self.applied = k + 1;
            let h = self.hits.as_mut().unwrap();
            h.masks.pop_front();
            h.written = 0;
            h.passes = 0;
        }
    }

    /// Runs every instruction through, checks the counters, flushes the D$ and compares
    /// memory with the reference.
    fn run(mut self, limit: u64) -> Outcome {
        while self.next < self.insts.len()
            || self.sending.is_some()
            || !self.loads.is_empty()
            || self.dut.peek_u64("idle").unwrap() == 0
        {
            self.cycle();
            assert!(self.out.cycles < limit, "no progress after {limit} cycles");
        }
        assert!(
            self.wides.is_empty(),
            "{} wide requests missing",
            self.wides.len()
        );
        self.apply_until(self.insts.len());
        if let Some(h) = &self.hits {
            assert_eq!(h.answered, self.all_loads().len(), "loads answered");
            self.out.passes = (h.total, h.early);
        }
        self.check_counters();
        self.dut.poke_u64("flush", 1).unwrap();
        let start = self.out.cycles;
        while self.dut.peek_u64("flush_done").unwrap() == 0 {
            self.cycle();
            assert!(self.out.cycles - start < 100_000, "flush never done");
        }
        l1_rig::compare(self.mem.memory(), &self.refm, REGION, SPAN);
        let (base, size) = self.uncached;
        l1_rig::compare(self.mem.memory(), &self.refm, base, size);
        self.out
    }

    /// The counters against the rule's totals.
    fn check_counters(&mut self) {
        let (mut wide, mut narrow, mut bytes) = (0, 0, 0);
        for inst in &self.insts {
            if let Some(lines) = inst.affine_lines() {
                wide += lines.len() as u64;
                bytes += (inst.threads.iter().flatten().count() as u64) << inst.size;
                continue;
            }
            for c in 0..self.t {
                let slot = &inst.threads[c * self.lanes..(c + 1) * self.lanes];
                let n = slot.iter().flatten().count() as u64;
                bytes += n << inst.size;
                match wide_line(inst, self.lanes, c, self.uncached) {
                    Some(_) => wide += 1,
                    None => narrow += n,
                }
            }
        }
        let d = &mut self.dut;
        assert_eq!(d.peek_u64("stat_wide").unwrap(), wide, "wide accesses");
        assert_eq!(
            d.peek_u64("stat_narrow").unwrap(),
            narrow,
            "narrow accesses"
        );
        assert_eq!(d.peek_u64("stat_bytes").unwrap(), bytes, "bytes");
        self.out.wide = wide;
        self.out.narrow = narrow;
    }
}

/// `n` random instructions, an LR followed by an SC to its addresses half the time; with
/// `affine`, one in five an affine load.
fn random_stream(rng: &mut Rng, w: u64, n: usize, affine: bool) -> Vec<Inst> {
    let mut insts = Vec::new();
    while insts.len() < n {
        if affine && rng.chance(20) {
            insts.push(random_affine(rng, w));
            continue;
        }
        let inst = random_inst(rng, w);
        if inst.op == op::LR && rng.chance(50) {
            let mut sc = inst.clone();
            sc.op = op::SC;
            for a in sc.threads.iter_mut().flatten() {
                a.data = rng.next_u64() as u32;
            }
            insts.push(inst);
            insts.push(sc);
        } else {
            insts.push(inst);
        }
    }
    insts
}

fn random_run(p: &FgsimtParams, s: Stress, n: usize, seed: u64) -> Outcome {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let affine = p.affine == Affine::Abm;
    let insts = random_stream(&mut rng, p.warp_size as u64, n, affine);
    let aloads = insts.iter().filter(|i| i.affine.is_some()).count();
    let out = Tb::new(p, s, insts, seed).run(1_000_000);
    println!(
        "lanes {} warp {} smrq {} sldq {} affine {} {s:?} seed {seed}: {n} instructions ({aloads} affine loads) in {} cycles, {} wide, {} narrow, {} SC succeeded",
        p.lanes, p.warp_size, p.smrq_insts, p.sldq_loads, p.affine.name(), out.cycles, out.wide, out.narrow, out.sc_ok
    );
    out
}

// ------------------------------------------------------------------ tests

#[test]
fn random_streams_match_the_per_thread_reference() {
    for (p, seed) in [(params(8, 32), 1), (shallow(2, 2), 2)] {
        for s in STRESSES {
            random_run(&p, s, 300, seed);
        }
    }
}

/// +m: random streams with affine loads (every size, line-aligned or not, full masks,
/// one thread, holes) among the other instructions, on the lines they write.
#[test]
fn random_streams_with_affine_loads_match_the_reference() {
    for (p, seed) in [(abm(params(8, 32)), 3), (abm(shallow(2, 8)), 4)] {
        for s in STRESSES {
            random_run(&p, s, 300, seed);
        }
    }
}

/// Hit masks (`smu/hit_mask.rs`): random streams whose loads are each answered once
/// (taken at random back-pressure) with only its threads, all of them or after the
/// window, then written back in passes: the first after the answer with its hits at
/// least, a second only for the rest, never a word twice, every thread's data as the
/// reference says, each pass filling its threads but the hits. With slow memory some loads take two passes.
/// Also with +m's affine loads among them (the DWS sequencer with `affine = "abm"`).
#[test]
fn hit_masks_answer_each_load_and_write_it_back_in_passes() {
    for (p, seed) in [
        (hit(params(8, 32), 6), 21),
        (hit(shallow(2, 2), 0), 22),
        (hit(params(2, 8), 3), 23),
        // +m: an affine load takes its entry whole, with no slot to clear its bits.
        (abm(hit(params(2, 8), 3)), 24),
    ] {
        for s in STRESSES {
            let out = random_run(&p, s, 300, seed);
            let (passes, early) = out.passes;
            println!("  {passes} passes, {early} of them a load's first of two");
            if s.latency > 1 {
                assert!(early > 0, "no load written back in two passes");
            }
        }
    }
}

/// Longer runs, with `ACCELGEN_LONG=1` only.
#[test]
fn random_streams_long() {
    if std::env::var_os("ACCELGEN_LONG").is_none() {
        return;
    }
    let shapes = [
        params(8, 32),
        shallow(8, 32),
        params(2, 2),
        params(2, 8),
        shallow(2, 8),
        params(1, 4),
        params(8, 8),
        params(4, 32),
    ];
    for p in shapes.iter().flat_map(|p| [p.clone(), abm(p.clone())]) {
        for seed in 0..4 {
            for s in STRESSES {
                random_run(&p, s, 2000, 100 + seed);
            }
        }
    }
}

/// +m: a 32-thread warp's affine loads go as the paper's wide requests (seed 000,
/// section 2.6): words 4 at a line start and 5 off it, halves 2 and 3, bytes 1 and 2;
/// one thread, 1; each between stores by every thread to the same lines, so their data
/// show the order kept (checked per thread, and each line in program order).
#[test]
fn affine_loads_go_as_the_papers_wide_requests() {
    let p = abm(params(8, 32));
    let w = p.warp_size as u64;
    let full = u64::MAX >> (64 - w);
    let cases = [
        (2, 0, full, 4),
        (2, 4, full, 5),
        (1, 0, full, 2),
        (1, 6, full, 3),
        (0, 0, full, 1),
        (0, 9, full, 2),
        (2, 8, 1 << 17, 1),
        (1, 2, 0x8000_0001, 3),
    ];
    let mut insts = Vec::new();
    for (i, &(size, start, mask, lines)) in cases.iter().enumerate() {
        let line0 = OWN + 256 * (i as u64 % 4);
        let aload = affine_inst(line0 + start, size, mask, w);
        assert_eq!(aload.affine_lines().unwrap().len(), lines, "case {i}");
        let before = unit_stride(op::STORE, line0, w, 1).remove(0);
        let mut after = before.clone();
        for a in after.threads.iter_mut().flatten() {
            a.data = !a.data;
        }
        insts.extend([before, aload.clone(), after, aload]);
    }
    let out = Tb::new(&p, STRESSES[1], insts, 11).run(100_000);
    let slots = 2 * cases.len() as u64 * (w / p.lanes as u64);
    let lines: u64 = cases.iter().map(|c| 2 * c.3 as u64).sum();
    println!(
        "{} affine loads between stores: {} cycles",
        2 * cases.len(),
        out.cycles
    );
    assert_eq!(
        out.wide,
        slots + lines,
        "a wide request a store slot, the lines"
    );
}

/// `n` unit-stride word accesses of `opc` by every thread of a warp, over 4 rows of
/// the threads' own words at `base` (so the last `n - 4` hit in the D$).
fn unit_stride(opc: u64, base: u64, w: u64, n: u64) -> Vec<Inst> {
    (0..n)
        .map(|i| Inst {
            op: opc,
            size: 2,
            threads: (0..w)
                .map(|t| {
                    Some(Access {
                        addr: base + 4 * (i % 4 * w + t),
                        data: (i * w + t) as u32,
                        mask: 0xf,
                    })
                })
                .collect(),
            affine: None,
        })
        .collect()
}

#[test]
fn unit_stride_word_accesses_go_one_wide_request_a_slot() {
    let p = params(8, 32);
    let w = p.warp_size as u64;
    for (opc, what) in [(op::LOAD, "loads"), (op::STORE, "stores")] {
        let out = Tb::new(&p, STRESSES[0], unit_stride(opc, OWN, w, 64), 7).run(100_000);
        println!("64 unit-stride word {what}: {} cycles", out.cycles);
        assert_eq!(
            (out.wide, out.narrow),
            (256, 0),
            "1 wide request a slot, 4 a warp"
        );
    }
}

/// The uncached region's accesses go narrow whatever their pattern (the D$ serves wide
/// accesses from its banks only): unit-stride stores then loads of the mailbox page.
#[test]
fn uncached_lines_never_go_wide() {
    let p = params(8, 32);
    let w = p.warp_size as u64;
    let mut insts = unit_stride(op::STORE, p.uncached_base, w, 4);
    insts.extend(unit_stride(op::LOAD, p.uncached_base, w, 4));
    let out = Tb::new(&p, STRESSES[1], insts, 9).run(100_000);
    assert_eq!((out.wide, out.narrow), (0, 8 * w), "all narrow");
}

#[test]
fn smu_is_lint_clean_at_lanes_1_2_8_and_warps_1_to_32() {
    // Each lane count at its smallest and largest warp; with `ACCELGEN_LONG=1` every warp
    // between.
    let long = std::env::var_os("ACCELGEN_LONG").is_some();
    let mut blocks = Vec::new();
    for lanes in [1, 2, 8] {
        let warps = [1, 2, 4, 8, 16, 32].into_iter();
        for warp_size in warps.filter(|&w| w == lanes || w == 32 || (long && w > lanes)) {
            let p = FgsimtParams {
                lanes,
                warp_size,
                ..FgsimtParams::default()
            };
            blocks.push(smu(&p).unwrap());
        }
    }
    for (smrq_insts, sldq_loads, uncached_size) in [(8, 8, 0x1000), (1, 1, 0)] {
        let p = FgsimtParams {
            smrq_insts,
            sldq_loads,
            uncached_size,
            ..FgsimtParams::default()
        };
        blocks.push(smu(&p).unwrap());
    }
    // +m likewise.
    let abm_blocks: Vec<_> = [1, 2, 8]
        .into_iter()
        .flat_map(|lanes| {
            [1, 2, 4, 8, 16, 32]
                .into_iter()
                .filter(move |&w| w == lanes || w == 32 || (long && w > lanes))
                .map(move |warp_size| (lanes, warp_size, 2, 4))
        })
        .chain([(8, 32, 8, 8), (8, 32, 1, 1), (2, 2, 1, 1)])
        .map(|(lanes, warp_size, smrq_insts, sldq_loads)| {
            smu(&abm(FgsimtParams {
                lanes,
                warp_size,
                smrq_insts,
                sldq_loads,
                ..FgsimtParams::default()
            }))
            .unwrap()
        })
        .collect();
    blocks.extend(abm_blocks);
    // With hit masks: the narrowest, a small and the paper's shape.
    for (lanes, warp_size, sldq_loads) in [(1, 1, 1), (2, 8, 2), (8, 32, 8)] {
        let p = hit(
            FgsimtParams {
                lanes,
                warp_size,
                sldq_loads,
                ..FgsimtParams::default()
            },
            6,
        );
        blocks.push(smu(&p).unwrap());
    }
    // With the AVC's private path: the narrowest, a small and the paper's shape.
    for (lanes, warp_size, sldq_loads) in [(1, 1, 1), (2, 8, 2), (8, 32, 8)] {
        let p = FgsimtParams {
            lanes,
            warp_size,
            sldq_loads,
            avc: true,
            ..FgsimtParams::default()
        };
        blocks.push(smu(&p).unwrap());
    }
    lint_rig::lint_blocks("fgsimt smu", &blocks);
}
