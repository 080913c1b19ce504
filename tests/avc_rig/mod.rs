//! What the AVC's tests share: vectors of words as the RTL's ports carry them, and the
//! random vectors, masks and small cache shapes they run.
#![allow(dead_code)]

use hdl::Bits;
use verification::fgsimt::avc::controller::AvcParams;
use verification::rng::Rng;

/// 8 threads (32-byte blocks), 4 vectors a line, 2 sets: small enough to evict often.
pub fn small(avc_ways: u32, l1_ways: u32) -> AvcParams {
    AvcParams {
        threads: 8,
        vectors_per_line: 4,
        avc_sets: 2,
        avc_ways,
        l1_sets: 2,
        l1_ways,
    }
}

pub fn pack(words: &[u32]) -> Bits {
    let packed: Vec<u64> = words
        .chunks(2)
        .map(|c| c[0] as u64 | (*c.get(1).unwrap_or(&0) as u64) << 32)
        .collect();
    Bits::from_words(32 * words.len() as u32, &packed)
}

pub fn unpack(bits: &Bits, n: u32) -> Vec<u32> {
    (0..n)
        .map(|i| bits.slice(32 * i + 31, 32 * i).to_u64() as u32)
        .collect()
}

pub fn all(n: u32) -> u32 {
    if n == 32 {
        u32::MAX
    } else {
        (1 << n) - 1
    }
}

pub fn vector(rng: &mut Rng, n: u32) -> Vec<u32> {
    let sigma = rng.below(8) as u32;
    let base = (rng.below(64) as u32) << sigma;
    let affine: Vec<u32> = (0..n).map(|i| base.wrapping_add(i << sigma)).collect();
    match rng.below(8) {
        0..=3 => affine,
        4 => vec![rng.below(3) as u32; n as usize],
        5 => {
            let mut d = affine;
            d[rng.below(n as u64) as usize] ^= 1;
            d
        }
        _ => (0..n).map(|_| rng.below(1000) as u32).collect(),
    }
}

pub fn mask(rng: &mut Rng, n: u32) -> u32 {
    match rng.below(6) {
        0 | 1 => all(n),
        2 => {
            let lo = rng.below(n as u64) as u32;
            let len = 1 + rng.below((n - lo) as u64) as u32;
            all(len) << lo
        }
        3 => 1 << rng.below(n as u64),
        _ => (rng.next_u64() as u32 & all(n)).max(1),
    }
}
