//! The `rocket` design with the F extension (`xlen = 32`, `fpu = true`: RV32IMAF) in
//! lockstep with the ISS as an RV32IMAF hart: the single-precision ISA tests
//! (`verification/isa-tests-f`: every F instruction in every rounding mode on special
//! and random operands, FS Off, fcsr fields, reserved and dynamic rounding modes), the
//! RV32 CSR test (`isa-tests-rv32/rv32_csr.S`, misa and mstatus.FS of an RV32IMAF
//! hart), the float C program (`verification/programs-fp`, built for RV32IMAF / ilp32f)
//! and random FP programs whose f registers start from special values, on two
//! configurations (rocket-default's with a 3-stage FMA, and rocket-small's with the BHT
//! and a 1-stage FMA), under memory latencies of 1, 10 and 100 cycles.

mod rocket_rig;

use rocket_rig::{iss_exit, memory, run_quiet, sources};
use std::path::{Path, PathBuf};
use verification::iss::{FpExt, Isa, Xlen};
use verification::toolchain::Kind;
use verification::verilator::Model;

const RV32IMAF: Isa = Isa {
    xlen: Xlen::Rv32,
    fp: FpExt::F,
};

/// The configurations (a preset and overrides), both RV32IMAF.
const CONFIGS: [(&str, &str); 2] = [
    ("rocket-default", "fma_stages = 3"),
    ("rocket-small", "predictor = \"bht\"\nfma_stages = 1"),
];

fn model((preset, overrides): (&str, &str)) -> Model {
    let mut table = rocket_rig::params(preset, overrides);
    table.insert("xlen".into(), 32.into());
    table.insert("fpu".into(), true.into());
    rocket_rig::model(&table)
}

fn build(src: &Path, dir: &Path, kind: Kind) -> PathBuf {
    rocket_rig::build(src, dir, kind, RV32IMAF).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs every one of `elves` in lockstep, on every configuration or (`rotating`, for the
/// C programs) on one each, rotating ([`rocket_rig::run_rotating`]); each must exit as on
/// the ISS alone.
fn run_everywhere(elves: &[PathBuf], rotating: bool) {
    let expected: Vec<(PathBuf, u64)> = (elves.iter())
        .map(|e| (e.clone(), iss_exit(e, FpExt::F)))
        .collect();
    let duts = CONFIGS
        .iter()
        .map(|&c| (format!("{} {}", c.0, c.1), model(c)))
        .collect();
    match rotating {
        true => rocket_rig::run_rotating(duts, &expected, FpExt::F),
        false => rocket_rig::run_everywhere(duts, &expected, FpExt::F),
    }
}

#[test]
fn f_isa_tests_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let mut srcs = sources("isa-tests-f", "S");
    assert!(srcs.len() >= 10);
    srcs.extend(sources("isa-tests-rv32", "S"));
    let elves: Vec<PathBuf> = srcs
        .iter()
        .map(|s| build(s, dir.path(), Kind::BareAsm))
        .collect();
    for elf in &elves {
        assert_eq!(iss_exit(elf, FpExt::F), 0, "{} on the ISS", elf.display());
    }
    run_everywhere(&elves, false);
}

#[test]
fn float_c_programs_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let elves: Vec<PathBuf> = sources("programs-fp", "c")
        .iter()
        .chain(sources("programs", "c").iter())
        .map(|s| build(s, dir.path(), Kind::C))
        .collect();
    run_everywhere(&elves, true);
}

#[test]
fn random_fp_programs_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let mut duts: Vec<Model> = CONFIGS.iter().map(|&c| model(c)).collect();
    for seed in 0..30u64 {
        let src = dir.path().join(format!("rand{seed}.S"));
        std::fs::write(
            &src,
            verification::randgen::generate_for(seed, 300, RV32IMAF),
        )
        .unwrap();
        let elf = build(&src, dir.path(), Kind::BareAsm);
        let c = (seed % 2) as usize;
        let out = run_quiet(
            &mut duts[c],
            &elf,
            memory((seed / 2) as usize, seed),
            FpExt::F,
        )
        .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", CONFIGS[c].0));
        assert_eq!(out.exit_code, 0, "seed {seed}");
    }
}

/// The tile with the F extension is lint clean with each predictor, memory kind and
/// adder style and at the FMA's shallowest and deepest pipelines; on RV64 it is refused.
#[test]
fn fpu_tiles_are_lint_clean() {
    for (predictor, memory, adders, stages) in [
        ("none", "direct", "prefix", 1),
        ("bht", "cache", "inferred", 5),
        ("btb", "cache", "prefix", 3),
    ] {
        let table: toml::Table = format!(
            "xlen = 32\nfpu = true\npredictor = \"{predictor}\"\nmemory = \"{memory}\"\n\
             adders = \"{adders}\"\nfma_stages = {stages}"
        )
        .parse()
        .unwrap();
        rocket_rig::lint_clean(&table);
    }
    let rv64: toml::Table = "fpu = true".parse().unwrap();
    let err = generators::elaborate("rocket", &rv64)
        .unwrap_err()
        .to_string();
    assert!(err.contains("built for xlen = 32 only"), "{err}");
}
