//! Leading-zero count and normalization: the tree of Oklobdzija's "An algorithmic and
//! novel design of a leading zero detector circuit" (1994), halves combined pairwise,
//! used wherever a significand is normalized (floating-point unpacking, addition,
//! integer-to-float conversion).

use hdl::{cat, mux, Bits, Value};

/// Number of leading zeros of `v`: `v.width()` when `v` is zero; `clog2(width + 1)` bits.
pub fn leading_zeros(v: &Value) -> Value {
    let w = v.width();
    // A one below the value stops the count at `w`; zeros pad to a power of two.
    let n = (w + 1).next_power_of_two();
    let one = v.konst(Bits::from_u64(1, 1));
    let padded = if n > w + 1 {
        cat(&[&v.as_unsigned(), &one, &v.konst(Bits::zero(n - w - 1))])
    } else {
        v.as_unsigned().cat(&one)
    };
    let (_, count) = tree(&padded);
    debug_assert_eq!(count.width(), count_width(w));
    count
}

/// `v` shifted left until its top bit is set (zero stays zero) and the shift.
pub fn normalize(v: &Value) -> (Value, Value) {
    let lz = leading_zeros(v);
    (v.as_unsigned().dshl(&lz), lz)
}

/// Width of a count of `0..=w`.
pub fn count_width(w: u32) -> u32 {
    32 - w.leading_zeros()
}

/// For a power-of-two-wide `v`: whether it is all zero, and its leading zeros (log2 bits,
/// meaningful when not all zero).
fn tree(v: &Value) -> (Value, Value) {
    let w = v.width();
    if w == 2 {
        return (!(v.bit(1) | v.bit(0)), !v.bit(1));
    }
    let (hi_zero, hi) = tree(&v.slice(w - 1, w / 2));
    let (lo_zero, lo) = tree(&v.slice(w / 2 - 1, 0));
    let count = hi_zero.cat(&mux(&hi_zero, &lo, &hi));
    (&hi_zero & &lo_zero, count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::{sim::Sim, Design, ModuleBuilder};

    #[test]
    fn counts_and_normalizes_every_value_of_small_widths() {
        for w in 1..=9u32 {
            let mut m = ModuleBuilder::new("Lzc");
            let x = m.input("x", w);
            let (norm, lz) = normalize(&x);
            let count_out = m.output("lz", lz.width());
            m.connect(&count_out, &lz);
            let norm_out = m.output("norm", w);
            m.connect(&norm_out, &norm);
            let mut sim = Sim::new(&Design::new(&m.finish().unwrap()));
            for x in 0..1u64 << w {
                sim.poke_u64("x", x).unwrap();
                let lz = if x == 0 {
                    w
                } else {
                    w - (64 - x.leading_zeros())
                };
                assert_eq!(sim.peek_u64("lz").unwrap(), lz as u64, "w {w} x {x:#x}");
                let norm = (x << lz) & ((1 << w) - 1);
                assert_eq!(sim.peek_u64("norm").unwrap(), norm, "w {w} x {x:#x}");
            }
            assert_eq!(count_width(w), 64 - (w as u64).leading_zeros());
        }
    }
}
