//! The FMA unit (`fpu-fma`) against Berkeley SoftFloat (RISC-V specialization): every
//! operation (fmadd, fmsub, fnmsub, fnmadd, add, sub, mul) in half, single and double and
//! every rounding mode, on corner triples (TestFloat's special values) and on random
//! operands biased to cancellation, ties, and products at the overflow and underflow
//! boundaries with tiny addends; results and flags bit-exact. Operations go in back to
//! back (with occasional bubbles) and come out exactly `latency` cycles later. The IR
//! simulator runs every stage count 1..=5 of the scalar units and of the packed unit;
//! Verilator runs the packed unit (whose lanes are the scalar units' modules) with more
//! vectors (36,000 per format) and the three scalar formats in one wrapper (as many);
//! `ACCELGEN_LONG=1` runs 10^7 vectors per operation and format in each. bfloat16, which
//! SoftFloat lacks, is checked against SoftFloat's binary64 rounded to odd and rounded
//! again here.

mod fp_rig;

use fp_rig::*;
use generators::fpu::fma::{fma, latency, op, MAX_STAGES, MIN_STAGES};
use generators::fpu::packed_fma::{fmt as fmt_code, packed_fma};
use hdl::{Design, ModuleBuilder};
use std::rc::Rc;
use verification::rng::Rng;
use verification::simulator::Simulator;
use verification::verilator::{Model, Options};

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// Every `op` encoding and the reference operation it computes.
const OPS: [(u64, Op); 8] = [
    (
        op::FMADD,
        Op::Fma {
            negate_product: false,
            negate_addend: false,
        },
    ),
    (
        op::FMSUB,
        Op::Fma {
            negate_product: false,
            negate_addend: true,
        },
    ),
    (
        op::FNMSUB,
        Op::Fma {
            negate_product: true,
            negate_addend: false,
        },
    ),
    (
        op::FNMADD,
        Op::Fma {
            negate_product: true,
            negate_addend: true,
        },
    ),
    (op::ADD, Op::Add),
    (op::SUB, Op::Sub),
    (op::MUL, Op::Mul),
    (op::MUL_ALT, Op::Mul),
];

/// One operation of one format with its reference outcome.
#[derive(Clone, Copy, Debug)]
struct Vector {
    fmt: Fmt,
    op: u64,
    rm: u32,
    x: [u64; 3],
    want: (u64, u8),
}

/// `per_mode` random tuples (half of them `fma_operands`' rounding decisions for the
/// fused forms) and `corner` corner triples for every operation and rounding mode of `f`,
/// with their reference outcomes, shuffled so that neighbours differ.
fn vectors(f: Fmt, seed: u64, per_mode: usize, corner: usize) -> Vec<Vector> {
    let mut rng = Rng::new(seed);
    let cs = corners(f);
    let mut out = Vec::new();
    for (code, o) in OPS {
        let operation = Operation::of(o, f);
        for rm in 0..5 {
            let fused = matches!(o, Op::Fma { .. });
            let mut tuples: Vec<[u64; 3]> = (0..per_mode)
                .map(|k| match k % 2 {
                    1 if fused => fma_operands(&mut rng, f),
                    _ => operands(&mut rng, &operation),
                })
                .collect();
            tuples.extend((0..corner).map(|_| [0; 3].map(|_| *rng.pick(&cs))));
            let want = reference(&operation, rm, &tuples);
            out.extend(tuples.iter().zip(want).map(|(x, want)| Vector {
                fmt: f,
                op: code,
                rm,
                x: *x,
                want,
            }));
        }
    }
    shuffle(&mut rng, &mut out);
    out
}

fn shuffle<T>(rng: &mut Rng, v: &mut [T]) {
    for i in (1..v.len()).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
}

/// What one cycle presents at the inputs and expects `latency` cycles later.
struct Beat {
    /// Port-name prefixes of the units that take an operation.
    units: Vec<String>,
    pokes: Vec<(String, u64)>,
    /// Output port and value.
    want: Vec<(String, u64)>,
    what: String,
}

