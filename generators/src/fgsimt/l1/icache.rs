//! The FG-SIMT L1 I$ (seed 000, section 1.7, Figure 3): 16 KiB by default, blocking,
//! direct-mapped, 32-byte lines, one requester (the engine arbitrates the CP's and the
//! warp fetch in front of it).
//!
//! It is the Rocket tile's `Cache` (`rocket/cache.rs`) with one way and no uncached
//! region: a hit answers the cycle after the request and the next request is accepted in
//! that cycle, so an in-order fetch unit fetching one instruction per cycle streams at
//! one per cycle. The response is the naturally aligned doubleword holding the address
//! (the fetch unit takes its instruction by address bit 2); a miss refills the line with
//! four sequential doubleword reads on the 64-bit `mem` port (`rocket/bus.rs` shapes).
//! The requester ties `write` low; `invalidate` drops every line (a new program).

use crate::fgsimt::params::BLOCK_BYTES;
use crate::rocket::cache::cache;
use crate::rocket::params::CacheParams;
use hdl::{HdlErrors, Module};
use std::rc::Rc;

/// The I$ of `bytes` (also the VGIW control processor's): ports `cpu_req`/`cpu_resp`,
/// `mem_req`/`mem_resp`, `invalidate`.
pub fn icache(bytes: u32, sram_threshold_bits: u64) -> Result<Rc<Module>, HdlErrors> {
    let shape = CacheParams {
        sets: bytes / BLOCK_BYTES,
        ways: 1,
        line_bytes: BLOCK_BYTES,
        uncached_base: 0,
        uncached_size: 0,
        sram_threshold_bits,
        posted_writes: false,
    };
    cache("FgsimtIcache", &shape)
}
