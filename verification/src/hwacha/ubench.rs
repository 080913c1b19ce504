//! The Hwacha microbenchmarks (`programs/hwacha/ubench/`, thesis Table 9.1) as tests and
//! benches run them: building one (its control-thread C and worker assembly), reading
//! its symbols and constants from the loaded image, and setting the host's list of
//! vector-length caps there before it starts (`ubench.h`). [`host`]: the integer
//! benchmarks in host-data mode, their inputs written and their outputs checked by the
//! host.

pub mod host;

use super::asm::{build_sources, AsmOptions, BuildError};
use super::model::Vcfg;
use crate::elf::{self, ElfError, Program};
use std::path::{Path, PathBuf};

/// Why a microbenchmark could not be built or prepared.
#[derive(Debug, thiserror::Error)]
pub enum UbenchError {
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Elf(#[from] ElfError),
    #[error("the program has no symbol `{0}`")]
    NoSymbol(String),
    #[error("{len} bytes at {addr:#x} are not in the program's image")]
    NotLoaded { addr: u64, len: usize },
    #[error("{runs} runs, but the program keeps {copies} copies of its output")]
    TooManyRuns { runs: usize, copies: u64 },
}

/// The benchmarks' sources.
pub fn sources_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/hwacha/ubench")
}

/// Builds benchmark `family` (`axpy`, `gemm`, `gemm_opt`, `filter`: its `.c` and `.S`)
/// with `defines` (the precision, `MASK`) into `dir`, and loads it.
pub fn build(dir: &Path, family: &str, defines: &[&str]) -> Result<Program, UbenchError> {
    let src = sources_dir();
    let elf_path = dir.join(format!("{family}-{}.elf", defines.join("-")));
    let opts = AsmOptions {
        defines: defines.iter().map(|d| d.to_string()).collect(),
        ..AsmOptions::default()
    };
    let sources = [
        src.join(format!("{family}.c")),
        src.join(format!("{family}.S")),
    ];
    build_sources(&sources, &elf_path, &opts)?;
    Ok(elf::load_file(&elf_path)?)
}

/// The address of `name`.
pub fn symbol(program: &Program, name: &str) -> Result<u64, UbenchError> {
    program
        .symbol(name)
        .ok_or_else(|| UbenchError::NoSymbol(name.to_string()))
}

/// Where `addr..addr + len` is in the loaded image: segment and offset (within one
/// segment).
fn locate(program: &Program, addr: u64, len: usize) -> Result<(usize, usize), UbenchError> {
    program
        .segments
        .iter()
        .position(|s| s.addr <= addr && addr + len as u64 <= s.addr + s.data.len() as u64)
        .map(|i| (i, (addr - program.segments[i].addr) as usize))
        .ok_or(UbenchError::NotLoaded { addr, len })
}

/// Writes `bytes` at `addr` into the loaded image (which covers the `.noinit` arrays:
/// the one segment's zero-filled tail).
pub fn write(program: &mut Program, addr: u64, bytes: &[u8]) -> Result<(), UbenchError> {
    let (seg, at) = locate(program, addr, bytes.len())?;
    program.segments[seg].data[at..at + bytes.len()].copy_from_slice(bytes);
    Ok(())
}

/// The 64-bit little-endian word at symbol `name` in the loaded image.
pub fn read_u64(program: &Program, name: &str) -> Result<u64, UbenchError> {
    let addr = symbol(program, name)?;
    let (seg, at) = locate(program, addr, 8)?;
    let bytes = &program.segments[seg].data[at..at + 8];
    Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
}

/// The benchmark's configuration (its `ubench_vcfg` constant).
pub fn vcfg(program: &Program) -> Result<Vcfg, UbenchError> {
    Ok(Vcfg::from_bits(read_u64(program, "ubench_vcfg")?))
}

/// The problem size the program chooses on a unit of maximum vector length `maxvl`
/// (`ubench_setup`): past maxvl and not a multiple of it, capped at its arrays'
/// `ubench_capacity`.
pub fn size(program: &Program, maxvl: u64) -> Result<u64, UbenchError> {
    Ok((maxvl + maxvl / 2 + 3).min(read_u64(program, "ubench_capacity")?))
}

/// Sets the program's list of vector-length caps (one kernel run each; none: one run
/// without a cap), as the host does before the program starts.
pub fn set_caps(program: &mut Program, caps: &[u32]) -> Result<(), UbenchError> {
    let list = symbol(program, "ubench_caps")?;
    for (i, cap) in caps.iter().enumerate() {
        write(program, list + 4 * i as u64, &cap.to_le_bytes())?;
    }
    let runs = symbol(program, "ubench_runs")?;
    write(program, runs, &(caps.len() as u64).to_le_bytes())
}
