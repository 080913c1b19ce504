//! The `rocket` design at `xlen = 32` (RV32IMA) in lockstep with the ISS, which runs an
//! ELF of class 32 as an RV32 hart: the RV32 ISA tests (`verification/isa-tests-rv32`,
//! those without F), every integer ISA test that assembles for RV32 (the others use
//! RV64's own instructions), a directed test of RV32's CSRs and of RV64's encodings
//! trapping as illegal, the C programs built for RV32IM, and random RV32 programs; on two
//! configurations (rocket-default's BTB and caches, and rocket-small's direct memory with
//! the BHT, the pipelined multiplier and inferred adders), under memory latencies of 1,
//! 10 and 100 cycles with jitter and back-pressure. Also the loader's check of the ELF's
//! class against the design's `xlen`, and the whole tile's lint at both register widths
//! of every predictor and memory kind.

mod rocket_rig;

use rocket_rig::{iss_exit, memory, root, run_quiet, sources};
use std::path::{Path, PathBuf};
use verification::iss::{FpExt, Isa, Xlen};
use verification::tb::program::{self, ProgramError};
use verification::toolchain::Kind;
use verification::verilator::Model;

const RV32IMA: Isa = Isa {
    xlen: Xlen::Rv32,
    fp: FpExt::None,
};

/// The configurations (a preset and overrides), both at `xlen = 32`.
const CONFIGS: [(&str, &str); 2] = [
    ("rocket-default", ""),
    (
        "rocket-small",
        "predictor = \"bht\"\nmul = \"pipelined\"\nmul_stages = 2\nadders = \"inferred\"",
    ),
];

/// The parameters of a preset with overrides, at `xlen = 32`.
fn params((preset, overrides): (&str, &str)) -> toml::Table {
    let mut table = rocket_rig::params(preset, overrides);
    table.insert("xlen".into(), 32.into());
    table
}

fn model(config: (&str, &str)) -> Model {
    rocket_rig::model(&params(config))
}

/// The models of every configuration, named.
fn models() -> Vec<(String, Model)> {
    CONFIGS
        .iter()
        .map(|&c| (c.0.to_string(), model(c)))
        .collect()
}

/// Builds `src` for RV32IMA; `None` if it does not assemble (RV64's own instructions).
fn build(src: &Path, dir: &Path, kind: Kind) -> Option<PathBuf> {
    rocket_rig::build(src, dir, kind, RV32IMA).ok()
}

/// RV32's CSRs on an integer-only hart (misa, mstatus, mstatush, the counters' high
/// halves, a half written alone) and RV64's encodings trapping as illegal instructions.
const CSR_AND_ILLEGAL: &str = r#"#include "isa_test.h"
TEST_BEGIN
li TESTNUM, 1; csrr a4, misa; CHECK(a4, 0x40001101)
li TESTNUM, 2; li t0, 0x88; csrs mstatus, t0; csrr a4, mstatus; CHECK(a4, 0x1888)
csrc mstatus, t0
li TESTNUM, 3; csrr a4, mstatush; CHECK(a4, 0)
li TESTNUM, 4; csrr a4, instreth; CHECK(a4, 0)
csrr a4, cycleh; csrr a4, timeh; csrr a4, mcycleh
li TESTNUM, 5; li a1, 7; csrw minstreth, a1; csrr a4, minstreth; CHECK(a4, 7)
csrr a4, instreth; CHECK(a4, 7)
li TESTNUM, 6; li a1, -16; csrw minstret, a1; csrr a4, minstreth; CHECK(a4, 7)
csrr a5, minstret; csrr a4, minstreth; csrw minstreth, zero
li TESTNUM, 7; li a1, -1; csrw mscratch, a1; csrr a4, mscratch; CHECK(a4, -1)
li TESTNUM, 8; csrw mcycleh, zero; csrw mcycle, zero; csrr a4, mcycle
TRAP_HANDLER
li s2, -1; li s3, -1; li s4, -1
1: .word 0x0005b703       # ld a4, 0(a1)
TRAP_CHECK(9, 2, 1b, 0x0005b703)
2: .word 0x00e5b023       # sd a4, 0(a1)
TRAP_CHECK(10, 2, 2b, 0x00e5b023)
3: .word 0x00c5873b       # addw a4, a1, a2
TRAP_CHECK(11, 2, 3b, 0x00c5873b)
4: .word 0x02059713       # slli a4, a1, 32
TRAP_CHECK(12, 2, 4b, 0x02059713)
5: .word 0x0005e703       # lwu a4, 0(a1)
TRAP_CHECK(13, 2, 5b, 0x0005e703)
6: .word 0x0015871b       # addiw a4, a1, 1
TRAP_CHECK(14, 2, 6b, 0x0015871b)
7: .word 0x02c5873b       # mulw a4, a1, a2
TRAP_CHECK(15, 2, 7b, 0x02c5873b)
8: .word 0x00c5b72f       # amoadd.d a4, a2, (a1)
TRAP_CHECK(16, 2, 8b, 0x00c5b72f)
9: .word 0x4205d713       # srai a4, a1, 32
TRAP_CHECK(17, 2, 9b, 0x4205d713)
10: .word 0x1005b72f      # lr.d a4, (a1)
TRAP_CHECK(18, 2, 10b, 0x1005b72f)
li TESTNUM, 19; la a1, data; lw a4, 4(a1); CHECK(a4, -2147483648)
lw a4, 0(a1); CHECK(a4, 0x12345678)
TEST_END
  .align 3
