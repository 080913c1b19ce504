//! System tests of design `rocket-hwacha`: the Hwacha microbenchmarks
//! (`verification/programs/hwacha/ubench/`) on the Verilator model of the
//! tile with its vector unit, in lockstep with the ISS carrying the Hwacha golden model,
//! for the preset `configs/hwacha-1lane.toml` and `hwacha-2lane.toml` with a 4-slot
//! sequencer and mixed precision (`hwacha-4lane.toml`, the 2-lane preset itself and mixed
//! precision on 1 and 4 lanes with `ACCELGEN_LONG=1`), some runs with capped vector
//! lengths. The benchmarks run in host-data mode
//! (`ubench::host`): the bench writes their inputs into the image, each run computes
//! into its own copy of the output, and the bench checks every copy in the simulated
//! memory against its own model of the benchmark, so the simulated control processor
//! spends its cycles on the kernels rather than on data, reference and check. Memory
//! timings (latency 1, 20, 100 with jitter and refused cycles) and benchmarks are
//! spread over the configurations rather than covering every combination, which keeps
//! the file to a few minutes; `ACCELGEN_LONG=1` runs every benchmark on every
//! configuration.
//! Also: `accelgen sim rocket-hwacha --program` exits with the program's code (vector
//! divides checked against the core's; an instruction the RTL does not execute traps),
//! every exception the RTL raises traps the control processor in lockstep with the model,
//! and the 4-lane preset's Verilog is lint clean and deterministic.

mod hwacha_trap_cases;

use asic_flow::lint::{run_all, LintTarget};
use assert_cmd::Command;
use generators::hwacha::soc::RocketHwachaParams;
use hdl::sim::Init;
use hdl::Design;
use std::path::{Path, PathBuf};
use verification::elf::{self, Program};
use verification::hwacha::asm::{build_sources, AsmOptions};
use verification::hwacha::model::{Hwacha, HwachaParams as ModelParams};
use verification::hwacha::ubench::{
    self,
    host::{self, Bench, Kernel, Precision, Prepared, WrongElement},
};
use verification::iss::{Iss, IssConfig, Stop};
use verification::tb::lockstep::{
    CommitRecord, Divergence, Field, GoldenModel, IssGolden, Lockstep, LockstepError, Mismatch,
    TracePort,
};
use verification::tb::memory::{amo, AmoRecord, MemConfig, SparseMemory};
use verification::tb::soc::{self, SocConfig, SocOutcome};
use verification::tb::Capture;
use verification::verilator::{Model, Options, INIT_SEEDS};

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

/// The golden model of the unit with the RTL's parameters.
fn model_params(p: &RocketHwachaParams) -> ModelParams {
    ModelParams::of_rtl(&p.hwacha)
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

/// [`long`], saying that `what` is skipped when it is not set.
fn long_or_skip(what: &str) -> bool {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to run {what}");
    }
    long()
}

/// One lockstep run of a host-data benchmark: what the run did and left in memory.
struct HostRun {
    what: String,
    outcome: SocOutcome,
    stdout: String,
    memory: SparseMemory,
    prepared: Prepared,
    maxvl: u64,
}

