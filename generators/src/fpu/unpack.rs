//! Operand unpacking shared by every floating-point unit: the IEEE 754 classes (section
//! 3.4's encodings) and the value as sign, unbounded exponent and normalized significand,
//! subnormals normalized here once (the role of Berkeley HardFloat's recoded format).

use super::format::FloatFormat;
use crate::arith::lzc::normalize;
use hdl::{Bits, Value};

/// An operand taken apart. For a finite nonzero operand the value is
/// `(-1)^sign * sig / 2^(sig_bits - 1) * 2^exp` with `sig`'s top bit set.
#[derive(Clone, Debug)]
pub struct Unpacked {
    pub sign: Value,
    /// Signed, `fmt.exp_width()` bits: `emax + 1` for infinities and NaNs.
    pub exp: Value,
    /// `fmt.sig_bits` bits; zero for a zero, the fraction with a leading one for NaNs
    /// and infinities of normal encodings (not meaningful there).
    pub sig: Value,
    pub is_zero: Value,
    pub is_subnormal: Value,
    pub is_inf: Value,
    pub is_nan: Value,
    /// A NaN whose quiet bit (the fraction's top bit) is clear.
    pub is_snan: Value,
}

impl Unpacked {
    /// Neither infinite nor NaN.
    pub fn is_finite(&self) -> Value {
        !(&self.is_inf | &self.is_nan)
    }
}

/// A signed constant of `width` bits in `like`'s module.
pub fn signed_const(like: &Value, width: u32, value: i64) -> Value {
    like.konst(Bits::from_u64(width, value as u64)).as_signed()
}

/// Unpacks the low `fmt.width()` bits of `x` (upper bits are ignored).
pub fn unpack(fmt: FloatFormat, x: &Value) -> Unpacked {
    let x = x.as_unsigned();
    let (w, f) = (fmt.width(), fmt.frac_bits());
    let ew = fmt.exp_width();
    let exp_field = x.slice(w - 2, f);
    let frac = x.slice(f - 1, 0);
    let exp_zero = !exp_field.or_r();
    let exp_ones = exp_field.and_r();
    let frac_zero = !frac.or_r();
    let is_nan = &exp_ones & &!&frac_zero;
    let (sig, lz) = normalize(&(!&exp_zero).cat(&frac));
    let is_subnormal = &exp_zero & &!&frac_zero;
    let normal_exp = &exp_field.zext(ew).as_signed() - &signed_const(&x, ew, fmt.bias());
    let subnormal_exp = &signed_const(&x, ew, fmt.emin()) - &lz.zext(ew).as_signed();
    Unpacked {
        sign: x.bit(w - 1),
        exp: is_subnormal.mux(&subnormal_exp, &normal_exp),
        sig,
        is_zero: &exp_zero & &frac_zero,
        is_subnormal,
        is_inf: &exp_ones & &frac_zero,
        is_snan: &is_nan & &!frac.bit(f - 1),
        is_nan,
    }
}
