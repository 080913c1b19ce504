//! `fpu-convert`: the conversion unit, Hwacha's FConv. It implements the RISC-V
//! unprivileged spec's F/D-chapter conversions ("Floating-Point Conversion and Move
//! Instructions", `fcvt.*`) between the unit's binary formats and 32- and 64-bit signed
//! and unsigned integers, after IEEE 754-2008 5.4.1 (`convertFormat`, the
//! `convertToInteger` family, `convertFromInt`) and 7.2 (invalid operation): Berkeley
//! HardFloat's `RecFNToRecFN`, `RecFNToIN` and `INToRecFN` in one module.
//!
//! - Float to float: widening is exact, narrowing rounds through [`round`] in `rm`; a NaN
//!   gives the canonical NaN, NV when it was signaling.
//! - Float to integer (`w`, `wu`, `l`, `lu`), rounded in `rm`: a NaN or a value above the
//!   range gives the largest integer, a value below it the smallest (0 for unsigned),
//!   raising NV and nothing else; an in-range inexact result raises NX.
//! - Integer to float, rounded in `rm` (OF, UF never; NX when inexact).
//! - Packed float to float: the pair binary16/binary32 on two lanes of a 64-bit word
//!   (see [`kind::PACKED`]), flags ORed across the lanes; any other pair on one lane,
//!   which is the scalar conversion.
//!
//! Output width policy, as RV64 writes registers: a float result narrower than 64 bits
//! is NaN-boxed (the bits above it ones); a `w`/`wu` result is sign-extended from bit 31
//! (`wu` too, as RV64's `fcvt.wu.*` does). Inputs: a float operand is the low bits of
//! `a` (upper bits ignored: NaN-boxing checks belong to the register file's reader), a
//! `w`/`wu` operand the low 32 bits.
//!
//! Ports: `in_valid`, `rm` (3 bits, RISC-V encodings, 5..=7 round as RNE), `op`
//! ([`OP_BITS`] bits, [`encode`]), `a` (64 bits); `out_valid`, `result` (64 bits),
//! `flags` (5 bits, fflags order NV DZ OF UF NX). Pipeline: `stages` 0..=2; the first
//! register cuts the datapath after unpacking and alignment (before rounding), the second
//! registers the outputs. One operation accepted a cycle, its result [`latency`] cycles
//! later. An `op` naming a format the unit was not built with gives an unspecified
//! result.

use super::format::{FloatFormat, DOUBLE, HALF, SINGLE};
use super::round::{flags, round, round_up, RoundIn};
use super::stage::{outputs, Stage};
use super::unpack::{signed_const, unpack};
use crate::arith::lzc::normalize;
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::{cat, Bits, HdlErrors, Module, ModuleBuilder, Value};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The operation kinds, `op[7:6]`.
pub mod kind {
    /// Float (`op[1:0]`) to float (`op[3:2]`).
    pub const F2F: u64 = 0;
    /// Float (`op[1:0]`) to integer (`op[5:4]`).
    pub const F2I: u64 = 1;
    /// Integer (`op[5:4]`) to float (`op[3:2]`).
    pub const I2F: u64 = 2;
    /// Packed float to float. binary32 to binary16: lanes `a[31:0]` and `a[63:32]` to
    /// `result[15:0]` and `result[31:16]`, `result[63:32]` ones; binary16 to binary32:
    /// lanes `a[15:0]` and `a[31:16]` to `result[31:0]` and `result[63:32]`. Any other
    /// pair is one lane, the scalar conversion.
    pub const PACKED: u64 = 3;
}

/// RISC-V's `fmt` field codes of the formats (`op[1:0]`, `op[3:2]`).
pub mod fmt_code {
    pub const S: u64 = 0;
    pub const D: u64 = 1;
    pub const H: u64 = 2;
}

/// Integer types as RISC-V's `fcvt` encodes them in `rs2` (`op[5:4]`): bit 0 unsigned,
/// bit 1 64-bit.
pub mod int {
    pub const W: u64 = 0;
    pub const WU: u64 = 1;
    pub const L: u64 = 2;
    pub const LU: u64 = 3;
}

pub const OP_BITS: u32 = 8;

/// The `op` of a conversion: `{kind, int, dst, src}` two bits each.
pub fn encode(kind: u64, src: u64, dst: u64, int: u64) -> u64 {
    kind << 6 | int << 4 | dst << 2 | src
}

