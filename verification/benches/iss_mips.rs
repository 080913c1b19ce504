//! ISS speed: instructions per second of the plain integer interpreter (commit log off)
//! on a long-running program (CRC-32 over a buffer, bitwise and table-driven, repeated).
//! Target: at least 50 M instructions/s. Prints figures; fails only if the program does.

use std::time::Instant;
use verification::iss::{Iss, IssConfig, Stop};
use verification::toolchain::{self, BuildOptions, Kind};

fn main() {
    if !toolchain::available() {
        println!(
            "iss_mips: {} not installed; skipped (scripts/test installs it)",
            toolchain::GCC
        );
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/crc.c");
    let mut opts = BuildOptions::new(Kind::C);
    opts.extra.push("-DREPEAT=1500".into());
    let elf = toolchain::build_elf(&[src], &dir.path().join("crc.elf"), &opts)
        .expect("building the benchmark");
    let program = verification::elf::load_file(&elf).expect("loading the benchmark");
    let mut best = 0.0f64;
    for run in 0..3 {
        let config = IssConfig {
            stdout: Box::new(std::io::sink()),
            ..IssConfig::default()
        };
        let mut iss = Iss::new(&program, config).expect("machine");
        let t = Instant::now();
        let stop = iss.run(None, None).expect("run");
        let secs = t.elapsed().as_secs_f64();
        assert_eq!(stop, Stop::Exit(0), "the benchmark program checks itself");
        let mips = iss.instret() as f64 / secs / 1e6;
        best = best.max(mips);
        println!(
            "iss_mips run {run}: {} instructions in {:.3} s = {:.1} M instructions/s",
            iss.instret(),
            secs,
            mips
        );
    }
    println!("iss_mips: best {best:.1} M instructions/s (target >= 50)");
}