data: .word 0x12345678, 0x80000000
"#;

/// The RV32 tests and every integer ISA test that assembles for RV32: each exits on the
/// design as on the ISS (most with 0; the others check RV64's results and fail a case,
/// the same one on both).
#[test]
fn rv32_isa_tests_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let directed = dir.path().join("rv32_csr_illegal.S");
    std::fs::write(&directed, CSR_AND_ILLEGAL).unwrap();
    let mut srcs = sources("isa-tests-rv32", "S");
    // rv32_csr checks an RV32IMAF hart's misa and mstatus.FS (the FPU is not here yet).
    srcs.retain(|s| !s.ends_with("rv32_csr.S"));
    srcs.push(directed);
    let own: Vec<PathBuf> = srcs
        .iter()
        .map(|s| build(s, dir.path(), Kind::BareAsm).expect("an RV32 test assembles"))
        .collect();
    for elf in &own {
        assert_eq!(
            iss_exit(elf, FpExt::None),
            0,
            "{} on the ISS",
            elf.display()
        );
    }
    let shared: Vec<PathBuf> = sources("isa-tests", "S")
        .iter()
        .filter_map(|s| build(s, dir.path(), Kind::BareAsm))
        .collect();
    assert!(shared.len() >= 50, "{} ISA tests assemble", shared.len());
    let passing = shared
        .iter()
        .filter(|e| iss_exit(e, FpExt::None) == 0)
        .count();
    assert!(passing >= 35, "{passing} ISA tests pass on RV32");
    let elves: Vec<(PathBuf, u64)> = own
        .into_iter()
        .map(|e| (e, 0))
        .chain(shared.into_iter().map(|e| {
            let code = iss_exit(&e, FpExt::None);
            (e, code)
        }))
        .collect();
    rocket_rig::run_everywhere(models(), &elves, FpExt::None);
}

/// The C programs built for RV32IM (ilp32, picolibc's multilib): console and exit code
/// as on the ISS, in lockstep; each on one configuration, rotating (both with
/// `ACCELGEN_LONG=1`).
#[test]
fn rv32_c_programs_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let programs = sources("programs", "c");
    assert!(programs.len() >= 4);
    let elves: Vec<(PathBuf, u64)> = programs
        .iter()
        .map(|s| {
            let elf = build(s, dir.path(), Kind::C).expect("builds for RV32IM");
            let code = iss_exit(&elf, FpExt::None);
            (elf, code)
        })
        .collect();
    rocket_rig::run_rotating(models(), &elves, FpExt::None);
}

/// Random RV32 instruction streams (`randgen::generate_for` with RV32IMA).
#[test]
fn rv32_random_programs_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let mut duts: Vec<Model> = CONFIGS.iter().map(|&c| model(c)).collect();
    for seed in 0..40u64 {
        let src = dir.path().join(format!("rand{seed}.S"));
        std::fs::write(
            &src,
            verification::randgen::generate_for(seed, 300, RV32IMA),
        )
        .unwrap();
        let elf = build(&src, dir.path(), Kind::BareAsm).expect("assembles");
        let c = (seed % 2) as usize;
        let out = run_quiet(
            &mut duts[c],
            &elf,
            memory((seed / 2) as usize, seed),
            FpExt::None,
        )
        .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", CONFIGS[c].0));
        assert_eq!(out.exit_code, 0, "seed {seed}");
    }
}

/// The loader takes an ELF whose class is the design's `xlen` only.
#[test]
fn programs_must_match_the_designs_xlen() {
    let dir = tempfile::tempdir().unwrap();
    let src = root().join("verification/isa-tests-rv32/rv32_alu.S");
    let elf = build(&src, dir.path(), Kind::BareAsm).unwrap();
    let rv32 = params(CONFIGS[0]);
    assert!(program::load(&elf, &rv32).is_ok());
    let rv64: toml::Table = "xlen = 64".parse().unwrap();
    match program::load(&elf, &rv64) {
        Err(e @ ProgramError::Xlen { .. }) => {
            assert!(e
                .to_string()
                .contains("an RV32 program for a design with xlen = 64"))
        }
        other => panic!("{other:?}"),
    }
    assert!(program::load(&elf, &toml::Table::new()).is_err());
}

/// The whole tile at `xlen` 32 and 64 with every predictor, both memory kinds and both
/// adder styles is lint clean (Verilator -Wall, Yosys, Icarus Verilog).
#[test]
fn rv32_tiles_are_lint_clean() {
    for (predictor, memory, adders) in [
        ("none", "direct", "prefix"),
        ("bht", "cache", "inferred"),
        ("btb", "cache", "prefix"),
        ("btb", "direct", "inferred"),
    ] {
        let mut table: toml::Table = format!(
            "xlen = 32\npredictor = \"{predictor}\"\nmemory = \"{memory}\"\nadders = \"{adders}\""
        )
        .parse()
        .unwrap();
        table.insert("rocc".into(), (predictor == "bht").into());
        rocket_rig::lint_clean(&table);
    }
}
