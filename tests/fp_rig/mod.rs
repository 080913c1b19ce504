//! Floating-point test rig shared by the tests of every floating-point model and unit:
//! the formats' encodings, Berkeley SoftFloat (the `riscv` specialization: canonical NaN,
//! tininess after rounding, RISC-V's saturated conversions to integers) as the reference
//! of every operation, the RISC-V rules SoftFloat lacks (fmin/fmax, sign injection,
//! fclass) written out from the unprivileged spec, and operand generators that hit the
//! special classes, cancellation, ties and the boundaries of overflow and underflow.
//!
//! SoftFloat keeps its rounding mode and flags in C state, so every use holds `SOFTFLOAT`
//! (`reference` does).

#![allow(dead_code)]

use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F16, F32, F64};
use std::sync::Mutex;
use verification::rng::Rng;

/// RISC-V `fflags` bits.
pub mod fflags {
    pub const NV: u8 = 16;
    pub const DZ: u8 = 8;
    pub const OF: u8 = 4;
    pub const UF: u8 = 2;
    pub const NX: u8 = 1;
}

/// Serializes every use of SoftFloat's global rounding mode and flags.
pub static SOFTFLOAT: Mutex<()> = Mutex::new(());

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    H,
    S,
    D,
}

impl Fmt {
    pub fn of(s: &str) -> Option<Fmt> {
        Some(match s {
            "h" => Fmt::H,
            "s" => Fmt::S,
            "d" => Fmt::D,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        match self {
            Fmt::H => 16,
            Fmt::S => 32,
            Fmt::D => 64,
        }
    }

    /// Fraction bits.
    pub fn frac(self) -> u32 {
        match self {
            Fmt::H => 10,
            Fmt::S => 23,
            Fmt::D => 52,
        }
    }

    pub fn exp_bits(self) -> u32 {
        self.bits() - 1 - self.frac()
    }

    pub fn bias(self) -> i32 {
        (1 << (self.exp_bits() - 1)) - 1
    }

    /// Biased exponent of the largest finite numbers.
    pub fn emax(self) -> u64 {
        (1 << self.exp_bits()) - 2
    }

    pub fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits())
    }

    pub fn sign(self) -> u64 {
        1 << (self.bits() - 1)
    }

    pub fn pack(self, negative: bool, exp: u64, frac: u64) -> u64 {
        (negative as u64) << (self.bits() - 1)
            | exp << self.frac()
            | frac & ((1 << self.frac()) - 1)
    }