/// Runs `kernel`'s host-data `program` on `dut` (rocket-hwacha with `params`) in
/// lockstep with the golden model, with vector-length caps `caps` (from maxvl) on
/// memory timing `timing` (index into [`TIMINGS`]), its data, the memory's timing and
/// the design's initial state from `seed`.
fn run_host(
    dut: &mut Model,
    params: &RocketHwachaParams,
    (bench, program): (Bench, &Program),
    caps: Caps,
    timing: usize,
    seed: u64,
) -> HostRun {
    let mut program = program.clone();
    let maxvl = maxvl(&program, params);
    let caps = caps(maxvl);
    let caps32: Vec<u32> = caps.iter().map(|&c| u32::try_from(c).unwrap()).collect();
    ubench::set_caps(&mut program, &caps32).unwrap();
    let prepared = host::prepare(&mut program, bench, maxvl, caps.len(), seed).unwrap();
    let (latency, jitter, stall_percent) = TIMINGS[timing];
    let mem = MemConfig {
        latency,
        jitter,
        stall_percent,
        seed,
        ..MemConfig::default()
    };
    // Runs alternate the design's two random initial states by their seed.
    let config = SocConfig {
        max_cycles: 200_000_000,
        init: Init::Random {
            seed: INIT_SEEDS[(seed % 2) as usize],
        },
        ..soc::rocket_hwacha_config(params, mem)
    };
    let mut golden = soc::golden(&program, u64::MAX).unwrap();
    let mut unit = Hwacha::new(model_params(params)).unwrap();
    unit.follow_memory_order(&soc::hwacha_lane_ports(params.hwacha.lanes));
    golden.iss_mut().attach_rocc(Box::new(unit));
    let stdout = Capture::default();
    let what = format!(
        "{} caps {caps:?} on {} lanes, {} sequencer slots, latency {latency} jitter \
         {jitter} stall {stall_percent}%",
        bench.name(),
        params.hwacha.lanes,
        params.hwacha.seq_entries
    );
    let start = std::time::Instant::now();
    let (outcome, memory) = soc::run_with_memory(
        dut,
        &program,
        &config,
        Box::new(stdout.clone()),
        Box::new(std::io::sink()),
        Some(golden),
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    eprintln!(
        "{what}: {} cycles in {:.1} s",
        outcome.cycles,
        start.elapsed().as_secs_f64()
    );
    // Every commit was checked: the run ends at the exit store's commit.
    assert_eq!(outcome.matched, outcome.instret, "{what}");
    HostRun {
        what,
        outcome,
        stdout: stdout.text(),
        memory,
        prepared,
        maxvl,
    }
}

/// Every benchmark in the precisions `precisions`.
fn runnable(precisions: &[Precision]) -> Vec<Bench> {
    (precisions.iter())
        .flat_map(|&p| Kernel::ALL.map(|k| Bench::new(k, p)))
        .collect()
}

/// Runs microbenchmarks on rocket-hwacha with parameters `table` in lockstep: `runs`
/// lists (name, index into [`TIMINGS`], caps); the bench checks every run's output.
/// `ACCELGEN_LONG=1` adds an uncapped run of every benchmark of `precisions`, the
/// timings rotating from `rotation`.
fn check(
    table: toml::Table,
    (precisions, rotation): (&[Precision], usize),
    runs: &[(&str, usize, Caps)],
) {
    let params: RocketHwachaParams = table.clone().try_into().unwrap();
    let top = generators::elaborate("rocket-hwacha", &table).unwrap();
    let mut dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut runs: Vec<(String, usize, Caps)> =
        runs.iter().map(|r| (r.0.to_string(), r.1, r.2)).collect();
    if long() {
        runs.extend(
            (runnable(precisions).iter().enumerate())
                .map(|(i, b)| (b.name(), (rotation + i) % TIMINGS.len(), UNCAPPED)),
        );
    }
    let every = Kernel::ALL
        .into_iter()
        .flat_map(|k| Precision::ALL.map(|p| Bench::new(k, p)));
    let programs: Vec<(Bench, Program)> = every
        .filter(|b| runs.iter().any(|r| r.0 == b.name()))
        .map(|b| {
            let program =
                (b.build(dir.path(), &[])).unwrap_or_else(|e| panic!("building {}: {e}", b.name()));
            (b, program)
        })
        .collect();
    for (i, (name, timing, caps)) in runs.iter().enumerate() {
        let (name, timing, caps) = (name.as_str(), *timing, *caps);
        let (bench, program) = programs.iter().find(|p| p.0.name() == name).unwrap();
        let run = run_host(
            &mut dut,
            &params,
            (*bench, program),
            caps,
            timing,
            i as u64 + 1,
        );
        let what = &run.what;
        assert_eq!(run.outcome.exit_code, 0, "{what}: {}", run.stdout);
        assert!(
            run.stdout
                .starts_with(&format!("{name}: maxvl {}, size ", run.maxvl)),
            "{what}: {}",
            run.stdout
        );
        assert!(
            run.stdout.ends_with(&format!(
                ": {} run(s) left in memory for the host's check\n",
                caps(run.maxvl).len().max(1)
            )),
            "{what}: {}",
            run.stdout
        );
        if let Err(e) = run.prepared.check(|a| run.memory.read_u64(a)) {
            panic!("{what}: {e}");
        }
    }
}

// Every benchmark runs on at least one configuration and every timing at least once.
// Runs cost: the problem grows with maxvl (lanes); in lockstep the bench simulates a
// few tens of thousands of cycles a second.

#[test]
fn one_lane() {
    check(
        preset("hwacha-1lane"),
        (&[Precision::I], 0),
        &[
            ("iaxpy", 0, |maxvl| vec![1, 7, maxvl - 1]),
            ("igemm", 0, UNCAPPED),
            ("ifilter", 1, UNCAPPED),
            ("iaxpy", 2, UNCAPPED),
        ],
    );
}

/// The FP microbenchmarks on one lane: every kernel, each precision (double, single,
/// half, half storage with single arithmetic, single storage with double arithmetic: the hs
/// and sd gemms convert A's values in shared registers, on the scalar FPU), every
/// timing; `ACCELGEN_LONG=1` adds the rest uncapped.
#[test]
fn floating_point_one_lane() {
    check(
        preset("hwacha-1lane"),
        (&Precision::ALL[1..], 1),
        &[
            ("daxpy", 0, |maxvl| vec![1, maxvl - 1]),
            ("sgemm", 1, UNCAPPED),
            ("dgemm-opt", 2, UNCAPPED),
            ("hsaxpy", 1, UNCAPPED),
            ("mask-sdfilter", 0, UNCAPPED),
            ("hsfilter", 2, UNCAPPED),
            ("hsgemm", 0, UNCAPPED),
            ("sdgemm-opt", 1, UNCAPPED),
            ("hgemm-opt", 2, UNCAPPED),
        ],
    );
}

/// The 2-lane preset as it is (eight sequencer slots): with `ACCELGEN_LONG=1` only; the
/// fast suite runs two lanes with four slots (below), one Verilator model fewer.
#[test]
fn two_lanes() {
    if !long_or_skip("the 2-lane preset's own model") {
        return;
    }
    check(
        preset("hwacha-2lane"),
        (&Precision::ALL, 1),
        &[("igemm-opt", 1, UNCAPPED)],
    );
}

/// The 4-lane preset: with `ACCELGEN_LONG=1` only (its model takes over four minutes of
/// C++; the fast suite lints the 4-lane Verilog below and runs 1 and 2 lanes).
#[test]
fn four_lanes() {
    if !long_or_skip("the 4-lane preset") {
        return;
    }
    check(
        preset("hwacha-4lane"),
        (&Precision::ALL, 2),
        &[("iaxpy", 0, UNCAPPED), ("sdaxpy", 1, UNCAPPED)],
    );
}

/// The 1-lane preset behind the L2 of thesis Table 9.2 (`hwacha-1lane-l2`) with the VRU
/// prefetching into it, the memory model at DRAM-like latency behind it: iaxpy capped at
/// maxvl / 8 in lockstep (the host's calls
/// served once the L2 is flushed, the outputs read after the exit's flush), and vector
/// AMOs colliding on words, performed in the L2's banks and handed to the golden model
/// in the L2's order.
/// `ACCELGEN_LONG=1` adds capped igemm-opt, ifilter and the histogram.
#[test]
fn one_lane_behind_the_l2() {
    // Capped at maxvl / 8: thirteen blocks, so that the VRU runs ahead of the lanes.
    let mut runs: Vec<(&str, usize, Caps)> = vec![("iaxpy", 2, |maxvl| vec![maxvl / 8])];
    if long() {
        runs.push(("igemm-opt", 2, |maxvl| vec![3, maxvl - 1]));
        runs.push(("ifilter", 1, UNCAPPED));
    }
    check(preset("hwacha-1lane-l2"), (&[Precision::I], 2), &runs);
    let dir = tempfile::tempdir().unwrap();
    let mut elfs = vec![build_c_and_asm(
        dir.path(),
        "amo_order",
        AMO_ORDER_C,
        AMO_ORDER_S,
    )];
    if long() {
        elfs.push(build_c_and_asm(
            dir.path(),
            "histogram",
            HISTOGRAM_C,
            HISTOGRAM_S,
        ));
    }
    for elf in elfs {
        lockstep_cli_preset(&elf, "hwacha-1lane-l2", (100, 30), &[]);
    }
}

/// The 2- and 4-lane presets behind the L2, with `ACCELGEN_LONG=1` only (the 4-lane
/// model takes about four minutes of C++): capped iaxpy and igemm-opt in lockstep, as
/// one lane above.
#[test]
fn two_and_four_lanes_behind_the_l2() {
    if !long_or_skip("the 2- and 4-lane presets behind the L2") {
        return;
    }
    for name in ["hwacha-2lane-l2", "hwacha-4lane-l2"] {
        check(
            preset(name),
            (&[], 0),
            &[
                ("iaxpy", 2, |maxvl| vec![maxvl / 8]),
                ("igemm-opt", 2, |maxvl| vec![3, maxvl - 1]),
            ],
        );
    }
}

/// `table` with `mixed_precision` set.
fn mixed_precision(mut table: toml::Table) -> toml::Table {
    let hwacha = table["hwacha"].as_table_mut().unwrap();
    hwacha.insert("mixed_precision".into(), true.into());
    table
}

/// Mixed precision on the 1- and 4-lane presets (two lanes have it below): with
/// `ACCELGEN_LONG=1` only, every benchmark of every precision uncapped, the timings
/// rotating, so that with the baseline runs above each benchmark runs on 1, 2 and 4 lanes,
/// baseline and mixed precision.
#[test]
fn mixed_precision_one_and_four_lanes() {
    if !long_or_skip("mixed precision on 1 and 4 lanes") {
        return;
    }
    check(
        mixed_precision(preset("hwacha-1lane")),
        (&Precision::ALL, 1),
        &[],
    );
    check(
        mixed_precision(preset("hwacha-4lane")),
        (&Precision::ALL, 0),
        &[],
    );
}

/// Two lanes with four sequencer slots instead of eight: the sequencer fills up and
/// stalls issue. With mixed precision: the single-precision kernels' 32-bit registers
/// are packed two strips to a row and the half-precision ones' 16-bit registers four,
/// their vectors two and four times as long.
#[test]
fn two_lanes_four_sequencer_slots() {
    let mut table = mixed_precision(preset("hwacha-2lane"));
    let hwacha = table["hwacha"].as_table_mut().unwrap();
    hwacha.insert("seq_entries".into(), 4.into());
    check(
        table,
        (&Precision::ALL, 0),
        &[
            ("mask-ifilter", 0, UNCAPPED),
            ("igemm-opt", 0, |maxvl| vec![maxvl - 1]),
            ("igemm-opt", 1, UNCAPPED),
            ("saxpy", 0, |maxvl| vec![3, maxvl - 1]),
            ("hsfilter", 1, UNCAPPED),
            ("haxpy", 0, |maxvl| vec![5, maxvl - 3]),
            ("hfilter", 2, UNCAPPED),
        ],
    );
}

/// The host's model of every benchmark in every precision agrees with the golden model
/// (the ISS with the Hwacha model, no RTL) on 1, 2, 4 and 8 lanes (FP builds on 1 and 4),
/// uncapped and (1 and 4 lanes) with four capped runs: the lockstep runs above compare
/// the RTL with that model at every commit and its outputs with the host's.
#[test]
fn the_host_model_agrees_with_the_golden_model() {
    let dir = tempfile::tempdir().unwrap();
    for bench in Kernel::ALL
        .into_iter()
        .flat_map(|k| Precision::ALL.map(|p| Bench::new(k, p)))
    {
        let program = bench.build(dir.path(), &[]).unwrap();
        let lane_counts: &[u32] = if bench.precision == Precision::I {
            &[1, 2, 4, 8]
        } else {
            &[1, 4]
        };
        for (i, &lanes) in lane_counts.iter().enumerate() {
            let unit = ModelParams {
                lanes,
                ..ModelParams::default()
            };
            let maxvl = unit.maxvl(&ubench::vcfg(&program).unwrap());
            let caps = [vec![], vec![1, 3, maxvl - 1, maxvl]][i % 2].clone();
            let what = format!("{} on {lanes} lanes, caps {caps:?}", bench.name());
            let mut program = program.clone();
            let caps32: Vec<u32> = caps.iter().map(|&c| c as u32).collect();
            ubench::set_caps(&mut program, &caps32).unwrap();
            let prepared = host::prepare(&mut program, bench, maxvl, caps.len(), lanes as u64)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let stdout = Capture::default();
            let config = IssConfig {
                stdout: Box::new(stdout.clone()),
                ..IssConfig::default()
            };
            let mut iss = Iss::new(&program, config).unwrap();
            iss.attach_rocc(Box::new(Hwacha::new(unit).unwrap()));
            let stop = iss.run(Some(100_000_000), None).unwrap();
            assert_eq!(stop, Stop::Exit(0), "{what}: {}", stdout.text());
            if let Err(e) = prepared.check(|a| iss.mem.read(a, 8).unwrap()) {
                panic!("{what}: {e}");
            }
        }
    }
}

/// The bench's check catches a wrong element in any run's output: built with
/// UBENCH_DROP_LAST, axpy never computes its last element, which keeps its initial
/// value in both runs' copies (the golden model, running the same program, agrees);
/// with run 0's element set right in memory, run 1's is reported.
#[test]
fn a_wrong_output_element_fails_the_host_check() {
    let table = preset("hwacha-1lane");
    let params: RocketHwachaParams = table.clone().try_into().unwrap();
    let top = generators::elaborate("rocket-hwacha", &table).unwrap();
    let mut dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let axpy = Bench::new(Kernel::Axpy, Precision::I);
    let program = axpy.build(dir.path(), &["UBENCH_DROP_LAST"]).unwrap();
    let caps: Caps = |maxvl| vec![maxvl, 5];
    let mut run = run_host(&mut dut, &params, (axpy, &program), caps, 0, 7);
    assert_eq!(run.outcome.exit_code, 0, "{}: {}", run.what, run.stdout);
    let n = ubench::size(&program, run.maxvl).unwrap() as usize;
    let wrong = run.prepared.check(|a| run.memory.read_u64(a)).unwrap_err();
    assert_eq!((wrong.run, wrong.index), (0, n - 1), "{wrong}");
    assert_ne!(wrong.got, wrong.want);
    let at = run.prepared.element(0, n - 1).unwrap();
    run.memory.write(at, &wrong.want.to_le_bytes());
    let WrongElement { run: r, index, .. } =
        run.prepared.check(|a| run.memory.read_u64(a)).unwrap_err();
    assert_eq!((r, index), (1, n - 1));
}

fn accelgen() -> Command {
    assert_cmd::cargo::cargo_bin_cmd!("accelgen")
}

/// Builds a program of C and worker-thread assembly sources into `dir`.
fn build_c_and_asm(dir: &Path, name: &str, c: &str, s: &str) -> PathBuf {
    let (c_path, s_path) = (dir.join(format!("{name}.c")), dir.join(format!("{name}.S")));
    std::fs::write(&c_path, c).unwrap();
    std::fs::write(&s_path, s).unwrap();
    let elf_path = dir.join(format!("{name}.elf"));
    build_sources(&[c_path, s_path], &elf_path, &AsmOptions::default()).unwrap();
    elf_path
}

/// Runs `elf` with `accelgen sim rocket-hwacha --lockstep` on the `lanes`-lane preset at
/// memory latency `latency` (jitter `jitter`); the program must exit 0. Returns stderr.
/// Two lanes run with four sequencer slots and mixed precision, the model of
/// `two_lanes_four_sequencer_slots` (the preset's own with `ACCELGEN_LONG=1`).
fn lockstep_cli(elf: &Path, lanes: u32, latency: u32, jitter: u32) -> String {
    lockstep_cli_with(elf, lanes, (latency, jitter), &[]).1
}

/// [`lockstep_cli`] with further arguments `extra`: stdout and stderr.
fn lockstep_cli_with(
    elf: &Path,
    lanes: u32,
    timing: (u32, u32),
    extra: &[&str],
) -> (String, String) {
    let slots = match lanes == 2 && !long() {
        true => vec![
            "--set",
            "hwacha.seq_entries=4",
            "--set",
            "hwacha.mixed_precision=true",
        ],
        false => vec![],
    };
    let args: Vec<&str> = slots.iter().chain(extra).copied().collect();
    lockstep_cli_preset(elf, &format!("hwacha-{lanes}lane"), timing, &args)
}

/// `accelgen sim rocket-hwacha --lockstep` of `elf` on preset `preset` with further
/// arguments `extra`, memory at `latency` and `jitter`; asserts exit code 0: stdout and
/// stderr.
fn lockstep_cli_preset(
    elf: &Path,
    preset: &str,
    (latency, jitter): (u32, u32),
    extra: &[&str],
) -> (String, String) {
    let config = root().join(format!("configs/{preset}.toml"));
    let out = accelgen()
        .args(["sim", "rocket-hwacha", "--lockstep"])
        .args(extra)
        .args([
            "--latency",
            &latency.to_string(),
            "--jitter",
            &jitter.to_string(),
        ])
        .arg("--config")
        .arg(&config)
        .arg("--program")
        .arg(elf)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{preset} {extra:?}: {out:?}");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (text(&out.stdout), text(&out.stderr))
}

/// A worker instruction naming a vector register beyond the configuration's (vv5 of
/// two): illegal, in the golden model as on the RTL.
const ILLEGAL_C: &str = r#"
#include <stdint.h>
int64_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8];
extern char illegal_block[];
int main(void)
{
    unsigned long vl;
    asm volatile("vsetcfg %0" : : "r"(2ul | 1ul << 9));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"(8ul));
    asm volatile("vmca va0, %0" : : "r"(x));
    asm volatile("vmca va1, %0" : : "r"(y));
    asm volatile("vf illegal_block" : : : "t0", "memory");
    asm volatile("fence" : : : "memory");
    return y[7] == 1 ? 0 : 3;
}
"#;

