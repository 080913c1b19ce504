//! The AVC's decode unit (seed 002, section 5.2; spec 002 section 4.1): a warp's `n`
//! words from (base, stride code), `d_i = b + (i << sigma)` (or `b` for code 0),
//! broadcast to the threads: `n` shifts of the constant thread index by the 3-bit code
//! and `n` 32-bit adders. Combinational, within one cycle (the paper's bound).
//!
//! Ports: `base` (32), `code` (3); `data` (`n` x 32, thread i at bits 32i..32i+31).

use super::{CODE_BITS, WORD};
use hdl::{cat, mux, Bits, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// Bits of `i << sigma` for the largest thread index of a 32-thread warp and the largest
/// stride exponent (31 << 6).
const OFFSET: u32 = 11;

/// The decoder for warps of `n` threads (1 to 32).
pub fn decoder(n: u32) -> Result<Rc<Module>, HdlErrors> {
    assert!((1..=32).contains(&n), "1 to 32 threads");
    let mut m = ModuleBuilder::new(&format!("AvcDecoder{n}"));
    let base = m.input("base", WORD);
    let code = m.input("code", CODE_BITS);
    let data = m.output("data", n * WORD);
    m.connect(&data, &decode(&base, &code, n));
    m.finish()
}

/// The `n` words of (`base`, `code`), thread 0's the lowest.
fn decode(base: &Value, code: &Value, n: u32) -> Value {
    let uniform = code.eq(&code.konst(Bits::zero(CODE_BITS)));
    let sigma = code - &code.konst(Bits::from_u64(CODE_BITS, 1));
    let words: Vec<Value> = (0..n)
        .rev()
        .map(|i| {
            let index = base.konst(Bits::from_u64(OFFSET, i as u64));
            let offset = mux(
                &uniform,
                &index.konst(Bits::zero(OFFSET)),
                &index.dshl(&sigma),
            );
            base + &offset.zext(WORD)
        })
        .collect();
    let refs: Vec<&Value> = words.iter().collect();
    cat(&refs)
}
