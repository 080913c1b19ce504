//! The `rocket` design: CPI of the C programs of `verification/programs/` per preset
//! and memory latency (1, 10, 100 cycles), the Verilator model's speed on them in
//! simulated cycles per second (bench and memory model included), and per preset the
//! elaboration time and the size of the emitted Verilog. On rocket-default at latency 1
//! each program's cycles are also given against the core before issue 21's pipeline
//! work (`verification/programs/cycles-before-issue-21.toml`: the goal is 25 % fewer).
//! `ROCKET_BENCH_LATENCIES=1,10` picks the memory latencies. Prints a table; asserts
//! nothing but that the programs exit with the ISS's exit code.

use generators::output::{render, OutputOptions};
use hdl::Design;
use std::path::{Path, PathBuf};
use std::time::Instant;
use verification::elf;
use verification::tb::lockstep::IssGolden;
use verification::tb::memory::MemConfig;
use verification::tb::soc::{self, SocConfig};
use verification::toolchain::{build_elf, BuildOptions, Kind};
use verification::verilator::{Model, Options};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(root.join("verification/programs"))
        .expect("programs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    programs.sort();
    let elves: Vec<(String, elf::Program)> = programs
        .iter()
        .map(|src| {
            let name = src.file_stem().unwrap().to_string_lossy().into_owned();
            let out = dir.path().join(format!("{name}.elf"));
            build_elf(std::slice::from_ref(src), &out, &BuildOptions::new(Kind::C))
                .expect("program builds");
            (name, elf::load_file(&out).expect("ELF loads"))
        })
        .collect();

    // `ROCKET_BENCH_LATENCIES=1`: the memory latencies to run (default 1, 10 and 100).
    let latencies: Vec<u32> = match std::env::var("ROCKET_BENCH_LATENCIES") {
        Ok(v) => (v.split(','))
            .map(|l| l.trim().parse().expect("ROCKET_BENCH_LATENCIES: latencies"))
            .collect(),
        Err(_) => vec![1, 10, 100],
    };
    println!("preset          elaboration  Verilog (bytes)  files");
    let mut tables = vec![];
    for preset in ["rocket-small", "rocket-default"] {
        let text =
            std::fs::read_to_string(root.join(format!("configs/{preset}.toml"))).expect("preset");
        let table: toml::Table = text.parse().expect("TOML");
        let start = Instant::now();
        let top = generators::elaborate("rocket", &table).expect("elaborates");
        let elaboration = start.elapsed();
        let out = render("rocket", &table, &OutputOptions::default()).expect("renders");
        let bytes = out.verilog_bytes();
        println!(
            "{preset:15} {:>8.2} ms  {bytes:>15}  {}",
            elaboration.as_secs_f64() * 1e3,
            out.files.len()
        );
        tables.push((preset, top));
    }

    println!();
    let before: toml::Table =
        std::fs::read_to_string(root.join("verification/programs/cycles-before-issue-21.toml"))
            .expect("baseline")
            .parse()
            .expect("TOML");
    println!(
        "preset          program  latency  instructions     cycles    CPI   cycles/s  vs d85b65a"
    );
    for (preset, top) in &tables {
        let mut dut = Model::of_design(&Design::new(top), &Options::default()).expect("model");
        for (name, program) in &elves {
            for &latency in &latencies {
                let config = SocConfig {
                    mem: MemConfig {
                        latency,
                        ..MemConfig::default()
                    },
                    ..SocConfig::default()
                };
                let start = Instant::now();
                let out = soc::run::<_, IssGolden>(
                    &mut dut,
                    program,
                    &config,
                    Box::new(std::io::sink()),
                    Box::new(std::io::sink()),
                    None,
                )
                .expect("program runs");
                let seconds = start.elapsed().as_secs_f64();
                let change = match before.get(name).and_then(|v| v.as_integer()) {
                    Some(b) if *preset == "rocket-default" && latency == 1 => {
                        format!(
                            "{:.1} % fewer",
                            100.0 * (1.0 - out.cycles as f64 / b as f64)
                        )
                    }
                    _ => String::new(),
                };
                println!(
                    "{preset:15} {name:8} {latency:>7}  {:>12}  {:>9}  {:>5.2}  {:>9.0}  {change}",
                    out.instret,
                    out.cycles,
                    out.cpi(),
                    out.cycles as f64 / seconds
                );
            }
        }
    }
}
