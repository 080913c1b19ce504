//! A Kogge-Stone parallel-prefix adder (P. M. Kogge and H. S. Stone, "A Parallel
//! Algorithm for the Efficient Solution of a General Class of Recurrence Equations", IEEE
//! Trans. Computers C-22(8), 1973): log2(width) levels of generate/propagate merging,
//! width x log2(width) cells, where [`super::adder`]'s Brent-Kung takes about twice as
//! many levels and 2 x width cells, but comes out of Yosys 0.23 and abc as a 4-bit-block
//! ripple (about 50 cells for 64 bits). The Rocket core's sums and compares (with
//! `adders = "prefix"`), the Hwacha bank ALU and the VMU's address path use this one
//! (through [`super::adder::Style::Prefix`]); the multiplier the smaller Brent-Kung.

use hdl::{cat, Bits, Value};

/// `a + b + cin` (equal widths, `cin` 1 bit) and the carry out, by a Kogge-Stone
/// parallel-prefix carry network (P. M. Kogge and H. S. Stone, "A Parallel Algorithm for
/// the Efficient Solution of a General Class of Recurrence Equations", IEEE Trans.
/// Computers C-22(8), 1973): log2(width) levels of generate/propagate merging, written
/// as vector operations so that synthesis sees the shallow network, not a ripple `$add`.
pub fn prefix_add(a: &Value, b: &Value, cin: &Value) -> (Value, Value) {
    let a = a.as_unsigned();
    let b = b.as_unsigned();
    let n = a.width();
    let half = &a ^ &b;
    let mut g = &(&a & &b) | &(&half & &cin.zext(n));
    let mut p = half.clone();
    let mut d = 1;
    while d < n {
        let low = a.konst(Bits::from_u64(n, (1u64 << d) - 1));
        g = &g | &(&p & &g.shl(d));
        p = &p & &(&p.shl(d) | &low);
        d *= 2;
    }
    // Carry into bit i is the group (i-1..0) generate; into bit 0, `cin`.
    let carries = if n == 1 {
        cin.clone()
    } else {
        cat(&[&g.slice(n - 2, 0), cin])
    };
    (&half ^ &carries, g.bit(n - 1))
}

/// `a - b` (equal widths) and whether `a < b` unsigned (no carry out of `a + !b + 1`).
pub fn prefix_sub(a: &Value, b: &Value) -> (Value, Value) {
    let one = a.konst(Bits::from_u64(1, 1));
    let (diff, carry) = prefix_add(a, &!&b.as_unsigned(), &one);
    (diff, !&carry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::sim::{Sim, SplitMix};
    use hdl::{Design, ModuleBuilder};

    /// A module computing `prefix_add` (sum, carry) and `prefix_sub` (difference,
    /// unsigned less-than) of inputs `a`, `b`, `cin` of width `w`.
    fn sim(w: u32) -> Sim {
        let mut m = ModuleBuilder::new("PrefixAdd");
        let (a, b, cin) = (m.input("a", w), m.input("b", w), m.input("cin", 1));
        let (sum, carry) = prefix_add(&a, &b, &cin);
        let (diff, ltu) = prefix_sub(&a, &b);
        for (name, v) in [("sum", sum), ("carry", carry), ("diff", diff), ("ltu", ltu)] {
            let o = m.output(name, v.width());
            m.connect(&o, &v);
        }
        Sim::new(&Design::new(&m.finish().unwrap()))
    }

    /// Checks one case against Rust's 128-bit arithmetic.
    fn check(s: &mut Sim, w: u32, a: u64, b: u64, cin: u64) {
        let mask = u128::MAX >> (128 - w);
        s.poke_u64("a", a).unwrap();
        s.poke_u64("b", b).unwrap();
        s.poke_u64("cin", cin).unwrap();
        let full = a as u128 + b as u128 + cin as u128;
        let case = format!("w {w} a {a:#x} b {b:#x} cin {cin}");
        assert_eq!(s.peek_u64("sum").unwrap() as u128, full & mask, "{case}");
        assert_eq!(s.peek_u64("carry").unwrap() as u128, full >> w, "{case}");
        let diff = (a as u128).wrapping_sub(b as u128) & mask;
        assert_eq!(s.peek_u64("diff").unwrap() as u128, diff, "{case}");
        assert_eq!(s.peek_u64("ltu").unwrap(), (a < b) as u64, "{case}");
    }

    #[test]
    fn prefix_adder_matches_integer_arithmetic() {
        for w in [1, 2, 3, 5, 6] {
            let mut s = sim(w);
            for a in 0..1u64 << w {
                for b in 0..1u64 << w {
                    for cin in 0..2 {
                        check(&mut s, w, a, b, cin);
                    }
                }
            }
        }
        let mut s = sim(64);
        let mut rng = SplitMix(17);
        let edges = [0, 1, u64::MAX, 1 << 63, (1 << 63) - 1];
        for &a in &edges {
            for &b in &edges {
                check(&mut s, 64, a, b, 0);
                check(&mut s, 64, a, b, 1);
            }
        }
        for _ in 0..2000 {
            let (a, b) = (rng.next_u64(), rng.next_u64());
            check(&mut s, 64, a, b, b & 1);
        }
    }
}
