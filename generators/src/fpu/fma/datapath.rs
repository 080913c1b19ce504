//! The FMA's finite datapath, in the order of its pipeline: the addend aligned against the
//! exact product (in parallel with the significand multiplier), the one addition of the
//! product and the aligned addend, and the normalization that feeds the shared rounder.
//!
//! The window. Sums are formed in a `W = 3p + 4`-bit window (`p` = `sig_bits`). The
//! `2p`-bit product sits at bits `2p + 1 .. 2`; the addend's `p` bits start at the top
//! (bits `W - 1 .. W - p`) and shift right by `sh = ea + eb - ec + p + 3`, so that both
//! have the same scale. Bit 0 holds the OR of every addend bit shifted below bit 1 (the
//! sticky bit): it can only be set when the addend is below the product's last place, so
//! the sum keeps at least `p + 2` bits above bit 0 and the rounder's guard bit never falls
//! on it; replacing the lost bits by one unit at bit 0 leaves the sum in the same open
//! interval between multiples of 2, so rounding is unchanged. An addend more than `p + 3`
//! binades above the product stays at the top (`sh` clamped to 0): the product, then at
//! least two binades below the addend's guard bit, only contributes sticky bits, and its
//! borrow or carry pattern at the bits below the addend is the same as the real one's.
//! An addend entirely below bit 1 (`sh >= W`) is all sticky. This is the single-path
//! organisation of Berkeley HardFloat's `MulAddRecFN` (`MulAddRecFNToRaw_preMul`/`postMul`).

use super::super::format::FloatFormat;
use super::super::unpack::{signed_const, Unpacked};
use crate::arith::lzc::{count_width, normalize};
use hdl::{Bits, Value};

/// Zero bits below the product in the window.
const LOW: u32 = 2;

/// Width of the sum window.
pub fn window(fmt: FloatFormat) -> u32 {
    3 * fmt.sig_bits + LOW + 2
}

/// Width of the signed exponents after unpacking: products, window tops, normalized sums.
pub fn exp_width(fmt: FloatFormat) -> u32 {
    (fmt.exp_width() + 3).max(count_width(window(fmt) + 1) + 2)
}

/// The addend aligned to the product's scale.
pub struct Aligned {
    /// `W` bits: the shifted significand, with the sticky bit at bit 0.
    pub addend: Value,
    /// Exponent of window bit `W - 1`.
    pub top: Value,
}

/// Aligns `c` against the product of `a` and `b` (finite operands; the others are
/// special).
pub fn align(fmt: FloatFormat, a: &Unpacked, b: &Unpacked, c: &Unpacked) -> Aligned {
    let p = fmt.sig_bits;
    let w = window(fmt);
    let ew = exp_width(fmt);
    let ep = &a.exp.sext(ew) + &b.exp.sext(ew);
    let ec = c.exp.sext(ew);
    let product_top = &ep + &signed_const(&ep, ew, p as i64 + 3);
    let sh = &product_top - &ec;
    // The addend above the window's reach keeps the top; a zero addend never does (its
    // exponent is meaningless).
    let dominant = &sh.lt(&signed_const(&ep, ew, 0)) & &!&c.is_zero;
    let sw = count_width(w);
    let beyond = sh.gt(&signed_const(&ep, ew, w as i64));
    let amount = beyond.mux(
        &sh.konst(Bits::from_u64(sw, w as u64)),
        &sh.as_unsigned().trunc(sw),
    );
    let amount = dominant.mux(&sh.konst(Bits::zero(sw)), &amount);
    // The significand at the top of `W + p` bits shifts right by at most `W`: nothing
    // falls off, and everything below the window's bit 1 is sticky.
    let field = c.sig.cat(&sh.konst(Bits::zero(w))).dshr(&amount);
    let sticky = field.slice(p, 0).or_r();
    Aligned {
        addend: field.slice(w + p - 1, p + 1).cat(&sticky),
        top: dominant.mux(&ec, &product_top),
    }
}

/// The sum's magnitude (`W + 1` bits) and whether the addend outweighed the product (the
/// result then takes the addend's sign).
pub struct Sum {
    pub magnitude: Value,
    pub negative: Value,
}

/// Adds (or, for terms of opposite sign, subtracts) the aligned addend to the product.
pub fn add(fmt: FloatFormat, product: &Value, addend: &Value, subtract: &Value) -> Sum {
    let w = window(fmt);
    let zeros = |n: u32| addend.konst(Bits::zero(n));
    let top_pad = w + 2 - product.width() - LOW;
    let prod = zeros(top_pad).cat(product).cat(&zeros(LOW));
    // One adder: the addend complemented for a subtraction, whose carry-in of one
    // enters below the operands (a bit of `subtract` on each side carries into bit 1).
    let flipped = &addend.zext(w + 2) ^ &subtract.repeat(w + 2);
    let total = (&prod.cat(subtract) + &flipped.cat(subtract)).slice(w + 2, 1);
    let negative = total.msb();
    // |total|: complemented and incremented when negative.
    let magnitude = (&(&total ^ &negative.repeat(w + 2)) + &negative.zext(w + 2)).trunc(w + 1);
    Sum {
        magnitude,
        negative,
    }
}

/// The sum normalized (top bit set unless zero) and its exponent, given the exponent of
/// window bit `W - 1`.
pub fn normalized(magnitude: &Value, top: &Value) -> (Value, Value) {
    let (sig, lz) = normalize(magnitude);
    let ew = top.width();
    let one = signed_const(top, ew, 1);
    let exp = &(top + &one) - &lz.zext(ew).as_signed();
    (sig, exp)
}
