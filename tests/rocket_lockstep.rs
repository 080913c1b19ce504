//! The `rocket` design in lockstep with the ISS: every ISA test, the C programs, random
//! instruction streams and the directed hazard programs of `verification/rocket-tests/`,
//! on three configurations, under memory latencies of 1, 10 and 100 cycles with jitter
//! and random back-pressure. Every commit is compared with the ISS's (pc, instruction,
//! register write, memory write), and the program's exit code and console output must
//! be the ISS's.

mod rocket_rig;

use rocket_rig::{lockstep_config, memory, root, sources};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use verification::elf;
use verification::tb::lockstep::IssGolden;
use verification::tb::memory::MemConfig;
use verification::tb::soc::{self, SocOutcome};
use verification::toolchain::{build_elf, BuildOptions, Kind};
use verification::verilator::Model;

/// The configurations: both presets, and the default one with the decode-stage BHT, a
/// pipelined multiplier, a 2-bit divider and the FPGA's inferred adders instead.
const CONFIGS: [(&str, &str); 3] = [
    ("rocket-small", ""),
    ("rocket-default", ""),
    (
        "rocket-default",
        "predictor = \"bht\"\nbht_entries = 32\nmul = \"pipelined\"\nmul_stages = 2\n\
         div_bits_per_cycle = 2\ndcache_ways = 1\nicache_line_bytes = 16\n\
         adders = \"inferred\"",
    ),
];

/// A configuration's name in messages.
fn name(config: (&str, &str)) -> String {
    if config.1.is_empty() {
        config.0.to_string()
    } else {
        format!("{} with {}", config.0, config.1.replace('\n', ", "))
    }
}

fn long() -> bool {
    std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1")
}

/// The Verilator model of a preset with overrides.
fn model((preset, overrides): (&str, &str)) -> Model {
    rocket_rig::model(&rocket_rig::params(preset, overrides))
}

/// A shared buffer for console output.
#[derive(Clone, Default)]
struct Console(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Console {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Console {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Runs `elf` on `dut` in lockstep; returns the outcome and the console output.
fn run(dut: &mut Model, elf: &Path, mem: MemConfig) -> Result<(SocOutcome, String), String> {
    let program = elf::load_file(elf).map_err(|e| e.to_string())?;
    let golden: IssGolden = soc::golden(&program, 50_000_000).map_err(|e| e.to_string())?;
    let console = Console::default();
    let config = lockstep_config(mem);
    let out = soc::run(
        dut,
        &program,
        &config,
        Box::new(console.clone()),
        Box::new(console.clone()),
        Some(golden),
    )
    .map_err(|e| format!("{}: {e}", elf.display()))?;
    Ok((out, console.text()))
}

fn build(src: &Path, dir: &Path, kind: Kind) -> PathBuf {
    let elf = dir.join(src.file_stem().unwrap()).with_extension("elf");
    build_elf(
        std::slice::from_ref(&src.to_path_buf()),
        &elf,
        &BuildOptions::new(kind),
    )
    .unwrap();
    elf
}

#[test]
fn isa_tests_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let elves: Vec<PathBuf> = sources("isa-tests", "S")
        .iter()
        .map(|s| build(s, dir.path(), Kind::BareAsm))
        .collect();
    assert!(elves.len() >= 90);
    for config in CONFIGS {
        let (preset, mut dut) = (name(config), model(config));
        for (i, elf) in elves.iter().enumerate() {
            let (out, _) =
                run(&mut dut, elf, memory(i, i as u64)).unwrap_or_else(|e| panic!("{preset}: {e}"));
            assert_eq!(out.exit_code, 0, "{preset}: {}", elf.display());
            assert!(out.matched > 10);
        }
    }
}

/// The console output of `elf` on the ISS alone (Spike's schedule): the reference for
/// the design's.
fn iss_console(elf: &Path) -> (u64, String) {
    let program = elf::load_file(elf).unwrap();
    let console = Console::default();
    let config = verification::iss::IssConfig {
        stdout: Box::new(console.clone()),
        stderr: Box::new(console.clone()),
        ..Default::default()
    };
    let mut iss = verification::iss::Iss::new(&program, config).unwrap();
    match iss.run(None, None).unwrap() {
        verification::iss::Stop::Exit(code) => (code, console.text()),
        stop => panic!("{}: {stop:?}", elf.display()),
    }
}

/// Every C program on every configuration, each at one memory latency, the latencies
/// rotating over programs and configurations (every latency with `ACCELGEN_LONG=1`).
#[test]
fn c_programs_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let programs = sources("programs", "c");
    assert!(programs.len() >= 4);
    for (c, config) in CONFIGS.iter().enumerate() {
        let (preset, mut dut) = (name(*config), model(*config));
        for (i, src) in programs.iter().enumerate() {
            let elf = build(src, dir.path(), Kind::C);
            let (code, text) = iss_console(&elf);
            assert!(!text.is_empty(), "{} prints its result", src.display());
            // The fast suite rotates the memory timings; on rocket-small, which has no
            // caches, only the first two: at latency 100 it takes over 60 cycles an
            // instruction (30 M cycles for three programs), and the ISA tests, random
            // and hazard programs run it at latency 100 already.
            let first = match c {
                0 => i % 2,
                _ => (i + c) % 3,
            };
            let latencies = match long() {
                true => 0..3,
                false => first..first + 1,
            };
            for latency in latencies {
                let (out, console) = run(&mut dut, &elf, memory(latency, (i * 3 + latency) as u64))
                    .unwrap_or_else(|e| panic!("{preset}: {e}"));
                assert_eq!(
                    (out.exit_code, console.as_str()),
                    (code, text.as_str()),
                    "{preset}"
                );
                println!(
                    "{preset} {} latency {}: {} instructions, CPI {:.2}",
                    src.file_stem().unwrap().to_string_lossy(),
                    memory(latency, 0).latency,
                    out.instret,
                    out.cpi()
                );
            }
        }
    }
}

#[test]
fn random_programs_in_lockstep() {
    let count = if long() { 100_000 } else { 200 };
    let dir = tempfile::tempdir().unwrap();
    let mut duts: Vec<Model> = CONFIGS.iter().map(|&c| model(c)).collect();
    for seed in 0..count as u64 {
        let src = dir.path().join(format!("rand{seed}.S"));
        std::fs::write(&src, verification::randgen::generate(seed, 300)).unwrap();
        let elf = build(&src, dir.path(), Kind::BareAsm);
        let c = (seed % 3) as usize;
        let (out, _) = run(&mut duts[c], &elf, memory((seed / 3) as usize, seed))
            .unwrap_or_else(|e| panic!("{} seed {seed}: {e}", name(CONFIGS[c])));
        assert_eq!(out.exit_code, 0, "seed {seed}");
        let _ = std::fs::remove_file(&src);
        let _ = std::fs::remove_file(&elf);
    }
}

#[test]
fn the_trace_port_has_the_lockstep_checkers_shape() {
    assert_eq!(
        generators::rocket::trace::trace_shape(),
        verification::tb::lockstep::trace_shape()
    );
    let memory = verification::tb::memory::request_shape(32, 8, 2);
    assert_eq!(generators::rocket::bus::mem_request(2), memory);
}

#[test]
fn directed_hazard_programs_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let elves: Vec<PathBuf> = sources("rocket-tests", "S")
        .iter()
        .map(|s| build(s, dir.path(), Kind::BareAsm))
        .collect();
    assert!(!elves.is_empty());
    for config in CONFIGS {
        let (preset, mut dut) = (name(config), model(config));
        for elf in &elves {
            for latency in 0..3 {
                let (out, _) = run(&mut dut, elf, memory(latency, latency as u64))
                    .unwrap_or_else(|e| panic!("{preset}: {e}"));
                assert_eq!(out.exit_code, 0, "{preset}: {}", elf.display());
            }
        }
    }
}

