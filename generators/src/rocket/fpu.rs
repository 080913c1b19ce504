//! `RocketFpu`: the F extension's execution unit (single precision) beside the core's
//! execute stage, built from the floating-point library (`crate::fpu`): the fused
//! multiply-add pipeline (`fma_stages`; fmadd, fmsub, fnmsub, fnmadd, fadd, fsub, fmul),
//! the iterative divider and square root (`fpu::divsqrt`, one bit a cycle), the
//! conversions between single and 32-bit integers (`fpu::convert`, one register) and the
//! compare/sign-injection unit (`fpu::compare`, combinational; fmv.x.w and fmv.w.x are
//! its sign injection of an operand with itself).
//!
//! The scheme is Rocket's FPU (`rocket-chip` `FPU.scala`: its units beside EX/MEM, the
//! integer pipeline interlocking on their results) made blocking, as the core's MulDiv
//! is: one operation at a time, the execute stage waiting for its result, which is
//! registered here (`resp`) and bypassed from MEM on, like a multiply's. So results
//! return in order and need no scoreboard or second write port; the price is that FP
//! operations do not overlap each other or younger instructions.
//!
//! Ports: `req` (decoupled: `unit`, `op`, `rm`, `in1`..`in3`), `resp` (decoupled:
//! `data`, `flags` in fflags order NV DZ OF UF NX), `kill` (drops the operation in flight,
//! as the MulDiv's `kill`: accepted in an earlier cycle, its result is discarded).

use crate::fpu::compare::{self, CompareParams};
use crate::fpu::convert::{self, ConvertParams};
use crate::fpu::{divsqrt, fma, SINGLE};
use hdl::helpers::priority_mux;
use hdl::{cat, mux, Bits, Dir, Field, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// The `unit` field.
pub mod unit {
    pub const FMA: u64 = 0;
    pub const DIVSQRT: u64 = 1;
    pub const CONVERT: u64 = 2;
    pub const COMPARE: u64 = 3;
    pub const BITS: u32 = 2;
}

/// The compare unit's `op` for fmv.x.w and fmv.w.x: sign injection of `in1` with itself.
pub const MOVE: u64 = 0xf;

/// Width of the `op` field (the conversion unit's, the widest).
pub const OP_BITS: u32 = convert::OP_BITS;

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// The request: unit, its operation, the resolved rounding mode and three operands.
pub fn request() -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("unit", unit::BITS),
        uint("op", OP_BITS),
        uint("rm", 3),
        uint("in1", 32),
        uint("in2", 32),
        uint("in3", 32),
    ]))
}

/// The response: the result (a single, or an x register's value) and its flags.
pub fn response() -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("data", 32), uint("flags", 5)]))
}

