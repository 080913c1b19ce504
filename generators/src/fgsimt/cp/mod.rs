//! The control processor's engine side (seed 000, Figure 3): `frontend.rs` (warp fetch,
//! decode, jumps and branch updates) with `kernel_state.rs` (RoCC commands, warp
//! counter), `pwfb.rs` (AWFR and PWFB), `affine_alu.rs` (the affine ALU and stride unit).

pub mod affine_alu;
pub mod frontend;
pub mod kernel_state;
pub mod pwfb;
