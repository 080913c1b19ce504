//! Units of the `rocket` tile under Verilator, each against a Rust reference written from
//! the specification: the multiply/divide unit (RISC-V M arithmetic), the branch
//! predictors (2-bit counter tables) and the L1 cache (a flat memory).

use generators::arith::adder::Style;
use generators::rocket::muldiv::muldiv;
use generators::rocket::params::{MulDivParams, MulKind};
use hdl::sim::Init;
use hdl::Design;
use verification::rng::Rng;
use verification::verilator::{Model, Options, INIT_SEEDS};

fn model(top: &std::rc::Rc<hdl::Module>) -> Model {
    Model::of_design(&Design::new(top), &Options::default()).unwrap()
}

/// Restarts `m` for test case `case` from a random initial state, the cases alternating
/// `INIT_SEEDS` (both covered without extra runs), then resets it.
fn restart(m: &mut Model, case: u64) {
    let seed = INIT_SEEDS[(case % 2) as usize];
    m.reinit(Init::Random { seed }).unwrap();
    m.poke_u64("reset", 1).unwrap();
    m.step();
    m.poke_u64("reset", 0).unwrap();
}

// ---------------------------------------------------------------- multiply / divide

/// The M extension's result for funct3 `f3` (0 mul .. 7 remu), from the ISA manual:
/// products of the 64-bit (or, for *W, 32-bit) operands, division rounding toward
/// zero, x/0 = all ones, x%0 = x, MIN/-1 = MIN, MIN%-1 = 0; *W results sign-extended.
fn m_reference(f3: u64, word: bool, a: u64, b: u64) -> u64 {
    if word {
        let (x, y) = (a as u32, b as u32);
        let r: u32 = match f3 {
            0 => x.wrapping_mul(y),
            4 if y == 0 => u32::MAX,
            4 => (x as i32).wrapping_div(y as i32) as u32,
            5 if y == 0 => u32::MAX,
            5 => x / y,
            6 if y == 0 => x,
            6 => (x as i32).wrapping_rem(y as i32) as u32,
            7 if y == 0 => x,
            7 => x % y,
            _ => unreachable!("no *W form of funct3 {f3}"),
        };
        return r as i32 as i64 as u64;
    }
    let (sa, sb) = (a as i64 as i128, b as i64 as i128);
    let (ua, ub) = (a as u128, b as u128);
    match f3 {
        0 => a.wrapping_mul(b),
        1 => ((sa * sb) >> 64) as u64,
        2 => ((sa * ub as i128) >> 64) as u64,
        3 => ((ua * ub) >> 64) as u64,
        4 if b == 0 => u64::MAX,
        4 => (a as i64).wrapping_div(b as i64) as u64,
        5 if b == 0 => u64::MAX,
        5 => a / b,
        6 if b == 0 => a,
        6 => (a as i64).wrapping_rem(b as i64) as u64,
        7 if b == 0 => a,
        7 => a % b,
        _ => unreachable!(),
    }
}

#[test]
fn reference_matches_known_values() {
    // From the ISA manual's division table and hand-worked products.
    let min = i64::MIN as u64;
    assert_eq!(m_reference(4, false, min, u64::MAX), min);
    assert_eq!(m_reference(6, false, min, u64::MAX), 0);
    assert_eq!(m_reference(4, false, 7, 0), u64::MAX);
    assert_eq!(m_reference(7, false, 7, 0), 7);
    assert_eq!(m_reference(4, false, (-7i64) as u64, 2), (-3i64) as u64);
    assert_eq!(m_reference(6, false, (-7i64) as u64, 2), (-1i64) as u64);
    assert_eq!(m_reference(1, false, u64::MAX, u64::MAX), 0);
    assert_eq!(m_reference(3, false, u64::MAX, u64::MAX), u64::MAX - 1);
    assert_eq!(m_reference(2, false, u64::MAX, u64::MAX), u64::MAX);
    assert_eq!(
        m_reference(4, true, 0x8000_0000, u64::MAX),
        0xffff_ffff_8000_0000
    );
    assert_eq!(m_reference(5, true, 7, 0), u64::MAX);
    assert_eq!(m_reference(0, true, 0x1_0000_0003, 5), 15);
}

/// An operand biased to the corners: 0, ±1, the 64- and 32-bit extremes, powers of two
/// (and their negations), small values, sign-extended words, or anything.
fn operand(rng: &mut Rng) -> u64 {
    let pow = 1u64 << rng.below(64);
    match rng.below(12) {
        0 => 0,
        1 => 1,
        2 => u64::MAX,
        3 => *rng.pick(&[i64::MIN as u64, i64::MAX as u64, i64::MIN as u64 + 1]),
        4 => *rng.pick(&[0x8000_0000, 0x7fff_ffff, 0xffff_ffff_8000_0000, 0xffff_ffff]),
        5 => pow,
        6 => pow.wrapping_neg(),
        7 => rng.below(16),
        8 => rng.next_u64() as i32 as i64 as u64,
        9 => rng.next_u64() >> rng.below(64),
        _ => rng.next_u64(),
    }
}

/// One operation: funct3, word, operands.
type MOp = (u64, bool, u64, u64);