/// The sets of formats a unit may convert among (RISC-V suffixes).
pub const FORMAT_SETS: &[&str] = &["hsd", "sd", "hs", "hd", "h", "s", "d"];

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConvertParams {
    /// The float formats, by RISC-V suffix: `h` binary16, `s` binary32, `d` binary64.
    pub formats: String,
    /// Pipeline registers, 0..=2.
    pub stages: u32,
}

impl Default for ConvertParams {
    fn default() -> Self {
        ConvertParams {
            formats: "hsd".into(),
            stages: 2,
        }
    }
}

impl ConvertParams {
    /// The formats with their `fmt` codes.
    pub fn formats(&self) -> Vec<(u64, FloatFormat)> {
        [
            ('h', fmt_code::H, HALF),
            ('s', fmt_code::S, SINGLE),
            ('d', fmt_code::D, DOUBLE),
        ]
        .into_iter()
        .filter(|(c, ..)| self.formats.contains(*c))
        .map(|(_, code, f)| (code, f))
        .collect()
    }
}

/// Cycles from an operation's `in_valid` to its `out_valid`.
pub fn latency(p: &ConvertParams) -> u32 {
    p.stages
}

pub struct Convert;

impl Generator for Convert {
    type Params = ConvertParams;
    const NAME: &'static str = "fpu-convert";
    const DESCRIPTION: &'static str =
        "floating-point conversions among formats and to/from 32/64-bit integers, packed pairs";

    fn params() -> Vec<Param> {
        vec![
            Param::choice(
                "formats",
                FORMAT_SETS,
                "float formats: h binary16, s binary32, d binary64",
            ),
            Param::int(
                "stages",
                0,
                2,
                "pipeline registers: 1 before rounding, 2 also on the outputs",
            ),
        ]
    }

    fn validate(p: &ConvertParams) -> Result<(), ParamError> {
        schema::check_fields(&Self::params(), p)
    }

    fn build(p: &ConvertParams) -> Result<Rc<Module>, HdlErrors> {
        convert(p)
    }
}

/// A float operand of one of several formats, unpacked to a common shape: the exponent
/// `ew` signed bits, the significand `p` bits left-aligned (normalized unless zero).
#[derive(Clone)]
struct Source {
    sign: Value,
    exp: Value,
    sig: Value,
    is_zero: Value,
    is_inf: Value,
    is_nan: Value,
    is_snan: Value,
}

impl Source {
    fn fields(&self) -> [&Value; 7] {
        [
            &self.sign,
            &self.exp,
            &self.sig,
            &self.is_zero,
            &self.is_inf,
            &self.is_nan,
            &self.is_snan,
        ]
    }

    fn of_fields(f: [Value; 7]) -> Source {
        let [sign, exp, sig, is_zero, is_inf, is_nan, is_snan] = f;
        Source {
            sign,
            exp: exp.as_signed(),
            sig,
            is_zero,
            is_inf,
            is_nan,
            is_snan,
        }
    }

    /// The operand `code` selects among `(code, format, encoding)`.
    fn select(code: &Value, cases: &[(u64, FloatFormat, Value)], ew: u32, p: u32) -> Source {
        let unpacked: Vec<(u64, Source)> = cases
            .iter()
            .map(|(c, fmt, x)| {
                let u = unpack(*fmt, x);
                let sig = pad_low(&u.sig, p);
                let s = Source {
                    sign: u.sign,
                    exp: u.exp.sext(ew),
                    sig,
                    is_zero: u.is_zero,
                    is_inf: u.is_inf,
                    is_nan: u.is_nan,
                    is_snan: u.is_snan,
                };
                (*c, s)
            })
            .collect();
        let field = |k: usize| {
            let options: Vec<(u64, Value)> = unpacked
                .iter()
                .map(|(c, s)| (*c, s.fields()[k].clone()))
                .collect();
            select(code, &options)
        };
        Source::of_fields([0, 1, 2, 3, 4, 5, 6].map(field))
    }

    /// The value to round (exact: no sticky bits).
    fn round_in(&self, sig_width: u32) -> RoundIn {
        RoundIn {
            sign: self.sign.clone(),
            exp: self.exp.clone(),
            sig: pad_low(&self.sig, sig_width),
            sticky: self.sig.konst(Bits::zero(1)),
        }
    }
}

