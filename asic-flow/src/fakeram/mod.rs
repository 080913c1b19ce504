//! Fakeram: stand-in SRAM macro views in the manner of bsg_fakeram
//! (github.com/bespoke-silicon-group/bsg_fakeram), so that synthesis, timing and an
//! OpenROAD floorplan can treat every SRAM macro of a generated design as a black box with
//! a plausible size, pin placement and timing. One shape of `sram_macros.json` gives one
//! Liberty view (`liberty`, in `liberty.rs`) and one LEF view (`lef`, in `lef.rs`), both
//! computed from one model (`model.rs`, which documents its constants per technology).
//!
//! Pin names are those of the behavioural models `accelgen generate` emits (`sram_*.v`):
//! `clock`; per read port `R<i>_en`, `R<i>_addr`, `R<i>_data`; per write port `W<i>_en`,
//! `W<i>_addr`, `W<i>_data` and `W<i>_mask` (one bit per `mask_gran` data bits, present only
//! when `mask_gran` is less than the width); per read-write port (which the emitter does not
//! produce yet; named as Chisel's SRAM macros name them) `RW<i>_en`, `RW<i>_wmode`,
//! `RW<i>_addr`, `RW<i>_wdata`, `RW<i>_rdata` and `RW<i>_wmask`. Ports of each kind are
//! numbered from 0 in the order they are listed.

mod lef;
mod liberty;
mod model;

pub use lef::lef;
pub use liberty::liberty;
pub use model::{Geometry, PinBit, Timing};

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The technologies fakeram views can be made for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tech {
    /// FreePDK45 with the Nangate Open Cell Library (ORFS platform `nangate45`).
    Nangate45,
    /// SkyWater 130 nm, high-density cells (ORFS platform `sky130hd`).
    Sky130hd,
}

impl Tech {
    pub const ALL: [Tech; 2] = [Tech::Nangate45, Tech::Sky130hd];

    /// The technology of a standard-cell Liberty file, from its `library (NAME)` name.
    pub fn from_liberty_name(name: &str) -> Option<Tech> {
        let name = name.trim().trim_matches('"');
        if name.starts_with("NangateOpenCellLibrary") {
            Some(Tech::Nangate45)
        } else if name.starts_with("sky130_fd_sc_hd") {
            Some(Tech::Sky130hd)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tech::Nangate45 => "nangate45",
            Tech::Sky130hd => "sky130hd",
        }
    }
}

impl fmt::Display for Tech {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Tech {
    type Err = FakeramError;

    fn from_str(s: &str) -> Result<Tech, FakeramError> {
        Tech::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| FakeramError::UnknownTech(s.to_string()))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FakeramError {
    #[error("unknown technology {0:?} (known: nangate45, sky130hd)")]
    UnknownTech(String),
    #[error("cannot read {}: {source} (expected the output directory of `accelgen generate`)", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: invalid SRAM macro list: {source}", path.display())]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{}: SRAM macro {name:?}: {reason}", path.display())]
    Invalid {
        path: PathBuf,
        name: String,
        reason: String,
    },
}

/// What a macro port does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PortKind {
    Read,
    Write,
    ReadWrite,
}

/// One port of an SRAM macro.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct MacroPort {
    pub kind: PortKind,
    /// Write and read-write ports: data bits per mask bit (absent or the width: unmasked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_gran: Option<u32>,
}

/// One entry of `sram_macros.json`: an SRAM macro's name and shape.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct MacroShape {
    pub name: String,
    pub depth: u64,
    pub width: u32,
    pub ports: Vec<MacroPort>,
}

/// Direction of a macro pin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PinDir {
    Input,
    Output,
}

/// A pin or bus of a macro, as its Verilog model declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    pub name: String,
    pub dir: PinDir,
    /// Bits; 1 is a scalar pin, more a bus `[width-1:0]`.
    pub width: u32,
}

impl MacroShape {
    /// Address bits (at least 1), as the emitter computes them.
    pub fn addr_width(&self) -> u32 {
        (64 - (self.depth.max(2) - 1).leading_zeros()).max(1)
    }

