//! Floating point in half, single and double precision (Tables 7.8-7.10), IEEE-754 exact
//! with RISC-V's rules, on the `rustc_apfloat` soft-float library (a port of LLVM's
//! APFloat: every rounding mode, status flags per operation, no host FPU and no global
//! state, so parallel tests cannot disturb each other's flags).
//!
//! RISC-V rules applied on top of the library: every NaN result is the canonical NaN;
//! fmin/fmax return the non-NaN operand and order -0 below +0; conversions to integers
//! saturate (NaN converts to the largest value) and raise invalid; the fused
//! multiply-adds raise invalid for infinity times zero even with a quiet-NaN addend; and
//! tininess is detected after rounding, which the library does only for results that
//! stay subnormal (see `tiny_after_rounding`).
//!
//! Hwacha keeps floating-point values in the same registers as integers, so there is no
//! NaN boxing: an operand is the low bits of its register, and a half or single result is
//! written sign-extended to 64 bits, as the Hwacha ISA simulator does.

use rustc_apfloat::ieee::{Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status, StatusAnd};
use std::cmp::Ordering;

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
    Convert { from: Fmt, to: Fmt },
    Cmp(FCmp, Fmt),
}

impl FpOp {
    /// The operation a `vf...`/`vcmpf...` name stands for; `None` for the mixed-precision
    /// forms (`vfadd.s.h`, ...), which are not in the thesis's tables.
    pub fn of(name: &str) -> Option<FpOp> {
        let parts: Vec<&str> = name.split('.').collect();
        let fmt = |k: usize| parts.get(k).and_then(|s| Fmt::of(s));
        match parts.as_slice() {
            [op, f] => {
                let f = Fmt::of(f)?;
                Some(match *op {
                    "vfadd" => FpOp::Arith(Arith::Add, f),
                    "vfsub" => FpOp::Arith(Arith::Sub, f),
                    "vfmul" => FpOp::Arith(Arith::Mul, f),
                    "vfdiv" => FpOp::Arith(Arith::Div, f),
                    "vfmin" => FpOp::Arith(Arith::Min, f),
                    "vfmax" => FpOp::Arith(Arith::Max, f),
                    "vfsgnj" => FpOp::Arith(Arith::Sgnj, f),
                    "vfsgnjn" => FpOp::Arith(Arith::Sgnjn, f),
                    "vfsgnjx" => FpOp::Arith(Arith::Sgnjx, f),
                    "vfsqrt" => FpOp::Sqrt(f),
                    "vfclass" => FpOp::Class(f),
                    "vfmadd" => FpOp::Fma(Fma::Madd, f),
                    "vfmsub" => FpOp::Fma(Fma::Msub, f),
                    "vfnmsub" => FpOp::Fma(Fma::Nmsub, f),
                    "vfnmadd" => FpOp::Fma(Fma::Nmadd, f),
                    "vcmpfeq" => FpOp::Cmp(FCmp::Eq, f),
                    "vcmpflt" => FpOp::Cmp(FCmp::Lt, f),
                    "vcmpfle" => FpOp::Cmp(FCmp::Le, f),
                    _ => return None,
                })
            }
            ["vfcvt", to, from] => match (fmt(1), fmt(2)) {
                (Some(to), Some(from)) => Some(FpOp::Convert { from, to }),
                (None, Some(from)) => Some(FpOp::ToInt(from, IntKind::of(to)?)),
                (Some(to), None) => Some(FpOp::FromInt(IntKind::of(from)?, to)),
                (None, None) => None,
            },
            _ => None,
        }
    }

    /// Element width the operation needs of source (`dest` false) or destination
    /// registers.
    pub fn precision(self, dest: bool) -> u32 {
        match self {
            FpOp::Arith(_, f) | FpOp::Sqrt(f) | FpOp::Fma(_, f) => f.bits(),
            FpOp::Class(f) | FpOp::Cmp(_, f) => {
                if dest {
                    64
                } else {
                    f.bits()
                }
            }
            FpOp::ToInt(f, i) => {
                if dest {
                    i.bits()
                } else {
                    f.bits()
                }
            }
            FpOp::FromInt(i, f) => {
                if dest {
                    f.bits()
                } else {
                    i.bits()
                }
            }
            FpOp::Convert { from, to } => {
                if dest {
                    to.bits()
                } else {
                    from.bits()
                }
            }
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
                Fmt::H => $call::<Half>($($arg),*),
                Fmt::S => $call::<Single>($($arg),*),
                Fmt::D => $call::<Double>($($arg),*),
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
            (Fmt::H, Fmt::S) => convert::<Half, Single>(a, round),
            (Fmt::H, Fmt::D) => convert::<Half, Double>(a, round),
            (Fmt::S, Fmt::H) => convert::<Single, Half>(a, round),
            (Fmt::S, Fmt::D) => convert::<Single, Double>(a, round),
            (Fmt::D, Fmt::H) => convert::<Double, Half>(a, round),
            (Fmt::D, Fmt::S) => convert::<Double, Single>(a, round),
            // Same-format conversions are not encoded.
            _ => (a, 0),
        },
    }
}

