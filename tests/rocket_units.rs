//! Units of the `rocket` tile under Verilator, each against a Rust reference written from
//! the specification: the multiply/divide unit (RISC-V M arithmetic), the branch
//! predictors (2-bit counter tables) and the L1 cache (a flat memory).

use generators::rocket::muldiv::muldiv;
use generators::rocket::params::{MulDivParams, MulKind};
use hdl::Design;
use verification::rng::Rng;
use verification::verilator::{Model, Options};

fn model(top: &std::rc::Rc<hdl::Module>) -> Model {
    Model::of_design(&Design::new(top), &Options::default()).unwrap()
}

fn reset(m: &mut Model) {
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
    reset(m);
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
    reset(m);
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

fn shapes() -> Vec<MulDivParams> {
    let it = |mb, db| MulDivParams {
        mul: MulKind::Iterative,
        mul_bits_per_cycle: mb,
        mul_stages: 1,
        div_bits_per_cycle: db,
    };
    let pipe = |stages, db| MulDivParams {
        mul: MulKind::Pipelined,
        mul_bits_per_cycle: 1,
        mul_stages: stages,
        div_bits_per_cycle: db,
    };
    vec![it(1, 1), it(8, 2), it(64, 4), pipe(1, 1), pipe(3, 4)]
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

/// A pipelined multiplier takes one multiply per cycle while results are taken.
#[test]
fn pipelined_multiplier_takes_one_per_cycle() {
    for stages in [1, 3] {
        let p = MulDivParams {
            mul: MulKind::Pipelined,
            mul_bits_per_cycle: 1,
            mul_stages: stages,
            div_bits_per_cycle: 1,
        };
        let mut m = model(&muldiv(&p).unwrap());
        reset(&mut m);
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
