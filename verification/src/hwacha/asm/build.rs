//! Building a program from mixed RV64 + Hwacha sources into an ELF: `.S` files through
//! the C preprocessor and C files through `gcc -S` (their inline assembly may hold
//! Hwacha control-thread instructions), both then through the Hwacha translation, and
//! all of them through GNU as and ld with the project's linker script and start-up code
//! (through [`crate::toolchain`]).

use super::error::{AsmError, AsmErrors};
use super::translate::translate;
use crate::toolchain::{self, ToolchainError};
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
    #[error("{what} {}: {err}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        err: std::io::Error,
    },
    #[error("source {} {why}", path.display())]
    BadSource { path: PathBuf, why: String },
    #[error("output {} is also a source; refusing to overwrite it", .0.display())]
    OutputIsSource(PathBuf),
    #[error("output {} is a directory; name the ELF file to write", .0.display())]
    OutputIsDirectory(PathBuf),
    #[error(
        "the program defines no `{0}`: a --bare program brings its own `_start` and `tohost` \
         (without --bare, the C start-up code provides them and calls `main`)"
    )]
    MissingSymbol(&'static str),
}

/// Refuses sources that are not readable regular files, and an output that is one of
/// the sources (the ELF would replace it) or a directory, before anything runs.
fn check_paths(sources: &[PathBuf], output: &Path) -> Result<(), BuildError> {
    let output_id = std::fs::canonicalize(output).ok();
    for source in sources {
        let bad = |why: String| BuildError::BadSource {
            path: source.clone(),
            why,
        };
        let meta = std::fs::metadata(source).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => bad("does not exist".into()),
            _ => bad(format!("cannot be read: {e}")),
        })?;
        if meta.is_dir() {
            return Err(bad("is a directory, not an assembly or C file".into()));
        }
        if !meta.is_file() {
            return Err(bad("is not a regular file".into()));
        }
        if output_id.is_some() && std::fs::canonicalize(source).ok() == output_id {
            return Err(BuildError::OutputIsSource(output.to_path_buf()));
        }
    }
    if output.is_dir() {
        return Err(BuildError::OutputIsDirectory(output.to_path_buf()));
    }
    Ok(())
}

/// Refuses a bare program that lacks its own entry point or HTIF mailbox (the linker
/// only warns and picks an address).
fn check_bare(elf: &Path) -> Result<(), BuildError> {
    let bytes = std::fs::read(elf).map_err(|err| BuildError::Io {
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
    check_paths(sources, output)?;
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
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let tmp = tempfile::Builder::new()
        .prefix(".accelgen-asm-")
        .tempdir_in(parent)
        .map_err(|err| BuildError::Io {
            what: "creating a temporary directory in",
            path: parent.to_path_buf(),
            err,
        })?;
    let mut asm_files = Vec::with_capacity(translated.len());
    for (i, (text, source)) in translated.iter().zip(sources).enumerate() {
        // Lower-case `.s`: already preprocessed, the driver hands it straight to GNU as.
        // The index keeps sources with the same stem apart.
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        let asm = tmp.path().join(format!("{i}-{stem}.s"));
        std::fs::write(&asm, text).map_err(|err| BuildError::Io {
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
    let elf = tmp.path().join("program.elf");
    toolchain::build_elf(&asm_files, &elf, &toolchain::BuildOptions::new(kind))?;
    if opts.bare {
        check_bare(&elf)?;
    }
    std::fs::rename(&elf, output).map_err(|err| BuildError::Io {
        what: "writing",
        path: output.to_path_buf(),
        err,
    })?;
    Ok(output.to_path_buf())
}
