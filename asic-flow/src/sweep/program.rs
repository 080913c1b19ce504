//! The program step: an RV64 program (an ELF, or C and assembly sources built with the
//! project's runtime and Hwacha assembler) run to its exit on the point's RTL as an in-process Verilator model, as
//! `accelgen sim --program` runs it. Metrics: cycles, instructions (commits), CPI, and
//! elements per cycle when the spec gives the program's element count.

use super::cache::Metrics;
use super::spec::ProgramSpec;
use hdl::Design;
use serde_json::json;
use std::path::{Path, PathBuf};
use verification::hwacha::asm::{build_sources, AsmOptions};
use verification::tb::lockstep::IssGolden;
use verification::tb::memory::MemConfig;
use verification::tb::program as tb;
use verification::tb::{soc, Capture};
use verification::verilator::{Model, Options};

pub use tb::runs_programs;

/// The ELF of `spec`: the given one, or its sources built into `work`.
pub fn elf(spec: &ProgramSpec, work: &Path) -> Result<PathBuf, String> {
    if let Some(elf) = &spec.elf {
        return Ok(elf.clone());
    }
    std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    let out = work.join(format!("{}.elf", spec.name));
    let opts = AsmOptions {
        defines: spec.defines.clone(),
        ..AsmOptions::default()
    };
    build_sources(&spec.sources, &out, &opts).map_err(|e| format!("building the program: {e}"))
}

/// Runs program `spec` (its ELF at `elf`) on `design` with full parameters `params`.
pub fn run(
    spec: &ProgramSpec,
    elf: &Path,
    design: &str,
    params: &toml::Table,
) -> Result<Metrics, String> {
    let accel = tb::accelerator(design, params)
        .ok_or_else(|| format!("design `{design}` does not run programs"))?;
    let program = tb::load(elf, params).map_err(|e| e.to_string())?;
    let top = generators::elaborate(design, params).map_err(|e| e.to_string())?;
    let mut model = Model::of_design(&Design::new(&top), &Options::default())
        .map_err(|e| format!("building the Verilator model: {e}"))?;
    let config = tb::soc_config(accel, MemConfig::default(), spec.max_cycles);
    let console = Capture::default();
    let out = soc::run(
        &mut model,
        &program,
        &config,
        Box::new(console.clone()),
        Box::new(console.clone()),
        None::<IssGolden>,
    )
    .map_err(|e| e.to_string())?;
    if out.exit_code != 0 {
        let tail: String = console
            .text()
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .join(" | ");
        return Err(format!(
            "exit code {} after {} cycles (console: {tail})",
            out.exit_code, out.cycles
        ));
    }
    let mut m = Metrics::new();
    m.insert("cycles".into(), json!(out.cycles));
    m.insert("instructions".into(), json!(out.instret));
    m.insert("cpi".into(), json!(round(out.cpi())));
    if let Some(n) = spec.elements {
        m.insert(
            "elements_per_cycle".into(),
            json!(round(n as f64 / out.cycles.max(1) as f64)),
        );
    }
    Ok(m)
}

/// `x` to 6 significant decimals, so reports stay readable and stable.
fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
