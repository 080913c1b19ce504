//! The rotation network of +m (seed 000, section 2.6: "a rotation network sends each
//! element of a wide response to the lane and thread that own it"; spec section 8.5:
//! element c*L + l to lane l, cycle c): from one returned line of an affine load, each
//! lane's element for each of its T slots.
//!
//! The line is rotated right by the load's byte offset in its first line (`base`, the
//! low five bits of thread 0's address), one 256-bit byte rotator shared by every lane
//! and slot; thread i's element then starts at byte `(i << size) mod 32` of the rotated
//! line, a constant for each lane, slot and size, so a lane's slot takes one of three
//! fixed 32-bit slices (the rotated line read cyclically). Its bytes past the end of the
//! thread's word are cleared, so the value is what a narrow load gives: the word at the
//! address shifted right by the address's byte offset. Thread i's element lies in line
//! `(base + (i << size)) / 32` counted from thread 0's line (0 to 4: elements are
//! aligned, so none straddles two lines); a slot is filled by the response of that line.

use super::{cat_low_first, k};
use crate::fgsimt::l1::BLOCK_OFFSET_BITS;
use crate::fgsimt::params::{FgsimtParams, BLOCK_BYTES};
use hdl::{cat, mux, Value};

/// Bits of a line index counted from thread 0's line: 0 to 4.
pub const LINE_INDEX_BITS: u32 = 3;

/// The fields of the affine request a response answers: `base` (thread 0's byte offset
/// in its line), `size` (log2 bytes) and `line` (the line's index from thread 0's).
pub struct Request<'a> {
    pub base: &'a Value,
    pub size: &'a Value,
    pub line: &'a Value,
}

/// Thread `i`'s byte offset from thread 0's line at each size: `base + (i << size)`, as
/// 8 bits (at most 31 + 31 * 4).
fn offsets(base: &Value, i: u32) -> [Value; 3] {
    let b = base.zext(8);
    [0, 1, 2].map(|s| &b + &k(&b, (i as u64) << s, 8))
}

/// The line index of thread `i`'s element (`LINE_INDEX_BITS`), `base` and `size` as in
/// [`Request`]; also the first and last lines of an affine load from its lowest and
/// highest active threads.
pub fn line_of(base: &Value, size: &Value, i: &Value) -> Value {
    let at = &base.zext(8) + &i.zext(8).dshl(size);
    at.slice(7, BLOCK_OFFSET_BITS)
}

/// `line` (256 bits) rotated right by `bytes` (5 bits) bytes.
fn rotate_bytes(line: &Value, bytes: &Value) -> Value {
    let w = 8 * BLOCK_BYTES;
    (0..BLOCK_OFFSET_BITS).fold(line.clone(), |r, b| {
        let n = 8 << b;
        let turned = cat(&[&r.slice(n - 1, 0), &r.slice(w - 1, n)]);
        mux(&bytes.bit(b), &turned, &r)
    })
}

/// For lane `l` and slot `c` (`[l][c]`), whether the response of `req` carries the
/// element of thread c*L + l, and the element as a narrow load returns it.
pub fn place(p: &FgsimtParams, data: &Value, req: &Request) -> Vec<Vec<(Value, Value)>> {
    let rotated = rotate_bytes(data, req.base);
    // Read cyclically: a slice starting in the last 3 bytes continues at byte 0.
    let ring = cat(&[&rotated.slice(23, 0), &rotated]);
    let lanes = p.lanes;
    (0..lanes)
        .map(|l| {
            (0..p.threads_per_lane())
                .map(|c| {
                    let i = c * lanes + l;
                    let at = offsets(req.base, i);
                    let sized = |v: [Value; 3]| {
                        mux(
                            &req.size.bit(1),
                            &v[2],
                            &mux(&req.size.bit(0), &v[1], &v[0]),
                        )
                    };
                    let elements = [0, 1, 2].map(|s| {
                        let first = 8 * ((i << s) % BLOCK_BYTES);
                        let word = ring.slice(first + 31, first);
                        let offset = at[s].slice(1, 0);
                        let kept: Vec<Value> = (0..4)
                            .map(|b| offset.le(&k(&offset, 3 - b, 2)).repeat(8))
                            .collect();
                        &word & &cat_low_first(&kept)
                    });
                    let line = sized(at.clone()).slice(7, BLOCK_OFFSET_BITS);
                    (line.eq(req.line), sized(elements))
                })
                .collect()
        })
        .collect()
}