    /// A register holding `bits` as a result: sign-extended from the format.
    pub fn reg(self, bits: u64) -> u64 {
        let shift = 64 - self.bits();
        (((bits << shift) as i64) >> shift) as u64
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Int {
    W,
    Wu,
    L,
    Lu,
}

impl Int {
    pub fn of(s: &str) -> Option<Int> {
        Some(match s {
            "w" => Int::W,
            "wu" => Int::Wu,
            "l" => Int::L,
            "lu" => Int::Lu,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        match self {
            Int::W | Int::Wu => 32,
            Int::L | Int::Lu => 64,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
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

// ---------------------------------------------------------------------------------------
// The reference.

/// The SoftFloat types as register values.
pub trait Sf: Float + Copy {
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
pub type Outcome = (u64, u8);

/// An operation of the reference: `op` computed in `dst` (for conversions, from `src` to
/// `dst`); floating-point sources of format `src` are widened exactly to `dst` first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    pub op: Op,
    pub dst: Fmt,
    pub src: Fmt,
}

impl Operation {
    /// `op` with every operand and the result in `f`.
    pub fn of(op: Op, f: Fmt) -> Operation {
        Operation { op, dst: f, src: f }
    }

    /// Source operands read.
    pub fn sources(&self) -> usize {
        match self.op {
            Op::Sqrt | Op::Class | Op::Convert | Op::ToInt(_) | Op::FromInt(_) => 1,
            Op::Fma { .. } => 3,
            _ => 2,
        }
    }

    /// Whether the result is a floating-point value of `dst` (not an integer, a compare's
    /// bit or fclass's mask).
    pub fn gives_float(&self) -> bool {
        !matches!(self.op, Op::Eq | Op::Lt | Op::Le | Op::ToInt(_) | Op::Class)
    }
}

/// SoftFloat's rounding mode for RISC-V's `rm` 0..=4.
pub fn rounding(rm: u32) -> RoundingMode {
    match rm {
        0 => RoundingMode::TiesToEven,
        1 => RoundingMode::TowardZero,
        2 => RoundingMode::TowardNegative,
        3 => RoundingMode::TowardPositive,
        4 => RoundingMode::TiesToAway,
        _ => panic!("rounding mode {rm} is not one of RISC-V's five"),
    }
}

/// Reference outcomes of `o` under rounding `rm` (0..=4) for each operand tuple: a result
/// in the low bits of the destination format (an integer register value for conversions
/// to integers, 0/1 for compares, the class bits for fclass) and its flags.
pub fn reference(o: &Operation, rm: u32, tuples: &[[u64; 3]]) -> Vec<Outcome> {
    let rm = rounding(rm);
    let _softfloat = SOFTFLOAT.lock().unwrap_or_else(|e| e.into_inner());
    tuples
        .iter()
        .map(|x| {
            ExceptionFlags::default().set();
            let (value, extra) = match o.dst {
                Fmt::H => compute::<F16>(o, rm, x),
                Fmt::S => compute::<F32>(o, rm, x),
                Fmt::D => compute::<F64>(o, rm, x),
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

/// `x` (a `from` value in the low bits) converted to `to` (low bits).
pub fn convert(from: Fmt, to: Fmt, x: u64, rm: RoundingMode) -> u64 {
    fn to_fmt<T: Sf>(v: T, to: Fmt, rm: RoundingMode) -> u64 {
        match to {
            Fmt::H => v.to_f16(rm).raw(),
            Fmt::S => v.to_f32(rm).raw(),
            Fmt::D => v.to_f64(rm).raw(),
        }
    }
    match from {
        Fmt::H => to_fmt(F16::of(x), to, rm),
        Fmt::S => to_fmt(F32::of(x), to, rm),
        Fmt::D => to_fmt(F64::of(x), to, rm),
    }
}

/// `o` on one tuple, computed in `T` (the destination format; operands of a narrower
/// source format are widened exactly). Returns the register value and flags raised
/// outside SoftFloat.
fn compute<T: Sf>(o: &Operation, rm: RoundingMode, x: &[u64; 3]) -> Outcome {
    let reg = |v: T| v.raw();
    match o.op {
        Op::Convert => return (convert(o.src, o.dst, x[0], rm), 0),
        Op::FromInt(k) => {
            let v = match k {
                Int::W => T::from_i32(x[0] as i32, rm),
                Int::Wu => T::from_u32(x[0] as u32, rm),
                Int::L => T::from_i64(x[0] as i64, rm),
                Int::Lu => T::from_u64(x[0], rm),
            };
            return (reg(v), 0);
        }
        Op::Sgnj | Op::Sgnjn | Op::Sgnjx => return (sign_inject(T::FMT, o.op, x[0], x[1]), 0),
        Op::Class => return (class(T::FMT, x[0]), 0),
        _ => {}
    }
    // Only the instruction's sources are read (and widened: exact, NV for a signaling
    // NaN).
    let mut operands = [T::of(0); 3];
    for (k, v) in x.iter().enumerate().take(o.sources()) {
        operands[k] = if o.src == T::FMT {
            T::of(*v)
        } else {
            T::of(convert(o.src, T::FMT, *v, rm))
        };
    }
    let [a, b, c] = operands;
    let value = match o.op {
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
        Op::Min | Op::Max => return min_max(a, b, o.op == Op::Max),
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
pub fn min_max<T: Sf>(a: T, b: T, max: bool) -> Outcome {
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
    (pick.raw(), nv)
}

pub fn canonical_nan(f: Fmt) -> u64 {
    f.pack(false, f.emax() + 1, 1 << (f.frac() - 1))
}

/// fsgnj/fsgnjn/fsgnjx: a's magnitude bits with b's sign, its complement, or the xor of
/// both signs; NaNs are not special.
pub fn sign_inject(f: Fmt, op: Op, a: u64, b: u64) -> u64 {
    let sign = match op {
        Op::Sgnj => b,
        Op::Sgnjn => !b,
        _ => a ^ b,
    } & f.sign();
    a & f.mask() & !f.sign() | sign
}

/// fclass: bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0, 5 positive
/// subnormal, 6 positive normal, 7 +inf, 8 signaling NaN, 9 quiet NaN.
pub fn class(f: Fmt, x: u64) -> u64 {
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
pub fn special(rng: &mut Rng, f: Fmt) -> u64 {
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
pub fn partner(rng: &mut Rng, f: Fmt, op: Op, a: u64) -> u64 {
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
pub fn addend(rng: &mut Rng, f: Fmt, a: u64, b: u64) -> u64 {
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
pub fn truncated(f: Fmt, negative: bool, sig: u128, exp: i32) -> u64 {
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
pub fn integer(rng: &mut Rng, bits: u32) -> u64 {
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

pub fn flag_names(f: u8) -> String {
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

/// One operand tuple for `o` (low bits of each source format; integers for conversions
/// from integers): specials, partners that cancel or tie, addends near the product.
pub fn operands(rng: &mut Rng, o: &Operation) -> [u64; 3] {
    let f = o.src;
    if let Op::FromInt(k) = o.op {
        return [integer(rng, k.bits()), 0, 0];
    }
    let a = special(rng, f);
    let b = if rng.chance(40) {
        partner(rng, f, o.op, a)
    } else {
        special(rng, f)
    };
    let c = if rng.chance(50) {
        addend(rng, f, a, b)
    } else {
        special(rng, f)
    };
    [a, b, c]
}

/// TestFloat's corner values of `f`, both signs: zero, the smallest and largest
/// subnormals and a few between, the smallest normals, one and its neighbours, values
/// with runs of ones and zeros in the fraction, the largest finite numbers, infinity,
/// quiet NaNs (canonical and with payloads) and signaling NaNs.
pub fn corners(f: Fmt) -> Vec<u64> {
    let frac_mask = (1u64 << f.frac()) - 1;
    let quiet = 1u64 << (f.frac() - 1);
    let half = f.frac() / 2;
    let fracs = [
        0,
        1,
        2,
        3,
        frac_mask,
        frac_mask - 1,
        quiet,
        quiet - 1,
        quiet + 1,
        (1 << half) - 1,
        frac_mask ^ ((1 << half) - 1),
        0x5555_5555_5555_5555 & frac_mask,
        0xaaaa_aaaa_aaaa_aaaa & frac_mask,
    ];
    let top = f.emax() + 1;
    let bias = f.bias() as u64;
    let exps = [
        0,
        1,
        2,
        f.frac() as u64,
        f.frac() as u64 + 1,
        bias - 1,
        bias,
        bias + 1,
        bias + f.frac() as u64,
        f.emax() - 1,
        f.emax(),
        top,
    ];
    let mut out = Vec::new();
    for negative in [false, true] {
        for &e in &exps {
            for &m in &fracs {
                out.push(f.pack(negative, e, m));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

impl Fmt {
    pub const ALL: [Fmt; 3] = [Fmt::H, Fmt::S, Fmt::D];

    /// The generator's description of this format.
    pub fn format(self) -> generators::fpu::FloatFormat {
        match self {
            Fmt::H => generators::fpu::HALF,
            Fmt::S => generators::fpu::SINGLE,
            Fmt::D => generators::fpu::DOUBLE,
        }
    }
}

/// A fused multiply-add triple at a rounding decision that only an exact a*b+c gets
/// right: a product at the overflow boundary or in the subnormal range plus a tiny
/// addend of either sign (the addend decides the rounding direction there), an addend
/// dominating a product 1..=8 binades below its last place (the product is all sticky
/// bits, ties and near-ties in every mode), and a product of a power of two and a short
/// significand at half an ulp (or a quarter, or two) of the addend.
pub fn fma_operands(rng: &mut Rng, f: Fmt) -> [u64; 3] {
    let p = f.frac() as i64 + 1;
    let bias = f.bias() as i64;
    let emax = f.emax() as i64;
    let frac_mask = (1u64 << f.frac()) - 1;
    let frac = |rng: &mut Rng| {
        let any = special(rng, f) & frac_mask;
        *rng.pick(&[0, 1, frac_mask, frac_mask - 1, 1 << (f.frac() - 1), any])
    };
    let tiny = |rng: &mut Rng| f.pack(rng.chance(50), rng.below(2), frac(rng));
    // `a` of biased exponent `ea` and `b` so that the product's biased exponent is
    // `target` (before normalization); None when `b` would not be a finite normal.
    let pair = |rng: &mut Rng, ea: i64, target: i64| {
        let eb = target - ea + bias;
        (1..=emax).contains(&eb).then(|| {
            let a = f.pack(rng.chance(50), ea as u64, frac(rng));
            (a, f.pack(rng.chance(50), eb as u64, frac(rng)))
        })
    };
    let ea = rng.range(1, emax as u32) as i64;
    let ec = rng.range(1, emax as u32) as i64;
    let kind = rng.below(4);
    let target = match kind {
        0 => emax - 1 + rng.below(3) as i64,
        1 => 2 - rng.below(p as u64 + 3) as i64,
        2 => ec - p - rng.range(1, 8) as i64,
        _ => ec - p + rng.range(0, 2) as i64 - 1,
    };
    let c = match kind {
        0 | 1 => tiny(rng),
        2 => f.pack(rng.chance(50), ec as u64, frac(rng)),
        _ => {
            let short = frac(rng) & !((1 << rng.below(f.frac() as u64)) - 1);
            f.pack(rng.chance(50), ec as u64, short)
        }
    };
    let power_of_two = f.pack(rng.chance(50), ea as u64, 0);
    let triple = pair(rng, ea, target).map(|(a, b)| match kind {
        3 => [power_of_two, b, c],
        _ => [a, b, c],
    });
    triple.unwrap_or_else(|| [special(rng, f), special(rng, f), special(rng, f)])
}

pub mod unit;
