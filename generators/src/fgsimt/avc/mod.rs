//! The affine vector cache of seed 002 (Collange and Kouyoumdjian, 2011, Figures 3-4 and
//! section 5.2; spec `002-affine-vector-cache.md`), a parameter of the FG-SIMT engine.
//! Blocks, one file each:
//! - `decode.rs`: the decoder, (base, stride code) to a warp's vector of words.
//! - `encode.rs`: the encoder, a warp's vector and activity mask to (base, stride code)
//!   when the active threads' words are affine with a power-of-two stride.
//!
//! The golden model is `verification::fgsimt::avc`, whose `codec.rs` settles the
//! paper's ambiguities (the stride code, the stride estimate, the pairs, the base's
//! alignment) for both.

pub mod arrays;
pub mod controller;
pub mod decode;
pub mod encode;
pub mod params;
pub mod plru;

/// Bits of a word (the paper's vectors are of 32-bit words).
pub const WORD: u32 = 32;

/// Bits of the stride code: 0 for a uniform vector, c for the stride 2^(c - 1).
pub const CODE_BITS: u32 = 3;

/// The largest stride exponent a code holds (strides 1 to 64).
pub const SIGMA_MAX: u32 = (1 << CODE_BITS) - 2;

use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::{HdlErrors, Module};
use std::rc::Rc;

/// The design `avc`: the AVC and L1 pair alone (`controller.rs`), for synthesis, lint
/// and sweeps of the paper's Table 3 configurations (`configs/avc-table3-*.toml`).
pub struct Avc;

impl Generator for Avc {
    type Params = params::AvcParams;
    const NAME: &'static str = "avc";
    const DESCRIPTION: &'static str =
        "affine vector cache beside an L1 with word valid bits (seed 002, Algorithms 1-2)";

    fn params() -> Vec<Param> {
        params::params()
    }

    fn validate(p: &params::AvcParams) -> Result<(), ParamError> {
        p.validate()
    }

    fn build(p: &params::AvcParams) -> Result<Rc<Module>, HdlErrors> {
        controller::controller(p)
    }
}