fn random_op(rng: &mut Rng) -> MOp {
    let f3 = rng.below(8);
    // No MULH*W: funct3 1..=3 exist only in 64 bits.
    let word = !(1..=3).contains(&f3) && rng.chance(40);
    (f3, word, operand(rng), operand(rng))
}

/// How the driver stresses the unit.
#[derive(Clone, Copy)]
struct Stress {
    /// Percent of cycles a request is offered.
    offer: u64,
    /// Percent of cycles the result is not taken.
    stall: u64,
    /// Percent of cycles the operations in flight are killed.
    kill: u64,
}

/// Drives `n` random operations through the unit, checking every result against the
/// reference and that killed operations never answer. Returns (results checked,
/// operations killed).
fn drive_muldiv(m: &mut Model, seed: u64, n: usize, s: Stress) -> (usize, usize) {
    let mut rng = Rng::new(seed);
    restart(m, seed);
    // Accepted and not yet answered (nor killed), oldest first.
    let mut expected: std::collections::VecDeque<(MOp, u64)> = Default::default();
    let mut offered: Option<MOp> = None;
    let (mut issued, mut checked, mut killed) = (0, 0, 0);
    for cycle in 0..n as u64 * 200 {
        if issued == n && expected.is_empty() {
            assert_eq!(checked + killed, n);
            return (checked, killed);
        }
        // The core's rules: no request or taken result in a cycle that kills.
        let kill = !expected.is_empty() && rng.chance(s.kill);
        if offered.is_none() && !kill && issued < n && rng.chance(s.offer) {
            offered = Some(random_op(&mut rng));
        }
        let ready = !kill && !rng.chance(s.stall);
        m.poke_u64("kill", kill as u64).unwrap();
        m.poke_u64("resp_ready", ready as u64).unwrap();
        match offered.filter(|_| !kill) {
            Some((f3, word, a, b)) => {
                m.poke_u64("req_valid", 1).unwrap();
                m.poke_u64("req_bits_funct3", f3).unwrap();
                m.poke_u64("req_bits_word", word as u64).unwrap();
                m.poke_u64("req_bits_in1", a).unwrap();
                m.poke_u64("req_bits_in2", b).unwrap();
            }
            None => m.poke_u64("req_valid", 0).unwrap(),
        }
        if m.peek_u64("resp_valid").unwrap() == 1 && ready {
            let got = m.peek_u64("resp_bits_data").unwrap();
            let Some(((f3, word, a, b), _)) = expected.pop_front() else {
                panic!("cycle {cycle}: a result {got:#x} with no operation in flight");
            };
            let want = m_reference(f3, word, a, b);
            assert_eq!(
                got, want,
                "cycle {cycle}: funct3 {f3} word {word} of {a:#x}, {b:#x}: got {got:#x}, want {want:#x}"
            );
            checked += 1;
        }
        if kill {
            killed += expected.len();
            expected.clear();
        }
        if let Some(op) = offered.filter(|_| !kill) {
            if m.peek_u64("req_ready").unwrap() == 1 {
                expected.push_back((op, cycle));
                offered = None;
                issued += 1;
            }
        }
        m.step();
    }
    panic!("seed {seed}: {n} operations did not finish ({checked} checked)");
}

/// Cycles from a request firing to its result being valid, with results always taken.
fn latency(m: &mut Model, op: MOp) -> u64 {
    restart(m, op.0);
    m.poke_u64("kill", 0).unwrap();
    m.poke_u64("resp_ready", 1).unwrap();
    m.poke_u64("req_valid", 1).unwrap();
    m.poke_u64("req_bits_funct3", op.0).unwrap();
    m.poke_u64("req_bits_word", op.1 as u64).unwrap();
    m.poke_u64("req_bits_in1", op.2).unwrap();
    m.poke_u64("req_bits_in2", op.3).unwrap();
    assert_eq!(
        m.peek_u64("req_ready").unwrap(),
        1,
        "an idle unit takes a request"
    );
    m.step();
    m.poke_u64("req_valid", 0).unwrap();
    for cycles in 1..200 {
        if m.peek_u64("resp_valid").unwrap() == 1 {
            assert_eq!(
                m.peek_u64("resp_bits_data").unwrap(),
                m_reference(op.0, op.1, op.2, op.3)
            );
            m.step();
            return cycles;
        }
        m.step();
    }
    panic!("no result for {op:?}");
}

/// The shapes checked, each adder style among them (`adders`: the engine's Wallace tree
/// and prefix adders, or Yosys's `*`, `+` and `-`), each with and without the result
/// registered (the iterative ones with, as the Rocket tile builds them; the pipelined
/// ones without, as Hwacha does).
fn shapes() -> Vec<MulDivParams> {
    let it = |mb, db, adders| MulDivParams {
        mul: MulKind::Iterative,
        mul_bits_per_cycle: mb,
        mul_early_out: mb < 64,
        mul_stages: 1,
        div_bits_per_cycle: db,
        div_early_out: mb < 64,
        adders,
        registered_result: true,
    };
    let pipe = |stages, db, adders| MulDivParams {
        mul: MulKind::Pipelined,
        mul_bits_per_cycle: 1,
        mul_early_out: false,
        mul_stages: stages,
        div_bits_per_cycle: db,
        div_early_out: db == 4,
        adders,
        registered_result: false,
    };
    let (prefix, inferred) = (Style::Prefix, Style::Inferred);
    vec![
        it(1, 1, prefix),
        it(8, 2, prefix),
        it(64, 4, inferred),
        pipe(1, 1, inferred),
        pipe(3, 4, prefix),
    ]
}

