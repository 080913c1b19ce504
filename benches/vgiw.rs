//! VGIW figures (seed 004), printed, not asserted: per kernel program of `kernels/`,
//! the compiler's time and output (blocks, nodes, live values, replicas the default
//! fabric holds) and what the functional execution model counts (block schedulings,
//! reconfigurations, thread-block executions, LVC accesses a thread instruction: the
//! paper's Figure 3 puts them about 10x below a GPU's register-file accesses, counted a
//! warp at a time). Then, per fabric size (Table 1's unit mix scaled), the grid, the
//! elaboration time and Verilog size of the fabric (`generators::vgiw::fabric`), its
//! reconfiguration shift (two passes along the rows: 2 x cols cycles; the paper's
//! prototype takes 34 at 108 units) and how many of the programs map on it. Cycle
//! counts of whole programs come with the BBS, CVT and LVC in RTL.
//!
//! `cargo bench --bench vgiw`; `VGIW_BENCH_KERNELS=bfs,rodinia/nn` picks programs
//! (default: every program of `kernels/` and `kernels/rodinia/`).

use generators::vgiw::compiler::{compile, Kernel};
use generators::vgiw::grid::Grid;
use generators::vgiw::params::VgiwParams;
use std::time::Instant;
use verification::elf;
use verification::kernels::{build_program, programs, programs_dir};
use verification::vgiw::kernels;
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
    for name in picked {
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
