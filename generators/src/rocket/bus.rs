//! Interface shapes of the Rocket-like tile. The memory channels have the shapes of
//! `verification::tb::memory::{request_shape, response_shape}` (tested equal; the response
//! without its ready), so
//! that the Rust memory model serves any of them: lane-aligned 64-bit data, byte mask,
//! log2 size, and one response per request (writes too), in order unless tagged.
//! Responses have no ready: every receiver in the tile accepts one in any cycle (the
//! memory model's "no response ready" mode), which keeps caches and arbiters simple.

use hdl::{Field, Shape};

/// Width of the request's log2-size field (the memory model's `SIZE_BITS`).
pub const SIZE_BITS: u32 = 3;

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// Memory request: 32-bit byte address, write flag, 64-bit lane-aligned data, byte mask,
/// log2 size, and `tag_bits` of tag (none when 0).
pub fn mem_request(tag_bits: u32) -> Shape {
    let mut fields = vec![
        uint("addr", 32),
        uint("write", 1),
        uint("data", 64),
        uint("mask", 8),
        uint("size", SIZE_BITS),
    ];
    if tag_bits > 0 {
        fields.push(uint("tag", tag_bits));
    }
    Shape::decoupled(Shape::bundle(fields))
}

/// Memory response: the naturally aligned doubleword holding the request's address
/// (zero for writes), with the request's tag; valid for one cycle, always accepted.
pub fn mem_response(tag_bits: u32) -> Shape {
    let mut fields = vec![uint("data", 64)];
    if tag_bits > 0 {
        fields.push(uint("tag", tag_bits));
    }
    Shape::valid(Shape::bundle(fields))
}

/// RoCC command (core to accelerator): the instruction's fields and the source values.
/// The accelerator's `busy` (a separate 1-bit port) is high in every cycle after a
/// command's acceptance until its work is done, and never rises without a command; the
/// core reads it through a register.
pub fn rocc_command() -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("funct7", 7),
        uint("rs2", 5),
        uint("rs1", 5),
        uint("xd", 1),
        uint("xs1", 1),
        uint("xs2", 1),
        uint("rd", 5),
        uint("opcode", 7),
        uint("rs1_val", 64),
        uint("rs2_val", 64),
    ]))
}

/// RoCC response (accelerator to core): the destination register and its value.
pub fn rocc_response() -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("rd", 5), uint("data", 64)]))
}

/// RoCC exception (accelerator to core): a RISC-V exception cause and its tval. The
/// core takes it as a trap before the oldest instruction it has not yet committed (mepc
/// = that instruction) once that instruction has started no memory access or RoCC
/// command, and raises `ready` in that cycle. So that the trap and a command never
/// happen together, an accelerator does not accept commands while `valid` is high.
pub fn rocc_exception() -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("cause", 4), uint("tval", 64)]))
}

/// Multiply/divide request: RISC-V funct3 of the M instruction, `word` for the *W forms.
pub fn muldiv_request() -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("funct3", 3),
        uint("word", 1),
        uint("in1", 64),
        uint("in2", 64),
    ]))
}

/// Multiply/divide result (sign-extended from 32 bits for the *W forms).
pub fn muldiv_response() -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("data", 64)]))
}
