//! The conversion unit (`generators::fpu::convert`, design `fpu-convert`) against
//! Berkeley SoftFloat (RISC-V specialization): float to float among binary16/32/64,
//! float to and from 32- and 64-bit signed and unsigned integers, and the packed pairs
//! lane by lane, bit-exact results (NaN-boxed floats, sign-extended 32-bit integers) and
//! flags in every rounding mode. The IR simulator runs every pipeline depth on corner
//! values and random operands, back to back; one Verilator model runs every corner value
//! in every mode and more random operands. `ACCELGEN_LONG=1` runs 10^7 random
//! operations per conversion on Verilator.

mod fp_rig;

use fp_rig::unit::{lint, long, run_mixed, Check, Vector};
use fp_rig::*;
use generators::fpu::convert::{convert, encode, fmt_code, int, kind, ConvertParams};
use hdl::Design;
use verification::rng::Rng;
use verification::simulator::Simulator;
use verification::verilator::{Model, Options};

fn code(f: Fmt) -> u64 {
    match f {
        Fmt::H => fmt_code::H,
        Fmt::S => fmt_code::S,
        Fmt::D => fmt_code::D,
    }
}

fn int_code(k: Int) -> u64 {
    match k {
        Int::W => int::W,
        Int::Wu => int::WU,
        Int::L => int::L,
        Int::Lu => int::LU,
    }
}

const INTS: [Int; 4] = [Int::W, Int::Wu, Int::L, Int::Lu];

/// One conversion the unit performs, with its reference.
#[derive(Clone, Copy, Debug)]
enum Conv {
    F2F(Fmt, Fmt),
    F2I(Fmt, Int),
    I2F(Int, Fmt),
    /// Packed float to float.
    Packed(Fmt, Fmt),
}

impl Conv {
    fn all() -> Vec<Conv> {
        let mut out = Vec::new();
        for src in Fmt::ALL {
            for dst in Fmt::ALL.into_iter().filter(|d| *d != src) {
                out.push(Conv::F2F(src, dst));
                out.push(Conv::Packed(src, dst));
            }
            for k in INTS {
                out.push(Conv::F2I(src, k));
                out.push(Conv::I2F(k, src));
            }
        }
        out
    }

    fn op(self) -> u64 {
        match self {
            Conv::F2F(s, d) => encode(kind::F2F, code(s), code(d), 0),
            Conv::Packed(s, d) => encode(kind::PACKED, code(s), code(d), 0),
            Conv::F2I(s, k) => encode(kind::F2I, code(s), 0, int_code(k)),
            Conv::I2F(k, d) => encode(kind::I2F, 0, code(d), int_code(k)),
        }
    }

    /// The float formats it involves.
    fn formats(self) -> Vec<Fmt> {
        match self {
            Conv::F2F(s, d) | Conv::Packed(s, d) => vec![s, d],
            Conv::F2I(f, _) | Conv::I2F(_, f) => vec![f],
        }
    }

    /// Whether this is binary16 <-> binary32 on two lanes.
    fn two_lanes(self) -> bool {
        matches!(self, Conv::Packed(s, d) if s.bits() + d.bits() == 48)
    }

    /// The scalar reference operation (lane 0's).
    fn scalar(self) -> Operation {
        match self {
            Conv::F2F(src, dst) | Conv::Packed(src, dst) => Operation {
                op: Op::Convert,
                dst,
                src,
            },
            Conv::F2I(f, k) => Operation::of(Op::ToInt(k), f),
            Conv::I2F(k, f) => Operation::of(Op::FromInt(k), f),
        }
    }

    /// Operands: corner values (of the float source, or integer boundaries) and random
    /// ones. Packed two-lane operands put a second value in lane 1.
    fn operands(self, random: usize, with_corners: bool, seed: u64) -> Vec<u64> {
        let o = self.scalar();
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        if with_corners {
            out = match self {
                Conv::I2F(..) => int_corners(),
                Conv::F2I(f, _) => corners(f).into_iter().chain(to_int_corners(f)).collect(),
                _ => corners(o.src),
            };
        }
        out.extend((0..random).map(|_| fp_rig::operands(&mut rng, &o)[0]));
        if self.two_lanes() {
            let w = o.src.bits();
            let pool = out.clone();
            for (k, x) in out.iter_mut().enumerate() {
                let other = if k % 2 == 0 {
                    pool[(k * 7 + 3) % pool.len()]
                } else {
                    fp_rig::operands(&mut rng, &o)[0]
                };
                *x |= other << w;
            }
        }
        out
    }

    /// The unit's expected 64-bit results and flags for `xs` in mode `rm`.
    fn expected(self, rm: u32, xs: &[u64]) -> Vec<(u64, u8)> {
        let o = self.scalar();
        let lane = |shift: u32| -> Vec<(u64, u8)> {
            // An integer operand is the whole register.
            let mask = match self {
                Conv::I2F(..) => u64::MAX,
                _ => o.src.mask(),
            };
            let tuples: Vec<[u64; 3]> = xs.iter().map(|x| [x >> shift & mask, 0, 0]).collect();
            reference(&o, rm, &tuples)
        };
        let lane0 = lane(0);
        let boxed = |v: u64| match self {
            Conv::F2I(..) => v,
            _ => v | !o.dst.mask(),
        };
        if !self.two_lanes() {
            return lane0.into_iter().map(|(v, f)| (boxed(v), f)).collect();
        }
        let lane1 = lane(o.src.bits());
        // Two binary16 results NaN-box the 32 bits they fill.
        let dw = o.dst.bits();
        let above = u64::MAX.checked_shl(2 * dw).unwrap_or(0);
        lane0
            .iter()
            .zip(&lane1)
            .map(|(l0, l1)| (above | l1.0 << dw | l0.0, l0.1 | l1.1))
            .collect()
    }
}

