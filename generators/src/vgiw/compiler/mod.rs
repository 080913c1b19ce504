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
pub mod liveness;
pub mod lower;

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

/// Compiler options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileOptions {
    /// Consumers a node's value reaches directly; more go through split units.
    pub max_fanout: usize,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions { max_fanout: 4 }
    }
}

/// Block IDs fit the CVT's block index and the BBS's 16-bit successor fields.
pub const MAX_BLOCKS: usize = 1 << 12;

/// Compiles one kernel function.
pub fn compile(code: &KernelCode, opts: &CompileOptions) -> Result<Kernel, CompileError> {
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
    let blocks = (cfg.blocks.iter().enumerate())
        .map(|(id, b)| {
            let mut block = lower::lower(id, b, &live);
            block.nodes = fabric_passes::fit(block.nodes, opts.max_fanout.max(2));
            block
        })
        .collect();
    Ok(Kernel {
        name: code.name.clone(),
        entry: code.entry,
        blocks,
        live_values: live.live_values,
    })
}
