//! FPGA families and devices with their capacities, from the vendors' datasheets: the
//! numbers a design's utilization is measured against.
//!
//! iCE40 (Lattice DS1040 iCE40 LP/HX, DS1056 iCE40 UltraPlus): one logic cell is one LUT4
//! and one flip-flop; block RAM is the 4-kbit `SB_RAM40_4K`; DSP the `SB_MAC16` (UltraPlus
//! only). ECP5 (Lattice FPGA-DS-02012 ECP5/ECP5-5G, table 1.1): LUT4 and flip-flops are
//! equal in number (two of each per slice); block RAM the 18-kbit `DP16KD`; DSP counted as
//! 18x18 multipliers (`MULT18X18D`). User I/O per package from the same datasheets' pinout
//! tables.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// An FPGA family accelgen targets, each with its Yosys `synth_*` script and nextpnr.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Ice40,
    Ecp5,
}

impl Family {
    pub const ALL: [Family; 2] = [Family::Ice40, Family::Ecp5];

    pub fn name(self) -> &'static str {
        match self {
            Family::Ice40 => "ice40",
            Family::Ecp5 => "ecp5",
        }
    }

    /// The clock asked of place and route when none is given: the oscillator of the
    /// family's common boards (iCEBreaker and iCEstick 12 MHz, ULX3S 25 MHz).
    pub fn default_freq_mhz(self) -> f64 {
        match self {
            Family::Ice40 => 12.0,
            Family::Ecp5 => 25.0,
        }
    }

    /// The family's devices, smallest first.
    pub fn devices(self) -> impl Iterator<Item = &'static Device> {
        DEVICES.iter().filter(move |d| d.family == self)
    }

    /// The device used when none is named: the family's largest, for an estimate.
    pub fn default_device(self) -> &'static Device {
        self.devices().last().expect("every family has devices")
    }

    /// The family's device called `name` (e.g. `up5k`, `85k`).
    pub fn device(self, name: &str) -> Result<&'static Device, UnknownName> {
        self.devices()
            .find(|d| d.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| UnknownName {
                what: "device",
                name: name.to_string(),
                family: Some(self),
                known: self
                    .devices()
                    .map(|d| d.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Family, UnknownName> {
        Family::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName {
                what: "FPGA family",
                name: s.to_string(),
                family: None,
                known: "ice40, ecp5".to_string(),
            })
    }
}

/// An unknown family, device or package name, with the names that exist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{name}`{} (known: {known})", family.map(|f| format!(" for {f}")).unwrap_or_default())]
pub struct UnknownName {
    pub what: &'static str,
    pub name: String,
    pub family: Option<Family>,
    pub known: String,
}

/// A device of a family, with its resources.
#[derive(Debug, PartialEq, Eq)]
pub struct Device {
    pub family: Family,
    /// The name accelgen uses (`--device`), e.g. `up5k`, `85k`.
    pub name: &'static str,
    /// The nextpnr option selecting it, e.g. `--up5k`.
    pub nextpnr_flag: &'static str,
    /// The vendor's part name, for reports.
    pub part: &'static str,
    pub luts: u64,
    pub flops: u64,
    /// Block RAMs: `SB_RAM40_4K` (4 kbit) on iCE40, `DP16KD` (18 kbit) on ECP5.
    pub bram: u64,
    /// `SB_MAC16` on iCE40, 18x18 multipliers on ECP5.
    pub dsp: u64,
    /// Packages, the first the default, with their user I/O count.
    pub packages: &'static [(&'static str, u64)],
}

impl Device {
    /// The package called `name`, or the device's default one, with its user I/O count.
    pub fn package(&self, name: Option<&str>) -> Result<(&'static str, u64), UnknownName> {
        let Some(name) = name else {
            return Ok(self.packages[0]);
        };
        self.packages
            .iter()
            .find(|(p, _)| p.eq_ignore_ascii_case(name))
            .copied()
            .ok_or_else(|| UnknownName {
                what: "package",
                name: name.to_string(),
                family: Some(self.family),
                known: format!(
                    "{} for the {}",
                    self.packages
                        .iter()
                        .map(|(p, _)| *p)
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.name
                ),
            })
    }
}

/// Every device, per family smallest first.
pub const DEVICES: &[Device] = &[
    Device {
        family: Family::Ice40,
        name: "hx1k",
        nextpnr_flag: "--hx1k",
        part: "iCE40HX1K",
        luts: 1280,
        flops: 1280,
        bram: 16,
        dsp: 0,
        packages: &[("tq144", 96), ("vq100", 72), ("cb132", 95)],
    },
    Device {
        family: Family::Ice40,
        name: "up5k",
        nextpnr_flag: "--up5k",
        part: "iCE40UP5K",
        luts: 5280,
        flops: 5280,
        bram: 30,
        dsp: 8,
        packages: &[("sg48", 39), ("uwg30", 21)],
    },
    Device {
        family: Family::Ice40,
        name: "hx8k",
        nextpnr_flag: "--hx8k",
        part: "iCE40HX8K",
        luts: 7680,
        flops: 7680,
        bram: 32,
        dsp: 0,
        packages: &[("ct256", 206), ("cb132", 95), ("tq144", 107)],
    },
    Device {
        family: Family::Ecp5,
        name: "25k",
        nextpnr_flag: "--25k",
        part: "LFE5U-25F",
        luts: 24288,
        flops: 24288,
        bram: 56,
        dsp: 28,
        packages: &[
            ("CABGA381", 197),
            ("CABGA256", 197),
            ("CSFBGA285", 118),
            ("TQFP144", 98),
        ],
    },
    Device {
        family: Family::Ecp5,
        name: "45k",
        nextpnr_flag: "--45k",
        part: "LFE5U-45F",
        luts: 43848,
        flops: 43848,
        bram: 108,
        dsp: 72,
        packages: &[
            ("CABGA381", 203),
            ("CABGA256", 197),
            ("CABGA554", 245),
            ("CSFBGA285", 118),
            ("TQFP144", 98),
        ],
    },
    Device {
        family: Family::Ecp5,
        name: "85k",
        nextpnr_flag: "--85k",
        part: "LFE5U-85F",
        luts: 83640,
        flops: 83640,
        bram: 208,
        dsp: 156,
        packages: &[
            ("CABGA381", 205),
            ("CABGA554", 259),
            ("CABGA756", 365),
            ("CSFBGA285", 118),
        ],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_ones_list_the_known() {
        assert_eq!("ECP5".parse::<Family>(), Ok(Family::Ecp5));
        assert_eq!(Family::Ice40.to_string(), "ice40");
        let e = "xc7".parse::<Family>().unwrap_err().to_string();
        assert_eq!(e, "unknown FPGA family `xc7` (known: ice40, ecp5)");
        let e = Family::Ice40.device("85k").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown device `85k` for ice40 (known: hx1k, up5k, hx8k)"
        );
        let up5k = Family::Ice40.device("UP5K").unwrap();
        assert_eq!(up5k.package(None), Ok(("sg48", 39)));
        let e = up5k.package(Some("ct256")).unwrap_err().to_string();
        assert!(
            e.contains("unknown package `ct256` for ice40 (known: sg48, uwg30"),
            "{e}"
        );
    }
}
