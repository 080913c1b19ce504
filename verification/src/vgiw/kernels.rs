//! Finding a program's kernels for the VGIW compiler: the functions its host code passes
//! to `launch_kernel`, found by running the program on the golden model (the RV32IMAF
//! ISS, threads one after another) and recording each launch's entry, or named by a
//! symbol; and a kernel function's code, from the ELF's symbol table and segments.

use crate::elf::Program;
use crate::fgsimt::program::{launched_entries, ProgramError};
use generators::vgiw::compiler::{compile, CompileError, Kernel, KernelCode};
use generators::vgiw::params::VgiwParams;

/// Why a program's kernels cannot be found or read.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error(transparent)]
    Program(#[from] ProgramError),
    #[error("kernel {kernel}: {error}")]
    Compile { kernel: String, error: CompileError },
    #[error("the program launches no kernel")]
    NoLaunch,
    #[error("no function symbol `{0}` in the program")]
    NoSymbol(String),
    #[error("the kernel at {0:#x} is not the start of a function symbol with a size")]
    NoFunction(u64),
    #[error(
        "the kernel function {name} ({addr:#x}, {size} bytes) is not in the program's memory image"
    )]
    NotLoaded { name: String, addr: u64, size: u64 },
}

/// The entries of the kernels `program` launches, in the order of their first launch,
/// from a run of the program on the ISS within `max_steps`.
pub fn launched(program: &Program, max_steps: u64) -> Result<Vec<u64>, KernelError> {
    let entries = launched_entries(program, max_steps)?;
    if entries.is_empty() {
        return Err(KernelError::NoLaunch);
    }
    Ok(entries)
}

/// Every kernel `program` launches, compiled for `params`.
pub fn compile_launched(
    program: &Program,
    params: &VgiwParams,
    max_steps: u64,
) -> Result<Vec<Kernel>, KernelError> {
    (launched(program, max_steps)?.into_iter())
        .map(|entry| {
            let code = code(program, entry)?;
            compile(&code, params).map_err(|error| KernelError::Compile {
                kernel: code.name.clone(),
                error,
            })
        })
        .collect()
}

/// The entry of the function symbol `name`.
pub fn named(program: &Program, name: &str) -> Result<u64, KernelError> {
    match (program.symbol(name), program.function_sizes.get(name)) {
        (Some(addr), Some(_)) => Ok(addr),
        _ => Err(KernelError::NoSymbol(name.to_string())),
    }
}

/// The code of the kernel function starting at `entry`.
pub fn code(program: &Program, entry: u64) -> Result<KernelCode, KernelError> {
    let (name, size) = (program.symbols.iter())
        .filter(|(_, &a)| a == entry)
        .find_map(|(n, _)| {
            (program.function_sizes.get(n))
                .filter(|&&s| s > 0)
                .map(|&s| (n.clone(), s))
        })
        .ok_or(KernelError::NoFunction(entry))?;
    let segment = (program.segments.iter())
        .find(|s| s.addr <= entry && entry + size <= s.addr + s.data.len() as u64)
        .ok_or_else(|| KernelError::NotLoaded {
            name: name.clone(),
            addr: entry,
            size,
        })?;
    let at = (entry - segment.addr) as usize;
    let words = segment.data[at..at + size as usize]
        .chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(b)
        })
        .collect();
    Ok(KernelCode {
        name,
        entry: entry as u32,
        words,
    })
}
