//! The VGIW kernel compiler (seed 004 sections 3.1 and 4): an RV32IMAF SPMD kernel
//! function of the ELF the FG-SIMT engine runs, decoded (`decode.rs`) into basic blocks
//! with IDs in control-dependence order (`cfg.rs`), its cross-block registers given live
//! value IDs (`liveness.rs`), each block lowered to a dataflow graph (`lower.rs`) and
//! fitted to the fabric's units (`fabric_passes.rs`); `graph.rs` is the result and its
//! listing.

pub mod cfg;
pub mod decode;
pub mod fabric_passes;
pub mod graph;
pub mod image;
pub mod liveness;
pub mod lower;
pub mod map;
pub mod place;
pub mod route;

use super::grid::Grid;
use super::params::VgiwParams;
pub use graph::{Arg, Block, Kernel, Next, Node, NodeId, Op, Succ, ThreadValue, Unit};

/// Why a kernel cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("instruction {insn:#010x} at {pc:#x} is {what}, which the fabric cannot run")]
    Unsupported { pc: u32, insn: u32, what: String },
    #[error("the kernel function is empty")]
    Empty,
    #[error("the kernel has {blocks} basic blocks, more than the {max} block IDs")]
    TooManyBlocks { blocks: usize, max: usize },
    #[error("block {block} ({at}) does not fit the fabric: it needs {need} {unit} units, the fabric has {have} (short by {})", need - have)]
    DoesNotFit {
        block: u16,
        at: String,
        unit: &'static str,
        need: usize,
        have: usize,
    },
    #[error("block {block} cannot be routed even as one replica: the link from cell {from:?} to {to:?} would carry {demand} values, its {capacity} channels (short by {})", demand - capacity)]
    Unroutable {
        block: u16,
        from: (u16, u16),
        to: (u16, u16),
        demand: u32,
        capacity: u32,
    },
}

/// A kernel function's code.
#[derive(Debug, Clone)]
pub struct KernelCode {
    pub name: String,
    /// Address of its first instruction.
    pub entry: u32,
    /// Its instruction words, from the entry to its end.
    pub words: Vec<u32>,
}

/// Block IDs fit the CVT's block index and the BBS's 16-bit successor fields.
pub const MAX_BLOCKS: usize = 1 << 12;

/// Compiles one kernel function for the fabric `params` describes.
pub fn compile(code: &KernelCode, params: &VgiwParams) -> Result<Kernel, CompileError> {
    if code.words.is_empty() {
        return Err(CompileError::Empty);
    }
    let cfg = cfg::build(code.entry, &code.words)?;
    if cfg.blocks.len() > MAX_BLOCKS {
        return Err(CompileError::TooManyBlocks {
            blocks: cfg.blocks.len(),
            max: MAX_BLOCKS,
        });
    }
    let live = liveness::analyze(&cfg);
    let grid = Grid::new(params);
    let mut blocks = Vec::with_capacity(cfg.blocks.len());
    for (id, b) in cfg.blocks.iter().enumerate() {
        let mut block = lower::lower(id, b, &live);
        block.nodes = fabric_passes::fit(block.nodes, params.max_fanout as usize);
        block.replicas = replicas(&block, params)?;
        map::map(&mut block, &grid, params)?;
        blocks.push(block);
    }
    Ok(Kernel {
        name: code.name.clone(),
        entry: code.entry,
        blocks,
        live_values: live.live_values,
    })
}

/// The replicas of `block`'s graph the unit mix allows (seed 004 section 3.5:
/// R <= min over unit types of available / used); an error naming the first unit type
/// short if not even one fits.
fn replicas(block: &Block, params: &VgiwParams) -> Result<u32, CompileError> {
    let used = block.units();
    let have = params.units();
    let mut r = u32::MAX;
    for (k, unit) in Unit::ALL.iter().enumerate() {
        if used[k] == 0 {
            continue;
        }
        if (have[k] as usize) < used[k] {
            return Err(CompileError::DoesNotFit {
                block: block.id,
                at: match block.start {
                    Some(s) => format!("{s:#x}"),
                    None => "the entry block".into(),
                },
                unit: unit.name(),
                need: used[k],
                have: have[k] as usize,
            });
        }
        r = r.min(have[k] / used[k] as u32);
    }
    Ok(r)
}