#[test]
fn muldiv_matches_the_m_extension() {
    let relaxed = Stress {
        offer: 100,
        stall: 0,
        kill: 0,
    };
    let harsh = Stress {
        offer: 60,
        stall: 30,
        kill: 3,
    };
    for (i, p) in shapes().into_iter().enumerate() {
        let mut m = model(&muldiv(&p).unwrap());
        let (checked, _) = drive_muldiv(&mut m, 100 + i as u64, 3000, relaxed);
        assert_eq!(checked, 3000);
        let (survived, killed) = drive_muldiv(&mut m, 200 + i as u64, 3000, harsh);
        assert!(
            survived > 100 && killed > 50,
            "{p:?}: {survived} checked, {killed} killed"
        );
        // Every funct3 x word form, with the latency of each.
        let mut lat = Vec::new();
        for f3 in 0..8 {
            for word in [false, true] {
                if word && (1..=3).contains(&f3) {
                    continue;
                }
                let l = latency(&mut m, (f3, word, i64::MIN as u64 + 12345, u64::MAX - 99));
                lat.push(format!("{f3}{}:{l}", if word { "w" } else { "" }));
            }
        }
        println!(
            "{p:?}: {} checked, {killed} killed; latency per funct3[w]: {}",
            checked + survived,
            lat.join(" ")
        );
    }
}

/// With the early outs, a multiply whose multiplier (rs1) or a divide whose dividend
/// (rs1) has a small magnitude takes fewer cycles than one with a large one, on 8 and 1
/// bits a step, for MUL, MULH, MULW, DIV, DIVUW and REM (`latency` checks each result
/// against the reference, a divide by zero's too); without them, each takes the same
/// time whatever its operands.
#[test]
fn early_outs_shorten_small_operations() {
    for (bits, early) in [(8, true), (1, true), (8, false)] {
        let p = MulDivParams {
            mul: MulKind::Iterative,
            mul_bits_per_cycle: bits,
            mul_early_out: early,
            mul_stages: 1,
            div_bits_per_cycle: 1,
            div_early_out: early,
            adders: Style::Prefix,
            registered_result: true,
        };
        let mut m = model(&muldiv(&p).unwrap());
        let ops = [
            (0, false),
            (1, false),
            (0, true),
            (4, false),
            (5, true),
            (6, false),
        ];
        for (f3, word) in ops {
            let divide = f3 >= 4;
            let large = latency(&mut m, (f3, word, 0x7234_5678_9abc_def1, 0xfedc_ba98));
            // MUL and MULW take rs1 as it is (the low half needs no signs): a small
            // negative one is a large multiplier, as in Rocket; MULH's magnitude is 7.
            let seven = if f3 == 1 || f3 == 4 {
                (-7i64) as u64
            } else {
                7
            };
            let small = latency(
                &mut m,
                (
                    f3,
                    word,
                    seven,
                    0xfedc_ba98_7654_3210 >> (8 * divide as u32),
                ),
            );
            let middle_divisor = if divide { 3 } else { 0x8000_0000_0000_0001 };
            let middle = latency(&mut m, (f3, word, 0x123, middle_divisor));
            // A zero divisor skips nothing.
            let by_zero = divide.then(|| latency(&mut m, (f3, word, 7, 0)));
            println!("{bits} bits a step, early outs {early}, funct3 {f3} word {word}: {small} / {middle} / {large} cycles, by zero {by_zero:?}");
            if early {
                assert!(small < middle && middle < large, "{small} {middle} {large}");
                assert!(by_zero.is_none_or(|z| z == large), "{by_zero:?}");
            } else {
                assert_eq!((small, middle), (large, large));
            }
        }
    }
}

/// A pipelined multiplier takes one multiply per cycle while results are taken.
#[test]
fn pipelined_multiplier_takes_one_per_cycle() {
    for stages in [1, 3] {
        let p = MulDivParams {
            mul: MulKind::Pipelined,
            mul_bits_per_cycle: 1,
            mul_early_out: false,
            mul_stages: stages,
            div_bits_per_cycle: 1,
            div_early_out: false,
            adders: Style::Prefix,
            registered_result: true,
        };
        let mut m = model(&muldiv(&p).unwrap());
        restart(&mut m, stages as u64);
        m.poke_u64("kill", 0).unwrap();
        m.poke_u64("resp_ready", 1).unwrap();
        m.poke_u64("req_valid", 1).unwrap();
        m.poke_u64("req_bits_funct3", 1).unwrap();
        m.poke_u64("req_bits_word", 0).unwrap();
        let mut results = Vec::new();
        for cycle in 0..40u64 {
            let (a, b) = (cycle.wrapping_mul(0x9e37_79b9_7f4a_7c15), !cycle << 40);
            m.poke_u64("req_bits_in1", a).unwrap();
            m.poke_u64("req_bits_in2", b).unwrap();
            assert_eq!(m.peek_u64("req_ready").unwrap(), 1, "cycle {cycle}");
            if m.peek_u64("resp_valid").unwrap() == 1 {
                results.push((cycle, m.peek_u64("resp_bits_data").unwrap()));
            }
            m.step();
        }
        for (i, &(cycle, got)) in results.iter().enumerate() {
            let c = i as u64;
            let (a, b) = (c.wrapping_mul(0x9e37_79b9_7f4a_7c15), !c << 40);
            assert_eq!(
                cycle,
                c + stages as u64,
                "result {i} arrives after the stages"
            );
            assert_eq!(got, m_reference(1, false, a, b), "result {i}");
        }
        assert_eq!(results.len(), 40 - stages as usize);
    }
}