fn describe(v: &Vector) -> String {
    format!(
        "{:?} op {} rm {} a {:#x} b {:#x} c {:#x}: want {:#x} {}",
        v.fmt,
        v.op,
        v.rm,
        v.x[0],
        v.x[1],
        v.x[2],
        v.want.0,
        flag_names(v.want.1)
    )
}

/// A beat of a scalar unit whose ports carry `prefix`.
fn scalar_beat(prefix: &str, v: &Vector) -> Beat {
    let port = |n: &str| format!("{prefix}{n}");
    Beat {
        units: vec![prefix.to_string()],
        pokes: vec![
            (port("rm"), v.rm as u64),
            (port("op"), v.op),
            (port("a"), v.x[0]),
            (port("b"), v.x[1]),
            (port("c"), v.x[2]),
        ],
        want: vec![(port("result"), v.want.0), (port("flags"), v.want.1 as u64)],
        what: describe(v),
    }
}

/// A beat of the packed unit: lanes of one format, in the same operation and mode.
fn packed_beat(lanes: &[Vector]) -> Beat {
    let f = lanes[0].fmt;
    let w = f.bits();
    let join = |get: &dyn Fn(&Vector) -> u64| {
        lanes.iter().enumerate().fold(0u64, |acc, (k, v)| {
            acc | (get(v) & f.mask()) << (k as u32 * w)
        })
    };
    let code = match f {
        Fmt::H => fmt_code::H,
        Fmt::S => fmt_code::S,
        Fmt::D => fmt_code::D,
    };
    Beat {
        units: vec![String::new()],
        pokes: vec![
            ("fmt".into(), code),
            ("rm".into(), lanes[0].rm as u64),
            ("op".into(), lanes[0].op),
            ("a".into(), join(&|v| v.x[0])),
            ("b".into(), join(&|v| v.x[1])),
            ("c".into(), join(&|v| v.x[2])),
        ],
        want: vec![
            ("result".into(), join(&|v| v.want.0)),
            (
                "flags".into(),
                lanes.iter().fold(0, |acc, v| acc | v.want.1) as u64,
            ),
        ],
        what: lanes.iter().map(describe).collect::<Vec<_>>().join("\n  "),
    }
}

/// Packed beats from vectors of several formats: lanes of one format share the
/// operation and rounding mode, so vectors are grouped by them first.
fn packed_beats(vs: &[Vector]) -> Vec<Beat> {
    let mut groups: std::collections::BTreeMap<(u32, u64, u32), Vec<Vector>> = Default::default();
    for v in vs {
        groups
            .entry((v.fmt.bits(), v.op, v.rm))
            .or_default()
            .push(*v);
    }
    let mut beats: Vec<Beat> = groups
        .values()
        .flat_map(|g| {
            let n = 64 / g[0].fmt.bits() as usize;
            g.chunks_exact(n).map(packed_beat).collect::<Vec<_>>()
        })
        .collect();
    shuffle(&mut Rng::new(vs.len() as u64), &mut beats);
    beats
}

/// One beat of several units (whose ports have distinct prefixes).
fn merge(beats: Vec<Beat>) -> Beat {
    beats.into_iter().fold(
        Beat {
            units: vec![],
            pokes: vec![],
            want: vec![],
            what: String::new(),
        },
        |mut acc, b| {
            acc.units.extend(b.units);
            acc.pokes.extend(b.pokes);
            acc.want.extend(b.want);
            acc.what = format!("{}\n  {}", acc.what, b.what);
            acc
        },
    )
}