/// `v` with zeros appended below to `width` bits.
fn pad_low(v: &Value, width: u32) -> Value {
    if width > v.width() {
        v.cat(&v.konst(Bits::zero(width - v.width())))
    } else {
        v.clone()
    }
}

/// The value `code` selects among `(code, value)`; the last is the default.
fn select(code: &Value, cases: &[(u64, Value)]) -> Value {
    let (last, rest) = cases.split_last().expect("at least one case");
    rest.iter().rev().fold(last.1.clone(), |acc, (c, v)| {
        code.eq(&code.konst(Bits::from_u64(code.width(), *c)))
            .mux(v, &acc)
    })
}

/// The NaN and infinity of a float-to-float conversion, which rounding does not produce.
#[derive(Clone)]
struct Special {
    nan: Value,
    snan: Value,
    inf: Value,
}

/// One lane's float-to-float (or integer-to-float) work between the cut and rounding.
#[derive(Clone)]
struct ToFloat {
    x: RoundIn,
    special: Special,
}

impl ToFloat {
    /// `src` as a conversion's operand when `f2f`, else `other`.
    fn of(src: &Source, f2f: &Value, other: Option<&RoundIn>) -> ToFloat {
        let from_float = src.round_in(other.map_or(src.sig.width(), |o| o.sig.width()));
        let x = match other {
            Some(o) => RoundIn {
                sign: f2f.mux(&from_float.sign, &o.sign),
                exp: f2f.mux(&from_float.exp, &o.exp),
                sig: f2f.mux(&from_float.sig, &o.sig),
                sticky: from_float.sticky,
            },
            None => from_float,
        };
        let special = Special {
            nan: f2f & &src.is_nan,
            snan: f2f & &src.is_snan,
            inf: f2f & &src.is_inf,
        };
        ToFloat { x, special }
    }

    fn through(&self, s: &mut Stage) -> ToFloat {
        ToFloat {
            x: RoundIn {
                sign: s.pass(&self.x.sign),
                exp: s.pass(&self.x.exp),
                sig: s.pass(&self.x.sig),
                sticky: self.x.sticky.clone(),
            },
            special: Special {
                nan: s.pass(&self.special.nan),
                snan: s.pass(&self.special.snan),
                inf: s.pass(&self.special.inf),
            },
        }
    }

    /// The result in `fmt` (its width) and the flags.
    fn finish(&self, fmt: FloatFormat, rm: &Value) -> (Value, Value) {
        let r = round(fmt, &self.x, rm);
        let sp = &self.special;
        let k = |w: u32, v: u64| rm.konst(Bits::from_u64(w, v));
        let nan = k(fmt.width(), fmt.canonical_nan());
        let inf = self.x.sign.cat(&k(fmt.width() - 1, fmt.pack(false, !0, 0)));
        let bits = sp.nan.mux(&nan, &sp.inf.mux(&inf, &r.bits));
        let nan_flags = sp.snan.mux(&k(5, flags::NV), &k(5, 0));
        let fl = sp.nan.mux(&nan_flags, &sp.inf.mux(&k(5, 0), &r.flags));
        (bits, fl)
    }
}

/// An integer operand (`int` type, 2 bits) of `a` as a value to round, its exponent `ew`
/// signed bits.
fn int_source(a: &Value, int_type: &Value, ew: u32) -> RoundIn {
    let signed = !int_type.bit(0);
    let wide = int_type.bit(1);
    let low = a.slice(31, 0);
    let narrow = signed.mux(&low.sext(64).as_unsigned(), &low.zext(64));
    let x = wide.mux(&a.as_unsigned(), &narrow);
    let sign = &signed & &x.bit(63);
    let magnitude = sign.mux(&x.neg(), &x);
    let (sig, lz) = normalize(&magnitude);
    let exp = &signed_const(a, ew, 63) - &lz.zext(ew).as_signed();
    RoundIn {
        sign,
        exp,
        sig,
        sticky: a.konst(Bits::zero(1)),
    }
}

/// A float-to-integer conversion between the cut and rounding: the integer part of the
/// magnitude, the guard bit and the OR of the bits below, and what is invalid already.
#[derive(Clone)]
struct ToInt {
    sign: Value,
    int: Value,
    guard: Value,
    sticky: Value,
    /// NaN, infinity or at least 2^64.
    out_of_range: Value,
    nan: Value,
}

