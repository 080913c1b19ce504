//! Building a mixed RV64 + Hwacha `.S` file into an ELF program: C preprocessor,
//! Hwacha translation, then GNU as and ld with the project's linker script and start-up
//! code (through [`crate::toolchain`]).

use super::error::AsmErrors;
use super::translate::translate;
use crate::toolchain::{self, ToolchainError};
use std::path::{Path, PathBuf};

/// How to build.
#[derive(Debug, Clone, Default)]
pub struct AsmOptions {
    /// Extra include directories for the C preprocessor (the runtime directory, with
    /// `isa_test.h`, is always searched).
    pub include_dirs: Vec<PathBuf>,
    /// Preprocessor definitions, `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// The program brings its own `_start` and `tohost` (as the ISA tests do) instead of
    /// defining `main` for the C start-up code and library.
    pub bare: bool,
}

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error(transparent)]
    Asm(#[from] AsmErrors),
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Builds `source` into the ELF `output`. Intermediate files live in a temporary
/// directory next to `output` and the ELF is renamed into place at the end, so a failed
/// build leaves neither a partial ELF nor stray files.
pub fn build(source: &Path, output: &Path, opts: &AsmOptions) -> Result<PathBuf, BuildError> {
    let preprocessed = toolchain::preprocess(source, &opts.include_dirs, &opts.defines)?;
    let translated = translate(&preprocessed, &source.display().to_string())?;
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".accelgen-asm-")
        .tempdir_in(parent)
        .map_err(|source| BuildError::Io {
            what: "creating a temporary directory in",
            path: parent.to_path_buf(),
            source,
        })?;
    // Lower-case `.s`: already preprocessed, the driver hands it straight to GNU as.
    let asm = tmp.path().join("program.s");
    std::fs::write(&asm, translated).map_err(|source| BuildError::Io {
        what: "writing",
        path: asm.clone(),
        source,
    })?;
    let kind = if opts.bare {
        toolchain::Kind::BareAsm
    } else {
        toolchain::Kind::C
    };
    let elf = tmp.path().join("program.elf");
    toolchain::build_elf(&[asm], &elf, &toolchain::BuildOptions::new(kind))?;
    std::fs::rename(&elf, output).map_err(|source| BuildError::Io {
        what: "writing",
        path: output.to_path_buf(),
        source,
    })?;
    Ok(output.to_path_buf())
}