/// Drives `beats` into `sim` (whose units have the port prefixes `units`) one per cycle
/// with a bubble every seventh cycle, and checks each one's outputs `latency` cycles
/// later and every unit's `out_valid` every cycle.
fn run<S: Simulator>(sim: &mut S, units: &[&str], latency: u32, beats: &[Beat], ctx: &str) {
    sim.poke_u64("reset", 1).unwrap();
    sim.step();
    sim.poke_u64("reset", 0).unwrap();
    let mut in_flight: std::collections::VecDeque<Option<&Beat>> =
        std::iter::repeat_n(None, latency as usize - 1).collect();
    let mut next = beats.iter().peekable();
    let mut failures = Vec::new();
    let mut cycle = 0u64;
    while next.peek().is_some() || in_flight.iter().any(Option::is_some) {
        cycle += 1;
        let beat = if cycle.is_multiple_of(7) {
            None
        } else {
            next.next()
        };
        for u in units {
            let on = beat.is_some_and(|b| b.units.iter().any(|x| x == u));
            sim.poke_u64(&format!("{u}in_valid"), on as u64).unwrap();
        }
        for (port, v) in beat.iter().flat_map(|b| &b.pokes) {
            sim.poke_u64(port, *v).unwrap();
        }
        sim.step();
        in_flight.push_back(beat);
        let done = in_flight.pop_front().unwrap();
        for u in units {
            let want = done.is_some_and(|b| b.units.iter().any(|x| x == u));
            let valid = sim.peek_u64(&format!("{u}out_valid")).unwrap();
            assert_eq!(valid, want as u64, "{ctx}: {u}out_valid at cycle {cycle}");
        }
        let Some(b) = done else { continue };
        let got: Vec<u64> = b
            .want
            .iter()
            .map(|(p, _)| sim.peek_u64(p).unwrap())
            .collect();
        if got.iter().zip(&b.want).any(|(g, (_, w))| g != w) && failures.len() < 10 {
            failures.push(format!("{}\n  got {got:#x?}", b.what));
        }
    }
    assert!(
        failures.is_empty(),
        "{ctx}: mismatches (first 10):\n{}",
        failures.join("\n")
    );
}

fn ir_sim(top: &Rc<hdl::Module>) -> hdl::sim::Sim {
    hdl::sim::Sim::new(&Design::new(top))
}

#[test]
fn scalar_units_match_softfloat_at_every_stage_count_in_the_ir_simulator() {
    for f in Fmt::ALL {
        for stages in MIN_STAGES..=MAX_STAGES {
            let vs = vectors(f, 1000 + stages as u64, 10, 10);
            let beats: Vec<Beat> = vs.iter().map(|v| scalar_beat("", v)).collect();
            let top = fma(f.format(), stages).unwrap();
            let ctx = format!("{f:?} stages {stages}");
            run(&mut ir_sim(&top), &[""], latency(stages), &beats, &ctx);
        }
    }
}

#[test]
fn packed_unit_matches_softfloat_lane_by_lane_at_every_stage_count_in_the_ir_simulator() {
    for stages in MIN_STAGES..=MAX_STAGES {
        let vs: Vec<Vector> = Fmt::ALL
            .iter()
            .flat_map(|&f| vectors(f, 2000 + stages as u64, 8, 8))
            .collect();
        let beats = packed_beats(&vs);
        let top = packed_fma(stages).unwrap();
        let ctx = format!("packed stages {stages}");
        run(&mut ir_sim(&top), &[""], latency(stages), &beats, &ctx);
    }
}

/// The port prefix of a format's unit in `triple`.
fn prefix(f: Fmt) -> String {
    format!("{}_", format!("{f:?}").to_lowercase())
}

/// The three scalar units (half, single, double) of `stages` stages side by side, their
/// ports prefixed `h_`, `s_`, `d_`: one Verilator model for all formats.
fn triple(stages: u32) -> Rc<hdl::Module> {
    let mut m = ModuleBuilder::new(&format!("FmaTriple_s{stages}"));
    for f in Fmt::ALL {
        let unit = fma(f.format(), stages).unwrap();
        let inst = m.instance(&format!("fma_{}", prefix(f)), &unit);
        for (name, dir, width) in [
            ("in_valid", true, 1),
            ("rm", true, 3),
            ("op", true, 3),
            ("a", true, f.bits()),
            ("b", true, f.bits()),
            ("c", true, f.bits()),
            ("out_valid", false, 1),
            ("result", false, f.bits()),
            ("flags", false, 5),
        ] {
            let port = format!("{}{name}", prefix(f));
            if dir {
                let p = m.input(&port, width);
                m.connect(&inst.port(name), &p);
            } else {
                let p = m.output(&port, width);
                m.connect(&p, &inst.port(name));
            }
        }
    }
    m.finish().unwrap()
}

