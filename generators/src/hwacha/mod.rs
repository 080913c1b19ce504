//! `hwacha`: the Hwacha decoupled vector-fetch unit of Lee's thesis, chapter 8, on the
//! `hdl` IR. Folders mirror Figure 8.2; one file per block, named as in the thesis.
//!
//! - `params.rs`: the parameters (thesis Table 8.7 names).
//! - `master.rs`: the master sequencer (Figure 8.8): slots, dependences, retirement.
//! - `lane/`: one lane (`mod.rs`): the lane sequencer (`sequencer.rs`), the vector
//!   execution unit (Figures 8.6, 8.7, 8.9: the expander `expander.rs`, the banks
//!   `bank.rs` with 1R1W SRAM, predicate RF, operand latches, ALU `alu.rs`, PLU `plu.rs`,
//!   bank read/write queues; the IMul on the operand crossbar `imul.rs`; their top
//!   `vxu.rs`), and the lane's side of the VMU (`memory.rs`); `uop.rs` has the control
//!   words.
//! - `vmu/`: the vector memory unit of a lane (Figure 8.10).
//! - `vector_unit.rs`: master sequencer and lanes; `vdecode.rs`: the master sequencer's
//!   decode of issued instructions; `unit.rs`: the whole unit (`Hwacha`: frontend,
//!   decode, vector side); `soc.rs`: design `rocket-hwacha` (tile + unit).
//! - `rocc.rs`: the RoCC unit (Table 8.1): control-thread commands, vcfg/vlen/maxvl, the
//!   VCMDQ.
//! - `scalar/`: the scalar unit (Figure 8.4, Table 8.2): pipeline and register files
//!   (`mod.rs`), the table-generated decoder with the legality rules (`decode.rs`), the
//!   scalar memory unit (`smu.rs`), and `frontend.rs`, the `HwachaFrontend` top of RoCC
//!   unit and scalar unit; the vector I$ is the rocket `Cache`.
//!
//! # Element layout (the contract every block shares)
//! With L lanes, B banks and S = bank_width/64 slices, a strip is B*S elements (8 by
//! default). Global element `e` lives in lane `(e / strip) % L` (a lane stride of one
//! strip, Figure 8.11) as lane-local element `k = (e / (strip*L)) * strip + e % strip`.
//! Lane-local element `k` is in lane-local strip `k / strip`, bank `(k % strip) / S`,
//! slice `k % S`: the S elements of a bank entry are consecutive, so a 128-bit entry of
//! 64-bit elements is one 128-bit memory beat of a unit-stride access.
//!
//! Vector data register `r` (of `n = max(#vv, 1)` configured) holds lane-local strip `s`
//! in bank row `s * n + r`; predicate register `p` (of `np = max(#vp, 1)`) in predicate row
//! `s * np + p` (the thesis's striped mapping: a register's strips are a constant stride
//! apart). The golden model's maxvl rule keeps every row inside the bank.

pub mod lane;
pub mod master;
pub mod params;
pub mod rocc;
pub mod scalar;
pub mod soc;
pub mod unit;
pub mod vdecode;
pub mod vector_unit;
pub mod vmu;
pub mod vru;
