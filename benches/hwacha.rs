//! Design `rocket-hwacha`: for 1, 2 and 4 lanes, cycles and elements per cycle of the
//! integer axpy, gemm and gemm-opt microbenchmarks at vector length maxvl, against the
//! bank schedule's peak; the FP microbenchmarks (axpy, gemm-opt, filter in d, s, hs and
//! sd): cycles and FMA utilization (FMA operations done over the two FMAs' slots, one
//! bank entry of S elements a cycle each, in the vector window); elaboration time and
//! Verilog size of rocket-hwacha (1 and 4 lanes) and of the Hwacha unit alone; and the
//! Verilator models' speed in simulated cycles per second. Every microbenchmark runs in
//! host-data mode (inputs written into the image, outputs checked by the host's model,
//! so no scalar set-up or reference runs on the core). Prints tables; asserts nothing
//! but that every run's output is right.
//!
//! The FP table has each lane count twice, baseline and `mixed_precision`, with the
//! latter's FMA utilization relative to the baseline's (the MXP speedup at equal work
//! per element). `HWACHA_BENCH_FP=1` runs only that table, `HWACHA_BENCH_INT=1` only
//! the integer one; `HWACHA_BENCH_LANES=1,2` picks the lane counts and
//! `HWACHA_BENCH_SET=seq_entries=16,...` sets parameters of the Hwacha unit.

use generators::hwacha::params::HwachaParams;
use generators::hwacha::scalar::RamWindow;
use generators::hwacha::soc::{RocketHwachaParams, SocMemory};
use hdl::emit::{emit, EmitOptions};
use hdl::{Design, Module};
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;
use verification::elf::Program;
use verification::hwacha::ubench;
use verification::hwacha::ubench::host::{self, Bench, Kernel as Family, Precision};
use verification::simulator::{exercise, Simulator, Stimulus};
use verification::tb::lockstep::IssGolden;
use verification::tb::memory::MemConfig;
use verification::tb::soc::{self, SocConfig};
use verification::verilator::{Model, Options, TraceFormat};

/// A microbenchmark's worker blocks, per row of a strip (one element of each vector).
struct Kernel {
    family: Family,
    /// Elements of work per row and block: axpy's y element, gemm's multiply-adds.
    elements: u64,
    /// Blocks per row: the program's elements are `elements * blocks` per row.
    blocks: u64,
    /// Vector loads and stores.
    mem_ops: u64,
    /// Σ max(r, 1) over the block's vector operations with r vector operands.
    bank_slots: u64,
    /// Vector integer multiplies.
    imuls: u64,
}

const KERNELS: [Kernel; 3] = [
    // vld, vld, vmul (1 vector operand), vadd (2), vsd.
    Kernel {
        family: Family::Axpy,
        elements: 1,
        blocks: 1,
        mem_ops: 3,
        bank_slots: 1 + 1 + 1 + 2 + 1,
        imuls: 1,
    },
    // 4 loads of B; per column of C: a load, four vmul (1) + vadd (2), a store. A block
    // is 4 columns by 4 k of the 8 x 8.
    Kernel {
        family: Family::Gemm,
        elements: 16,
        blocks: 4,
        mem_ops: 4 + 4 * 2,
        bank_slots: 4 + 4 * (1 + 4 * (1 + 2) + 1),
        imuls: 16,
    },
    // C's 8 columns loaded once and stored once; per 4 k, 4 loads of B and 32 vmul (1) +
    // vadd (2). A block is a whole row of C: 8 columns by K = 8.
    Kernel {
        family: Family::GemmOpt,
        elements: 64,
        blocks: 1,
        mem_ops: 8 + 2 * 4 + 8,
        bank_slots: 8 + 2 * (4 + 32 * (1 + 2)) + 8,
        imuls: 64,
    },
];

impl Kernel {
    /// Peak elements per cycle on `p`: per lane, a strip of B·S rows takes
    /// max(bank_slots, B·imuls, mem_ops·B·S·8/16) cycles (banks, IMul at one entry a
    /// cycle, one 128-bit beat a cycle of 64-bit elements).
    fn ideal(&self, p: &HwachaParams) -> f64 {
        let (b, s) = (p.banks as u64, p.bank_width as u64 / 64);
        let cycles = self
            .bank_slots
            .max(b * self.imuls)
            .max(self.mem_ops * b * s * 8 / 16);
        (p.lanes as u64 * self.elements * b * s) as f64 / cycles as f64
    }
}