const ILLEGAL_S: &str = r#"
  .text
  .align 3
  .globl illegal_block, illegal_insn
illegal_block:
  vpset vp0
  vld vv0, va0
illegal_insn:
  vfadd.d vv5, vv0, vv0
  vsd vv1, va1
  vstop
"#;

/// Floating point on shared registers (the scalar FPU) through the whole machine: every
/// unit's operations in each precision and several rounding modes on values loaded by
/// the worker's scalar loads, a vector operation reading a scalar FP result (the
/// scoreboard) and a vfirst answering beside the scalar FPU's results; the core reads
/// every result back after the fence, each load checked in lockstep.
const SCALAR_FP_C: &str = r#"
#include <stdint.h>
#include <stdio.h>
double in[3] = {1.75, -3.1, 1e-3};
uint64_t out[21], vout[4];
extern char scalar_fp_block[];
int main(void)
{
    unsigned long vl;
    asm volatile("vsetcfg %0" : : "r"(2ul | 1ul << 9));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"(4ul));
    asm volatile("vmcs vs1, %0" : : "r"(in));
    asm volatile("vmcs vs2, %0" : : "r"(out));
    asm volatile("vmca va0, %0" : : "r"(vout));
    asm volatile("vf scalar_fp_block" : : : "t0", "memory");
    asm volatile("fence" : : : "memory");
    uint64_t sum = 0;
    for (int i = 0; i < 21; i++)
        sum ^= out[i] * (i + 1);
    for (int i = 0; i < 4; i++)
        sum ^= vout[i] << i;
    printf("%llx\n", (unsigned long long)sum);
    return 0;
}
"#;
const SCALAR_FP_S: &str = r#"
  .text
  .align 3
  .globl scalar_fp_block
