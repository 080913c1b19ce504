//! The FPGA flow's report: each resource used against the device's capacity, the Fmax
//! nextpnr achieved against the requested frequency, and Yosys's cell counts; as JSON
//! (`report.json`) and as a text table.

use crate::device::Family;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// A kind of FPGA resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    Lut,
    Flop,
    Bram,
    Dsp,
    Io,
}

impl Resource {
    pub const ALL: [Resource; 5] = [
        Resource::Lut,
        Resource::Flop,
        Resource::Bram,
        Resource::Dsp,
        Resource::Io,
    ];

    /// Its name on `family`, as errors and tables say it.
    pub fn name(self, family: Family) -> &'static str {
        match (self, family) {
            (Resource::Lut, Family::Ice40) => "LUT4 logic cells",
            (Resource::Lut, Family::Ecp5) => "LUT4",
            (Resource::Flop, _) => "flip-flops",
            (Resource::Bram, Family::Ice40) => "SB_RAM40_4K block RAMs",
            (Resource::Bram, Family::Ecp5) => "DP16KD block RAMs",
            (Resource::Dsp, Family::Ice40) => "SB_MAC16 DSPs",
            (Resource::Dsp, Family::Ecp5) => "MULT18X18D multipliers",
            (Resource::Io, _) => "I/O pins",
        }
    }
}

/// A resource's use and the device's (or package's, for I/O) capacity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub used: u64,
    pub available: u64,
}

impl Usage {
    pub fn percent(self) -> f64 {
        if self.available == 0 {
            0.0
        } else {
            100.0 * self.used as f64 / self.available as f64
        }
    }
}

/// What placing and routing one design on one device gave.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FpgaReport {
    pub family: Family,
    /// accelgen's device name (`up5k`, `85k`).
    pub device: String,
    /// The vendor's part name (`iCE40UP5K`, `LFE5U-85F`).
    pub part: String,
    pub package: String,
    /// The module placed: the design's top, or the estimate wrapper around it.
    pub top: String,
    /// The design's top module.
    pub design_top: String,
    /// Whether the estimate wrapper was used (no constraints file): its cost, one
    /// flip-flop per design input and output bit plus one and the output XOR tree, is
    /// included.
    pub wrapped: bool,
    /// The design top's I/O bits, which a package would have to carry without the
    /// wrapper (none when the manifest does not list the top's ports).
    pub design_io_bits: Option<u64>,
    /// LUT4s: iCE40 logic cells (`ICESTORM_LC`, LUT4 + flip-flop + carry), ECP5 LUT4s
    /// (`TRELLIS_COMB`, carry halves included), after packing.
    pub luts: Usage,
    /// Flip-flops (iCE40: Yosys's `SB_DFF*` cells, nextpnr reports none separately;
    /// ECP5: `TRELLIS_FF` after packing).
    pub flops: Usage,
    /// Block RAMs: `SB_RAM40_4K` (iCE40), `DP16KD` (ECP5).
    pub bram: Usage,
    /// DSPs: `SB_MAC16` (iCE40), `MULT18X18D` (ECP5).
    pub dsp: Usage,
    /// I/O pins used against the package's user I/O.
    pub io: Usage,
    /// The frequency asked of nextpnr.
    pub freq_mhz: f64,
    /// The achieved Fmax of the design's clock (the lowest over clocks); none for a
    /// design without a clocked path.
    pub fmax_mhz: Option<f64>,
    pub timing_met: bool,
    /// The cells of Yosys's mapped netlist, by type.
    pub synth_cells: BTreeMap<String, u64>,
    /// The bitstream's file name.
    pub bitstream: String,
}

impl FpgaReport {
    pub fn usage(&self, r: Resource) -> Usage {
        match r {
            Resource::Lut => self.luts,
            Resource::Flop => self.flops,
            Resource::Bram => self.bram,
            Resource::Dsp => self.dsp,
            Resource::Io => self.io,
        }
    }

    /// The report as a text table.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{} on {} {} ({}, {})",
            self.design_top, self.family, self.device, self.part, self.package
        );
        let _ = writeln!(
            t,
            "  {:<10} {:>9} {:>10} {:>6}",
            "resource", "used", "available", "util"
        );
        for r in Resource::ALL {
            let u = self.usage(r);
            let name = match r {
                Resource::Lut => "LUT4",
                Resource::Flop => "flip-flop",
                Resource::Bram => "BRAM",
                Resource::Dsp => "DSP",
                Resource::Io => "I/O",
            };
            let _ = writeln!(
                t,
                "  {name:<10} {:>9} {:>10} {:>5.1}%",
                thousands(u.used),
                thousands(u.available),
                u.percent()
            );
        }
        let fmax = match self.fmax_mhz {
            Some(f) => format!("{f:.1} MHz"),
            None => "none (no clocked path)".to_string(),
        };
        let verdict = if self.timing_met { "met" } else { "NOT met" };
        let _ = writeln!(
            t,
            "  Fmax {fmax} (requested {:.1} MHz: {verdict})",
            self.freq_mhz
        );
        if let (true, Some(bits)) = (self.wrapped, self.design_io_bits) {
            let _ = writeln!(
                t,
                "  no constraints: estimate wrapper {} around {} ({} I/O bits, the package has {})",
                self.top,
                self.design_top,
                thousands(bits),
                self.io.available
            );
        }
        let _ = writeln!(t, "  bitstream {}", self.bitstream);
        t
    }
}

/// `n` with a comma every three digits: 14,101.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_digits() {
        assert_eq!(super::thousands(14101), "14,101");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1_000_000), "1,000,000");
    }
}
