//! A lane's pipelined single-precision FP unit, part of SAU0 (seed 000, section 1.5 and
//! Figure 3: the SAUs execute "single-precision floating-point" operations; the paper's
//! engine pipelines them; docs/fgsimt-engine.md, "SIU": FP add/mul/fma/convert/compare
//! in SAU0, div/sqrt iterative in SAU1).
//!
//! Built from the FP library as the CP's FPU is (`rocket/fpu.rs`, whose `unit`/`op`
//! encoding and decoder it shares): the fused multiply-add pipeline (`fma_stages`;
//! fmadd/fmsub/fnmsub/fnmadd, fadd/fsub/fmul), the conversions between single and 32-bit
//! integers (one register) and the compare/sign-injection unit (min/max, compares,
//! fclass, fsgnj*, and the moves fmv.x.w / fmv.w.x as a sign injection of an operand
//! with itself; one register). Unlike the CP's FPU it is fully pipelined: one operation
//! (a thread slot of a warp instruction) enters a cycle and every operation leaves
//! exactly [`latency`] cycles later, the shorter units' results delayed to match, so the
//! SIU's scoreboard can count on a fixed latency. Exception flags are not kept: kernels
//! cannot read `fflags` (README, "SPMD kernels").
//!
//! Ports: `in_valid`, `in_unit` (`rocket::fpu::unit`, not DIVSQRT), `in_op`, `in_rm` (the
//! resolved rounding mode, 0-4), `in_a`, `in_b`, `in_c`; `out_valid`, `out_data` (a
//! single, or an x register's value).

use crate::fpu::compare::{self, CompareParams};
use crate::fpu::convert::{self, ConvertParams};
use crate::fpu::{fma, SINGLE};
use crate::rocket::fpu::{unit, MOVE, OP_BITS};
use hdl::helpers::priority_mux;
use hdl::{mux, Bits, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

fn k(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

fn convert_params() -> ConvertParams {
    ConvertParams {
        formats: "s".into(),
        stages: 1,
    }
}

fn compare_params() -> CompareParams {
    CompareParams {
        format: "binary32".into(),
        stages: 1,
    }
}

/// Cycles from an operation's entry to its result.
pub fn latency(fma_stages: u32) -> u32 {
    fma::latency(fma_stages)
        .max(convert::latency(&convert_params()))
        .max(compare::latency(&compare_params()))
}

/// `v` delayed by `cycles` registers named `<name><i>` (reset to 0 when `reset`).
fn delay(m: &mut ModuleBuilder, name: &str, v: &Value, cycles: u32, reset: bool) -> Value {
    (0..cycles).fold(v.clone(), |prev, i| {
        let r = if reset {
            m.reg(&format!("{name}{i}"), prev.width(), 0u64)
        } else {
            m.reg(&format!("{name}{i}"), prev.width(), hdl::ResetValue::None)
        };
        m.connect(&r, &prev);
        r
    })
}

/// The module `LaneFpu` with a fused multiply-add of `fma_stages` stages.
pub fn sfpu(fma_stages: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("LaneFpu{fma_stages}"));
    let in_valid = m.input("in_valid", 1);
    let sel = m.input("in_unit", unit::BITS);
    let op = m.input("in_op", OP_BITS);
    let rm = m.input("in_rm", 3);
    let a = m.input("in_a", 32);
    let b = m.input("in_b", 32);
    let c = m.input("in_c", 32);
    let start = |u: u64| &in_valid & &sel.eq(&k(&sel, u, unit::BITS));
    let moving = op.eq(&k(&op, MOVE, OP_BITS));
    let cmp_op = mux(
        &moving,
        &k(&op, compare::op::SGNJ, compare::OP_BITS),
        &op.slice(compare::OP_BITS - 1, 0),
    );
    let fma_i = m.instance("fma", &fma::fma(SINGLE, fma_stages)?);
    let cv_i = m.instance("convert", &convert::convert(&convert_params())?);
    let cmp_i = m.instance("compare", &compare::compare(&compare_params())?);
    let units = [
        (
            &fma_i,
            unit::FMA,
            fma::latency(fma_stages),
            vec![
                ("op", op.slice(2, 0)),
                ("a", a.clone()),
                ("b", b.clone()),
                ("c", c),
            ],
        ),
        (
            &cv_i,
            unit::CONVERT,
            convert::latency(&convert_params()),
            vec![("op", op.clone()), ("a", a.zext(64))],
        ),
        (
            &cmp_i,
            unit::COMPARE,
            compare::latency(&compare_params()),
            vec![
                ("op", cmp_op),
                ("a", a.clone()),
                ("b", mux(&moving, &a, &b)),
            ],
        ),
    ];
    let total = latency(fma_stages);
    let mut outs: Vec<(Value, Value)> = Vec::new();
    for (inst, u, lat, ports) in units {
        m.connect(&inst.port("in_valid"), &start(u));
        m.connect(&inst.port("rm"), &rm);
        for (name, v) in ports {
            m.connect(&inst.port(name), &v);
        }
        let name = format!("u{u}_");
        let extra = total - lat;
        let valid = delay(
            &mut m,
            &format!("{name}valid"),
            &inst.port("out_valid"),
            extra,
            true,
        );
        let result = inst.port("result").slice(31, 0);
        let data = delay(&mut m, &format!("{name}data"), &result, extra, false);
        outs.push((valid, data));
    }
    let valid = outs
        .iter()
        .skip(1)
        .fold(outs[0].0.clone(), |acc, o| &acc | &o.0);
    let data = priority_mux(&outs[1..], &outs[0].1);
    let ov = m.output("out_valid", 1);
    m.connect(&ov, &valid);
    let od = m.output("out_data", 32);
    m.connect(&od, &data);
    m.finish()
}
