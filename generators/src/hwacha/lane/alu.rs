//! The bank-local integer ALU of one slice (VIU): the Rocket ALU's RV64I functions
//! (`rocket::alu::alu`, same results for every `fn`) plus the vector unit's equality
//! compare and element index.
//!
//! Unlike the Rocket ALU, which gives each function its own adder or shifter, it is built
//! as a small ALU is: one adder serves ADD, SUB, SLT and SLTU (b inverted plus a carry
//! in; the comparisons from the difference's sign and the operands' signs), and one
//! right shifter serves SRL, SRA and, on bit-reversed operands, SLL and the element index
//! (veidx). There are eight of these per lane, so the sharing is a lane's worth of area.

use super::uop::alu_fn;
use crate::arith::kogge_stone::prefix_add;
use crate::rocket::decode::alu_fn as rv;
use hdl::helpers::onehot_mux;
use hdl::{cat, Bits, Value};

/// `v` with its bits in the reverse order.
fn reverse(v: &Value) -> Value {
    let bits: Vec<Value> = (0..v.width()).map(|i| v.bit(i)).collect();
    cat(&bits.iter().collect::<Vec<_>>())
}

/// `fn_` (5 bits) is a `rocket::decode::alu_fn` (taken from its low 4 bits, as the
/// Rocket ALU does) or one of `uop::alu_fn`; compares give 0/1.
pub fn alu(fn_: &Value, word: &Value, a: &Value, b: &Value, eidx: &Value) -> Value {
    let f = fn_.slice(3, 0);
    let is = |v: u64| f.eq(&f.konst(Bits::from_u64(rv::WIDTH, v)));
    let is_full = |v: u64| fn_.eq(&fn_.konst(Bits::from_u64(fn_.width(), v)));
    let (is_eq, is_eidx) = (is_full(alu_fn::EQ), is_full(alu_fn::EIDX));

    // The adder: a + b, or a - b = a + !b + 1.
    let subtract = &(&is(rv::SUB) | &is(rv::SLT)) | &is(rv::SLTU);
    // One Kogge-Stone adder (`arith::kogge_stone`, whose depth does not depend on how
    // the flow maps `+`) with `subtract` as its carry in.
    let b_in = subtract.mux(&!b, b);
    let sum = prefix_add(a, &b_in, &subtract).0;
    // a < b: the difference's sign when the signs agree (no overflow), else the sign
    // of the operand that is negative (signed) or of b (unsigned).
    let same_sign = a.bit(63).eq(&b.bit(63));
    let lt = same_sign.mux(&sum.bit(63), &is(rv::SLTU).mux(&b.bit(63), &a.bit(63)));

    // The shifter: right shifts as they are, left shifts on reversed operands. Word
    // forms shift the low word (zero- or sign-extended to the right) by 5 bits; the
    // element index shifts by 6 bits whatever `word` says.
    let left = &is(rv::SLL) | &is_eidx;
    let low = a.slice(31, 0);
    let right_in = word.mux(
        &is(rv::SRA).mux(&low.as_signed().sext(64).as_unsigned(), &low.zext(64)),
        a,
    );
    let left_in = is_eidx.mux(&eidx.zext(64), a);
    let shift_in = left.mux(&reverse(&left_in), &right_in);
    let fill = &(&is(rv::SRA) & &!&left) & &shift_in.bit(63);
    let amount = (word & &!&is_eidx).mux(&b.slice(4, 0).zext(6), &b.slice(5, 0));
    let shifted = cat(&[&fill, &shift_in])
        .as_signed()
        .dshr(&amount)
        .as_unsigned()
        .slice(63, 0);
    let shifted_left = reverse(&shifted);

    // The result: an AND-OR of the candidates, each selected by a decode of `fn_` alone
    // (one-hot: EQ and EIDX before the 4-bit functions, the adder for the rest), so the
    // late operands pass one select level instead of a chain of muxes.
    let narrow = !&(&is_eq | &is_eidx);
    let shifts = &is(rv::SRL) | &is(rv::SRA);
    let compares = &is(rv::SLT) | &is(rv::SLTU);
    let others = [
        is(rv::SLL),
        compares,
        is(rv::XOR),
        shifts,
        is(rv::OR),
        is(rv::AND),
    ];
    let adds = !&others
        .iter()
        .fold(f.konst(Bits::zero(1)), |acc, c| &acc | c);
    let cases = [
        (&narrow & &others[0], shifted_left.clone()),
        (&narrow & &others[1], lt.zext(64)),
        (&narrow & &others[2], a ^ b),
        (&narrow & &others[3], shifted),
        (&narrow & &others[4], a | b),
        (&narrow & &others[5], a & b),
        (&narrow & &adds, sum),
    ];
    let sel = cat(&cases.iter().rev().map(|c| &c.0).collect::<Vec<_>>());
    let values: Vec<Value> = cases.iter().map(|c| c.1.clone()).collect();
    let result = onehot_mux(&sel, &values);
    // Word forms take the low word's sign above it.
    let high = word.mux(&result.bit(31).repeat(32), &result.slice(63, 32));
    let result = cat(&[&high, &result.slice(31, 0)]);
    let special = onehot_mux(&cat(&[&is_eidx, &is_eq]), &[a.eq(b).zext(64), shifted_left]);
    &result | &special
}

