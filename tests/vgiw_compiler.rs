//! The VGIW kernel compiler (seed 004 section 3.1) on the SPMD kernels of `kernels/`:
//! every kernel the programs launch compiles, and every block execution of every
//! thread agrees with the RV32IMAF ISS (the interpreter, firing nodes in random orders
//! the graph allows, against the ISS running the block's instructions).

use generators::vgiw::compiler::{compile, CompileOptions, Kernel};
use std::path::{Path, PathBuf};
use verification::elf::{self, Program};
use verification::kernels::build_program;
use verification::vgiw::{check, kernels};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The program `kernels/<name>.c`, built into `dir`.
fn build(dir: &Path, name: &str) -> Program {
    let src: PathBuf = root().join(format!("kernels/{name}.c"));
    let elf = dir.join(format!("{name}.elf"));
    build_program(&[src], &elf, &[root().join("kernels")], &[]).unwrap();
    elf::load_file(&elf).unwrap()
}

fn compile_all(program: &Program) -> Vec<Kernel> {
    let entries = kernels::launched(program, 200_000_000).unwrap();
    (entries.iter())
        .map(|&e| {
            let code = kernels::code(program, e).unwrap();
            compile(&code, &CompileOptions::default())
                .unwrap_or_else(|err| panic!("{}: {err}", code.name))
        })
        .collect()
}

const KERNELS: [&str; 13] = [
    "bfs",
    "bilat",
    "bsearch",
    "cmult",
    "conv",
    "dither",
    "kmeans",
    "mfilt",
    "rgb2cmyk",
    "rsort",
    "sgemm",
    "strsearch",
    "viterbi",
];

#[test]
fn every_block_of_every_kernel_agrees_with_the_iss() {
    let dir = tempfile::tempdir().unwrap();
    for name in KERNELS {
        let program = build(dir.path(), name);
        let kernels = compile_all(&program);
        let cov = check::check_program(&program, &kernels, 400_000_000, 1)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("{name}: {cov:?}");
        if name == "cmult" {
            eprintln!("{}", kernels[0]);
        }
    }
}
