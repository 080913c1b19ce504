//! A whole SPMD program on the DWS model: host code on the ISS, each launch on the
//! [`Machine`] (seed 001's WPU), with one cache hierarchy for the program.

use super::machine::{DwsError, LaunchStats, Machine};
use super::memory::{CacheMemory, MemoryStats, MemorySystem};
use super::DwsConfig;
use crate::elf::Program;
use crate::fgsimt::program::{host, run_host, ProgramError};
use crate::iss::{Iss, IssConfig};

/// What a program did on the DWS model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DwsRun {
    pub exit: u64,
    /// One entry per launch.
    pub launches: Vec<LaunchStats>,
    pub memory: MemoryStats,
}

impl DwsRun {
    /// Cycles of all launches.
    pub fn kernel_cycles(&self) -> u64 {
        self.launches.iter().map(|l| l.cycles).sum()
    }

    /// The launches' counters summed.
    pub fn summed(&self) -> LaunchStats {
        let mut s = LaunchStats::default();
        for l in &self.launches {
            s += l;
        }
        s
    }
}

/// Why a program did not finish on the DWS model.
#[derive(Debug, thiserror::Error)]
pub enum DwsProgramError {
    #[error(transparent)]
    Program(#[from] ProgramError),
    #[error("launch {launch}: {err}")]
    Launch { launch: usize, err: DwsError },
    #[error("the configuration: {0}")]
    Config(String),
}

/// Runs `program` on the DWS model of `cfg` with the cache hierarchy of `cfg.memory`:
/// host steps within `max_steps`, each launch within `max_cycles`.
pub fn run(
    program: &Program,
    cfg: DwsConfig,
    max_steps: u64,
    max_cycles: u64,
) -> Result<(Iss, DwsRun), DwsProgramError> {
    cfg.check().map_err(DwsProgramError::Config)?;
    let mem = CacheMemory::new(cfg.memory, cfg.warp_size);
    run_with(program, cfg, Box::new(mem), (max_steps, max_cycles))
}

/// [`run`] on a memory system of the caller's (say, a test's injected hit masks).
pub fn run_with(
    program: &Program,
    cfg: DwsConfig,
    mem: Box<dyn MemorySystem>,
    (max_steps, max_cycles): (u64, u64),
) -> Result<(Iss, DwsRun), DwsProgramError> {
    let mut iss = host(program, IssConfig::default())?;
    let mut machine = Machine::new(cfg, mem);
    let mut launches = Vec::new();
    let exit = run_host(&mut iss, max_steps, |iss, launch| {
        let wrap = |err| DwsProgramError::Launch {
            launch: launches.len(),
            err,
        };
        machine.start(iss, launch).map_err(wrap)?;
        let stats = machine.run(iss, max_cycles).map_err(wrap)?;
        launches.push(stats);
        Ok::<(), DwsProgramError>(())
    })?;
    let memory = machine.memory().stats();
    Ok((
        iss,
        DwsRun {
            exit,
            launches,
            memory,
        },
    ))
}
