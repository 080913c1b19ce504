//! iCE40: Yosys `synth_ice40`, `nextpnr-ice40` and `icepack`, and which of their cells
//! and bels are which resource. Debian's Yosys 0.23 and nextpnr 0.4 (one distribution's
//! matched pair; both read and write the same JSON netlist).

use crate::flow::Tools;
use crate::report::Resource;

pub(crate) const TOOLS: Tools = Tools {
    yosys: "yosys",
    synth: "synth_ice40",
    nextpnr: "nextpnr-ice40",
    constraints_flag: "--pcf",
    unconstrained_flag: "--pcf-allow-unconstrained",
    placed_flag: "--asc",
    placed_ext: "asc",
    packer: "icepack",
    bitstream_ext: "bin",
    cell,
    bel,
};

/// The resource a cell of `synth_ice40`'s netlist uses, and how many.
fn cell(ty: &str) -> Option<(Resource, u64)> {
    match ty {
        "SB_LUT4" => Some((Resource::Lut, 1)),
        "SB_RAM40_4K" => Some((Resource::Bram, 1)),
        "SB_MAC16" => Some((Resource::Dsp, 1)),
        t if t.starts_with("SB_DFF") => Some((Resource::Flop, 1)),
        _ => None,
    }
}

/// The nextpnr-ice40 bel type counting a resource in its utilization report. Flip-flops
/// have none (they live in `ICESTORM_LC`s with the LUTs): they are Yosys's count.
fn bel(r: Resource) -> Option<&'static str> {
    match r {
        Resource::Lut => Some("ICESTORM_LC"),
        Resource::Flop => None,
        Resource::Bram => Some("ICESTORM_RAM"),
        Resource::Dsp => Some("ICESTORM_DSP"),
        Resource::Io => Some("SB_IO"),
    }
}
