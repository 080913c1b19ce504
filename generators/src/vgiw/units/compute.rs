//! The compute unit (seed 004 section 3.5, Table 1: "merged FP-ALU", every operation
//! pipelined): the integer operations of `CompOp` (the Rocket core's ALU,
//! `rocket/alu.rs`, at 32 bits; the multiplies on one 33 x 33 signed multiplier), the
//! branch comparisons (`rocket::alu::branch_taken`) and the single-precision operations
//! but divide and square root (the FG-SIMT lane's pipelined FP unit, `fgsimt::lane::sfpu`,
//! built from the FP library: fused multiply-adds, conversions, compares, sign
//! injections, fclass). One entry a cycle; every result leaves the same `latency`
//! cycles after its entry fired (the integer results delayed to the FP unit's), into
//! an output queue of `latency + 2` tokens that the unit never overfills: it fires
//! while the tokens queued and in flight number fewer.
//!
//! Integer sums and the product are Verilog `+`, `-` and `*` (`adder::Style::Inferred`),
//! which synthesis maps to its own structures: the bit-level networks of `arith` made
//! the simulation model of the fabric's many instances several times larger.

use super::{Local, UnitIo, UnitOut};
use crate::arith::adder::Style;
use crate::fgsimt::lane::sfpu::{latency as fpu_latency, sfpu};
use crate::fpu::compare::op as cmp;
use crate::fpu::convert::{encode, fmt_code, int, kind};
use crate::fpu::fma::op as fma;
use crate::rocket::alu::{alu, branch_taken};
use crate::rocket::decode::alu_fn;
use crate::rocket::fpu::{unit, OP_BITS};
use crate::vgiw::compiler::image::CLASS_BRANCH;
use crate::vgiw::fabric::token::{queue_module, Token, TokenQueue};
use crate::vgiw::k;
use hdl::helpers::{popcount, priority_mux};
use hdl::{cat, HdlErrors, ModuleBuilder, ResetValue, Value};

/// `CompOp` variants (`image::variant_of`).
const MV: u64 = 0;
const MUL: u64 = 11;
const MULH: u64 = 12;
const MULHSU: u64 = 13;
const MULHU: u64 = 14;
/// The first FP variant.
pub const FP: u64 = 19;

/// The FP unit's `unit` and `op` of each FP variant the compute unit runs.
fn fp_ops() -> Vec<(u64, u64, u64)> {
    let c = |v, op| (v, unit::COMPARE, op);
    let f = |v, op| (v, unit::FMA, op);
    let cv = |v, op| (v, unit::CONVERT, op);
    let (s, w, wu) = (fmt_code::S, int::W, int::WU);
    vec![
        c(19, cmp::MIN),
        c(20, cmp::MAX),
        c(21, cmp::SGNJ),
        c(22, cmp::SGNJN),
        c(23, cmp::SGNJX),
        c(24, cmp::EQ),
        c(25, cmp::LT),
        c(26, cmp::LE),
        c(27, cmp::CLASS),
        f(28, fma::ADD),
        f(29, fma::SUB),
        f(30, fma::MUL),
        f(33, fma::FMADD),
        f(34, fma::FMSUB),
        f(35, fma::FNMSUB),
        f(36, fma::FNMADD),
        cv(37, encode(kind::F2I, s, s, w)),
        cv(38, encode(kind::F2I, s, s, wu)),
        cv(39, encode(kind::I2F, s, s, w)),
        cv(40, encode(kind::I2F, s, s, wu)),
    ]
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
        let s = v.as_signed().sext(33).as_unsigned();
        signed.mux(&s, &v.zext(33)).as_signed()
    };
    let product = ext(a, &signed_a).mul(&ext(b, &is(MULH)));
    let multiplies = &op.ge(&k(op, MUL, 8)) & &op.le(&k(op, MULHU, 8));
    let high = &multiplies & &!&is(MUL);
    let product = high.mux(&product.slice(63, 32), &product.slice(31, 0));
    multiplies.mux(&product.as_unsigned(), &logic)
}

/// `v` through `n` registers named `<name><i>` (reset when `reset`).
fn delay(m: &mut ModuleBuilder, name: &str, v: &Value, n: u32, reset: bool) -> Vec<Value> {
    let mut stages = Vec::new();
    let mut prev = v.clone();
    for i in 0..n {
        let init = if reset {
            ResetValue::Int(0)
        } else {
            ResetValue::None
        };
        let r = m.reg(&format!("{name}{i}"), prev.width(), init);
        m.connect(&r, &prev);
        stages.push(r.clone());
        prev = r;
    }
    stages
}

pub fn compute(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let (f, cfg) = (io.fire, io.cfg);
    let (a, b, c) = (&f.operands[0], &f.operands[1], &f.operands[2]);
    let latency = fpu_latency(io.p.fma_stages);
    let depth = latency + 2;
    let q = TokenQueue::new(m, "out", &queue_module(io.l, depth)?, io.l);
    // Cond's order (Eq, Ne, Lt, Ge, Ltu, Geu) is funct3's less the gap at 2 and 3.
    let v = &cfg.variant;
    let funct3 = v.ge(&k(v, 2, 8)).mux(&(v + &k(v, 2, 8)), v).trunc(3);
    let taken = branch_taken(Style::Inferred, &funct3, a, b).zext(32);
    let int_value = cfg.is(CLASS_BRANCH).mux(&taken, &integer(v, a, b));
    let fp = &v.ge(&k(v, FP, 8)) & &!&cfg.is(CLASS_BRANCH);
    let table = fp_ops();
    let pick = |field: fn(&(u64, u64, u64)) -> u64, w: u32| {
        let cases: Vec<(Value, Value)> = (table.iter())
            .map(|e| (v.eq(&k(v, e.0, 8)), k(v, field(e), w)))
            .collect();
        priority_mux(&cases, &k(v, 0, w))
    };
    let fpu = m.instance("fpu", &sfpu(io.p.fma_stages)?);
    for (port, value) in [
        ("in_valid", &f.valid & &fp),
        ("in_unit", pick(|e| e.1, unit::BITS)),
        ("in_op", pick(|e| e.2, OP_BITS)),
        ("in_rm", cfg.rm.clone()),
        ("in_a", a.clone()),
        ("in_b", b.clone()),
        ("in_c", c.clone()),
    ] {
        m.connect(&fpu.port(port), &value);
    }
    let valid = delay(m, "valid", &f.valid, latency, true);
    let meta = cat(&[&fp, &f.vc, &f.tid, &int_value]);
    let late = delay(m, "meta", &meta, latency, false)
        .pop()
        .expect("latency > 0");
    let token = Token::unpack(
        valid.last().expect("latency > 0"),
        &late.trunc(late.width() - 1),
        io.l,
    );
    let value = late.msb().mux(&fpu.port("out_data"), &token.value);
    q.push(m, &Token { value, ..token });
    let inflight = popcount(&cat(&valid.iter().collect::<Vec<_>>()));
    let w = inflight.width().max(q.count().width()) + 1;
    let used = &inflight.zext(w) + &q.count().zext(w);
    let can_fire = used.lt(&k(&used, depth as u64, w));
    Ok(UnitOut {
        locals: vec![Local::new(0, q)],
        can_fire,
    })
}
