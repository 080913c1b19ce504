//! Binary interchange formats (IEEE 754-2008 section 3.4) as a struct of field widths,
//! so that binary16, binary32 and binary64 are values of one type and others (bfloat16)
//! fall out. `sig_bits` counts the hidden bit, as Berkeley HardFloat's `sigWidth` does.

use crate::ParamError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FloatFormat {
    /// Exponent field width.
    pub exp_bits: u32,
    /// Significand precision p: the fraction field plus the hidden bit.
    pub sig_bits: u32,
}

pub const HALF: FloatFormat = FloatFormat {
    exp_bits: 5,
    sig_bits: 11,
};
pub const SINGLE: FloatFormat = FloatFormat {
    exp_bits: 8,
    sig_bits: 24,
};
pub const DOUBLE: FloatFormat = FloatFormat {
    exp_bits: 11,
    sig_bits: 53,
};
pub const BFLOAT16: FloatFormat = FloatFormat {
    exp_bits: 8,
    sig_bits: 8,
};

/// The formats a parameter may name, by their RISC-V suffix and IEEE name.
const NAMED: [(&str, &str, FloatFormat); 4] = [
    ("h", "binary16", HALF),
    ("s", "binary32", SINGLE),
    ("d", "binary64", DOUBLE),
    ("bf16", "bfloat16", BFLOAT16),
];

impl FloatFormat {
    /// A format of the given field widths; the exponent of the smallest subnormal must be
    /// representable in `exp_bits + 2` signed bits (every unit's unpacked exponent) and
    /// the whole encoding fit 64 bits.
    pub fn new(exp_bits: u32, sig_bits: u32) -> Result<FloatFormat, ParamError> {
        if !(2..=15).contains(&exp_bits) {
            return Err(ParamError::new(
                "exp_bits",
                format!("is {exp_bits}; accepted: 2..=15"),
            ));
        }
        if sig_bits < 2 || exp_bits + sig_bits > 64 {
            return Err(ParamError::new(
                "sig_bits",
                format!("is {sig_bits}; accepted: 2..={} with {exp_bits} exponent bits (64-bit encodings at most)", 64 - exp_bits),
            ));
        }
        let f = FloatFormat { exp_bits, sig_bits };
        if f.emin() - (sig_bits as i64 - 1) < -(1i64 << (exp_bits + 1)) {
            return Err(ParamError::new(
                "sig_bits",
                format!("is {sig_bits}: subnormals of {exp_bits} exponent bits would need a wider unpacked exponent"),
            ));
        }
        Ok(f)
    }

    /// The format named `h`/`s`/`d`/`bf16` or `binary16`/`binary32`/`binary64`/`bfloat16`.
    pub fn by_name(name: &str) -> Option<FloatFormat> {
        NAMED
            .iter()
            .find(|(short, long, _)| *short == name || *long == name)
            .map(|n| n.2)
    }

    /// The IEEE name of a named format, else `e<exp_bits>m<sig_bits>`.
    pub fn name(self) -> String {
        NAMED
            .iter()
            .find(|n| n.2 == self)
            .map(|n| n.1.to_string())
            .unwrap_or_else(|| format!("e{}m{}", self.exp_bits, self.sig_bits))
    }

    /// Encoding width.
    pub fn width(self) -> u32 {
        1 + self.exp_bits + self.sig_bits - 1
    }

    /// Fraction field width.
    pub fn frac_bits(self) -> u32 {
        self.sig_bits - 1
    }

    pub fn bias(self) -> i64 {
        (1 << (self.exp_bits - 1)) - 1
    }

    /// Exponent of the smallest normal numbers (and of the subnormals' last place plus
    /// `frac_bits`).
    pub fn emin(self) -> i64 {
        1 - self.bias()
    }

    /// Exponent of the largest finite numbers.
    pub fn emax(self) -> i64 {
        self.bias()
    }

    /// Width of the signed unpacked exponent every unit uses: holds the smallest
    /// subnormal's normalized exponent and `emax + 1`.
    pub fn exp_width(self) -> u32 {
        self.exp_bits + 2
    }

    /// RISC-V's canonical NaN: positive, quiet, fraction `10...0`.
    pub fn canonical_nan(self) -> u64 {
        let exp = (1u64 << self.exp_bits) - 1;
        exp << self.frac_bits() | 1 << (self.frac_bits() - 1)
    }

    /// The encoding of `sign`, biased exponent `exp` and fraction `frac`.
    pub fn pack(self, sign: bool, exp: u64, frac: u64) -> u64 {
        (sign as u64) << (self.width() - 1)
            | (exp & ((1 << self.exp_bits) - 1)) << self.frac_bits()
            | frac & ((1 << self.frac_bits()) - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ieee_formats_have_their_standard_parameters() {
        for (f, w, bias, nan) in [
            (HALF, 16, 15, 0x7e00),
            (SINGLE, 32, 127, 0x7fc0_0000),
            (DOUBLE, 64, 1023, 0x7ff8_0000_0000_0000),
            (BFLOAT16, 16, 127, 0x7fc0),
        ] {
            assert_eq!((f.width(), f.bias(), f.canonical_nan()), (w, bias, nan));
            assert_eq!(FloatFormat::new(f.exp_bits, f.sig_bits), Ok(f));
            assert_eq!(FloatFormat::by_name(&f.name()), Some(f));
        }
        assert_eq!(FloatFormat::by_name("d"), Some(DOUBLE));
        assert_eq!(FloatFormat::by_name("quad"), None);
    }

    #[test]
    fn formats_beyond_64_bits_or_tiny_exponents_are_refused() {
        assert!(FloatFormat::new(15, 64).is_err());
        assert!(FloatFormat::new(1, 10).is_err());
        assert!(FloatFormat::new(8, 1).is_err());
        // Three exponent bits cannot hold the normalized exponent of 40-bit subnormals.
        assert!(FloatFormat::new(3, 40).is_err());
    }
}