/// Verilator's vectors per round, operation, rounding mode and format (random, corner),
/// and the rounds: 900 per operation, mode and format (36,000 per format); 10^7 per
/// operation and format with `ACCELGEN_LONG=1`.
fn verilator_rounds() -> (usize, usize, u64) {
    let rounds = if long() {
        10_000_000 / (5 * 900) + 1
    } else {
        1
    };
    (600, 300, rounds)
}

/// A line every 100 rounds of a long run.
fn progress(ctx: &str, round: u64, rounds: u64) {
    if rounds > 1 && round % 100 == 99 {
        eprintln!("{ctx} of {rounds} passed");
    }
}

#[test]
fn scalar_units_match_softfloat_in_verilator() {
    let stages = 2;
    let mut dut = Model::of_design(&Design::new(&triple(stages)), &Options::default()).unwrap();
    let units: Vec<String> = Fmt::ALL.iter().map(|&f| prefix(f)).collect();
    let units: Vec<&str> = units.iter().map(String::as_str).collect();
    let (random, corner, rounds) = verilator_rounds();
    for round in 0..rounds {
        let per_format: Vec<Vec<Beat>> = Fmt::ALL
            .iter()
            .map(|&f| {
                let vs = vectors(f, 3000 + round, random, corner);
                vs.iter().map(|v| scalar_beat(&prefix(f), v)).collect()
            })
            .collect();
        // The three units work at once, each on its own stream.
        let n = per_format.iter().map(Vec::len).max().unwrap();
        let mut streams: Vec<_> = per_format.into_iter().map(Vec::into_iter).collect();
        let beats: Vec<Beat> = (0..n)
            .map(|_| merge(streams.iter_mut().filter_map(Iterator::next).collect()))
            .collect();
        let ctx = format!("verilator triple, round {round}");
        run(&mut dut, &units, latency(stages), &beats, &ctx);
        progress(&ctx, round, rounds);
    }
}

#[test]
fn packed_unit_matches_softfloat_lane_by_lane_in_verilator() {
    let stages = MAX_STAGES;
    let top = packed_fma(stages).unwrap();
    let mut dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
    let (random, corner, rounds) = verilator_rounds();
    for round in 0..rounds {
        let vs: Vec<Vector> = Fmt::ALL
            .iter()
            .flat_map(|&f| vectors(f, 4000 + round, random, corner))
            .collect();
        let ctx = format!("verilator packed, round {round}");
        run(&mut dut, &[""], latency(stages), &packed_beats(&vs), &ctx);
        progress(&ctx, round, rounds);
    }
}

/// The rules the unit must get right, written out (binary32): each case's expected
/// outcome is checked against SoftFloat too, then run through the unit.
#[test]
fn ieee_zero_signs_invalid_cases_and_overflow_by_hand() {
    const ONE: u64 = 0x3f80_0000;
    const NEG_ONE: u64 = 0xbf80_0000;
    const NEG_ZERO: u64 = 0x8000_0000;
    const INF: u64 = 0x7f80_0000;
    const QNAN: u64 = 0x7fc1_2345;
    const SNAN: u64 = 0x7f81_2345;
    const MAX: u64 = 0x7f7f_ffff;
    const TWO: u64 = 0x4000_0000;
    const NAN: u64 = 0x7fc0_0000;
    let (nv, of, nx) = (fflags::NV, fflags::OF, fflags::NX);
    let rne = 0;
    let cases: [(u64, u32, [u64; 3], u64, u8); 13] = [
        // x + (-x) is +0, but -0 when rounding down.
        (op::ADD, rne, [ONE, NEG_ONE, 0], 0, 0),
        (op::ADD, 2, [ONE, NEG_ONE, 0], NEG_ZERO, 0),
        (op::FMADD, rne, [ONE, ONE, NEG_ONE], 0, 0),
        // A zero product plus a zero addend: the sign of the exact sum.
        (op::FMADD, rne, [0, NEG_ONE, NEG_ZERO], NEG_ZERO, 0),
        (op::FMADD, rne, [0, NEG_ONE, 0], 0, 0),
        (op::FMADD, 2, [0, NEG_ONE, 0], NEG_ZERO, 0),
        // mul keeps the sign of a zero product in every mode.
        (op::MUL, rne, [TWO | NEG_ZERO, 0, 0], NEG_ZERO, 0),
        (op::MUL, 3, [NEG_ZERO, NEG_ZERO, NEG_ONE], 0, 0),
        // inf * 0 is invalid even with a quiet NaN addend; inf - inf is invalid.
        (op::FMADD, rne, [INF, 0, QNAN], NAN, nv),
        (op::FMADD, rne, [INF, ONE, INF | NEG_ZERO], NAN, nv),
        // A signaling NaN addend of a finite product.
        (op::FNMSUB, rne, [ONE, ONE, SNAN], NAN, nv),
        // The product overflows; the tiny addend does not save it.
        (op::FMADD, rne, [MAX, TWO, 1], INF, of | nx),
        (op::FMADD, 1, [MAX, TWO, 1], MAX, of | nx),
    ];
    let vs: Vec<Vector> = cases
        .iter()
        .map(|&(code, rm, x, result, flags)| {
            let o = OPS.iter().find(|(c, _)| *c == code).unwrap().1;
            let got = reference(&Operation::of(o, Fmt::S), rm, &[x])[0];
            assert_eq!(
                got,
                (result, flags),
                "SoftFloat disagrees: op {code} {x:#x?}"
            );
            Vector {
                fmt: Fmt::S,
                op: code,
                rm,
                x,
                want: (result, flags),
            }
        })
        .collect();
    let beats: Vec<Beat> = vs.iter().map(|v| scalar_beat("", v)).collect();
    let top = fma(Fmt::S.format(), 1).unwrap();
    run(&mut ir_sim(&top), &[""], latency(1), &beats, "by hand");
}

