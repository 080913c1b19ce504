//! Hwacha golden model, floating point against Berkeley SoftFloat (the `riscv`
//! specialization: canonical NaN, tininess after rounding, RISC-V's saturated results of
//! conversions to integers). Every floating-point instruction of the worker thread, the
//! mixed-precision ones included, runs through the model's instruction execution on
//! vectors of random operands drawn to hit the special classes often, in every rounding
//! mode, given statically in the instruction and dynamically through frm. Every
//! element's result is compared bit for bit; flags twice: the vector instruction's accrued
//! fflags against the OR of its elements' reference flags, and each element's own flags
//! from a one-element run of the same operands (shared registers, so the scalar path is
//! exercised too).
//!
//! SoftFloat has no fmin/fmax, sign injection or fclass: their reference is the RISC-V
//! unprivileged spec's text written out here (-0 below +0, the non-NaN operand, the
//! canonical NaN for two NaNs, NV for any signaling input; the ten fclass bits), with
//! SoftFloat's quiet comparison for the ordering.
//!
//! The mixed-precision forms `vf<op>.<D>.<S>` (our reading, see the model's `fp.rs`):
//! the sources are S values, widened exactly to D, and the operation rounds once in D.
//! Here the widening is SoftFloat's conversion (exact, NV for a signaling NaN).
//!
//! Operands narrower than a register are its low bits (Hwacha has no NaN boxing): the
//! upper bits are drawn at random and must not matter. SoftFloat keeps its rounding mode
//! and flags in C state, so every use holds `SOFTFLOAT`. `ACCELGEN_FP_SEED` replays a
//! seed, `ACCELGEN_FP_ONLY=vfadd.s,vfmadd.d` runs only the instructions named;
//! `ACCELGEN_LONG=1` runs ten times as many operands.

mod hwacha_model_rig;

use hwacha_model_rig::*;
use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F16, F32, F64};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use verification::hwacha::model::Field::*;
use verification::hwacha::model::{fflags, HwachaParams};
use verification::rng::{mix, Rng};

/// Serializes every use of SoftFloat's global rounding mode and flags.
static SOFTFLOAT: Mutex<()> = Mutex::new(());

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fmt {
    H,
    S,
    D,
}

impl Fmt {
    fn of(s: &str) -> Option<Fmt> {
        Some(match s {
            "h" => Fmt::H,
            "s" => Fmt::S,
            "d" => Fmt::D,
            _ => return None,
        })
    }

    fn bits(self) -> u32 {
        match self {
            Fmt::H => 16,
            Fmt::S => 32,
            Fmt::D => 64,
        }
    }

    /// Fraction bits.
    fn frac(self) -> u32 {
        match self {
            Fmt::H => 10,
            Fmt::S => 23,
            Fmt::D => 52,
        }
    }

    fn exp_bits(self) -> u32 {
        self.bits() - 1 - self.frac()
    }

    fn bias(self) -> i32 {
        (1 << (self.exp_bits() - 1)) - 1
    }

    /// Biased exponent of the largest finite numbers.
    fn emax(self) -> u64 {
        (1 << self.exp_bits()) - 2
    }

    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    fn sign(self) -> u64 {
        1 << (self.bits() - 1)
    }

    fn pack(self, negative: bool, exp: u64, frac: u64) -> u64 {
        (negative as u64) << (self.bits() - 1)
            | exp << self.frac()
            | frac & ((1 << self.frac()) - 1)
    }