scalar_fp_block:
  vpset vp0
  vlsd vs3, vs1
  vaddi vs1, vs1, 8
  vlsd vs4, vs1
  vaddi vs1, vs1, 8
  vlsd vs5, vs1
  vfadd.d vs6, vs3, vs4
  vfmul.d vs7, vs6, vs5, rtz
  vfmadd.d vs8, vs3, vs4, vs5
  veidx vv0, vs0
  vfcvt.d.l vv0, vv0
  vfmul.d vv1, vv0, vs8
  vfirst vs20, vv1
  vfcvt.s.d vs9, vs8
  vfmul.s vs10, vs9, vs9
  vfcvt.h.s vs11, vs10, rup
  vfcvt.d.h vs12, vs11
  vfcvt.l.d vs13, vs7, rdn
  vfcvt.d.lu vs14, vs13
  vfsgnjn.d vs15, vs14, vs3
  vfmin.d vs16, vs15, vs4
  vfclass.d vs17, vs16
  vfcvt.w.s vs18, vs9
  vfnmsub.s vs19, vs9, vs10, vs9, rmm
  vfsub.h vs21, vs11, vs11
  vfmax.s vs22, vs10, vs19
  vfsgnjx.h vs23, vs11, vs21
  vfcvt.wu.d vs24, vs4
  vfdiv.d vs25, vs3, vs4, rup
  vfsqrt.s vs26, vs10
  vsd vv1, va0
  vssd vs2, vs6
  vaddi vs2, vs2, 8
  vssd vs2, vs7
  vaddi vs2, vs2, 8
  vssd vs2, vs8
  vaddi vs2, vs2, 8
  vssd vs2, vs9
  vaddi vs2, vs2, 8
  vssd vs2, vs10
  vaddi vs2, vs2, 8
  vssd vs2, vs11
  vaddi vs2, vs2, 8
  vssd vs2, vs12
  vaddi vs2, vs2, 8
  vssd vs2, vs13
  vaddi vs2, vs2, 8
  vssd vs2, vs14
  vaddi vs2, vs2, 8
  vssd vs2, vs15
  vaddi vs2, vs2, 8
  vssd vs2, vs16
  vaddi vs2, vs2, 8
  vssd vs2, vs17
  vaddi vs2, vs2, 8
  vssd vs2, vs18
  vaddi vs2, vs2, 8
  vssd vs2, vs19
  vaddi vs2, vs2, 8
  vssd vs2, vs20
  vaddi vs2, vs2, 8
  vssd vs2, vs21
  vaddi vs2, vs2, 8
  vssd vs2, vs22
  vaddi vs2, vs2, 8
  vssd vs2, vs23
  vaddi vs2, vs2, 8
  vssd vs2, vs24
  vaddi vs2, vs2, 8
  vssd vs2, vs25
  vaddi vs2, vs2, 8
  vssd vs2, vs26
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

