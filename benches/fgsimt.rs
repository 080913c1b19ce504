//! The FG-SIMT engine (design `fgsimt`, the paper's preset `configs/fgsimt.toml`: 8 lanes,
//! warps of 32, 16 KiB I$, 128 KiB D$ in 8 banks) on the kernels of `kernels/`, beside
//! seed 000's Table 3: for each kernel the run's cycles, the cycles its launches ran, the
//! active threads per warp instruction and the L1 bytes per kernel cycle, measured on
//! the RTL (Verilator, memory latency 1), next to the paper's execution time (thousands
//! of cycles), active threads and bytes per cycle; then, per affine setting, the SIMT
//! model's share of warp instructions the affine mechanisms take (the paper's "Aff
//! inst") and the paper's speedups, and the RTL's speedup once the setting is built
//! (the RTL refuses `affine` other than `none` so far: "not built"). Also the
//! elaboration time, the Verilog's size and the Verilator model's speed. Prints, asserts
//! nothing but that each run ends as `accelgen iss` does.
//!
//! `FGSIMT_BENCH_KERNELS=conv,sgemm` runs only those kernels.

use generators::fgsimt::params::FgsimtParams;
use generators::output::{render, OutputOptions};
use hdl::Design;
use std::path::Path;
use std::time::Instant;
use verification::elf::{self, Program};
use verification::fgsimt::affine::Mechanisms;
use verification::fgsimt::program;
use verification::iss::IssConfig;
use verification::tb::fgsimt::{self as tb, FgsimtConfig};
use verification::tb::kernel_check::KernelShape;
use verification::tb::memory::MemConfig;
use verification::verilator::{Model, Options};

/// Seed 000's Table 3 (FG-SIMT rows): name, fgsimt execution time in thousands of
/// cycles, active threads, L1 bytes per cycle, speedups of +a, +ab, +abm (derived:
/// fgsimt Exec / config Exec; `../shared/specs/000-affine-simt-asrf.md`), and the
/// paper's affine instruction shares of +a, +ab, +abm.
const PAPER: [Paper; 13] = [
    ("bfs", 46.0, 17.1, 1.9, [1.00, 1.00, 1.02], [4, 4, 4]),
    ("bilat", 1103.0, 31.3, 3.7, [1.01, 1.01, 1.01], [8, 8, 8]),
    ("bsearch", 22.0, 28.0, 5.9, [1.05, 1.05, 1.05], [10, 10, 10]),
    ("cmult", 2.9, 31.3, 12.5, [1.32, 1.32, 1.32], [55, 55, 55]),
    ("conv", 27.0, 31.0, 9.2, [1.12, 1.29, 1.59], [53, 63, 63]),
    ("dither", 684.0, 28.9, 6.1, [1.13, 1.13, 1.17], [44, 44, 44]),
    ("kmeans", 149.0, 14.0, 4.1, [1.05, 1.43, 1.45], [51, 62, 62]),
    ("mfilt", 54.0, 24.9, 8.2, [1.10, 1.10, 1.20], [44, 44, 44]),
    (
        "rgb2cmyk",
        20.0,
        26.7,
        11.1,
        [1.11, 1.25, 1.25],
        [25, 29, 29],
    ),
    ("rsort", 113.0, 30.9, 3.5, [1.01, 1.05, 1.04], [5, 6, 6]),
    ("sgemm", 38.0, 32.0, 7.5, [1.03, 1.65, 1.65], [14, 26, 26]),
    ("strsearch", 363.0, 13.2, 3.1, [1.00, 1.00, 1.00], [6, 6, 6]),
    (
        "viterbi",
        608.0,
        32.0,
        7.5,
        [1.13, 1.34, 1.46],
        [42, 45, 45],
    ),
];

