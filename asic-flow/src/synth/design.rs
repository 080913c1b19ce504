//! The synthesis input: an `accelgen generate` output directory, read from its
//! `manifest.json` (Verilog files, top module, instance hierarchy) and `sram_macros.json`
//! (the SRAM macros, which synthesis keeps as black boxes).

use super::SynthError;
use crate::fakeram::{self, MacroShape};
use crate::lint::LintTarget;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// An instance in the module tree of `manifest.json`; the root is the top module.
#[derive(Clone, Debug, Deserialize)]
pub struct Node {
    pub instance: String,
    pub module: String,
    #[serde(default)]
    pub children: Vec<Node>,
}

impl Node {
    /// The subtree rooted at the first instance of `module` (depth first), if any.
    pub fn find(&self, module: &str) -> Option<&Node> {
        if self.module == module {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(module))
    }

    /// Instances of `module` in this subtree, the root included.
    pub fn count(&self, module: &str) -> usize {
        usize::from(self.module == module)
            + self.children.iter().map(|c| c.count(module)).sum::<usize>()
    }
}

#[derive(Deserialize)]
struct Manifest {
    hierarchy: Node,
    modules: Vec<ModuleInfo>,
}

#[derive(Deserialize)]
struct ModuleInfo {
    name: String,
    ports: Vec<PortInfo>,
}

#[derive(Deserialize)]
struct PortInfo {
    name: String,
}

/// A generated design ready for synthesis.
#[derive(Debug)]
pub struct GenDir {
    pub dir: PathBuf,
    /// Verilog files (relative to `dir`) in compilation order.
    pub files: Vec<String>,
    /// The SRAM macros: their behavioural models are read but kept as black boxes.
    pub macros: Vec<MacroShape>,
    /// The synthesis top and its instance tree.
    pub top: Node,
    /// The design's own top module (whose SDC `generate` wrote).
    pub design_top: String,
    /// The synthesis top has a `clock` port.
    pub clocked: bool,
}

impl GenDir {
    /// Reads generate output `dir`, with `top` (a module of the design) as the synthesis
    /// top instead of the design's own when given.
    pub fn read(dir: &Path, top: Option<&str>) -> Result<GenDir, SynthError> {
        let not_gen = |message: String| SynthError::NotGenerateDir {
            dir: dir.to_path_buf(),
            message,
        };
        if !dir.is_dir() {
            return Err(not_gen("no such directory".into()));
        }
        let target = LintTarget::from_dir(dir).map_err(|e| not_gen(e.to_string()))?;
        let text = std::fs::read_to_string(dir.join("manifest.json"))
            .map_err(|e| not_gen(e.to_string()))?;
        let manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| not_gen(format!("manifest.json has no instance hierarchy: {e}")))?;
        let macros = fakeram::read_macros(dir).map_err(|e| not_gen(e.to_string()))?;
        let root = manifest.hierarchy;
        let design_top = root.module.clone();
        let top = match top {
            None => root,
            Some(t) => root
                .find(t)
                .cloned()
                .ok_or_else(|| SynthError::UnknownTop {
                    top: t.to_string(),
                    dir: dir.to_path_buf(),
                })?,
        };
        if macros.iter().any(|m| m.name == top.module) {
            return Err(SynthError::UnknownTop {
                top: format!("{} (an SRAM macro, not synthesized)", top.module),
                dir: dir.to_path_buf(),
            });
        }
        let clocked = manifest
            .modules
            .iter()
            .find(|m| m.name == top.module)
            .is_some_and(|m| m.ports.iter().any(|p| p.name == "clock"));
        Ok(GenDir {
            dir: dir.to_path_buf(),
            files: target.files,
            macros,
            top,
            design_top,
            clocked,
        })
    }
}
