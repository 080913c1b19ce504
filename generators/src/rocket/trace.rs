//! The commit trace port: one record per retired instruction, with the fields of
//! `verification::tb::lockstep::trace_shape()` (tested equal there; `generators` does
//! not depend on `verification`).

use hdl::Shape;

/// The record's fields and widths, in declaration order.
pub const FIELDS: [(&str, u32); 7] = [
    ("pc", 64),
    ("insn", 32),
    ("rd", 5),
    ("value", 64),
    ("mem_addr", 64),
    ("mem_data", 64),
    ("mem_mask", 8),
];

pub fn trace_shape() -> Shape {
    Shape::valid(Shape::bundle(
        FIELDS
            .iter()
            .map(|&(name, width)| Shape::field(name, Shape::UInt(width)))
            .collect(),
    ))
}
