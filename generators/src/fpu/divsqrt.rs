//! `fpu-divsqrt`: an iterative floating-point divider and square root for any binary
//! format (IEEE 754-2008 sections 5.4.1 `division` and `squareRoot`, rounded per section
//! 4.3 with the exceptions of section 7; RISC-V unprivileged spec, F and D chapters:
//! FDIV and FSQRT with canonical NaNs, tininess after rounding and the `fflags` they
//! raise). The counterpart of Berkeley HardFloat's `DivSqrtRecFN_small`: one operation
//! in flight, a shared digit-recurrence datapath for both operations, special operands
//! decided at acceptance.
//!
//! Algorithm: restoring radix-2 digit recurrence, `bits_per_cycle` steps chained per
//! cycle (radix 2^bits_per_cycle). The significand result `Q`, in [1, 2), gets one bit
//! per step, weight `2^-j` at step `j`, from the scaled partial remainder `s`:
//!
//! ```text
//! q_j = s_j >= T_j,   s_(j+1) = 2 (s_j - q_j T_j),   Q_j = Q_(j-1) + q_j 2^-j
//! divide:      s_0 = the dividend significand (doubled when below the divisor's), T_j = divisor
//! square root: s_0 = the radicand significand (doubled for an odd exponent),  T_j = 2 Q_(j-1) + 2^-j
//! ```
//!
//! so that `s_(j+1) / 2^(j+1)` is the exact remainder (`x - Q_j d` or `x - Q_j^2`). The
//! one-hot register `w` holds `2^-j`: it places each result bit, forms the square root's
//! trial term and counts the steps. After `sig_bits + 1` steps (rounded up to a multiple of
//! `bits_per_cycle`), `Q` holds the result's bits and a guard bit (or more), the final
//! remainder's being nonzero is the sticky bit, and `fpu::round` rounds.
//!
//! Interface: `in_valid`/`in_ready` with `op` (`OP_DIV` a/b, `OP_SQRT` of a; b ignored),
//! `rm` (3 bits, RISC-V encoding), `a`, `b`; `out_valid`/`out_ready` with `result` and
//! `flags` (RISC-V `fflags` order NV DZ OF UF NX). `in_ready` is high when no operation
//! is in progress and no result waits, or the waiting result is taken in the same cycle
//! (`out_ready` to `in_ready` is combinational). Latency: `latency` cycles from the
//! accepting edge to `out_valid` for finite nonzero operands (and a positive radicand);
//! `SPECIAL_LATENCY` for the rest (NaNs, infinities, zeros, dividing by zero, negative
//! radicands), decided from the operands' classes at acceptance.

use super::format::{FloatFormat, BFLOAT16, DOUBLE, HALF, SINGLE};
use super::round::{round, RoundIn};
use super::unpack::{unpack, Unpacked};
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::{cat, mux, Bits, HdlErrors, Module, ModuleBuilder, Ty, Value};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// `op` encodings.
pub const OP_DIV: u64 = 0;
pub const OP_SQRT: u64 = 1;

/// Cycles from acceptance to `out_valid` of an operation with a special operand.
pub const SPECIAL_LATENCY: u32 = 1;

/// The most result bits computed per cycle (radix 16).
pub const MAX_BITS_PER_CYCLE: u32 = 4;

/// Format names the `format` parameter accepts.
const FORMATS: &[&str] = &["binary16", "binary32", "binary64", "bfloat16"];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DivSqrtParams {
    /// `binary16`, `binary32`, `binary64` or `bfloat16`.
    pub format: String,
    /// Result bits per cycle: 1 is radix 2, 2 radix 4, up to `MAX_BITS_PER_CYCLE`.
    pub bits_per_cycle: u32,
}

impl Default for DivSqrtParams {
    fn default() -> Self {
        DivSqrtParams {
            format: "binary64".into(),
            bits_per_cycle: 2,
        }
    }
}

impl DivSqrtParams {
    /// The format named by `format`.
    pub fn float_format(&self) -> Result<FloatFormat, ParamError> {
        [HALF, SINGLE, DOUBLE, BFLOAT16]
            .into_iter()
            .find(|f| f.name() == self.format)
            .ok_or_else(|| {
                ParamError::new(
                    "format",
                    format!("is `{}`; accepted: {}", self.format, FORMATS.join(", ")),
                )
            })
    }
}

