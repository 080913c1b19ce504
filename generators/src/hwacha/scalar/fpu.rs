//! The scalar unit's floating point on shared registers (thesis section 8.7, Table 8.7's
//! HwachaLocalScalarFPU: the unit's own FPU, as the control processor has none): one
//! element's worth of the lanes' crossbar units (`lane::fma`, `lane::fconv`,
//! `lane::fcmp`, built one 64-bit slice wide) and of VFU2's FP dividers (`fpu::divsqrt`
//! per format), one operation at a time. The unit takes a
//! decoded FP instruction whose registers are all shared (`vdecode`'s `scalar_fp`) with
//! its operands' values, and answers with the destination's value on `resp`, which the
//! unit merges into the scalar unit's `vresp` when no reduction answers that cycle.

use crate::hwacha::lane::fcmp::fcmp_unit;
use crate::hwacha::lane::fconv::fconv_unit;
use crate::hwacha::lane::fma::fma_unit;
use crate::hwacha::lane::uop::{unit, vinsn};
use crate::hwacha::lane::vfu2::{fp_dividers, FpDivRequest};
use crate::hwacha::params::HwachaParams;
use hdl::{Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape};
use std::rc::Rc;

/// Ports: `op` (decoupled decoded instruction, `uop::vinsn`), `resp` (decoupled:
/// destination shared register and value), `fflags` (the exception flags of the
/// operation finishing this cycle) and `busy` (an operation in flight).
pub fn scalar_fpu(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaScalarFpu");
    let op = m.io("op", Dir::In, &Shape::decoupled(vinsn()));
    let resp_shape = Shape::bundle(vec![
        Shape::field("rd", Shape::UInt(6)),
        Shape::field("data", Shape::UInt(64)),
    ]);
    let resp = m.io("resp", Dir::Out, &Shape::decoupled(resp_shape));
    let fflags = m.output("fflags", 5);
    let busy_out = m.output("busy", 1);
    // One element at a time: no packed lanes (mixed precision's are the lanes').
    let one_slice = HwachaParams {
        bank_width: 64,
        mixed_precision: false,
        ..p.clone()
    };
    let units = [
        (
            unit::FMA,
            m.instance("fma", &fma_unit(&one_slice)?),
            vec!["d", "s", "h"],
        ),
        (
            unit::FCONV,
            m.instance("fconv", &fconv_unit(&one_slice)?),
            vec!["result"],
        ),
        (
            unit::FCMP,
            m.instance("fcmp", &fcmp_unit(&one_slice)?),
            vec!["result"],
        ),
    ];
    let busy = m.reg("busy", 1, 0u64);
    let done = m.reg("done", 1, 0u64);
    // The destination and result: read only under `done`.
    let rd = m.reg("rd", 6, ResetValue::None);
    let data = m.reg("data", 64, ResetValue::None);
    let g = |n: &str| op.bits().get(n).value().clone();
    let accept = op.valid() & &!&busy;
    m.connect(op.ready(), &!&busy);
    let mut finished = m.lit(0, 1);
    let mut result = m.lit(0, 64);
    let mut flags = m.lit(0, 5);
    for (code, inst, lines) in &units {
        let x = inst.io("xbar");
        m.connect(x.valid(), &(&accept & &unit::is(&g("unit"), *code)));
        let xb = x.bits();
        for (port, field) in [("a", "s1"), ("b", "s2"), ("c", "s3")] {
            m.connect(xb.get(port).value(), &g(field));
        }
        for field in ["fn", "word", "unit", "rm", "fmt"] {
            m.connect(xb.get(field).value(), &g(field));
        }
        let mask = m.lit(1, 1);
        m.connect(xb.get("mask").value(), &mask);
        for line in lines {
            let out = inst.io(line);
            let valid = out.get("mask").value().clone();
            finished = &finished | &valid;
            result = &result | &(&valid.repeat(64) & out.get("data").value());
        }
        flags = &flags | &inst.port("flags");
    }
    // Divides and square roots (`div`, read out to VFU2 on the vector side).
    let req = FpDivRequest {
        valid: &accept & &g("div"),
        fmt: g("fmt"),
        sqrt: g("fn").bit(0),
        rm: g("rm"),
        a: g("s1"),
        b: g("s2"),
    };
    let div = fp_dividers(&mut m, p, &req)?;
    finished = &finished | &div.done;
    result = &result | &div.result;
    flags = &flags | &div.flags;
    m.connect(&fflags, &flags);
    m.when(&accept, |m| {
        let one = m.lit(1, 1);
        m.connect(&busy, &one);
        m.connect(&rd, &g("rd").slice(5, 0));
    });
    m.when(&finished, |m| {
        let one = m.lit(1, 1);
        m.connect(&done, &one);
        m.connect(&data, &result);
    });
    m.when(&resp.fire(), |m| {
        let zero = m.lit(0, 1);
        m.connect(&busy, &zero);
        m.connect(&done, &zero);
    });
    m.connect(resp.valid(), &done);
    m.connect(resp.bits().get("rd").value(), &rd);
    m.connect(resp.bits().get("data").value(), &data);
    m.connect(&busy_out, &busy);
    m.finish()
}