// ---------------------------------------------------------------- branch predictors

/// Saturating 2-bit counter.
fn counter_step(c: u8, taken: bool) -> u8 {
    if taken {
        (c + 1).min(3)
    } else {
        c.saturating_sub(1)
    }
}

/// The BTB as specified: fully associative on pc[63:2]; a taken resolution of a pc it
/// does not hold allocates the next entry round-robin (counter 2, weakly taken); a
/// resolution of a held pc steps its counter and refreshes its target; a hit predicts
/// taken on a jump or on a counter of 2 or more.
#[derive(Default)]
struct BtbRef {
    entries: Vec<Option<BtbEntry>>,
    next: usize,
}

#[derive(Clone, Copy)]
struct BtbEntry {
    pc: u64,
    target: u64,
    counter: u8,
    jump: bool,
}

impl BtbRef {
    fn new(n: usize) -> BtbRef {
        BtbRef {
            entries: vec![None; n],
            next: 0,
        }
    }

    fn find(&self, pc: u64) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.is_some_and(|e| e.pc >> 2 == pc >> 2))
    }

    /// (hit, taken, target)
    fn lookup(&self, pc: u64) -> (bool, bool, u64) {
        match self.find(pc).and_then(|i| self.entries[i]) {
            Some(e) => (true, e.jump || e.counter >= 2, e.target),
            None => (false, false, 0),
        }
    }

    fn update(&mut self, pc: u64, target: u64, taken: bool, jump: bool) {
        match self.find(pc) {
            Some(i) => {
                let e = self.entries[i].as_mut().unwrap();
                e.counter = counter_step(e.counter, taken);
                e.target = target;
            }
            None if taken => {
                self.entries[self.next] = Some(BtbEntry {
                    pc,
                    target,
                    counter: 2,
                    jump,
                });
                self.next = (self.next + 1) % self.entries.len();
            }
            None => {}
        }
    }
}

/// A pc from a small pool (so entries are reused and evicted), sometimes anywhere.
fn branch_pc(rng: &mut Rng, pool: u64) -> u64 {
    if rng.chance(5) {
        rng.next_u64() & !3
    } else {
        0x8000_0000 + 4 * rng.below(pool) + ((rng.below(2)) << 40)
    }
}

#[test]
fn btb_matches_its_reference() {
    use generators::rocket::bpred::btb_module;
    for entries in [1u32, 2, 5, 16] {
        let mut m = model(&btb_module(entries).unwrap());
        restart(&mut m, entries as u64);
        let mut r = BtbRef::new(entries as usize);
        let mut rng = Rng::new(entries as u64);
        let pool = entries as u64 * 2 + 1;
        let (mut hits, mut taken_hits) = (0, 0);
        for cycle in 0..20_000 {
            let pc = branch_pc(&mut rng, pool);
            m.poke_u64("lookup_pc", pc).unwrap();
            let (hit, taken, target) = r.lookup(pc);
            let got = (
                m.peek_u64("hit").unwrap() == 1,
                m.peek_u64("taken").unwrap() == 1,
            );
            assert_eq!(
                got,
                (hit, taken),
                "entries {entries}, cycle {cycle}, pc {pc:#x}"
            );
            if hit {
                assert_eq!(m.peek_u64("target").unwrap(), target, "cycle {cycle}");
                hits += 1;
                taken_hits += taken as u32;
            }
            let valid = rng.chance(70);
            let upc = branch_pc(&mut rng, pool);
            // The same pc keeps its kind; a third of the pcs are jumps (always taken).
            let jump = (upc >> 2).is_multiple_of(3);
            let taken = jump || rng.chance(60);
            let target = rng.next_u64() & !1;
            for (port, v) in [
                ("update_valid", valid as u64),
                ("update_pc", upc),
                ("update_target", target),
                ("update_taken", taken as u64),
                ("update_jump", jump as u64),
            ] {
                m.poke_u64(port, v).unwrap();
            }
            if valid {
                r.update(upc, target, taken, jump);
            }
            m.step();
        }
        assert!(
            hits > 2000 && taken_hits > 500,
            "entries {entries}: {hits} hits"
        );
    }
}