/// Taken conditional branches of `elf` on the ISS: the branches a direction predictor can
/// save a redirect on.
fn iss_taken_branches(elf: &Path) -> u64 {
    let program = elf::load_file(elf).unwrap();
    let mut iss =
        verification::iss::Iss::new(&program, verification::iss::IssConfig::default()).unwrap();
    let mut taken = 0;
    loop {
        match iss.step_one().unwrap() {
            verification::iss::Step::Retired(c) => {
                taken += u64::from(c.insn & 0x7f == 0x63 && iss.pc != c.pc.wrapping_add(4));
            }
            verification::iss::Step::Trapped { .. } => {}
            verification::iss::Step::Exited(_) => return taken,
            verification::iss::Step::Launch(_) => unreachable!("RV64 programs launch nothing"),
        }
    }
}

/// The decode-stage BHT learns: on a loop-heavy program (crc) the BHT configuration
/// takes at least half a cycle fewer per taken conditional branch (counted by the ISS)
/// than the same configuration without a predictor, whose taken branches redirect from
/// EX's registers (three cycles; a taken branch the BHT predicts costs two, its loop
/// exits mispredict). (A BHT that never trains predicts no branch and saves nothing.)
#[test]
fn bht_saves_the_redirect_of_taken_branches() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(
        &root().join("verification/programs/crc.c"),
        dir.path(),
        Kind::C,
    );
    let taken = iss_taken_branches(&elf);
    let bht = CONFIGS[2];
    let none = CONFIGS[2]
        .1
        .replace("predictor = \"bht\"", "predictor = \"none\"");
    assert_ne!(none, bht.1);
    let quiet = MemConfig {
        latency: 1,
        max_outstanding: 4,
        ..MemConfig::default()
    };
    let cycles = |config: (&str, &str)| {
        let (out, _) = run(&mut model(config), &elf, quiet.clone()).unwrap();
        assert_eq!(out.exit_code, 0, "{}", name(config));
        out.cycles
    };
    let (with_bht, without) = (cycles(bht), cycles((bht.0, &none)));
    println!("crc: {taken} taken branches, {with_bht} cycles with the BHT, {without} without");
    assert!(taken > 1000, "crc is loop-heavy: {taken} taken branches");
    assert!(
        2 * with_bht + taken <= 2 * without,
        "the BHT saves {} cycles on {taken} taken branches",
        without as i64 - with_bht as i64
    );
}

