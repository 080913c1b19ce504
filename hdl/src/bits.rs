//! Arbitrary-width bit vectors: constants, reset values, and simulator values.
//! Words are little-endian u64 limbs; bits above `width` are always zero.

use std::fmt;

/// Widths allowed for any value in the IR.
pub const MAX_WIDTH: u32 = 4096;

pub fn words_for(width: u32) -> usize {
    (width as usize).div_ceil(64).max(1)
}

/// Mask for the top limb of a `width`-bit value.
pub fn top_mask(width: u32) -> u64 {
    match width % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bits {
    width: u32,
    words: Vec<u64>,
}

impl Bits {
    pub fn zero(width: u32) -> Bits {
        Bits {
            width,
            words: vec![0; words_for(width)],
        }
    }

    /// `value` truncated to `width` bits.
    pub fn from_u64(width: u32, value: u64) -> Bits {
        let mut b = Bits::zero(width);
        b.words[0] = value;
        b.normalize();
        b
    }

    pub fn from_u128(width: u32, value: u128) -> Bits {
        let mut b = Bits::zero(width);
        b.words[0] = value as u64;
        if b.words.len() > 1 {
            b.words[1] = (value >> 64) as u64;
        }
        b.normalize();
        b
    }

    /// Little-endian limbs, truncated or zero-extended to `width`.
    pub fn from_words(width: u32, words: &[u64]) -> Bits {
        let mut b = Bits::zero(width);
        let n = b.words.len().min(words.len());
        b.words[..n].copy_from_slice(&words[..n]);
        b.normalize();
        b
    }

    pub fn ones(width: u32) -> Bits {
        let mut b = Bits {
            width,
            words: vec![u64::MAX; words_for(width)],
        };
        b.normalize();
        b
    }

    /// Parses hexadecimal digits (no prefix, `_` allowed) into a `width`-bit value;
    /// `None` if a digit is not hex or the value does not fit.
    pub fn from_hex(width: u32, hex: &str) -> Option<Bits> {
        let mut b = Bits::zero(width);
        let digits: Vec<u8> = hex.bytes().filter(|&c| c != b'_').collect();
        for (i, c) in digits.iter().rev().enumerate() {
            let d = (*c as char).to_digit(16)? as u64;
            if d == 0 {
                continue;
            }
            let bit = i * 4;
            if bit + (64 - d.leading_zeros() as usize) > width as usize {
                return None;
            }
            b.words[bit / 64] |= d << (bit % 64);
        }
        Some(b)
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn words(&self) -> &[u64] {
        &self.words
    }

    pub fn to_u64(&self) -> u64 {
        self.words[0]
    }

    pub fn to_u128(&self) -> u128 {
        let hi = self.words.get(1).copied().unwrap_or(0) as u128;
        (hi << 64) | self.words[0] as u128
    }

    pub fn bit(&self, i: u32) -> bool {
        i < self.width && (self.words[i as usize / 64] >> (i % 64)) & 1 == 1
    }

    /// Bits `hi..=lo` as a new value.
    pub fn slice(&self, hi: u32, lo: u32) -> Bits {
        let width = hi - lo + 1;
        let mut out = Bits::zero(width);
        for i in 0..width {
            if self.bit(lo + i) {
                out.words[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
        out
    }

    pub fn is_zero(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Lower-case hex, exactly ceil(width/4) digits.
    pub fn to_hex(&self) -> String {
        let digits = (self.width as usize).div_ceil(4);
        let mut s = String::with_capacity(digits);
        for i in (0..digits).rev() {
            let bit = i * 4;
            let d = (self.words[bit / 64] >> (bit % 64)) & 0xf;
            s.push(char::from_digit(d as u32, 16).unwrap_or('0'));
        }
        s
    }

    fn normalize(&mut self) {
        let last = self.words.len() - 1;
        self.words[last] &= top_mask(self.width);
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'h{}", self.width, self.to_hex())
    }
}

impl fmt::Display for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'h{}", self.width, self.to_hex())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_and_truncation() {
        let b = Bits::from_hex(130, "3_0000000000000000_ffffffffffffffff").unwrap();
        assert_eq!(b.words(), &[u64::MAX, 0, 3]);
        assert_eq!(b.to_hex(), "30000000000000000ffffffffffffffff");
        assert!(Bits::from_hex(129, "3_0000000000000000_0000000000000000").is_none());
        assert!(Bits::from_hex(8, "1g").is_none());
        assert_eq!(Bits::from_u64(4, 0xff).to_u64(), 0xf);
        assert_eq!(Bits::ones(65).words(), &[u64::MAX, 1]);
    }
}
