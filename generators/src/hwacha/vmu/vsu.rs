//! The store-data aligner (the VSU's memory side): an element's data and byte mask moved
//! to its byte offset in a 128-bit beat, as the memory port's lane-aligned bus wants.

use super::{lit, BEAT_BYTES};
use hdl::{mux, Value};

/// An element placed in its beat.
pub struct Placed {
    pub data: Value,
    pub mask: Value,
}

/// The constant `values[width]` of `bits` bits, for a 2-bit log2 element size.
pub fn by_width(width: &Value, values: [u64; 4], bits: u32) -> Value {
    (0..3u64).fold(lit(width, values[3], bits), |acc, w| {
        mux(
            &width.eq(&lit(width, w, 2)),
            &lit(width, values[w as usize], bits),
            &acc,
        )
    })
}

/// The low `1 << width` bytes of `data` at byte `offset` (4 bits) of a beat.
pub fn place(offset: &Value, width: &Value, data: &Value) -> Placed {
    let bytes = by_width(width, [0x1, 0x3, 0xf, 0xff], 8).zext(BEAT_BYTES);
    let bits = by_width(width, [0xff, 0xffff, 0xffff_ffff, u64::MAX], 64);
    Placed {
        data: (data & &bits)
            .zext(8 * BEAT_BYTES)
            .dshl(&offset.zext(7).shl(3)),
        mask: bytes.dshl(offset),
    }
}
