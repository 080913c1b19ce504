//! The AMO arithmetic (RV64A): the value written back from the old memory value and the
//! operand, compared at the access width (signed or unsigned as the function says).

use super::lit;
use super::vlu::extend;
use hdl::{mux, Value};

/// `amo_fn` codes, in the order of the command's field.
pub const SWAP: u64 = 0;
pub const ADD: u64 = 1;
pub const XOR: u64 = 2;
pub const AND: u64 = 3;
pub const OR: u64 = 4;
pub const MIN: u64 = 5;
pub const MAX: u64 = 6;
pub const MINU: u64 = 7;
pub const MAXU: u64 = 8;

/// The new memory value (its low `1 << width` bytes are stored).
pub fn combine(amo_fn: &Value, width: &Value, old: &Value, src: &Value) -> Value {
    let t = lit(width, 1, 1);
    let f = lit(width, 0, 1);
    let (old_s, src_s) = (extend(old, width, &f), extend(src, width, &f));
    let (old_u, src_u) = (extend(old, width, &t), extend(src, width, &t));
    let le_s = old_s.as_signed().le(&src_s.as_signed());
    let ge_s = old_s.as_signed().ge(&src_s.as_signed());
    let le_u = old_u.le(&src_u);
    let ge_u = old_u.ge(&src_u);
    let cases = [
        (SWAP, src.clone()),
        (ADD, old + src),
        (XOR, old ^ src),
        (AND, old & src),
        (OR, old | src),
        (MIN, mux(&le_s, old, src)),
        (MAX, mux(&ge_s, old, src)),
        (MINU, mux(&le_u, old, src)),
        (MAXU, mux(&ge_u, old, src)),
    ];
    cases.iter().fold(src.clone(), |acc, (code, v)| {
        mux(&amo_fn.eq(&lit(amo_fn, *code, 4)), v, &acc)
    })
}
