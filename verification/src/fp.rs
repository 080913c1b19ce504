//! Floating point in half, single and double precision, IEEE-754 exact with RISC-V's
//! rules, on the `rustc_apfloat` soft-float library (a port of LLVM's APFloat: every
//! rounding mode, status flags per operation, no host FPU and no global state, so parallel
//! tests cannot disturb each other's flags). Shared by the Hwacha golden model (Tables
//! 7.8-7.10 of Lee's thesis) and the ISS's F and D extensions (`iss::fp`).
//!
//! RISC-V rules applied on top of the library: every NaN result is the canonical NaN;
//! fmin/fmax return the non-NaN operand and order -0 below +0; conversions to integers
//! saturate (NaN converts to the largest value) and raise invalid; the fused
//! multiply-adds raise invalid for infinity times zero even with a quiet-NaN addend; and
//! overflow and tininess (after rounding) are decided on the result rounded with an
//! unbounded exponent, which the library does not do (see `unbounded`).
//!
//! Operands are the low bits of a 64-bit value and results come back sign-extended to 64
//! bits, as Hwacha keeps them (floating-point values share its integer registers, with no
//! NaN boxing). NaN boxing is the caller's: the ISS unboxes its operands and boxes its
//! results.
//!
//! The mixed-precision forms `vf<op>.<D>.<S>` of the Hwacha encoding file (add, sub, mul
//! and the fused multiply-adds, Table 7.8 does not list them and the thesis leaves their
//! semantics to Ou's thesis) are read here as: every source is an S value (an S-bit
//! register suffices), widened exactly to D, and the operation is D's, rounded once,
//! with a D result. A signaling-NaN source raises invalid, as its widening does. This is
//! our assumption.

use rustc_apfloat::ieee::{DoubleS, HalfS, IeeeFloat, Semantics, SingleS};
use rustc_apfloat::{Float, FloatConvert, Round, Status, StatusAnd};
use std::cmp::Ordering;
use std::marker::PhantomData;

/// Floating-point format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    H,
    S,
    D,
}

