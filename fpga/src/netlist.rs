//! Yosys's JSON netlist after `synth_*`: the cells of the (flattened) top module by type.

use crate::flow::FpgaError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

#[derive(Deserialize)]
struct Netlist {
    modules: BTreeMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    cells: BTreeMap<String, Cell>,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(rename = "type")]
    ty: String,
}

/// The cells of module `top` in the netlist at `path` (written by `tool`), by type.
pub fn cells(tool: &str, path: &Path, top: &str) -> Result<BTreeMap<String, u64>, FpgaError> {
    let bad = |message: String| FpgaError::BadOutput {
        tool: tool.to_string(),
        what: format!("netlist {}", path.display()),
        message,
    };
    let text = fs::read_to_string(path).map_err(|e| FpgaError::io(path, e))?;
    let netlist: Netlist = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let module = netlist
        .modules
        .get(top)
        .ok_or_else(|| bad(format!("no module {top}")))?;
    let mut counts = BTreeMap::new();
    for cell in module.cells.values() {
        *counts.entry(cell.ty.clone()).or_insert(0) += 1;
    }
    Ok(counts)
}
