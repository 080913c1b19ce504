//! Board builds: a processor design's board top (`generators::board`) with a program
//! preloaded into its block RAM, the board's pin-level wrapper and its constraints,
//! ready for the FPGA flow (`fpga::flow`) to synthesise, place and pack.
//!
//! - `image.rs`: the ELF's image in the RAM and boot ROM.
//! - `ulx3s.rs`: the ULX3S wrapper and LPF.

mod image;
pub mod ulx3s;

use crate::device::Family;
use generators::board::{board_top, RocketBoardParams};
use generators::output::{render_top, OutputOptions};
use generators::GenError;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A prototyping board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Board {
    /// Radiona ULX3S: ECP5 LFE5U-85F in CABGA381, 25 MHz oscillator, FTDI UART.
    Ulx3s,
}

impl Board {
    pub const ALL: [Board; 1] = [Board::Ulx3s];

    pub fn name(self) -> &'static str {
        match self {
            Board::Ulx3s => "ulx3s",
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Board {
    type Err = BoardError;

    fn from_str(s: &str) -> Result<Board, BoardError> {
        Board::ALL
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| BoardError::UnknownBoard {
                name: s.to_string(),
                known: Board::ALL.map(Board::name).join(", "),
            })
    }
}

/// What a board build produced: every file (the board top's Verilog in one file, its
/// preloaded memories' hex files, the pin-level wrapper, the constraints file and
/// `manifest.json` as `accelgen generate` writes it, listing them all), the wrapper's
/// module name, the constraints file again, the FPGA and the clock.
#[derive(Clone, Debug)]
pub struct BoardBuild {
    pub files: Vec<(String, String)>,
    pub top: String,
    pub constraints: (String, String),
    pub family: Family,
    pub device: String,
    pub package: String,
    pub clock_mhz: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error("unknown board `{name}` (known: {known})")]
    UnknownBoard { name: String, known: String },
    #[error("design `{0}` has no board top (only `rocket` has one)")]
    NoBoardTop(String),
    #[error("parameter `{0}`: {1}")]
    Parameter(String, String),
    #[error(transparent)]
    Generator(#[from] GenError),
    #[error("program {}: {error}", path.display())]
    Program {
        path: PathBuf,
        error: verification::elf::ElfError,
    },
    #[error("program {}: not an RV64 program (the rocket tile is RV64)", .0.display())]
    NotRv64(PathBuf),
}

/// The board top of `design` (only `rocket`, with its parameters `params` plus the
/// board's: `ram_kib`, `baud_div`) with `program` preloaded, for `board`. The program's
/// segments must fit the block RAM (`ram_kib`, default 64 KiB, at the tile's
/// `ram_base`); `tohost`/`fromhost` come from its symbols.
pub fn build(
    design: &str,
    params: &toml::Table,
    program: &Path,
    board: Board,
) -> Result<BoardBuild, BoardError> {
    if design != "rocket" {
        return Err(BoardError::NoBoardTop(design.to_string()));
    }
    let mut overrides = params.clone();
    match overrides.remove("rocc") {
        Some(toml::Value::Boolean(true)) => {
            return Err(BoardError::Parameter(
                "rocc".into(),
                "the board top has no accelerator; set rocc = false".into(),
            ))
        }
        Some(toml::Value::Boolean(false)) | None => {}
        Some(v) => {
            return Err(BoardError::Parameter(
                "rocc".into(),
                format!("{v} is not a boolean"),
            ))
        }
    }
    for key in ["tohost", "fromhost"] {
        if overrides.contains_key(key) {
            return Err(BoardError::Parameter(
                key.into(),
                "comes from the program's symbol; do not set it".into(),
            ));
        }
    }
    let board_design = generators::design("rocket-board")?;
    let p = typed(&board_design.elaborate(&overrides)?.params);
    let program = image::load(program, p.tile.ram_base, p.ram_bytes())?;
    overrides.insert("tohost".into(), toml::Value::Integer(program.tohost as i64));
    let fromhost = program.fromhost.unwrap_or(program.tohost + 8);
    overrides.insert("fromhost".into(), toml::Value::Integer(fromhost as i64));
    let elab = board_design.elaborate(&overrides)?;
    let p = typed(&elab.params);
    let image = image::image(&program, p.tile.ram_base);
    let top = board_top(&p, &image).map_err(|errors| GenError::Elaboration {
        design: board_design.name.to_string(),
        errors,
    })?;
    let opts = OutputOptions {
        single_file: true,
        all_inferred: true,
    };
    let (wrapper, constraints) = match board {
        Board::Ulx3s => (
            (format!("{}.v", ulx3s::TOP), ulx3s::wrapper(&top.name)),
            ("ulx3s.lpf".to_string(), ulx3s::lpf(ULX3S_MHZ)),
        ),
    };
    let extra = vec![wrapper, constraints.clone()];
    let out = render_top(board_design.name, &elab.params, &top, &opts, extra);
    Ok(BoardBuild {
        files: out.files,
        top: ulx3s::TOP.to_string(),
        constraints,
        family: Family::Ecp5,
        device: "85k".into(),
        package: "CABGA381".into(),
        clock_mhz: ULX3S_MHZ,
    })
}

/// The ULX3S's oscillator.
const ULX3S_MHZ: f64 = 25.0;

/// The board top's parameters from an elaboration's (checked) table.
fn typed(params: &toml::Table) -> RocketBoardParams {
    toml::Value::Table(params.clone())
        .try_into()
        .expect("elaborated parameters deserialize")
}