#[cfg(test)]
mod tests {
    use super::*;
    use hdl::{sim::Sim, Design, ModuleBuilder};

    /// RV64I's ALU operations (and the vector unit's two) in plain Rust, the reference.
    fn model(fn_: u64, word: bool, a: u64, b: u64, eidx: u32) -> u64 {
        let sext32 = |x: u64| x as u32 as i32 as i64 as u64;
        match fn_ {
            alu_fn::EQ => return (a == b) as u64,
            alu_fn::EIDX => return (eidx as u64) << (b & 63),
            _ => {}
        }
        let amount = if word { b & 31 } else { b & 63 };
        let r = match fn_ & 15 {
            rv::SUB => a.wrapping_sub(b),
            rv::SLL => a << amount,
            rv::SLT => ((a as i64) < (b as i64)) as u64,
            rv::SLTU => (a < b) as u64,
            rv::XOR => a ^ b,
            rv::SRL => (if word { a & 0xffff_ffff } else { a }) >> amount,
            rv::SRA => ((if word { sext32(a) } else { a }) as i64 >> amount) as u64,
            rv::OR => a | b,
            rv::AND => a & b,
            _ => a.wrapping_add(b),
        };
        if word {
            sext32(r)
        } else {
            r
        }
    }

    #[test]
    fn matches_the_model_on_every_function() {
        let mut m = ModuleBuilder::new("LaneAlu");
        let (f, w) = (m.input("fn", 5), m.input("word", 1));
        let (a, b, e) = (m.input("a", 64), m.input("b", 64), m.input("eidx", 32));
        let out = m.output("out", 64);
        let r = alu(&f, &w, &a, &b, &e);
        m.connect(&out, &r);
        let mut sim = Sim::new(&Design::new(&m.finish().unwrap()));
        let edges = [
            0,
            1,
            31,
            32,
            63,
            64,
            0x7fff_ffff,
            0x8000_0000,
            u64::MAX,
            1 << 63,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut operands: Vec<(u64, u64)> = edges
            .iter()
            .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
            .collect();
        operands.extend((0..200).map(|_| (next(), next())));
        for fn_ in 0..32u64 {
            for word in [false, true] {
                for &(a, b) in &operands {
                    let eidx = (a ^ b.rotate_left(7)) as u32;
                    for (port, v) in [("fn", fn_), ("word", word as u64), ("a", a), ("b", b)] {
                        sim.poke_u64(port, v).unwrap();
                    }
                    sim.poke_u64("eidx", eidx as u64).unwrap();
                    let want = model(fn_, word, a, b, eidx);
                    let got = sim.peek_u64("out").unwrap();
                    assert_eq!(got, want, "fn {fn_} word {word} a {a:#x} b {b:#x}");
                }
            }
        }
    }
}
