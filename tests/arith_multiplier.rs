//! The multiplier generator (`generators::arith`) against a schoolbook product computed
//! here on 64-bit words (independent of the generator): corner operands (0, 1, -1, MIN,
//! MAX, alternating bits) and random ones, streamed back to back with random stalls of
//! `advance`, at operand widths 1..=65 and a few wider, signed, unsigned and mixed, with
//! 0..=4 stages in the IR simulator and a few configurations in Verilator, both from
//! random initial register values (the cut registers have no reset).
//! `ACCELGEN_LONG=1` crosses every pair of widths 1..=65.

use generators::arith::{multiplier_module, MultiplierParams};
use hdl::{Bits, Design};
use std::collections::VecDeque;
use verification::rng::Rng;
use verification::simulator::Simulator;

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// `x` of `width` bits extended to `to` bits (sign-extended when `signed`), as words.
fn extend(x: &Bits, signed: bool, to: u32) -> Vec<u64> {
    let fill = signed && x.bit(x.width() - 1);
    let words = hdl::bits::words_for(to);
    (0..words)
        .map(|i| {
            let lo = 64 * i as u32;
            (0..64)
                .map(|j| lo + j)
                .filter(|&b| b < to && if b < x.width() { x.bit(b) } else { fill })
                .fold(0u64, |acc, b| acc | 1 << (b - lo))
        })
        .collect()
}

/// The product of `a` and `b` modulo 2^width: both extended to `width` bits, then the
/// schoolbook product of their words.
fn reference(a: &Bits, sa: bool, b: &Bits, sb: bool) -> Bits {
    let width = a.width() + b.width();
    let (x, y) = (extend(a, sa, width), extend(b, sb, width));
    let mut acc = vec![0u64; x.len()];
    for (i, &xi) in x.iter().enumerate() {
        let mut carry = 0u128;
        for (j, &yj) in y.iter().enumerate().take(x.len() - i) {
            let t = acc[i + j] as u128 + xi as u128 * yj as u128 + carry;
            acc[i + j] = t as u64;
            carry = t >> 64;
        }
    }
    Bits::from_words(width, &acc)
}

/// The corner operands of `width` bits: 0, 1, all ones (-1), MIN (the top bit alone),
/// MAX (all but the top bit) and the two alternating patterns.
fn corners(width: u32) -> Vec<Bits> {
    let words = hdl::bits::words_for(width);
    let top = |w: &mut Vec<u64>, set: bool| {
        let (i, bit) = (((width - 1) / 64) as usize, 1u64 << ((width - 1) % 64));
        w[i] = if set { w[i] | bit } else { w[i] & !bit };
    };
    let (mut min, mut max) = (vec![0u64; words], vec![u64::MAX; words]);
    top(&mut min, true);
    top(&mut max, false);
    [min, max, vec![0], vec![1], vec![u64::MAX; words]]
        .iter()
        .chain(&[
            vec![0x5555_5555_5555_5555; words],
            vec![0xaaaa_aaaa_aaaa_aaaa; words],
        ])
        .map(|w| Bits::from_words(width, w))
        .collect()
}

fn random(width: u32, rng: &mut Rng) -> Bits {
    let w: Vec<u64> = (0..hdl::bits::words_for(width))
        .map(|_| rng.next_u64())
        .collect();
    Bits::from_words(width, &w)
}

/// Every pair of corners, then `n` random pairs, streamed through `sim` (the multiplier
/// of `p`) one per cycle while `advance` is high (low about a quarter of the cycles when
/// `stall`), checking `p` each cycle against the product `p.stages` accepted pairs
/// earlier.
fn stream<S: Simulator>(sim: &mut S, p: &MultiplierParams, seed: u64, n: usize, stall: bool) {
    let mut rng = Rng::new(seed);
    let mut pairs: Vec<(Bits, Bits)> = corners(p.a_width)
        .into_iter()
        .flat_map(|x| corners(p.b_width).into_iter().map(move |y| (x.clone(), y)))
        .collect();
    for _ in 0..n {
        pairs.push((random(p.a_width, &mut rng), random(p.b_width, &mut rng)));
    }
    let mut pipe: VecDeque<Option<Bits>> = (0..p.stages).map(|_| None).collect();
    if p.stages > 0 {
        sim.poke_u64("reset", 1).expect("reset");
        sim.step();
        sim.poke_u64("reset", 0).expect("reset");
    }
    let mut i = 0;
    let mut checked = 0;
    while i < pairs.len() {
        let (x, y) = &pairs[i];
        let advance = !(stall && rng.chance(25));
        sim.poke("a", x).expect("a");
        sim.poke("b", y).expect("b");
        sim.poke_u64("advance", advance as u64).expect("advance");
        let product = reference(x, p.a_signed, y, p.b_signed);
        let want = if p.stages == 0 {
            Some(product.clone())
        } else {
            pipe.front().cloned().flatten()
        };
        if let Some(want) = want {
            let got = sim.peek("p").expect("p");
            assert_eq!(got, want, "{p:?}: cycle {}, pair {i}", sim.cycle());
            checked += 1;
        }
        if advance {
            if p.stages > 0 {
                pipe.pop_front();
                pipe.push_back(Some(product));
            }
            i += 1;
        }
        sim.step();
    }
    assert!(
        checked + p.stages as usize >= pairs.len(),
        "{p:?}: too few checks"
    );
}

