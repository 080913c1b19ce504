//! A Brent-Kung parallel-prefix adder, written out so its depth does not depend on how a
//! synthesis flow maps `+` (Yosys without timing-driven mapping makes `+` a ripple).
//!
//! With generate g = x & y and propagate p = x ^ y per bit, the up-sweep combines, at
//! distance d = 1, 2, 4, ..., each bit i with (i + 1) a multiple of 2d with bit i - d:
//! g[i] |= p[i] & g[i-d], p[i] &= p[i-d]. The down-sweep, at d from the largest down to
//! 1, completes the bits i with (i + 1) an odd multiple of d above d: g[i] |= p[i] &
//! g[i-d]. Then g[i] is the carry out of bit i, and the sum is p ^ (g << 1): about
//! 2 log2(width) AND-OR levels and 2 width of them, where a Kogge-Stone adder has
//! width log2(width). The bits a level leaves alone are masked by constants, which
//! synthesis folds.
//!
//! [`Style`] is a design's choice (parameter `adders`) between written-out prefix adders
//! and the `+` and `-` a flow maps itself: FPGAs have carry chains that beat any prefix
//! network built of LUTs.

use super::kogge_stone::{prefix_add, prefix_sub};
use hdl::{cat, Bits, Value};
use serde::{Deserialize, Serialize};

/// How a design builds its carry-propagate sums and magnitude compares (its `adders`
/// parameter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// Written-out parallel-prefix networks (the Rocket core's Kogge-Stone,
    /// [`super::kogge_stone`]): shallow whatever the flow does with `+`, for ASICs.
    #[default]
    Prefix,
    /// Verilog `+` and `-`, which FPGA flows map to the device's carry chain (ECP5
    /// `CCU2C`, iCE40 `SB_CARRY`).
    Inferred,
}

impl Style {
    /// The values of the `adders` parameter, in [`Style`]'s order.
    pub const NAMES: &'static [&'static str] = &["prefix", "inferred"];

    /// `a + b` wrapped to their (equal) width.
    pub fn add(self, a: &Value, b: &Value) -> Value {
        match self {
            Style::Prefix => prefix_add(a, b, &a.konst(Bits::zero(1))).0,
            Style::Inferred => &a.as_unsigned() + &b.as_unsigned(),
        }
    }

    /// `a - b` wrapped to their (equal) width, and whether `a < b` unsigned.
    pub fn sub(self, a: &Value, b: &Value) -> (Value, Value) {
        match self {
            Style::Prefix => prefix_sub(a, b),
            Style::Inferred => {
                let w = a.width();
                let wide = a.as_unsigned().subc(&b.as_unsigned());
                (wide.trunc(w), wide.bit(w))
            }
        }
    }
}

/// One prefix level at distance `d` on the bits selected by `mask`.
fn combine(g: &Value, p: &Value, d: u32, mask: &[bool], update_p: bool) -> (Value, Value) {
    let w = g.width();
    let words: Vec<u64> = (0..hdl::bits::words_for(w))
        .map(|k| {
            (0..64)
                .filter(|&j| mask.get(64 * k + j).copied().unwrap_or(false))
                .fold(0u64, |acc, j| acc | 1 << j)
        })
        .collect();
    let m = g.konst(Bits::from_words(w, &words));
    let g = g | &(&(&m & p) & &g.shl(d));
    let p = if update_p {
        p & &(&!&m | &p.shl(d))
    } else {
        p.clone()
    };
    (g, p)
}

/// `x + y` (one width, unsigned) one bit wider: the carry out on top.
pub fn add(x: &Value, y: &Value) -> Value {
    let (x, y) = (x.as_unsigned(), y.as_unsigned());
    let w = x.width();
    let p0 = &x ^ &y;
    let (mut g, mut p) = (&x & &y, p0.clone());
    let mut d = 1;
    while d < w {
        let mask: Vec<bool> = (0..w).map(|i| (i + 1) % (2 * d) == 0).collect();
        (g, p) = combine(&g, &p, d, &mask, true);
        d *= 2;
    }
    while d > 1 {
        d /= 2;
        let mask: Vec<bool> = (0..w)
            .map(|i| (i + 1) % (2 * d) == d && i + 1 > d)
            .collect();
        (g, p) = combine(&g, &p, d, &mask, false);
    }
    let zero = x.konst(Bits::zero(1));
    &cat(&[&zero, &p0]) ^ &cat(&[&g, &zero])
}

