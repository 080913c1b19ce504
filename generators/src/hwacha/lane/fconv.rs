//! The conversion unit on the operand crossbar (Figure 8.6: FConv in VFU0; Table 8.7's
//! HwachaStagesFConv): per 64-bit slice the library's conversion unit
//! (`fpu::convert`, half, single and double among themselves and to and from 32- and
//! 64-bit integers), its operation the crossbar's `fn` (`fpu::convert::encode`). A
//! float result is the library's NaN-boxed value narrowed to its format and
//! sign-extended, as registers hold it; an integer result is the library's (32-bit
//! ones sign-extended).

use super::fp_port::{
    any_flags, delay, drive_packed, drive_result, result_out, sext, Done, PackedLanes, Port,
};
use super::regmap::is_packed;
use super::uop::fmt;
use crate::fpu::convert::{self, kind, ConvertParams};
use crate::hwacha::params::HwachaParams;
use hdl::{cat, Bits, HdlErrors, Module, ModuleBuilder, Value};
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
/// `flags` out. With mixed precision, a packed conversion between half and single
/// (32-bit registers, two strips an operation: the extra half-single converters of
/// thesis chapter 8) runs each slice's two 32-bit subwords through the library's packed
/// pair (`fpu::convert::kind::PACKED`), an inactive subword's operand zeroed so that it
/// raises no flags.
pub fn fconv_unit(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("HwachaFConv_x{}", p.slices()));
    let port = Port::new(&mut m, p);
    let params = ConvertParams {
        formats: "hsd".into(),
        stages: p.stages_fconv,
    };
    let latency = convert::latency(&params);
    let unit = convert::convert(&params)?;
    let op = port.get("fn").slice(convert::OP_BITS - 1, 0);
    let packed = if p.mixed_precision {
        is_packed(&port.get("pk"))
    } else {
        m.lit(0, 1)
    };
    let packed_op = cat(&[&op.konst(Bits::from_u64(2, kind::PACKED)), &op.slice(5, 0)]);
    let unit_op = packed.mux(&packed_op, &op);
    let op_late = delay(&mut m, "op", &op, latency);
    let packed_late = delay(&mut m, "packed", &packed, latency);
    let (mut slices, mut pairs, mut finished) = (vec![], vec![], vec![]);
    for s in 0..p.slices() {
        let inst = m.instance(&format!("conv{s}"), &unit);
        let act1 = if p.mixed_precision {
            port.starts_packed(s, 1)
        } else {
            m.lit(0, 1)
        };
        let act = [port.starts(s), act1];
        let a = port.operand("a", s);
        m.connect(&inst.port("in_valid"), &(&act[0] | &(&packed & &act[1])));
        m.connect(&inst.port("rm"), &port.get("rm"));
        m.connect(&inst.port("op"), &unit_op);
        m.connect(
            &inst.port("a"),
            &packed.mux(&pair_operand(&op, &a, &act), &a),
        );
        let late = [0, 1].map(|j| delay(&mut m, &format!("act{s}_{j}"), &act[j], latency));
        let (valid, result) = (inst.port("out_valid"), inst.port("result"));
        let lanes = pair_result(&op_late, &result);
        // The flags of every finished conversion (a pair's, inactive lanes raising none).
        finished.push(Done {
            valid: valid.clone(),
            data: result.clone(),
            flags: inst.port("flags"),
        });
        slices.push(Done {
            valid: &valid & &(&late[0] | &!&packed_late),
            data: register_value(&op_late, &result),
            flags: inst.port("flags"),
        });
        let none = valid.konst(Bits::zero(5));
        pairs.push(PackedLanes {
            lane0: lanes[0].clone(),
            lanes: vec![Done {
                valid: &(&valid & &packed_late) & &late[1],
                data: lanes[1].clone(),
                flags: none,
            }],
        });
    }
    let out = result_out(&mut m, p, "result");
    let flags = any_flags(&finished);
    if p.mixed_precision {
        drive_packed(&mut m, &out, &slices, &pairs);
    } else {
        drive_result(&mut m, &out, &slices);
    }
    m.connect(&port.flags, &flags);
    m.finish()
}

/// A packed pair's operand from a slice `a` of two 32-bit subwords (active `act`):
/// halves into bits 15:0 and 31:16, singles as they are (`kind::PACKED`).
fn pair_operand(op: &Value, a: &Value, act: &[Value; 2]) -> Value {
    let from_h = op.slice(1, 0).eq(&op.konst(Bits::from_u64(2, fmt::H)));
    let [w0, w1] = [0, 1].map(|j| &a.slice(32 * j + 31, 32 * j) & &act[j as usize].repeat(32));
    let halves = cat(&[&w1.slice(15, 0), &w0.slice(15, 0)]).zext(64);
    from_h.mux(&halves, &cat(&[&w1, &w0]))
}

/// A packed pair's results as 32-bit register subwords: singles from bits 31:0 and
/// 63:32, halves from 15:0 and 31:16 sign-extended.
fn pair_result(op: &Value, r: &Value) -> [Value; 2] {
    let to_h = op.slice(3, 2).eq(&op.konst(Bits::from_u64(2, fmt::H)));
    [0, 1].map(|j| {
        let half = r
            .slice(16 * j + 15, 16 * j)
            .as_signed()
            .sext(32)
            .as_unsigned();
        to_h.mux(&half, &r.slice(32 * j + 31, 32 * j))
    })
}