/// A model that notes the first and last cycle in which a lane asked for memory: the
/// span of the worker thread's vector memory traffic. Behind the L2 the lanes' ports are
/// inside the design: a lane's request counts in the cycle a bank performs it (its
/// `l2_b<j>_trace`, L2 client ports 3 to 3 + lanes - 1).
struct LaneWindow<'a> {
    dut: &'a mut Model,
    probe: Probe,
    first: Option<u64>,
    last: u64,
    /// The bench holds `reset`: outputs then show the random initial state.
    in_reset: bool,
}

enum Probe {
    /// Each lane's request valid.
    Ports(Vec<String>),
    /// Each bank's trace valid and port, and the lanes' port range.
    Traces(Vec<(String, String)>, std::ops::Range<u64>),
}

impl LaneWindow<'_> {
    fn new<'a>(dut: &'a mut Model, params: &RocketHwachaParams) -> LaneWindow<'a> {
        let lanes = params.hwacha.lanes;
        let probe = match params.memory {
            SocMemory::Flat => {
                Probe::Ports((0..lanes).map(|l| format!("l{l}_mem_req_valid")).collect())
            }
            SocMemory::L2 => Probe::Traces(
                (0..params.l2.banks)
                    .map(|b| {
                        (
                            format!("l2_b{b}_trace_valid"),
                            format!("l2_b{b}_trace_bits_port"),
                        )
                    })
                    .collect(),
                3..3 + lanes as u64,
            ),
        };
        LaneWindow {
            dut,
            probe,
            first: None,
            last: 0,
            in_reset: false,
        }
    }

    fn lanes_asked(&mut self) -> bool {
        let peek = |dut: &mut Model, s: &str| dut.peek_u64(s).expect("probe port");
        match &self.probe {
            Probe::Ports(valids) => valids.iter().any(|v| peek(self.dut, v) == 1),
            Probe::Traces(banks, lanes) => banks
                .iter()
                .any(|(v, p)| peek(self.dut, v) == 1 && lanes.contains(&peek(self.dut, p))),
        }
    }
}

/// A run of `params` at memory latency `latency`; one that stops making progress ends at
/// 30 M cycles instead of running for hours.
fn run_config(params: &RocketHwachaParams, latency: u32) -> SocConfig {
    let mem = MemConfig {
        latency,
        ..MemConfig::default()
    };
    SocConfig {
        max_cycles: 30_000_000,
        ..soc::rocket_hwacha_config(params, mem)
    }
}

impl Simulator for LaneWindow<'_> {
    type Error = <Model as Simulator>::Error;
    fn poke(&mut self, port: &str, value: &hdl::Bits) -> Result<(), Self::Error> {
        self.dut.poke(port, value)
    }
    fn poke_u64(&mut self, port: &str, value: u64) -> Result<(), Self::Error> {
        if port == "reset" {
            self.in_reset = value == 1;
        }
        self.dut.poke_u64(port, value)
    }
    fn peek(&mut self, port: &str) -> Result<hdl::Bits, Self::Error> {
        self.dut.peek(port)
    }
    fn peek_u64(&mut self, port: &str) -> Result<u64, Self::Error> {
        self.dut.peek_u64(port)
    }
    fn step(&mut self) {
        let cycle = self.dut.cycle();
        let busy = !self.in_reset && self.lanes_asked();
        if busy {
            self.first.get_or_insert(cycle);
            self.last = cycle;
        }
        self.dut.step();
    }
    fn cycle(&self) -> u64 {
        self.dut.cycle()
    }
    fn reinit(&mut self, init: hdl::sim::Init) -> Result<(), Self::Error> {
        self.dut.reinit(init)
    }
}

/// Elaboration time, Verilog bytes and module count of `build`'s module.
fn size(what: &str, build: impl Fn() -> Rc<Module>) -> Rc<Module> {
    let start = Instant::now();
    let top = build();
    let elaboration = start.elapsed();
    let design = Design::new(&top);
    let bytes: usize = emit(&design, &EmitOptions::default())
        .files()
        .iter()
        .filter(|(n, _)| n.ends_with(".v"))
        .map(|(_, t)| t.len())
        .sum();
    println!(
        "{what:22} {:>9.1} ms  {bytes:>15}  {:>7}",
        elaboration.as_secs_f64() * 1e3,
        design.modules().count()
    );
    top
}