#[test]
fn bht_matches_its_reference() {
    use generators::rocket::bpred::bht_module;
    for (i, entries) in [2u32, 64, 512].into_iter().enumerate() {
        let mut m = model(&bht_module(entries).unwrap());
        restart(&mut m, i as u64);
        // Counters start weakly not taken.
        let mut counters = vec![1u8; entries as usize];
        let index = |pc: u64| ((pc >> 2) % entries as u64) as usize;
        let mut rng = Rng::new(entries as u64);
        let mut predicted_taken = 0;
        for cycle in 0..20_000 {
            let pc = branch_pc(&mut rng, entries as u64 * 2);
            m.poke_u64("lookup_pc", pc).unwrap();
            let want = counters[index(pc)] >= 2;
            assert_eq!(
                m.peek_u64("taken").unwrap() == 1,
                want,
                "entries {entries}, cycle {cycle}, pc {pc:#x}"
            );
            predicted_taken += want as u32;
            let valid = rng.chance(70);
            let upc = branch_pc(&mut rng, entries as u64 * 2);
            // Mostly-taken and mostly-not-taken branches, by pc.
            let bias = if (upc >> 3).is_multiple_of(2) { 85 } else { 15 };
            let taken = rng.chance(bias);
            m.poke_u64("update_valid", valid as u64).unwrap();
            m.poke_u64("update_pc", upc).unwrap();
            m.poke_u64("update_taken", taken as u64).unwrap();
            if valid {
                let c = &mut counters[index(upc)];
                *c = counter_step(*c, taken);
            }
            m.step();
        }
        assert!(
            predicted_taken > 2000,
            "entries {entries}: {predicted_taken} taken"
        );
    }
}

// ---------------------------------------------------------------- L1 cache

use generators::memory;
use generators::rocket::cache::cache;
use generators::rocket::params::CacheParams;
use std::collections::HashMap;
use verification::tb::memory::{MemConfig, MemPort, MemoryModel};

/// Where the cache tests work: a window small enough to force conflicts and evictions,
/// with the uncached region at its start.
const BASE: u64 = 0x8000_0000;
const WINDOW: u64 = 2048;
const UNCACHED: u64 = 64;

/// `sram_threshold_bits` 0 makes every array an SRAM macro (the behavioural model).
fn cache_params(
    (sets, ways, line_bytes): (u32, u32, u32),
    sram_threshold_bits: u64,
    posted_writes: bool,
) -> CacheParams {
    CacheParams {
        sets,
        ways,
        line_bytes,
        uncached_base: BASE,
        uncached_size: UNCACHED,
        sram_threshold_bits,
        posted_writes,
    }
}

/// A cache under test: the Verilator model, the memory model on its memory side, the
/// flat reference memory (byte address to byte), and whether cacheable writes are
/// posted (no answer).
struct CacheBench {
    m: Model,
    mem: MemoryModel,
    flat: HashMap<u64, u8>,
    posted: bool,
}

/// A CPU-side request: address, write, lane-aligned data, mask, log2 size.
#[derive(Clone, Copy, Debug)]
struct CReq {
    addr: u64,
    write: bool,
    data: u64,
    mask: u64,
    size: u64,
}

impl CacheBench {
    fn new(m: Model, config: MemConfig, posted: bool) -> CacheBench {
        let port = MemPort {
            resp_ready: None,
            ..MemPort::decoupled("mem", false)
        };
        let seed = config.seed;
        let mut mem = MemoryModel::new(config, vec![port]).unwrap();
        let mut rng = Rng::new(7);
        let mut flat = HashMap::new();
        for a in BASE..BASE + WINDOW {
            let b = rng.next_u64() as u8;
            flat.insert(a, b);
            mem.memory_mut().write(a, &[b]);
        }
        let mut b = CacheBench {
            m,
            mem,
            flat,
            posted,
        };
        restart(&mut b.m, seed);
        b
    }

    /// The reference doubleword holding `addr`.
    fn expect(&self, addr: u64) -> u64 {
        (0..8).fold(0, |v, i| {
            v | (self.flat[&((addr & !7) + i)] as u64) << (8 * i)
        })
    }

    /// Whether the cache answers `r` (every read; a write unless it is posted).
    fn answers(&self, r: &CReq) -> bool {
        !(r.write && self.posted && r.addr >= BASE + UNCACHED)
    }

    /// Runs idle cycles until no posted write is pending, then checks that memory holds
    /// every byte of the reference: no write lost or reordered on its way out.
    fn drain_and_compare(&mut self) {
        let mut idle = 0;
        while self.posted && self.m.peek_u64("writes_pending").unwrap() == 1 {
            self.cycle(None, false);
            idle += 1;
            assert!(idle < 1000, "the write buffer does not drain");
        }
        // The last write's answer may still be on its way back: memory has it.
        for _ in 0..4 {
            self.cycle(None, false);
        }
        for a in BASE..BASE + WINDOW {
            let mut byte = [0u8];
            self.mem.memory().read(a, &mut byte);
            assert_eq!(byte[0], self.flat[&a], "memory at {a:#x} after the run");
        }
    }

    fn apply(&mut self, r: &CReq) {
        for i in 0..8 {
            if r.mask >> i & 1 == 1 {
                self.flat
                    .insert((r.addr & !7) + i, (r.data >> (8 * i)) as u8);
            }
        }
    }

