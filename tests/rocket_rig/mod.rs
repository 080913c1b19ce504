//! Shared by the `rocket` lockstep tests (`rocket_lockstep.rs`, `rocket_rv32.rs`): the
//! configurations' parameters and Verilator models, the memory timings they cycle
//! through, and the sources of `verification/`.

#![allow(dead_code)] // each test file uses part of the rig

use hdl::Design;
use std::path::{Path, PathBuf};
use verification::tb::memory::MemConfig;
use verification::verilator::{Model, Options};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The parameters of preset `configs/<preset>.toml` with `overrides` (TOML lines).
pub fn params(preset: &str, overrides: &str) -> toml::Table {
    let text = std::fs::read_to_string(root().join(format!("configs/{preset}.toml"))).unwrap();
    let mut table: toml::Table = text.parse().unwrap();
    table.extend(overrides.parse::<toml::Table>().unwrap());
    table
}

/// The Verilator model of design `rocket` with `params`.
pub fn model(params: &toml::Table) -> Model {
    let top = generators::elaborate("rocket", params).unwrap();
    Model::of_design(&Design::new(&top), &Options::default()).unwrap()
}

/// Memory timing number `i` of the three the tests cycle through: latency 1, 10 and 100
/// cycles with jitter and 10-30 % back-pressure.
pub fn memory(i: usize, seed: u64) -> MemConfig {
    let (latency, jitter, stall_percent) = [(1, 0, 10), (10, 3, 20), (100, 10, 30)][i % 3];
    MemConfig {
        latency,
        jitter,
        stall_percent,
        seed,
        max_outstanding: 4,
        ..MemConfig::default()
    }
}

/// The files of `verification/<dir>` ending in `.<ext>`, sorted.
pub fn sources(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("verification").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}
