//! `fpga`: FPGA prototyping of generated designs on iCE40 and ECP5 (Yosys, nextpnr and
//! the bitstream packers), with utilization and Fmax against the device's capacity.

pub mod board;
pub mod device;
mod ecp5;
pub mod flow;
mod ice40;
mod netlist;
mod pnr;
pub mod report;
mod tool;
pub mod wrapper;