    /// One cycle: drives `req` (if any) and `invalidate`, serves memory, and returns
    /// (request accepted, response data if valid).
    fn cycle(&mut self, req: Option<&CReq>, invalidate: bool) -> (bool, Option<u64>) {
        self.cycle_killing(req, invalidate, false)
    }

    /// [`CacheBench::cycle`], with `cpu_kill` (posted writes only) cancelling the read
    /// taken in the cycle before.
    fn cycle_killing(
        &mut self,
        req: Option<&CReq>,
        invalidate: bool,
        kill: bool,
    ) -> (bool, Option<u64>) {
        let m = &mut self.m;
        if self.posted {
            m.poke_u64("cpu_kill", kill as u64).unwrap();
        }
        m.poke_u64("invalidate", invalidate as u64).unwrap();
        m.poke_u64("cpu_req_valid", req.is_some() as u64).unwrap();
        if let Some(r) = req {
            m.poke_u64("cpu_req_bits_addr", r.addr).unwrap();
            m.poke_u64("cpu_req_bits_write", r.write as u64).unwrap();
            m.poke_u64("cpu_req_bits_data", r.data).unwrap();
            m.poke_u64("cpu_req_bits_mask", r.mask).unwrap();
            m.poke_u64("cpu_req_bits_size", r.size).unwrap();
        }
        self.mem.tick(m).unwrap();
        let accepted = req.is_some() && m.peek_u64("cpu_req_ready").unwrap() == 1;
        let resp = (m.peek_u64("cpu_resp_valid").unwrap() == 1)
            .then(|| m.peek_u64("cpu_resp_bits_data").unwrap());
        m.step();
        (accepted, resp)
    }
}

/// A random aligned access of any size in the window (half of them in `hot` bytes past
/// the uncached region, so that lines get reused), lane-aligned.
fn cache_request(rng: &mut Rng, hot: u64) -> CReq {
    let size = rng.below(4);
    let bytes = 1u64 << size;
    let addr = if rng.chance(50) {
        BASE + UNCACHED + rng.below(hot / bytes) * bytes
    } else {
        BASE + rng.below(WINDOW / bytes) * bytes
    };
    let lane = addr & 7;
    let mask = ((1u64 << bytes) - 1) << lane;
    let data = rng.next_u64();
    let data = if size == 3 {
        data
    } else {
        (data & ((1u64 << (8 * bytes)) - 1)) << (8 * lane)
    };
    CReq {
        addr,
        write: rng.chance(35),
        data,
        mask,
        size,
    }
}

/// Random traffic; every read's doubleword checked against the reference (with posted
/// writes, 15 % of the reads are killed the cycle after they are taken, and must not
/// answer). Returns (reads checked, reads answered the cycle after acceptance, memory
/// reads made).
fn random_cache_traffic(b: &mut CacheBench, seed: u64, n: usize, hot: u64) -> (usize, usize, u64) {
    let mut rng = Rng::new(seed);
    // Accepted requests: the request, the doubleword a read must see, the cycle.
    let mut pending: std::collections::VecDeque<(CReq, u64, u64)> = Default::default();
    let mut offered: Option<CReq> = None;
    let (mut issued, mut reads, mut hits) = (0, 0, 0);
    // The last request taken was a read the bench may kill (posted writes); kills made.
    let (mut just_read, mut killed) = (false, 0);
    for cycle in 0..n as u64 * 400 {
        if issued == n && pending.is_empty() {
            b.drain_and_compare();
            assert_eq!(killed > 0, b.posted, "{killed} reads killed");
            return (reads, hits, b.mem.stats().reads);
        }
        if offered.is_none() && issued < n && rng.chance(70) {
            offered = Some(cache_request(&mut rng, hot));
        }
        // The core invalidates only with nothing outstanding on that side.
        let invalidate = pending.is_empty() && offered.is_none() && rng.chance(5);
        // The core kills a load it sent the cycle before, now and then: no answer.
        let kill = just_read && rng.chance(15);
        if kill {
            pending.pop_back();
            killed += 1;
        }
        let (accepted, resp) = b.cycle_killing(offered.as_ref(), invalidate, kill);
        just_read = false;
        if let Some(got) = resp {
            let Some((r, want, accepted_at)) = pending.pop_front() else {
                panic!("cycle {cycle}: response {got:#x} to no request");
            };
            if !r.write {
                assert_eq!(got, want, "cycle {cycle}: read {r:x?}");
                reads += 1;
                hits += (cycle == accepted_at + 1) as usize;
            }
        }
        if accepted {
            let r = offered.take().unwrap();
            // In order and blocking: a read sees every earlier write.
            let want = b.expect(r.addr);
            if r.write {
                b.apply(&r);
            }
            if b.answers(&r) {
                pending.push_back((r, want, cycle));
                just_read = b.posted && !r.write;
            }
            issued += 1;
        }
    }
    panic!("seed {seed}: {n} requests did not finish");
}

