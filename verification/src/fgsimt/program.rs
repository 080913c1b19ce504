//! A whole SPMD program on the SIMT model: host code on the ISS, each launch's threads on
//! [`KernelRun`] (the same exit code and memory as `accelgen iss`, which runs threads one
//! after another, for any race-free kernel).

use super::affine::Mechanisms;
use super::warp::{KernelRun, KernelStats, SimtError};
use crate::elf::Program;
use crate::iss::simt::Launch;
use crate::iss::{FpExt, Iss, IssConfig, Step};

/// What a program did on the SIMT model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramRun {
    pub exit: u64,
    /// One entry per launch.
    pub launches: Vec<KernelStats>,
}

/// Why a program did not finish.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    #[error(transparent)]
    Simt(#[from] SimtError),
    #[error(
        "step limit of {0} reached (host and kernel instructions) without the program exiting"
    )]
    StepLimit(u64),
}

impl From<crate::iss::IssError> for ProgramError {
    fn from(e: crate::iss::IssError) -> Self {
        ProgramError::Simt(e.into())
    }
}

/// The ISS an SPMD program runs on: RV32IMAF with launches deferred to the caller.
pub fn host(program: &Program, config: IssConfig) -> Result<Iss, ProgramError> {
    let mut iss = Iss::new(
        program,
        IssConfig {
            fp: FpExt::F,
            ..config
        },
    )?;
    iss.enable_simt();
    iss.defer_launches();
    Ok(iss)
}

/// The entries of the kernels `program` launches, in the order of their first launch,
/// from a run of the program on the ISS (threads one after another) within `max_steps`.
pub fn launched_entries(program: &Program, max_steps: u64) -> Result<Vec<u64>, ProgramError> {
    let mut iss = host(program, IssConfig::default())?;
    let mut entries: Vec<u64> = Vec::new();
    run_host(&mut iss, max_steps, |iss, launch| {
        if !entries.contains(&launch.entry) {
            entries.push(launch.entry);
        }
        run_threads(iss, launch, max_steps)
    })?;
    Ok(entries)
}

/// Runs `program` to its exit with warps of `warp_size` threads and the affine
/// mechanisms `mech`, within `max_steps`.
pub fn run(
    program: &Program,
    config: IssConfig,
    shape: (u32, Mechanisms),
    max_steps: u64,
) -> Result<ProgramRun, ProgramError> {
    run_on(&mut host(program, config)?, shape, max_steps)
}

/// Runs the host code on `iss` (from [`host`]) to its exit within `max_steps` steps
/// (host and kernel alike), handing each launch to `on_launch`, which runs its threads;
/// the launch then retires. The exit code.
pub fn run_host<E: From<ProgramError>>(
    iss: &mut Iss,
    max_steps: u64,
    mut on_launch: impl FnMut(&mut Iss, Launch) -> Result<(), E>,
) -> Result<u64, E> {
    loop {
        if iss.steps() >= max_steps {
            return Err(ProgramError::StepLimit(max_steps).into());
        }
        match iss.step_one().map_err(ProgramError::from)? {
            Step::Exited(exit) => return Ok(exit),
            Step::Launch(launch) => {
                on_launch(iss, launch)?;
                iss.finish_launch();
            }
            Step::Retired(_) | Step::Trapped { .. } => {}
        }
    }
}

/// Runs `launch`'s threads one after another, as `accelgen iss` does, within
/// `max_steps` steps of the whole program.
pub fn run_threads(iss: &mut Iss, launch: Launch, max_steps: u64) -> Result<(), ProgramError> {
    for tid in 0..launch.n {
        let mut t = iss.launch_thread(launch, tid);
        while !t.exited() {
            if iss.steps() >= max_steps {
                return Err(ProgramError::StepLimit(max_steps));
            }
            iss.step_thread(&mut t, launch.n)?;
        }
    }
    Ok(())
}

/// [`run`] on a [`host`] built by the caller (which can read its memory afterwards).
pub fn run_on(
    iss: &mut Iss,
    (warp_size, mech): (u32, Mechanisms),
    max_steps: u64,
) -> Result<ProgramRun, ProgramError> {
    let mut launches = Vec::new();
    let exit = run_host(iss, max_steps, |iss, launch| {
        let mut run = KernelRun::new(iss, launch, warp_size, mech);
        while run.step(iss)?.is_some() {
            if iss.steps() >= max_steps {
                return Err(ProgramError::StepLimit(max_steps));
            }
        }
        launches.push(run.stats);
        Ok(())
    })?;
    Ok(ProgramRun { exit, launches })
}
