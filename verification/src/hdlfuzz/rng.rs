//! Random hardware values for the fuzzer, on the shared RNG.

use hdl::Bits;

pub use crate::rng::{mix, Rng};

impl Rng {
    /// A random value biased towards the corner cases that break arithmetic: zero, all
    /// ones, one, the sign bit alone, and small numbers.
    pub fn bits(&mut self, width: u32) -> Bits {
        let words = hdl::bits::words_for(width);
        match self.below(10) {
            0 => Bits::zero(width),
            1 => Bits::ones(width),
            2 => Bits::from_u64(width, 1),
            3 => {
                let mut w = vec![0u64; words];
                w[(width as usize - 1) / 64] = 1 << ((width - 1) % 64);
                Bits::from_words(width, &w)
            }
            4 => Bits::from_u64(width, self.below(8)),
            _ => {
                let w: Vec<u64> = (0..words).map(|_| self.next_u64()).collect();
                Bits::from_words(width, &w)
            }
        }
    }
}
