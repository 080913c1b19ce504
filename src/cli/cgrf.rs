//! `accelgen cgrf-compile`: compile the SPMD kernels of an RV32IMAF program for the VGIW
//! fabric (seed 004): the kernels are the functions the program launches (found by
//! running it on the ISS) or those named with `--entry`; prints, or writes, the listing
//! of every block's dataflow graph, successors, live values and replicas.

use super::params::ParamArgs;
use anyhow::{bail, Context};
use generators::vgiw::compiler::compile;
use generators::vgiw::params::VgiwParams;
use std::io::Write;
use std::path::PathBuf;
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
    #[command(flatten)]
    params: ParamArgs,
}

/// Host steps the program may take while its kernels are found.
const MAX_STEPS: u64 = 1_000_000_000;

pub fn run(args: CgrfCompileArgs) -> anyhow::Result<u8> {
    let params: VgiwParams = args.params.table()?.try_into().context("vgiw parameters")?;
    params.validate()?;
    if let Some(out) = &args.output {
        if out.symlink_metadata().is_ok() {
            bail!("output {} exists; not overwriting it", out.display());
        }
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
    for entry in entries {
        let code = kernels::code(&program, entry)?;
        let kernel = compile(&code, &params).with_context(|| format!("kernel {}", code.name))?;
        listing += &format!("{kernel}\n");
    }
    match &args.output {
        Some(out) => {
            let dir = out.parent().filter(|p| !p.as_os_str().is_empty());
            let mut tmp = tempfile::NamedTempFile::new_in(dir.unwrap_or(std::path::Path::new(".")))
                .with_context(|| format!("cannot write {}", out.display()))?;
            tmp.write_all(listing.as_bytes())?;
            tmp.persist_noclobber(out)
                .with_context(|| format!("cannot write {}", out.display()))?;
        }
        None => print!("{listing}"),
    }
    Ok(0)
}
