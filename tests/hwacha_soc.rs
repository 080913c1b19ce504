//! System tests of design `rocket-hwacha`: the integer Hwacha microbenchmarks
//! (`verification/programs/hwacha/ubench/`, `-DPREC_I`) on the Verilator model of the
//! tile with its vector unit, in lockstep with the ISS carrying the Hwacha golden model,
//! for the presets `configs/hwacha-{1,2,4}lane.toml` and a 4-slot sequencer, some runs
//! with capped vector lengths. Memory timings (latency 1, 20, 100 with jitter and
//! refused cycles) and benchmarks are spread over the configurations rather than
//! covering every combination, which keeps the file to a few minutes; `ACCELGEN_LONG=1`
//! runs every benchmark on every configuration.
//! Also: `accelgen sim rocket-hwacha --program` exits with the program's code (vector
//! divides checked against the core's) and stops with the exception on an instruction
//! the RTL does not execute, and the 4-lane preset's Verilog is lint clean and
//! deterministic.

use asic_flow::lint::{run_all, LintTarget};
use assert_cmd::Command;
use generators::hwacha::soc::RocketHwachaParams;
use hdl::Design;
use std::path::{Path, PathBuf};
use verification::elf::{self, Program};
use verification::hwacha::asm::{build_sources, AsmOptions};
use verification::hwacha::model::{Hwacha, HwachaParams as ModelParams};
use verification::hwacha::ubench;
use verification::tb::memory::MemConfig;
use verification::tb::soc::{self, SocConfig};
use verification::tb::Capture;
use verification::verilator::{Model, Options};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn preset(name: &str) -> toml::Table {
    let path = root().join(format!("configs/{name}.toml"));
    std::fs::read_to_string(&path)
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The integer microbenchmarks: name (as the program prints it), family, defines.
const UBENCH: [(&str, &str, &[&str]); 5] = [
    ("iaxpy", "axpy", &["PREC_I"]),
    ("igemm", "gemm", &["PREC_I"]),
    ("igemm-opt", "gemm_opt", &["PREC_I"]),
    ("ifilter", "filter", &["PREC_I"]),
    ("mask-ifilter", "filter", &["PREC_I", "MASK"]),
];

/// The golden model of the unit with the RTL's parameters.
fn model_params(p: &RocketHwachaParams) -> ModelParams {
    ModelParams {
        lanes: p.hwacha.lanes,
        banks: p.hwacha.banks,
        bank_entries: p.hwacha.bank_entries,
        bank_width: p.hwacha.bank_width,
        pred_entries: p.hwacha.pred_entries,
        ..ModelParams::default()
    }
}

/// The program's maximum vector length on the unit (from its `ubench_vcfg`).
fn maxvl(program: &Program, p: &RocketHwachaParams) -> u64 {
    model_params(p).maxvl(&ubench::vcfg(program).unwrap())
}

/// Memory timings the runs rotate through: latency, jitter, percent of refused cycles.
const TIMINGS: [(u32, u32, u32); 3] = [(1, 0, 0), (20, 8, 10), (100, 30, 25)];

/// Vector-length caps of a run, from maxvl (none: one run at maxvl).
type Caps = fn(u64) -> Vec<u64>;

const UNCAPPED: Caps = |_| Vec::new();

fn long() -> bool {
    std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1")
}

/// Runs microbenchmarks on rocket-hwacha with parameters `table` in lockstep: `runs`
/// lists (name, index into [`TIMINGS`], caps). `ACCELGEN_LONG=1` adds an uncapped run of
/// every benchmark, the timings rotating from `rotation`.
fn check(table: toml::Table, rotation: usize, runs: &[(&str, usize, Caps)]) {
    let params: RocketHwachaParams = table.clone().try_into().unwrap();
    let top = generators::elaborate("rocket-hwacha", &table).unwrap();
    let mut dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut runs = runs.to_vec();
    if long() {
        runs.extend(
            (UBENCH.iter().enumerate())
                .map(|(i, u)| (u.0, (rotation + i) % TIMINGS.len(), UNCAPPED)),
        );
    }
    let programs: Vec<(&str, Program)> = UBENCH
        .iter()
        .filter(|(name, ..)| runs.iter().any(|r| r.0 == *name))
        .map(|(name, family, defines)| {
            let program = ubench::build(dir.path(), family, defines)
                .unwrap_or_else(|e| panic!("building {name}: {e}"));
            (*name, program)
        })
        .collect();
    for (i, &(name, timing, caps)) in runs.iter().enumerate() {
        let mut program = programs.iter().find(|p| p.0 == name).unwrap().1.clone();
        let maxvl = maxvl(&program, &params);
        let caps = caps(maxvl);
        let caps32: Vec<u32> = caps.iter().map(|&c| u32::try_from(c).unwrap()).collect();
        ubench::set_caps(&mut program, &caps32).unwrap();
        let (latency, jitter, stall_percent) = TIMINGS[timing];
        let mem = MemConfig {
            latency,
            jitter,
            stall_percent,
            seed: i as u64 + 1,
            ..MemConfig::default()
        };
        let config = SocConfig {
            max_cycles: 200_000_000,
            ..soc::hwacha_config(params.hwacha.lanes, mem)
        };
        let mut golden = soc::golden(&program, u64::MAX).unwrap();
        let unit = Hwacha::new(model_params(&params)).unwrap();
        golden.iss_mut().attach_rocc(Box::new(unit));
        let stdout = Capture::default();
        let what = format!(
            "{name} caps {caps:?} on {} lanes, {} sequencer slots, latency {latency} \
             jitter {jitter} stall {stall_percent}%",
            params.hwacha.lanes, params.hwacha.seq_entries
        );
        let start = std::time::Instant::now();
        let out = soc::run(
            &mut dut,
            &program,
            &config,
            Box::new(stdout.clone()),
            Box::new(std::io::sink()),
            Some(golden),
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        let stdout = stdout.text();
        eprintln!(
            "{what}: {} cycles in {:.1} s",
            out.cycles,
            start.elapsed().as_secs_f64()
        );
        assert_eq!(out.exit_code, 0, "{what}: {stdout}");
        // Every commit was checked: the run ends at the exit store's commit.
        assert_eq!(out.matched, out.instret, "{what}");
        assert!(
            stdout.starts_with(&format!("{name}: maxvl {maxvl}, size ")),
            "{what}: {stdout}"
        );
        assert!(
            stdout.ends_with(&format!(
                ": {} run(s) match the scalar reference\n",
                caps.len().max(1)
            )),
            "{what}: {stdout}"
        );
    }
}

// Every benchmark runs on at least one configuration and every timing at least once.
// Runs cost: the problem grows with maxvl (lanes), and at latency 100 the core's scalar
// reference, missing in its caches, dominates (2-lane iaxpy: 12.5 M cycles, 206 s), so
// the latency-100 run is on one lane; about 60k simulated cycles/s in lockstep.

#[test]
fn one_lane() {
    check(
        preset("hwacha-1lane"),
        0,
        &[
            ("iaxpy", 0, |maxvl| vec![1, 7, maxvl - 1]),
            ("igemm", 0, UNCAPPED),
            ("ifilter", 1, UNCAPPED),
            ("iaxpy", 2, UNCAPPED),
        ],
    );
}

#[test]
fn two_lanes() {
    check(preset("hwacha-2lane"), 1, &[("igemm-opt", 1, UNCAPPED)]);
}

#[test]
fn four_lanes() {
    check(preset("hwacha-4lane"), 2, &[("iaxpy", 0, UNCAPPED)]);
}

/// Four sequencer slots instead of eight: the sequencer fills up and stalls issue.
#[test]
fn four_sequencer_slots() {
    let mut table = preset("hwacha-2lane");
    table["hwacha"]
        .as_table_mut()
        .unwrap()
        .insert("seq_entries".into(), 4.into());
    check(
        table,
        0,
        &[
            ("mask-ifilter", 0, UNCAPPED),
            ("igemm-opt", 0, |maxvl| vec![maxvl - 1]),
        ],
    );
}

fn accelgen() -> Command {
    assert_cmd::cargo::cargo_bin_cmd!("accelgen")
}

/// A vector floating-point add, which the RTL does not execute yet (the golden model
/// does).
const FADD_C: &str = r#"
#include <stdint.h>
int64_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
extern char fadd_block[];
int main(void)
{
    unsigned long vl;
    asm volatile("vsetcfg %0" : : "r"(2ul | 1ul << 9));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"(8ul));
    asm volatile("vmca va0, %0" : : "r"(x));
    asm volatile("vmca va1, %0" : : "r"(y));
    asm volatile("vf fadd_block" : : : "t0", "memory");
    asm volatile("fence" : : : "memory");
    return y[7] == 1 ? 0 : 3;
}
"#;

const FADD_S: &str = r#"
  .text
  .align 3
  .globl fadd_block, fadd_insn
fadd_block:
  vpset vp0
  vld vv0, va0
fadd_insn:
  vfadd.d vv1, vv0, vv0
  vsd vv1, va1
  vstop
"#;

/// Vector divides and remainders through the whole machine (RoCC, scalar unit, decode,
/// sequencers, the lanes' dividers), checked by the program against the core's own
/// scalar divides: zero divisors, the signed overflow, negative operands.
const DIVIDE_C: &str = r#"
#include <stdint.h>
#define N 37
int64_t x[N], d[N], q[N], r[N];
extern char divide_block[];
int main(void)
{
    for (long i = 0; i < N; i++) {
        x[i] = i * 7919 - 50000;
        d[i] = i % 5 - 2;
    }
    x[3] = INT64_MIN;
    d[3] = -1;
    unsigned long vl;
    asm volatile("vsetcfg %0" : : "r"(4ul | 1ul << 9));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"((unsigned long)N));
    if (vl != N)
        return 2;
    asm volatile("vmca va0, %0" : : "r"(x));
    asm volatile("vmca va1, %0" : : "r"(d));
    asm volatile("vmca va2, %0" : : "r"(q));
    asm volatile("vmca va3, %0" : : "r"(r));
    asm volatile("vf divide_block" : : : "t0", "memory");
    asm volatile("fence" : : : "memory");
    for (long i = 0; i < N; i++) {
        int64_t eq, er;
        asm("div %0, %1, %2" : "=r"(eq) : "r"(x[i]), "r"(d[i]));
        asm("rem %0, %1, %2" : "=r"(er) : "r"(x[i]), "r"(d[i]));
        if (q[i] != eq || r[i] != er)
            return 10 + i;
    }
    return 0;
}
"#;

const DIVIDE_S: &str = r#"
  .text
  .align 3
  .globl divide_block
divide_block:
  vpset vp0
  vld vv0, va0
  vld vv1, va1
  vdiv vv2, vv0, vv1
  vrem vv3, vv0, vv1
  vsd vv2, va2
  vsd vv3, va3
  vstop
"#;

#[test]
fn divides_run_through_the_whole_machine() {
    let dir = tempfile::tempdir().unwrap();
    let (c, s) = (dir.path().join("divide.c"), dir.path().join("divide.S"));
    std::fs::write(&c, DIVIDE_C).unwrap();
    std::fs::write(&s, DIVIDE_S).unwrap();
    let elf_path = dir.path().join("divide.elf");
    build_sources(&[c, s], &elf_path, &AsmOptions::default()).unwrap();
    for lanes in [1, 2] {
        let config = root().join(format!("configs/hwacha-{lanes}lane.toml"));
        let out = accelgen()
            .args([
                "sim",
                "rocket-hwacha",
                "--lockstep",
                "--latency",
                "20",
                "--config",
            ])
            .arg(&config)
            .arg("--program")
            .arg(&elf_path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{lanes} lanes: {out:?}");
    }
}

#[test]
fn the_cli_runs_programs_and_stops_on_unsupported_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let config = root().join("configs/hwacha-1lane.toml");
    ubench::build(dir.path(), "axpy", &["PREC_I"]).unwrap();
    let out = accelgen()
        .args(["sim", "rocket-hwacha", "--config"])
        .arg(&config)
        .arg("--program")
        .arg(dir.path().join("axpy-PREC_I.elf"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).ends_with(": 1 run(s) match the scalar reference\n"),
        "{out:?}"
    );

    let (c, s) = (dir.path().join("fadd.c"), dir.path().join("fadd.S"));
    std::fs::write(&c, FADD_C).unwrap();
    std::fs::write(&s, FADD_S).unwrap();
    let elf_path = dir.path().join("fadd.elf");
    build_sources(&[c, s], &elf_path, &AsmOptions::default()).unwrap();
    let program = elf::load_file(&elf_path).unwrap();
    let word = ubench::read_u64(&program, "fadd_insn").unwrap();
    let out = accelgen()
        .args(["sim", "rocket-hwacha", "--config"])
        .arg(&config)
        .arg("--program")
        .arg(&elf_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    // Illegal instruction (cause 2), with the worker instruction's bits as its value.
    assert!(
        err.contains(&format!(
            "the accelerator raised exception cause 2 (tval {word:#x})"
        )),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn the_four_lane_verilog_is_lint_clean_and_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let config = root().join("configs/hwacha-4lane.toml");
    let dirs: Vec<PathBuf> = ["a", "b"].iter().map(|n| tmp.path().join(n)).collect();
    for dir in &dirs {
        accelgen()
            .args(["generate", "rocket-hwacha", "--config"])
            .arg(&config)
            .arg("-o")
            .arg(dir)
            .assert()
            .success();
    }
    let files = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (p.file_name().unwrap().into(), std::fs::read(&p).unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let a = files(&dirs[0]);
    assert!(a
        .iter()
        .any(|(n, _)| n.extension().is_some_and(|e| e == "v")));
    assert!(a == files(&dirs[1]), "two runs of generate differ");
    let target = LintTarget::from_dir(&dirs[0]).unwrap();
    for v in run_all(&target).unwrap() {
        assert!(v.clean, "{}:\n{}", v.tool, v.output);
    }
}
