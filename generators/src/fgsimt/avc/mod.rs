//! The affine vector cache of seed 002 (Collange and Kouyoumdjian, 2011, Figures 3-4 and
//! section 5.2; spec `002-affine-vector-cache.md`): today the design `avc` alone, to
//! become a parameter of the FG-SIMT engine. Blocks, one file each:
//! - `controller.rs`: the AVC and the L1 beside it (Figure 3, Algorithms 1 and 2).
//! - `arrays.rs`: their tag, vector, meta and data arrays, one of each a way.
//! - `../plru.rs`: tree pseudo-LRU replacement for any number of ways (shared with the D$).
//! - `decode.rs`: the decoder, (base, stride code) to a warp's vector of words.
//! - `encode.rs`: the encoder, a warp's vector and activity mask to (base, stride code)
//!   when the active threads' words are affine with a power-of-two stride.
//! - `params.rs`: the parameters and the address split (Table 3, Figure 4).
//!
//! The golden model is `verification::fgsimt::avc`: `codec.rs` settles the paper's
//! ambiguities of the units (the stride code, the stride estimate, the pairs, the
//! base's alignment) and `controller.rs` those of the algorithms.

pub mod arrays;
pub mod controller;
pub mod decode;
pub mod encode;
pub mod params;

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
