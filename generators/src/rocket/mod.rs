//! `rocket`: a Rocket-like in-order five-stage RV64IMA control processor (machine mode,
//! Zicsr, Zifencei) with a RoCC accelerator port, L1 caches or a direct memory port, and
//! a commit trace port for lockstep checking against the ISS.
//!
//! Block diagram, one file per block:
//! - `tile.rs`: the top (design `rocket`): core, multiply/divide unit, caches or direct
//!   paths, and the arbiter onto the one outer memory port.
//! - `core.rs`: the pipeline (IF, ID, EX, MEM, WB) with bypassing, load-use interlock and
//!   branch resolution in EX; `decode.rs`, `alu.rs`, `csr.rs`, `bpred.rs`, `rocc.rs`.
//! - `muldiv.rs`, `cache.rs`, `mem_arbiter.rs`.
//! - `bus.rs`: interface shapes; `params.rs`: the parameters.

pub mod bus;
pub mod params;
