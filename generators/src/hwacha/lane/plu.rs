//! The bank-local predicate logic unit of one slice (VIPU): vpop's three-input truth
//! table. The model's order: the result is table bit `7 - (p1 p2 p3)`.

use hdl::{cat, Value};

pub fn plu(table: &Value, p1: &Value, p2: &Value, p3: &Value) -> Value {
    // 7 - x is !x for a 3-bit x.
    let index = !&cat(&[p1, p2, p3]);
    table.dshr(&index).bit(0)
}