/// Vector FP of the dynamic rounding mode through the whole machine (decode, FMAs,
/// FConv, the lanes' dividers, with mixed precision packed): 37 elements, among them a
/// 0/0 and square roots of negatives (NV), divides by zero (DZ), an overflowing and an
/// underflowing quotient (OF, UF), inexact ones (NX), and a double halfway between two
/// singles, converted (a tie: RNE and RMM part there). 64-bit vv0-vv3, 32-bit vv4-vv5.
const VECTOR_FP_C: &str = r#"
#include <stdint.h>
#include <stdio.h>
#define N 37
/* x[i] = (i - 18) * 1.37 + 0.1 and y[i] = i % 7 - 3 but for x[3] = 0, x[5] = 1e300,
   y[5] = 1e-300, x[6] = 1e-300, y[6] = 1e300, x[10] = 1 + 0x1p-24, y[10] = 1 (the
   test fills them in: the core has no F extension to compute them fast). */
double x[N] = {@X@}, y[N] = {@Y@};
uint64_t q[N], m[N], r[N];
uint32_t s[N], t[N];
extern char vector_fp_block[];
int main(void)
{
    unsigned long vl, third, tenth = 0xffffffff3dcccccdul;
    double d = 1.0 / 3.0;
    __builtin_memcpy(&third, &d, 8);
    asm volatile("vsetcfg %0" : : "r"(4ul | 1ul << 9 | 2ul << 14));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"((unsigned long)N));
    if (vl != N)
        return 2;
    asm volatile("vmcs vs1, %0" : : "r"(third));
    asm volatile("vmcs vs2, %0" : : "r"(tenth));
    void *arrays[7] = {x, y, q, m, s, t, r};
    asm volatile("vmca va0, %0" : : "r"(arrays[0]));
    asm volatile("vmca va1, %0" : : "r"(arrays[1]));
    asm volatile("vmca va2, %0" : : "r"(arrays[2]));
    asm volatile("vmca va3, %0" : : "r"(arrays[3]));
    asm volatile("vmca va4, %0" : : "r"(arrays[4]));
    asm volatile("vmca va5, %0" : : "r"(arrays[5]));
    asm volatile("vmca va6, %0" : : "r"(arrays[6]));
    asm volatile("vf vector_fp_block" : : : "t0", "memory");
    asm volatile("fence" : : : "memory");
    uint64_t sum = 0;
    for (long i = 0; i < N; i++)
        sum = (((sum * 31 + q[i]) * 31 + m[i]) * 31 + (s[i] | (uint64_t)t[i] << 32)) * 31 + r[i];
    printf("%llx\n", (unsigned long long)sum);
    return 0;
}
"#;

const VECTOR_FP_S: &str = r#"
  .text
  .align 3
  .globl vector_fp_block
vector_fp_block:
  vpset vp0
  vld vv0, va0
  vld vv1, va1
  vfdiv.d vv2, vv0, vv1
  vsd vv2, va2
  vfmadd.d vv3, vv0, vv1, vs1
  vsd vv3, va3
  vfcvt.s.d vv4, vv2
  vsw vv4, va4
  vfmul.s vv5, vv4, vs2
  vfmadd.s vv5, vv5, vv4, vv5
  vsw vv5, va5
  vfsqrt.d vv3, vv0
  vsd vv3, va6
  vstop
"#;

