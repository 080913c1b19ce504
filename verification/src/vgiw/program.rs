//! A whole SPMD program on the VGIW model: host code on the ISS (the control
//! processor), each launch's threads on [`super::machine::run_launch`] over the ISS's
//! memory, so that the program's exit code and final memory can be compared with a plain
//! ISS run (threads one after another).

use super::interp::DataMemory;
use super::kernels::KernelError;
use super::machine::{
    Coalescing, Interpreter, LaunchInit, LaunchRunner, LaunchStats, MachineError, Step,
};
use crate::elf::Program;
use crate::fgsimt::program::{host, run_host, ProgramError as HostError};
use crate::iss::mem::Memory;
use crate::iss::{Iss, IssConfig};
use generators::vgiw::compiler::Kernel;
use generators::vgiw::params::VgiwParams;

/// Why a program did not run to its exit.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    #[error(transparent)]
    Kernel(#[from] KernelError),
    #[error("kernel {kernel}: {error}")]
    Machine { kernel: String, error: MachineError },
    #[error("launch of {entry:#x}: no compiled kernel has that entry")]
    Unknown { entry: u64 },
}

impl From<HostError> for ProgramError {
    fn from(e: HostError) -> Self {
        ProgramError::Kernel(e.into())
    }
}

/// What a program did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramRun {
    pub exit: u64,
    /// Per launch: the kernel's name and what the launch did.
    pub launches: Vec<(String, LaunchStats)>,
}

impl DataMemory for Memory {
    fn read(&mut self, addr: u32, bytes: u32) -> Option<u32> {
        Memory::read(self, addr as u64, bytes as usize).map(|v| v as u32)
    }

    fn write(&mut self, addr: u32, bytes: u32, value: u32) -> bool {
        Memory::write(self, addr as u64, bytes as usize, value as u64)
    }
}

/// The ISS a program's host code runs on ([`crate::fgsimt::program::host`]).
pub fn vgiw_host(program: &Program) -> Result<Iss, ProgramError> {
    host(program, IssConfig::default()).map_err(|e| ProgramError::Kernel(e.into()))
}

/// Runs `program` on `iss` (from [`vgiw_host`]) to its exit, its launches on the VGIW
/// model with `params`, within `max_steps` host steps.
pub fn run_on(
    iss: &mut Iss,
    kernels: &[Kernel],
    params: &VgiwParams,
    max_steps: u64,
) -> Result<ProgramRun, ProgramError> {
    let mut model = Coalescing(&mut Interpreter);
    run_on_with(iss, kernels, params, max_steps, &mut model, None)
}

/// [`run_on`] with the launches run by `runner`; `trace` receives every launch's
/// steps.
pub fn run_on_with(
    iss: &mut Iss,
    kernels: &[Kernel],
    params: &VgiwParams,
    max_steps: u64,
    runner: &mut dyn LaunchRunner,
    mut trace: Option<&mut Vec<Vec<Step>>>,
) -> Result<ProgramRun, ProgramError> {
    let mut launches = Vec::new();
    let exit = run_host(iss, max_steps, |iss, launch| {
        let kernel = (kernels.iter())
            .find(|k| k.entry as u64 == launch.entry)
            .ok_or(ProgramError::Unknown {
                entry: launch.entry,
            })?;
        let [stack_top, stack_bytes, gp, tp] = iss.launch_constants().expect("SIMT is on");
        let init = LaunchInit {
            gp: gp as u32,
            tp: tp as u32,
            stack_top: stack_top as u32,
            stack_bytes: stack_bytes as u32,
        };
        let mut steps = Vec::new();
        let stats = (runner.launch(
            kernel,
            launch.n,
            init,
            params,
            &mut iss.mem,
            Some(&mut steps),
        ))
        .map_err(|error| ProgramError::Machine {
            kernel: kernel.name.clone(),
            error,
        })?;
        if let Some(t) = trace.as_deref_mut() {
            t.push(steps);
        }
        launches.push((kernel.name.clone(), stats));
        Ok::<(), ProgramError>(())
    })?;
    Ok(ProgramRun { exit, launches })
}