/// A Table 3 row: (name, fgsimt kilocycles, active threads, L1 B/cycle, speedups of +a,
/// +ab, +abm, affine instruction shares in percent of +a, +ab, +abm).
type Paper = (&'static str, f64, f64, f64, [f64; 3], [u32; 3]);

const MODES: [&str; 3] = ["a", "ab", "abm"];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    let only: Option<Vec<String>> = std::env::var("FGSIMT_BENCH_KERNELS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let text = std::fs::read_to_string(root.join("configs/fgsimt.toml")).expect("preset");
    let table: toml::Table = text.parse().expect("TOML");
    let params: FgsimtParams = generators::design("fgsimt")
        .and_then(|d| d.validate(&table))
        .expect("the preset is valid")
        .try_into()
        .expect("FgsimtParams");
    let start = Instant::now();
    let top = generators::elaborate("fgsimt", &table).expect("elaborates");
    let elaboration = start.elapsed().as_secs_f64() * 1e3;
    let out = render("fgsimt", &table, &OutputOptions::default()).expect("renders");
    println!(
        "fgsimt preset: elaborated in {elaboration:.1} ms, {} bytes of Verilog in {} files",
        out.verilog_bytes(),
        out.files.len()
    );
    let start = Instant::now();
    let mut dut = Model::of_design(&Design::new(&top), &Options::default()).expect("model");
    println!(
        "Verilator model: {:.0} s ({})\n",
        start.elapsed().as_secs_f64(),
        if dut.build_info().cached {
            "cached"
        } else {
            "built"
        }
    );
    println!(
        "kernel     cycles     kernel cycles (paper fgsimt)  act thds (paper)  L1 B/cyc (paper)  cycles/s"
    );
    let mut shares = Vec::new();
    for &(name, exec, act, bytes, speedups, aff) in &PAPER {
        if only.as_ref().is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        let program = build(root, dir.path(), name);
        let rtl = run_rtl(&mut dut, &program, &params);
        println!(
            "{name:9} {:>10} {:>10} ({:>7.0} k)  {:>8} ({act:>4.1})  {:>8} ({bytes:>4.1})  {}",
            rtl.0, rtl.1, exec, rtl.2, rtl.3, rtl.4
        );
        shares.push((
            name,
            model_shares(&program, params.warp_size),
            speedups,
            aff,
        ));
    }
    println!("\nkernel     affine share of warp instructions, model (paper)      RTL speedup a/ab/abm (paper)");
    for (name, model, speedups, aff) in shares {
        let cells: Vec<String> = (0..3)
            .map(|i| format!("+{} {:>5.1} % ({:>2} %)", MODES[i], model[i], aff[i]))
            .collect();
        println!(
            "{name:9}  {}   not built ({:.2}/{:.2}/{:.2})",
            cells.join("  "),
            speedups[0],
            speedups[1],
            speedups[2]
        );
    }
}

fn build(root: &Path, dir: &Path, name: &str) -> Program {
    let elf = dir.join(format!("{name}.elf"));
    let src = root.join(format!("kernels/{name}.c"));
    verification::kernels::build_program(&[src], &elf, &[], &[]).expect("kernel builds");
    elf::load_file(&elf).expect("ELF loads")
}

/// The kernel on the RTL: cycles, kernel cycles, active threads, L1 bytes per kernel
/// cycle, the model's speed (as text; a fault's message instead when the engine cannot
/// run it yet).
fn run_rtl(
    dut: &mut Model,
    program: &Program,
    p: &FgsimtParams,
) -> (String, String, String, String, String) {
    let shape = KernelShape {
        lanes: p.lanes,
        warp_size: p.warp_size,
        mech: Mechanisms::default(),
    };
    let config = FgsimtConfig::new(shape, p.dcache_banks, MemConfig::default(), 200_000_000);
    let start = Instant::now();
    let sink = || Box::new(std::io::sink());
    match tb::run(dut, program, &config, sink(), sink(), None) {
        Ok(o) => {
            assert_eq!(o.exit_code, 0, "the kernel's own check");
            let seconds = start.elapsed().as_secs_f64();
            let act = o.thread_instructions as f64 / o.warp_instructions.max(1) as f64;
            let e = o.engine;
            let bpc = e.bytes as f64 / e.kernel_cycles.max(1) as f64;
            (
                o.cycles.to_string(),
                e.kernel_cycles.to_string(),
                format!("{act:.1}"),
                format!("{bpc:.2}"),
                format!("{:.0}", o.cycles as f64 / seconds),
            )
        }
        Err(e) => {
            let why = format!("stops: {e}");
            (
                why,
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            )
        }
    }
}

/// The SIMT model's affine share at +a, +ab, +abm, in percent of warp instructions:
/// those the CP takes alone, the uniform branches it resolves and the affine loads
/// (`kernels/README.md`'s definition, the paper's "Aff inst").
fn model_shares(program: &Program, warp: u32) -> [f64; 3] {
    MODES.map(|m| {
        let mech = Mechanisms::parse(m).expect("mode");
        let r = program::run(program, IssConfig::default(), (warp, mech), 1_000_000_000)
            .expect("the model runs the kernel");
        let (cp, all) = r.launches.iter().fold((0, 0), |(c, a), l| {
            let f = &l.affine;
            (
                c + f.cp + f.uniform_branches + f.affine_loads,
                a + l.warp_instructions,
            )
        });
        100.0 * cp as f64 / all.max(1) as f64
    })
}