/// Every rounding mode (`--frm`, the vector unit's `frm` input and the golden model's) on
/// the scalar FPU's program and the vector one (RUP and RMM again on two lanes with mixed
/// precision), in lockstep: the bench checks the flags
/// the unit accrued against the golden model's at the exit. The flags are those the
/// programs raise by construction, and every mode's results are its own (the CP's
/// checksum of what the worker stored differs), but for RNE and RMM on the scalar
/// program, which has no tie.
#[test]
fn rounding_modes_and_fp_flags_run_through_the_whole_machine() {
    let dir = tempfile::tempdir().unwrap();
    let scalar = build_c_and_asm(dir.path(), "scalar_fp", SCALAR_FP_C, SCALAR_FP_S);
    let (mut x, mut y): (Vec<f64>, Vec<f64>) = (0..37)
        .map(|i| ((i - 18) as f64 * 1.37 + 0.1, (i % 7 - 3) as f64))
        .unzip();
    x[3] = 0.0;
    (x[5], y[5]) = (1e300, 1e-300);
    (x[6], y[6]) = (1e-300, 1e300);
    (x[10], y[10]) = (1.0 + 2f64.powi(-24), 1.0);
    let list = |v: &[f64]| {
        v.iter()
            .map(|e| format!("{e:e}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let c = VECTOR_FP_C
        .replace("@X@", &list(&x))
        .replace("@Y@", &list(&y));
    let vector = build_c_and_asm(dir.path(), "vector_fp", &c, VECTOR_FP_S);
    let every = ["rne", "rtz", "rdn", "rup", "rmm"];
    for (elf, lanes, modes, flags, results) in [
        (&scalar, 1, &every[..], "0x11 (NV NX)", 4),
        (&vector, 1, &every[..], "0x1f (NV DZ OF UF NX)", 5),
        (&vector, 2, &every[3..], "0x1f (NV DZ OF UF NX)", 2),
    ] {
        let mut sums = std::collections::BTreeSet::new();
        for &frm in modes {
            let (out, err) = lockstep_cli_with(elf, lanes, (20, 0), &["--frm", frm]);
            assert!(
                err.contains(&format!("vector FP flags {flags}")),
                "{frm}: {err}"
            );
            sums.insert(out);
        }
        assert_eq!(sums.len(), results, "{}: {sums:?}", elf.display());
    }
}

#[test]
fn divides_run_through_the_whole_machine() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c_and_asm(dir.path(), "divide", DIVIDE_C, DIVIDE_S);
    for lanes in [1, 2] {
        lockstep_cli(&elf, lanes, 20, 0);
    }
}

#[test]
fn the_cli_runs_programs_and_traps_on_illegal_instructions() {
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

    let (c, s) = (dir.path().join("illegal.c"), dir.path().join("illegal.S"));
    std::fs::write(&c, ILLEGAL_C).unwrap();
    std::fs::write(&s, ILLEGAL_S).unwrap();
    let elf_path = dir.path().join("illegal.elf");
    build_sources(&[c, s], &elf_path, &AsmOptions::default()).unwrap();
    let program = elf::load_file(&elf_path).unwrap();
    let word = ubench::read_u64(&program, "illegal_insn").unwrap();
    let out = accelgen()
        .args(["sim", "rocket-hwacha", "--config"])
        .arg(&config)
        .arg("--program")
        .arg(&elf_path)
        .output()
        .unwrap();
    // The unit reports it as an illegal instruction (cause 2) and the core traps: the
    // runtime's handler exits with 128 + mcause.
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    // Its value is the worker instruction's bits.
    let taken = format!("1 accelerator exception(s) taken (the last: cause 2, tval {word:#x})");
    assert!(err.contains(&taken), "{err}");
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
    // The top-level files (the fakeram views in subdirectories are checked by flow_handoff).
    let files = |dir: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut v: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| (p.file_name().unwrap().into(), std::fs::read(&p).unwrap()))
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

/// The VRU at the ends of its parameters' ranges inside the whole 1-lane L2 SoC (the
/// VRU module alone is linted at them by `tests/hwacha_vru.rs`): the widest counters,
/// and with `ACCELGEN_LONG=1` the narrowest.
#[test]
fn the_vru_extremes_are_lint_clean_in_the_soc() {
    let mut shapes = vec![[
        "vru_blocks=64",
        "vru_throttle_bytes=16777216",
        "vru_skip_blocks=4",
    ]];
    if long() {
        shapes.push([
            "vru_blocks=2",
            "vru_throttle_bytes=256",
            "vru_skip_blocks=0",
        ]);
    }
    let tmp = tempfile::tempdir().unwrap();
    for (i, shape) in shapes.iter().enumerate() {
        let dir = tmp.path().join(i.to_string());
        let mut generate = accelgen();
        generate
            .args(["generate", "rocket-hwacha", "--config"])
            .arg(root().join("configs/hwacha-1lane-l2.toml"));
        for set in shape {
            generate.args(["--set", &format!("hwacha.{set}")]);
        }
        generate.arg("-o").arg(&dir).assert().success();
        let target = LintTarget::from_dir(&dir).unwrap();
        for v in run_all(&target).unwrap() {
            assert!(v.clean, "{shape:?}: {}:\n{}", v.tool, v.output);
        }
    }
}

/// Every exception the RTL raises, taken by the control processor's trap handler, which
/// checks mcause, mepc and mtval and resumes after mepc (`isa_test.h`). Control-thread
/// exceptions are precise (mepc is the instruction); worker-thread ones reach the core
/// after the `vf` retired, at the `fence` that waits for the unit (mepc is the fence).
/// Unlike `tests/hwacha_traps.rs` (the model alone), no access faults: the lanes have no
/// memory map to check addresses against.
const TRAPS_DEFS: &str = r#"
// A block that raises an exception, and the fence the core traps at (label 1).
#define VF_TRAP(reg) vf 0(reg); 1: fence
"#;

const TRAPS_BODY: &str = r#"
  la a0, bad_reg
  VF_TRAP(a0)                   # vv9 with 8 configured
  la t4, bad_reg_insn
  ld t4, 0(t4)
  CHECK_TVAL(5, 2, 1b, t4)
  la a0, stop_block + 4
  VF_TRAP(a0)                   # misaligned vpc
  CHECK_TVAL(6, 0, 1b, a0)
  li a0, 0x10
  VF_TRAP(a0)                   # vpc outside memory
  CHECK_TVAL(7, 1, 1b, a0)

  la a1, data
  vmca va1, a1
  li a2, 12
  vmca va2, a2
  la a0, load_block
  VF_TRAP(a0)                   # element 1 of a stride-12 vlstd: misaligned
  add t3, a1, a2
  CHECK_TVAL(8, 4, 1b, t3)
  # The vaddi before the load retired: store vs5 and look.
  la a3, result
  vmcs vs6, a3
  la a0, report_block
  vf 0(a0)
  fence
  ld t3, 0(a3)
  CHECK(t3, 77)

  addi t3, a1, 4
  vmca va1, t3
  la a0, store_block
  VF_TRAP(a0)                   # misaligned vsd
  CHECK_TVAL(9, 6, 1b, t3)
  ld t4, 0(a1)                  # nothing stored
  CHECK(t4, 1)
  ld t4, 8(a1)
  CHECK(t4, 2)

  addi t3, a1, 4
  vmcs vs2, t3
  la a0, amo_block
  VF_TRAP(a0)                   # misaligned AMO: a store exception
  CHECK_TVAL(10, 6, 1b, t3)

  # Still usable: a good block runs after all of them.
  la a0, report_block
  vmcs vs5, a0
  vf 0(a0)
  fence
  ld t3, 0(a3)
  bne t3, a0, fail
TEST_END
"#;

#[test]
fn exceptions_trap_the_control_processor_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let source = hwacha_trap_cases::program(TRAPS_DEFS, TRAPS_BODY);
    let elf_path = hwacha_trap_cases::assemble(dir.path(), &source);
    let program = elf::load_file(&elf_path).unwrap();
    // The last is the misaligned AMO's address.
    let amo_addr = ubench::symbol(&program, "data").unwrap() + 4;
    for (lanes, latency) in [(1, 1), (2, 20)] {
        let err = lockstep_cli(&elf_path, lanes, latency, 0);
        let taken =
            format!("10 accelerator exception(s) taken (the last: cause 6, tval {amo_addr:#x})");
        assert!(err.contains(&taken), "{lanes} lanes: {err}");
    }
}

/// Segment accesses (the scalar unit splits them into one access per register): an
/// array of structs transposed by a unit-stride segment load, packed by a 32-bit segment
/// store, gathered by an indexed segment load (into its own index register) and read by
/// a strided one, checked by the program against its own scalar loops.
const SEGMENT_C: &str = r#"
#include <stdint.h>
#define N 21
int64_t aos[N][3], soa[3][N], idx[N], gx[N], gy[N], out[N][2];
int32_t packed[N][2];
extern char segment_block[];
int main(void)
{
    for (long i = 0; i < N; i++) {
        for (long k = 0; k < 3; k++)
            aos[i][k] = i * 1000 + k * 7 - 9000;
        idx[i] = (i * 5 % N) * sizeof aos[0];
    }
    unsigned long vl;
    asm volatile("vsetcfg %0" : : "r"(12ul | 1ul << 9));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"((unsigned long)N));
    if (vl != N)
        return 2;
    asm volatile("vmca va0, %0" : : "r"(aos));
    asm volatile("vmca va1, %0" : : "r"(soa[0]));
    asm volatile("vmca va2, %0" : : "r"(soa[1]));
    asm volatile("vmca va3, %0" : : "r"(soa[2]));
    asm volatile("vmca va4, %0" : : "r"(packed));
    asm volatile("vmca va5, %0" : : "r"(idx));
    asm volatile("vmca va6, %0" : : "r"(gx));
    asm volatile("vmca va7, %0" : : "r"(gy));
    asm volatile("vmca va8, %0" : : "r"(out));
    asm volatile("vmca va9, %0" : : "r"(sizeof aos[0]));
    asm volatile("vmcs vs1, %0" : : "r"(aos));
    asm volatile("vf segment_block" : : : "t0", "memory");
    asm volatile("fence" : : : "memory");
    for (long i = 0; i < N; i++) {
        for (long k = 0; k < 3; k++)
            if (soa[k][i] != aos[i][k])
                return 10;
        if (packed[i][0] != (int32_t)aos[i][0] || packed[i][1] != (int32_t)aos[i][1])
            return 11;
        if (gx[i] != aos[i * 5 % N][0] || gy[i] != aos[i * 5 % N][1])
            return 12;
        if (out[i][0] != aos[i][0] || out[i][1] != aos[i][1] + aos[i][2])
            return 13;
    }
    return 0;
}
"#;

const SEGMENT_S: &str = r#"
  .text
  .align 3
  .globl segment_block
segment_block:
  vpset vp0
  vlsegd vv0, va0, 3
  vsd vv0, va1
  vsd vv1, va2
  vsd vv2, va3
  vssegw vv0, va4, 2
  vld vv4, va5
  vlsegxd vv4, vs1, vv4, 2
  vsd vv4, va6
  vsd vv5, va7
  vlsegstd vv6, va0, va9, 2
  vadd vv7, vv7, vv2
  vssegd vv6, va8, 2
  vstop
"#;

#[test]
fn segments_run_through_the_whole_machine() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c_and_asm(dir.path(), "segment", SEGMENT_C, SEGMENT_S);
    for (lanes, latency) in [(1, 20), (2, 1)] {
        lockstep_cli(&elf, lanes, latency, 0);
    }
}