/// The AND-OR levels of a `width`-bit `add`.
pub fn levels(width: u32) -> u32 {
    let log = 32 - (width.max(1) - 1).leading_zeros();
    (2 * log).saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::sim::{Sim, SplitMix};
    use hdl::{Design, ModuleBuilder};

    /// Operand pairs at `w` bits: every pair up to 4 bits, else the corners and `random`
    /// random pairs.
    fn pairs(w: u32, random: usize) -> Vec<(u64, u64)> {
        let mask = u64::MAX >> (64 - w);
        if w <= 4 {
            return (0..=mask)
                .flat_map(|a| (0..=mask).map(move |b| (a, b)))
                .collect();
        }
        let mut rng = SplitMix(u64::from(w));
        let corners = [0, 1, mask, mask >> 1, (mask >> 1) + 1];
        corners
            .iter()
            .flat_map(|&a| corners.iter().map(move |&b| (a, b)))
            .chain((0..random).map(|_| (rng.next_u64() & mask, rng.next_u64() & mask)))
            .collect()
    }

    /// The Brent-Kung [`add`]'s sum and carry out against Rust's arithmetic, at the
    /// widths where the prefix tree is ragged (not a power of two) and full.
    #[test]
    fn add_matches_rust() {
        for w in [1u32, 4, 7, 32, 33, 64] {
            let mut m = ModuleBuilder::new("Add");
            let (x, y) = (m.input("x", w), m.input("y", w));
            let (s, c) = (m.output("s", w), m.output("c", 1));
            let sum = add(&x, &y);
            m.connect(&s, &sum.trunc(w));
            m.connect(&c, &sum.bit(w));
            let mut sim = Sim::new(&Design::new(&m.finish().unwrap()));
            for (a, b) in pairs(w, 300) {
                sim.poke_u64("x", a).unwrap();
                sim.poke_u64("y", b).unwrap();
                let wide = u128::from(a) + u128::from(b);
                let got = (sim.peek_u64("s").unwrap(), sim.peek_u64("c").unwrap());
                let want = ((wide as u64) & (u64::MAX >> (64 - w)), (wide >> w) as u64);
                assert_eq!(got, want, "{w}: {a:#x} + {b:#x}");
            }
        }
    }

    /// [`Style::add`] and [`Style::sub`] of both styles against Rust's wrapping
    /// arithmetic and unsigned compare, exhaustively at 1 and 4 bits and at random (with
    /// the corners) at 33 and 64.
    #[test]
    fn both_styles_match_rust() {
        for style in [Style::Prefix, Style::Inferred] {
            for w in [1u32, 4, 33, 64] {
                let mut m = ModuleBuilder::new("Style");
                let (x, y) = (m.input("x", w), m.input("y", w));
                let (s, d, lt) = (m.output("s", w), m.output("d", w), m.output("lt", 1));
                let (diff, ltu) = style.sub(&x, &y);
                m.connect(&s, &style.add(&x, &y));
                m.connect(&d, &diff);
                m.connect(&lt, &ltu);
                let mut sim = Sim::new(&Design::new(&m.finish().unwrap()));
                let mask = u64::MAX >> (64 - w);
                for (a, b) in pairs(w, 500) {
                    sim.poke_u64("x", a).unwrap();
                    sim.poke_u64("y", b).unwrap();
                    let case = format!("{style:?} {w}: {a:#x}, {b:#x}");
                    assert_eq!(
                        sim.peek_u64("s").unwrap(),
                        a.wrapping_add(b) & mask,
                        "{case}"
                    );
                    assert_eq!(
                        sim.peek_u64("d").unwrap(),
                        a.wrapping_sub(b) & mask,
                        "{case}"
                    );
                    assert_eq!(sim.peek_u64("lt").unwrap(), u64::from(a < b), "{case}");
                }
            }
        }
    }
}
