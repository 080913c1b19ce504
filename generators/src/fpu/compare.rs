//! `fpu-compare`: the compare and sign unit of one binary format, Hwacha's FCmp. It
//! implements the RISC-V unprivileged spec's F/D-chapter instructions that neither round
//! nor change the format (sections "Single-Precision Floating-Point Compare", "Sign
//! Injection" and "Classify", version 2.2's fmin/fmax):
//!
//! - `feq` (IEEE 754-2008 5.11 `compareQuietEqual`: NV only for a signaling NaN), `flt`
//!   and `fle` (`compareSignalingLess`/`LessEqual`: NV for any NaN); the result is 1 or
//!   0 in the low bit, a NaN operand giving 0;
//! - `fmin`/`fmax` (IEEE 754-2008 `minNum`/`maxNum` as RISC-V 2.2 amends them): -0 is
//!   below +0, one NaN operand gives the other operand, two give the canonical NaN, and
//!   any signaling NaN raises NV;
//! - `fclass`: the 10-bit mask (bit 0 -inf, 1 negative normal, 2 negative subnormal,
//!   3 -0, 4 +0, 5 positive subnormal, 6 positive normal, 7 +inf, 8 signaling NaN, 9
//!   quiet NaN) in the low bits; no flags;
//! - `fsgnj`/`fsgnjn`/`fsgnjx` (IEEE 754-2008 5.5.1 `copySign`, `negate`, `abs`
//!   generalized): `a`'s magnitude with `b`'s sign, its complement or the XOR of both;
//!   no flags, NaNs not special.
//!
//! Berkeley HardFloat's `CompareRecFN` does the comparisons; Rocket's `FPToInt` and
//! `FPToFP` add the rest around it. Ports: `in_valid`, `rm` (3 bits, unused: the
//! operation select carries what RISC-V's funct3 does), `op` (4 bits, [`op`]), `a`,
//! `b` (the format's width); `out_valid`, `result` (the format's width, compare results
//! and class masks zero-extended), `flags` (5 bits, RISC-V fflags order). Operands are
//! the low bits of a register: NaN-boxing checks of narrower values in wider registers
//! belong to the register file's reader. `stages` (0..=2) registers: 1 puts a register
//! on the outputs, 2 also one on the inputs; the latency is `stages` cycles
//! ([`latency`]), one operation accepted every cycle.

use super::format::FloatFormat;
use super::round::flags;
use super::stage::{outputs, Stage};
use super::unpack::{unpack, Unpacked};
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::{cat, Bits, HdlErrors, Module, ModuleBuilder, Value};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The operation select `op`.
pub mod op {
    pub const EQ: u64 = 0;
    pub const LT: u64 = 1;
    pub const LE: u64 = 2;
    pub const MIN: u64 = 3;
    pub const MAX: u64 = 4;
    pub const CLASS: u64 = 5;
    pub const SGNJ: u64 = 6;
    pub const SGNJN: u64 = 7;
    pub const SGNJX: u64 = 8;
}

/// Width of the operation select.
pub const OP_BITS: u32 = 4;

/// The formats a unit may be built for, by IEEE name (RISC-V suffixes are accepted too).
pub const FORMATS: &[&str] = &[
    "binary16", "binary32", "binary64", "bfloat16", "h", "s", "d", "bf16",
];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompareParams {
    /// The operands' format, by name (`FloatFormat::by_name`).
    pub format: String,
    /// Pipeline registers, 0..=2.
    pub stages: u32,
}

impl Default for CompareParams {
    fn default() -> Self {
        CompareParams {
            format: "binary64".into(),
            stages: 1,
        }
    }
}

impl CompareParams {
    pub fn format(&self) -> FloatFormat {
        FloatFormat::by_name(&self.format).expect("validated format name")
    }
}

/// Cycles from an operation's `in_valid` to its `out_valid`.
pub fn latency(p: &CompareParams) -> u32 {
    p.stages
}

pub struct Compare;

impl Generator for Compare {
    type Params = CompareParams;
    const NAME: &'static str = "fpu-compare";
    const DESCRIPTION: &'static str =
        "floating-point compare, min/max, classify and sign injection (RISC-V F/D rules)";

    fn params() -> Vec<Param> {
        vec![
            Param::choice("format", FORMATS, "operand format"),
            Param::int(
                "stages",
                0,
                2,
                "pipeline registers: 1 on the outputs, 2 also on the inputs",
            ),
        ]
    }

    fn validate(p: &CompareParams) -> Result<(), ParamError> {
        schema::check_fields(&Self::params(), p)
    }

    fn build(p: &CompareParams) -> Result<Rc<Module>, HdlErrors> {
        compare(p)
    }
}

/// The unit, module `FCmp_<format>_<stages>`.
pub fn compare(p: &CompareParams) -> Result<Rc<Module>, HdlErrors> {
    let fmt = p.format();
    let mut m = ModuleBuilder::new(&format!("FCmp_{}_{}", fmt.name(), p.stages));
    let w = fmt.width();
    let valid = m.input("in_valid", 1);
    // Every unit has a rounding mode; these operations do not round.
    let _rm = m.input("rm", 3);
    let op = m.input("op", OP_BITS);
    let a = m.input("a", w);
    let b = m.input("b", w);
    let mut cut = Stage::new(&mut m, "in", p.stages >= 2);
    let [valid, op, a, b] = [&valid, &op, &a, &b].map(|v| cut.pass(v));
    let (result, fflags) = datapath(fmt, &op, &a, &b);
    outputs(&mut m, p.stages >= 1, &valid, &result, &fflags);
    m.finish()
}