/// Integers at the boundaries of every format's range and precision.
fn int_corners() -> Vec<u64> {
    let mut out = vec![0, 1, 2, 3, u64::MAX, u64::MAX - 1];
    for e in [
        10, 11, 12, 15, 16, 17, 23, 24, 25, 31, 32, 52, 53, 54, 62, 63,
    ] {
        for d in [-3i64, -2, -1, 0, 1, 2, 3] {
            let x = (1u64 << e).wrapping_add(d as u64);
            out.extend([
                x,
                x.wrapping_neg(),
                x | 0xdead_0000_0000_0000 >> (63 - e).min(48),
            ]);
        }
    }
    out
}

/// Values of `f` around the integer ranges' ends (2^31, 2^32, 2^63, 2^64) and halves.
fn to_int_corners(f: Fmt) -> Vec<u64> {
    let frac_mask = (1u64 << f.frac()) - 1;
    let mut out = Vec::new();
    for e in [-1i64, 0, 1, 2, 30, 31, 32, 33, 62, 63, 64, 65] {
        let biased = f.bias() as i64 + e;
        if !(1..=f.emax() as i64).contains(&biased) {
            continue;
        }
        for frac in [0, 1, 2, frac_mask, frac_mask - 1, 1 << (f.frac() - 1)] {
            for negative in [false, true] {
                out.push(f.pack(negative, biased as u64, frac));
            }
        }
    }
    out
}

/// The checks of `conv` on `xs` in every rounding mode, as group `group`; the reserved
/// and dynamic encodings 5..=7 (every fourth operand) round as RNE.
fn checks(conv: Conv, group: usize, xs: &[u64]) -> Vec<Check> {
    let mut out = Vec::new();
    for rm in 0..8u32 {
        let xs: Vec<u64> = xs
            .iter()
            .step_by(if rm < 5 { 1 } else { 4 })
            .copied()
            .collect();
        let xs = &xs[..];
        let want = conv.expected(if rm < 5 { rm } else { 0 }, xs);
        out.extend(xs.iter().zip(want).map(|(x, want)| Check {
            vector: Vector {
                op: conv.op(),
                rm: rm.into(),
                operands: [*x, 0, 0],
            },
            want,
            group,
        }));
    }
    out
}

/// Runs the checks of every conversion in `operands` (a conversion and its operands)
/// mixed in one stream.
fn check<S: Simulator>(sim: &mut S, latency: u32, operands: &[(Conv, Vec<u64>)], seed: u64) {
    let all: Vec<Check> = operands
        .iter()
        .enumerate()
        .flat_map(|(g, (conv, xs))| checks(*conv, g, xs))
        .collect();
    let describe = |g: usize| format!("{:?}", operands[g].0);
    run_mixed(sim, "", &["a"], latency, all, seed, describe);
}

fn params(formats: &str, stages: u32) -> ConvertParams {
    ConvertParams {
        formats: formats.into(),
        stages,
    }
}

#[test]
fn every_depth_matches_softfloat_in_the_ir_simulator() {
    for stages in 0..=2 {
        let top = convert(&params("hsd", stages)).expect("elaborates");
        let mut sim = hdl::sim::Sim::new(&Design::new(&top));
        // Corners at the deepest pipeline (and on Verilator), random at every depth.
        let operands: Vec<(Conv, Vec<u64>)> = Conv::all()
            .into_iter()
            .enumerate()
            .map(|(k, c)| {
                (
                    c,
                    c.operands(300, stages == 2, k as u64 * 3 + stages as u64),
                )
            })
            .collect();
        check(&mut sim, stages, &operands, stages.into());
    }
}

#[test]
fn units_of_fewer_formats_match_softfloat_in_the_ir_simulator() {
    for formats in ["sd", "h"] {
        let top = convert(&params(formats, 1)).expect("elaborates");
        let mut sim = hdl::sim::Sim::new(&Design::new(&top));
        let has = |f: Fmt| formats.contains(&format!("{f:?}").to_lowercase());
        let operands: Vec<(Conv, Vec<u64>)> = Conv::all()
            .into_iter()
            .filter(|c| c.formats().iter().all(|f| has(*f)))
            .enumerate()
            .map(|(k, c)| (c, c.operands(200, true, k as u64)))
            .collect();
        check(&mut sim, 1, &operands, 7);
    }
}

#[test]
fn verilator_matches_softfloat_on_corners_and_random_operands() {
    let stages = 2;
    let top = convert(&params("hsd", stages)).expect("elaborates");
    let mut model = Model::of_design(&Design::new(&top), &Options::default()).expect("model");
    let operands: Vec<(Conv, Vec<u64>)> = Conv::all()
        .into_iter()
        .enumerate()
        .map(|(k, c)| (c, c.operands(3000, true, 0x5eed + k as u64)))
        .collect();
    check(&mut model, stages, &operands, 1);
    // 10^7 random operations per conversion (2 * 10^6 per mode) in chunks.
    for chunk in 0..if long() { 20 } else { 0 } {
        for (k, conv) in Conv::all().into_iter().enumerate() {
            let xs = conv.operands(100_000, false, (chunk << 16) + k as u64);
            check(&mut model, stages, &[(conv, xs)], chunk);
        }
    }
}

#[test]
fn lint_clean_at_every_format_set_and_the_depth_extremes() {
    let sets = generators::fpu::convert::FORMAT_SETS;
    let problems: Vec<String> = sets
        .iter()
        .flat_map(|f| [0, 2].map(|s| format!("formats = \"{f}\"\nstages = {s}")))
        .filter_map(|p| lint("fpu-convert", &p))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