    /// Total storage bits.
    pub fn bits(&self) -> u64 {
        self.depth * u64::from(self.width)
    }

    /// Mask bits of a write or read-write port (0: unmasked).
    fn mask_bits(&self, port: &MacroPort) -> u32 {
        match port.mask_gran {
            Some(g) if g > 0 && g < self.width => self.width / g,
            _ => 0,
        }
    }

    /// Every pin, `clock` first, then the ports' pins in Verilog declaration order (reads,
    /// then writes, then read-writes).
    pub fn pins(&self) -> Vec<Pin> {
        let pin = |name: String, dir, width| Pin { name, dir, width };
        let (a, w) = (self.addr_width(), self.width);
        let mut pins = vec![pin("clock".into(), PinDir::Input, 1)];
        let of_kind = |k| self.ports.iter().filter(move |p| p.kind == k).enumerate();
        for (i, _) in of_kind(PortKind::Read) {
            pins.push(pin(format!("R{i}_en"), PinDir::Input, 1));
            pins.push(pin(format!("R{i}_addr"), PinDir::Input, a));
            pins.push(pin(format!("R{i}_data"), PinDir::Output, w));
        }
        for (i, p) in of_kind(PortKind::Write) {
            pins.push(pin(format!("W{i}_en"), PinDir::Input, 1));
            pins.push(pin(format!("W{i}_addr"), PinDir::Input, a));
            pins.push(pin(format!("W{i}_data"), PinDir::Input, w));
            if self.mask_bits(p) > 0 {
                pins.push(pin(format!("W{i}_mask"), PinDir::Input, self.mask_bits(p)));
            }
        }
        for (i, p) in of_kind(PortKind::ReadWrite) {
            pins.push(pin(format!("RW{i}_en"), PinDir::Input, 1));
            pins.push(pin(format!("RW{i}_wmode"), PinDir::Input, 1));
            pins.push(pin(format!("RW{i}_addr"), PinDir::Input, a));
            pins.push(pin(format!("RW{i}_wdata"), PinDir::Input, w));
            pins.push(pin(format!("RW{i}_rdata"), PinDir::Output, w));
            if self.mask_bits(p) > 0 {
                pins.push(pin(
                    format!("RW{i}_wmask"),
                    PinDir::Input,
                    self.mask_bits(p),
                ));
            }
        }
        pins
    }

    /// Why this shape cannot be modelled, if it cannot.
    fn check(&self) -> Result<(), String> {
        if !crate::lint::is_identifier(&self.name) {
            return Err("the name is not a Verilog identifier".into());
        }
        if self.depth == 0 || self.width == 0 {
            return Err(format!("empty shape {}x{}", self.depth, self.width));
        }
        if self.ports.is_empty() {
            return Err("no ports".into());
        }
        for p in &self.ports {
            match (p.kind, p.mask_gran) {
                (PortKind::Read, Some(_)) => return Err("a read port with a write mask".into()),
                (_, Some(g)) if g == 0 || !self.width.is_multiple_of(g) => {
                    return Err(format!(
                        "mask granularity {g} does not divide the width {}",
                        self.width
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Where `accelgen generate` writes a macro's view in its output directory:
/// `fakeram/<tech>/<name>.<ext>` (`ext` is `lib` or `lef`).
pub fn view_path(name: &str, tech: Tech, ext: &str) -> String {
    format!("fakeram/{tech}/{name}.{ext}")
}

/// The SRAM macros of a generated design: `DIR/sram_macros.json`, checked.
pub fn read_macros(dir: &Path) -> Result<Vec<MacroShape>, FakeramError> {
    let path = dir.join("sram_macros.json");
    let text = std::fs::read_to_string(&path).map_err(|source| FakeramError::Read {
        path: path.clone(),
        source,
    })?;
    let shapes: Vec<MacroShape> =
        serde_json::from_str(&text).map_err(|source| FakeramError::Parse {
            path: path.clone(),
            source,
        })?;
    for s in &shapes {
        s.check().map_err(|reason| FakeramError::Invalid {
            path: path.clone(),
            name: s.name.clone(),
            reason,
        })?;
    }
    Ok(shapes)
}
