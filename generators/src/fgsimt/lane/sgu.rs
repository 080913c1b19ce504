//! A lane's SIMT address generation unit (seed 000, section 1.5 and Figure 3: "SGU";
//! docs/fgsimt-engine.md, Lanes): in a memory instruction's execute cycle of thread slot
//! c, thread c * lanes + l's byte address `rs1 + imm` (`imm` is 0 for the AMOs, LR and
//! SC) and whether it is misaligned for the access's size (the SIU reports the lowest
//! misaligned active thread as a fault, as the ISS traps).

use super::sau::{slot_bits, ADDERS};
use crate::fgsimt::params::FgsimtParams;
use hdl::{Bits, Bundle, Shape, Value};

fn uint(name: &str, width: u32) -> hdl::Field {
    Shape::field(name, Shape::UInt(width))
}

/// A memory instruction's slot in the execute stage, SIU to every lane: the `slot`, the
/// warp's `mask`, the address offset `imm` and the access `size` (log2 bytes); whether a
/// slot is executing is the SIU's (`siu::mem_info`).
pub fn x_uop(p: &FgsimtParams) -> Shape {
    Shape::bundle(vec![
        uint("slot", slot_bits(p)),
        uint("mask", p.warp_size),
        uint("imm", 32),
        uint("size", 2),
    ])
}

/// The address of the latched `rs1` for `x`, and whether it is misaligned.
pub fn sgu(x: &Bundle, rs1: &Value) -> (Value, Value) {
    let addr = ADDERS.add(rs1, x.get("imm").value());
    let size = x.get("size").value();
    let is = |v: u64| size.eq(&size.konst(Bits::from_u64(2, v)));
    let misaligned = &(&is(1) & &addr.bit(0)) | &(&is(2) & &addr.slice(1, 0).or_r());
    (addr, misaligned)
}
