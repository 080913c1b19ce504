//! Building a program from mixed RV64 + Hwacha sources into an ELF: `.S` files through
//! the C preprocessor and C files through `gcc -S` (their inline assembly may hold
//! Hwacha control-thread instructions), both then through the Hwacha translation, and
//! all of them through GNU as and ld with the project's linker script and start-up code
//! (through [`crate::toolchain`]).

use super::error::{AsmError, AsmErrors};
use super::translate::translate;
use crate::toolchain::{self, Staging, ToolchainError};
use std::path::{Path, PathBuf};

/// How to build.
#[derive(Debug, Clone, Default)]
pub struct AsmOptions {
    /// Extra include directories for the C preprocessor and compiler (the runtime
    /// directory, with `isa_test.h`, is always searched).
    pub include_dirs: Vec<PathBuf>,
    /// Preprocessor definitions, `NAME` or `NAME=VALUE`, for every source.
    pub defines: Vec<String>,
    /// The program brings its own `_start` and `tohost` (as the ISA tests do) instead of
    /// defining `main` for the C start-up code and library.
    pub bare: bool,
}

/// The optimisation level C sources are compiled at.
const C_OPT: &str = "-O2";

/// Why a build failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error(transparent)]
    Asm(#[from] AsmErrors),
    #[error(
        "the program defines no `{0}`: a --bare program brings its own `_start` and `tohost` \
         (without --bare, the C start-up code provides them and calls `main`)"
    )]
    MissingSymbol(&'static str),
}

/// Refuses a bare program that lacks its own entry point or HTIF mailbox (the linker
/// only warns and picks an address).
fn check_bare(elf: &Path) -> Result<(), BuildError> {
    let bytes = std::fs::read(elf).map_err(|err| ToolchainError::Io {
        what: "reading",
        path: elf.to_path_buf(),
        err,
    })?;
    for symbol in ["_start", "tohost"] {
        let defined = object::read::File::parse(&*bytes).is_ok_and(|f| {
            use object::{Object, ObjectSymbol};
            f.symbols()
                .any(|s| s.name() == Ok(symbol) && !s.is_undefined())
        });
        if !defined {
            return Err(BuildError::MissingSymbol(symbol));
        }
    }
    Ok(())
}

/// Builds the one assembly source `source` into the ELF `output` (see [`build_sources`]).
pub fn build(source: &Path, output: &Path, opts: &AsmOptions) -> Result<PathBuf, BuildError> {
    build_sources(&[source.to_path_buf()], output, opts)
}

/// Whether `source` is C (by its `.c` extension); anything else is assembly for the C
/// preprocessor, as `.S` files are.
fn is_c(source: &Path) -> bool {
    source.extension().is_some_and(|e| e == "c")
}

/// Builds `sources` (C files and `.S` files, in any mix) into one ELF `output`. The
/// Hwacha errors of every source are reported together. Intermediate files live in a
/// temporary directory next to `output` and the ELF is renamed into place at the end,
/// so a failed build leaves neither a partial ELF nor stray files.
pub fn build_sources(
    sources: &[PathBuf],
    output: &Path,
    opts: &AsmOptions,
) -> Result<PathBuf, BuildError> {
    toolchain::check_paths(sources, output)?;
    let mut translated = Vec::with_capacity(sources.len());
    let mut errors: Vec<AsmError> = Vec::new();
    for source in sources {
        let text = if is_c(source) {
            toolchain::compile_to_asm(source, &opts.include_dirs, &opts.defines, C_OPT)?
        } else {
            toolchain::preprocess(source, &opts.include_dirs, &opts.defines)?
        };
        match translate(&text, &source.display().to_string()) {
            Ok(t) => translated.push(t),
            Err(AsmErrors(e)) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(AsmErrors(errors).into());
    }
    let staging = Staging::beside(output)?;
    let mut asm_files = Vec::with_capacity(translated.len());
    for (i, (text, source)) in translated.iter().zip(sources).enumerate() {
        // Lower-case `.s`: already preprocessed, the driver hands it straight to GNU as.
        // The index keeps sources with the same stem apart.
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        let asm = staging.path().join(format!("{i}-{stem}.s"));
        std::fs::write(&asm, text).map_err(|err| ToolchainError::Io {
            what: "writing",
            path: asm.clone(),
            err,
        })?;
        asm_files.push(asm);
    }
    let kind = if opts.bare {
        toolchain::Kind::BareAsm
    } else {
        toolchain::Kind::C
    };
    let elf = staging.path().join("program.elf");
    toolchain::build_elf(&asm_files, &elf, &toolchain::BuildOptions::new(kind))?;
    if opts.bare {
        check_bare(&elf)?;
    }
    Ok(staging.install(&elf)?)
}