fn width<T: Float>() -> u32 {
    T::BITS as u32
}

/// The operand in the low bits of a register.
fn get<T: Float>(x: u64) -> T {
    T::from_bits((x & mask::<T>()) as u128)
}

fn mask<T: Float>() -> u64 {
    u64::MAX >> (64 - width::<T>())
}

/// Register value of a result: canonical NaN for any NaN, sign-extended.
fn put<T: Float>(x: T) -> u64 {
    let x = if x.is_nan() { T::NAN } else { x };
    let bits = x.to_bits() as u64;
    let shift = 64 - width::<T>();
    (((bits << shift) as i64) >> shift) as u64
}

fn done<T: Float>(r: StatusAnd<T>) -> Outcome {
    (put(r.value), fflags(r.status))
}

fn sign_bit<T: Float>() -> u64 {
    1 << (width::<T>() - 1)
}

/// IEEE 754 (after rounding, as RISC-V) calls a result tiny when rounding it to the
/// format's precision with an unbounded exponent gives a magnitude below the smallest
/// normal number. The library raises underflow only when its (bounded) result is
/// subnormal, which misses inexact results that round up to the smallest normal number
/// while the unbounded rounding stays below it. For those, `scaled(s)` recomputes the
/// operation on operands scaled so that the result is 2^s times larger (exactly, the
/// operands being scaled by powers of two), far from the subnormal range, and its
/// magnitude decides.
fn tiny_after_rounding<T: Float>(
    mut r: StatusAnd<T>,
    scaled: impl Fn(i32) -> StatusAnd<T>,
) -> StatusAnd<T> {
    let s = T::PRECISION as i32 + 4;
    if r.status.contains(Status::INEXACT)
        && !r.status.contains(Status::UNDERFLOW)
        && r.value.abs().bitwise_eq(T::smallest_normalized())
    {
        let big = scaled(s).value.abs();
        if big < T::smallest_normalized().scalbn(s) {
            r.status |= Status::UNDERFLOW;
        }
    }
    r
}

/// IEEE 754 overflow: the result rounded with an unbounded exponent exceeds the largest
/// finite number. The library flags it only when it rounds to infinity, returns the
/// largest finite number unflagged when it truncates, and picks the wrong one of the two
/// for negative results under the directed modes. Any result that may have overflowed
/// (flagged, or an inexact largest finite number) is decided on the operation
/// recomputed 2^s times smaller (`scaled(-s)`, operands scaled exactly), whose rounding
/// is unbounded; an overflowed result is then infinity or the largest finite number, as
/// the rounding direction and sign say, with OF and NX.
fn overflow<T: Float>(
    r: StatusAnd<T>,
    round: Round,
    scaled: impl Fn(i32) -> StatusAnd<T>,
) -> StatusAnd<T> {
    let s = T::PRECISION as i32 + 4;
    let flagged = r.status.contains(Status::OVERFLOW);
    let maybe = r.status.contains(Status::INEXACT) && r.value.abs().bitwise_eq(T::largest());
    let over = flagged || (maybe && scaled(-s).value.abs() > T::largest().scalbn(-s));
    if !over {
        return r;
    }
    overflowed(r.value.is_negative(), round)
}

/// The result of an overflow toward `round`.
fn overflowed<T: Float>(negative: bool, round: Round) -> StatusAnd<T> {
    let to_infinity = match round {
        Round::NearestTiesToEven | Round::NearestTiesToAway => true,
        Round::TowardZero => false,
        Round::TowardPositive => !negative,
        Round::TowardNegative => negative,
    };
    let v = if to_infinity {
        T::INFINITY
    } else {
        T::largest()
    };
    (Status::OVERFLOW | Status::INEXACT).and(if negative { -v } else { v })
}

