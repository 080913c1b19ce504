//! What the VGIW tests share: the kernel programs, built; compiled for a fabric; run on
//! the ISS (threads one after another) and on the VGIW model.

#![allow(dead_code)]

use generators::vgiw::compiler::Kernel;
use generators::vgiw::params::VgiwParams;
use std::path::{Path, PathBuf};
use verification::elf::{self, Program};
use verification::fgsimt::program::{host, run_host, run_threads, ProgramError};
use verification::iss::{Iss, IssConfig};
use verification::kernels::{build_program, programs_dir};
use verification::vgiw::kernels;
use verification::vgiw::program::{run_on, vgiw_host, ProgramRun};

/// Steps a program may take.
pub const MAX_STEPS: u64 = 400_000_000;

/// Whether the long tests run (`scripts/test --long`).
pub fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds `sources` into `dir/<name>.elf`.
pub fn build(dir: &Path, sources: &[PathBuf], name: &str) -> Program {
    let elf = dir.join(format!("{}.elf", name.replace('/', "-")));
    build_program(sources, &elf, &[programs_dir()], &[]).unwrap();
    elf::load_file(&elf).unwrap()
}

/// The directed program of `tests/vgiw_cases/fig2.{c,S}`: Figure 2's kernel and the
/// store-then-reload kernel.
pub fn fig2(dir: &Path) -> Program {
    let cases = root().join("tests/vgiw_cases");
    build(dir, &[cases.join("fig2.c"), cases.join("fig2.S")], "fig2")
}

/// The program `kernels/<name>.c` (`name` as `verification::kernels::programs` gives).
pub fn build_kernel(dir: &Path, name: &str) -> Program {
    build(dir, &[programs_dir().join(format!("{name}.c"))], name)
}

/// Every kernel the program launches, compiled for `params`.
pub fn compile_all(program: &Program, params: &VgiwParams) -> Vec<Kernel> {
    kernels::compile_launched(program, params, MAX_STEPS).unwrap()
}

/// The program's exit code and ISS after a plain ISS run (threads one after another).
pub fn iss_run(program: &Program) -> (u64, Iss) {
    let mut iss = host(program, IssConfig::default()).unwrap();
    let exit = run_host(&mut iss, MAX_STEPS, |iss, launch| {
        run_threads(iss, launch, MAX_STEPS)
    })
    .map_err(|e: ProgramError| e.to_string())
    .unwrap();
    (exit, iss)
}

/// The program on the VGIW model: what it did, and the ISS that ran its host code.
pub fn vgiw_run(program: &Program, params: &VgiwParams) -> (ProgramRun, Iss) {
    let kernels = compile_all(program, params);
    let mut iss = vgiw_host(program).unwrap();
    let run = run_on(&mut iss, &kernels, params, MAX_STEPS).unwrap();
    (run, iss)
}

/// Whether the two runs leave the same memory, from the RAM's base to the stack's top
/// (`__stack_top`: the program uses nothing above it).
pub fn same_memory(program: &Program, a: &Iss, b: &Iss) -> bool {
    let base = a.mem.ram_base();
    let len = (program.symbol("__stack_top").unwrap() - base) as usize;
    a.mem.slice(base, len).unwrap() == b.mem.slice(base, len).unwrap()
}

/// The parameters of `configs/<name>.toml`.
pub fn preset(name: &str) -> VgiwParams {
    let text = std::fs::read_to_string(root().join(format!("configs/{name}.toml"))).unwrap();
    let p: VgiwParams = toml::from_str(&text).unwrap();
    p.validate().unwrap();
    p
}
