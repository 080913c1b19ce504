//! The compiled kernel: per basic block a dataflow graph (seed 004 section 2, the "graph
//! instruction word"), its successors and the live values between blocks (section 3.1),
//! with the readable listing `accelgen cgrf-compile` prints.

use super::decode::{AmoOp, CompOp, Cond, Reg, Width};
use super::map::Mapping;
use std::fmt;

/// A node's index in its block's graph. Nodes are in a topological order: every operand
/// and ordering input of a node comes before it.
pub type NodeId = usize;

/// An operand: another node's token or an immediate of the node's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arg {
    Node(NodeId),
    Imm(u32),
}

/// The values the CVU injects with a thread (seed 004 section 3.5): its index, and the
/// initial gp, tp and sp of `kernels/runtime/simt.h` (sp = stack top - tid x stack
/// bytes), from the launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ThreadValue {
    Tid,
    Gp,
    Tp,
    Sp,
}

/// A node's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Injected by the CVU with the thread; no operands.
    Thread(ThreadValue),
    /// Operands as the instruction's sources.
    Compute(CompOp),
    /// 1 if the branch is taken; operands the compared values.
    Branch(Cond),
    /// Operand: the base address.
    Load { width: Width, offset: i32 },
    /// Operands: the base address and the value.
    Store { width: Width, offset: i32 },
    /// Operands: the address and the source; the result is the old value.
    Amo(AmoOp),
    /// The thread's live value `lvid` from the LVC.
    LvLoad(u16),
    /// Operand: the value stored as the thread's live value `lvid`.
    LvStore(u16),
    /// Copies its one operand to consumers beyond a node's fan-out (an SJU).
    Split,
    /// Waits for all its ordering inputs, then emits one token (an SJU).
    Join,
    /// The thread's block completion to the CVU: operand the branch's outcome if the
    /// block ends in one; ordering inputs every side effect of the block.
    Next,
}

/// The fabric's unit types (seed 004 Table 1 and section 3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// Merged FP-ALU, every operation pipelined.
    Compute,
    /// Special compute unit: divides and square roots.
    Scu,
    /// Load/store unit to the L1.
    Ldst,
    /// Live value load/store unit to the LVC.
    Lvu,
    /// Split/join unit.
    Sju,
    /// Control vector unit: injects threads, collects their successors.
    Cvu,
}

impl Unit {
    pub const ALL: [Unit; 6] = [
        Unit::Compute,
        Unit::Scu,
        Unit::Ldst,
        Unit::Lvu,
        Unit::Sju,
        Unit::Cvu,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Unit::Compute => "compute",
            Unit::Scu => "scu",
            Unit::Ldst => "ldst",
            Unit::Lvu => "lvu",
            Unit::Sju => "sju",
            Unit::Cvu => "cvu",
        }
    }
}

impl Op {
    /// The unit type that executes the node.
    pub fn unit(self) -> Unit {
        match self {
            Op::Thread(_) | Op::Next => Unit::Cvu,
            Op::Compute(c) if c.special() => Unit::Scu,
            Op::Compute(_) | Op::Branch(_) => Unit::Compute,
            Op::Load { .. } | Op::Store { .. } | Op::Amo(_) => Unit::Ldst,
            Op::LvLoad(_) | Op::LvStore(_) => Unit::Lvu,
            Op::Split | Op::Join => Unit::Sju,
        }
    }

    /// Whether the node changes state outside the graph (memory or the LVC).
    pub fn side_effect(self) -> bool {
        matches!(self, Op::Store { .. } | Op::Amo(_) | Op::LvStore(_))
    }

    /// Whether the node accesses memory (the L1).
    pub fn memory(self) -> bool {
        self.unit() == Unit::Ldst
    }
}

/// A node: its operation, data operands and ordering inputs (control tokens it waits
/// for: memory order, and the thread's start for a node without node operands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub op: Op,
    pub args: Vec<Arg>,
    pub after: Vec<NodeId>,
}

impl Node {
    /// The nodes whose tokens it waits for: data operands, then ordering inputs.
    pub fn inputs(&self) -> impl Iterator<Item = NodeId> + '_ {
        (self.args.iter())
            .filter_map(|a| match a {
                Arg::Node(n) => Some(*n),
                Arg::Imm(_) => None,
            })
            .chain(self.after.iter().copied())
    }
}

/// Where a block's threads go: a block ID or the thread's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Succ {
    Block(u16),
    Exit,
}

impl fmt::Display for Succ {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Succ::Block(b) => write!(f, "{b}"),
            Succ::Exit => f.write_str("exit"),
        }
    }
}

/// A block's successors: one, or two chosen by its `Next` node's operand (1: `taken`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Goto(Succ),
    Cond { taken: Succ, fall: Succ },
}

impl Next {
    pub fn successors(self) -> Vec<Succ> {
        match self {
            Next::Goto(s) => vec![s],
            Next::Cond { taken, fall } => vec![taken, fall],
        }
    }
}