fn arith<T: Float>(k: Arith, a: u64, b: u64, round: Round) -> Outcome {
    let (x, y) = (get::<T>(a), get::<T>(b));
    let nv = |t: T| t.is_signaling();
    match k {
        Arith::Add => done(overflow(x.add_r(y, round), round, |s| {
            x.scalbn(s).add_r(y.scalbn(s), round)
        })),
        Arith::Sub => done(overflow(x.sub_r(y, round), round, |s| {
            x.scalbn(s).sub_r(y.scalbn(s), round)
        })),
        Arith::Mul => {
            // Scaling the smaller operand up, or the larger one down, stays exact.
            let r = overflow(x.mul_r(y, round), round, |s| {
                if x.abs() >= y.abs() {
                    x.scalbn(s).mul_r(y, round)
                } else {
                    x.mul_r(y.scalbn(s), round)
                }
            });
            done(tiny_after_rounding(r, |s| {
                if x.abs() <= y.abs() {
                    x.scalbn(s).mul_r(y, round)
                } else {
                    x.mul_r(y.scalbn(s), round)
                }
            }))
        }
        Arith::Div => {
            let one = T::from_u128(1).value;
            let r = overflow(x.div_r(y, round), round, |s| {
                if x.abs() >= one {
                    x.scalbn(s).div_r(y, round)
                } else {
                    x.div_r(y.scalbn(-s), round)
                }
            });
            done(tiny_after_rounding(r, |s| {
                if x.abs() <= one {
                    x.scalbn(s).div_r(y, round)
                } else {
                    x.div_r(y.scalbn(-s), round)
                }
            }))
        }
        Arith::Min | Arith::Max => {
            let flags = if nv(x) || nv(y) { flags::NV } else { 0 };
            let pick = match (x.is_nan(), y.is_nan()) {
                (true, true) => T::NAN,
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
            let sign = sign_bit::<T>();
            let (a, b) = (a & mask::<T>(), b & mask::<T>());
            let s = match k {
                Arith::Sgnj => b & sign,
                Arith::Sgnjn => !b & sign,
                _ => (a ^ b) & sign,
            };
            let bits = (a & !sign) | s;
            let shift = 64 - width::<T>();
            ((((bits << shift) as i64) >> shift) as u64, 0)
        }
    }
}

fn fma<T: Float>(k: Fma, a: u64, b: u64, c: u64, round: Round) -> Outcome {
    let (mut x, y, mut z) = (get::<T>(a), get::<T>(b), get::<T>(c));
    if matches!(k, Fma::Nmsub | Fma::Nmadd) {
        x = -x;
    }
    if matches!(k, Fma::Msub | Fma::Nmadd) {
        z = -z;
    }
    let inf_times_zero = (x.is_infinite() && y.is_zero()) || (x.is_zero() && y.is_infinite());
    let r = overflow(x.mul_add_r(y, z, round), round, |s| {
        if x.abs() >= y.abs() {
            x.scalbn(s).mul_add_r(y, z.scalbn(s), round)
        } else {
            x.mul_add_r(y.scalbn(s), z.scalbn(s), round)
        }
    });
    let mut r = tiny_after_rounding(r, |s| {
        if x.abs() <= y.abs() {
            x.scalbn(s).mul_add_r(y, z.scalbn(s), round)
        } else {
            x.mul_add_r(y.scalbn(s), z.scalbn(s), round)
        }
    });
    if inf_times_zero {
        r.status |= Status::INVALID_OP;
    }
    done(r)
}

/// Correctly rounded square root: the integer square root of the significand, with a
/// sticky bit for the remainder, rounded once by the library. A square root is never
/// subnormal and never overflows, so that single rounding is the only one.
fn sqrt<T: Float>(a: u64, round: Round) -> Outcome {
    let x = get::<T>(a);
    if x.is_nan() {
        return (put(T::NAN), if x.is_signaling() { flags::NV } else { 0 });
    }
    if x.is_zero() {
        return (put(x), 0);
    }
    if x.is_negative() {
        return (put(T::NAN), flags::NV);
    }
    if x.is_infinite() {
        return (put(x), 0);
    }
    // x = m * 2^e with m an integer of PRECISION bits.
    let p = T::PRECISION as i32;
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
    let r = T::from_u128_r((q << 1) | sticky, round);
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
fn class<T: Float>(a: u64) -> Outcome {
    let x = get::<T>(a);
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
fn compare<T: Float>(k: FCmp, a: u64, b: u64) -> Outcome {
    let (x, y) = (get::<T>(a), get::<T>(b));
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
fn to_int<T: Float>(kind: IntKind, a: u64, round: Round) -> Outcome {
    let x = get::<T>(a);
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

/// Integer to float: 32-bit sources use the low half of the register. Only half
/// precision can overflow; a result the library truncated to the largest finite number
/// overflowed exactly when the integer reaches 2^(emax+1) (the power of two above it).
fn from_int<T: Float>(kind: IntKind, a: u64, round: Round) -> Outcome {
    let v: i128 = match kind {
        IntKind::W => a as i32 as i128,
        IntKind::Wu => a as u32 as i128,
        IntKind::L => a as i64 as i128,
        IntKind::Lu => a as i128,
    };
    let r = T::from_i128_r(v, round);
    let limit = T::largest().ilogb() + 1;
    let flagged = r.status.contains(Status::OVERFLOW);
    let truncated = r.value.abs().bitwise_eq(T::largest()) && v.unsigned_abs() >> limit != 0;
    if flagged || truncated {
        return done(overflowed::<T>(v < 0, round));
    }
    done(r)
}

fn convert<F, T>(a: u64, round: Round) -> Outcome
where
    F: Float + FloatConvert<T>,
    T: Float,
{
    let x = get::<F>(a);
    let mut loses = false;
    let r: StatusAnd<T> = x.convert_r(round, &mut loses);
    let r = overflow(r, round, |s| x.scalbn(s).convert_r(round, &mut false));
    let r = tiny_after_rounding(r, |s| x.scalbn(s).convert_r(round, &mut false));
    let mut f = fflags(r.status);
    // Only a signaling NaN makes a conversion invalid.
    if x.is_nan() {
        f = if x.is_signaling() { flags::NV } else { 0 };
    }
    (put(r.value), f)
}