impl Fmt {
    pub fn of(suffix: &str) -> Option<Fmt> {
        Some(match suffix {
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
}

/// Integer side of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntKind {
    W,
    Wu,
    L,
    Lu,
}

impl IntKind {
    pub fn of(suffix: &str) -> Option<IntKind> {
        Some(match suffix {
            "w" => IntKind::W,
            "wu" => IntKind::Wu,
            "l" => IntKind::L,
            "lu" => IntKind::Lu,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        match self {
            IntKind::W | IntKind::Wu => 32,
            IntKind::L | IntKind::Lu => 64,
        }
    }

    fn signed(self) -> bool {
        matches!(self, IntKind::W | IntKind::L)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Sgnj,
    Sgnjn,
    Sgnjx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fma {
    /// a*b + c
    Madd,
    /// a*b - c
    Msub,
    /// -(a*b) + c
    Nmsub,
    /// -(a*b) - c
    Nmadd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FCmp {
    Eq,
    Lt,
    Le,
}

/// A floating-point operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FpOp {
    Arith(Arith, Fmt),
    Sqrt(Fmt),
    Class(Fmt),
    Fma(Fma, Fmt),
    ToInt(Fmt, IntKind),
    FromInt(IntKind, Fmt),
    Convert {
        from: Fmt,
        to: Fmt,
    },
    Cmp(FCmp, Fmt),
    /// `vf<op>.<to>.<from>`: `op` in `to` on sources of the narrower format `from`.
    Widening {
        op: WideningOp,
        to: Fmt,
        from: Fmt,
    },
}

/// The operations that have mixed-precision forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WideningOp {
    Arith(Arith),
    Fma(Fma),
}

impl WideningOp {
    /// The operation in format `f`.
    fn on(self, f: Fmt) -> FpOp {
        match self {
            WideningOp::Arith(k) => FpOp::Arith(k, f),
            WideningOp::Fma(k) => FpOp::Fma(k, f),
        }
    }
}

/// RISC-V fflags bits.
pub mod flags {
    pub const NX: u8 = 0x01;
    pub const UF: u8 = 0x02;
    pub const OF: u8 = 0x04;
    pub const DZ: u8 = 0x08;
    pub const NV: u8 = 0x10;
}

/// A rounding-mode encoding (RISC-V `rm`, 0-4) as the library's rounding mode.
pub fn round_of(rm: u32) -> Round {
    match rm {
        1 => Round::TowardZero,
        2 => Round::TowardNegative,
        3 => Round::TowardPositive,
        4 => Round::NearestTiesToAway,
        _ => Round::NearestTiesToEven,
    }
}

fn fflags(s: Status) -> u8 {
    let mut f = 0;
    for (bit, flag) in [
        (Status::INVALID_OP, flags::NV),
        (Status::DIV_BY_ZERO, flags::DZ),
        (Status::OVERFLOW, flags::OF),
        (Status::UNDERFLOW, flags::UF),
        (Status::INEXACT, flags::NX),
    ] {
        if s.contains(bit) {
            f |= flag;
        }
    }
    f
}

/// Result bits (sign-extended from the format) and the exception flags raised.
pub type Outcome = (u64, u8);

/// Executes `op` on up to three operands (register values) with rounding `round`.
pub fn execute(op: FpOp, a: u64, b: u64, c: u64, round: Round) -> Outcome {
    macro_rules! on {
        ($f:expr, $call:ident $(, $arg:expr)*) => {
            match $f {
                Fmt::H => $call::<HalfS>($($arg),*),
                Fmt::S => $call::<SingleS>($($arg),*),
                Fmt::D => $call::<DoubleS>($($arg),*),
            }
        };
    }
    match op {
        FpOp::Arith(k, f) => on!(f, arith, k, a, b, round),
        FpOp::Sqrt(f) => on!(f, sqrt, a, round),
        FpOp::Class(f) => on!(f, class, a),
        FpOp::Fma(k, f) => on!(f, fma, k, a, b, c, round),
        FpOp::ToInt(f, i) => on!(f, to_int, i, a, round),
        FpOp::FromInt(i, f) => on!(f, from_int, i, a, round),
        FpOp::Cmp(k, f) => on!(f, compare, k, a, b),
        FpOp::Convert { from, to } => match (from, to) {
            (Fmt::H, Fmt::S) => convert::<HalfS, SingleS>(a, round),
            (Fmt::H, Fmt::D) => convert::<HalfS, DoubleS>(a, round),
            (Fmt::S, Fmt::H) => convert::<SingleS, HalfS>(a, round),
            (Fmt::S, Fmt::D) => convert::<SingleS, DoubleS>(a, round),
            (Fmt::D, Fmt::H) => convert::<DoubleS, HalfS>(a, round),
            (Fmt::D, Fmt::S) => convert::<DoubleS, SingleS>(a, round),
            // Same-format conversions are not encoded.
            _ => (a, 0),
        },
        FpOp::Widening { op, to, from } => {
            // Widening is exact; it raises invalid for a signaling NaN (and makes it the
            // canonical NaN, which the operation then propagates quietly). An operand
            // the instruction does not have is 0 and widens to +0 without a flag.
            let mut flags = 0;
            let mut widen = |x| {
                let (v, f) = execute(FpOp::Convert { from, to }, x, 0, 0, round);
                flags |= f;
                v
            };
            let (a, b, c) = (widen(a), widen(b), widen(c));
            let (value, f) = execute(op.on(to), a, b, c, round);
            (value, f | flags)
        }
    }
}

fn width<S: Semantics>() -> u32 {
    S::BITS as u32
}

/// The operand in the low bits of a register.
fn get<S: Semantics>(x: u64) -> IeeeFloat<S> {
    IeeeFloat::<S>::from_bits((x & mask::<S>()) as u128)
}

fn mask<S: Semantics>() -> u64 {
    u64::MAX >> (64 - width::<S>())
}

/// Register value of a result: canonical NaN for any NaN, sign-extended.
fn put<S: Semantics>(x: IeeeFloat<S>) -> u64 {
    let x = if x.is_nan() { IeeeFloat::<S>::NAN } else { x };
    let bits = x.to_bits() as u64;
    let shift = 64 - width::<S>();
    (((bits << shift) as i64) >> shift) as u64
}

fn done<S: Semantics>(r: StatusAnd<IeeeFloat<S>>) -> Outcome {
    (put(r.value), fflags(r.status))
}

fn sign_bit<S: Semantics>() -> u64 {
    1 << (width::<S>() - 1)
}

/// The precision of `S` with a 16-bit exponent, a range no operation here can leave: an
/// operation computed in it is rounded once, as with an unbounded exponent.
struct Unbounded<S>(PhantomData<S>);

impl<S: Semantics> Semantics for Unbounded<S> {
    const BITS: usize = S::PRECISION + 16;
    const EXP_BITS: usize = 16;
}

type Wide<S> = IeeeFloat<Unbounded<S>>;

/// `x` exactly, with an unbounded exponent.
fn wide<S: Semantics>(x: IeeeFloat<S>) -> Wide<S> {
    x.convert(&mut false).value
}

/// IEEE 754 decides overflow and tininess (after rounding, as RISC-V) on `w`, the result
/// rounded to the format's precision with an unbounded exponent. The library flags
/// overflow only when it rounds to infinity, returns the largest finite number unflagged
/// when it truncates, and picks the wrong one of the two for negative results under the
/// directed modes; it raises underflow only for subnormal results, which misses inexact
/// ones that round up to the smallest normal number. So `r`, the library's result, stands
/// unless `w` exceeds the largest finite number (then the result is infinity or the
/// largest finite number, as the rounding direction and sign say, with OF and NX); and
/// UF is raised exactly when `w` is nonzero and below the smallest normal number and the
/// result inexact.
fn unbounded<S: Semantics>(
    mut r: StatusAnd<IeeeFloat<S>>,
    w: Wide<S>,
    round: Round,
) -> StatusAnd<IeeeFloat<S>> {
    if !w.is_finite_non_zero() {
        return r;
    }
    if w.abs() > wide(IeeeFloat::<S>::largest()) {
        return overflowed(w.is_negative(), round);
    }
    let tiny = w.abs() < wide(IeeeFloat::<S>::smallest_normalized());
    r.status.remove(Status::UNDERFLOW);
    if tiny && r.status.contains(Status::INEXACT) {
        r.status |= Status::UNDERFLOW;
    }
    r
}

/// The result of an overflow toward `round`.
fn overflowed<S: Semantics>(negative: bool, round: Round) -> StatusAnd<IeeeFloat<S>> {
    let to_infinity = match round {
        Round::NearestTiesToEven | Round::NearestTiesToAway => true,
        Round::TowardZero => false,
        Round::TowardPositive => !negative,
        Round::TowardNegative => negative,
    };
    let v = if to_infinity {
        IeeeFloat::<S>::INFINITY
    } else {
        IeeeFloat::<S>::largest()
    };
    (Status::OVERFLOW | Status::INEXACT).and(if negative { -v } else { v })
}

fn arith<S: Semantics>(k: Arith, a: u64, b: u64, round: Round) -> Outcome {
    let (x, y) = (get::<S>(a), get::<S>(b));
    let nv = |t: IeeeFloat<S>| t.is_signaling();
    let (wx, wy) = (wide(x), wide(y));
    match k {
        Arith::Add => done(unbounded(
            x.add_r(y, round),
            wx.add_r(wy, round).value,
            round,
        )),
        Arith::Sub => done(unbounded(
            x.sub_r(y, round),
            wx.sub_r(wy, round).value,
            round,
        )),
        Arith::Mul => done(unbounded(
            x.mul_r(y, round),
            wx.mul_r(wy, round).value,
            round,
        )),
        Arith::Div => done(unbounded(
            x.div_r(y, round),
            wx.div_r(wy, round).value,
            round,
        )),
        Arith::Min | Arith::Max => {
            let flags = if nv(x) || nv(y) { flags::NV } else { 0 };
            let pick = match (x.is_nan(), y.is_nan()) {
                (true, true) => IeeeFloat::<S>::NAN,
                (true, false) => y,
                (false, true) => x,
                (false, false) => {
                    // -0 orders below +0.
                    let x_first = match x.partial_cmp(&y) {
                        Some(Ordering::Equal) => x.is_negative() == (k == Arith::Min),
                        order => (order == Some(Ordering::Less)) == (k == Arith::Min),
                    };
                    if x_first {
                        x
                    } else {
                        y
                    }
                }
            };
            (put(pick), flags)
        }
        Arith::Sgnj | Arith::Sgnjn | Arith::Sgnjx => {
            // Pure bit operations: NaNs pass through unchanged.
            let sign = sign_bit::<S>();
            let (a, b) = (a & mask::<S>(), b & mask::<S>());
            let s = match k {
                Arith::Sgnj => b & sign,
                Arith::Sgnjn => !b & sign,
                _ => (a ^ b) & sign,
            };
            let bits = (a & !sign) | s;
            let shift = 64 - width::<S>();
            ((((bits << shift) as i64) >> shift) as u64, 0)
        }
    }
}

fn fma<S: Semantics>(k: Fma, a: u64, b: u64, c: u64, round: Round) -> Outcome {
    let (mut x, y, mut z) = (get::<S>(a), get::<S>(b), get::<S>(c));
    if matches!(k, Fma::Nmsub | Fma::Nmadd) {
        x = -x;
    }
    if matches!(k, Fma::Msub | Fma::Nmadd) {
        z = -z;
    }
    let inf_times_zero = (x.is_infinite() && y.is_zero()) || (x.is_zero() && y.is_infinite());
    let w = wide(x).mul_add_r(wide(y), wide(z), round).value;
    let mut r = unbounded(x.mul_add_r(y, z, round), w, round);
    if inf_times_zero {
        r.status |= Status::INVALID_OP;
    }
    done(r)
}

/// Correctly rounded square root: the integer square root of the significand, with a
/// sticky bit for the remainder, rounded once by the library. A square root is never
/// subnormal and never overflows, so that single rounding is the only one.
fn sqrt<S: Semantics>(a: u64, round: Round) -> Outcome {
    let x = get::<S>(a);
    if x.is_nan() {
        return (
            put(IeeeFloat::<S>::NAN),
            if x.is_signaling() { flags::NV } else { 0 },
        );
    }
    if x.is_zero() {
        return (put(x), 0);
    }
    if x.is_negative() {
        return (put(IeeeFloat::<S>::NAN), flags::NV);
    }
    if x.is_infinite() {
        return (put(x), 0);
    }
    // x = m * 2^e with m an integer of PRECISION bits.
    let p = S::PRECISION as i32;
    let mut e = x.ilogb() - (p - 1);
    let m = x.scalbn(-e);
    let mut m = m.to_u128(128).value;
    if e & 1 != 0 {
        m <<= 1;
        e -= 1;
    }
    // sqrt(m * 2^(2k)) ~ 2^((p-1)/2 + k) has p + 2 or more bits: enough for rounding,
    // the remainder is the sticky bit. m * 2^(2k) < 2^(2p + 7) fits in 128 bits.
    let k = (p + 6) / 2;
    let n = m << (2 * k);
    let q = isqrt(n);
    let sticky = (q * q != n) as u128;
    let r = IeeeFloat::<S>::from_u128_r((q << 1) | sticky, round);
    let value = r.value.scalbn(e / 2 - k - 1);
    (put(value), fflags(r.status))
}

fn isqrt(n: u128) -> u128 {
    // Newton's iteration from above converges to floor(sqrt(n)).
    if n < 2 {
        return n;
    }
    let mut x = 1u128 << (128 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// RISC-V fclass: one bit of ten.
fn class<S: Semantics>(a: u64) -> Outcome {
    let x = get::<S>(a);
    let neg = x.is_negative();
    let bit = if x.is_nan() {
        if x.is_signaling() {
            8
        } else {
            9
        }
    } else if x.is_infinite() {
        if neg {
            0
        } else {
            7
        }
    } else if x.is_zero() {
        if neg {
            3
        } else {
            4
        }
    } else if x.is_denormal() {
        if neg {
            2
        } else {
            5
        }
    } else if neg {
        1
    } else {
        6
    };
    (1 << bit, 0)
}

/// feq is quiet (invalid only for signaling NaNs), flt and fle signal on any NaN.
/// The result is 0 or 1.
fn compare<S: Semantics>(k: FCmp, a: u64, b: u64) -> Outcome {
    let (x, y) = (get::<S>(a), get::<S>(b));
    let nv = match k {
        FCmp::Eq => x.is_signaling() || y.is_signaling(),
        _ => x.is_nan() || y.is_nan(),
    };
    let order = x.partial_cmp(&y);
    let r = match k {
        FCmp::Eq => order == Some(Ordering::Equal),
        FCmp::Lt => order == Some(Ordering::Less),
        FCmp::Le => matches!(order, Some(Ordering::Less | Ordering::Equal)),
    };
    (r as u64, if nv { flags::NV } else { 0 })
}

/// Float to integer, saturating: NaN and values above the range give the largest
/// integer, values below give the smallest; both raise invalid. A 32-bit result is
/// sign-extended (also for wu, as RISC-V's fcvt.wu).
fn to_int<S: Semantics>(kind: IntKind, a: u64, round: Round) -> Outcome {
    let x = get::<S>(a);
    let bits = kind.bits();
    let (min, max): (i128, i128) = if kind.signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let (v, f) = if x.is_nan() {
        (max, flags::NV)
    } else if x.is_infinite() {
        (if x.is_negative() { min } else { max }, flags::NV)
    } else {
        let r = x.round_to_integral(round);
        // The rounded value is an integer below 2^16384; i128 holds every one in range.
        let mut exact = false;
        let i = r.value.to_i128_r(128, Round::TowardZero, &mut exact);
        if i.status.contains(Status::INVALID_OP) {
            (if x.is_negative() { min } else { max }, flags::NV)
        } else if i.value > max {
            (max, flags::NV)
        } else if i.value < min {
            (min, flags::NV)
        } else {
            (i.value, fflags(r.status) & flags::NX)
        }
    };
    let v = v as u64;
    let v = if bits == 32 {
        v as u32 as i32 as i64 as u64
    } else {
        v
    };
    (v, f)
}

/// Integer to float: 32-bit sources use the low half of the register.
fn from_int<S: Semantics>(kind: IntKind, a: u64, round: Round) -> Outcome {
    let v: i128 = match kind {
        IntKind::W => a as i32 as i128,
        IntKind::Wu => a as u32 as i128,
        IntKind::L => a as i64 as i128,
        IntKind::Lu => a as i128,
    };
    let w = Wide::<S>::from_i128_r(v, round).value;
    done(unbounded(IeeeFloat::<S>::from_i128_r(v, round), w, round))
}

fn convert<F: Semantics, T: Semantics>(a: u64, round: Round) -> Outcome {
    let x = get::<F>(a);
    let w: Wide<T> = x.convert_r(round, &mut false).value;
    let r = unbounded(x.convert_r(round, &mut false), w, round);
    let mut f = fflags(r.status);
    // Only a signaling NaN makes a conversion invalid.
    if x.is_nan() {
        f = if x.is_signaling() { flags::NV } else { 0 };
    }
    (put(r.value), f)
}