// ---------------------------------------------------------------------------------------
// bfloat16, which SoftFloat lacks: the operation in binary64 rounded to odd (exact for
// every finite bfloat16 product and, with 53 >= 8 + 2 bits, a faithful stand-in for
// the exact sum: rounding it again to 8 bits gives the correctly rounded result and
// tininess), then rounded to bfloat16 here.

mod bf16 {
    use super::fp_rig::{fflags, SOFTFLOAT};
    use generators::fpu::fma::op;
    use softfloat_sys::{float32_t, float64_t};

    const ROUND_ODD: u8 = softfloat_sys::softfloat_round_odd;

    /// `op` on bfloat16 operands `x` in RISC-V mode `rm`: result bits and flags.
    pub fn reference(code: u64, rm: u32, x: [u64; 3]) -> (u64, u8) {
        let _softfloat = SOFTFLOAT.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: SoftFloat's C state is only touched under the lock.
        unsafe {
            softfloat_sys::softfloat_exceptionFlags_write_helper(0);
            let wide = |v: u64| {
                softfloat_sys::f32_to_f64(float32_t {
                    v: (v as u32) << 16,
                })
            };
            // Widening is exact but for NV from a signaling NaN: only the sources read.
            let c = wide(x[2]);
            if code >= op::ADD {
                softfloat_sys::softfloat_exceptionFlags_write_helper(0);
            }
            let (a, b) = (wide(x[0]), wide(x[1]));
            let neg = |v: float64_t| float64_t { v: v.v ^ 1 << 63 };
            let compute = |mode: u8| {
                softfloat_sys::softfloat_roundingMode_write_helper(mode);
                match code {
                    op::ADD => softfloat_sys::f64_add(a, b),
                    op::SUB => softfloat_sys::f64_sub(a, b),
                    op::MUL | op::MUL_ALT => softfloat_sys::f64_mul(a, b),
                    _ => {
                        let a = if code & 2 != 0 { neg(a) } else { a };
                        let c = if code & 1 != 0 { neg(c) } else { c };
                        softfloat_sys::f64_mulAdd(a, b, c)
                    }
                }
            };
            let odd = compute(ROUND_ODD).v;
            let flags = softfloat_sys::softfloat_exceptionFlags_read_helper();
            // An exact zero takes its sign from the real mode.
            let zero = compute(super::rounding_mode_code(rm)).v;
            let nv = if flags & softfloat_sys::softfloat_flag_invalid != 0 {
                fflags::NV
            } else {
                0
            };
            let inexact = flags & softfloat_sys::softfloat_flag_inexact != 0;
            if odd << 1 == 0 {
                return (zero >> 48, nv);
            }
            round(odd, inexact, rm, nv)
        }
    }

