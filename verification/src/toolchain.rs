//! Building bare-metal RV64 and RV32 programs with Debian's `riscv64-unknown-elf-gcc` and
//! picolibc, linked with the project's own start-up code, linker script and HTIF system
//! calls (`verification/runtime/`). Later flows (accelerator programs, RTL co-simulation)
//! build their test programs through here too.

use crate::iss::{FpExt, Isa, Xlen};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cross compiler driver.
pub const GCC: &str = "riscv64-unknown-elf-gcc";

/// Errors from building a program.
#[derive(Debug, thiserror::Error)]
pub enum ToolchainError {
    #[error("{GCC} not found on PATH (Debian package gcc-riscv64-unknown-elf; scripts/test installs it)")]
    NotFound,
    #[error("running {GCC}: {0}")]
    Spawn(std::io::Error),
    #[error("{GCC} failed building {output}:\n{stderr}")]
    Failed { output: PathBuf, stderr: String },
    #[error("{GCC} failed preprocessing {input}:\n{stderr}")]
    Preprocess { input: PathBuf, stderr: String },
    #[error("{GCC} failed compiling {input}:\n{stderr}")]
    Compile { input: PathBuf, stderr: String },
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
}

/// What kind of program to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Assembly with its own `_start` and `tohost` (ISA tests, random programs): no C
    /// library, no start-up code; may use the A extension.
    BareAsm,
    /// C with picolibc, the project's crt0 and HTIF system calls (`printf`, `exit`).
    /// C code is compiled for IM (soft float) or IMAF/IMAFD with the hard-float ABI, as
    /// the ISA says (picolibc's multilib for it: rv64im, rv64iafd, rv32im, rv32iaf,
    /// rv32iafd); assembly sources may use the A extension.
    C,
}

/// Driver flags that select picolibc and its rv64im soft-float multilib for C code.
const PICOLIBC_C: [&str; 2] = ["--specs=picolibc.specs", "-march=rv64im"];

/// The `-march` and `-mabi` values for C code of `isa` (A only where picolibc has a
/// multilib that matches), and the `-march` for assembly (with A, Zicsr and Zifencei).
fn arch_flags(isa: Isa) -> (String, &'static str, String) {
    let x = isa.xlen.bits();
    let (c_ext, fp_ext) = match isa.fp {
        FpExt::None => ("im", ""),
        FpExt::F => ("imaf", "f"),
        FpExt::FD => ("imafd", "fd"),
    };
    let abi = match (isa.xlen, isa.fp) {
        (Xlen::Rv32, FpExt::None) => "ilp32",
        (Xlen::Rv32, FpExt::F) => "ilp32f",
        (Xlen::Rv32, FpExt::FD) => "ilp32d",
        (Xlen::Rv64, FpExt::None) => "lp64",
        (Xlen::Rv64, FpExt::F) => "lp64f",
        (Xlen::Rv64, FpExt::FD) => "lp64d",
    };
    (
        format!("-march=rv{x}{c_ext}"),
        abi,
        format!("-march=rv{x}ima{fp_ext}_zicsr_zifencei"),
    )
}

/// Build options.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub kind: Kind,
    /// The machine the program is for (default RV64IMA without floating point).
    pub isa: Isa,
    /// Optimisation flag, e.g. "-O2".
    pub opt: String,
    /// Extra flags passed to the driver (defines, include directories).
    pub extra: Vec<String>,
}

impl BuildOptions {
    pub fn new(kind: Kind) -> BuildOptions {
        BuildOptions {
            kind,
            isa: Isa::default(),
            opt: "-O2".into(),
            extra: Vec::new(),
        }
    }
}

/// `verification/runtime`: linker script, crt0, HTIF system calls, ISA-test macros.
pub fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime")
}

/// Whether the cross compiler is installed.
pub fn available() -> bool {
    Command::new(GCC).arg("--version").output().is_ok()
}

fn spawn_error(e: std::io::Error) -> ToolchainError {
    if e.kind() == std::io::ErrorKind::NotFound {
        ToolchainError::NotFound
    } else {
        ToolchainError::Spawn(e)
    }
}

/// Runs the C preprocessor on an assembly source (as `.S` files are), with the runtime
/// directory and `include_dirs` on the include path and `defines` (`NAME` or
/// `NAME=VALUE`) set. The output keeps line markers, so later stages can report
/// locations in the original files.
pub fn preprocess(
    source: &Path,
    include_dirs: &[PathBuf],
    defines: &[String],
) -> Result<String, ToolchainError> {
    let mut cmd = Command::new(GCC);
    cmd.args(["-E", "-x", "assembler-with-cpp"]);
    run_to_text(cmd, source, include_dirs, defines, |input, stderr| {
        ToolchainError::Preprocess { input, stderr }
    })
}

