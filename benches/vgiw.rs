//! VGIW figures (seed 004), printed, not asserted: per kernel program of `kernels/`,
//! the compiler's time and output (blocks, nodes, live values, replicas the default
//! fabric holds) and what the functional execution model counts (block schedulings,
//! reconfigurations, thread-block executions, LVC accesses a thread instruction: the
//! paper's Figure 3 puts them about 10x below a GPU's register-file accesses, counted a
//! warp at a time). Then, per fabric size (Table 1's unit mix scaled), the grid, the
//! elaboration time and Verilog size of the fabric (`generators::vgiw::fabric`), its
//! reconfiguration shift (two passes along the rows: 2 x cols cycles; the paper's
//! prototype takes 34 at 108 units) and how many of the programs map on it.
//!
//! With `VGIW_BENCH_RTL=1`, each program's kernels (fast-forwarded: the ISS runs the
//! host's setup and check, `verification::tb::fast_forward`) then run on the `vgiw` tile (`VGIW_BENCH_CONFIG`, default
//! `configs/vgiw.toml`) and on the `fgsimt` tile at its two presets (`configs/fgsimt.toml`,
//! `configs/fgsimt-abm.toml`), all in Verilator at memory latency 1: the cycles its
//! launches took on each, the share of the vgiw launches' cycles spent configuring
//! blocks (fetch and shift; the paper: 0.18 % on average, with its configurations
//! prefetched from an L2), and the mean thread vector a block ran.
//!
//! `cargo bench --bench vgiw`; `VGIW_BENCH_KERNELS=bfs,rodinia/nn` picks programs
//! (default: every program of `kernels/` and `kernels/rodinia/`).

use generators::fgsimt::params::FgsimtParams;
use generators::vgiw::compiler::{compile, Kernel};
use generators::vgiw::grid::Grid;
use generators::vgiw::params::VgiwParams;
use hdl::Design;
use std::time::Instant;
use verification::elf;
use verification::fgsimt::affine::Mechanisms;
use verification::kernels::{build_program, programs, programs_dir};
use verification::tb::fgsimt::{self as fgsimt_tb, FgsimtConfig};
use verification::tb::kernel_check::KernelShape;
use verification::tb::memory::MemConfig;
use verification::tb::vgiw::{self as vgiw_tb, VgiwConfig};
use verification::verilator::{Model, Options};
use verification::vgiw::kernels;
use verification::vgiw::loader;
use verification::vgiw::program::{run_on, vgiw_host};

fn main() {
    let picked: Vec<String> = match std::env::var("VGIW_BENCH_KERNELS") {
        Ok(v) => v.split(',').map(str::to_string).collect(),
        Err(_) => [programs(""), programs("rodinia")].concat(),
    };
    let params = VgiwParams::default();
    let dir = tempfile::tempdir().unwrap();
    println!(
        "{:<20} {:>9} {:>6} {:>6} {:>4} {:>8} {:>8} {:>8} {:>10} {:>12} {:>9}",
        "program",
        "compile",
        "blocks",
        "nodes",
        "lvs",
        "replicas",
        "sched",
        "reconf",
        "thr-blocks",
        "thr-insns",
        "lvc/insn"
    );
    let mut built = Vec::new();
    for name in &picked {
        let src = programs_dir().join(format!("{name}.c"));
        let elf_path = dir.path().join(format!("{}.elf", name.replace('/', "-")));
        build_program(&[src], &elf_path, &[programs_dir()], &[]).unwrap();
        let program = elf::load_file(&elf_path).unwrap();
        let entries = kernels::launched(&program, 1_000_000_000).unwrap();
        built.push((program.clone(), entries.clone()));
        let start = Instant::now();
        let compiled: Vec<Kernel> = (entries.iter())
            .map(|&e| compile(&kernels::code(&program, e).unwrap(), &params).unwrap())
            .collect();
        let compile_ms = start.elapsed().as_secs_f64() * 1e3;
        let blocks: usize = compiled.iter().map(|k| k.blocks.len()).sum();
        let nodes: usize = (compiled.iter().flat_map(|k| &k.blocks))
            .map(|b| b.nodes.len())
            .sum();
        let lvs: usize = compiled.iter().map(|k| k.live_values.len()).sum();
        let reps: Vec<u32> = (compiled.iter().flat_map(|k| &k.blocks))
            .map(|b| b.replicas)
            .collect();
        let mut iss = vgiw_host(&program).unwrap();
        let run = run_on(&mut iss, &compiled, &params, 1_000_000_000).unwrap();
        assert_eq!(run.exit, 0, "{name}");
        let sum = |f: &dyn Fn(&verification::vgiw::machine::LaunchStats) -> u64| -> u64 {
            run.launches.iter().map(|(_, s)| f(s)).sum()
        };
        let insns = sum(&|s| s.thread_instructions);
        let lvc = sum(&|s| s.lvc.loads + s.lvc.stores);
        println!(
            "{:<20} {:>7.2}ms {:>6} {:>6} {:>4} {:>3}..{:<4} {:>8} {:>8} {:>10} {:>12} {:>9.3}",
            name,
            compile_ms,
            blocks,
            nodes,
            lvs,
            reps.iter().min().unwrap(),
            reps.iter().max().unwrap(),
            sum(&|s| s.blocks_executed),
            sum(&|s| s.reconfigurations),
            sum(&|s| s.thread_blocks),
            insns,
            lvc as f64 / insns as f64
        );
    }
    fabrics(&built);
    if std::env::var_os("VGIW_BENCH_RTL").is_some() {
        rtl(&picked, &built);
    }
}