/// A histogram by vector AMOs whose addresses collide within and across lanes: memory
/// performs each AMO atomically, so no update is lost; the program checks the counts
/// against its own scalar loop (the old values the AMOs return depend on the lanes'
/// timing and are not looked at).
const HISTOGRAM_C: &str = r#"
#include <stdint.h>
#define N 300
#define BINS 5
int64_t hist[BINS], want[BINS];
uint64_t addr[N];
extern char histogram_block[];
int main(void)
{
    for (long i = 0; i < N; i++) {
        long b = (i * i * 7 + 3) % BINS;
        addr[i] = (uint64_t)&hist[b];
        want[b] += i % 3 + 1;
    }
    asm volatile("vsetcfg %0" : : "r"(4ul | 1ul << 9));
    for (long i = 0; i < N;) {
        unsigned long vl;
        asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"((unsigned long)(N - i)));
        asm volatile("vmca va0, %0" : : "r"(addr + i));
        asm volatile("vmcs vs1, %0" : : "r"(i));
        asm volatile("vf histogram_block" : : : "t0", "memory");
        i += vl;
    }
    asm volatile("fence" : : : "memory");
    for (long b = 0; b < BINS; b++)
        if (hist[b] != want[b])
            return 10 + b;
    return 0;
}
"#;

/// Element e of the strip adds (vs1 + e) % 3 + 1 to its bin: `veidx` numbers elements.
const HISTOGRAM_S: &str = r#"
  .text
  .align 3
  .globl histogram_block
histogram_block:
  vpset vp0
  vld vv0, va0
  veidx vv1, vs0
  vadd vv1, vv1, vs1
  vaddi vs2, vs0, 3
  vremu vv1, vv1, vs2
  vaddi vs3, vs0, 1
  vadd vv1, vv1, vs3
  vamoadd.d vv2, 0(vv0), vv1
  vstop
"#;

#[test]
fn amos_are_atomic_across_lanes() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c_and_asm(dir.path(), "histogram", HISTOGRAM_C, HISTOGRAM_S);
    for lanes in [1, 2] {
        lockstep_cli(&elf, lanes, 20, 15);
    }
}

/// Vector amoadd/amoswap/amoxor.d whose 16 elements each collide on one word (per
/// operation), element e's operand 1 << e, and an amoadd.d of 1 by every element on a
/// counter (alike elements, told apart by their lanes); the core then reads every old
/// value (which lockstep compares with the model's) and checks the final values, which
/// do not depend on the memory's order.
const AMO_ORDER_C: &str = r#"
#include <stdint.h>
#define N 16
int64_t cell[4] = {1000, 7, 0x5a5a, 50};
int64_t olds[4][N];
int64_t checksum;
extern char amo_order_block[];
int main(void)
{
    unsigned long vl;
    asm volatile("vsetcfg %0" : : "r"(10ul | 1ul << 9));
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"((unsigned long)N));
    if (vl != N)
        return 2;
    asm volatile("vmcs vs1, %0" : : "r"(&cell[0]));
    asm volatile("vmcs vs2, %0" : : "r"(&cell[1]));
    asm volatile("vmcs vs3, %0" : : "r"(&cell[2]));
    asm volatile("vmcs vs5, %0" : : "r"(&cell[3]));
    asm volatile("vmca va0, %0" : : "r"(olds[0]));
    asm volatile("vmca va1, %0" : : "r"(olds[1]));
    asm volatile("vmca va2, %0" : : "r"(olds[2]));
    asm volatile("vmca va3, %0" : : "r"(olds[3]));
    asm volatile("vf amo_order_block" : : : "t0", "memory");
    asm volatile("fence" : : : "memory");
    const int64_t all = (1 << N) - 1;
    int64_t seen = 0, swapped = cell[1], counted = 0;
    for (long e = 0; e < N; e++) {
        seen += olds[0][e] ^ olds[2][e];
        swapped += olds[1][e];
        counted += olds[3][e];
    }
    checksum = seen;
    if (cell[0] != 1000 + all || cell[2] != (0x5a5a ^ all) || swapped != 7 + all)
        return 3;
    if (cell[3] != 50 + N || counted != 50 * N + N * (N - 1) / 2)
        return 4;
    return 0;
}
"#;

const AMO_ORDER_S: &str = r#"
  .text
  .align 3
  .globl amo_order_block
amo_order_block:
  vpset vp0
  veidx vv1, vs0
  vaddi vs4, vs0, 1
  vsll vv1, vs4, vv1
  vsub vv0, vv1, vv1
  vadd vv2, vv0, vs1
  vadd vv3, vv0, vs2
  vadd vv4, vv0, vs3
  vadd vv9, vv0, vs5
  vamoadd.d vv5, 0(vv2), vv1
  vamoswap.d vv6, 0(vv3), vv1
  vamoxor.d vv7, 0(vv4), vv1
  vamoadd.d vv8, 0(vv9), vs4
  vsd vv5, va0
  vsd vv6, va1
  vsd vv7, va2
  vsd vv8, va3
  vstop
