//! The fixed-latency floating-point units (FMA, compare, convert; the iterative divider
//! has `benches/fpu_divsqrt.rs`): per unit, format and pipeline depth, the latency, the
//! elaboration time, the size of the emitted Verilog, the Verilator model's speed in
//! operations per second (random operands, one per cycle, through the `Simulator` poke
//! and peek of the tests), and the cell area after Yosys synthesis onto nangate45
//! (`synth -flatten; dfflibmap; abc; stat`, typical corner). Prints a table; asserts
//! nothing. `FPU_BENCH_AREA=0` skips synthesis (minutes for the binary64 units).
//!
//! Beside them, what was found of HardFloat's: Rocket's `FPUParams` defaults pipeline its
//! `MulAddRecFN` over 3 cycles for binary32 and 4 for binary64, in an `FPUFMAPipe`
//! marked `ShouldBeRetimed` (its registers trail the logic, for a retiming flow); no
//! published HardFloat area figures were found (the `search` tool's pages, documents
//! and code turned up none for `MulAddRecFN`).

use generators::fpu::compare::{self, CompareParams};
use generators::fpu::convert::{self, ConvertParams};
use generators::fpu::fma::latency;
use generators::output::{render, OutputOptions};
use hdl::Design;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use verification::rng::Rng;
use verification::verilator::{Model, Options};

/// A configuration of a unit: its design, parameters, latency and the input ports to
/// drive with random values of their widths.
struct Unit {
    design: &'static str,
    label: String,
    params: String,
    latency: u32,
    inputs: Vec<(&'static str, u32)>,
    /// Measure speed and area (the others: elaboration and size only).
    measure: bool,
}

fn units() -> Vec<Unit> {
    let mut out = Vec::new();
    for (format, width) in [("binary16", 16), ("binary32", 32), ("binary64", 64)] {
        for stages in 1..=5 {
            out.push(Unit {
                design: "fpu-fma",
                label: format!("fma {format} s{stages}"),
                params: format!("format = \"{format}\"\nstages = {stages}"),
                latency: latency(stages),
                inputs: vec![
                    ("rm", 3),
                    ("op", 3),
                    ("a", width),
                    ("b", width),
                    ("c", width),
                ],
                measure: stages == 3,
            });
        }
    }
    for stages in [1, 3, 5] {
        out.push(Unit {
            design: "fpu-fma",
            label: format!("fma packed s{stages}"),
            params: format!("packed = true\nstages = {stages}"),
            latency: latency(stages),
            inputs: vec![
                ("rm", 3),
                ("op", 3),
                ("fmt", 2),
                ("a", 64),
                ("b", 64),
                ("c", 64),
            ],
            measure: stages == 3,
        });
    }
    for (format, width) in [("binary16", 16), ("binary32", 32), ("binary64", 64)] {
        for stages in 0..=2 {
            let p = CompareParams {
                format: format.into(),
                stages,
            };
            out.push(Unit {
                design: "fpu-compare",
                label: format!("fcmp {format} s{stages}"),
                params: format!("format = \"{format}\"\nstages = {stages}"),
                latency: compare::latency(&p),
                inputs: vec![("rm", 3), ("op", 4), ("a", width), ("b", width)],
                measure: true,
            });
        }
    }
    for formats in ["h", "s", "d", "hsd"] {
        for stages in [0, 2] {
            let p = ConvertParams {
                formats: formats.into(),
                stages,
            };
            out.push(Unit {
                design: "fpu-convert",
                label: format!("fconv {formats} s{stages}"),
                params: format!("formats = \"{formats}\"\nstages = {stages}"),
                latency: convert::latency(&p),
                inputs: vec![("rm", 3), ("op", 8), ("a", 64)],
                measure: true,
            });
        }
    }
    out
}

fn main() {
    let area = std::env::var("FPU_BENCH_AREA").map_or(true, |v| v != "0");
    let lib = area.then(liberty);
    println!(
        "{:<22} {:>7} {:>12} {:>12} {:>12} {:>14}",
        "unit", "latency", "elaboration", "Verilog (B)", "vectors/s", "area (um^2)"
    );
    println!("HardFloat in Rocket (FPUParams): sfmaLatency 3, dfmaLatency 4; area: none published");
    for u in units() {
        let table: toml::Table = u.params.parse().expect("TOML");
        let start = Instant::now();
        let top = generators::elaborate(u.design, &table).expect("elaborates");
        let elaboration = start.elapsed();
        let out = render(u.design, &table, &OutputOptions::default()).expect("renders");
        let bytes: usize = out.files.iter().map(|(_, t)| t.len()).sum();
        let (speed, cells) = if u.measure {
            let speed = vectors_per_second(&Design::new(&top), &u);
            let cells = lib
                .as_ref()
                .map(|l| synthesized_area(&out.files, &out.top, l.path()));
            (
                format!("{speed:.0}"),
                cells.map_or("-".into(), |a| format!("{a:.0}")),
            )
        } else {
            ("-".into(), "-".into())
        };
        println!(
            "{:<22} {:>7} {:>9.1} ms {:>12} {:>12} {:>14}",
            u.label,
            u.latency,
            ms(elaboration),
            bytes,
            speed,
            cells
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Operations per second of the Verilator model: one random operation a cycle.
fn vectors_per_second(design: &Design, u: &Unit) -> f64 {
    let mut dut = Model::of_design(design, &Options::default()).expect("model builds");
    let mut rng = Rng::new(1);
    let n = 200_000;
    dut.poke_u64("in_valid", 1).unwrap();
    let start = Instant::now();
    let mut sink = 0u64;
    for _ in 0..n {
        for &(port, width) in &u.inputs {
            let v = rng.next_u64() & (u64::MAX >> (64 - width));
            dut.poke_u64(port, v).unwrap();
        }
        dut.step();
        sink ^= dut.peek_u64("result").unwrap() ^ dut.peek_u64("flags").unwrap();
    }
    std::hint::black_box(sink);
    n as f64 / start.elapsed().as_secs_f64()
}

/// The nangate45 typical-corner library, decompressed into a temporary directory.
fn liberty() -> tempfile::NamedTempFile {
    let gz = Path::new("/work/shared/pdk/nangate45_typ.lib.gz");
    let lib = tempfile::NamedTempFile::new().expect("temp file");
    let text = Command::new("gzip")
        .arg("-dc")
        .arg(gz)
        .output()
        .expect("gzip runs");
    assert!(text.status.success(), "cannot read {}", gz.display());
    std::fs::write(lib.path(), text.stdout).expect("write liberty");
    lib
}

/// Cell area of `top` synthesized onto the library at `lib`.
fn synthesized_area(files: &[(String, String)], top: &str, lib: &Path) -> f64 {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut sources = Vec::new();
    for (name, text) in files.iter().filter(|(n, _)| n.ends_with(".v")) {
        std::fs::write(dir.path().join(name), text).expect("write Verilog");
        sources.push(dir.path().join(name).display().to_string());
    }
    let l = lib.display();
    let script = format!(
        "read_verilog {}; synth -flatten -top {top}; dfflibmap -liberty {l}; \
         abc -liberty {l}; tee -o {}/stat.txt stat -liberty {l}",
        sources.join(" "),
        dir.path().display()
    );
    let run = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys runs");
    assert!(
        run.status.success(),
        "yosys: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stat = std::fs::read_to_string(dir.path().join("stat.txt")).expect("stat");
    stat.lines()
        .find_map(|l| l.trim().strip_prefix("Chip area for module"))
        .and_then(|l| l.rsplit(':').next())
        .and_then(|a| a.trim().parse().ok())
        .expect("chip area in the statistics")
}
