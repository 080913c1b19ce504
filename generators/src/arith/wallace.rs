//! A Wallace tree of carry-save adders on whole rows.
//!
//! One level groups the rows, in order of weight, in threes and replaces each group by
//! its sum and carry rows: one full adder per column, the carry row one column up, so a
//! level is one full adder deep and takes the row count from r to 2 floor(r/3) + r mod 3.
//! Columns where fewer than three rows have bits get zeros in the missing places, which
//! synthesis folds into half adders and wires; the carry row spans only the columns where
//! two rows meet, the only ones that can carry.

use super::booth::{Row, Span};
use hdl::{cat, Bits, Value};

/// Groups `rows` (sorted by offset) in threes, replaces each group by what `compress`
/// makes of it, and sorts the result by offset.
fn level_by<T: Clone>(
    rows: Vec<T>,
    off: impl Fn(&T) -> u32,
    mut compress: impl FnMut(&T, &T, &T) -> Vec<T>,
) -> Vec<T> {
    let mut out = Vec::new();
    let mut groups = rows.chunks_exact(3);
    for g in &mut groups {
        out.extend(compress(&g[0], &g[1], &g[2]));
    }
    out.extend(groups.remainder().iter().cloned());
    out.sort_by_key(off);
    out
}

/// One level of the tree on `rows` (sorted by offset), modulo 2^`width`.
pub fn level(rows: Vec<Row>, width: u32) -> Vec<Row> {
    level_by(rows, |r| r.off, |x, y, z| compress(x, y, z, width))
}

/// The spans of `level`'s rows, without building them.
pub fn level_spans(spans: Vec<Span>, width: u32) -> Vec<Span> {
    level_by(
        spans,
        |s| s.0,
        |x, y, z| {
            let (sum, carry) = compress_spans([*x, *y, *z], width);
            [sum].into_iter().chain(carry).collect()
        },
    )
}

/// The columns `lo..hi` of `row`, zero elsewhere.
pub fn align(row: &Row, lo: u32, hi: u32) -> Value {
    let mut parts = Vec::new();
    let top = row.off + row.bits.width();
    if hi > top {
        parts.push(row.bits.konst(Bits::zero(hi - top)));
    }
    parts.push(row.bits.clone());
    if row.off > lo {
        parts.push(row.bits.konst(Bits::zero(row.off - lo)));
    }
    cat(&parts.iter().collect::<Vec<_>>())
}

/// The spans of the sum and carry rows of three rows: the sum over all their columns,
/// the carry one column above those where two of them meet (none if no two do), cut at
/// `width`.
fn compress_spans(rows: [Span; 3], width: u32) -> (Span, Option<Span>) {
    let lo = rows.iter().map(|r| r.0).min().unwrap_or(0);
    let hi = rows.iter().map(|r| r.0 + r.1).max().unwrap_or(0);
    let overlaps = [(0, 1), (0, 2), (1, 2)].map(|(p, q)| {
        let (p, q) = (rows[p], rows[q]);
        (p.0.max(q.0), (p.0 + p.1).min(q.0 + q.1))
    });
    let (c_lo, c_hi) = overlaps
        .iter()
        .filter(|o| o.0 < o.1)
        .fold((u32::MAX, 0), |acc, o| (acc.0.min(o.0), acc.1.max(o.1)));
    let carry =
        (c_lo < c_hi && c_lo + 1 < width).then(|| (c_lo + 1, (c_hi - c_lo).min(width - c_lo - 1)));
    ((lo, hi - lo), carry)
}

/// The sum and carry rows of three rows (the carry row absent if no two rows overlap).
fn compress(x: &Row, y: &Row, z: &Row, width: u32) -> Vec<Row> {
    let span = |r: &Row| (r.off, r.bits.width());
    let ((lo, w), carry) = compress_spans([span(x), span(y), span(z)], width);
    let [a, b, c] = [x, y, z].map(|r| align(r, lo, lo + w));
    let ab = &a ^ &b;
    let mut out = vec![Row {
        off: lo,
        bits: &ab ^ &c,
    }];
    if let Some((off, cw)) = carry {
        let bits = &(&a & &b) | &(&c & &ab);
        let from = off - 1 - lo;
        out.push(Row {
            off,
            bits: bits.slice(from + cw - 1, from),
        });
    }
    out
}
