//! SPMD kernel programs (`kernels/`): RV32IMAF C whose `main` runs on a control processor
//! and launches kernels on the data-parallel machines (`kernels/runtime/simt.h`; the ISS
//! side is [`crate::iss::simt`]). One build serves the golden model, the FG-SIMT engine
//! and the CGRF: `accelgen asm --target simt`.

use crate::iss::{FpExt, Isa, Xlen};
use crate::toolchain::{self, BuildOptions, Kind, Staging, ToolchainError};
use std::path::{Path, PathBuf};

/// The machine kernels are built for: RV32IMAF with the ilp32f ABI.
pub const ISA: Isa = Isa {
    xlen: Xlen::Rv32,
    fp: FpExt::F,
};

/// `kernels/runtime`: `simt.h` (on every kernel program's include path) and `simt.c`.
pub fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/runtime")
}

/// `kernels/`: the kernel programs.
pub fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels")
}

/// The kernel programs of `kernels/<subdir>` (its `.c` files; `""` for `kernels/`),
/// sorted, named as paths below `kernels/` without `.c` (`bfs`, `rodinia/nn`).
pub fn programs(subdir: &str) -> Vec<String> {
    let dir = programs_dir().join(subdir);
    let mut names: Vec<String> = (std::fs::read_dir(&dir).into_iter().flatten())
        .filter_map(|e| {
            let file = e.ok()?.file_name().to_string_lossy().into_owned();
            let stem = file.strip_suffix(".c")?;
            Some(if subdir.is_empty() {
                stem.to_string()
            } else {
                format!("{subdir}/{stem}")
            })
        })
        .collect();
    names.sort();
    names
}

/// Builds `sources` (C and `.S` files) with the SIMT runtime into the ELF `output`, with
/// `include_dirs` searched before the runtime and `defines` (`NAME` or `NAME=VALUE`) set.
/// Nothing is written unless the whole build succeeds.
pub fn build_program(
    sources: &[PathBuf],
    output: &Path,
    include_dirs: &[PathBuf],
    defines: &[String],
) -> Result<PathBuf, ToolchainError> {
    build_program_with(sources, output, (include_dirs, defines), &[])
}

/// [`build_program`] with extra compiler `flags` (say `-ffixed-s2`, which takes a
/// register from the allocator, as seed 002 limits registers to make kernels spill).
pub fn build_program_with(
    sources: &[PathBuf],
    output: &Path,
    (include_dirs, defines): (&[PathBuf], &[String]),
    flags: &[String],
) -> Result<PathBuf, ToolchainError> {
    toolchain::check_paths(sources, output)?;
    let staging = Staging::beside(output)?;
    let rt = runtime_dir();
    let mut opts = BuildOptions::new(Kind::C);
    opts.isa = ISA;
    for dir in include_dirs.iter().chain([&rt]) {
        opts.extra.push(format!("-I{}", dir.display()));
    }
    opts.extra.extend(defines.iter().map(|d| format!("-D{d}")));
    opts.extra.extend(flags.iter().cloned());
    opts.extra.push(rt.join("simt.c").display().to_string());
    let elf = staging.path().join("program.elf");
    toolchain::build_elf(sources, &elf, &opts)?;
    staging.install(&elf)
}
