//! `fpu-divsqrt` per format and `bits_per_cycle`: latency of a divide and a square root
//! (finite nonzero operands), elaboration time, emitted Verilog size, Verilator
//! operations per second (back-to-back random divides and square roots, result taken
//! at once), and cell area from Yosys (`synth; dfflibmap; abc; stat` on nangate45).
//! Prints a table; asserts nothing. `ACCELGEN_PDK_LIB` overrides the liberty file.
//!
//! Published reference: Berkeley HardFloat's `divSqrtRecFN_small` documentation gives one
//! cycle per significand bit (radix 2, one operation at a time); its Chisel source
//! (`DivSqrtRawFN_small`) loads its cycle counter with sigWidth + 2 for a divide and
//! sigWidth + 1 or sigWidth for a square root (even or odd exponent) and raises
//! `outValid` at count 1, so a binary64 divide comes sigWidth + 1 = 54 cycles after
//! acceptance (binary32 25, binary16 12) against this unit's 55, 26 and 13 at
//! `bits_per_cycle = 1`; its `twoBitsPerCycle` option about halves that. No published
//! area figure for it was found.

use generators::fpu::divsqrt::{divsqrt, latency, DivSqrtOp, OP_DIV, OP_SQRT};
use generators::fpu::{FloatFormat, DOUBLE, HALF, SINGLE};
use hdl::emit::{emit, EmitOptions};
use hdl::Design;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use verification::rng::Rng;
use verification::verilator::{Model, Options};

const LIBERTY: &str = "/work/shared/pdk/nangate45_typ.lib.gz";
const OPERATIONS: u64 = 200_000;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lib = liberty(dir.path());
    println!(
        "format    b/cyc  lat div  lat sqrt  elab (ms)  Verilog (B)  Verilator (op/s)  area (um^2)"
    );
    for fmt in [HALF, SINGLE, DOUBLE] {
        for bits in [1, 2, 4] {
            row(fmt, bits, dir.path(), lib.as_deref());
        }
    }
}

fn row(fmt: FloatFormat, bits: u32, dir: &Path, lib: Option<&Path>) {
    let start = Instant::now();
    let top = divsqrt(fmt, bits).expect("elaborates");
    let elaboration = start.elapsed();
    let design = Design::new(&top);
    let verilog: String = emit(&design, &EmitOptions::default())
        .files()
        .into_iter()
        .filter(|(n, _)| n.ends_with(".v"))
        .map(|(_, t)| t)
        .collect();
    let model = Model::of_design(&design, &Options::default()).expect("Verilator model");
    let rate = throughput(model, fmt);
    let area = lib.map_or("-".into(), |l| {
        area(&verilog, &top.name, dir, l).unwrap_or_else(|e| format!("({e})"))
    });
    println!(
        "{:9} {bits:>5}  {:>7}  {:>8}  {:>9.2}  {:>11}  {:>16.0}  {area:>11}",
        fmt.name(),
        latency(fmt, DivSqrtOp::Div, bits),
        latency(fmt, DivSqrtOp::Sqrt, bits),
        elaboration.as_secs_f64() * 1e3,
        verilog.len(),
        rate,
    );
}

/// Operations per second of wall time: random operands (positive radicands), every operation offered
/// as soon as the unit is ready, every result taken at once.
fn throughput(mut m: Model, fmt: FloatFormat) -> f64 {
    let mut rng = Rng::new(7);
    m.poke_u64("reset", 1).unwrap();
    m.step();
    m.poke_u64("reset", 0).unwrap();
    m.poke_u64("out_ready", 1).unwrap();
    m.poke_u64("in_valid", 1).unwrap();
    let mask = u64::MAX >> (64 - fmt.width());
    let start = Instant::now();
    let mut done = 0;
    while done < OPERATIONS {
        if m.peek_u64("in_ready").unwrap() == 1 {
            m.poke_u64("op", if rng.chance(50) { OP_DIV } else { OP_SQRT })
                .unwrap();
            m.poke_u64("a", rng.next_u64() & (mask >> 1)).unwrap();
            m.poke_u64("b", rng.next_u64() & mask).unwrap();
            m.poke_u64("rm", rng.below(5)).unwrap();
        }
        done += m.peek_u64("out_valid").unwrap();
        m.step();
    }
    OPERATIONS as f64 / start.elapsed().as_secs_f64()
}

/// The liberty file decompressed into `dir`, if there is one.
fn liberty(dir: &Path) -> Option<PathBuf> {
    let src = std::env::var("ACCELGEN_PDK_LIB").unwrap_or_else(|_| LIBERTY.into());
    let out = dir.join("cells.lib");
    let text = Command::new("gzip").args(["-dc", &src]).output().ok()?;
    if !text.status.success() {
        eprintln!("no liberty file at {src}: areas are left out");
        return None;
    }
    std::fs::write(&out, text.stdout).ok()?;
    Some(out)
}

/// Chip area of `top` after synthesis and mapping to the cells of `lib`.
fn area(verilog: &str, top: &str, dir: &Path, lib: &Path) -> Result<String, String> {
    let src = dir.join(format!("{top}.v"));
    std::fs::write(&src, verilog).map_err(|e| e.to_string())?;
    let l = lib.display();
    let script = format!(
        "read_verilog {}; synth -top {top}; dfflibmap -liberty {l}; abc -liberty {l}; \
         opt_clean; stat -liberty {l}",
        src.display()
    );
    let out = Command::new("yosys")
        .args(["-p", &script])
        .output()
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.trim().strip_prefix("Chip area for module"))
        .and_then(|l| l.rsplit(':').next())
        .map(|a| a.trim().to_string())
        .ok_or_else(|| "yosys gave no area".into())
}