/// The lane counts to run (`HWACHA_BENCH_LANES`, default 1, 2 and 4).
fn lane_counts() -> Vec<u32> {
    match std::env::var("HWACHA_BENCH_LANES") {
        Ok(v) => v
            .split(',')
            .map(|l| l.trim().parse().expect("HWACHA_BENCH_LANES: lane counts"))
            .collect(),
        Err(_) => vec![1, 2, 4],
    }
}

/// Whether `HWACHA_BENCH_KERNELS` (names, comma-separated; default all) selects `name`.
fn selected(name: &str) -> bool {
    std::env::var("HWACHA_BENCH_KERNELS").map_or(true, |v| v.split(',').any(|k| k.trim() == name))
}

/// rocket-hwacha from the `lanes`-lane L2 preset, with the VRU or without;
/// `HWACHA_BENCH_L2=mshrs=8,ways=16` sets parameters of the L2.
fn l2_preset(root: &Path, lanes: u32, vru: bool) -> (RocketHwachaParams, toml::Table) {
    let (_, mut table) = preset_file(root, &format!("hwacha-{lanes}lane-l2"), false);
    let hwacha = table["hwacha"].as_table_mut().expect("[hwacha]");
    hwacha.insert("vru".into(), vru.into());
    let l2 = table
        .entry("l2")
        .or_insert(toml::Table::new().into())
        .as_table_mut()
        .expect("[l2]");
    set_from_env(l2, "HWACHA_BENCH_L2");
    let params: RocketHwachaParams = table.clone().try_into().expect("parameters");
    (params, table)
}

/// `table`'s values named in the environment variable `var` (`name=value,...`).
fn set_from_env(table: &mut toml::Table, var: &str) {
    let Ok(set) = std::env::var(var) else {
        return;
    };
    for item in set.split(',') {
        let (name, value) = item
            .split_once('=')
            .unwrap_or_else(|| panic!("{var}: name=value"));
        let value: toml::Value = format!("v = {value}")
            .parse::<toml::Table>()
            .expect("a TOML value")["v"]
            .clone();
        table.insert(name.trim().into(), value);
    }
}

/// rocket-hwacha from the `lanes`-lane preset, with `mixed_precision`.
fn preset(root: &Path, lanes: u32, mixed_precision: bool) -> (RocketHwachaParams, toml::Table) {
    preset_file(root, &format!("hwacha-{lanes}lane"), mixed_precision)
}

