//! The affine vector cache of seed 002 (Collange and Kouyoumdjian, 2011; spec
//! `002-affine-vector-cache.md`): a cache beside the L1 that holds a warp's vector of
//! private words as (base, stride code) when the active threads' words are affine with a
//! power-of-two stride.
//! - `codec.rs`: its encode and decode units (paper section 5.2).
//! - `controller.rs`: the AVC and L1 pair's transactions (Algorithms 1 and 2).
//! - `plru.rs`: tree pseudo-LRU replacement for any number of ways.
//! - `private.rs`: a kernel's private-memory accesses as AVC transactions.

pub mod codec;
pub mod controller;
pub mod plru;
pub mod private;