impl ToInt {
    fn align(src: &Source) -> ToInt {
        let p = src.sig.width();
        let ew = src.exp.width();
        let e = &src.exp;
        let big = e.ge(&signed_const(e, ew, 64));
        // Below 1/2: everything is sticky.
        let tiny = e.lt(&signed_const(e, ew, -1));
        let shift = (e + &signed_const(e, ew, 1)).as_unsigned().trunc(7);
        let t = src.sig.zext(p + 64).dshl(&shift);
        let zero = |w: u32| e.konst(Bits::zero(w));
        ToInt {
            sign: src.sign.clone(),
            int: tiny.mux(&zero(64), &t.slice(p + 63, p)),
            guard: tiny.mux(&zero(1), &t.bit(p - 1)),
            sticky: tiny.mux(&!&src.is_zero, &t.slice(p - 2, 0).or_r()),
            out_of_range: &(&src.is_nan | &src.is_inf) | &big,
            nan: src.is_nan.clone(),
        }
    }

    fn through(&self, s: &mut Stage) -> ToInt {
        ToInt {
            sign: s.pass(&self.sign),
            int: s.pass(&self.int),
            guard: s.pass(&self.guard),
            sticky: s.pass(&self.sticky),
            out_of_range: s.pass(&self.out_of_range),
            nan: s.pass(&self.nan),
        }
    }

    /// The integer register value (64 bits) and flags for integer type `int_type`.
    fn finish(&self, int_type: &Value, rm: &Value) -> (Value, Value) {
        let k = |w: u32, v: u64| rm.konst(Bits::from_u64(w, v));
        let inexact = &self.guard | &self.sticky;
        let up = round_up(rm, &self.sign, &self.int.bit(0), &self.guard, &self.sticky);
        let magnitude = &self.int.zext(65) + &up.zext(65);
        let by_type = |values: [u64; 4]| {
            select(
                int_type,
                &[
                    (int::W, k(65, values[0])),
                    (int::WU, k(65, values[1])),
                    (int::L, k(65, values[2])),
                    (int::LU, k(65, values[3])),
                ],
            )
        };
        // The largest magnitudes in range, and the saturated results.
        let above = by_type([(1 << 31) - 1, u32::MAX.into(), (1 << 63) - 1, u64::MAX]);
        let below = by_type([1 << 31, 0, 1 << 63, 0]);
        let limit = self.sign.mux(&below, &above);
        let invalid = &self.out_of_range | &magnitude.gt(&limit);
        let max = by_type([(1 << 31) - 1, u64::MAX, (1 << 63) - 1, u64::MAX]).trunc(64);
        let min = by_type([(i32::MIN as i64) as u64, 0, 1 << 63, 0]).trunc(64);
        let saturated = (&self.nan | &!&self.sign).mux(&max, &min);
        let low = magnitude.trunc(64);
        let value = self.sign.mux(&low.neg(), &low);
        let value = int_type
            .bit(1)
            .mux(&value, &value.slice(31, 0).sext(64).as_unsigned());
        let result = invalid.mux(&saturated, &value);
        let fl = invalid.mux(&k(5, flags::NV), &inexact.mux(&k(5, flags::NX), &k(5, 0)));
        (result, fl)
    }
}

/// The unit, module `FConv_<formats>_<stages>`.
pub fn convert(p: &ConvertParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("FConv_{}_{}", p.formats, p.stages));
    let valid = m.input("in_valid", 1);
    let rm = m.input("rm", 3);
    let op = m.input("op", OP_BITS);
    let a = m.input("a", 64);
    let front = Front::of(&p.formats(), &op, &a);
    let mut cut = Stage::new(&mut m, "mid", p.stages >= 1);
    let [valid, rm, op] = [&valid, &rm, &op].map(|v| cut.pass(v));
    let front = front.through(&mut cut);
    let (result, fflags) = front.finish(&p.formats(), &op, &rm);
    outputs(&mut m, p.stages >= 2, &valid, &result, &fflags);
    m.finish()
}

/// Everything before rounding: lane 0's float or integer operand, lane 1's (binary16 and
/// binary32 units), the float-to-integer alignment.
struct Front {
    lane0: ToFloat,
    lane1: Option<ToFloat>,
    to_int: ToInt,
}

