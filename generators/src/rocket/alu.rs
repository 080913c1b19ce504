//! The integer ALU and branch comparator of the execute stage (RV64I, with the *W forms
//! computed on the low word and sign-extended); its sums and comparisons go through the
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

/// `fn_` is one of `alu_fn::*`; `word` selects the 32-bit forms.
pub fn alu(adders: Style, fn_: &Value, a: &Value, b: &Value, word: &Value) -> Value {
    let is = |v: u64| fn_.eq(&fn_.konst(Bits::from_u64(alu_fn::WIDTH, v)));
    // Word shifts see the low word, zero- or sign-extended, and a 5-bit amount.
    let low = a.slice(31, 0);
    let a_srl = word.mux(&low.zext(64), a);
    let a_sra = word.mux(&low.as_signed().sext(64).as_unsigned(), a);
    let amount = word.mux(&b.slice(4, 0).zext(6), &b.slice(5, 0));
    let sum = adders.add(a, b);
    let (diff, ltu) = adders.sub(a, b);
    let lt = signed_lt(a, b, &diff);
    let one = |c: Value| c.zext(64);
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
    word.mux(
        &result.slice(31, 0).as_signed().sext(64).as_unsigned(),
        &result,
    )
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
