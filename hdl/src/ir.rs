//! The elaborated IR: one `Module` per generated module definition. Nodes form a DAG of
//! untyped bit-vector operations (signedness lives in the ops that care); signals are the
//! named state and connection points. Source locations are kept apart from the structure
//! so that structural equality (used by dedup) ignores them.

use crate::bits::Bits;
use crate::bundle::Shape;
use crate::error::SrcLoc;
use std::rc::Rc;

pub type NodeId = u32;
pub type SigId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// Wrapping, operands and result of one width.
    Add,
    Sub,
    /// Low half of the product; the builder extends operands for full-width multiplies.
    Mul,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Sig(SigId),
    Const(Bits),
    Not(NodeId),
    Reduce(RedOp, NodeId),
    Bin(BinOp, NodeId, NodeId),
    /// One-bit result; `signed` selects two's-complement ordering.
    Cmp(CmpOp, bool, NodeId, NodeId),
    /// Dynamic left shift; amounts >= width give zero.
    Shl(NodeId, NodeId),
    /// Dynamic right shift, arithmetic when `arith`.
    Shr {
        arith: bool,
        value: NodeId,
        amount: NodeId,
    },
    Slice {
        value: NodeId,
        hi: u32,
        lo: u32,
    },
    /// Most significant part first, as in Verilog.
    Concat(Vec<NodeId>),
    Repeat(NodeId, u32),
    Mux {
        cond: NodeId,
        then: NodeId,
        otherwise: NodeId,
    },
    /// Combinational (asynchronous) read port `port` of memory `mem`.
    MemRead {
        mem: u32,
        port: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    pub op: Op,
    pub width: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    In,
    Out,
}

impl Dir {
    pub fn flip(self) -> Dir {
        match self {
            Dir::In => Dir::Out,
            Dir::Out => Dir::In,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SigKind {
    Input,
    Output,
    Wire,
    /// A register: with `reset`, a synchronous reset to that value; without, a datapath
    /// register whose value is arbitrary until it is first written. `enable` gates updates
    /// (not reset).
    Reg {
        reset: Option<Bits>,
        enable: Option<NodeId>,
    },
    /// An input port of a submodule instance, driven by this module.
    InstIn {
        inst: u32,
        port: u32,
    },
    /// An output port of a submodule instance.
    InstOut {
        inst: u32,
        port: u32,
    },
    /// Registered data of a synchronous memory read port.
    MemData {
        mem: u32,
        port: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signal {
    pub name: String,
    pub width: u32,
    pub signed: bool,
    pub kind: SigKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub sig: SigId,
}

/// A group of ports declared together with a bundle shape (kept for instance-side access
/// and the manifest).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortBundle {
    pub name: String,
    pub dir: Dir,
    pub shape: Shape,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemStyle {
    /// A Verilog array that synthesis or the FPGA tools infer.
    Inferred,
    /// An SRAM macro instance with a behavioural model, listed for a memory compiler.
    Sram,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReadPort {
    pub addr: NodeId,
    /// Synchronous ports: read enable; the data signal holds its value when low.
    pub sync: Option<SyncRead>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyncRead {
    pub en: NodeId,
    pub data: SigId,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WritePort {
    pub addr: NodeId,
    pub data: NodeId,
    pub en: NodeId,
    /// One bit per `mask_gran` data bits.
    pub mask: Option<NodeId>,
    pub mask_gran: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Memory {
    pub name: String,
    pub depth: u64,
    pub width: u32,
    pub style: MemStyle,
    pub reads: Vec<ReadPort>,
    pub writes: Vec<WritePort>,
    /// Initial contents, loaded at time zero.
    pub init: Option<MemInit>,
}

/// A memory's initial contents and the hex file (`$readmemh` format, one word per line)
/// the emitted Verilog loads them from, named relative to where the tool runs (the
/// emitter writes the file beside the Verilog).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemInit {
    pub file: String,
    /// Words from address 0 (at most the memory's depth; the rest start at zero).
    pub words: Rc<Vec<u64>>,
}

impl MemInit {
    /// The hex file's text for a memory of `width` bits: every word, zeros included.
    pub fn hex(&self, depth: u64, width: u32) -> String {
        let digits = width.div_ceil(4) as usize;
        let zero = 0u64;
        (0..depth as usize)
            .map(|i| format!("{:0digits$x}\n", self.words.get(i).unwrap_or(&zero)))
            .collect()
    }
}

impl Memory {
    pub fn addr_width(&self) -> u32 {
        addr_width(self.depth)
    }
}

/// Bits needed to address `depth` entries (at least 1).
pub fn addr_width(depth: u64) -> u32 {
    (64 - (depth.max(2) - 1).leading_zeros()).max(1)
}

#[derive(Clone, Debug)]
pub struct Instance {
    pub name: String,
    pub module: Rc<Module>,
    /// Signals of this module standing for the instance's ports, in the child's port order.
    pub ports: Vec<SigId>,
}

impl PartialEq for Instance {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.ports == other.ports
            && self.module.body == other.module.body
    }
}

impl Eq for Instance {}

impl std::hash::Hash for Instance {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.ports.hash(state);
        self.module.body.hash(state);
    }
}

/// Everything that defines a module's hardware; two modules with equal bodies are the
/// same hardware whatever their names and source locations.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Body {
    pub ports: Vec<Port>,
    pub bundles: Vec<PortBundle>,
    pub signals: Vec<Signal>,
    pub nodes: Vec<Node>,
    /// Per signal: the node driving it (wires, outputs, instance inputs) or its next
    /// state (registers); `None` for signals driven from elsewhere.
    pub drivers: Vec<Option<NodeId>>,
    pub mems: Vec<Memory>,
    pub instances: Vec<Instance>,
    /// True if the module or a descendant has state, so it takes `clock` and `reset`.
    pub clocked: bool,
}

/// Source locations, parallel to the body's vectors.
#[derive(Clone, Debug, Default)]
pub struct Locs {
    pub signals: Vec<SrcLoc>,
    pub nodes: Vec<SrcLoc>,
    pub mems: Vec<SrcLoc>,
    pub instances: Vec<SrcLoc>,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub name: String,
    pub body: Body,
    pub locs: Locs,
    /// For each output port (index into `body.ports`), the input ports it depends on
    /// combinationally; used for loop checks in parents.
    pub comb_deps: Vec<(u32, Vec<u32>)>,
}

impl Module {
    pub fn port(&self, name: &str) -> Option<(usize, &Port)> {
        self.body
            .ports
            .iter()
            .enumerate()
            .find(|(_, p)| p.name == name)
    }

    pub fn signal(&self, id: SigId) -> &Signal {
        &self.body.signals[id as usize]
    }
}
