//! The conversion unit on the operand crossbar (Figure 8.6: FConv in VFU0; Table 8.7's
//! HwachaStagesFConv): per 64-bit slice the library's conversion unit
//! (`fpu::convert`, half, single and double among themselves and to and from 32- and
//! 64-bit integers), its operation the crossbar's `fn` (`fpu::convert::encode`). A
//! float result is the library's NaN-boxed value narrowed to its format and
//! sign-extended, as registers hold it; an integer result is the library's (32-bit
//! ones sign-extended).

use super::fp_port::{delay, drive_result, result_out, sext, Done, Port};
use super::uop::fmt;
use crate::fpu::convert::{self, kind, ConvertParams};
use crate::hwacha::params::HwachaParams;
use hdl::{Bits, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The register value of a conversion result `data` of operation `op`.
fn register_value(op: &Value, data: &Value) -> Value {
    let field = |hi: u32, lo: u32| op.slice(hi, lo);
    let k = |v: u64| field(7, 6).konst(Bits::from_u64(2, v));
    let to_int = field(7, 6).eq(&k(kind::F2I));
    let dst = field(3, 2);
    let is = |code: u64| dst.eq(&dst.konst(Bits::from_u64(2, code)));
    let float = is(fmt::H).mux(&sext(data, 16), &is(fmt::S).mux(&sext(data, 32), data));
    to_int.mux(data, &float)
}

/// Ports: `xbar` in (FConv operations only), `result` (data and element mask) and
/// `flags` out.
pub fn fconv_unit(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("HwachaFConv_x{}", p.slices()));
    let port = Port::new(&mut m, p);
    let params = ConvertParams {
        formats: "hsd".into(),
        stages: p.stages_fconv,
    };
    let unit = convert::convert(&params)?;
    let op = port.get("fn").slice(convert::OP_BITS - 1, 0);
    let op_late = delay(&mut m, "op", &op, convert::latency(&params));
    let slices: Vec<Done> = (0..p.slices())
        .map(|s| {
            let inst = m.instance(&format!("conv{s}"), &unit);
            m.connect(&inst.port("in_valid"), &port.starts(s));
            m.connect(&inst.port("rm"), &port.get("rm"));
            m.connect(&inst.port("op"), &op);
            m.connect(&inst.port("a"), &port.operand("a", s));
            Done {
                valid: inst.port("out_valid"),
                data: register_value(&op_late, &inst.port("result")),
                flags: inst.port("flags"),
            }
        })
        .collect();
    let out = result_out(&mut m, p, "result");
    let flags = drive_result(&mut m, &out, &slices);
    m.connect(&port.flags, &flags);
    m.finish()
}
