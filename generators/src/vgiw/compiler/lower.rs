//! One basic block's dataflow graph (seed 004 sections 3.1 and 3.5): the block's
//! registers renamed to SSA values, constants folded into node configurations, live
//! values loaded where the block first reads them and stored where it leaves them
//! changed, the block's memory operations ordered per thread (a load waits for earlier
//! stores it may alias, a store or AMO for earlier loads and stores it may alias; a live
//! value's store for the block's load of it, which reads the same LVC word), its
//! branch feeding the CVU's successor choice, and everything the block changes feeding
//! the thread's completion.

use super::cfg::{BasicBlock, Target, Term};
use super::decode::{CompOp, Insn, Reg, Src};
use super::graph::{Arg, Block, Next, Node, NodeId, Op, Succ, ThreadValue};
use super::liveness::Liveness;
use std::collections::BTreeMap;

/// Where a memory access points: a node's value or an absolute address, plus a constant;
/// or a live value's word in the LVC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Root {
    Node(NodeId),
    Abs,
    Live(u16),
}

/// A memory access of the block, for ordering.
#[derive(Debug, Clone, Copy)]
struct Access {
    node: NodeId,
    root: Root,
    lo: i64,
    hi: i64,
    writes: bool,
}

impl Access {
    /// Whether the two may touch a common byte: unless both are off the same root and
    /// their byte ranges are disjoint. A live value aliases only itself (the LVC's
    /// array lies outside the program's memory).
    fn may_alias(&self, other: &Access) -> bool {
        match (self.root, other.root) {
            (Root::Live(a), Root::Live(b)) => a == b,
            (Root::Live(_), _) | (_, Root::Live(_)) => false,
            _ => self.root != other.root || (self.lo < other.hi && other.lo < self.hi),
        }
    }
}

struct Builder<'a> {
    live: &'a Liveness,
    nodes: Vec<Node>,
    /// The current value of each register read or written so far.
    regs: [Option<Arg>; 64],
    /// Registers the block has written.
    defined: u64,
    thread: BTreeMap<ThreadValue, NodeId>,
    accesses: Vec<Access>,
}

