//! Shared by the `rocket` lockstep tests (`rocket_lockstep.rs`, `rocket_rv32.rs`,
//! `rocket_fpu.rs`): the configurations' parameters and Verilator models, the memory
//! timings they cycle through, the sources of `verification/` and their builds, runs in
//! lockstep with the ISS, and the tile's lint.

#![allow(dead_code)] // each test file uses part of the rig

use asic_flow::lint::{run_all, LintTarget};
use hdl::sim::Init;
use hdl::Design;
use std::path::{Path, PathBuf};
use verification::elf;
use verification::iss::{FpExt, Isa, IssConfig, Stop};
use verification::tb::memory::MemConfig;
use verification::tb::soc::{self, SocConfig, SocOutcome};
use verification::toolchain::{build_elf, BuildOptions, Kind};
use verification::verilator::{Model, Options, INIT_SEEDS};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The parameters of preset `configs/<preset>.toml` with `overrides` (TOML lines).
pub fn params(preset: &str, overrides: &str) -> toml::Table {
    let text = std::fs::read_to_string(root().join(format!("configs/{preset}.toml"))).unwrap();
    let mut table: toml::Table = text.parse().unwrap();
    table.extend(overrides.parse::<toml::Table>().unwrap());
    table
}

/// The Verilator model of design `rocket` with `params`.
pub fn model(params: &toml::Table) -> Model {
    let top = generators::elaborate("rocket", params).unwrap();
    Model::of_design(&Design::new(&top), &Options::default()).unwrap()
}

/// Memory timing number `i` of the three the tests cycle through: latency 1, 10 and 100
/// cycles with jitter and 10-30 % back-pressure.
pub fn memory(i: usize, seed: u64) -> MemConfig {
    let (latency, jitter, stall_percent) = [(1, 0, 10), (10, 3, 20), (100, 10, 30)][i % 3];
    MemConfig {
        latency,
        jitter,
        stall_percent,
        seed,
        max_outstanding: 4,
        ..MemConfig::default()
    }
}

/// The files of `verification/<dir>` ending in `.<ext>`, sorted.
pub fn sources(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("verification").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Lints design `rocket` with `params` as one file (Verilator -Wall, Yosys, Icarus
/// Verilog); panics with the tools' output unless every one is clean.
pub fn lint_clean(params: &toml::Table) {
    let design = Design::new(&generators::elaborate("rocket", params).unwrap());
    let verilog = hdl::emit::emit(&design, &Default::default()).single_file();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tile.v"), verilog).unwrap();
    let target = LintTarget {
        dir: dir.path().to_path_buf(),
        files: vec!["tile.v".into()],
        top: design.top_name().to_string(),
    };
    for v in run_all(&target).unwrap() {
        assert!(v.clean, "{params}: {}:\n{}", v.tool, v.output);
    }
}

/// Builds `src` for `isa` into `dir` (`<stem>.elf`).
pub fn build(src: &Path, dir: &Path, kind: Kind, isa: Isa) -> Result<PathBuf, String> {
    let elf = dir.join(src.file_stem().unwrap()).with_extension("elf");
    let opts = BuildOptions {
        isa,
        ..BuildOptions::new(kind)
    };
    build_elf(std::slice::from_ref(&src.to_path_buf()), &elf, &opts).map_err(|e| e.to_string())
}

/// The bench of the lockstep runs: memory `mem`, runs alternating the two random initial
/// states by their memory seed, a 20 M-cycle limit.
pub fn lockstep_config(mem: MemConfig) -> SocConfig {
    SocConfig {
        init: Init::Random {
            seed: INIT_SEEDS[(mem.seed % 2) as usize],
        },
        mem,
        max_cycles: 20_000_000,
        ..SocConfig::default()
    }
}

/// Runs `elf` on `dut` in lockstep with the ISS (floating-point extensions `fp`), the
/// console discarded.
pub fn run_quiet(
    dut: &mut Model,
    elf: &Path,
    mem: MemConfig,
    fp: FpExt,
) -> Result<SocOutcome, String> {
    let program = elf::load_file(elf).map_err(|e| e.to_string())?;
    let golden = soc::golden_with(&program, 50_000_000, fp).map_err(|e| e.to_string())?;
    let sink = || Box::new(std::io::sink());
    soc::run(
        dut,
        &program,
        &lockstep_config(mem),
        sink(),
        sink(),
        Some(golden),
    )
    .map_err(|e| format!("{}: {e}", elf.display()))
}

/// The exit code of `elf` on the ISS alone (floating-point extensions `fp`).
pub fn iss_exit(elf: &Path, fp: FpExt) -> u64 {
    let program = elf::load_file(elf).unwrap();
    let config = IssConfig {
        fp,
        stdout: Box::new(std::io::sink()),
        stderr: Box::new(std::io::sink()),
        ..IssConfig::default()
    };
    match verification::iss::Iss::new(&program, config)
        .unwrap()
        .run(None, None)
        .unwrap()
    {
        Stop::Exit(code) => code,
        stop => panic!("{}: {stop:?}", elf.display()),
    }
}

/// Runs each of `elves` (with the exit code it must give) on each of `duts` (named),
/// cycling through the memory timings, in lockstep with the ISS of `fp`.
pub fn run_everywhere(duts: Vec<(String, Model)>, elves: &[(PathBuf, u64)], fp: FpExt) {
    run_on(duts, elves, fp, |_, _| true, |_, i| i);
}

/// [`run_everywhere`] for the long programs (the C programs): in the fast suite program
/// `i` runs on `duts[i % duts.len()]` only, so that every program and every design run;
/// on every design with `ACCELGEN_LONG=1`. The fast suite runs a design of the
/// rocket-small preset (no caches) at the first two memory timings only: at latency 100
/// it takes over 60 cycles an instruction (memcpy 19 M cycles), and its ISA tests and
/// random programs run there already.
pub fn run_rotating(duts: Vec<(String, Model)>, elves: &[(PathBuf, u64)], fp: FpExt) {
    let (n, all) = (duts.len(), std::env::var_os("ACCELGEN_LONG").is_some());
    let timing = move |name: &str, i: usize| match all || !name.starts_with("rocket-small") {
        true => i,
        false => (i / n) % 2,
    };
    run_on(duts, elves, fp, |d, i| all || i % n == d, timing);
}

/// Runs program `i` of `elves` on design `d` of `duts` where `run(d, i)`, at memory
/// timing `timing(design name, i)`.
fn run_on(
    duts: Vec<(String, Model)>,
    elves: &[(PathBuf, u64)],
    fp: FpExt,
    run: impl Fn(usize, usize) -> bool,
    timing: impl Fn(&str, usize) -> usize,
) {
    for (d, (name, mut dut)) in duts.into_iter().enumerate() {
        for (i, (elf, expected)) in elves.iter().enumerate().filter(|e| run(d, e.0)) {
            let out = run_quiet(&mut dut, elf, memory(timing(&name, i), i as u64), fp)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(out.exit_code, *expected, "{name}: {}", elf.display());
        }
    }
}
