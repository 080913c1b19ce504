//! `MulDiv`: the RV64M unit. Multiplication is iterative (`mul_bits_per_cycle` bits of
//! the multiplier per cycle) or pipelined (`mul_stages` register stages behind a
//! combinational multiplier, one operation accepted per cycle); division is restoring,
//! `div_bits_per_cycle` quotient bits per cycle. Both work on magnitudes and fix the
//! sign at the end; the *W forms work on sign- or zero-extended low words, whose 64-bit
//! results truncate to the 32-bit ones the spec defines (including overflow).
//!
//! Ports: `req` (In, decoupled), `resp` (Out, decoupled, held until taken), `kill` (In:
//! abandons the operation in flight or waiting in `resp`).

use super::bus::{muldiv_request, muldiv_response};
use super::params::{MulDivParams, MulKind};
use hdl::{cat, mux, Bits, Dir, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The operation of an M instruction, from its funct3.
struct Op {
    is_div: Value,
    /// mulh, mulhsu, mulhu (high half) or rem, remu (remainder).
    high_or_rem: Value,
    a_signed: Value,
    b_signed: Value,
}

fn op_of(funct3: &Value) -> Op {
    let f = |v: u64| funct3.eq(&funct3.konst(Bits::from_u64(3, v)));
    Op {
        is_div: funct3.bit(2),
        high_or_rem: (&f(1) | &f(2)) | (&f(3) | &f(6)) | f(7),
        // mul (0) is sign-agnostic in its low half; mulh (1), mulhsu (2), div (4), rem (6).
        a_signed: (&f(1) | &f(2)) | (&f(4) | &f(6)),
        b_signed: (&f(1) | &f(4)) | f(6),
    }
}

/// Operand `v` (64 bits) as the *W forms see it: the low word, sign- or zero-extended.
fn word_operand(v: &Value, word: &Value, signed: &Value) -> Value {
    let low = v.slice(31, 0);
    let ext = mux(
        signed,
        &low.as_signed().sext(64).as_unsigned(),
        &low.zext(64),
    );
    mux(word, &ext, v)
}

/// `|v|` of a 64-bit value when `signed` and negative, else `v`.
fn magnitude(v: &Value, signed: &Value) -> Value {
    mux(&(signed & &v.msb()), &v.neg(), v)
}

pub fn muldiv(p: &MulDivParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("MulDiv");
    let req = m.io("req", Dir::In, &muldiv_request());
    let resp = m.io("resp", Dir::Out, &muldiv_response());
    let kill = m.input("kill", 1);
    let bits = req.bits();
    let (funct3, word) = (bits.get("funct3").value(), bits.get("word").value());
    let op = op_of(funct3);
    let a = word_operand(bits.get("in1").value(), word, &op.a_signed);
    let b = word_operand(bits.get("in2").value(), word, &op.b_signed);
    let (a_mag, b_mag) = (magnitude(&a, &op.a_signed), magnitude(&b, &op.b_signed));

    // Per-operation state, captured when the request fires.
    let busy = m.reg("busy", 1, false);
    let done = m.reg("done", 1, false);
    let is_div = m.reg("is_div", 1, false);
    let high_or_rem = m.reg("high_or_rem", 1, false);
    let is_word = m.reg("is_word", 1, false);
    let negate = m.reg("negate", 1, false);
    let div_by_zero = m.reg("div_by_zero", 1, false);
    let dividend = m.reg("dividend", 64, 0u64);
    let result = m.reg("result", 64, 0u64);
    // Multiplication: 128-bit accumulator and shifted multiplicand; division: remainder
    // in `acc[64:0]`, quotient shifted in from the bottom of `shifter`.
    let acc = m.reg("acc", 129, 0u64);
    let mcand = m.reg("mcand", 128, 0u64);
    let shifter = m.reg("shifter", 64, 0u64);
    let divisor = m.reg("divisor", 64, 0u64);
    let count = m.reg("count", 7, 0u64);

    let idle = &!&busy & &!&done;
    let fire = req.valid() & &idle;
    m.connect(req.ready(), &idle);
    m.connect(resp.valid(), &done);
    m.connect(resp.bits().get("data").value(), &result);

    // Sign of the final result: products and quotients by the operand signs, remainders
    // by the dividend's.
    let a_neg = &op.a_signed & &a.msb();
    let b_neg = &op.b_signed & &b.msb();
    let b_zero = b.eq(&b.konst(Bits::zero(64)));
    let quotient_or_product = !&(&op.is_div & &op.high_or_rem);
    let neg_now = mux(&quotient_or_product, &(&a_neg ^ &b_neg), &a_neg);

    let finish = |m: &mut ModuleBuilder, value: &Value| {
        let fixed = mux(
            &is_word,
            &value.slice(31, 0).as_signed().sext(64).as_unsigned(),
            value,
        );
        m.connect(&result, &fixed);
        m.connect(&busy, &busy.konst(Bits::zero(1)));
        m.connect(&done, &done.konst(Bits::from_u64(1, 1)));
    };

    // Multiplier.
    let product = m.wire("product", 128);
    let product_done = m.wire("product_done", 1);
    match p.mul {
        MulKind::Iterative => {
            let k = p.mul_bits_per_cycle;
            let step = mcand.mul(&shifter.slice(k - 1, 0).zext(128)).slice(127, 0);
            let sum = (&acc.slice(127, 0) + &step).zext(129);
            let last = count.eq(&count.konst(Bits::from_u64(7, (64 / k - 1) as u64)));
            m.connect(&product, &sum.slice(127, 0));
            m.connect(&product_done, &last);
            m.when(&(&busy & &!&is_div), |m| {
                m.connect(&acc, &sum);
                m.connect(&mcand, &mcand.shl(k).slice(127, 0));
                m.connect(&shifter, &shifter.shr(k));
                m.connect(&count, &(&count + &count.konst(Bits::from_u64(7, 1))));
            });
        }
        MulKind::Pipelined => {
            let full = a_mag.mul(&b_mag);
            let mut stage = full;
            for i in 0..p.mul_stages {
                let r = m.reg(&format!("mul_stage{i}"), 128, 0u64);
                m.connect(&r, &stage);
                stage = r;
            }
            let last = count.eq(&count.konst(Bits::from_u64(7, p.mul_stages as u64 - 1)));
            m.connect(&product, &stage);
            m.connect(&product_done, &last);
            m.when(&(&busy & &!&is_div), |m| {
                m.connect(&count, &(&count + &count.konst(Bits::from_u64(7, 1))));
            });
        }
    }
    let signed_product = mux(&negate, &product.neg(), &product);
    let mul_result = mux(
        &high_or_rem,
        &signed_product.slice(127, 64),
        &signed_product.slice(63, 0),
    );
    m.when(&(&(&busy & &!&is_div) & &product_done), |m| {
        finish(m, &mul_result)
    });

    // Divider: `div_bits_per_cycle` restoring steps per cycle.
    let k = p.div_bits_per_cycle;
    let mut rem = acc.slice(64, 0);
    let mut quo = shifter.clone();
    for _ in 0..k {
        let shifted = cat(&[&rem.slice(63, 0), &quo.msb()]);
        let diff = shifted.subc(&divisor.zext(65));
        let fits = !&diff.msb();
        rem = mux(&fits, &diff.slice(64, 0), &shifted);
        quo = cat(&[&quo.slice(62, 0), &fits]);
    }
    let div_last = count.eq(&count.konst(Bits::from_u64(7, (64 / k - 1) as u64)));
    let q = mux(&negate, &quo.neg(), &quo);
    let r = mux(&negate, &rem.slice(63, 0).neg(), &rem.slice(63, 0));
    let ones = q.konst(Bits::from_u64(64, u64::MAX));
    let quotient = mux(&div_by_zero, &ones, &q);
    let remainder = mux(&div_by_zero, &dividend, &r);
    m.when(&(&busy & &is_div), |m| {
        m.connect(&acc, &rem.zext(129));
        m.connect(&shifter, &quo);
        m.connect(&count, &(&count + &count.konst(Bits::from_u64(7, 1))));
        m.when(&div_last, |m| {
            finish(m, &mux(&high_or_rem, &remainder, &quotient));
        });
    });

    m.when(&fire, |m| {
        m.connect(&busy, &busy.konst(Bits::from_u64(1, 1)));
        m.connect(&is_div, &op.is_div);
        m.connect(&high_or_rem, &op.high_or_rem);
        m.connect(&is_word, word);
        m.connect(&negate, &neg_now);
        m.connect(&div_by_zero, &(&op.is_div & &b_zero));
        m.connect(&dividend, &a);
        m.connect(&count, &count.konst(Bits::zero(7)));
        m.connect(&acc, &acc.konst(Bits::zero(129)));
        m.connect(&mcand, &a_mag.zext(128));
        m.connect(&shifter, &mux(&op.is_div, &a_mag, &b_mag));
        m.connect(&divisor, &b_mag);
    });
    m.when(&resp.fire(), |m| {
        m.connect(&done, &done.konst(Bits::zero(1)))
    });
    m.when(&kill, |m| {
        m.connect(&busy, &busy.konst(Bits::zero(1)));
        m.connect(&done, &done.konst(Bits::zero(1)));
    });
    m.finish()
}
