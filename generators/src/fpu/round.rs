//! Rounding and packing shared by every floating-point unit that rounds (IEEE 754-2008
//! section 4.3's five modes, section 7's exceptions), with RISC-V's choices: tininess
//! detected after rounding, underflow raised only when the result is also inexact, and
//! overflow to infinity or the largest finite number as the mode directs. The part of
//! Berkeley HardFloat's `RoundAnyRawFNToRecFN` that every unit shares; special operands
//! (NaNs, infinities, exact zeros of an operation) are the calling unit's to mux in.

use super::format::FloatFormat;
use super::unpack::signed_const;
use crate::arith::lzc::count_width;
use hdl::{cat, Bits, Value};

/// RISC-V rounding-mode encodings (the `rm` field and `frm`). Units take the resolved
/// mode; the reserved encodings 5 and 6 and "dynamic" 7 round as RNE (the decoder traps
/// them before they reach a unit).
pub mod rm {
    pub const RNE: u64 = 0;
    pub const RTZ: u64 = 1;
    pub const RDN: u64 = 2;
    pub const RUP: u64 = 3;
    pub const RMM: u64 = 4;
}

/// RISC-V `fflags` bits.
pub mod flags {
    pub const NV: u64 = 16;
    pub const DZ: u64 = 8;
    pub const OF: u64 = 4;
    pub const UF: u64 = 2;
    pub const NX: u64 = 1;
}

/// A value to round: `(-1)^sign * sig / 2^(sig.width() - 1) * 2^exp`, plus `sticky`, the
/// OR of any nonzero bits below `sig`. `sig` must be normalized (top bit set) unless the
/// value is exactly zero (`sig` and `sticky` both zero, giving a zero of `sign`).
#[derive(Clone, Debug)]
pub struct RoundIn {
    pub sign: Value,
    /// Signed, any width that holds the exponent without overflow.
    pub exp: Value,
    pub sig: Value,
    pub sticky: Value,
}

/// An encoding of the format and the five flags (`flags`' bits; NV and DZ always clear).
#[derive(Clone, Debug)]
pub struct Rounded {
    pub bits: Value,
    pub flags: Value,
}

