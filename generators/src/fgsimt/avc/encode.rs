//! The AVC's encode unit (seed 002, section 5.2; spec 002 section 4): whether a warp's
//! vector is affine with a power-of-two stride under its activity mask, and its (base,
//! stride code), by the rules the golden model (`verification::fgsimt::avc::codec`)
//! settles:
//! - the stride's exponent is the lowest set bit of `d_2k ^ d_2k+1` for the first
//!   aligned pair with both threads active (a priority encoder over the pairs' ANDs and
//!   a count of trailing zeros); no such pair, or equal words, give the uniform stride 0;
//! - the base is `d_f - (f << sigma)` for the first active thread `f`;
//! - the candidate is checked against every active thread's word; it is affine when all
//!   match, the exponent is at most [`SIGMA_MAX`] and the base is a multiple of the
//!   stride.
//!
//! The paper checks by decoding the candidate (`decode.rs`) and comparing. Here each
//! thread instead compares `d_i - d_f` with `(i - f) << sigma`, which is the same test
//! modulo 2^32. The base is aligned exactly when `d_f` is, since `f << sigma` is a
//! multiple of the stride. So the threads' subtractions run beside the stride estimate
//! and not after the base's: two 32-bit adders come off the path (the controller's Fmax
//! on nangate45 went from 246 MHz to the README's figure).
//!
//! Combinational. Ports: `data` (`n` x 32, thread i at bits 32i..32i+31), `mask` (`n`);
//! `affine`, `base` (32), `code` (3).

use super::{CODE_BITS, SIGMA_MAX, WORD};
use crate::blocks::k;
use hdl::helpers::{lowest_one, onehot_mux, priority_encode};
use hdl::{cat, mux, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The candidate stride exponent (5 bits) and whether the stride is 0.
fn stride_estimate(words: &[Value], mask: &Value) -> (Value, Value) {
    let pairs = words.len() as u32 / 2;
    if pairs == 0 {
        return (k(mask, 0, 5), k(mask, 1, 1));
    }
    let both: Vec<Value> = (0..pairs)
        .rev()
        .map(|k| mask.slice(2 * k + 1, 2 * k).and_r())
        .collect();
    let both = cat(&both.iter().collect::<Vec<_>>());
    let xors: Vec<Value> = (0..pairs as usize)
        .map(|k| &words[2 * k] ^ &words[2 * k + 1])
        .collect();
    let x = onehot_mux(&lowest_one(&both), &xors);
    (priority_encode(&x), x.eq(&k(&x, 0, WORD)))
}

/// The encoder for warps of `n` threads (1 to 32).
pub fn encoder(n: u32) -> Result<Rc<Module>, HdlErrors> {
    assert!((1..=32).contains(&n), "1 to 32 threads");
    let mut m = ModuleBuilder::new(&format!("AvcEncoder{n}"));
    let data = m.input("data", n * WORD);
    let mask = m.input("mask", n);
    let words: Vec<Value> = (0..n)
        .map(|i| data.slice(WORD * i + WORD - 1, WORD * i))
        .collect();

    let (sigma, uniform) = stride_estimate(&words, &mask);
    let code = mux(
        &uniform,
        &k(&mask, 0, CODE_BITS),
        &(&sigma.slice(CODE_BITS - 1, 0) + &k(&mask, 1, CODE_BITS)),
    );
    let first = lowest_one(&mask);
    let f = priority_encode(&mask).zext(WORD);
    let offset = mux(&uniform, &k(&f, 0, WORD), &f.dshl(&sigma));
    let d_first = onehot_mux(&first, &words);
    let base = &d_first - &offset;
    let low = !&k(&base, u32::MAX as u64, WORD).dshl(&sigma);
    let aligned = &uniform | &(&d_first & &low).eq(&k(&base, 0, WORD));
    let in_range = &uniform | &sigma.le(&k(&sigma, SIGMA_MAX as u64, 5));

    let matches: Vec<Value> = (0..n)
        .rev()
        .map(|i| {
            // (i - f) in 7 signed bits, shifted by at most 7 in 13: |31 << 7| < 2^12.
            let diff = &k(&mask, i as u64, 7) - &f.slice(6, 0);
            let step = diff.sext(13).as_unsigned().dshl(&sigma.slice(2, 0));
            let want = mux(&uniform, &k(&f, 0, WORD), &step.sext(WORD).as_unsigned());
            let same = (&words[i as usize] - &d_first).eq(&want);
            &same | &!&mask.bit(i)
        })
        .collect();
    let all_match = cat(&matches.iter().collect::<Vec<_>>()).and_r();
    let active = mask.or_r();
    let affine = &(&active & &all_match) & &(&aligned & &in_range);

    let (affine_out, base_out, code_out) = (
        m.output("affine", 1),
        m.output("base", WORD),
        m.output("code", CODE_BITS),
    );
    m.connect(&affine_out, &affine);
    m.connect(&base_out, &base);
    m.connect(&code_out, &code);
    m.finish()
}
