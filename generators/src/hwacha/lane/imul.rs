//! The integer multiplier on the operand crossbar (VIMU, in VFU0): one bank entry (S
//! 64-bit elements) per cycle, the result `stages` cycles later. Each element's product
//! is one 65 x 65 signed multiply (`arith::multiply`): each operand extended by a bit,
//! with its sign for the signed operands of the function and a zero otherwise, serves
//! MUL, MULH, MULHSU and MULHU alike. Of the `stages` pipeline registers (Table 8.7:
//! 3), all but the last sit inside the multipliers' trees and final adders; the last
//! holds the selected 64-bit results, not the 130-bit products (a cut inside the adder
//! there would register more bits). The function travels beside the products, the mask
//! to the end.

use super::uop::{imul_fn, result, unit, xbar};
use crate::arith::{multiply, MulConfig};
use crate::hwacha::params::HwachaParams;
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// `fn_ == v`.
fn is(fn_: &Value, v: u64) -> Value {
    fn_.eq(&fn_.konst(Bits::from_u64(fn_.width(), v)))
}

/// The 65-bit signed operands of a 64 x 64 multiply of `fn_` (`uop::imul_fn`).
fn operands(fn_: &Value, a: &Value, b: &Value) -> (Value, Value) {
    let a_signed = &is(fn_, imul_fn::MULH) | &is(fn_, imul_fn::MULHSU);
    let b_signed = is(fn_, imul_fn::MULH);
    let ext = |x: &Value, signed: &Value| {
        signed
            .mux(&x.as_signed().sext(65).as_unsigned(), &x.zext(65))
            .as_signed()
    };
    (ext(a, &a_signed), ext(b, &b_signed))
}

/// The result of `fn_` from the 130-bit `product`; `word` gives the sign-extended low
/// word (vmulw).
fn select(fn_: &Value, word: &Value, product: &Value) -> Value {
    let low = product.slice(63, 0);
    let low = word.mux(&low.slice(31, 0).as_signed().sext(64).as_unsigned(), &low);
    is(fn_, imul_fn::MUL).mux(&low, &product.slice(127, 64))
}

/// `v` delayed by `n` registers named `<name>_<i>`, with reset `reset`.
fn delay(m: &mut ModuleBuilder, name: &str, v: &Value, n: u32, reset: fn() -> ResetValue) -> Value {
    (0..n).fold(v.clone(), |prev, i| {
        let r = m.reg(&format!("{name}_{i}"), v.width(), reset());
        m.connect(&r, &prev);
        r
    })
}

/// Ports: `xbar` (the selected bank's operands) in, `result` out `stages_imul` cycles later.
pub fn imul(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("IMul");
    let x = m.io("xbar", Dir::In, &xbar(p));
    let out = m.io("result", Dir::Out, &result(p));
    let bits = x.bits();
    let (fn_, word) = (bits.get("fn").value(), bits.get("word").value());
    let cfg = MulConfig {
        stages: p.stages_imul - 1,
    };
    let always = m.lit(1, 1);
    let products: Vec<Value> = (0..p.slices())
        .rev()
        .map(|s| {
            let (lo, hi) = (64 * s, 64 * s + 63);
            let (a, b) = operands(
                fn_,
                &bits.get("a").value().slice(hi, lo),
                &bits.get("b").value().slice(hi, lo),
            );
            multiply(&mut m, &a, &b, &cfg, &always)
        })
        .collect();
    // The function travels without reset (datapath: a result is used only under its
    // mask), the mask with its reset (it is the result's valid).
    let fn_late = delay(&mut m, "fn", fn_, cfg.stages, || ResetValue::None);
    let word_late = delay(&mut m, "word", word, cfg.stages, || ResetValue::None);
    let slices: Vec<Value> = products
        .iter()
        .map(|pr| select(&fn_late, &word_late, pr))
        .collect();
    let selected = hdl::cat(&slices.iter().collect::<Vec<_>>());
    let data = delay(&mut m, "result", &selected, 1, || ResetValue::None);
    // Only a valid crossbar operation of this unit writes: its mask is the bank's.
    let u = bits.get("unit").value();
    let mine = x.valid() & &u.eq(&u.konst(hdl::Bits::from_u64(unit::WIDTH, unit::IMUL)));
    let mask = (&mine.repeat(p.slices()) & &bits.get("mask").value().slice(p.slices() - 1, 0))
        .zext(out.get("mask").value().width());
    m.connect(out.get("data").value(), &data);
    let mask_late = delay(&mut m, "mask", &mask, p.stages_imul, || ResetValue::Int(0));
    m.connect(out.get("mask").value(), &mask_late);
    m.finish()
}
