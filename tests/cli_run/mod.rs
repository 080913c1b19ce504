//! Running the `accelgen` binary from the CLI tests: its exit code and both streams.
#![allow(dead_code)] // Each test file uses its own part.

use assert_cmd::cargo::cargo_bin_cmd;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// What one run of `accelgen` did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `accelgen args` with the extra environment `env`.
pub fn accelgen_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let out = cargo_bin_cmd!("accelgen")
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run accelgen");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `accelgen args`.
pub fn accelgen(args: &[&str]) -> Run {
    accelgen_env(args, &[])
}

/// A failed run, for an assertion's message: `what`, the exit code and both streams.
pub fn explain(what: &str, run: &Run) -> String {
    format!(
        "{what}: exit {}\nstdout: {}\nstderr: {}",
        run.code, run.stdout, run.stderr
    )
}

/// `ACCELGEN_LONG` is set: the long suite.
pub fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// The small `fgsimt` tile the CLI tests run programs on (2 lanes, warps of 8, 8 KiB D$
/// in 2 banks, 4 KiB I$): one Verilator model, shared through the model cache.
pub const FGSIMT_TILE: [&str; 5] = [
    "lanes=2",
    "warp_size=8",
    "dcache_bytes=8192",
    "dcache_banks=2",
    "icache_bytes=4096",
];

/// An AVC and L1 of one line each (`fgsimt`'s `avc = true`): every access past the
/// first evicts.
pub const AVC_TINY: [&str; 5] = [
    "avc_sets=2",
    "avc_ways=1",
    "avc_vectors_per_line=2",
    "avc_l1_sets=2",
    "avc_l1_ways=1",
];

/// `kernels/<name>.c` built for the SIMT target with 10 registers left to GCC, so that
/// it spills to the threads' stacks (as seed 002 limits them).
pub fn spilling(dir: &Path, name: &str) -> std::path::PathBuf {
    let elf = dir.join(format!("{name}-r10.elf"));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kernels/{name}.c"));
    let flags = verification::fgsimt::avc::private::register_limit_flags();
    verification::kernels::build_program_with(&[src], &elf, (&[], &[]), &flags).unwrap();
    elf
}

/// A temporary path as an argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Every file under `dir`, recursively, by relative path.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().unwrap().is_dir() {
            for (sub, bytes) in tree(&e.path()) {
                all.insert(format!("{name}/{sub}"), bytes);
            }
        } else {
            all.insert(name, fs::read(e.path()).unwrap());
        }
    }
    all
}