/// One basic block's graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub id: u16,
    /// The kernel address of its first instruction; `None` for the entry block 0.
    pub start: Option<u32>,
    /// The address after its last instruction (equal to `start` for block 0).
    pub end: u32,
    pub nodes: Vec<Node>,
    pub next: Next,
    /// The live values live after the block (what its successors may read from the LVC).
    pub live_out: Vec<u16>,
    /// Copies of the graph the fabric holds at once (seed 004 section 3.5).
    pub replicas: u32,
    /// Where the replicas are and how their values are routed.
    pub mapping: Mapping,
}

impl Block {
    /// How many nodes of each unit type the graph needs (the CVU's nodes share one).
    pub fn units(&self) -> [usize; 6] {
        let mut n = [0usize; 6];
        for node in &self.nodes {
            let u = node.op.unit();
            if u != Unit::Cvu {
                n[u as usize] += 1;
            }
        }
        n[Unit::Cvu as usize] = 1;
        n
    }

    /// Live values it loads and stores.
    pub fn lv_accesses(&self) -> usize {
        (self.nodes.iter())
            .filter(|n| n.op.unit() == Unit::Lvu)
            .count()
    }
}

/// A compiled kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    pub name: String,
    pub entry: u32,
    /// By block ID; block 0 is the entry block.
    pub blocks: Vec<Block>,
    /// The register each live value ID holds.
    pub live_values: Vec<Reg>,
}

impl Kernel {
    /// The block starting at kernel address `pc`, if one does.
    pub fn block_at(&self, pc: u32) -> Option<&Block> {
        self.blocks[1..].iter().find(|b| b.start == Some(pc))
    }
}

fn arg(a: &Arg) -> String {
    match a {
        Arg::Node(n) => format!("n{n}"),
        Arg::Imm(v) if (*v as i32).unsigned_abs() < 4096 => format!("{}", *v as i32),
        Arg::Imm(v) => format!("{v:#x}"),
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Op::Thread(v) => write!(f, "{}", format!("{v:?}").to_lowercase()),
            Op::Compute(c) => write!(f, "{}", format!("{c:?}").to_lowercase()),
            Op::Branch(c) => write!(f, "b{}", format!("{c:?}").to_lowercase()),
            Op::Load { width, offset } => {
                write!(f, "l{} +{offset}", format!("{width:?}").to_lowercase())
            }
            Op::Store { width, offset } => {
                write!(f, "s{} +{offset}", format!("{width:?}").to_lowercase())
            }
            Op::Amo(a) => write!(f, "amo{}.w", format!("{a:?}").to_lowercase()),
            Op::LvLoad(l) => write!(f, "lvload lv{l}"),
            Op::LvStore(l) => write!(f, "lvstore lv{l}"),
            Op::Split => f.write_str("split"),
            Op::Join => f.write_str("join"),
            Op::Next => f.write_str("next"),
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let lvs: Vec<String> = (self.live_values.iter().enumerate())
            .map(|(k, r)| format!("lv{k} = {r}"))
            .collect();
        writeln!(
            f,
            "kernel {} at {:#x}: {} blocks, {} live values ({})",
            self.name,
            self.entry,
            self.blocks.len(),
            self.live_values.len(),
            lvs.join(", ")
        )?;
        for b in &self.blocks {
            let at = match b.start {
                Some(s) => format!("{s:#x}..{:#x}", b.end),
                None => "entry".into(),
            };
            let next = match b.next {
                Next::Goto(s) => format!("{s}"),
                Next::Cond { taken, fall } => format!("{taken} if taken, else {fall}"),
            };
            let units: Vec<String> = (Unit::ALL.iter().zip(b.units()))
                .filter(|(_, n)| *n > 0)
                .map(|(u, n)| format!("{n} {}", u.name()))
                .collect();
            writeln!(
                f,
                "\nblock {} ({at}) -> {next}: {} nodes: {}; {} replicas, {} links routed",
                b.id,
                b.nodes.len(),
                units.join(", "),
                b.replicas,
                b.mapping.wire_length()
            )?;
            for (k, n) in b.nodes.iter().enumerate() {
                let args: Vec<String> = n.args.iter().map(arg).collect();
                let cell = (b.mapping.placement.first())
                    .map(|cells| format!("({},{})", cells[k].0, cells[k].1))
                    .unwrap_or_default();
                let mut line = format!("  n{k:<4}{cell:<8}{:<8}{}", n.op.unit().name(), n.op);
                if !args.is_empty() {
                    line += &format!(" {}", args.join(", "));
                }
                if !n.after.is_empty() {
                    let after: Vec<String> = n.after.iter().map(|a| format!("n{a}")).collect();
                    line += &format!("  after {}", after.join(", "));
                }
                writeln!(f, "{}", line.trim_end())?;
            }
        }
        Ok(())
    }
}