/// Straight-line ALU code streams from the I$ at one instruction a cycle (issue 21's
/// goal: CPI 1.02 at most; asserted with margin, 1.05). On rocket-default (rocket-small
/// fetches every instruction from memory; the third configuration's I$ is 1 KB), the
/// program times the last of 101 passes over 256 independent `addi`s (1 KB) with
/// `rdcycle` and `rdinstret` and prints both counts; the golden model takes the design's
/// counter values, and the instruction count is checked against the program's shape.
#[test]
fn straight_line_code_runs_at_one_instruction_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..256)
        .map(|i| ["\"addi %0, %0, 1\\n\\t\"\n", "\"addi t1, t1, 1\\n\\t\"\n"][i % 2])
        .collect();
    let src = dir.path().join("straight.c");
    std::fs::write(
        &src,
        format!(
            "#include <stdio.h>\n\
             static long cycles(void) {{ long c; __asm__ volatile(\"rdcycle %0\" : \"=r\"(c)); return c; }}\n\
             static long insns(void) {{ long c; __asm__ volatile(\"rdinstret %0\" : \"=r\"(c)); return c; }}\n\
             int main(void) {{\n\
               long x = 0;\n\
               for (int r = 0; r < 101; r++) {{\n\
                 long c0 = cycles(), i0 = insns();\n\
                 __asm__ volatile(\n{body} : \"+r\"(x) :: \"t1\");\n\
                 long c1 = cycles(), i1 = insns();\n\
                 /* The first pass fills the I$. */\n\
                 if (r == 100) printf(\"%ld %ld %ld\\n\", c1 - c0, i1 - i0, x);\n\
               }}\n\
               return 0;\n\
             }}\n"
        ),
    )
    .unwrap();
    let elf = build(&src, dir.path(), Kind::C);
    let mut dut = model(CONFIGS[1]);
    let (out, console) = run(&mut dut, &elf, memory(0, 1)).unwrap();
    assert_eq!(out.exit_code, 0, "{console}");
    let nums: Vec<u64> = console
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let (cycles, insns) = (nums[0], nums[1]);
    assert_eq!(nums[2], 101 * 128, "{console}");
    // The 256 addi and the few instructions around them between the two reads.
    assert!((256..=266).contains(&insns), "{insns} instructions");
    let cpi = cycles as f64 / insns as f64;
    eprintln!("{cycles} cycles for {insns} instructions, CPI {cpi:.3}");
    assert!(
        cpi <= 1.05,
        "CPI {cpi:.3} ({cycles} cycles, {insns} instructions)"
    );
}

/// Issue 21's goal for the C programs: on rocket-default at memory latency 1, each takes
/// at least 25 % fewer cycles than on the core before the pipeline work (the
/// three-entry fetch queue, loads requested from EX with their results taken late in
/// EX, posted stores, the BTB looked up as the request goes out, a misprediction's
/// target requested at once, the MulDiv's early outs). The baseline holds each program's
/// cycles on that core (d85b65a, this test's harness and memory timing:
/// `verification/programs/cycles-before-issue-21.toml`, which the bench prints against);
/// the bound is 75 % of them (the least reached is 29.2 % fewer, spmv).
#[test]
fn c_programs_take_a_quarter_fewer_cycles_than_before() {
    let text =
        std::fs::read_to_string(root().join("verification/programs/cycles-before-issue-21.toml"))
            .unwrap();
    let before_table: toml::Table = text.parse().unwrap();
    const BOUND: f64 = 0.75;
    let dir = tempfile::tempdir().unwrap();
    let mut dut = model(CONFIGS[1]);
    let programs = sources("programs", "c");
    assert_eq!(
        programs.len(),
        before_table.len(),
        "a baseline for every program"
    );
    let mut missed = vec![];
    for src in &programs {
        let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
        let before = before_table
            .get(&stem)
            .and_then(|v| v.as_integer())
            .unwrap_or_else(|| panic!("no baseline for {stem}")) as u64;
        let elf = build(src, dir.path(), Kind::C);
        let mem = MemConfig {
            latency: 1,
            ..MemConfig::default()
        };
        let (out, _) = run(&mut dut, &elf, mem).unwrap();
        assert_eq!(out.exit_code, 0, "{stem}");
        let ratio = out.cycles as f64 / before as f64;
        println!(
            "{stem}: {} cycles, {before} before: {:.1} % fewer",
            out.cycles,
            100.0 * (1.0 - ratio)
        );
        if ratio > BOUND {
            missed.push(format!("{stem} {:.3} of before (bound {BOUND})", ratio));
        }
    }
    assert!(missed.is_empty(), "{}", missed.join("; "));
}