/// Divide or square root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivSqrtOp {
    Div,
    Sqrt,
}

/// Recurrence steps per operation: the `sig_bits` result bits and a guard bit, rounded up
/// to whole cycles (extra steps only add precision below the guard bit).
pub fn steps(fmt: FloatFormat, bits_per_cycle: u32) -> u32 {
    (fmt.sig_bits + 1).next_multiple_of(bits_per_cycle)
}

/// Cycles from the edge that accepts an operation with finite nonzero operands (a
/// positive radicand) to the first cycle of `out_valid`: one per `bits_per_cycle` steps,
/// then one to leave the last step's register. Both operations take the same time.
pub fn latency(fmt: FloatFormat, op: DivSqrtOp, bits_per_cycle: u32) -> u32 {
    match op {
        DivSqrtOp::Div | DivSqrtOp::Sqrt => steps(fmt, bits_per_cycle) / bits_per_cycle + 1,
    }
}

pub struct DivSqrt;

impl Generator for DivSqrt {
    type Params = DivSqrtParams;
    const NAME: &'static str = "fpu-divsqrt";
    const DESCRIPTION: &'static str =
        "iterative IEEE 754 divide and square root (radix 2^bits_per_cycle digit recurrence), valid/ready";

    fn params() -> Vec<Param> {
        vec![
            Param::choice("format", FORMATS, "operand and result format"),
            Param::int(
                "bits_per_cycle",
                1,
                MAX_BITS_PER_CYCLE.into(),
                "result bits per cycle (1: radix 2, 2: radix 4, ...)",
            ),
        ]
    }

    fn validate(p: &DivSqrtParams) -> Result<(), ParamError> {
        schema::check_fields(&Self::params(), p)?;
        p.float_format().map(|_| ())
    }

    fn build(p: &DivSqrtParams) -> Result<Rc<Module>, HdlErrors> {
        let fmt = p.float_format().expect("validated format");
        divsqrt(fmt, p.bits_per_cycle)
    }
}

/// The registers of the recurrence and of the operation in flight.
struct State {
    sqrt: Value,
    rm: Value,
    sign: Value,
    /// Signed: the result's exponent before rounding.
    exp: Value,
    /// Partial remainder, 3 integer bits and `steps - 1` fraction bits.
    rem: Value,
    /// Result bits so far, weight 2^0 on top.
    quot: Value,
    /// One-hot weight of the next step's bit, aligned with `quot`.
    weight: Value,
    /// The divisor's significand.
    divisor: Value,
    /// A special operand decided the result: which one, and its flags.
    special: Value,
    special_nan: Value,
    special_inf: Value,
    special_flags: Value,
}

/// The module `DivSqrt_<format>_b<bits_per_cycle>`.
pub fn divsqrt(fmt: FloatFormat, bits_per_cycle: u32) -> Result<Rc<Module>, HdlErrors> {
    let name = format!("DivSqrt_{}_b{bits_per_cycle}", fmt.name());
    let mut m = ModuleBuilder::new(&name);
    let w = fmt.width();
    let n = steps(fmt, bits_per_cycle);
    let in_valid = m.input("in_valid", 1);
    let in_ready = m.output("in_ready", 1);
    let op = m.input("op", 1);
    let rm = m.input("rm", 3);
    let a = m.input("a", w);
    let b = m.input("b", w);
    let out_valid = m.output("out_valid", 1);
    let out_ready = m.input("out_ready", 1);
    let result = m.output("result", w);
    let flags_out = m.output("flags", 5);

    let busy = m.reg("busy", 1, false);
    let full = m.reg("full", 1, false);
    let st = State {
        sqrt: m.reg("sqrt", 1, false),
        rm: m.reg("rm_q", 3, 0u64),
        sign: m.reg("sign", 1, false),
        exp: m.reg("exp", Ty::S(fmt.exp_width() + 1), 0i64),
        rem: m.reg("rem", n + 2, 0u64),
        quot: m.reg("quot", n, 0u64),
        weight: m.reg("weight", n, 0u64),
        divisor: m.reg("divisor", fmt.sig_bits, 0u64),
        special: m.reg("special", 1, false),
        special_nan: m.reg("special_nan", 1, false),
        special_inf: m.reg("special_inf", 1, false),
        special_flags: m.reg("special_flags", 5, 0u64),
    };
    let ready = &!&busy & &(&!&full | &out_ready);
    m.connect(&in_ready, &ready);
    m.connect(&out_valid, &full);
    let fire = &in_valid & &ready;
    let sqrt_in = op.bit(0);
    let (ua, ub) = (unpack(fmt, &a), unpack(fmt, &b));
    let (one, zero) = (a.konst(Bits::from_u64(1, 1)), a.konst(Bits::zero(1)));

    m.when(&fire, |m| {
        let special = accept(m, fmt, &st, &sqrt_in, &ua, &ub);
        m.connect(&st.rm, &rm);
        m.connect(&busy, &!&special);
        m.connect(&full, &special);
    })
    .elsewhen(&busy, |m| {
        let (rem, quot) = recurrence(&st, bits_per_cycle);
        m.connect(&st.rem, &rem);
        m.connect(&st.quot, &quot);
        m.connect(&st.weight, &st.weight.shr(bits_per_cycle));
        m.when(&st.weight.bit(bits_per_cycle - 1), |m| {
            m.connect(&busy, &zero);
            m.connect(&full, &one);
        });
    })
    .elsewhen(&out_ready, |m| m.connect(&full, &zero));

    let (bits, fl) = outcome(fmt, &st);
    m.connect(&result, &bits);
    m.connect(&flags_out, &fl);
    m.finish()
}