impl<'a> Builder<'a> {
    fn new(live: &'a Liveness) -> Builder<'a> {
        let mut b = Builder {
            live,
            nodes: Vec::new(),
            regs: [None; 64],
            defined: 0,
            thread: BTreeMap::new(),
            accesses: Vec::new(),
        };
        // Node 0 is always the thread's index: the token that starts the thread.
        b.thread_value(ThreadValue::Tid);
        b
    }

    fn push(&mut self, op: Op, args: Vec<Arg>) -> NodeId {
        self.nodes.push(Node {
            op,
            args,
            after: Vec::new(),
        });
        self.nodes.len() - 1
    }

    fn thread_value(&mut self, v: ThreadValue) -> Arg {
        if let Some(&n) = self.thread.get(&v) {
            return Arg::Node(n);
        }
        let n = self.push(Op::Thread(v), Vec::new());
        self.thread.insert(v, n);
        Arg::Node(n)
    }

    /// A register's value at the thread's start (`simt.h`).
    fn initial(&mut self, r: Reg) -> Arg {
        match r {
            Reg::GP => self.thread_value(ThreadValue::Gp),
            Reg::TP => self.thread_value(ThreadValue::Tp),
            Reg::SP => self.thread_value(ThreadValue::Sp),
            // ra is the thread's end address, 0; every other register starts at 0.
            _ => Arg::Imm(0),
        }
    }

    fn read(&mut self, r: Reg) -> Arg {
        if r == Reg::ZERO {
            return Arg::Imm(0);
        }
        if let Some(a) = self.regs[r.0 as usize] {
            return a;
        }
        let a = match self.live.lvid[r.0 as usize] {
            Some(lvid) => {
                let n = self.push(Op::LvLoad(lvid), Vec::new());
                self.live_access(n, lvid, false);
                Arg::Node(n)
            }
            None => self.initial(r),
        };
        self.regs[r.0 as usize] = Some(a);
        a
    }

    fn write(&mut self, r: Reg, a: Arg) {
        if r != Reg::ZERO {
            self.regs[r.0 as usize] = Some(a);
            self.defined |= r.bit();
        }
    }

    fn src(&mut self, s: Src) -> Arg {
        match s {
            Src::Reg(r) => self.read(r),
            Src::Imm(v) => Arg::Imm(v),
        }
    }

    /// An operation's value: folded when its operands are constants or it is a move.
    fn compute(&mut self, op: CompOp, args: Vec<Arg>) -> Arg {
        match (op, args.as_slice()) {
            (CompOp::Mv, [a]) => return *a,
            (CompOp::Add | CompOp::Or | CompOp::Xor | CompOp::Sub, [a, Arg::Imm(0)]) => return *a,
            (_, [Arg::Imm(a), Arg::Imm(b)]) => {
                if let Some(v) = op.fold(*a, *b) {
                    return Arg::Imm(v);
                }
            }
            _ => {}
        }
        Arg::Node(self.push(Op::Compute(op), args))
    }

    /// The root and constant offset of an address `base + offset`.
    fn address(&self, base: Arg, offset: i32) -> (Root, i64) {
        match base {
            Arg::Imm(v) => (Root::Abs, v as i64 + offset as i64),
            Arg::Node(n) => {
                let node = &self.nodes[n];
                match (node.op, node.args.as_slice()) {
                    (Op::Compute(CompOp::Add), [b @ Arg::Node(_), Arg::Imm(k)]) => {
                        self.address(*b, offset.wrapping_add(*k as i32))
                    }
                    _ => (Root::Node(n), offset as i64),
                }
            }
        }
    }

    fn live_access(&mut self, node: NodeId, lvid: u16, writes: bool) {
        self.accesses.push(Access {
            node,
            root: Root::Live(lvid),
            lo: 0,
            hi: 1,
            writes,
        });
    }

    fn access(&mut self, node: NodeId, base: Arg, offset: i32, bytes: u32, writes: bool) {
        let (root, lo) = self.address(base, offset);
        self.accesses.push(Access {
            node,
            root,
            lo,
            hi: lo + bytes as i64,
            writes,
        });
    }

    fn insn(&mut self, insn: &Insn) {
        match insn {
            Insn::Compute { op, rd, srcs } => {
                let args = srcs.iter().map(|s| self.src(*s)).collect();
                let v = self.compute(*op, args);
                self.write(*rd, v);
            }
            Insn::Load {
                width,
                rd,
                base,
                offset,
            } => {
                let b = self.read(*base);
                let n = self.push(
                    Op::Load {
                        width: *width,
                        offset: *offset,
                    },
                    vec![b],
                );
                self.access(n, b, *offset, width.bytes(), false);
                self.write(*rd, Arg::Node(n));
            }
            Insn::Store {
                width,
                src,
                base,
                offset,
            } => {
                let (b, v) = (self.read(*base), self.read(*src));
                let n = self.push(
                    Op::Store {
                        width: *width,
                        offset: *offset,
                    },
                    vec![b, v],
                );
                self.access(n, b, *offset, width.bytes(), true);
            }
            Insn::Amo { op, rd, addr, src } => {
                let (a, v) = (self.read(*addr), self.read(*src));
                let n = self.push(Op::Amo(*op), vec![a, v]);
                self.access(n, a, 0, 4, true);
                self.write(*rd, Arg::Node(n));
            }
            Insn::Tidx { rd } => {
                let t = self.thread_value(ThreadValue::Tid);
                self.write(*rd, t);
            }
            Insn::Branch { .. } | Insn::Jal { .. } | Insn::Jalr { .. } | Insn::Fence => {}
            Insn::Unsupported(_) => unreachable!("refused by the CFG"),
        }
    }

    /// The block's successor choice: the branch's outcome (`None` for one successor).
    fn branch(&mut self, last: &Insn, term: Term) -> (Option<Arg>, Next) {
        let succ = |t: Target| match t {
            Target::Block(b) => Succ::Block(b as u16),
            Target::Exit => Succ::Exit,
        };
        match (term, last) {
            (Term::Goto(t), _) => (None, Next::Goto(succ(t))),
            (Term::Cond { taken, fall }, Insn::Branch { cond, rs1, rs2, .. }) => {
                let (a, b) = (self.read(*rs1), self.read(*rs2));
                if let (Arg::Imm(a), Arg::Imm(b)) = (a, b) {
                    let t = if cond.holds(a, b) { taken } else { fall };
                    return (None, Next::Goto(succ(t)));
                }
                let n = self.push(Op::Branch(*cond), vec![a, b]);
                let next = Next::Cond {
                    taken: succ(taken),
                    fall: succ(fall),
                };
                (Some(Arg::Node(n)), next)
            }
            (Term::Cond { .. }, _) => unreachable!("a conditional block ends in a branch"),
        }
    }

    /// Stores of the live values the block leaves changed (every one it has for block 0).
    fn store_live_values(&mut self, live_out: u64, entry: bool) {
        for r in (1..64).map(Reg) {
            let Some(lvid) = self.live.lvid[r.0 as usize] else {
                continue;
            };
            if live_out & r.bit() == 0 || !(entry || self.defined & r.bit() != 0) {
                continue;
            }
            let v = if entry { self.initial(r) } else { self.read(r) };
            let unchanged = matches!(v, Arg::Node(n) if self.nodes[n].op == Op::LvLoad(lvid));
            if !unchanged {
                let n = self.push(Op::LvStore(lvid), vec![v]);
                self.live_access(n, lvid, true);
            }
        }
    }
}

/// The graph of block `id` (`block` of the CFG), before the fabric passes.
pub fn lower(id: usize, block: &BasicBlock, live: &Liveness) -> Block {
    let mut b = Builder::new(live);
    for (_, insn) in &block.insns {
        b.insn(insn);
    }
    let (cond, next) = match block.insns.last() {
        Some((_, last)) => b.branch(last, block.term),
        None => b.branch(&Insn::Fence, block.term),
    };
    b.store_live_values(live.live_out[id], id == 0);
    let next_node = b.push(Op::Next, cond.into_iter().collect());
    let nodes = finish(b.nodes, &b.accesses, next_node);
    let (start, end) = match block.insns.last() {
        Some((last, _)) => (Some(block.start), last + 4),
        None => (None, block.start),
    };
    let live_out = (live.live_values.iter().enumerate())
        .filter(|(_, r)| live.live_out[id] & r.bit() != 0)
        .map(|(k, _)| k as u16)
        .collect();
    Block {
        id: id as u16,
        start,
        end,
        nodes,
        next,
        live_out,
        replicas: 1,
        mapping: Default::default(),
    }
}

/// Drops nodes nothing needs, orders the memory accesses and makes the completion wait
/// for every side effect; renumbers the nodes that remain, in their order.
fn finish(nodes: Vec<Node>, accesses: &[Access], next: NodeId) -> Vec<Node> {
    let n = nodes.len();
    let mut needed = vec![false; n];
    needed[0] = true;
    for k in (0..n).rev() {
        if k == next || nodes[k].op.side_effect() {
            needed[k] = true;
        }
        if needed[k] {
            for i in nodes[k].inputs().collect::<Vec<_>>() {
                needed[i] = true;
            }
        }
    }
    let mut after: Vec<Vec<NodeId>> = vec![Vec::new(); n];
    let live: Vec<&Access> = accesses.iter().filter(|a| needed[a.node]).collect();
    for (k, a) in live.iter().enumerate() {
        let deps: Vec<NodeId> = (live[..k].iter())
            .filter(|p| (a.writes || p.writes) && a.may_alias(p))
            .map(|p| p.node)
            .collect();
        after[a.node] = reduce(a.node, &deps, &nodes, &after);
    }
    let effects: Vec<NodeId> = (0..n)
        .filter(|&k| needed[k] && nodes[k].op.side_effect())
        .collect();
    after[next] = reduce(next, &effects, &nodes, &after);
    let mut id = vec![usize::MAX; n];
    let mut out = Vec::new();
    for (k, node) in nodes.into_iter().enumerate() {
        if !needed[k] {
            continue;
        }
        id[k] = out.len();
        let args = (node.args.iter())
            .map(|a| match a {
                Arg::Node(i) => Arg::Node(id[*i]),
                imm => *imm,
            })
            .collect();
        out.push(Node {
            op: node.op,
            args,
            after: after[k].iter().map(|i| id[*i]).collect(),
        });
    }
    out
}

/// The nodes `node` waits for, transitively, through its data operands and the
/// ordering inputs decided so far (`after`).
fn ancestors(node: NodeId, nodes: &[Node], after: &[Vec<NodeId>]) -> Vec<bool> {
    let mut seen = vec![false; nodes.len()];
    let data = nodes[node].args.iter().filter_map(|a| match a {
        Arg::Node(i) => Some(*i),
        Arg::Imm(_) => None,
    });
    let mut stack: Vec<NodeId> = data.chain(after[node].iter().copied()).collect();
    while let Some(x) = stack.pop() {
        if !std::mem::replace(&mut seen[x], true) {
            stack.extend(nodes[x].args.iter().filter_map(|a| match a {
                Arg::Node(i) => Some(*i),
                Arg::Imm(_) => None,
            }));
            stack.extend(after[x].iter().copied());
        }
    }
    seen
}

/// The ordering inputs `node` needs for `deps`: those it does not already wait for
/// through its data operands, nor through another of them (a transitive reduction).
fn reduce(node: NodeId, deps: &[NodeId], nodes: &[Node], after: &[Vec<NodeId>]) -> Vec<NodeId> {
    let through_data = ancestors(node, nodes, after);
    let mut implied = through_data.clone();
    for &d in deps.iter().filter(|&&d| !through_data[d]) {
        let up = ancestors(d, nodes, after);
        for (i, u) in up.into_iter().enumerate() {
            implied[i] |= u;
        }
    }
    (deps.iter()).copied().filter(|&d| !implied[d]).collect()
}