/// The Verilator model of design `name` with `table`.
fn model(name: &str, table: &toml::Table) -> Model {
    let top = generators::elaborate(name, table).expect("elaborates");
    Model::of_design(&Design::new(&top), &Options::default()).expect("model")
}

fn preset(path: &str) -> toml::Table {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(path)).expect("preset");
    text.parse().expect("TOML")
}

/// Each program on the vgiw tile and on the fgsimt tile at both presets.
fn rtl(names: &[String], built: &[(elf::Program, Vec<u64>)]) {
    let config = std::env::var("VGIW_BENCH_CONFIG").unwrap_or("configs/vgiw.toml".into());
    let vt = preset(&config);
    let p: VgiwParams = generators::design("vgiw")
        .and_then(|d| d.validate(&vt))
        .expect("valid")
        .try_into()
        .expect("VgiwParams");
    let mut vgiw = model("vgiw", &vt);
    let mut simts: Vec<(FgsimtParams, Model)> = ["configs/fgsimt.toml", "configs/fgsimt-abm.toml"]
        .iter()
        .map(|c| {
            let t = preset(c);
            let fp = generators::design("fgsimt")
                .and_then(|d| d.validate(&t))
                .expect("valid")
                .try_into()
                .expect("FgsimtParams");
            (fp, model("fgsimt", &t))
        })
        .collect();
    println!(
        "\n{config} in RTL (launch cycles; latency 1):\n{:<20} {:>10} {:>10} {:>10} {:>9} {:>8}",
        "program", "vgiw", "fgsimt", "fgsimt-abm", "config %", "vector"
    );
    let sink = || Box::new(std::io::sink());
    for (name, (program, _)) in names.iter().zip(built) {
        let loaded = match loader::load(program, &p, 1_000_000_000) {
            Ok(l) => l,
            Err(e) => {
                println!("{name:<20} does not map: {e}");
                continue;
            }
        };
        let config = VgiwConfig {
            fast_forward: true,
            ..VgiwConfig::new(p.clone(), MemConfig::default(), 500_000_000)
        };
        let v = vgiw_tb::run(&mut vgiw, program, &loaded, &config, sink(), sink(), false)
            .expect("runs on vgiw");
        assert_eq!(v.exit_code, 0, "the program's own check");
        let simt: Vec<u64> = (simts.iter_mut())
            .map(|(fp, dut)| {
                let shape = KernelShape {
                    lanes: fp.lanes,
                    warp_size: fp.warp_size,
                    mech: Mechanisms::parse(fp.affine.name()).expect("a setting"),
                    contexts: 1,
                    followed: false,
                };
                let c = FgsimtConfig {
                    fast_forward: true,
                    ..FgsimtConfig::new(shape, &fp.dcache(), MemConfig::default(), 500_000_000)
                };
                let o = fgsimt_tb::run(dut, program, &c, sink(), sink(), false)
                    .expect("runs on fgsimt");
                assert_eq!(o.exit_code, 0, "the program's own check");
                o.engine.kernel_cycles
            })
            .collect();
        let s = v.stats;
        println!(
            "{:<20} {:>10} {:>10} {:>10} {:>9.2} {:>8.1}",
            name,
            s.kernel_cycles,
            simt[0],
            simt[1],
            100.0 * s.config_cycles as f64 / s.kernel_cycles.max(1) as f64,
            s.threads as f64 / s.blocks.max(1) as f64
        );
    }
}

/// Table 1's unit mix times `num / den` (at least one unit of each type).
fn scaled(num: u32, den: u32) -> VgiwParams {
    let d = VgiwParams::default();
    let k = |n: u32| (n * num / den).max(1);
    VgiwParams {
        compute_units: k(d.compute_units),
        scus: k(d.scus),
        ldsts: k(d.ldsts),
        lvus: k(d.lvus),
        sjus: k(d.sjus),
        cvus: k(d.cvus),
        ..d
    }
}

/// Per fabric size: elaboration, Verilog, reconfiguration, and the programs that map.
fn fabrics(built: &[(elf::Program, Vec<u64>)]) {
    println!();
    println!(
        "{:<10} {:>6} {:>7} {:>10} {:>12} {:>9} {:>7}",
        "fabric", "units", "grid", "elaborate", "verilog", "reconfig", "mapped"
    );
    for (num, den) in [(1, 4), (1, 2), (1, 1), (2, 1), (4, 1)] {
        let p = scaled(num, den);
        p.validate().unwrap();
        let grid = Grid::new(&p);
        let start = Instant::now();
        let top = generators::vgiw::fabric::fabric(&p).unwrap();
        let elaborate_ms = start.elapsed().as_secs_f64() * 1e3;
        let design = hdl::Design::new(&top);
        let verilog = hdl::emit::emit(&design, &hdl::emit::EmitOptions::default()).single_file();
        let mapped = (built.iter())
            .filter(|(program, entries)| {
                (entries.iter()).all(|&e| compile(&kernels::code(program, e).unwrap(), &p).is_ok())
            })
            .count();
        println!(
            "{:<10} {:>6} {:>7} {:>8.1}ms {:>10}kB {:>9} {:>3}/{:<3}",
            format!("{num}/{den} x T1"),
            p.units().iter().sum::<u32>(),
            format!("{}x{}", grid.rows, grid.cols),
            elaborate_ms,
            verilog.len() / 1000,
            2 * grid.cols,
            mapped,
            built.len()
        );
    }
}