/// The result and flags of operation `op` on `a` and `b`.
pub fn datapath(fmt: FloatFormat, op: &Value, a: &Value, b: &Value) -> (Value, Value) {
    let w = fmt.width();
    let is = |code: u64| op.eq(&op.konst(Bits::from_u64(OP_BITS, code)));
    let ua = unpack(fmt, a);
    let ub = unpack(fmt, b);
    let any_nan = &ua.is_nan | &ub.is_nan;
    let any_snan = &ua.is_snan | &ub.is_snan;
    let order = Order::of(fmt, a, b);
    let ordered = !&any_nan;
    let eq = &ordered & &order.eq;
    let lt = &ordered & &order.lt;
    let le = &ordered & &(&order.lt | &order.eq);

    let min_max = min_max(fmt, a, b, &ua, &ub, &order.lt, &is(op::MAX));
    let class = classify(&ua).zext(w);
    let sign = sign_injected(fmt, a, b, &is(op::SGNJN), &is(op::SGNJX));
    let bit = |v: &Value| v.zext(w);
    let result = is(op::EQ).mux(
        &bit(&eq),
        &is(op::LT).mux(
            &bit(&lt),
            &is(op::LE).mux(
                &bit(&le),
                &(&is(op::MIN) | &is(op::MAX)).mux(&min_max, &is(op::CLASS).mux(&class, &sign)),
            ),
        ),
    );
    // feq and fmin/fmax are quiet; flt and fle signal on any NaN.
    let quiet = &is(op::EQ) | &(&is(op::MIN) | &is(op::MAX));
    let signaling = &is(op::LT) | &is(op::LE);
    let invalid = &(&quiet & &any_snan) | &(&signaling & &any_nan);
    let nv = op.konst(Bits::from_u64(5, flags::NV));
    let fflags = invalid.mux(&nv, &op.konst(Bits::zero(5)));
    (result, fflags)
}

/// The order of two non-NaN encodings, from their bits: sign and magnitude, the two
/// zeros equal.
struct Order {
    eq: Value,
    lt: Value,
}

impl Order {
    fn of(fmt: FloatFormat, a: &Value, b: &Value) -> Order {
        let w = fmt.width();
        let (sa, sb) = (a.bit(w - 1), b.bit(w - 1));
        let (ma, mb) = (a.slice(w - 2, 0), b.slice(w - 2, 0));
        let both_zero = !(&ma.or_r() | &mb.or_r());
        let eq = &a.as_unsigned().eq(&b.as_unsigned()) | &both_zero;
        // Same signs: the magnitudes decide, reversed when negative.
        let same = sa.eq(&sb);
        let mag_lt = sa.mux(&mb.lt(&ma), &ma.lt(&mb));
        let lt = &!&both_zero & &same.mux(&mag_lt, &sa);
        Order { eq, lt }
    }
}

/// fmin (`max` low) or fmax of `a` and `b`; `lt` is their order when neither is a NaN.
fn min_max(
    fmt: FloatFormat,
    a: &Value,
    b: &Value,
    ua: &Unpacked,
    ub: &Unpacked,
    lt: &Value,
    max: &Value,
) -> Value {
    // -0 orders below +0.
    let below = lt | &(&ua.sign & &!&ub.sign);
    let a_wins = max.mux(&!&below, &below);
    let pick = (&ub.is_nan | &(&!&ua.is_nan & &a_wins)).mux(a, b);
    let nan = a.konst(Bits::from_u64(fmt.width(), fmt.canonical_nan()));
    (&ua.is_nan & &ub.is_nan).mux(&nan, &pick)
}

/// The fclass mask of an unpacked operand, bit 0 first as in the module comment (the
/// unpacked classes exclude one another).
pub fn classify(u: &Unpacked) -> Value {
    let neg = &u.sign;
    let pos = !neg;
    let normal = &u.is_finite() & &!(&u.is_zero | &u.is_subnormal);
    cat(&[
        &(&u.is_nan & &!&u.is_snan),
        &u.is_snan,
        &(&pos & &u.is_inf),
        &(&pos & &normal),
        &(&pos & &u.is_subnormal),
        &(&pos & &u.is_zero),
        &(neg & &u.is_zero),
        &(neg & &u.is_subnormal),
        &(neg & &normal),
        &(neg & &u.is_inf),
    ])
}

/// `a`'s magnitude with `b`'s sign (`fsgnj`), its complement (`negate`) or the XOR of
/// both signs (`xor`).
fn sign_injected(fmt: FloatFormat, a: &Value, b: &Value, negate: &Value, xor: &Value) -> Value {
    let w = fmt.width();
    let (sa, sb) = (a.bit(w - 1), b.bit(w - 1));
    let sign = xor.mux(&(&sa ^ &sb), &(&sb ^ negate));
    sign.cat(&a.slice(w - 2, 0))
}