/// Loads the operation's registers from the unpacked operands; returns whether a special
/// operand decides the result.
fn accept(
    m: &mut ModuleBuilder,
    fmt: FloatFormat,
    st: &State,
    sqrt: &Value,
    a: &Unpacked,
    b: &Unpacked,
) -> Value {
    let n = st.quot.width();
    let (div_special, div_nan, div_inf, div_flags) = div_specials(a, b);
    let (sqrt_special, sqrt_nan, sqrt_flags) = sqrt_specials(a);
    let special = sqrt.mux(&sqrt_special, &div_special);
    m.connect(&st.sqrt, sqrt);
    m.connect(&st.special, &special);
    m.connect(&st.special_nan, &sqrt.mux(&sqrt_nan, &div_nan));
    // A square root's special non-NaN results are its operand: +inf, or a zero.
    m.connect(&st.special_inf, &sqrt.mux(&a.is_inf, &div_inf));
    m.connect(&st.special_flags, &sqrt.mux(&sqrt_flags, &div_flags));
    m.connect(&st.sign, &sqrt.mux(&a.sign, &(&a.sign ^ &b.sign)));

    // Divide: a dividend significand below the divisor's is doubled, so the quotient
    // lies in [1, 2). Square root: an odd exponent doubles the radicand, leaving an
    // even one to halve.
    let ew = fmt.exp_width() + 1;
    let (ea, eb) = (a.exp.sext(ew), b.exp.sext(ew));
    let below = a.sig.lt(&b.sig);
    let odd = a.exp.bit(0);
    let double = sqrt.mux(&odd, &below);
    let div_exp = &(&ea - &eb) - &below.zext(ew).as_signed();
    m.connect(&st.exp, &sqrt.mux(&ea.shr(1), &div_exp));
    let p = fmt.sig_bits;
    let aligned = a.sig.zext(n + 2).shl(n - p);
    m.connect(&st.rem, &double.mux(&aligned.shl(1), &aligned));
    m.connect(&st.divisor, &b.sig);
    m.connect(&st.quot, &st.quot.konst(Bits::zero(n)));
    m.connect(
        &st.weight,
        &st.weight.konst(Bits::from_u64(n, 1 << (n - 1))),
    );
    special
}

/// Division's special cases (IEEE 754-2008 sections 6.1, 6.2, 7.2, 7.3): whether one
/// applies, whether it gives the canonical NaN or an infinity (else a zero), and its
/// flags. NV for a signaling NaN, 0/0 and inf/inf; DZ for finite nonzero / 0.
fn div_specials(a: &Unpacked, b: &Unpacked) -> (Value, Value, Value, Value) {
    let nan_in = &a.is_nan | &b.is_nan;
    let invalid = &(&a.is_zero & &b.is_zero) | &(&a.is_inf & &b.is_inf);
    let nan = &nan_in | &invalid;
    let by_zero = &(&a.is_finite() & &!&a.is_zero) & &b.is_zero;
    let inf = &a.is_inf | &by_zero;
    let special = &(&nan | &inf) | &(&a.is_zero | &b.is_inf);
    let nv = &(&a.is_snan | &b.is_snan) | &invalid;
    (special, nan, inf, flag_bits(&nv, &by_zero))
}

