//! The re-convergence directory the engine's DWS sequencer reads at each launch
//! (`generators::fgsimt::cp::branch_directory`, whose doc gives the layout): the loader's
//! side. The kernels a program launches are found by running it on the ISS (threads
//! one after another), each kernel's conditional branches analysed from its code
//! ([`Cfg::of_kernel`]: post-dominators, and whether the block after one is short),
//! and the directory laid out for `sim fgsimt` to put in memory beside the program.

use super::cfg::{BranchInfo, Cfg, CfgError};
use crate::elf::Program;
use crate::fgsimt::program::{host, launched_entries, ProgramError};
use crate::iss::IssConfig;
use generators::fgsimt::params::FgsimtParams;

/// Where the directory goes and what the sequencer's table takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectoryShape {
    /// `dws_directory`.
    pub base: u64,
    /// The table's entries: the most branches a kernel may have.
    pub branch_entries: u32,
    pub short_block: u32,
}

impl DirectoryShape {
    /// The directory of an engine with the DWS sequencer (`None` without).
    pub fn of(p: &FgsimtParams) -> Option<DirectoryShape> {
        p.sequencer().map(|d| DirectoryShape {
            base: p.dws_directory,
            branch_entries: d.branch_entries,
            short_block: d.short_block,
        })
    }
}

/// Why a program's directory cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    #[error("finding the kernels the program launches: {0}")]
    Program(#[from] ProgramError),
    #[error("kernel at {entry:#x}: {error}")]
    Cfg { entry: u64, error: CfgError },
    #[error("kernel at {entry:#x} has {branches} conditional branches; the sequencer's re-convergence table holds branch_entries = {entries}")]
    TooManyBranches {
        entry: u64,
        branches: usize,
        entries: u32,
    },
    #[error("the re-convergence directory at {base:#x}..{end:#x} overlaps the program's segment at {segment:#x}..{segment_end:#x}; set dws_directory elsewhere")]
    Overlap {
        base: u64,
        end: u64,
        segment: u64,
        segment_end: u64,
    },
    #[error("the re-convergence directory ({bytes} bytes at {base:#x}) does not fit below 4 GiB")]
    TooLarge { base: u64, bytes: usize },
}

/// A laid-out directory: its bytes at `base`, and each kernel's entry with its branches
/// (by pc, as analysed: what the golden sequencer takes, `tb::dws_follow`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directory {
    pub base: u64,
    pub bytes: Vec<u8>,
    pub kernels: Vec<(u64, Vec<(u64, BranchInfo)>)>,
}

/// The directory of the kernels `program` launches (found on the ISS within
/// `max_steps`), for `shape`.
pub fn directory(
    program: &Program,
    shape: &DirectoryShape,
    max_steps: u64,
) -> Result<Directory, DirectoryError> {
    let entries = launched_entries(program, max_steps)?;
    let iss = host(program, IssConfig::default())?;
    let mut kernels = Vec::new();
    for entry in entries {
        let cfg =
            Cfg::of_kernel(&iss, entry).map_err(|error| DirectoryError::Cfg { entry, error })?;
        kernels.push((entry, cfg));
    }
    layout(program, shape, &kernels)
}

/// The directory of `kernels` (entry and analysed code) at `shape.base`.
pub fn layout(
    program: &Program,
    shape: &DirectoryShape,
    kernels: &[(u64, Cfg)],
) -> Result<Directory, DirectoryError> {
    let mut bytes = Vec::new();
    let mut analysed = Vec::new();
    for (entry, cfg) in kernels {
        let branches = cfg.branches();
        if branches.len() > shape.branch_entries as usize {
            return Err(DirectoryError::TooManyBranches {
                entry: *entry,
                branches: branches.len(),
                entries: shape.branch_entries,
            });
        }
        bytes.extend_from_slice(&(entry | (branches.len() as u64) << 32).to_le_bytes());
        for (pc, info) in &branches {
            let target = info.ipdom | info.short(shape.short_block) as u64;
            bytes.extend_from_slice(&(pc | target << 32).to_le_bytes());
        }
        analysed.push((*entry, branches));
    }
    bytes.extend_from_slice(&[0; 8]);
    let (base, end) = (shape.base, shape.base + bytes.len() as u64);
    if end > 1 << 32 {
        return Err(DirectoryError::TooLarge {
            base,
            bytes: bytes.len(),
        });
    }
    for s in &program.segments {
        let segment_end = s.addr + s.data.len() as u64;
        if s.addr < end && base < segment_end {
            return Err(DirectoryError::Overlap {
                base,
                end,
                segment: s.addr,
                segment_end,
            });
        }
    }
    Ok(Directory {
        base,
        bytes,
        kernels: analysed,
    })
}