"#;

/// The memory performs AMOs colliding across lanes in an order of its own (lane 1's
/// element may go before lane 0's): lockstep accepts it (it failed here with a false
/// divergence when the model applied them in element order).
#[test]
fn colliding_amo_old_values_follow_the_memorys_order() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c_and_asm(dir.path(), "amo_order", AMO_ORDER_C, AMO_ORDER_S);
    for lanes in [1, 2] {
        lockstep_cli(&elf, lanes, 1, 0);
    }
}

/// The memory's order of each AMO instruction's 16 elements in the checker tests below
/// (add, swap, xor, counter): legal orders a 2-lane unit could produce (elements 0-7 in
/// lane 0, 8-15 in lane 1; the counter's alike elements in element order per lane).
const MEMORY_ORDER: [[u64; 16]; 4] = [
    [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7],
    [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    [8, 0, 9, 1, 10, 2, 11, 3, 12, 4, 13, 5, 14, 6, 15, 7],
    [8, 9, 0, 10, 1, 2, 11, 12, 13, 3, 4, 14, 5, 15, 6, 7],
];

/// The golden model of [`AMO_ORDER_C`] on the 2-lane preset's unit, in memory-order mode
/// told `order` (per instruction, as the memory would report it), or in element order.
fn amo_order_golden(program: &Program, order: Option<&[[u64; 16]; 4]>) -> IssGolden {
    let params: RocketHwachaParams = preset("hwacha-2lane").try_into().unwrap();
    let mut golden = soc::golden(program, 1_000_000).unwrap();
    let mut unit = Hwacha::new(model_params(&params)).unwrap();
    match order {
        Some(order) => {
            let ports = soc::hwacha_lane_ports(2);
            unit.follow_memory_order(&ports);
            let cell = program.symbol("cell").unwrap();
            let ops = [amo::ADD, amo::SWAP, amo::XOR, amo::ADD];
            let performed: Vec<AmoRecord> = (0..4)
                .flat_map(|k| {
                    let ports = &ports;
                    order[k].iter().map(move |&e| AmoRecord {
                        port: ports[(e / 8 % 2) as usize],
                        addr: cell + 8 * k as u64,
                        bytes: 8,
                        op: ops[k],
                        operand: if k == 3 { 1 } else { 1 << e },
                    })
                })
                .collect();
            unit.memory_amos(&performed);
        }
        None => unit.set_imprecise(true),
    }
    golden.iss_mut().attach_rocc(Box::new(unit));
    golden
}

/// Every record of a golden model's run.
fn records(mut golden: IssGolden) -> Vec<CommitRecord> {
    std::iter::from_fn(|| golden.next_record().unwrap()).collect()
}

/// Checks `design` against the golden model told [`MEMORY_ORDER`]: the first divergence.
fn check_against_memory_order(program: &Program, design: &[CommitRecord]) -> Option<Divergence> {
    let golden = amo_order_golden(program, Some(&MEMORY_ORDER));
    let mut lockstep = Lockstep::new(golden, TracePort::new("trace")).unwrap();
    for (cycle, r) in design.iter().enumerate() {
        match lockstep.check_record(cycle as u64, *r) {
            Ok(()) => {}
            Err(LockstepError::Divergence(d)) => return Some(*d),
            Err(e) => panic!("{e}"),
        }
    }
    assert!(lockstep.finished().unwrap());
    None
}

/// The old values AMOs return, derived from the operations' definitions: element e's
/// operand is 1 << e (which the counter's `f` ignores: it adds 1), applied in `order`.
fn old_values(init: u64, order: &[u64; 16], f: fn(u64, u64) -> u64) -> [u64; 16] {
    let mut olds = [0; 16];
    let mut value = init;
    for &e in order {
        olds[e as usize] = value;
        value = f(value, 1 << e);
    }
    olds
}

/// Whether `r` is a load (opcode LOAD) that wrote `value`.
fn loads(r: &CommitRecord, value: u64) -> bool {
    r.insn & 0x7f == 0x03 && r.rd != 0 && r.value == value
}

/// The checker with the memory's order stays strict: it accepts a design whose AMO old
/// values follow that order (derived here from the operations' definitions), and
/// reports a design that applied them in another order, a wrong old value and a wrong
/// final value.
#[test]
fn the_memory_order_checker_still_catches_wrong_values() {
    let dir = tempfile::tempdir().unwrap();
    let elf_path = build_c_and_asm(dir.path(), "amo_order", AMO_ORDER_C, AMO_ORDER_S);
    let program = elf::load_file(&elf_path).unwrap();
    let design = records(amo_order_golden(&program, Some(&MEMORY_ORDER)));
    let add = old_values(1000, &MEMORY_ORDER[0], |a, b| a + b);
    let swap = old_values(7, &MEMORY_ORDER[1], |_, b| b);
    let xor = old_values(0x5a5a, &MEMORY_ORDER[2], |a, b| a ^ b);
    let counter = old_values(50, &MEMORY_ORDER[3], |a, _| a + 1);
    assert_eq!(counter[0], 52);
    // The model's design-side run loads exactly these old values, and exits 0.
    for (name, olds) in [
        ("add", add),
        ("swap", swap),
        ("xor", xor),
        ("counter", counter),
    ] {
        for (e, old) in olds.iter().enumerate() {
            assert!(
                design.iter().any(|r| loads(r, *old)),
                "{name} element {e}: no load of {old:#x}"
            );
        }
    }
    assert_eq!(check_against_memory_order(&program, &design), None);

    // Element order (what the model did before): a divergence at an old value.
    let in_order = records(amo_order_golden(&program, None));
    let d = check_against_memory_order(&program, &in_order).expect("element order accepted");
    assert_eq!(d.mismatches[0].field, Field::Value, "{d}");

    // One wrong old value (add's element 3: 1000 + 0xff00 + 0b111), one wrong final value.
    assert_eq!(add[3], 1000 + 0xff00 + 7);
    let final_add = 1000 + 0xffff;
    for (what, wrong) in [("old value", add[3]), ("final value", final_add)] {
        let at = design.iter().position(|r| loads(r, wrong)).unwrap();
        let mut corrupted = design.clone();
        corrupted[at].value ^= 0x10;
        let d = check_against_memory_order(&program, &corrupted).expect(what);
        assert_eq!(d.index, at as u64, "{what}: {d}");
        assert_eq!(
            d.mismatches,
            vec![Mismatch {
                field: Field::Value,
                expected: wrong,
                actual: wrong ^ 0x10
            }],
            "{what}"
        );
    }
}
