//! SplitMix64, the one seedable RNG of the random-test generators (the IR simulator's
//! `hdl::sim::SplitMix`, which also draws the random initial states). Hand-written rather
//! than taken from `rand` so that a seed names the same test forever, whatever crate
//! versions are in use.

pub struct Rng(u64);

/// Mixes two words into a seed for an independent stream.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut r = Rng(a ^ b.rotate_left(32) ^ 0x5851_f42d_4c95_7f2d);
    r.next_u64();
    r.next_u64() ^ b
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut g = hdl::sim::SplitMix(self.0);
        let v = g.next_u64();
        self.0 = g.0;
        v
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below((hi - lo) as u64 + 1) as u32
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}