/// rocket-hwacha from `configs/<name>.toml`, with `mixed_precision`;
/// `HWACHA_BENCH_SET=seq_entries=16,vlt_entries=32` sets parameters of the Hwacha unit.
fn preset_file(
    root: &Path,
    name: &str,
    mixed_precision: bool,
) -> (RocketHwachaParams, toml::Table) {
    let text = std::fs::read_to_string(root.join(format!("configs/{name}.toml"))).expect("preset");
    let mut table: toml::Table = text.parse().expect("TOML");
    let hwacha = table["hwacha"].as_table_mut().expect("[hwacha]");
    if mixed_precision {
        hwacha.insert("mixed_precision".into(), true.into());
    }
    set_from_env(hwacha, "HWACHA_BENCH_SET");
    let params: RocketHwachaParams = table.clone().try_into().expect("parameters");
    (params, table)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    let lanes = lane_counts();
    if std::env::var_os("HWACHA_BENCH_FP").is_some() {
        fp_kernels(root, &lanes, dir.path());
        return;
    }
    if std::env::var_os("HWACHA_BENCH_MEM").is_some() {
        memory_system(root, &lanes, dir.path());
        return;
    }
    let benches: Vec<Bench> = KERNELS
        .iter()
        .map(|k| Bench::new(k.family, Precision::I))
        .collect();
    let programs: Vec<Program> = (benches.iter())
        .map(|b| b.build(dir.path(), &[]).expect("program builds"))
        .collect();

    println!("design                 elaboration  Verilog (bytes)  modules");
    let mut socs = vec![];
    for &l in &lanes {
        let (params, table) = preset(root, l, false);
        let build = || generators::elaborate("rocket-hwacha", &table).expect("elaborates");
        let top = if l == 2 {
            build()
        } else {
            size(&format!("rocket-hwacha {l} lane"), build)
        };
        socs.push((params, top));
    }
    let mut units = vec![];
    for lanes in [1, 4] {
        let p = HwachaParams {
            lanes,
            ..HwachaParams::default()
        };
        let ram = RamWindow {
            base: 0x8000_0000,
            size: 0x8000_0000,
        };
        let top = size(&format!("hwacha unit {lanes} lane"), || {
            generators::hwacha::unit::hwacha(&p, ram, None).expect("elaborates")
        });
        units.push((lanes, top));
    }
    println!();
    println!(
        "Integer microbenchmarks (host-data mode, vector length maxvl, latency 1): cycles \
         from reset to exit; vector window: first to last cycle of a lane memory request \
         (the worker thread's memory traffic). Ideal: per lane, a strip of B*S rows every \
         max(sum over vector ops of max(r,1), B*imuls, mem_ops*B*S*8/16) cycles (bank \
         slots, IMul at S elements a cycle, one 128-bit beat a cycle); elements: axpy's y \
         elements, gemm's multiply-adds."
    );
    println!(
        "lanes  kernel     maxvl   size  program cycles  window cycles  elem/cycle  ideal  \
         of ideal  cycles/s"
    );
    // `HWACHA_BENCH_VCD=DIR` writes a waveform of each integer run to DIR/<lanes>-<kernel>.vcd.
    let vcd_dir = std::env::var_os("HWACHA_BENCH_VCD").map(std::path::PathBuf::from);
    let options = Options {
        trace: vcd_dir.as_ref().map(|_| TraceFormat::Vcd),
        ..Options::default()
    };
    for (params, top) in &socs {
        let mut dut = Model::of_design(&Design::new(top), &options).expect("model");
        let lanes = params.hwacha.lanes;
        let unit = verification::hwacha::model::HwachaParams {
            lanes,
            ..Default::default()
        };
        for ((kernel, bench), program) in KERNELS.iter().zip(&benches).zip(&programs) {
            if !selected(&bench.name()) {
                continue;
            }
            if let Some(dir) = &vcd_dir {
                let path = dir.join(format!("{lanes}-{}.vcd", bench.name()));
                dut.trace(&path).expect("waveform");
            }
            let start = Instant::now();
            let run = host_run(&mut dut, params, &unit, (*bench, program), LATENCY_1);
            dut.close_trace();
            let seconds = start.elapsed().as_secs_f64();
            let elements = kernel.elements * kernel.blocks * run.size;
            let rate = elements as f64 / run.window as f64;
            let ideal = kernel.ideal(&params.hwacha);
            println!(
                "{lanes:>5}  {:9}  {:>5}  {:>5}  {:>14}  {:>13}  {rate:>10.3}  {ideal:>5.2}  \
                 {:>7.1}%  {:>8.0}",
                bench.name(),
                run.maxvl,
                run.size,
                run.cycles,
                run.window,
                100.0 * rate / ideal,
                run.cycles as f64 / seconds
            );
        }
    }

    if std::env::var_os("HWACHA_BENCH_INT").is_some() {
        return;
    }
    fp_kernels(root, &lanes, dir.path());
    memory_system(root, &lanes, dir.path());

    println!();
    println!("hwacha unit alone, random inputs: lanes  cycles  cycles/s");
    for (lanes, top) in &units {
        let mut dut = Model::of_design(&Design::new(top), &Options::default()).expect("model");
        let ports = dut.ports().to_vec();
        let cycles = 200_000;
        let start = Instant::now();
        exercise(&mut dut, &ports, Stimulus::Random { seed: 1 }, cycles).expect("runs");
        let seconds = start.elapsed().as_secs_f64();
        println!("{lanes:>39}  {cycles:>6}  {:>8.0}", cycles as f64 / seconds);
    }
}

/// FMA operations per output element of an FP microbenchmark (the worker's vfmul and
/// vfadd): axpy's one of each; gemm-opt's K = 8 of each per element of C; filter's nine
/// products and eight sums per point.
fn fma_ops(family: Family) -> u64 {
    match family {
        Family::Axpy => 2,
        Family::GemmOpt => 16,
        _ => 17,
    }
}

