//! Small blocks that several design families share: a round-robin arbiter, the
//! memory-side AMO ALU, and value helpers.

use hdl::helpers::{onehot_encode, priority_mux};
use hdl::ir::addr_width;
use hdl::{mux, Bits, ModuleBuilder, Value};

/// The AMO codes of a request's `amo` field (0 for a plain access), which the memory
/// model (`verification::tb::memory::amo`) shares.
pub mod amo {
    pub const NONE: u64 = 0;
    pub const SWAP: u64 = 1;
    pub const ADD: u64 = 2;
    pub const XOR: u64 = 3;
    pub const AND: u64 = 4;
    pub const OR: u64 = 5;
    pub const MIN: u64 = 6;
    pub const MAX: u64 = 7;
    pub const MINU: u64 = 8;
    pub const MAXU: u64 = 9;
    /// Width of the field.
    pub const BITS: u32 = 4;
}

/// The constant `v` of `w` bits (at most 64), made next to `anchor`.
pub fn k(anchor: &Value, v: u64, w: u32) -> Value {
    anchor.konst(Bits::from_u64(w, v))
}

/// A counter's next value: one more with `inc`, one less with `dec`, the same with
/// both or neither.
pub fn up_down(v: &Value, inc: &Value, dec: &Value) -> Value {
    let w = v.width();
    let up = v + &k(v, 1, w);
    let down = v - &k(v, 1, w);
    hdl::mux(inc, &hdl::mux(dec, v, &up), &hdl::mux(dec, &down, v))
}

/// Bit `idx` of `bits` (say a register of one bit per set).
pub fn bit_at(bits: &Value, idx: &Value) -> Value {
    bits.dshr(idx).bit(0)
}

/// The OR of `vs` (at least one).
pub fn any(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}

/// `vs` as one value, `vs[0]` in the low bits.
pub fn cat_low_first(vs: &[Value]) -> Value {
    let refs: Vec<&Value> = vs.iter().rev().collect();
    hdl::cat(&refs)
}

/// One-hot grants among `valid`, the requester after the last one granted first;
/// the last one granted is remembered when `fire`.
pub fn round_robin(m: &mut ModuleBuilder, name: &str, valid: &[Value], fire: &Value) -> Vec<Value> {
    let n = valid.len();
    let w = addr_width(n as u64);
    let last = m.reg(name, w, (n - 1) as u64);
    let mut grant: Vec<Value> = vec![k(fire, 0, 1); n];
    for l in 0..n {
        let mut none_before = last.eq(&k(fire, l as u64, w));
        for step in 1..=n {
            let i = (l + step) % n;
            grant[i] = &grant[i] | &(&none_before & &valid[i]);
            none_before = &none_before & &!&valid[i];
        }
    }
    let idx = onehot_encode(&cat_low_first(&grant));
    m.when(fire, |m| m.connect(&last, &idx));
    grant
}

/// An AMO's new value: the operation `is` names (`is(code)` is high for the memory
/// model's [`amo`] code; SWAP when none is) applied to memory's `old` and the operand
/// `src`, both of one width (signed comparisons at that width).
pub fn amo_alu(is: impl Fn(u64) -> Value, old: &Value, src: &Value) -> Value {
    let slt = src.as_signed().lt(&old.as_signed());
    let ult = src.lt(old);
    let cases = [
        (is(amo::ADD), old + src),
        (is(amo::XOR), old ^ src),
        (is(amo::AND), old & src),
        (is(amo::OR), old | src),
        (is(amo::MIN), mux(&slt, src, old)),
        (is(amo::MAX), mux(&slt, old, src)),
        (is(amo::MINU), mux(&ult, src, old)),
        (is(amo::MAXU), mux(&ult, old, src)),
    ];
    priority_mux(&cases, src)
}
