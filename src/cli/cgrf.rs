//! `accelgen cgrf-compile`: compile the SPMD kernels of an RV32IMAF program for the VGIW
//! fabric (seed 004): the kernels are the functions the program launches (found by
//! running it on the ISS) or those named with `--entry`; prints, or writes, the listing
//! of every block's dataflow graph, successors, live values, replicas and placement,
//! and writes the binary kernel image with `--image`.

use super::params::ParamArgs;
use anyhow::{bail, Context};
use generators::vgiw::compiler::compile;
use generators::vgiw::compiler::image::encode;
use generators::vgiw::grid::Grid;
use generators::vgiw::params::VgiwParams;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use verification::vgiw::kernels;

#[derive(clap::Args)]
pub struct CgrfCompileArgs {
    /// The program: an RV32IMAF ELF built by `accelgen asm --target simt`.
    pub program: PathBuf,
    /// Compile the kernel function SYMBOL (repeatable) instead of every kernel the
    /// program launches.
    #[arg(long, value_name = "SYMBOL")]
    pub entry: Vec<String>,
    /// Write the listing to FILE (which must not exist) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the kernel image (block sequence and per-block configuration words of
    /// every cell, `generators/src/vgiw/compiler/image.rs`) to FILE (which must not
    /// exist).
    #[arg(long, value_name = "FILE")]
    pub image: Option<PathBuf>,
    #[command(flatten)]
    params: ParamArgs,
}

/// Host steps the program may take while its kernels are found.
const MAX_STEPS: u64 = 1_000_000_000;

pub fn run(args: CgrfCompileArgs) -> anyhow::Result<u8> {
    let params: VgiwParams = args.params.table()?.try_into().context("vgiw parameters")?;
    params.validate()?;
    for out in args.output.iter().chain(&args.image) {
        if out.symlink_metadata().is_ok() {
            bail!("output {} exists; not overwriting it", out.display());
        }
    }
    if args.output.is_some() && args.output == args.image {
        bail!("the listing and the image cannot be the same file");
    }
    let program = verification::elf::load_file(&args.program)
        .with_context(|| format!("loading {}", args.program.display()))?;
    let entries = if args.entry.is_empty() {
        kernels::launched(&program, MAX_STEPS)
            .with_context(|| format!("finding the kernels {} launches", args.program.display()))?
    } else {
        (args.entry.iter())
            .map(|name| kernels::named(&program, name))
            .collect::<Result<_, _>>()?
    };
    let mut listing = String::new();
    let mut compiled = Vec::new();
    for entry in entries {
        let code = kernels::code(&program, entry)?;
        let kernel = compile(&code, &params).with_context(|| format!("kernel {}", code.name))?;
        listing += &format!("{kernel}\n");
        compiled.push(kernel);
    }
    let image = encode(&compiled, &Grid::new(&params), params.switch_channels);
    let mut files: Vec<(&PathBuf, &[u8])> = Vec::new();
    if let Some(out) = &args.output {
        files.push((out, listing.as_bytes()));
    } else {
        print!("{listing}");
    }
    if let Some(out) = &args.image {
        files.push((out, &image));
    }
    write_new(&files)?;
    Ok(0)
}

/// Writes each file, which must not exist, all or none.
fn write_new(files: &[(&PathBuf, &[u8])]) -> anyhow::Result<()> {
    let mut staged = Vec::new();
    for (path, bytes) in files {
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
        let mut tmp = tempfile::NamedTempFile::new_in(dir.unwrap_or(Path::new(".")))
            .with_context(|| format!("cannot write {}", path.display()))?;
        tmp.write_all(bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        // Readable by all, as a file the user wrote (the temporary file is private).
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))?;
        staged.push((tmp, path));
    }
    let mut done: Vec<&PathBuf> = Vec::new();
    for (tmp, path) in staged {
        if let Err(e) = tmp.persist_noclobber(path) {
            for d in done {
                let _ = std::fs::remove_file(d);
            }
            return Err(e.error).with_context(|| format!("cannot write {}", path.display()));
        }
        done.push(path);
    }
    Ok(())
}