/// Compiles a C source to assembly text (`gcc -S`) for a [`Kind::C`] program, with the
/// runtime directory and `include_dirs` on the include path, `defines` set and `opt` as
/// the optimisation flag. Later stages can rewrite the text (e.g. the Hwacha translation
/// of inline assembly) before it is assembled.
pub fn compile_to_asm(
    source: &Path,
    include_dirs: &[PathBuf],
    defines: &[String],
    opt: &str,
) -> Result<String, ToolchainError> {
    let mut cmd = Command::new(GCC);
    cmd.args(PICOLIBC_C)
        .args(["-mabi=lp64", "-mcmodel=medany", "-S", "-o", "-"])
        .arg(opt);
    run_to_text(cmd, source, include_dirs, defines, |input, stderr| {
        ToolchainError::Compile { input, stderr }
    })
}

/// Runs the GCC command `cmd` on `source` with the include path (`include_dirs`, then the
/// runtime directory) and `defines`; its standard output, or `error` of its diagnostics.
fn run_to_text(
    mut cmd: Command,
    source: &Path,
    include_dirs: &[PathBuf],
    defines: &[String],
    error: fn(PathBuf, String) -> ToolchainError,
) -> Result<String, ToolchainError> {
    for dir in include_dirs {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg(format!("-I{}", runtime_dir().display()));
    for define in defines {
        cmd.arg(format!("-D{define}"));
    }
    let out = cmd.arg(source).output().map_err(spawn_error)?;
    if !out.status.success() {
        return Err(error(
            source.to_path_buf(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Compiles and links `sources` into the executable `output`.
pub fn build_elf(
    sources: &[PathBuf],
    output: &Path,
    opts: &BuildOptions,
) -> Result<PathBuf, ToolchainError> {
    let rt = runtime_dir();
    let (c_arch, abi, asm_arch) = arch_flags(opts.isa);
    let mut cmd = Command::new(GCC);
    cmd.arg(format!("-mabi={abi}"))
        .args(["-mcmodel=medany", "-static", "-nostartfiles"])
        .arg(&opts.opt)
        .arg(format!("-T{}", rt.join("link.ld").display()))
        .arg(format!("-I{}", rt.display()))
        // One RWX segment is what a bare-metal image is; the warning is noise.
        .arg("-Wl,--no-warn-rwx-segments");
    match opts.kind {
        Kind::BareAsm => {
            cmd.arg(asm_arch).arg("-nostdlib");
        }
        Kind::C => {
            // The C -march selects picolibc's multilib; the assembler is told about A and
            // Zicsr separately (crt0 and hand-written assembly need them).
            cmd.args(["--specs=picolibc.specs", &c_arch])
                .arg(format!("-Wa,{asm_arch}"))
                .arg(rt.join("crt0.S"))
                .arg(rt.join("htif.c"));
        }
    }
    cmd.args(&opts.extra).args(sources).arg("-o").arg(output);
    let out = cmd.output().map_err(spawn_error)?;
    if !out.status.success() {
        // Remove any partial output so that a failed build leaves nothing behind.
        let _ = std::fs::remove_file(output);
        return Err(ToolchainError::Failed {
            output: output.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(output.to_path_buf())
}

/// Refuses sources that are not readable regular files, and an output that is one of
/// the sources (the ELF would replace it) or a directory, before anything runs.
pub fn check_paths(sources: &[PathBuf], output: &Path) -> Result<(), ToolchainError> {
    let output_id = std::fs::canonicalize(output).ok();
    for source in sources {
        let bad = |why: String| ToolchainError::BadSource {
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
            return Err(ToolchainError::OutputIsSource(output.to_path_buf()));
        }
    }
    if output.is_dir() {
        return Err(ToolchainError::OutputIsDirectory(output.to_path_buf()));
    }
    Ok(())
}

/// A temporary directory beside a build's output for its intermediate files; the
/// finished ELF is renamed into place at the end, so a failed build leaves neither a
/// partial ELF nor stray files, and an existing output stays as it was.
pub struct Staging {
    dir: tempfile::TempDir,
    output: PathBuf,
}

impl Staging {
    /// Creates the directory next to `output`.
    pub fn beside(output: &Path) -> Result<Staging, ToolchainError> {
        let parent = match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let dir = tempfile::Builder::new()
            .prefix(".accelgen-asm-")
            .tempdir_in(parent)
            .map_err(|err| ToolchainError::Io {
                what: "creating a temporary directory in",
                path: parent.to_path_buf(),
                err,
            })?;
        Ok(Staging {
            dir,
            output: output.to_path_buf(),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Renames `elf` (built in the directory) to the output; the directory goes.
    pub fn install(self, elf: &Path) -> Result<PathBuf, ToolchainError> {
        std::fs::rename(elf, &self.output).map_err(|err| ToolchainError::Io {
            what: "writing",
            path: self.output.clone(),
            err,
        })?;
        Ok(self.output)
    }
}
