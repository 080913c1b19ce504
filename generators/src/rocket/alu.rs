//! The integer ALU and branch comparator of the execute stage (RV64I, with the *W forms
//! computed on the low word and sign-extended, or RV32I at 32-bit operands, which has no
//! *W forms); its sums and comparisons go through the
//! design's adder style ([`crate::arith::adder::Style`]: Kogge-Stone or inferred).

use super::decode::alu_fn;
use crate::arith::adder::Style;
use hdl::helpers::{onehot_mux, priority_mux};
use hdl::{cat, Bits, Value};

/// Signed `a < b` from `a - b` and the unsigned comparison: the signs decide when they
/// differ, else the difference's sign.
fn signed_lt(a: &Value, b: &Value, diff: &Value) -> Value {
    let w = a.width() - 1;
    (&a.bit(w) ^ &b.bit(w)).mux(&a.bit(w), &diff.bit(w))
}

/// `fn_` is one of `alu_fn::*`; `word` selects the 32-bit forms of 64-bit operands (32-bit
/// operands have none: `word` is ignored).
pub fn alu(adders: Style, fn_: &Value, a: &Value, b: &Value, word: &Value) -> Value {
    let is = |v: u64| fn_.eq(&fn_.konst(Bits::from_u64(alu_fn::WIDTH, v)));
    let w = a.width();
    let (a_srl, a_sra, amount) = if w == 64 {
        // Word shifts see the low word, zero- or sign-extended, and a 5-bit amount.
        let low = a.slice(31, 0);
        (
            word.mux(&low.zext(64), a),
            word.mux(&low.as_signed().sext(64).as_unsigned(), a),
            word.mux(&b.slice(4, 0).zext(6), &b.slice(5, 0)),
        )
    } else {
        (a.clone(), a.clone(), b.slice(4, 0))
    };
    let sum = adders.add(a, b);
    let (diff, ltu) = adders.sub(a, b);
    let lt = signed_lt(a, b, &diff);
    let one = |c: Value| c.zext(w);
    // The functions are exclusive: an AND-OR selection, not a chain of multiplexers
    // (ADD when none of the others, as the decoder's default).
    let cases = [
        (is(alu_fn::SUB), diff),
        (is(alu_fn::SLL), a.dshl(&amount)),
        (is(alu_fn::SLT), one(lt)),
        (is(alu_fn::SLTU), one(ltu)),
        (is(alu_fn::XOR), a ^ b),
        (is(alu_fn::SRL), a_srl.dshr(&amount)),
        (
            is(alu_fn::SRA),
            a_sra.as_signed().dshr(&amount).as_unsigned(),
        ),
        (is(alu_fn::OR), a | b),
        (is(alu_fn::AND), a & b),
    ];
    let others = cases[1..]
        .iter()
        .fold(cases[0].0.clone(), |acc, (c, _)| &acc | c);
    let sel: Vec<&Value> = cases.iter().map(|(c, _)| c).rev().collect();
    let sel = cat(&[&!&others, &cat(&sel)]);
    let mut values: Vec<Value> = cases.iter().map(|(_, v)| v.clone()).collect();
    values.push(sum);
    let result = onehot_mux(&sel, &values);
    if w < 64 {
        return result;
    }
    word.mux(
        &result.slice(31, 0).as_signed().sext(64).as_unsigned(),
        &result,
    )
}

/// Whether `a + b == k` (one width, wrapped), without propagating a carry (Cortadella
/// and Llaberia, "Evaluation of A + B = K conditions without carry propagation", IEEE
/// Trans. Computers 41(11), 1992): the sum equals `k` iff every bit i has
/// a_i ^ b_i ^ k_i equal to the carry out of bit i - 1 given that its sum bit is
/// k_{i-1}, i.e. (a_{i-1} & b_{i-1}) | ((a_{i-1} | b_{i-1}) & !k_{i-1}), with carry-in 0
/// at bit 0. An AND-reduce of bitwise terms: a few LUT levels where `a + b` and a
/// compare are a carry chain and a reduction after it.
pub fn sum_equals(a: &Value, b: &Value, k: &Value) -> Value {
    let carries = (&(a & b) | &(&(a | b) & &!k)).shl(1);
    (!&(&(a ^ b) ^ &(k ^ &carries))).and_r()
}

/// Whether a conditional branch with this funct3 is taken.
pub fn branch_taken(adders: Style, funct3: &Value, a: &Value, b: &Value) -> Value {
    let eq = a.eq(b);
    let (diff, ltu) = adders.sub(a, b);
    let lt = signed_lt(a, b, &diff);
    let base = priority_mux(
        &[
            (
                funct3.slice(2, 1).eq(&funct3.konst(Bits::from_u64(2, 0))),
                eq,
            ),
            (
                funct3.slice(2, 1).eq(&funct3.konst(Bits::from_u64(2, 2))),
                lt,
            ),
        ],
        &ltu,
    );
    // funct3 bit 0 inverts: bne, bge, bgeu.
    &base ^ &funct3.bit(0)
}

#[cfg(test)]
mod tests {
    use super::sum_equals;
    use hdl::sim::{Sim, SplitMix};
    use hdl::{Design, ModuleBuilder};

    fn sim(w: u32) -> Sim {
        let mut m = ModuleBuilder::new("SumEquals");
        let (a, b, k) = (m.input("a", w), m.input("b", w), m.input("k", w));
        let o = m.output("eq", 1);
        m.connect(&o, &sum_equals(&a, &b, &k));
        Sim::new(&Design::new(&m.finish().unwrap()))
    }

    fn check(s: &mut Sim, w: u32, a: u64, b: u64, k: u64) {
        let mask = u64::MAX >> (64 - w);
        for (name, v) in [("a", a), ("b", b), ("k", k)] {
            s.poke_u64(name, v).unwrap();
        }
        let want = a.wrapping_add(b) & mask == k;
        let case = format!("w {w} a {a:#x} b {b:#x} k {k:#x}");
        assert_eq!(s.peek_u64("eq").unwrap(), want as u64, "{case}");
    }

    /// Exhaustive at 4 bits; at 64 bits random operands against their true sum, and that
    /// sum with each single bit flipped.
    #[test]
    fn sum_equals_matches_integer_arithmetic() {
        let mut s = sim(4);
        for a in 0..16 {
            for b in 0..16 {
                for k in 0..16 {
                    check(&mut s, 4, a, b, k);
                }
            }
        }
        let mut s = sim(64);
        let mut rng = SplitMix(23);
        for _ in 0..300 {
            let (a, b) = (rng.next_u64(), rng.next_u64());
            let sum = a.wrapping_add(b);
            check(&mut s, 64, a, b, sum);
            check(&mut s, 64, a, b, sum ^ 1 << (rng.next_u64() % 64));
            check(&mut s, 64, a, b, rng.next_u64());
        }
    }
}
