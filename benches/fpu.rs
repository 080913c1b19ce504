//! The floating-point units (`generators::fpu`), one row per unit, format and pipeline
//! depth: latency, elaboration time, Verilog size, Verilator speed in operations per
//! second (one a cycle, random operations), and cell area from Yosys (`synth; dfflibmap;
//! abc; stat` with nangate45's typical library). Prints a table; asserts nothing.
//! `cargo bench --bench fpu`; set `FPU_BENCH_NO_AREA=1` to skip synthesis.

use generators::fpu::compare::{self, CompareParams};
use generators::fpu::convert::{self, ConvertParams};
use hdl::emit::{emit, EmitOptions};
use hdl::{Design, Module};
use std::path::Path;
use std::process::Command;
use std::rc::Rc;
use std::time::Instant;
use verification::rng::Rng;
use verification::verilator::{Model, Options};

/// One unit to measure: its builder, latency, operand ports and a random `op`.
struct Case {
    unit: &'static str,
    config: String,
    latency: u32,
    build: Box<dyn Fn() -> Rc<Module>>,
    operands: &'static [&'static str],
    /// Width of the operands.
    width: u32,
    random_op: fn(&mut Rng) -> u64,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for format in ["binary16", "binary32", "binary64"] {
        for stages in [0, 1, 2] {
            let p = CompareParams {
                format: format.into(),
                stages,
            };
            let width = p.format().width();
            out.push(Case {
                unit: "fcmp",
                config: format!("{format} stages={stages}"),
                latency: compare::latency(&p),
                build: Box::new(move || compare::compare(&p).expect("elaborates")),
                operands: &["a", "b"],
                width,
                random_op: |rng| rng.below(9),
            });
        }
    }
    for formats in ["h", "s", "d", "hsd"] {
        for stages in [0, 2] {
            let p = ConvertParams {
                formats: formats.into(),
                stages,
            };
            out.push(Case {
                unit: "fconv",
                config: format!("{formats} stages={stages}"),
                latency: convert::latency(&p),
                build: Box::new(move || convert::convert(&p).expect("elaborates")),
                operands: &["a"],
                width: 64,
                random_op: |rng| rng.below(256),
            });
        }
    }
    out
}

/// Verilog text of `top`.
fn verilog(top: &Rc<Module>) -> String {
    emit(&Design::new(top), &EmitOptions::default())
        .files()
        .iter()
        .filter(|(n, _)| n.ends_with(".v"))
        .map(|(_, t)| t.as_str())
        .collect()
}

/// Cell area (um^2) of `top` on nangate45, if Yosys and the library are there.
fn area(top: &Rc<Module>, text: &str) -> Option<f64> {
    let lib_gz = Path::new("/work/shared/pdk/nangate45_typ.lib.gz");
    let dir = tempfile::tempdir().ok()?;
    let lib = dir.path().join("nangate45.lib");
    let unzipped = Command::new("gzip").arg("-dc").arg(lib_gz).output().ok()?;
    std::fs::write(&lib, unzipped.stdout).ok()?;
    let v = dir.path().join("top.v");
    std::fs::write(&v, text).ok()?;
    let l = lib.display();
    let script = format!(
        "synth -top {top}; dfflibmap -liberty {l}; abc -liberty {l}; stat -liberty {l}",
        top = top.name
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script, "-l"])
        .arg(dir.path().join("log"))
        .arg(&v)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let log = std::fs::read_to_string(dir.path().join("log")).ok()?;
    log.lines()
        .filter_map(|l| l.trim().strip_prefix("Chip area for module "))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .next_back()
}

/// Operations per second of a Verilator model of `top`, one random operation a cycle.
fn speed(case: &Case, top: &Rc<Module>) -> Option<f64> {
    let mut model = Model::of_design(&Design::new(top), &Options::default()).ok()?;
    let mut rng = Rng::new(1);
    let n = 2_000_000u64;
    let start = Instant::now();
    let _ = model.poke_u64("reset", 0);
    model.poke_u64("in_valid", 1).ok()?;
    for _ in 0..n {
        model.poke_u64("op", (case.random_op)(&mut rng)).ok()?;
        model.poke_u64("rm", rng.below(5)).ok()?;
        for port in case.operands {
            model
                .poke_u64(port, rng.next_u64() >> (64 - case.width))
                .ok()?;
        }
        model.peek_u64("result").ok()?;
        model.step();
    }
    Some(n as f64 / start.elapsed().as_secs_f64())
}

fn main() {
    let synthesize = std::env::var_os("FPU_BENCH_NO_AREA").is_none();
    println!(
        "{:6} {:18} {:>7} {:>10} {:>10} {:>12} {:>12}",
        "unit", "config", "latency", "elab ms", "Verilog B", "Vltr ops/s", "area um^2"
    );
    for case in cases() {
        let start = Instant::now();
        let top = (case.build)();
        let elaboration = start.elapsed().as_secs_f64() * 1e3;
        let text = verilog(&top);
        let ops = speed(&case, &top).map_or("n/a".into(), |s| format!("{s:.0}"));
        let cells = synthesize
            .then(|| area(&top, &text))
            .flatten()
            .map_or("n/a".into(), |a| format!("{a:.0}"));
        println!(
            "{:6} {:18} {:>7} {:>10.1} {:>10} {:>12} {:>12}",
            case.unit,
            case.config,
            case.latency,
            elaboration,
            text.len(),
            ops,
            cells
        );
    }
}
