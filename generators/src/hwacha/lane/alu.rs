//! The bank-local integer ALU of one slice (VIU): the Rocket ALU's RV64I functions plus
//! the vector unit's equality compare and element index.

use super::uop::alu_fn;
use crate::rocket::alu::alu as rocket_alu;
use hdl::{Bits, Value};

/// `fn_` (5 bits) is a `rocket::decode::alu_fn` or one of `uop::alu_fn`; compares give 0/1.
pub fn alu(fn_: &Value, word: &Value, a: &Value, b: &Value, eidx: &Value) -> Value {
    let is = |v: u64| fn_.eq(&fn_.konst(Bits::from_u64(fn_.width(), v)));
    let base = rocket_alu(&fn_.slice(3, 0), a, b, word);
    let eq = a.eq(b).zext(64);
    let index = eidx.zext(64).dshl(&b.slice(5, 0));
    is(alu_fn::EQ).mux(&eq, &is(alu_fn::EIDX).mux(&index, &base))
}