/// The fields of `op`.
fn fields(op: &Value) -> [Value; 4] {
    [
        op.slice(7, 6),
        op.slice(1, 0),
        op.slice(3, 2),
        op.slice(5, 4),
    ]
}

fn is(v: &Value, code: u64) -> Value {
    v.eq(&v.konst(Bits::from_u64(v.width(), code)))
}

impl Front {
    fn of(formats: &[(u64, FloatFormat)], op: &Value, a: &Value) -> Front {
        let [kind, src, _dst, int_type] = fields(op);
        let p = formats.iter().map(|f| f.1.sig_bits).max().unwrap_or(2);
        let ew = formats
            .iter()
            .map(|f| f.1.exp_width())
            .max()
            .unwrap_or(2)
            .max(8);
        let low = |f: FloatFormat| a.slice(f.width() - 1, 0);
        let cases: Vec<_> = formats.iter().map(|&(c, f)| (c, f, low(f))).collect();
        let src0 = Source::select(&src, &cases, ew, p);
        let f2f = !is(&kind, kind::I2F);
        let from_int = int_source(a, &int_type, ew);
        let lane0 = ToFloat::of(&src0, &f2f, Some(&from_int));
        let has = |c: u64| formats.iter().any(|f| f.0 == c);
        let lane1 = (has(fmt_code::H) && has(fmt_code::S)).then(|| {
            let cases = [
                (fmt_code::H, HALF, a.slice(31, 16)),
                (fmt_code::S, SINGLE, a.slice(63, 32)),
            ];
            let src1 = Source::select(&src, &cases, ew, SINGLE.sig_bits);
            ToFloat::of(&src1, &a.konst(Bits::ones(1)), None)
        });
        Front {
            lane0,
            lane1,
            to_int: ToInt::align(&src0),
        }
    }

    fn through(&self, s: &mut Stage) -> Front {
        Front {
            lane0: self.lane0.through(s),
            lane1: self.lane1.as_ref().map(|l| l.through(s)),
            to_int: self.to_int.through(s),
        }
    }

    /// Rounding, saturation and the result of the operation `op` selects.
    fn finish(&self, formats: &[(u64, FloatFormat)], op: &Value, rm: &Value) -> (Value, Value) {
        let [kind, src, dst, int_type] = fields(op);
        let boxed = |bits: &Value| {
            if bits.width() == 64 {
                bits.clone()
            } else {
                rm.konst(Bits::ones(64 - bits.width())).cat(bits)
            }
        };
        let outs: Vec<(u64, (Value, Value))> = formats
            .iter()
            .map(|&(c, f)| {
                let (bits, fl) = self.lane0.finish(f, rm);
                (c, (boxed(&bits), fl))
            })
            .collect();
        let pick = |k: usize| {
            let options: Vec<(u64, Value)> = outs
                .iter()
                .map(|(c, r)| (*c, [&r.0, &r.1][k].clone()))
                .collect();
            select(&dst, &options)
        };
        let (mut float, mut float_flags) = (pick(0), pick(1));
        if let Some(lane1) = &self.lane1 {
            let (h1, h1_flags) = lane1.finish(HALF, rm);
            let (s1, s1_flags) = lane1.finish(SINGLE, rm);
            let packed = is(&kind, kind::PACKED);
            let to_single = &(&packed & &is(&src, fmt_code::H)) & &is(&dst, fmt_code::S);
            let to_half = &(&packed & &is(&src, fmt_code::S)) & &is(&dst, fmt_code::H);
            let half_pair = cat(&[&rm.konst(Bits::ones(32)), &h1, &float.slice(15, 0)]);
            let single_pair = s1.cat(&float.slice(31, 0));
            float = to_single.mux(&single_pair, &to_half.mux(&half_pair, &float));
            let lane1_flags =
                to_single.mux(&s1_flags, &to_half.mux(&h1_flags, &rm.konst(Bits::zero(5))));
            float_flags = &float_flags | &lane1_flags;
        }
        let (int_result, int_flags) = self.to_int.finish(&int_type, rm);
        let to_int = is(&kind, kind::F2I);
        (
            to_int.mux(&int_result, &float),
            to_int.mux(&int_flags, &float_flags),
        )
    }
}