/// Output elements of a problem of size `n` (`ubench::size`): axpy's n, gemm-opt's n
/// rows by J = 8 columns, filter's n points of each of its four interior rows.
fn outputs(family: Family, n: u64) -> u64 {
    match family {
        Family::Axpy => n,
        Family::GemmOpt => 8 * n,
        _ => 4 * n,
    }
}

/// The FP microbenchmarks in host-data mode on rocket-hwacha with each of `lanes`,
/// baseline and mixed precision: cycles, the vector window and FMA utilization; every
/// run's output checked by the host's model.
fn fp_kernels(root: &Path, lanes: &[u32], dir: &Path) {
    println!();
    println!(
        "FP microbenchmarks (host-data mode, vector length maxvl, latency 1): cycles from \
         reset to exit, the vector window, FMA utilization = FMA operations / (2 FMAs x S \
         elements x lanes x window cycles); MXP: mixed_precision, its utilization over the \
         baseline's."
    );
    println!(
        "lanes  unit  kernel         maxvl   size  program cycles  window cycles  FMA util  \
         MXP speedup"
    );
    let benches: Vec<Bench> = [Family::Axpy, Family::GemmOpt, Family::Filter]
        .into_iter()
        .flat_map(|k| Precision::ALL[1..].iter().map(move |&p| Bench::new(k, p)))
        .collect();
    let programs: Vec<Program> = (benches.iter())
        .map(|b| b.build(dir, &[]).expect("program builds"))
        .collect();
    for &l in lanes {
        let mut baseline = vec![];
        for mxp in [false, true] {
            let (params, table) = preset(root, l, mxp);
            let top = generators::elaborate("rocket-hwacha", &table).expect("elaborates");
            let mut dut = Model::of_design(&Design::new(&top), &Options::default()).expect("model");
            let unit = verification::hwacha::model::HwachaParams {
                lanes: l,
                mixed_precision: mxp,
                ..Default::default()
            };
            for (i, (bench, program)) in benches.iter().zip(&programs).enumerate() {
                let run = host_run(&mut dut, &params, &unit, (*bench, program), LATENCY_1);
                let slots = 2 * (params.hwacha.bank_width as u64 / 64) * l as u64 * run.window;
                let ops = fma_ops(bench.kernel) * outputs(bench.kernel, run.size);
                let util = ops as f64 / slots as f64;
                let name = if mxp { "MXP" } else { "base" };
                let speedup = if mxp {
                    format!("{:.2}x", util / baseline[i])
                } else {
                    baseline.push(util);
                    String::new()
                };
                println!(
                    "{l:>5}  {name:4}  {:13}  {:>5}  {:>5}  {:>14}  {:>13}  {:>7.1}%  {speedup:>11}",
                    bench.name(),
                    run.maxvl,
                    run.size,
                    run.cycles,
                    run.window,
                    100.0 * util
                );
            }
        }
    }
}