/// Rounds `x` to `fmt` in mode `rm` (3 bits).
pub fn round(fmt: FloatFormat, x: &RoundIn, rm: &Value) -> Rounded {
    let p = fmt.sig_bits;
    let sig = x.sig.as_unsigned();
    // At least a guard bit and one more below the kept bits.
    let sig = if sig.width() < p + 2 {
        sig.cat(&zeros(&sig, p + 2 - sig.width()))
    } else {
        sig
    };
    let w = sig.width();
    let ew = x.exp.width().max(fmt.exp_width()).max(count_width(w) + 1) + 1;
    let e = x.exp.as_signed().sext(ew);
    let emin = signed_const(&e, ew, fmt.emin());
    let below = e.lt(&emin);
    // Below the normal range the last place is emin's: shift right, clamped at `w`
    // (everything then is sticky).
    let dist = &emin - &e;
    let sw = count_width(w);
    let far = dist.gt(&signed_const(&e, ew, w as i64));
    let dist = far.mux(
        &unsigned_const(&e, sw, w as u64),
        &dist.as_unsigned().trunc(sw),
    );
    let shift = below.mux(&dist, &zeros(&e, sw));
    let shifted = sig.dshr(&shift);
    let lost = (&sig & &!ones(&sig, w).dshl(&shift)).or_r();
    let sticky = &x.sticky | &lost;

    let (kept, guard, rest) = split(&shifted, p, &sticky);
    let inexact = &guard | &rest;
    let up = round_up(rm, &x.sign, &kept.bit(0), &guard, &rest);
    let mant = &kept.zext(p + 1) + &up.zext(p + 1);
    let carry = mant.bit(p);

    // Tininess after rounding: below emin even when rounded to p bits with an unbounded
    // exponent, i.e. unless 1.11..1 x 2^(emin-1) rounds up to 2^emin.
    let (kept_full, guard_full, rest_full) = split(&sig, p, &x.sticky);
    let up_full = round_up(rm, &x.sign, &kept_full.bit(0), &guard_full, &rest_full);
    let carry_full = &kept_full.and_r() & &up_full;
    let at_emin_m1 = e.eq(&signed_const(&e, ew, fmt.emin() - 1));
    let tiny = &below & &!(&at_emin_m1 & &carry_full);

    let emax = signed_const(&e, ew, fmt.emax());
    let is_zero = !(&sig.or_r() | &x.sticky);
    let overflow = &!&is_zero & &(&e.gt(&emax) | &(&e.eq(&emax) & &carry));

    // Biased exponent minus one, plus the rounded significand with its hidden bit: a
    // carry out of the significand, or a subnormal rounding up to the smallest normal,
    // lands in the exponent field by itself.
    let eb = fmt.exp_bits;
    let base = below.mux(
        &zeros(&e, eb),
        &(&e + &signed_const(&e, ew, fmt.bias() - 1))
            .as_unsigned()
            .trunc(eb),
    );
    let enc_w = fmt.width() - 1;
    let enc = &base.cat(&zeros(&e, p - 1)) + &mant.zext(enc_w);
    let inf = ones(&e, eb).cat(&zeros(&e, p - 1));
    let largest = &inf - &unsigned_const(&e, enc_w, 1);
    let to_largest = overflow_to_largest(rm, &x.sign);
    let magnitude = is_zero.mux(
        &zeros(&e, enc_w),
        &overflow.mux(&to_largest.mux(&largest, &inf), &enc),
    );
    let underflow = &(&tiny & &inexact) & &!is_zero;
    let flags = cat(&[
        &zeros(&e, 2),
        &overflow,
        &underflow,
        &(&inexact | &overflow),
    ]);
    Rounded {
        bits: x.sign.cat(&magnitude),
        flags,
    }
}

/// The top `p` bits of `v`, the bit below them and the OR of the rest with `sticky`.
fn split(v: &Value, p: u32, sticky: &Value) -> (Value, Value, Value) {
    let w = v.width();
    let rest = &v.slice(w - p - 2, 0).or_r() | sticky;
    (v.slice(w - 1, w - p), v.bit(w - p - 1), rest)
}

/// Whether rounding in mode `rm` adds one in the last place, given the last kept bit, the
/// guard bit and the OR of everything below it.
pub fn round_up(rm: &Value, sign: &Value, lsb: &Value, guard: &Value, rest: &Value) -> Value {
    let is = |mode: u64| rm.eq(&unsigned_const(rm, rm.width(), mode));
    let inexact = guard | rest;
    let nearest_even = guard & &(rest | lsb);
    let directed = is(rm::RDN).mux(&(sign & &inexact), &(&!sign & &inexact));
    let toward = &is(rm::RDN) | &is(rm::RUP);
    is(rm::RTZ).mux(
        &zeros(rm, 1),
        &toward.mux(&directed, &is(rm::RMM).mux(guard, &nearest_even)),
    )
}

/// Whether an overflow in mode `rm` gives the largest finite number rather than infinity.
pub fn overflow_to_largest(rm: &Value, sign: &Value) -> Value {
    let is = |mode: u64| rm.eq(&unsigned_const(rm, rm.width(), mode));
    &is(rm::RTZ) | &(&(&is(rm::RDN) & &!sign) | &(&is(rm::RUP) & sign))
}

fn unsigned_const(like: &Value, width: u32, value: u64) -> Value {
    like.konst(Bits::from_u64(width, value))
}

fn zeros(like: &Value, width: u32) -> Value {
    like.konst(Bits::zero(width))
}

fn ones(like: &Value, width: u32) -> Value {
    like.konst(Bits::ones(width))
}
