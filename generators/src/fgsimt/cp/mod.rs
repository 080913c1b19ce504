//! The control processor's engine side (seed 000, Figure 3): `frontend.rs` (warp fetch,
//! decode, jumps and branch updates) with `kernel_state.rs` (RoCC commands, warp
//! counter), `pwfb.rs` (AWFR and PWFB), `contexts.rs` (with `warps` > 1: a PWFB per warp context and the
//! context switch), `affine_alu.rs` (the affine ALU and stride unit), `asrf.rs` (the ASRF),
//! `classify.rs` (what +a does with each instruction) and `shared_load.rs` with
//! `shared_load_cache.rs` (loads on a uniform address).

pub mod affine_alu;
pub mod asrf;
pub mod branch_directory;
pub mod classify;
pub mod contexts;
pub mod frontend;
pub mod kernel_state;
pub mod pwfb;
pub mod shared_load;
pub mod shared_load_cache;
pub mod warp_sequencer;