fn params(
    a_width: u32,
    b_width: u32,
    a_signed: bool,
    b_signed: bool,
    stages: u32,
) -> MultiplierParams {
    MultiplierParams {
        a_width,
        b_width,
        a_signed,
        b_signed,
        stages,
    }
}

fn check_ir(p: &MultiplierParams, seed: u64, n: usize) {
    let top = multiplier_module(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let init = hdl::sim::Init::Random { seed };
    let mut sim = hdl::sim::Sim::with_init(&Design::new(&top), init);
    stream(&mut sim, p, seed, n, p.stages > 0);
}

/// Every width 1..=65 against a partner width, every signedness and stage count in
/// turn; the long run crosses all pairs.
#[test]
fn multiplier_equals_reference_in_ir_simulator() {
    let mut rng = Rng::new(0x6d75_6c74);
    let mut k = 0u32;
    for wa in 1..=65 {
        let partners: Vec<u32> = if long() {
            (1..=65).collect()
        } else {
            vec![wa, rng.range(1, 65)]
        };
        for wb in partners {
            let (sa, sb) = (k & 1 != 0, k & 2 != 0);
            check_ir(&params(wa, wb, sa, sb, k % 5), k as u64, 40);
            k += 1;
        }
    }
}

/// The widths the designs use and a few wide ones, every signedness and stage count.
#[test]
fn multiplier_common_and_wide_shapes() {
    let shapes: &[(u32, u32)] = &[(64, 64), (65, 65), (53, 53), (32, 16), (113, 113), (7, 113)];
    for (s, &(wa, wb)) in shapes.iter().enumerate() {
        for mode in 0..4 {
            for stages in 0..=4 {
                let p = params(wa, wb, mode & 1 != 0, mode & 2 != 0, stages);
                check_ir(&p, (s * 20 + mode * 5) as u64 + stages as u64, 30);
            }
        }
    }
    // Deep pipelines of narrow operands register the product at the end.
    check_ir(&params(1, 1, true, false, 16), 1, 30);
    check_ir(&params(3, 2, true, true, 9), 2, 30);
}

/// A few configurations as Verilog in Verilator.
#[test]
fn multiplier_equals_reference_in_verilator() {
    use verification::verilator::{Model, Options};
    for p in [
        params(65, 65, true, true, 3),
        params(13, 47, true, false, 0),
        params(113, 113, false, true, 4),
    ] {
        let top = multiplier_module(&p).expect("valid");
        let mut model = Model::of_design(&Design::new(&top), &Options::default())
            .unwrap_or_else(|e| panic!("{p:?}: {e}"));
        stream(&mut model, &p, 7, 400, p.stages > 0);
    }
}

/// The registered design rejects bad parameters with an error naming them.
#[test]
fn multiplier_design_rejects_bad_parameters() {
    for (set, param) in [
        ("a_width = 0", "a_width"),
        ("b_width = 257", "b_width"),
        ("stages = 17", "stages"),
    ] {
        let table: toml::Table = set.parse().expect("toml");
        let err = match generators::elaborate("multiplier", &table) {
            Ok(_) => panic!("{set} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains(param), "{set}: {err}");
    }
    let table: toml::Table = "stages = 2\na_width = 24\nb_signed = false"
        .parse()
        .expect("toml");
    assert!(generators::elaborate("multiplier", &table).is_ok());
}

/// The planner's count of register bits (from the rows' spans, not the built rows) is
/// the module's, and more stages never make the depth between cuts larger.
#[test]
fn multiplier_plan_matches_the_built_registers() {
    use generators::arith::multiplier::plan;
    use hdl::ir::SigKind;
    for &(wa, wb, sa, sb) in &[
        (65, 65, true, true),
        (64, 64, false, false),
        (7, 30, true, false),
        (1, 5, false, true),
    ] {
        let mut last = u32::MAX;
        for stages in 0..=6 {
            let top = multiplier_module(&params(wa, wb, sa, sb, stages)).expect("valid");
            let bits: u32 = top
                .body
                .signals
                .iter()
                .filter(|s| matches!(s.kind, SigKind::Reg { .. }))
                .map(|s| s.width)
                .sum();
            let pl = plan((wa, sa), (wb, sb), stages);
            assert_eq!(bits, pl.register_bits, "{wa}x{wb} {stages} stages");
            assert!(pl.depth <= last, "{wa}x{wb}: deeper with {stages} stages");
            last = pl.depth;
            eprintln!(
                "{wa}x{wb} s{sa}{sb} stages {stages}: depth {}, {bits} register bits",
                pl.depth
            );
        }
    }
}