/// The memory system (thesis 8.4, Table 9.2): iaxpy and igemm-opt at a vector-length cap
/// of maxvl / 8 (so the VRU has blocks to run ahead into), at memory latency 1 and 100
/// with flat memory, and at latency 100 behind the L2 without and with the VRU;
/// elements per cycle in the vector window against latency 1's.
fn memory_system(root: &Path, lanes: &[u32], dir: &Path) {
    println!();
    println!(
        "Memory system (host-data mode, vector length capped at maxvl / 8): elements per \
         cycle in the vector window, and their ratio to flat memory at latency 1."
    );
    println!(
        "lanes  kernel     cap  memory       latency  program cycles  window cycles  \
         elem/cycle  of latency 1"
    );
    let kernels: Vec<&Kernel> = (KERNELS.iter())
        .filter(|k| matches!(k.family, Family::Axpy | Family::GemmOpt))
        .collect();
    let benches: Vec<Bench> = (kernels.iter())
        .map(|k| Bench::new(k.family, Precision::I))
        .collect();
    let programs: Vec<Program> = (benches.iter())
        .map(|b| b.build(dir, &[]).expect("program builds"))
        .collect();
    for &l in lanes {
        let unit = verification::hwacha::model::HwachaParams {
            lanes: l,
            ..Default::default()
        };
        // `HWACHA_BENCH_L2_LATENCY=1,100`: the memory latencies behind the L2.
        let behind: Vec<u32> = std::env::var("HWACHA_BENCH_L2_LATENCY").map_or(vec![100], |v| {
            (v.split(','))
                .map(|l| {
                    l.trim()
                        .parse()
                        .expect("HWACHA_BENCH_L2_LATENCY: latencies")
                })
                .collect()
        });
        let mut systems = vec![
            ("flat", preset(root, l, false), vec![1, 100]),
            ("L2", l2_preset(root, l, false), behind.clone()),
            ("L2 + VRU", l2_preset(root, l, true), behind),
        ];
        // `HWACHA_BENCH_MEM=vru`: the L2 with the VRU only (beside latency 1).
        if std::env::var("HWACHA_BENCH_MEM").is_ok_and(|v| v == "vru") {
            systems.remove(1);
            systems[0].2 = vec![1];
        }
        let mut baseline = vec![0.0; kernels.len()];
        for (name, (params, table), latencies) in systems {
            let top = generators::elaborate("rocket-hwacha", &table).expect("elaborates");
            let mut dut = Model::of_design(&Design::new(&top), &Options::default()).expect("model");
            for (i, (kernel, (bench, program))) in kernels
                .iter()
                .zip(benches.iter().zip(&programs))
                .enumerate()
            {
                if !selected(&bench.name()) {
                    continue;
                }
                let maxvl = unit.maxvl(&ubench::vcfg(program).expect("vcfg"));
                let cap = (maxvl / 8) as u32;
                for &latency in &latencies {
                    let setting = Setting {
                        latency,
                        cap: Some(cap),
                    };
                    let run = host_run(&mut dut, &params, &unit, (*bench, program), setting);
                    let rate =
                        (kernel.elements * kernel.blocks * run.size) as f64 / run.window as f64;
                    if latency == 1 {
                        baseline[i] = rate;
                    }
                    println!(
                        "{l:>5}  {:9}  {cap:>3}  {name:11}  {latency:>7}  {:>14}  {:>13}  \
                         {rate:>10.3}  {:>11.1}%",
                        bench.name(),
                        run.cycles,
                        run.window,
                        100.0 * rate / baseline[i]
                    );
                }
            }
        }
    }
}

/// One host-data run's figures.
struct HostRun {
    maxvl: u64,
    /// The problem size (`ubench::size`).
    size: u64,
    /// Cycles from reset to exit.
    cycles: u64,
    /// First to last cycle of a lane memory request.
    window: u64,
}

/// How a run goes: the memory's latency and a cap on the vector length (none: maxvl).
#[derive(Clone, Copy)]
struct Setting {
    latency: u32,
    cap: Option<u32>,
}

const LATENCY_1: Setting = Setting {
    latency: 1,
    cap: None,
};

/// One run of `bench` in host-data mode at vector length maxvl (or `setting.cap`), its
/// output checked by the host's model.
fn host_run(
    dut: &mut Model,
    params: &RocketHwachaParams,
    unit: &verification::hwacha::model::HwachaParams,
    (bench, program): (Bench, &Program),
    setting: Setting,
) -> HostRun {
    let mut program = program.clone();
    let maxvl = unit.maxvl(&ubench::vcfg(&program).expect("vcfg"));
    let prepared = host::prepare(&mut program, bench, maxvl, 1, 1).expect("prepares");
    if let Some(cap) = setting.cap {
        ubench::set_caps(&mut program, &[cap]).expect("caps");
    }
    let config = run_config(params, setting.latency);
    let mut window = LaneWindow::new(dut, params);
    let (out, memory) = soc::run_with_memory::<_, IssGolden>(
        &mut window,
        &program,
        &config,
        Box::new(std::io::sink()),
        Box::new(std::io::sink()),
        None,
    )
    .expect("runs");
    assert_eq!(out.exit_code, 0, "{}", bench.name());
    prepared
        .check(|a| memory.read_u64(a))
        .unwrap_or_else(|e| panic!("{}: {e}", bench.name()));
    HostRun {
        maxvl,
        size: ubench::size(&program, maxvl).expect("size"),
        cycles: out.cycles,
        window: window.last - window.first.expect("lanes used memory") + 1,
    }
}
