//! The compute unit (seed 004 section 3.5, Table 1: "merged FP-ALU", every operation
//! pipelined): the integer operations of `CompOp` (the Rocket core's ALU,
//! `rocket/alu.rs`, at 32 bits; the multiplies on one 33 x 33 signed multiplier) and the
//! branch comparisons (`rocket::alu::branch_taken`), one entry a cycle, the result in
//! the unit's output queue the next cycle. Sums and the product are written as Verilog
//! `+`, `-` and `*` (`adder::Style::Inferred`), which synthesis maps to its own adder
//! and multiplier structures: the bit-level networks of `arith` cost the fabric's many
//! instances a simulation model of many times the size.
//!
//! The FP operations (variants 19 and up of `image::variant_of`) are not built yet (the
//! fabric's bench refuses kernels that use them).

use super::{Local, UnitIo, UnitOut};
use crate::arith::adder::Style;
use crate::rocket::alu::{alu, branch_taken};
use crate::rocket::decode::alu_fn;
use crate::vgiw::compiler::image::CLASS_BRANCH;
use crate::vgiw::fabric::token::{queue_module, Token, TokenQueue};
use hdl::{Bits, HdlErrors, ModuleBuilder, Value};

/// `CompOp` variants (`image::variant_of`).
const MV: u64 = 0;
const MUL: u64 = 11;
const MULH: u64 = 12;
const MULHSU: u64 = 13;
const MULHU: u64 = 14;

fn k(like: &Value, v: u64, w: u32) -> Value {
    like.konst(Bits::from_u64(w, v))
}

/// The integer result of variant `op` on `a` and `b`.
fn integer(op: &Value, a: &Value, b: &Value) -> Value {
    let is = |v| op.eq(&k(op, v, 8));
    // Variants 1-10 are the ALU's functions in order, Mv an addition of 0.
    let mv = is(MV);
    let fn_ = mv.mux(
        &k(op, alu_fn::ADD, alu_fn::WIDTH),
        &(op - &k(op, 1, 8)).trunc(alu_fn::WIDTH),
    );
    let b_alu = mv.mux(&k(b, 0, 32), b);
    let logic = alu(Style::Inferred, &fn_, a, &b_alu, &k(a, 0, 1));
    let signed_a = &is(MULH) | &is(MULHSU);
    let ext = |v: &Value, signed: &Value| {
        signed
            .mux(&v.as_signed().sext(33).as_unsigned(), &v.zext(33))
            .as_signed()
    };
    let product = ext(a, &signed_a).mul(&ext(b, &is(MULH)));
    let multiplies = &op.ge(&k(op, MUL, 8)) & &op.le(&k(op, MULHU, 8));
    let high = &multiplies & &!&is(MUL);
    let product = high.mux(&product.slice(63, 32), &product.slice(31, 0));
    multiplies.mux(&product.as_unsigned(), &logic)
}

pub fn compute(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let q = TokenQueue::new(m, "out", &queue_module(io.l, 2)?, io.l);
    let (f, cfg) = (io.fire, io.cfg);
    let (a, b) = (&f.operands[0], &f.operands[1]);
    // Cond's order (Eq, Ne, Lt, Ge, Ltu, Geu) is funct3's less the gap at 2 and 3.
    let v = &cfg.variant;
    let funct3 = v.ge(&k(v, 2, 8)).mux(&(v + &k(v, 2, 8)), v).trunc(3);
    let taken = branch_taken(Style::Inferred, &funct3, a, b).zext(32);
    let value = cfg.is(CLASS_BRANCH).mux(&taken, &integer(v, a, b));
    q.push(
        m,
        &Token {
            valid: f.valid.clone(),
            vc: f.vc.clone(),
            tid: f.tid.clone(),
            value,
        },
    );
    let can_fire = q.ready.clone();
    Ok(UnitOut {
        locals: vec![Local::new(0, q)],
        can_fire,
    })
}