    /// The binary64 value `v` (rounded to odd; `inexact` if it was) rounded to bfloat16.
    fn round(v: u64, inexact: bool, rm: u32, nv: u8) -> (u64, u8) {
        let sign = v >> 63;
        let exp = ((v >> 52) & 0x7ff) as i64;
        if exp == 0x7ff {
            let nan = v << 12 != 0;
            return (if nan { 0x7fc0 } else { sign << 15 | 0x7f80 }, nv);
        }
        // Every finite bfloat16 result is a normal binary64.
        let e = exp - 1023;
        let sig = v & ((1 << 52) - 1) | 1 << 52;
        let (emin, emax) = (-126i64, 127i64);
        let up = |sig: u64, shift: u32| -> (u64, bool) {
            let kept = if shift >= 64 { 0 } else { sig >> shift };
            let rest = if shift >= 64 {
                sig
            } else {
                sig & ((1 << shift) - 1)
            };
            let half = 1u64 << (shift.min(64) - 1);
            let inexact = rest != 0;
            let more = match rm {
                0 => rest > half || (rest == half && kept & 1 == 1),
                1 => false,
                2 => sign == 1 && inexact,
                3 => sign == 0 && inexact,
                _ => rest >= half,
            };
            (kept + more as u64, inexact)
        };
        // Tininess after rounding: the result rounded to 8 bits, exponent unbounded.
        let (unbounded, _) = up(sig, 45);
        let tiny = e < emin && !(e == emin - 1 && unbounded == 1 << 8);
        let shift = 45 + (emin - e).max(0) as u32;
        let (kept, lost) = up(sig, shift.min(64));
        let inexact = inexact || lost;
        // `kept` carries into the exponent field by itself.
        let biased = if e < emin { 0 } else { e + 127 - 1 } as u64;
        let bits = (biased << 7) + kept;
        let of = e > emax || bits >= 0xff << 7;
        let (mut f, mut out) = (nv, sign << 15 | bits);
        if of {
            let largest = matches!((rm, sign), (1, _) | (2, 0) | (3, 1));
            out = sign << 15 | if largest { 0x7f7f } else { 0x7f80 };
            f |= fflags::OF | fflags::NX;
        }
        if inexact {
            f |= fflags::NX | if tiny { fflags::UF } else { 0 };
        }
        (out, f)
    }
}

/// SoftFloat's encoding of RISC-V rounding mode `rm`.
fn rounding_mode_code(rm: u32) -> u8 {
    use softfloat_sys::*;
    [
        softfloat_round_near_even,
        softfloat_round_minMag,
        softfloat_round_min,
        softfloat_round_max,
        softfloat_round_near_maxMag,
    ][rm as usize]
}

/// Random bfloat16 operands: the binary32 generators' values cut to their top half
/// (same exponent range), specials and corners included.
#[test]
fn bfloat16_unit_matches_a_round_to_odd_reference_in_the_ir_simulator() {
    let mut rng = Rng::new(5000);
    let cs = corners(Fmt::S);
    let mut vs = Vec::new();
    for (code, _) in OPS {
        for rm in 0..5 {
            for k in 0..60 {
                let x = match k % 3 {
                    0 => [0; 3].map(|_| *rng.pick(&cs)),
                    1 => fma_operands(&mut rng, Fmt::S),
                    _ => operands(&mut rng, &Operation::of(Op::Add, Fmt::S)),
                }
                .map(|v| v >> 16);
                vs.push(Vector {
                    // Only failure messages read the format: 16 bits wide.
                    fmt: Fmt::H,
                    op: code,
                    rm,
                    x,
                    want: bf16::reference(code, rm, x),
                });
            }
        }
    }
    let beats: Vec<Beat> = vs.iter().map(|v| scalar_beat("", v)).collect();
    let top = fma(generators::fpu::BFLOAT16, 2).unwrap();
    run(&mut ir_sim(&top), &[""], latency(2), &beats, "bfloat16");
}
