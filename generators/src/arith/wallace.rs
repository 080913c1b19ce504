//! A Wallace tree of carry-save adders on whole rows.
//!
//! One level groups the rows, in order of weight, in threes and replaces each group by
//! its sum and carry rows: one full adder per column, the carry row one column up, so a
//! level is one full adder deep and takes the row count from r to 2 floor(r/3) + r mod 3.
//! Columns where fewer than three rows have bits get zeros in the missing places, which
//! synthesis folds into half adders and wires; the carry row spans only the columns where
//! two rows meet, the only ones that can carry.

use super::booth::{truncate, Row};
use hdl::{cat, Bits, Value};

/// The number of levels that take `rows` rows down to two.
pub fn levels(mut rows: u32) -> u32 {
    let mut n = 0;
    while rows > 2 {
        rows = 2 * (rows / 3) + rows % 3;
        n += 1;
    }
    n
}

/// One level of the tree on `rows` (sorted by offset), modulo 2^`width`.
pub fn level(rows: Vec<Row>, width: u32) -> Vec<Row> {
    let mut out = Vec::new();
    let mut groups = rows.chunks_exact(3);
    for g in &mut groups {
        out.extend(compress(&g[0], &g[1], &g[2], width));
    }
    out.extend(groups.remainder().iter().cloned());
    out.sort_by_key(|r| r.off);
    out
}

/// The columns `lo..hi` of `row`, zero elsewhere.
fn align(row: &Row, lo: u32, hi: u32) -> Value {
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

/// The sum and carry rows of three rows (the carry row absent if no two rows overlap).
fn compress(x: &Row, y: &Row, z: &Row, width: u32) -> Vec<Row> {
    let span = |r: &Row| (r.off, r.off + r.bits.width());
    let (lo, hi) = [x, y, z]
        .iter()
        .map(|r| span(r))
        .fold((u32::MAX, 0), |acc, s| (acc.0.min(s.0), acc.1.max(s.1)));
    let [a, b, c] = [x, y, z].map(|r| align(r, lo, hi));
    let ab = &a ^ &b;
    let sum = Row {
        off: lo,
        bits: &ab ^ &c,
    };
    // Columns covered by at least two rows: the pairwise overlaps.
    let overlaps = [(x, y), (x, z), (y, z)].map(|(p, q)| {
        let (p, q) = (span(p), span(q));
        (p.0.max(q.0), p.1.min(q.1))
    });
    let (c_lo, c_hi) = overlaps
        .iter()
        .filter(|o| o.0 < o.1)
        .fold((u32::MAX, 0), |acc, o| (acc.0.min(o.0), acc.1.max(o.1)));
    let mut out = vec![sum];
    if c_lo < c_hi {
        let carry = &(&a & &b) | &(&c & &ab);
        let bits = carry.slice(c_hi - lo - 1, c_lo - lo);
        out.extend(truncate(
            Row {
                off: c_lo + 1,
                bits,
            },
            width,
        ));
    }
    out
}
