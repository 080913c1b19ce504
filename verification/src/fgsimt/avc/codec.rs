//! The AVC's encode and decode units (seed 002, section 5.2; spec 002 sections 1 and 4),
//! the golden model of `generators::fgsimt::avc::{encode, decode}`.
//!
//! A vector is one 32-bit word for each of a warp's `n` threads, with an activity mask
//! (bit i for thread i). Its restricted affine form (paper section 5.2) is a base `b`
//! and a stride `s` that is 0 or a power of two, `d_i = b + i * s` modulo 2^32 for every
//! active thread `i` (its position in the warp, active or not), with `b` a multiple of
//! `s`.
//!
//! The ambiguities spec 002 lists, settled once here and in the RTL:
//! - **Stride code** (3 bits, paper Figure 4): 0 for s = 0, c in 1..=7 for s = 2^(c-1),
//!   so strides 1 to 64 ([`SIGMA_MAX`] = 6).
//! - **Stride estimate:** the lowest set bit of `d_2k ^ d_2k+1` for the first aligned pair
//!   (2k, 2k+1) with both threads active, not the paper's literal XOR, which is wrong
//!   when `b / s` is odd (4 ^ 8 = 12); the lowest set bit of `x ^ y` is that of `x - y`.
//! - **Pairs:** aligned only, as the paper. A mask with no aligned active pair (a single
//!   thread, or threads {1, 2}) gets the uniform candidate only.
//! - **Base alignment:** checked, as the paper's restricted form (`b` a multiple of `s`).
//! - **Check:** the candidate is decoded and compared with every active thread's word;
//!   so a mask of any shape (dense or not) is encoded exactly when the candidate fits.
//! - **Arithmetic** modulo 2^32; descending sequences are generic.

/// Bits of the stride code.
pub const CODE_BITS: u32 = 3;

/// The largest stride exponent a code holds: strides 1, 2, 4, ..., 64.
pub const SIGMA_MAX: u32 = (1 << CODE_BITS) - 2;

/// A vector's compact form: base and stride code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded {
    pub base: u32,
    pub code: u8,
}

/// Spec 002's traffic classes (only active threads count).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Zero,
    Uniform,
    Affine,
    Generic,
}

impl Encoded {
    /// The stride (0 for code 0, else 2^(code - 1)).
    pub fn stride(self) -> u32 {
        match self.code {
            0 => 0,
            c => 1 << (c - 1),
        }
    }

    /// Thread `i`'s word.
    pub fn word(self, i: u32) -> u32 {
        self.base.wrapping_add(i.wrapping_mul(self.stride()))
    }

    /// The whole vector of `n` words (the decoder: every thread, active or not).
    pub fn decode(self, n: u32) -> Vec<u32> {
        (0..n).map(|i| self.word(i)).collect()
    }

    pub fn class(self) -> Class {
        match (self.code, self.base) {
            (0, 0) => Class::Zero,
            (0, _) => Class::Uniform,
            _ => Class::Affine,
        }
    }
}

/// The encoder: `data`'s compact form under `mask`, or `None` (generic, or no thread
/// active).
pub fn encode(data: &[u32], mask: u32) -> Option<Encoded> {
    let n = data.len() as u32;
    let mask = if n == 32 { mask } else { mask & ((1 << n) - 1) };
    if mask == 0 {
        return None;
    }
    let first = mask.trailing_zeros();
    let pair = (0..n / 2).find(|k| (mask >> (2 * k)) & 3 == 3);
    let sigma = pair
        .map(|k| data[2 * k as usize] ^ data[2 * k as usize + 1])
        .filter(|&x| x != 0)
        .map(u32::trailing_zeros);
    let code = match sigma {
        None => 0,
        Some(s) if s <= SIGMA_MAX => s as u8 + 1,
        Some(_) => return None,
    };
    let candidate = Encoded { base: 0, code };
    let base = data[first as usize].wrapping_sub(first.wrapping_mul(candidate.stride()));
    let candidate = Encoded { base, code };
    let stride = candidate.stride();
    if stride != 0 && base & (stride - 1) != 0 {
        return None;
    }
    (0..n)
        .filter(|i| mask >> i & 1 == 1)
        .all(|i| data[i as usize] == candidate.word(i))
        .then_some(candidate)
}

/// The class of `data` under `mask` (generic when it does not encode).
pub fn class(data: &[u32], mask: u32) -> Class {
    encode(data, mask).map_or(Class::Generic, Encoded::class)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn affine(n: u32, base: u32, sigma: u32) -> Vec<u32> {
        (0..n).map(|i| base.wrapping_add(i << sigma)).collect()
    }

    #[test]
    fn every_stride_code_and_the_next_rejected() {
        for sigma in 0..=SIGMA_MAX {
            let d = affine(32, 0x1000, sigma);
            let e = encode(&d, u32::MAX).unwrap();
            assert_eq!((e.base, e.stride()), (0x1000, 1 << sigma));
            assert_eq!(e.decode(32), d);
        }
        assert_eq!(encode(&affine(32, 0x1000, SIGMA_MAX + 1), u32::MAX), None);
    }

    #[test]
    fn odd_multiples_of_the_stride_encode() {
        // 4, 8, 12, ...: b / s = 1; the literal XOR of lanes 0 and 1 would be 12.
        let d: Vec<u32> = (0..32).map(|i| 4 + 4 * i).collect();
        assert_eq!(encode(&d, u32::MAX), Some(Encoded { base: 4, code: 3 }));
    }

    #[test]
    fn inactive_threads_and_the_base_of_thread_zero() {
        let mut d = affine(8, 0x40, 2);
        d[0] = 0xdead_beef;
        // Thread 0 inactive: the base is still thread 0's word, d_1 - s.
        assert_eq!(
            encode(&d, 0b1111_1110),
            Some(Encoded {
                base: 0x40,
                code: 3
            })
        );
        assert_eq!(encode(&d, 0xff), None);
        // A single thread: uniform.
        assert_eq!(
            encode(&d, 0b1000_0000),
            Some(Encoded {
                base: d[7],
                code: 0
            })
        );
        // Threads 1 and 2 (no aligned pair): only the uniform candidate.
        assert_eq!(encode(&d, 0b0000_0110), None);
    }

    #[test]
    fn wraparound_stride_three_and_descending() {
        let d = affine(32, 0xffff_fff0, 4);
        assert_eq!(
            encode(&d, u32::MAX),
            Some(Encoded {
                base: 0xffff_fff0,
                code: 5
            })
        );
        let three: Vec<u32> = (0..32).map(|i| 3 * i).collect();
        assert_eq!(encode(&three, u32::MAX), None);
        let down: Vec<u32> = (0..32).map(|i| 100 - i).collect();
        assert_eq!(encode(&down, u32::MAX), None);
        // A misaligned base: 1 + 2i has the stride 2 but an odd base.
        let odd: Vec<u32> = (0..32).map(|i| 1 + 2 * i).collect();
        assert_eq!(encode(&odd, u32::MAX), None);
    }

    #[test]
    fn classes() {
        assert_eq!(class(&[0; 4], 0xf), Class::Zero);
        assert_eq!(class(&[0x3f80_0000; 4], 0xf), Class::Uniform);
        assert_eq!(class(&affine(4, 8, 3), 0xf), Class::Affine);
        assert_eq!(class(&[1, 5, 2, 7], 0xf), Class::Generic);
        assert_eq!(class(&[1, 5, 2, 7], 0), Class::Generic);
    }
}
