//! Radix-4 Booth partial products.
//!
//! The multiplier `b` (extended by a zero bit when unsigned, then sign-extended to an even
//! width 2n) is recoded into n digits d_i = -2 b[2i+1] + b[2i] + b[2i-1] in {-2..2}
//! (b[-1] = 0), so that b = sum d_i 4^i. Digit i selects S_i = |d_i| a (0, a or 2a, one
//! bit wider than the signed form of `a`) and inverts it when d_i is negative
//! (`neg_i` = b[2i+1]); the +1 that completes the negation, `neg_i` at weight 4^i, rides in
//! the two free bits below row i+1 (the last one gets a row of its own).
//!
//! Each row r_i is a k-bit two's-complement number. Instead of sign-extending it to the
//! product's width, its sign bit is inverted and -2^(k-1) added: r = ~r[k-1] 2^(k-1) +
//! r[k-2:0] - 2^(k-1). The rows then hold only non-negative bits, and the -2^(k-1) 4^i of
//! every row add up to one constant. Everything is modulo 2^width, the product's width,
//! in which the true product fits.

use hdl::{cat, Bits, Value};

/// A row's columns: (offset, width).
pub type Span = (u32, u32);

/// A partial-product row: the unsigned `bits` weighted from 2^`off`.
#[derive(Clone)]
pub struct Row {
    pub off: u32,
    pub bits: Value,
}

/// Rows and a constant whose sum modulo 2^width is the product.
pub struct PartialProducts {
    pub rows: Vec<Row>,
    /// `None` when it is zero.
    pub constant: Option<Bits>,
}

/// The number of Booth digits of a `width`-bit multiplier.
fn digits(width: u32, signed: bool) -> u32 {
    (width + u32::from(!signed)).div_ceil(2)
}

/// The rows `partial_products` gives for an `a` x `b` multiply (width and signedness
/// of each), as (offset, width), without building them, and the constant's (from its
/// lowest one to the product's top) if it is not zero.
pub fn layout(a: (u32, bool), b: (u32, bool)) -> (Vec<Span>, Option<Span>) {
    let width = a.0 + b.0;
    let k = a.0 + u32::from(!a.1) + 1;
    let n = digits(b.0, b.1);
    let rows = (0..n)
        .map(|i| if i == 0 { (0, k) } else { (2 * i - 2, k + 2) })
        .chain([(2 * (n - 1), 1)])
        .filter(|r| r.0 < width)
        .map(|(off, w)| (off, w.min(width - off)))
        .collect();
    // The lowest sign weight, 2^(k-1), is the constant's lowest one.
    (rows, (k - 1 < width).then(|| (k - 1, width - (k - 1))))
}

/// The partial products of `a * b` modulo 2^`width`, `b` Booth-recoded; each operand's
/// signedness is its `Value`'s.
pub fn partial_products(a: &Value, b: &Value, width: u32) -> PartialProducts {
    // k: the width of the row values, a's two's-complement width plus one (for 2a).
    let k = a.width() + u32::from(!a.is_signed()) + 1;
    let a1 = a.ext(k).as_unsigned();
    let a2 = a1.shl(1);
    let n = digits(b.width(), b.is_signed());
    // b's bits with b[-1] = 0 below: digit i reads bits 2i..=2i+2 of this.
    let bits = cat(&[&b.ext(2 * n).as_unsigned(), &b.konst(Bits::zero(1))]);
    let mut rows = Vec::new();
    let mut sign_weights = Vec::new();
    let mut carry_in: Option<Value> = None;
    for i in 0..n {
        let (x0, x1, x2) = (bits.bit(2 * i), bits.bit(2 * i + 1), bits.bit(2 * i + 2));
        let one = &x1 ^ &x0;
        let two = &(&x2 ^ &x1) & &!&one;
        let s = &(&a1 & &one.repeat(k)) | &(&a2 & &two.repeat(k));
        let r = &s ^ &x2.repeat(k);
        let mut row = Row {
            off: 2 * i,
            bits: cat(&[&!&r.msb(), &r.slice(k - 2, 0)]),
        };
        sign_weights.push(2 * i + k - 1);
        if let Some(c) = carry_in.take() {
            row = Row {
                off: row.off - 2,
                bits: cat(&[&row.bits, &c.konst(Bits::zero(1)), &c]),
            };
        }
        rows.push(row);
        carry_in = Some(x2);
    }
    if let Some(c) = carry_in {
        rows.push(Row {
            off: 2 * (n - 1),
            bits: c,
        });
    }
    let rows = rows
        .into_iter()
        .filter_map(|r| truncate(r, width))
        .collect();
    PartialProducts {
        rows,
        constant: negated_sum_of_powers(&sign_weights, width),
    }
}

/// The row without its bits at 2^`width` and above (`None` if nothing is left).
fn truncate(row: Row, width: u32) -> Option<Row> {
    if row.off >= width {
        return None;
    }
    let keep = width - row.off;
    if row.bits.width() <= keep {
        return Some(row);
    }
    Some(Row {
        off: row.off,
        bits: row.bits.slice(keep - 1, 0),
    })
}

/// -(sum of 2^p for p in `powers`) modulo 2^`width`, or `None` if zero.
fn negated_sum_of_powers(powers: &[u32], width: u32) -> Option<Bits> {
    let words = hdl::bits::words_for(width);
    let mut sum = vec![0u64; words];
    for &p in powers.iter().filter(|&&p| p < width) {
        sum[(p / 64) as usize] |= 1 << (p % 64);
    }
    // Two's-complement negation: invert and add one.
    let mut carry = true;
    for w in &mut sum {
        let (v, c) = (!*w).overflowing_add(u64::from(carry));
        *w = v;
        carry = c;
    }
    let value = Bits::from_words(width, &sum);
    (!value.is_zero()).then_some(value)
}