#[test]
fn cache_matches_a_flat_memory() {
    let shapes = [(4, 2, 16), (1, 1, 8), (8, 4, 64), (2, 1, 32)];
    for (i, &(sets, ways, line)) in shapes.iter().enumerate() {
        // Alternately every array an SRAM macro and every array flops.
        let threshold = [0, memory::NEVER_SRAM_BITS][i % 2];
        // The write buffer on shapes 0 and 3, each SRAM style once.
        let posted = i % 3 == 0;
        let params = cache_params((sets, ways, line), threshold, posted);
        let top = cache("Cache", &params).unwrap();
        let hot = ((sets * ways * line) as u64).min(512);
        let mut checked = Vec::new();
        for (j, (latency, stall)) in [(1, 0), (10, 30), (100, 20)].into_iter().enumerate() {
            let config = MemConfig {
                latency,
                jitter: latency / 4,
                stall_percent: stall,
                seed: (i * 3 + j) as u64,
                ..MemConfig::default()
            };
            let mut b = CacheBench::new(model(&top), config, posted);
            let n = if latency == 100 { 600 } else { 3000 };
            let (reads, hits, mem_reads) = random_cache_traffic(&mut b, (i * 3 + j) as u64, n, hot);
            assert!(reads > n / 2, "{reads} reads checked");
            assert!(hits > reads / 5, "only {hits} of {reads} reads hit");
            checked.push(format!(
                "latency {latency}: {reads} reads ({hits} hits), {mem_reads} memory reads"
            ));
        }
        println!(
            "cache {sets}x{ways}x{line}B (posted writes: {posted}): {}",
            checked.join("; ")
        );
    }
}

/// A doubleword read of `addr`.
fn read(addr: u64) -> CReq {
    CReq {
        addr,
        write: false,
        data: 0,
        mask: 0xff,
        size: 3,
    }
}

/// A cache of `shape` with every array an SRAM macro, at memory `latency`, with `line`
/// brought in.
fn cache_with_line_in(shape: (u32, u32, u32), posted: bool, latency: u32, line: u64) -> CacheBench {
    let top = cache("Cache", &cache_params(shape, 0, posted)).unwrap();
    let config = MemConfig {
        latency,
        ..MemConfig::default()
    };
    let mut b = CacheBench::new(model(&top), config, posted);
    bring_in(&mut b, line);
    b
}

/// Reads `line` once (a miss) and waits for the answer, so that the line is in.
fn bring_in(b: &mut CacheBench, line: u64) {
    let mut accepted = false;
    for _ in 0..200 {
        let (a, r) = b.cycle((!accepted).then(|| read(line)).as_ref(), false);
        accepted |= a;
        if let Some(d) = r {
            assert_eq!(d, b.expect(line));
            return;
        }
    }
    panic!("the miss was not answered");
}

/// With posted writes, stores and loads to one line stream at one request a cycle at
/// memory latency 1: a write is taken the cycle after its lookup starts, and a read
/// right behind a write to its doubleword sees the written bytes (forwarded beside the
/// array write). On shape 0 of `cache_matches_a_flat_memory` (one model build).
#[test]
fn cache_posted_writes_stream_with_reads() {
    let line = BASE + 0x100;
    let mut b = cache_with_line_in((4, 2, 16), true, 1, line);
    let mut rng = Rng::new(11);
    // Alternately a write of random bytes and a read of a doubleword of the line (the
    // one just written, every other time).
    let reqs: Vec<CReq> = (0..32)
        .map(|i| {
            let word = line + 8 * rng.below(2);
            if i % 2 == 0 {
                let mask = rng.next_u64() & 0xff | 1;
                CReq {
                    addr: word,
                    write: true,
                    data: rng.next_u64(),
                    mask,
                    size: 3,
                }
            } else {
                read(word)
            }
        })
        .collect();
    let (mut wants, mut got) = (std::collections::VecDeque::new(), 0);
    for (i, r) in reqs.iter().enumerate() {
        let (accepted, resp) = b.cycle(Some(r), false);
        assert!(accepted, "request {i} ({r:x?}) waited");
        if let Some(d) = resp {
            assert_eq!(Some(d), wants.pop_front(), "read answered at request {i}");
            got += 1;
        }
        if r.write {
            b.apply(r);
        } else {
            wants.push_back(b.expect(r.addr));
        }
    }
    let (_, resp) = b.cycle(None, false);
    assert_eq!(resp, wants.pop_front());
    assert_eq!(
        got + 1,
        16,
        "every read answered the cycle after it was accepted"
    );
    b.drain_and_compare();
}

/// Read hits answer the cycle after they are accepted, one per cycle back to back. On the
/// 8 x 4 x 64 B shape with SRAM macros of `cache_matches_a_flat_memory` (one model build
/// for both).
#[test]
fn cache_hits_take_one_cycle_back_to_back() {
    let line = BASE + 0x400;
    let mut b = cache_with_line_in((8, 4, 64), false, 10, line);
    let reads_before = b.mem.stats().reads;
    // 32 reads over the line's 8 doublewords, offered every cycle.
    let addrs: Vec<u64> = (0..32).map(|i| line + 8 * ((i * 5) % 8)).collect();
    let (mut next, mut got) = (0, 0);
    for cycle in 0..33 {
        let req = addrs.get(next).map(|&a| read(a));
        let (a, r) = b.cycle(req.as_ref(), false);
        if let Some(d) = r {
            assert_eq!(d, b.expect(addrs[got]), "hit {got}");
            got += 1;
        }
        assert_eq!(
            got, cycle,
            "cycle {cycle}: a hit answers the cycle after it is accepted"
        );
        if a {
            next += 1;
        } else {
            assert_eq!(
                next, 32,
                "cycle {cycle}: a hit streams one request per cycle"
            );
        }
    }
    assert_eq!(got, 32);
    assert_eq!(
        b.mem.stats().reads,
        reads_before,
        "hits do not touch memory"
    );
}

