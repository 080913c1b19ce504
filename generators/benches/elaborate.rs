//! Elaboration and emission time and output size of the banked register file at 1, 4, 16
//! and 64 banks (1024 x 64-bit entries, 4 read and 2 write ports). `cargo bench -p
//! generators` prints one row per configuration: the best of several runs.

use generators::output::{render, OutputOptions};
use hdl::emit::{emit, EmitOptions};
use hdl::Design;
use std::time::{Duration, Instant};

const RUNS: usize = 10;

fn best<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut result = None;
    let mut fastest = Duration::MAX;
    for _ in 0..RUNS {
        let t = Instant::now();
        let r = f();
        fastest = fastest.min(t.elapsed());
        result = Some(r);
    }
    (fastest, result.expect("RUNS > 0"))
}

fn main() {
    println!(
        "{:>5}  {:>12}  {:>12}  {:>12}  {:>10}  {:>7}  {:>6}",
        "banks", "elaborate", "dedup+emit", "all files", "bytes", "modules", "files"
    );
    for banks in [1, 4, 16, 64] {
        let params: toml::Table =
            format!("banks = {banks}\nentries = 1024\nwidth = 64\nread_ports = 4\nwrite_ports = 2")
                .parse()
                .expect("bench parameters");
        let (t_elab, top) = best(|| generators::elaborate("banked_rf", &params).expect("valid"));
        let (t_emit, modules) = best(|| {
            let design = Design::new(&top);
            let emitted = emit(&design, &EmitOptions::default());
            emitted.modules.len() + emitted.macros.len()
        });
        let (t_all, out) =
            best(|| render("banked_rf", &params, &OutputOptions::default()).expect("valid"));
        let bytes: usize = out.files.iter().map(|(_, text)| text.len()).sum();
        println!(
            "{banks:>5}  {:>12.3?}  {:>12.3?}  {:>12.3?}  {bytes:>10}  {modules:>7}  {:>6}",
            t_elab,
            t_emit,
            t_all,
            out.files.len()
        );
    }
}