/// The square root's special cases (IEEE 754-2008 section 5.4.1: sqrt(-0) = -0,
/// sqrt(+inf) = +inf, a negative operand is invalid): whether one applies, whether the
/// result is the canonical NaN, and the flags.
fn sqrt_specials(a: &Unpacked) -> (Value, Value, Value) {
    let negative = &a.sign & &!&a.is_zero;
    let invalid = &negative & &!&a.is_nan;
    let nan = &a.is_nan | &invalid;
    let special = &(&nan | &a.is_inf) | &a.is_zero;
    let nv = &a.is_snan | &invalid;
    let no = nv.konst(Bits::zero(1));
    (special, nan, flag_bits(&nv, &no))
}

/// The five flags (RISC-V order: NV DZ OF UF NX) with only NV and DZ possibly set.
fn flag_bits(nv: &Value, dz: &Value) -> Value {
    cat(&[nv, dz, &nv.konst(Bits::zero(3))])
}

/// `bits_per_cycle` recurrence steps from the registers: the new remainder and result
/// bits.
fn recurrence(st: &State, bits_per_cycle: u32) -> (Value, Value) {
    let n = st.quot.width();
    let p = st.divisor.width();
    let divisor = st.divisor.zext(n + 2).shl(n - p);
    let (mut rem, mut quot, mut weight) = (st.rem.clone(), st.quot.clone(), st.weight.clone());
    for _ in 0..bits_per_cycle {
        let root_trial = &quot.zext(n + 2).shl(1) | &weight.zext(n + 2);
        let trial = st.sqrt.mux(&root_trial, &divisor);
        let diff = rem.subc(&trial);
        let fits = !&diff.msb();
        rem = fits.mux(&diff.trunc(n + 2), &rem).shl(1);
        quot = fits.mux(&(&quot | &weight), &quot);
        weight = weight.shr(1);
    }
    (rem, quot)
}

/// The result and flags of the operation in the registers: the special result, or the
/// recurrence's rounded.
fn outcome(fmt: FloatFormat, st: &State) -> (Value, Value) {
    let rounded = round(
        fmt,
        &RoundIn {
            sign: st.sign.clone(),
            exp: st.exp.clone(),
            sig: st.quot.clone(),
            sticky: st.rem.or_r(),
        },
        &st.rm,
    );
    let k = |v: u64, width: u32| st.sign.konst(Bits::from_u64(width, v));
    let (eb, f) = (fmt.exp_bits, fmt.frac_bits());
    let inf_or_zero = mux(
        &st.special_inf,
        &k((1 << eb) - 1, eb).cat(&k(0, f)),
        &k(0, eb + f),
    );
    let special = mux(
        &st.special_nan,
        &k(fmt.canonical_nan(), fmt.width()),
        &st.sign.cat(&inf_or_zero),
    );
    (
        mux(&st.special, &special, &rounded.bits),
        mux(&st.special, &st.special_flags, &rounded.flags),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_is_one_cycle_per_bits_per_cycle_steps_plus_one() {
        for (fmt, bits, cycles) in [
            (DOUBLE, 1, 55),
            (DOUBLE, 2, 28),
            (DOUBLE, 4, 15),
            (SINGLE, 1, 26),
            (SINGLE, 3, 10),
            (HALF, 2, 7),
            (BFLOAT16, 4, 4),
        ] {
            for op in [DivSqrtOp::Div, DivSqrtOp::Sqrt] {
                assert_eq!(latency(fmt, op, bits), cycles, "{} b{bits}", fmt.name());
            }
        }
    }

    #[test]
    fn an_unknown_format_is_refused_by_name() {
        let p = DivSqrtParams {
            format: "binary128".into(),
            ..DivSqrtParams::default()
        };
        let e = DivSqrt::validate(&p).unwrap_err();
        assert_eq!(e.param, "format");
        assert!(e.message.contains("binary128"), "{}", e.message);
        assert!(DivSqrt::validate(&DivSqrtParams::default()).is_ok());
    }
}