// ---------------------------------------------------------------- memory arbiter

/// Three clients (the tile's I-side, D-side and accelerator) with random traffic through
/// the arbiter to a tagged memory model: every response reaches the client that asked,
/// in its order, with the data of a flat reference memory; and no client waits while
/// more than the other clients' worth of grants go by (round robin).
#[test]
fn arbiter_routes_by_tag_and_is_fair() {
    use generators::rocket::mem_arbiter::mem_arbiter;
    const CLIENTS: usize = 3;
    let mut m = model(&mem_arbiter(CLIENTS as u32).unwrap());
    for (seed, latency, stall) in [(1u64, 1u32, 0u32), (2, 10, 30), (3, 100, 20)] {
        restart(&mut m, seed);
        let port = MemPort {
            resp_ready: None,
            ..MemPort::decoupled("mem", true)
        };
        let config = MemConfig {
            latency,
            jitter: latency / 3,
            stall_percent: stall,
            seed,
            ..MemConfig::default()
        };
        let mut mem = MemoryModel::new(config, vec![port]).unwrap();
        let mut flat: HashMap<u64, u8> = HashMap::new();
        let mut rng = Rng::new(seed);
        let mut offered: [Option<CReq>; CLIENTS] = [None; CLIENTS];
        let mut pending: [std::collections::VecDeque<(CReq, u64)>; CLIENTS] = Default::default();
        // Grants to others since each client's request became valid.
        let mut waited = [0usize; CLIENTS];
        let mut checked = [0usize; CLIENTS];
        let per_client = if latency == 100 { 150 } else { 600 };
        let mut issued = [0usize; CLIENTS];
        for cycle in 0..2_000_000u64 {
            if issued.iter().all(|&n| n == per_client) && pending.iter().all(|p| p.is_empty()) {
                break;
            }
            for c in 0..CLIENTS {
                if offered[c].is_none() && issued[c] < per_client && rng.chance(60) {
                    // Clients share a 256-byte window, so their writes and reads interleave.
                    let mut r = cache_request(&mut rng, 256);
                    r.addr = BASE + (r.addr - BASE) % 256;
                    offered[c] = Some(r);
                }
                let p = |f: &str| format!("c{c}_req_{f}");
                m.poke_u64(&p("valid"), offered[c].is_some() as u64)
                    .unwrap();
                if let Some(r) = offered[c] {
                    m.poke_u64(&p("bits_addr"), r.addr).unwrap();
                    m.poke_u64(&p("bits_write"), r.write as u64).unwrap();
                    m.poke_u64(&p("bits_data"), r.data).unwrap();
                    m.poke_u64(&p("bits_mask"), r.mask).unwrap();
                    m.poke_u64(&p("bits_size"), r.size).unwrap();
                }
            }
            mem.tick(&mut m).unwrap();
            let mut granted = None;
            for c in 0..CLIENTS {
                if m.peek_u64(&format!("c{c}_resp_valid")).unwrap() == 1 {
                    let got = m.peek_u64(&format!("c{c}_resp_bits_data")).unwrap();
                    let (r, want) = pending[c].pop_front().unwrap_or_else(|| {
                        panic!("cycle {cycle}: client {c} got a stray response")
                    });
                    if !r.write {
                        assert_eq!(got, want, "cycle {cycle}: client {c} read {r:x?}");
                        checked[c] += 1;
                    }
                }
                let Some(r) = offered[c] else { continue };
                if m.peek_u64(&format!("c{c}_req_ready")).unwrap() == 1 {
                    assert!(granted.is_none(), "cycle {cycle}: two grants");
                    granted = Some(c);
                    let want = (0..8).fold(0u64, |v, i| {
                        let a = (r.addr & !7) + i;
                        v | (*flat.get(&a).unwrap_or(&0) as u64) << (8 * i)
                    });
                    if r.write {
                        for i in 0..8 {
                            if r.mask >> i & 1 == 1 {
                                flat.insert((r.addr & !7) + i, (r.data >> (8 * i)) as u8);
                            }
                        }
                    }
                    pending[c].push_back((r, want));
                    offered[c] = None;
                    issued[c] += 1;
                }
            }
            if let Some(g) = granted {
                waited[g] = 0;
                for c in (0..CLIENTS).filter(|&c| c != g && offered[c].is_some()) {
                    waited[c] += 1;
                    assert!(waited[c] < CLIENTS, "cycle {cycle}: client {c} starves");
                }
            }
            m.step();
        }
        assert_eq!(
            issued, [per_client; CLIENTS],
            "latency {latency}: traffic finished"
        );
        assert!(pending.iter().all(|p| p.is_empty()));
        assert!(
            checked.iter().all(|&n| n > per_client / 3),
            "{checked:?} reads checked"
        );
    }
}
