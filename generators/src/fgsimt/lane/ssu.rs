//! A lane's SIMT store unit (seed 000, section 1.5 and Figure 3: "SSU";
//! docs/fgsimt-engine.md, Lanes): a store's or AMO's data (rs2) shifted to its bytes
//! within the word at the address, and the byte mask of the access (`bundles::mem_slot`).

use hdl::{cat, mux, Bits, Value};

/// (data, byte mask) of an access of `size` (log2 bytes) at `addr` with data `rs2`.
pub fn ssu(addr: &Value, size: &Value, rs2: &Value) -> (Value, Value) {
    let offset = addr.slice(1, 0);
    let bit_offset = cat(&[&offset, &offset.konst(Bits::zero(3))]);
    let data = rs2.dshl(&bit_offset).slice(31, 0);
    let k = |v: u64| size.konst(Bits::from_u64(4, v));
    let is = |v: u64| size.eq(&size.konst(Bits::from_u64(2, v)));
    let bytes = mux(&is(0), &k(0x1), &mux(&is(1), &k(0x3), &k(0xf)));
    (data, bytes.dshl(&offset).slice(3, 0))
}
