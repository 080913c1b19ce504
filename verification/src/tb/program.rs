//! Running a program on a processor design: which designs run programs and what sits on
//! their RoCC port, loading an ELF into a design's RAM, and the SoC bench configuration
//! for the design. `accelgen sim --program` and sweep program steps share these.

use crate::elf::{self, ElfError, Program, Ram};
use crate::tb::memory::MemConfig;
use crate::tb::soc::{self, SocConfig};
use std::path::{Path, PathBuf};

/// What sits on a processor design's RoCC port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accelerator {
    /// Nothing: the bench holds the port idle.
    None,
    Accumulator,
    /// A Hwacha vector unit with this many lanes, and with `memory = "l2"` the L2's banks
    /// and line bytes.
    Hwacha {
        lanes: u32,
        l2: Option<(u32, u32)>,
    },
}

/// Designs that run programs (those with a commit trace; `fgsimt` has its own bench,
/// `tb::fgsimt`, the others the tile's memory port).
const PROCESSORS: [&str; 5] = [
    "rocket",
    "rocket_accumulator",
    "rocket-hwacha",
    "fgsimt",
    "vgiw",
];

#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    #[error("loading {}: {err}", path.display())]
    Load { path: PathBuf, err: ElfError },
    #[error("loading {}: an RV{program} program for a design with xlen = {design}", path.display())]
    Xlen {
        path: PathBuf,
        program: u32,
        design: u32,
    },
}

/// Whether design `name` runs programs.
pub fn runs_programs(name: &str) -> bool {
    PROCESSORS.contains(&name)
}

/// What sits on the RoCC port of design `name` with elaborated parameters `params`, if
/// it runs programs.
pub fn accelerator(name: &str, params: &toml::Table) -> Option<Accelerator> {
    let int = |table: &str, key: &str| {
        let v = params.get(table).and_then(|t| t.get(key));
        v.and_then(|v| v.as_integer()).map(|v| v as u32)
    };
    let l2 = params.get("memory").and_then(|m| m.as_str()) == Some("l2");
    match name {
        "rocket" => Some(Accelerator::None),
        "rocket_accumulator" => Some(Accelerator::Accumulator),
        "rocket-hwacha" => Some(Accelerator::Hwacha {
            lanes: int("hwacha", "lanes").unwrap_or(1),
            l2: l2.then(|| {
                let default = generators::l2::L2Cache::default();
                let banks = int("l2", "banks").unwrap_or(default.banks);
                (banks, int("l2", "line_bytes").unwrap_or(default.line_bytes))
            }),
        }),
        _ => None,
    }
}

/// Loads the program at `path` for a design with elaborated parameters `params`: its
/// segments must lie in the design's RAM (`ram_base`, `ram_size`, at the top level or in
/// the `[rocket]` table), as the ISS requires, and its class (RV32 or RV64) must be the
/// design's `xlen` (64 when the design has none).
pub fn load(path: &Path, params: &toml::Table) -> Result<Program, ProgramError> {
    let tile = params
        .get("rocket")
        .and_then(|v| v.as_table())
        .unwrap_or(params);
    let field = |name: &str| {
        tile.get(name)
            .and_then(|v| v.as_integer())
            .map(|v| v as u64)
    };
    let ram = match (field("ram_base"), field("ram_size")) {
        (Some(base), Some(size)) => Ram { base, size },
        _ => Ram::DEFAULT,
    };
    load_in(path, ram, field("xlen").map_or(64, |x| x as u32))
}

/// Loads the program at `path` for a design with `ram` and `design` bits of xlen (design
/// `fgsimt`'s control processor: the default RAM, 32).
pub fn load_in(path: &Path, ram: Ram, design: u32) -> Result<Program, ProgramError> {
    let program = elf::load_file_in(path, ram).map_err(|err| ProgramError::Load {
        path: path.to_path_buf(),
        err,
    })?;
    if program.xlen.bits() != design {
        return Err(ProgramError::Xlen {
            path: path.to_path_buf(),
            program: program.xlen.bits(),
            design,
        });
    }
    Ok(program)
}

/// The SoC bench configuration for a design with `accel` on its RoCC port.
pub fn soc_config(accel: Accelerator, mem: MemConfig, max_cycles: u64) -> SocConfig {
    let config = match accel {
        Accelerator::Hwacha { lanes, l2: None } => soc::hwacha_config(lanes, mem),
        Accelerator::Hwacha {
            l2: Some((banks, line_bytes)),
            ..
        } => soc::hwacha_l2_config(banks, line_bytes, mem),
        _ => SocConfig {
            mem,
            idle_rocc: accel == Accelerator::None,
            ..SocConfig::default()
        },
    };
    SocConfig {
        max_cycles,
        ..config
    }
}
