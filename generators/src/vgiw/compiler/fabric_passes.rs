//! The passes that fit a block's graph to the fabric's units (seed 004 section 3.5):
//! every node fires on a token, so one without node operands waits for the thread's
//! start; a unit's token-buffer entry holds at most three operands, so ordering inputs
//! beyond what fits are merged by join trees; and a value goes to at most
//! `max_fanout` consumers, more through trees of split units.

use super::graph::{Arg, Node, NodeId, Op};

/// Operands a token-buffer entry holds (data and control alike).
pub const ENTRY_OPERANDS: usize = 3;

/// A node's operand slots that hold tokens: node operands and one for its ordering
/// inputs, joined, if it has any.
fn token_operands(node: &Node) -> usize {
    let data = node
        .args
        .iter()
        .filter(|a| matches!(a, Arg::Node(_)))
        .count();
    data + usize::from(!node.after.is_empty())
}

/// Runs the three passes on a block's nodes (node 0 is the thread's index).
pub fn fit(nodes: Vec<Node>, max_fanout: usize) -> Vec<Node> {
    let nodes = triggers(nodes);
    let nodes = joins(nodes);
    splits(nodes, max_fanout)
}

/// A node with no node operand and no ordering input waits for the thread's index.
fn triggers(mut nodes: Vec<Node>) -> Vec<Node> {
    for node in nodes.iter_mut().skip(1) {
        if !matches!(node.op, Op::Thread(_)) && node.inputs().next().is_none() {
            node.after.push(0);
        }
    }
    nodes
}

/// A graph being rebuilt with nodes inserted: the new list and each old node's new index.
struct Rebuild {
    out: Vec<Node>,
    map: Vec<NodeId>,
}

impl Rebuild {
    fn new(n: usize) -> Rebuild {
        Rebuild {
            out: Vec::new(),
            map: vec![usize::MAX; n],
        }
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.out.push(node);
        self.out.len() - 1
    }
}

/// Ordering inputs beyond one become a join tree of nodes with at most
/// [`ENTRY_OPERANDS`] inputs each; a join of the same inputs as an earlier one is that
/// one (stores that wait for the same accesses share their tree).
fn joins(nodes: Vec<Node>) -> Vec<Node> {
    let mut r = Rebuild::new(nodes.len());
    let mut made: std::collections::HashMap<Vec<NodeId>, NodeId> = Default::default();
    for (k, node) in nodes.into_iter().enumerate() {
        let args = (node.args.iter())
            .map(|a| match a {
                Arg::Node(i) => Arg::Node(r.map[*i]),
                imm => *imm,
            })
            .collect();
        let mut after: Vec<NodeId> = node.after.iter().map(|i| r.map[*i]).collect();
        after.sort_unstable();
        while after.len() > 1 {
            after = (after.chunks(ENTRY_OPERANDS))
                .map(|c| {
                    if c.len() == 1 {
                        return c[0];
                    }
                    let mut key = c.to_vec();
                    key.sort_unstable();
                    *made.entry(key).or_insert_with(|| {
                        r.push(Node {
                            op: Op::Join,
                            args: Vec::new(),
                            after: c.to_vec(),
                        })
                    })
                })
                .collect();
        }
        let new = r.push(Node {
            op: node.op,
            args,
            after,
        });
        debug_assert!(token_operands(&r.out[new]) <= ENTRY_OPERANDS);
        r.map[k] = new;
    }
    r.out
}

/// A consumer's slot: (node, index among its inputs as [`Node::inputs`] lists them).
type Slot = (NodeId, usize);

/// Values with more than `max_fanout` consumers reach them through split trees.
fn splits(nodes: Vec<Node>, max_fanout: usize) -> Vec<Node> {
    let n = nodes.len();
    let mut consumers: Vec<Vec<Slot>> = vec![Vec::new(); n];
    for (k, node) in nodes.iter().enumerate() {
        for (slot, i) in node.inputs().enumerate() {
            consumers[i].push((k, slot));
        }
    }
    let mut r = Rebuild::new(n);
    // The node each consumer slot reads from, once its source's tree is built.
    let mut source: Vec<Vec<Option<NodeId>>> = nodes
        .iter()
        .map(|nd| vec![None; nd.inputs().count()])
        .collect();
    for (k, node) in nodes.into_iter().enumerate() {
        let mut inputs = source[k].iter().map(|s| s.expect("source built first"));
        let args = (node.args.iter())
            .map(|a| match a {
                Arg::Node(_) => Arg::Node(inputs.next().unwrap()),
                imm => *imm,
            })
            .collect();
        let after = inputs.collect();
        let new = r.push(Node {
            op: node.op,
            args,
            after,
        });
        r.map[k] = new;
        let mut level: Vec<(NodeId, Vec<Slot>)> = vec![(new, consumers[k].clone())];
        // Each level: a node with too many consumers feeds splits that share them out.
        while let Some((from, slots)) = level.pop() {
            if slots.len() <= max_fanout {
                for (c, s) in slots {
                    source[c][s] = Some(from);
                }
                continue;
            }
            let groups = slots.len().div_ceil(max_fanout).min(max_fanout);
            let per = slots.len().div_ceil(groups);
            for group in slots.chunks(per) {
                let split = r.push(Node {
                    op: Op::Split,
                    args: vec![Arg::Node(from)],
                    after: Vec::new(),
                });
                level.push((split, group.to_vec()));
            }
        }
    }
    r.out
}
