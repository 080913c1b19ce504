//! The integer multiplier on the operand crossbar (VIMU, in VFU0): one bank entry (S
//! 64-bit elements) per cycle, the result `stages` cycles later. The product is formed
//! from the crossbar's operands and delayed through the stages, leaving the retiming of
//! the multiplier into them to synthesis (as the Rocket multiplier does).

use super::uop::{imul_fn, result, unit, xbar};
use crate::hwacha::params::HwachaParams;
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// One 64 x 64 multiply of `fn_` (`uop::imul_fn`); `word` gives the sign-extended low
/// word (vmulw).
fn multiply(fn_: &Value, word: &Value, a: &Value, b: &Value) -> Value {
    let is = |v: u64| fn_.eq(&fn_.konst(Bits::from_u64(fn_.width(), v)));
    let a_signed = &is(imul_fn::MULH) | &is(imul_fn::MULHSU);
    let b_signed = is(imul_fn::MULH);
    let ext = |x: &Value, signed: &Value| {
        signed
            .mux(&x.as_signed().sext(65).as_unsigned(), &x.zext(65))
            .as_signed()
    };
    let product = ext(a, &a_signed).mul(&ext(b, &b_signed)).as_unsigned();
    let low = product.slice(63, 0);
    let low = word.mux(&low.slice(31, 0).as_signed().sext(64).as_unsigned(), &low);
    is(imul_fn::MUL).mux(&low, &product.slice(127, 64))
}

/// Ports: `xbar` (the selected bank's operands) in, `result` out `stages_imul` cycles later.
pub fn imul(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("IMul");
    let x = m.io("xbar", Dir::In, &xbar(p));
    let out = m.io("result", Dir::Out, &result(p));
    let bits = x.bits();
    let (fn_, word) = (bits.get("fn").value(), bits.get("word").value());
    let slices: Vec<Value> = (0..p.slices())
        .rev()
        .map(|s| {
            let (lo, hi) = (64 * s, 64 * s + 63);
            multiply(
                fn_,
                word,
                &bits.get("a").value().slice(hi, lo),
                &bits.get("b").value().slice(hi, lo),
            )
        })
        .collect();
    let data = hdl::cat(&slices.iter().collect::<Vec<_>>());
    // Only a valid crossbar operation of this unit writes: its mask is the bank's.
    let u = bits.get("unit").value();
    let mine = x.valid() & &u.eq(&u.konst(hdl::Bits::from_u64(unit::WIDTH, unit::IMUL)));
    let mask = &mine.repeat(p.slices()) & bits.get("mask").value();
    let mut stage = (data, mask);
    for i in 0..p.stages_imul {
        let d = m.reg(&format!("data_{i}"), p.bank_width, 0u64);
        let k = m.reg(&format!("mask_{i}"), p.slices(), 0u64);
        m.connect(&d, &stage.0);
        m.connect(&k, &stage.1);
        stage = (d, k);
    }
    m.connect(out.get("data").value(), &stage.0);
    m.connect(out.get("mask").value(), &stage.1);
    m.finish()
}