fn k(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// The `unit` and `op` of an FPU instruction, from its classes (decode's `fp_decode`):
/// the fused forms (variant in opcode bits 3:2) and fadd/fsub/fmul (funct5 bits 1:0);
/// fdiv and fsqrt; the conversions (fcvt.s.w[u] at funct5 bit 1, the integer type in
/// rs2); sign injection, min/max, the compares and fclass by funct3; otherwise a move.
pub fn decode_op(
    insn: &Value,
    (fused, add_sub_mul): (&Value, &Value),
    (div, sqrt): (&Value, &Value),
    conversion: &Value,
    (sgnj, minmax, cmp, class): (&Value, &Value, &Value, &Value),
) -> (Value, Value) {
    let f3 = insn.slice(14, 12).zext(OP_BITS);
    let op = |v: u64| k(insn, v, OP_BITS);
    let unit = priority_mux(
        &[
            (fused | add_sub_mul, k(insn, unit::FMA, unit::BITS)),
            (div | sqrt, k(insn, unit::DIVSQRT, unit::BITS)),
            (conversion.clone(), k(insn, unit::CONVERT, unit::BITS)),
        ],
        &k(insn, unit::COMPARE, unit::BITS),
    );
    let kind = mux(
        &insn.bit(28),
        &k(insn, convert::kind::I2F, 2),
        &k(insn, convert::kind::F2I, 2),
    );
    let fpu_op = priority_mux(
        &[
            (fused.clone(), insn.slice(3, 2).zext(OP_BITS)),
            (
                add_sub_mul.clone(),
                cat(&[&k(insn, 1, 1), &insn.slice(28, 27)]).zext(OP_BITS),
            ),
            (div.clone(), op(divsqrt::OP_DIV)),
            (sqrt.clone(), op(divsqrt::OP_SQRT)),
            (
                conversion.clone(),
                cat(&[&kind, &insn.slice(21, 20), &k(insn, 0, 4)]),
            ),
            (sgnj.clone(), &op(compare::op::SGNJ) + &f3),
            (minmax.clone(), &op(compare::op::MIN) + &f3),
            (cmp.clone(), &op(compare::op::LE) - &f3),
            (class.clone(), op(compare::op::CLASS)),
        ],
        &op(MOVE),
    );
    (unit, fpu_op)
}

/// One library unit's outputs.
struct Out {
    valid: Value,
    result: Value,
    flags: Value,
}

/// The module `RocketFpu` with a fused multiply-add of `fma_stages` stages.
pub fn fpu(fma_stages: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RocketFpu");
    let req = m.io("req", Dir::In, &request());
    let resp = m.io("resp", Dir::Out, &response());
    let kill = m.input("kill", 1);
    let busy = m.reg("busy", 1, false);
    let killed = m.reg("killed", 1, false);
    let done = m.reg("done", 1, false);
    let data = m.reg("data", 32, 0u64);
    let flags = m.reg("flags", 5, 0u64);
    let ready = &!&busy & &!&done;
    m.connect(req.ready(), &ready);
    let fire = req.valid() & &ready;
    let outs = units(&mut m, fma_stages, &req, &fire)?;
    let valid = outs[1..]
        .iter()
        .fold(outs[0].valid.clone(), |a, o| &a | &o.valid);
    let pick = |f: fn(&Out) -> &Value| {
        let cases: Vec<(Value, Value)> = outs[1..]
            .iter()
            .map(|o| (o.valid.clone(), f(o).clone()))
            .collect();
        priority_mux(&cases, f(&outs[0]))
    };
    let (result, result_flags) = (pick(|o| &o.result), pick(|o| &o.flags));
    // One operation in flight: its result is held until taken, or dropped if killed.
    m.when(&fire, |m| {
        m.connect(&busy, &k(&busy, 1, 1));
        m.connect(&killed, &k(&killed, 0, 1));
    });
    m.when(&(&kill & &busy), |m| m.connect(&killed, &k(&killed, 1, 1)));
    m.when(&resp.fire(), |m| m.connect(&done, &k(&done, 0, 1)));
    m.when(&valid, |m| {
        m.connect(&busy, &k(&busy, 0, 1));
        m.connect(&killed, &k(&killed, 0, 1));
        m.when(&!&(&killed | &kill), |m| {
            m.connect(&done, &k(&done, 1, 1));
            m.connect(&data, &result);
            m.connect(&flags, &result_flags);
        });
    });
    m.when(&kill, |m| m.connect(&done, &k(&done, 0, 1)));
    m.connect(resp.valid(), &done);
    m.connect(resp.bits().get("data").value(), &data);
    m.connect(resp.bits().get("flags").value(), &flags);
    m.finish()
}

/// A unit's instance, its `unit` code and its inputs besides `in_valid` and `rm`.
type UnitInputs<'a> = (&'a hdl::Inst, u64, Vec<(&'static str, Value)>);

/// The four library units, each started by `fire` with its `unit`; their outputs.
fn units(
    m: &mut ModuleBuilder,
    fma_stages: u32,
    req: &hdl::Bundle,
    fire: &Value,
) -> Result<Vec<Out>, HdlErrors> {
    let bits = req.bits();
    let field = |name: &str| bits.get(name).value().clone();
    let (sel, op, rm) = (field("unit"), field("op"), field("rm"));
    let (in1, in2, in3) = (field("in1"), field("in2"), field("in3"));
    let start = |u: u64| fire & &sel.eq(&k(&sel, u, unit::BITS));
    let one = k(&sel, 1, 1);
    let fma_i = m.instance("fma", &fma::fma(SINGLE, fma_stages)?);
    let ds_i = m.instance("divsqrt", &divsqrt::divsqrt(SINGLE, 1)?);
    let cv_params = ConvertParams {
        formats: "s".into(),
        stages: 1,
    };
    let cv_i = m.instance("convert", &convert::convert(&cv_params)?);
    let cmp_params = CompareParams {
        format: "binary32".into(),
        stages: 0,
    };
    let cmp_i = m.instance("compare", &compare::compare(&cmp_params)?);
    let moving = op.eq(&k(&op, MOVE, OP_BITS));
    let cmp_op = mux(
        &moving,
        &k(&op, compare::op::SGNJ, compare::OP_BITS),
        &op.slice(compare::OP_BITS - 1, 0),
    );
    let inputs: [UnitInputs; 4] = [
        (
            &fma_i,
            unit::FMA,
            vec![
                ("op", op.slice(2, 0)),
                ("a", in1.clone()),
                ("b", in2.clone()),
                ("c", in3),
            ],
        ),
        (
            &ds_i,
            unit::DIVSQRT,
            vec![
                ("op", op.slice(0, 0)),
                ("a", in1.clone()),
                ("b", in2.clone()),
                ("out_ready", one),
            ],
        ),
        (
            &cv_i,
            unit::CONVERT,
            vec![("op", op.clone()), ("a", in1.zext(64))],
        ),
        (
            &cmp_i,
            unit::COMPARE,
            vec![
                ("op", cmp_op),
                ("a", in1.clone()),
                ("b", mux(&moving, &in1, &in2)),
            ],
        ),
    ];
    let mut outs = Vec::new();
    for (inst, u, ports) in inputs {
        m.connect(&inst.port("in_valid"), &start(u));
        m.connect(&inst.port("rm"), &rm);
        for (name, v) in ports {
            m.connect(&inst.port(name), &v);
        }
        outs.push(Out {
            valid: inst.port("out_valid"),
            result: inst.port("result").slice(31, 0),
            flags: inst.port("flags"),
        });
    }
    Ok(outs)
}