    /// A register holding `bits` as a result: sign-extended from the format.
    fn reg(self, bits: u64) -> u64 {
        let shift = 64 - self.bits();
        (((bits << shift) as i64) >> shift) as u64
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Int {
    W,
    Wu,
    L,
    Lu,
}

impl Int {
    fn of(s: &str) -> Option<Int> {
        Some(match s {
            "w" => Int::W,
            "wu" => Int::Wu,
            "l" => Int::L,
            "lu" => Int::Lu,
            _ => return None,
        })
    }

    fn bits(self) -> u32 {
        match self {
            Int::W | Int::Wu => 32,
            Int::L | Int::Lu => 64,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
    Min,
    Max,
    Sgnj,
    Sgnjn,
    Sgnjx,
    /// (±a)*b ± c
    Fma {
        negate_product: bool,
        negate_addend: bool,
    },
    Class,
    Eq,
    Lt,
    Le,
    /// `src` to `dst`.
    Convert,
    ToInt(Int),
    FromInt(Int),
}

/// One instruction: what the test reads its name to mean, independently of the model.
#[derive(Debug, Clone, Copy)]
struct Case {
    name: &'static str,
    op: Op,
    /// Format of the result (of the operation for compares, fclass and conversions to
    /// integers).
    dst: Fmt,
    /// Format of the floating-point sources.
    src: Fmt,
    sources: usize,
    /// Whether the encoding has a rounding-mode field.
    rm: bool,
}

impl Case {
    fn of(name: &'static str) -> Case {
        let parts: Vec<&str> = name.split('.').collect();
        let (op, dst, src) = match parts.as_slice() {
            ["vfcvt", to, from] => match (Fmt::of(to), Fmt::of(from)) {
                (Some(to), Some(from)) => (Op::Convert, to, from),
                (None, Some(from)) => (Op::ToInt(Int::of(to).unwrap()), from, from),
                (Some(to), None) => (Op::FromInt(Int::of(from).unwrap()), to, to),
                (None, None) => panic!("{name}"),
            },
            [op, d, s] => (op_of(op), Fmt::of(d).unwrap(), Fmt::of(s).unwrap()),
            [op, f] => (op_of(op), Fmt::of(f).unwrap(), Fmt::of(f).unwrap()),
            _ => panic!("{name}"),
        };
        let sources = match op {
            Op::Sqrt | Op::Class | Op::Convert | Op::ToInt(_) | Op::FromInt(_) => 1,
            Op::Fma { .. } => 3,
            _ => 2,
        };
        // The test's reading of the name agrees with the encoding's operand fields.
        for (k, f) in [Vrs1, Vrs2, Vrs3].into_iter().enumerate() {
            assert_eq!(has_field(name, f), k < sources, "{name} {f:?}");
        }
        Case {
            name,
            op,
            dst,
            src,
            sources,
            rm: has_field(name, Vrm),
        }
    }

    fn is_compare(&self) -> bool {
        matches!(self.op, Op::Eq | Op::Lt | Op::Le)
    }
}

fn op_of(op: &str) -> Op {
    match op {
        "vfadd" => Op::Add,
        "vfsub" => Op::Sub,
        "vfmul" => Op::Mul,
        "vfdiv" => Op::Div,
        "vfsqrt" => Op::Sqrt,
        "vfmin" => Op::Min,
        "vfmax" => Op::Max,
        "vfsgnj" => Op::Sgnj,
        "vfsgnjn" => Op::Sgnjn,
        "vfsgnjx" => Op::Sgnjx,
        "vfmadd" | "vfmsub" | "vfnmsub" | "vfnmadd" => Op::Fma {
            negate_product: op.starts_with("vfn"),
            negate_addend: op == "vfmsub" || op == "vfnmadd",
        },
        "vfclass" => Op::Class,
        "vcmpfeq" => Op::Eq,
        "vcmpflt" => Op::Lt,
        "vcmpfle" => Op::Le,
        _ => panic!("unknown floating-point instruction {op}"),
    }
}

// ---------------------------------------------------------------------------------------
// The reference.

/// The SoftFloat types as register values.
trait Sf: Float + Copy {
    const FMT: Fmt;
    /// The value in the low bits of a register.
    fn of(x: u64) -> Self;
    fn raw(self) -> u64;
}

impl Sf for F16 {
    const FMT: Fmt = Fmt::H;
    fn of(x: u64) -> Self {
        F16::from_bits(x as u16)
    }
    fn raw(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Sf for F32 {
    const FMT: Fmt = Fmt::S;
    fn of(x: u64) -> Self {
        F32::from_bits(x as u32)
    }
    fn raw(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Sf for F64 {
    const FMT: Fmt = Fmt::D;
    fn of(x: u64) -> Self {
        F64::from_bits(x)
    }
    fn raw(self) -> u64 {
        self.to_bits()
    }
}

/// Result register (or predicate bit, 0/1) and RISC-V fflags.
type Outcome = (u64, u8);

/// Reference outcomes of `case` under rounding `rm` for each operand tuple.
fn reference(case: &Case, rm: u32, tuples: &[[u64; 3]]) -> Vec<Outcome> {
    let rm = match rm {
        0 => RoundingMode::TiesToEven,
        1 => RoundingMode::TowardZero,
        2 => RoundingMode::TowardNegative,
        3 => RoundingMode::TowardPositive,
        4 => RoundingMode::TiesToAway,
        _ => unreachable!("rm {rm}"),
    };
    let _softfloat = SOFTFLOAT.lock().unwrap_or_else(|e| e.into_inner());
    tuples
        .iter()
        .map(|x| {
            ExceptionFlags::default().set();
            let (value, extra) = match case.dst {
                Fmt::H => compute::<F16>(case, rm, x),
                Fmt::S => compute::<F32>(case, rm, x),
                Fmt::D => compute::<F64>(case, rm, x),
            };
            let mut f = ExceptionFlags::default();
            f.get();
            let flags = [
                (f.is_inexact(), fflags::NX),
                (f.is_underflow(), fflags::UF),
                (f.is_overflow(), fflags::OF),
                (f.is_infinite(), fflags::DZ),
                (f.is_invalid(), fflags::NV),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .fold(extra, |acc, (_, bit)| acc | bit);
            (value, flags)
        })
        .collect()
}

/// `x` (a `from` value in the low bits) converted to `to`, as a register.
fn convert(from: Fmt, to: Fmt, x: u64, rm: RoundingMode) -> u64 {
    fn to_fmt<T: Sf>(v: T, to: Fmt, rm: RoundingMode) -> u64 {
        to.reg(match to {
            Fmt::H => v.to_f16(rm).raw(),
            Fmt::S => v.to_f32(rm).raw(),
            Fmt::D => v.to_f64(rm).raw(),
        })
    }
    match from {
        Fmt::H => to_fmt(F16::of(x), to, rm),
        Fmt::S => to_fmt(F32::of(x), to, rm),
        Fmt::D => to_fmt(F64::of(x), to, rm),
    }
}

/// `case` on one tuple, computed in `T` (the destination format; operands of a narrower
/// source format are widened exactly). Returns the register value and flags raised
/// outside SoftFloat.
fn compute<T: Sf>(case: &Case, rm: RoundingMode, x: &[u64; 3]) -> Outcome {
    let reg = |v: T| T::FMT.reg(v.raw());
    match case.op {
        Op::Convert => return (convert(case.src, case.dst, x[0], rm), 0),
        Op::FromInt(k) => {
            let v = match k {
                Int::W => T::from_i32(x[0] as i32, rm),
                Int::Wu => T::from_u32(x[0] as u32, rm),
                Int::L => T::from_i64(x[0] as i64, rm),
                Int::Lu => T::from_u64(x[0], rm),
            };
            return (reg(v), 0);
        }
        Op::Sgnj | Op::Sgnjn | Op::Sgnjx => return (sign_inject(T::FMT, case.op, x[0], x[1]), 0),
        Op::Class => return (class(T::FMT, x[0]), 0),
        _ => {}
    }
    // Only the instruction's sources are read (and widened: exact, NV for a signaling
    // NaN).
    let mut operands = [T::of(0); 3];
    for (k, v) in x.iter().enumerate().take(case.sources) {
        operands[k] = if case.src == T::FMT {
            T::of(*v)
        } else {
            T::of(convert(case.src, T::FMT, *v, rm))
        };
    }
    let [a, b, c] = operands;
    let value = match case.op {
        Op::Add => reg(a.add(b, rm)),
        Op::Sub => reg(a.sub(b, rm)),
        Op::Mul => reg(a.mul(b, rm)),
        Op::Div => reg(a.div(b, rm)),
        Op::Sqrt => reg(a.sqrt(rm)),
        Op::Fma {
            negate_product,
            negate_addend,
        } => {
            let a = if negate_product { a.neg() } else { a };
            let c = if negate_addend { c.neg() } else { c };
            reg(a.fused_mul_add(b, c, rm))
        }
        Op::Min | Op::Max => return min_max(a, b, case.op == Op::Max),
        Op::Eq => a.eq(b) as u64,
        Op::Lt => a.lt(b) as u64,
        Op::Le => a.le(b) as u64,
        Op::ToInt(k) => match k {
            Int::W => a.to_i32(rm, true) as i64 as u64,
            Int::Wu => a.to_u32(rm, true) as i32 as i64 as u64,
            Int::L => a.to_i64(rm, true) as u64,
            Int::Lu => a.to_u64(rm, true),
        },
        Op::Convert | Op::FromInt(_) | Op::Sgnj | Op::Sgnjn | Op::Sgnjx | Op::Class => {
            unreachable!()
        }
    };
    (value, 0)
}

/// RISC-V fmin/fmax: -0 orders below +0; with one NaN operand the other one; with two the
/// canonical NaN; a signaling NaN operand raises NV, whatever the result.
fn min_max<T: Sf>(a: T, b: T, max: bool) -> Outcome {
    let nv = if a.is_signaling_nan() || b.is_signaling_nan() {
        fflags::NV
    } else {
        0
    };
    let pick = match (a.is_nan(), b.is_nan()) {
        (true, true) => return (canonical_nan(T::FMT), nv),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let (lo, hi) = if b.lt_quiet(a) || (a.eq(b) && b.is_negative()) {
                (b, a)
            } else {
                (a, b)
            };
            if max {
                hi
            } else {
                lo
            }
        }
    };
    (T::FMT.reg(pick.raw()), nv)
}

fn canonical_nan(f: Fmt) -> u64 {
    f.pack(false, f.emax() + 1, 1 << (f.frac() - 1))
}

/// fsgnj/fsgnjn/fsgnjx: a's magnitude bits with b's sign, its complement, or the xor of
/// both signs; NaNs are not special.
fn sign_inject(f: Fmt, op: Op, a: u64, b: u64) -> u64 {
    let sign = match op {
        Op::Sgnj => b,
        Op::Sgnjn => !b,
        _ => a ^ b,
    } & f.sign();
    f.reg(a & f.mask() & !f.sign() | sign)
}

/// fclass: bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0, 5 positive
/// subnormal, 6 positive normal, 7 +inf, 8 signaling NaN, 9 quiet NaN.
fn class(f: Fmt, x: u64) -> u64 {
    let negative = x & f.sign() != 0;
    let exp = (x >> f.frac()) & (f.emax() + 1);
    let frac = x & ((1 << f.frac()) - 1);
    let quiet = frac >> (f.frac() - 1) != 0;
    let bit = match (exp, frac) {
        (e, 0) if e == f.emax() + 1 => [7, 0][negative as usize],
        (e, _) if e == f.emax() + 1 => [8, 9][quiet as usize],
        (0, 0) => [4, 3][negative as usize],
        (0, _) => [5, 2][negative as usize],
        _ => [6, 1][negative as usize],
    };
    1 << bit
}

// ---------------------------------------------------------------------------------------
// Operands.

/// A value of format `f` (low bits) from one of the special classes or uniform bits.
fn special(rng: &mut Rng, f: Fmt) -> u64 {
    let negative = rng.chance(50);
    let frac_mask = (1u64 << f.frac()) - 1;
    let any = rng.next_u64() & frac_mask;
    // Trailing zeros make exact results and ties more likely.
    let short = any & !((1u64 << rng.below(f.frac() as u64 + 1)) - 1);
    let frac = if rng.chance(50) { any } else { short };
    let p = f.frac() as u64 + 1;
    let emax = f.emax();
    let bias = f.bias() as u64;
    let quiet = 1 << (f.frac() - 1);
    match rng.below(16) {
        0..=3 => rng.next_u64() & f.mask(),
        4 => f.pack(negative, 0, 0),
        5 => f.pack(negative, emax + 1, 0),
        6 => f.pack(negative, emax + 1, quiet | any),
        7 => f.pack(negative, emax + 1, (any & (quiet - 1)).max(1)),
        // Subnormals, the smallest and the largest among them.
        8 => f.pack(negative, 0, *rng.pick(&[1, frac_mask, frac.max(1)])),
        // Around the smallest normal number.
        9 => f.pack(negative, 1, *rng.pick(&[0, 1, frac])),
        // Near overflow.
        10 => f.pack(
            negative,
            emax - rng.below(3),
            *rng.pick(&[frac_mask, frac_mask - 1, frac]),
        ),
        // Near the subnormal range.
        11 => f.pack(negative, 1 + rng.below(p + 2), frac),
        // Near one.
        12 => f.pack(negative, bias - 3 + rng.below(7), frac),
        // Near the integer-conversion boundaries (2^31, 2^32, 2^63, 2^64) and halves.
        13 => {
            let e = bias + rng.below(66).min(emax - bias);
            f.pack(negative, e, *rng.pick(&[0, frac_mask, short]))
        }
        // Moderate exponents.
        _ => {
            let e = (bias as i64 + rng.below(4 * p) as i64 - 2 * p as i64).clamp(1, emax as i64);
            f.pack(negative, e as u64, frac)
        }
    }
}

/// A second (or third) operand related to `a` so that sums cancel or tie and products or
/// quotients land near overflow or the subnormal range.
fn partner(rng: &mut Rng, f: Fmt, op: Op, a: u64) -> u64 {
    let exp_a = ((a >> f.frac()) & (f.emax() + 1)) as i64;
    if exp_a == 0 || exp_a as u64 > f.emax() {
        return special(rng, f);
    }
    let p = f.frac() as i64 + 1;
    let bias = f.bias() as i64;
    let emax = f.emax() as i64;
    let exp = match rng.below(6) {
        0 => return a ^ f.sign(),
        1 => return a.wrapping_add(*rng.pick(&[0, 1, u64::MAX])) & f.mask(),
        2 => exp_a + rng.below(2 * p as u64 + 7) as i64 - p - 3,
        _ => {
            // The exponent of the result: just above or below the largest finite
            // numbers, or at or below the smallest normal.
            let target = *rng.pick(&[emax + 1, emax, emax - 1, 1, 0, -1, 1 - p, -p]);
            let target = target + rng.below(3) as i64 - 1;
            match op {
                Op::Div => exp_a - target + bias,
                _ => target - exp_a + bias,
            }
        }
    };
    if !(1..=emax).contains(&exp) {
        return special(rng, f);
    }
    let frac = special(rng, f);
    f.pack(rng.chance(50), exp as u64, frac)
}

/// An addend near the product `a*b`, negated so that they cancel, or tiny.
fn addend(rng: &mut Rng, f: Fmt, a: u64, b: u64) -> u64 {
    if rng.chance(25) {
        return f.pack(rng.chance(50), rng.below(2), special(rng, f));
    }
    let decode = |x: u64| {
        let e = ((x >> f.frac()) & (f.emax() + 1)) as i32;
        let frac = x & ((1 << f.frac()) - 1);
        let sig = if e == 0 { frac } else { frac | 1 << f.frac() };
        (
            x & f.sign() != 0,
            sig as u128,
            e.max(1) - f.bias() - f.frac() as i32,
            e,
        )
    };
    let (sa, ma, ea, ra) = decode(a);
    let (sb, mb, eb, rb) = decode(b);
    let top = f.emax() as i32 + 1;
    if ra == top || rb == top {
        return special(rng, f);
    }
    // The product truncated to the format: it cancels all but the rounding error.
    // Negated or not: every fused form gets sums that cancel.
    let negative = sa ^ sb ^ rng.chance(50);
    let c = truncated(f, negative, ma * mb, ea + eb);
    if rng.chance(50) {
        c
    } else {
        // Off by a few units in the last place.
        c.wrapping_add(rng.below(9).wrapping_sub(4)) & f.mask()
    }
}

/// sig * 2^exp, truncated to format `f` (infinity above the range).
fn truncated(f: Fmt, negative: bool, sig: u128, exp: i32) -> u64 {
    if sig == 0 {
        return f.pack(negative, 0, 0);
    }
    let width = 128 - sig.leading_zeros() as i32;
    let p = f.frac() as i32 + 1;
    let biased = exp + width - 1 + f.bias();
    if biased > f.emax() as i32 {
        return f.pack(negative, f.emax() + 1, 0);
    }
    // Keep the bits from 2^(exponent of the last place) up.
    let last = if biased >= 1 {
        biased - f.bias() - (p - 1)
    } else {
        1 - f.bias() - (p - 1)
    };
    let shift = last - exp;
    let kept = if shift >= 128 {
        0
    } else if shift >= 0 {
        sig >> shift
    } else {
        sig << -shift
    } as u64;
    if biased >= 1 {
        f.pack(negative, biased as u64, kept)
    } else {
        f.pack(negative, 0, kept)
    }
}

/// An integer of `bits` bits: every magnitude, few significant bits (ties), boundaries.
fn integer(rng: &mut Rng, bits: u32) -> u64 {
    let x = match rng.below(6) {
        0 => rng.next_u64(),
        1 => rng.next_u64() >> rng.below(64),
        2 => (rng.next_u64() >> rng.below(64)).wrapping_neg(),
        3 => {
            let sig = rng.next_u64() >> (64 - rng.range(1, 26));
            let v = sig << rng.below(64);
            if rng.chance(50) {
                v.wrapping_neg()
            } else {
                v
            }
        }
        4 => *rng.pick(&[
            0,
            1,
            u64::MAX,
            i32::MAX as u64,
            i32::MIN as i64 as u64,
            u32::MAX as u64,
            1 << 32,
            i64::MAX as u64,
            1 << 63,
            65504,
            65519,
            65520,
            65536,
        ]),
        _ => (1u64 << rng.below(64)).wrapping_add(rng.below(5).wrapping_sub(2)),
    };
    if bits == 32 {
        // Only the low half is read: the upper half is noise.
        x & 0xffff_ffff | rng.next_u64() << 32
    } else {
        x
    }
}

/// A register holding `low` in format `f`: its upper bits zeros, ones, the sign
/// extension (as the model writes results) or noise, none of which may matter.
fn register(rng: &mut Rng, f: Fmt, low: u64) -> u64 {
    let upper = !f.mask();
    match rng.below(4) {
        0 => low,
        1 => f.reg(low),
        2 => low | upper,
        _ => low | rng.next_u64() & upper,
    }
}

/// One operand tuple for `case` (register values).
fn tuple(rng: &mut Rng, case: &Case) -> [u64; 3] {
    let f = case.src;
    match case.op {
        Op::FromInt(k) => [integer(rng, k.bits()), 0, 0],
        _ => {
            let a = special(rng, f);
            let b = if rng.chance(40) {
                partner(rng, f, case.op, a)
            } else {
                special(rng, f)
            };
            let c = if rng.chance(50) {
                addend(rng, f, a, b)
            } else {
                special(rng, f)
            };
            [a, b, c].map(|v| register(rng, f, v))
        }
    }
}

// ---------------------------------------------------------------------------------------
// The model.

/// A rounding mode: static (the instruction's rm field) or dynamic (rm = 7, frm).
#[derive(Debug, Clone, Copy)]
struct Mode {
    rm: u32,
    dynamic: bool,
}

/// Source registers: vv0-vv2 or vs1-vs3; the result goes to vv3 (vs4 when scalar) or to
/// vp1 for compares.
fn encode(case: &Case, mode: Mode, shared: [bool; 3], scalar: bool) -> u64 {
    let mut insn = i(case.name);
    if case.is_compare() {
        insn = insn.f(Vprd, 1);
    } else if scalar {
        insn = insn.f(Vrd, 4);
    } else {
        insn = insn.f(Vd, 1).f(Vrd, 3);
    }
    for (k, (flag, field)) in [(Vs1, Vrs1), (Vs2, Vrs2), (Vs3, Vrs3)]
        .into_iter()
        .enumerate()
        .take(case.sources)
    {
        insn = if shared[k] {
            insn.f(flag, 0).f(field, k as u64 + 1)
        } else {
            insn.f(flag, 1).f(field, k as u64)
        };
    }
    if case.rm {
        insn = insn.f(Vrm, if mode.dynamic { 7 } else { mode.rm as u64 });
    }
    insn.enc()
}

struct Model {
    rig: Rig,
    maxvl: u64,
}

impl Model {
    fn new() -> Model {
        let mut rig = Rig::new(HwachaParams::default());
        rig.setcfg(cfg(4, 2, 0, 0));
        let maxvl = rig.setvl(u64::MAX);
        Model { rig, maxvl }
    }

    fn set_mode(&mut self, mode: Mode) {
        // Static modes run under an frm they must ignore.
        let frm = if mode.dynamic {
            mode.rm
        } else {
            (mode.rm + 1) % 5
        };
        self.rig.hw.set_frm(frm).unwrap();
    }

    /// Runs `case` as one vector instruction over the tuples (sources marked `shared`
    /// take tuple 0's value from a shared register): each element's result and the
    /// instruction's accrued flags.
    fn vector(
        &mut self,
        case: &Case,
        mode: Mode,
        tuples: &[[u64; 3]],
        shared: [bool; 3],
    ) -> (Vec<u64>, u8) {
        let n = tuples.len() as u64;
        assert_eq!(self.rig.setvl(n), n);
        for k in 0..case.sources {
            if shared[k] {
                self.rig.vmcs(k as u64 + 1, tuples[0][k]);
            } else {
                let column: Vec<u64> = tuples.iter().map(|t| t[k]).collect();
                self.rig.load_vv(k as u64, &column);
            }
        }
        self.set_mode(mode);
        self.rig.hw.take_fflags();
        let insn = encode(case, mode, shared, false);
        self.rig.run(&[insn, stop()]).unwrap();
        let flags = self.rig.hw.take_fflags();
        let values = if case.is_compare() {
            self.rig.vp(1, n).into_iter().map(u64::from).collect()
        } else {
            self.rig.vv(3, n)
        };
        (values, flags)
    }

    /// Runs `case` on one tuple from shared registers: a scalar instruction, or for a
    /// compare (always a vector instruction) one of vector length 1.
    fn single(&mut self, case: &Case, mode: Mode, tuple: &[u64; 3]) -> Outcome {
        for (k, &v) in tuple.iter().enumerate().take(case.sources) {
            self.rig.vmcs(k as u64 + 1, v);
        }
        if case.is_compare() {
            self.rig.setvl(1);
        }
        self.set_mode(mode);
        self.rig.hw.take_fflags();
        let insn = encode(case, mode, [true; 3], true);
        self.rig.run(&[insn, stop()]).unwrap();
        let flags = self.rig.hw.take_fflags();
        let value = if case.is_compare() {
            self.rig.vp(1, 1)[0] as u64
        } else {
            self.rig.hw.state().vs(4)
        };
        (value, flags)
    }
}

// ---------------------------------------------------------------------------------------
// The comparison.

/// Collects mismatches (the first few in full) from every thread.
struct Report {
    seed: u64,
    lines: Mutex<Vec<String>>,
    count: AtomicUsize,
}

impl Report {
    fn mismatch(&self, what: String) {
        if self.count.fetch_add(1, Ordering::Relaxed) < 40 {
            self.lines.lock().unwrap().push(what);
        }
    }
}

/// The instruction and its rounding mode, for reports.
fn name(case: &Case, mode: Mode) -> String {
    let rm = ["rne", "rtz", "rdn", "rup", "rmm"][mode.rm as usize];
    let how = if !case.rm {
        "frm, no rm field"
    } else if mode.dynamic {
        "dynamic"
    } else {
        "static"
    };
    format!("{} {rm} ({how})", case.name)
}

/// The instruction, its rounding mode and operands, for reports.
fn describe(case: &Case, mode: Mode, tuple: &[u64; 3]) -> String {
    let operands: Vec<String> = tuple[..case.sources]
        .iter()
        .map(|v| format!("{v:#018x}"))
        .collect();
    format!("{} [{}]", name(case, mode), operands.join(", "))
}

fn flag_names(f: u8) -> String {
    let names: Vec<&str> = [
        (fflags::NV, "NV"),
        (fflags::DZ, "DZ"),
        (fflags::OF, "OF"),
        (fflags::UF, "UF"),
        (fflags::NX, "NX"),
    ]
    .iter()
    .filter(|(bit, _)| f & bit != 0)
    .map(|(_, n)| *n)
    .collect();
    format!("{{{}}}", names.join(","))
}

/// `count` tuples of `case` in `mode`, in vectors of random lengths (and random shared
/// sources), each tuple also run alone. Returns how many tuples raised each flag (bit
/// order) in the reference.
fn check(
    model: &mut Model,
    rng: &mut Rng,
    report: &Report,
    case: &Case,
    mode: Mode,
    count: usize,
) -> [usize; 5] {
    let mut raised = [0; 5];
    let mut done = 0;
    while done < count {
        let n = (rng.range(1, model.maxvl as u32) as usize).min(count - done);
        let mut shared = [false; 3];
        if n > 1 && case.sources > 1 {
            // One source from a shared register now and then (vv op vs).
            if rng.chance(20) {
                shared[rng.below(case.sources as u64) as usize] = true;
            }
        }
        let mut tuples: Vec<[u64; 3]> = (0..n).map(|_| tuple(rng, case)).collect();
        for (k, &s) in shared.iter().enumerate() {
            if s {
                let v = tuples[0][k];
                tuples.iter_mut().for_each(|t| t[k] = v);
            }
        }
        let expected = reference(case, mode.rm, &tuples);
        let (values, flags) = model.vector(case, mode, &tuples, shared);
        let mut all = 0;
        for (e, ((want, want_flags), got)) in expected.iter().zip(&values).enumerate() {
            all |= want_flags;
            for (bit, n) in raised.iter_mut().enumerate() {
                *n += (want_flags >> bit & 1) as usize;
            }
            if want != got {
                report.mismatch(format!(
                    "{}: element {e} of {n}: expected {want:#018x}, model {got:#018x}",
                    describe(case, mode, &tuples[e])
                ));
            }
        }
        if all != flags {
            report.mismatch(format!(
                "{} over {n} elements: accrued flags expected {}, model {}",
                name(case, mode),
                flag_names(all),
                flag_names(flags)
            ));
        }
        for (t, want) in tuples.iter().zip(&expected) {
            let got = model.single(case, mode, t);
            if got != *want {
                report.mismatch(format!(
                    "{}: alone: expected {:#018x} {}, model {:#018x} {}",
                    describe(case, mode, t),
                    want.0,
                    flag_names(want.1),
                    got.0,
                    flag_names(got.1)
                ));
            }
        }
        done += n;
    }
    raised
}

/// The flags `case` can raise: what the operands must make the reference raise, so that
/// the comparison covers them. Sums of halves in double and products of narrower values
/// in the wider format are exact; only conversions to half overflow from integers.
fn reachable(case: &Case) -> u8 {
    use fflags::{DZ, NV, NX, OF, UF};
    let mixed = case.dst != case.src;
    match case.op {
        Op::Add | Op::Sub if mixed && case.src == Fmt::H && case.dst == Fmt::D => NV,
        Op::Add | Op::Sub | Op::Fma { .. } if mixed => NV | NX,
        Op::Mul if mixed => NV,
        Op::Add | Op::Sub => NV | OF | NX,
        Op::Mul | Op::Fma { .. } => NV | OF | UF | NX,
        Op::Div => NV | DZ | OF | UF | NX,
        Op::Sqrt | Op::ToInt(_) => NV | NX,
        Op::Min | Op::Max | Op::Eq | Op::Lt | Op::Le => NV,
        Op::Sgnj | Op::Sgnjn | Op::Sgnjx | Op::Class => 0,
        Op::Convert if case.dst.bits() < case.src.bits() => NV | OF | UF | NX,
        Op::Convert => NV,
        Op::FromInt(_) if case.dst == Fmt::H => OF | NX,
        Op::FromInt(k) if case.dst == Fmt::D && k.bits() == 32 => 0,
        Op::FromInt(_) => NX,
    }
}

fn seed() -> u64 {
    std::env::var("ACCELGEN_FP_SEED")
        .ok()
        .map(|s| {
            let s = s.trim_start_matches("0x");
            u64::from_str_radix(s, 16).expect("ACCELGEN_FP_SEED: hexadecimal")
        })
        .unwrap_or(0x5f10_a7ed)
}

#[test]
fn every_fp_instruction_in_every_rounding_mode_matches_softfloat() {
    let long = std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1");
    let per_mode = if long { 100_000 } else { 10_000 };
    let names: Vec<&'static str> = worker_instructions()
        .map(|i| i.name)
        .filter(|n| {
            (n.starts_with("vf") && !["vfirst", "vfence"].contains(n)) || n.starts_with("vcmpf")
        })
        .collect();
    let cases: Vec<Case> = names.into_iter().map(Case::of).collect();
    // 70 instructions with a rounding mode, 27 without (min/max, sign injection, fclass,
    // compares); 13 of them mixed precision.
    assert_eq!(cases.len(), 97);
    assert_eq!(cases.iter().filter(|c| c.rm).count(), 70);
    assert_eq!(
        cases
            .iter()
            .filter(|c| c.dst != c.src && !matches!(c.op, Op::Convert))
            .count(),
        13
    );
    let only = std::env::var("ACCELGEN_FP_ONLY").ok();
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|c| {
            only.as_ref()
                .is_none_or(|o| o.split(',').any(|n| n == c.name))
        })
        .collect();
    // Jobs: every rounding mode, static and dynamic, for instructions with an rm field;
    // every frm (which they must ignore) for the others.
    let mut jobs = Vec::new();
    for case in &cases {
        for rm in 0..5 {
            for dynamic in [false, true] {
                if case.rm || dynamic {
                    jobs.push((*case, Mode { rm, dynamic }));
                }
            }
        }
    }
    let seed = seed();
    eprintln!(
        "softfloat comparison: seed {seed:#x} (ACCELGEN_FP_SEED), \
         {per_mode} tuples per instruction and rounding mode"
    );
    let report = Report {
        seed,
        lines: Mutex::new(Vec::new()),
        count: AtomicUsize::new(0),
    };
    let raised = Mutex::new(vec![[0; 5]; jobs.len()]);
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut model = Model::new();
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some((case, mode)) = jobs.get(j) else {
                        break;
                    };
                    let mut rng = Rng::new(mix(seed, j as u64));
                    let r = check(&mut model, &mut rng, &report, case, *mode, per_mode);
                    raised.lock().unwrap()[j] = r;
                }
            });
        }
    });
    eprintln!(
        "{} instructions, {} jobs, {} operand tuples in {:.1} s",
        cases.len(),
        jobs.len(),
        jobs.len() * per_mode,
        start.elapsed().as_secs_f64()
    );
    let lines = report.lines.into_inner().unwrap();
    let count = report.count.into_inner();
    assert!(
        count == 0,
        "seed {:#x}: {count} mismatches with SoftFloat, the first ones:\n{}",
        report.seed,
        lines.join("\n")
    );
    // The operands made the reference raise every flag each instruction can raise, a
    // few times at least, and no other.
    let raised = raised.into_inner().unwrap();
    for case in &cases {
        let mut total = [0; 5];
        for ((c, _), r) in jobs.iter().zip(&raised) {
            if c.name == case.name {
                total.iter_mut().zip(r).for_each(|(t, n)| *t += n);
            }
        }
        let seen = (0..5).filter(|&b| total[b] > 0).fold(0, |m, b| m | 1 << b);
        let want = reachable(case);
        let rare = (0..5).filter(|&b| want >> b & 1 != 0 && total[b] < 10);
        assert!(
            seen == want && rare.count() == 0,
            "{}: operands raised {} (NX UF OF DZ NV: {total:?}); it can raise {}",
            case.name,
            flag_names(seen),
            flag_names(want)
        );
    }
}

/// The fused multiply-adds' overflow corner, directed: products at the overflow boundary
/// (the largest finite number times one), just below it and beyond it (times one plus an
/// ulp, times two), of either sign, with an addend far below an ulp of the product (the
/// smallest subnormal or normal number, of either sign), in every rounding mode, static
/// and dynamic. The addend decides only the rounding direction of an exact product, and
/// overflow must be decided on the exact sum rounded with an unbounded exponent.
#[test]
fn fma_overflow_with_a_tiny_addend_matches_softfloat() {
    let report = Report {
        seed: 0,
        lines: Mutex::new(Vec::new()),
        count: AtomicUsize::new(0),
    };
    let mut model = Model::new();
    let mut cases = 0;
    for f in ["h", "s", "d"] {
        let fmt = Fmt::of(f).unwrap();
        let all = (1 << fmt.frac()) - 1;
        let bias = fmt.bias() as u64;
        let products: Vec<u64> = [false, true]
            .into_iter()
            .flat_map(|neg| {
                [
                    fmt.pack(neg, fmt.emax(), all),
                    fmt.pack(neg, fmt.emax(), all - 1),
                ]
            })
            .collect();
        let factors = [
            fmt.pack(false, bias, 0),
            fmt.pack(false, bias, 1),
            fmt.pack(false, bias + 1, 0),
            fmt.pack(false, bias - 1, all),
        ];
        let addends: Vec<u64> = [false, true]
            .into_iter()
            .flat_map(|neg| [fmt.pack(neg, 0, 1), fmt.pack(neg, 1, 0)])
            .collect();
        let mut tuples = Vec::new();
        for &a in &products {
            for &b in &factors {
                for &c in &addends {
                    tuples.push([a, b, c]);
                }
            }
        }
        for op in ["vfmadd", "vfmsub", "vfnmsub", "vfnmadd"] {
            let name: &'static str = format!("{op}.{f}").leak();
            let case = Case::of(name);
            for rm in 0..5 {
                let expected = reference(&case, rm, &tuples);
                for dynamic in [false, true] {
                    let mode = Mode { rm, dynamic };
                    for (t, want) in tuples.iter().zip(&expected) {
                        cases += 1;
                        let got = model.single(&case, mode, t);
                        if got != *want {
                            report.mismatch(format!(
                                "{}: expected {:#018x} {}, model {:#018x} {}",
                                describe(&case, mode, t),
                                want.0,
                                flag_names(want.1),
                                got.0,
                                flag_names(got.1)
                            ));
                        }
                    }
                }
            }
        }
    }
    let count = report.count.into_inner();
    assert!(
        count == 0,
        "{count} of {cases} mismatches with SoftFloat:\n{}",
        report.lines.into_inner().unwrap().join("\n")
    );
    assert_eq!(cases, 3 * 4 * 5 * 2 * 64);
}
