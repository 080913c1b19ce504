//! Areas, flops and cells per module instance, from Yosys's `stat -json` cell counts per
//! module and the Liberty areas of those cells (Yosys 0.23's JSON statistics carry no
//! area), rolled up along the instance tree of `manifest.json`.

use super::design::Node;
use super::SynthError;
use crate::liberty::Library;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One module's cells, as Yosys counts them.
#[derive(Deserialize)]
struct ModuleStat {
    num_cells_by_type: BTreeMap<String, u64>,
}

/// Cell counts by type per module (names without Yosys's leading `\`).
pub struct CellCounts(BTreeMap<String, BTreeMap<String, u64>>);

impl CellCounts {
    /// Parses the `modules` object of `stat -json`'s output. Only that object: Yosys 0.23
    /// leaves a trailing comma after it when no top module is set, and prints the text
    /// hierarchy into the JSON when one is.
    pub fn parse(json: &str) -> Result<CellCounts, String> {
        let start = json
            .find("\"modules\":")
            .ok_or("no \"modules\" in the statistics")?;
        let rest = &json[start + "\"modules\":".len()..];
        let modules: BTreeMap<String, ModuleStat> = serde_json::Deserializer::from_str(rest)
            .into_iter()
            .next()
            .ok_or("no module statistics")?
            .map_err(|e| e.to_string())?;
        Ok(CellCounts(
            modules
                .into_iter()
                .map(|(m, s)| (m.trim_start_matches('\\').to_string(), s.num_cells_by_type))
                .collect(),
        ))
    }

    /// Flip-flops and latches of Yosys's generic cell library in the subtree at `node`,
    /// each module counted once per instance.
    pub fn generic_flops(&self, node: &Node) -> u64 {
        let own: u64 = self.0.get(&node.module).map_or(0, |cells| {
            cells
                .iter()
                .filter(|(t, _)| t.starts_with("$_") && (t.contains("DFF") || t.contains("DLATCH")))
                .map(|(_, n)| n)
                .sum()
        });
        own + node
            .children
            .iter()
            .map(|c| self.generic_flops(c))
            .sum::<u64>()
    }
}

/// Area and counts of one instance, alone (`area_um2`: its own cells, not its
/// sub-instances) and with everything under it (`subtree_*`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct InstanceArea {
    /// Hierarchical instance path from the top, `/`-separated; the top is its module name.
    pub path: String,
    pub module: String,
    pub depth: usize,
    pub area_um2: f64,
    pub subtree_area_um2: f64,
    pub subtree_macro_area_um2: f64,
    pub subtree_flops: u64,
    pub subtree_cells: u64,
}

/// Totals of a subtree.
#[derive(Default, Clone, Copy)]
pub struct Totals {
    pub area: f64,
    pub macro_area: f64,
    pub flops: u64,
    pub cells: u64,
}

/// Rolls `counts` up along `tree`, listing instances to depth `max_depth` in `out`.
pub struct Rollup<'a> {
    pub counts: &'a CellCounts,
    pub lib: &'a Library,
    /// Area of each SRAM macro (its fakeram model).
    pub macros: &'a BTreeMap<String, f64>,
    pub max_depth: usize,
    pub out: Vec<InstanceArea>,
}

impl Rollup<'_> {
    /// The totals of the subtree at `node` (path `path`, depth `depth`).
    pub fn walk(&mut self, node: &Node, path: &str, depth: usize) -> Result<Totals, SynthError> {
        if let Some(&area) = self.macros.get(&node.module) {
            let t = Totals {
                area,
                macro_area: area,
                flops: 0,
                cells: 1,
            };
            self.push(node, path, depth, area, t);
            return Ok(t);
        }
        let cells = self.counts.0.get(&node.module).ok_or_else(|| {
            SynthError::Stat(format!(
                "module {} of the hierarchy is not in the netlist",
                node.module
            ))
        })?;
        let mut own = Totals::default();
        for (ty, &n) in cells {
            if node.children.iter().any(|c| &c.module == ty) {
                continue;
            }
            let cell = self.lib.cells.get(ty).ok_or_else(|| {
                SynthError::Stat(format!(
                    "module {}: cell {ty} is not in the Liberty",
                    node.module
                ))
            })?;
            own.area += cell.area * n as f64;
            own.cells += n;
            if cell.sequential {
                own.flops += n;
            }
        }
        let slot = self.out.len();
        self.push(node, path, depth, own.area, own);
        let mut sum = own;
        for c in &node.children {
            let t = self.walk(c, &format!("{path}/{}", c.instance), depth + 1)?;
            sum.area += t.area;
            sum.macro_area += t.macro_area;
            sum.flops += t.flops;
            sum.cells += t.cells;
        }
        if let Some(entry) = self.out.get_mut(slot).filter(|_| depth <= self.max_depth) {
            entry.subtree_area_um2 = round(sum.area);
            entry.subtree_macro_area_um2 = round(sum.macro_area);
            entry.subtree_flops = sum.flops;
            entry.subtree_cells = sum.cells;
        }
        Ok(sum)
    }

    fn push(&mut self, node: &Node, path: &str, depth: usize, own: f64, t: Totals) {
        if depth > self.max_depth {
            return;
        }
        self.out.push(InstanceArea {
            path: path.to_string(),
            module: node.module.clone(),
            depth,
            area_um2: round(own),
            subtree_area_um2: round(t.area),
            subtree_macro_area_um2: round(t.macro_area),
            subtree_flops: t.flops,
            subtree_cells: t.cells,
        });
    }
}

/// `x` to a thousandth of a square micron, so sums print without floating-point noise.
pub fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}
