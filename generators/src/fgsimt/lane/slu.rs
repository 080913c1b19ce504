//! A lane's SIMT load unit (seed 000, section 1.5 and Figure 3: "SLU";
//! docs/fgsimt-engine.md, Lanes): a load's writeback. The SIU starts it once the SMU's
//! load data queues (SLDQ) hold every slot of the oldest load; in slot c's cycle the lane
//! latches its SLDQ head (the word shifted right by the address's byte offset), and in
//! the next writes it to the SRF, sign- or zero-extended by the load's funct3 (LB, LH,
//! LW, LBU, LHU; AMOs, LR and SC as LW).

use super::sau::{active, slot_bits, Write};
use crate::fgsimt::params::FgsimtParams;
use hdl::{mux, Bits, Bundle, ModuleBuilder, ResetValue, Shape, Value};

fn uint(name: &str, width: u32) -> hdl::Field {
    Shape::field(name, Shape::UInt(width))
}

/// A load writeback's slot in its write stage, SIU to every lane: `valid`, `slot`, the
/// warp's `mask`, `rd` (`reg_bits`: the context, then 0-63: flw writes an f register)
/// and the load's `funct3`.
pub fn x_uop(p: &FgsimtParams) -> Shape {
    Shape::bundle(vec![
        uint("valid", 1),
        uint("slot", slot_bits(p)),
        uint("mask", p.warp_size),
        uint("rd", p.reg_bits()),
        uint("funct3", 3),
    ])
}

/// A load's value from `raw`, the word shifted right by the address's byte offset:
/// sign- or zero-extended as the load's `funct3` says (LB, LH, LW, LBU, LHU; flw and the
/// AMOs as LW). The CP's shared loads (`cp/shared_load.rs`) extend the same way.
pub fn extend(raw: &Value, funct3: &Value) -> Value {
    let sext = |w: u32| raw.slice(w - 1, 0).as_signed().sext(32).as_unsigned();
    let zext = |w: u32| raw.slice(w - 1, 0).zext(32);
    let unsigned = funct3.bit(2);
    let size = funct3.slice(1, 0);
    let is = |v: u64| size.eq(&size.konst(Bits::from_u64(2, v)));
    mux(
        &is(0),
        &mux(&unsigned, &zext(8), &sext(8)),
        &mux(&is(1), &mux(&unsigned, &zext(16), &sext(16)), raw),
    )
}

/// The SRF write of `x`, from `data` (the SLDQ head) latched the cycle before.
pub fn slu(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    x: &Bundle,
    lane: &Value,
    data: &Value,
) -> Write {
    let f = |name: &str| x.get(name).value().clone();
    let raw = m.reg("slu_data", 32, ResetValue::None);
    m.connect(&raw, data);
    let value = extend(&raw, &f("funct3"));
    let rd = f("rd");
    let live = &f("valid") & &active(p, &f("mask"), &f("slot"), lane);
    Write {
        en: &live & &rd.slice(5, 0).ne(&rd.konst(Bits::zero(6))),
        reg: rd,
        slot: f("slot"),
        data: value,
    }
}
