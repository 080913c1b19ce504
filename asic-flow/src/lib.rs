//! `asic-flow`: runners for the external EDA tools that check generated Verilog, and the
//! ASIC flow steps: synthesis (Yosys) and static timing analysis (OpenSTA).

pub mod fakeram;
pub mod fusesoc;
pub mod liberty;
pub mod lint;
pub mod measured;
pub mod orfs;
pub mod sdc;
pub mod sta;
pub mod sweep;
pub mod synth;
