//! The FMA's operation decode and its special cases: which operands the datapath sees for
//! each `op`, the signs of product and addend, and the results that bypass the datapath
//! (NaNs, infinities, a zero product), with IEEE 754-2008 section 7.2's invalid cases as
//! RISC-V and Berkeley SoftFloat's `riscv` specialization raise them (inf * 0 is invalid
//! even when the addend is a quiet NaN) and section 6.3's signs of exact zeros.

use super::super::format::FloatFormat;
use super::super::round::{flags, rm};
use super::super::unpack::{unpack, Unpacked};
use super::op;
use hdl::{Bits, Value};

/// The operands as the datapath computes them: `(-1)^neg_product * a * b + (-1)^... c`.
pub struct Operands {
    pub a: Unpacked,
    pub b: Unpacked,
    pub c: Unpacked,
    /// Sign of the product after `op`'s negation.
    pub sign_p: Value,
    /// Sign of the addend after `op`'s negation.
    pub sign_c: Value,
    /// The addend's encoding (for a zero product, the result is the addend itself).
    pub c_bits: Value,
}

/// Maps `op` onto `(-1)^np * a * b + (-1)^nc * c`: add and sub multiply `a` by one and
/// take `b` as the addend; mul adds a zero of the product's sign (as Rocket feeds
/// HardFloat's `MulAddRecFN`), which leaves every product, zero or not, unchanged.
pub fn decode(fmt: FloatFormat, op_sel: &Value, a: &Value, b: &Value, c: &Value) -> Operands {
    let w = fmt.width();
    let is = |code: u64| op_sel.eq(&op_sel.konst(Bits::from_u64(3, code)));
    let is_mul = &is(op::MUL) | &is(op::MUL_ALT);
    let is_addsub = &is(op::ADD) | &is(op::SUB);
    let one = a.konst(Bits::from_u64(w, fmt.pack(false, fmt.bias() as u64, 0)));
    let b_eff = is_addsub.mux(&one, b);
    let product_sign = a.bit(w - 1) ^ b_eff.bit(w - 1);
    let signed_zero = product_sign.cat(&a.konst(Bits::zero(w - 1)));
    let c_eff = is_mul.mux(&signed_zero, &is_addsub.mux(b, c));
    let neg_product = &op_sel.bit(1) & &!op_sel.bit(2);
    let neg_addend = &op_sel.bit(0) & &!&is_mul;
    let (ua, ub, uc) = (unpack(fmt, a), unpack(fmt, &b_eff), unpack(fmt, &c_eff));
    Operands {
        sign_p: &(&ua.sign ^ &ub.sign) ^ &neg_product,
        sign_c: &uc.sign ^ &neg_addend,
        a: ua,
        b: ub,
        c: uc,
        c_bits: c_eff,
    }
}

/// A result that bypasses the datapath: `hit` selects `bits` and `flags` (NV only).
pub struct Special {
    pub hit: Value,
    pub bits: Value,
    pub flags: Value,
}

/// NaN (canonical, with NV for a signaling operand, inf * 0, or inf - inf), infinity, a
/// zero product plus a zero addend (the sign of the exact sum, or +0 / -0 in RDN for
/// opposite signs), and a zero product plus a nonzero finite addend (the addend).
pub fn special(fmt: FloatFormat, x: &Operands, rm_sel: &Value) -> Special {
    let (a, b, c) = (&x.a, &x.b, &x.c);
    let w = fmt.width();
    let k = |v: u64, width: u32| rm_sel.konst(Bits::from_u64(width, v));
    let signaling = &(&a.is_snan | &b.is_snan) | &c.is_snan;
    let inf_times_zero = &(&a.is_inf & &b.is_zero) | &(&a.is_zero & &b.is_inf);
    let ab_nan = &a.is_nan | &b.is_nan;
    let product_inf = &(&(&a.is_inf | &b.is_inf) & &!&ab_nan) & &!&inf_times_zero;
    let opposite = &x.sign_p ^ &x.sign_c;
    let inf_minus_inf = &(&product_inf & &c.is_inf) & &opposite;
    let invalid = &(&signaling | &inf_times_zero) | &inf_minus_inf;
    let nan = &(&(&ab_nan | &c.is_nan) | &inf_times_zero) | &inf_minus_inf;
    let product_zero = &(&a.is_zero | &b.is_zero) & &!&(&ab_nan | &inf_times_zero);
    let infinite = &product_inf | &c.is_inf;

    let rdn = rm_sel.eq(&k(rm::RDN, rm_sel.width()));
    let zero_sign = opposite.mux(&rdn, &x.sign_p);
    let magnitude = x.c_bits.slice(w - 2, 0);
    let zero_or_addend = c
        .is_zero
        .mux(&zero_sign.cat(&k(0, w - 1)), &x.sign_c.cat(&magnitude));
    let inf_sign = product_inf.mux(&x.sign_p, &x.sign_c);
    let inf = inf_sign.cat(&k(fmt.pack(false, u64::MAX, 0), w - 1));
    let bits = nan.mux(
        &k(fmt.canonical_nan(), w),
        &infinite.mux(&inf, &zero_or_addend),
    );
    let nv = k(flags::NV, 5);
    Special {
        hit: &(&nan | &infinite) | &product_zero,
        bits,
        flags: invalid.mux(&nv, &k(0, 5)),
    }
}

/// The sign of a sum that is not special: an exact zero of opposite-signed terms is +0,
/// or -0 in RDN (section 6.3).
pub fn sum_sign(sign: &Value, exact_zero: &Value, rm_sel: &Value) -> Value {
    let rdn = rm_sel.eq(&rm_sel.konst(Bits::from_u64(rm_sel.width(), rm::RDN)));
    exact_zero.mux(&rdn, sign)
}

/// The unit's output: the special result where one applies, else the rounded one.
pub fn select(s: &Special, bits: &Value, flags: &Value) -> (Value, Value) {
    (s.hit.mux(&s.bits, bits), s.hit.mux(&s.flags, flags))
}
