//! A kernel function's basic blocks and control-flow graph, with block IDs in the
//! control-dependence-preserving order of seed 004 section 3.1: the synthetic entry
//! block 0 first, then a topological order of the forward edges in which every loop's
//! blocks are contiguous after its header, so that a back edge is exactly a successor
//! with a smaller ID and the BBS's "smallest non-empty block first" finishes a loop's
//! iterations before any thread runs the code after it. Irreducible cycles (GCC makes
//! some) are numbered from their first entry reached; any order is correct, since each
//! thread runs its own path, and this one keeps coalescing close to the loops'.

use super::decode::{decode, Insn, Reg};
use super::CompileError;
use std::collections::{BTreeMap, BTreeSet};

/// Where a block goes next: a block index of [`Cfg::blocks`] or the thread's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Block(usize),
    Exit,
}

/// How a block ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// Unconditionally to one place (a jump, a fall-through or the kernel's return).
    Goto(Target),
    /// A conditional branch (the block's last instruction): `taken` if it holds, else
    /// `fall`.
    Cond { taken: Target, fall: Target },
}

impl Term {
    pub fn targets(&self) -> Vec<Target> {
        match *self {
            Term::Goto(t) => vec![t],
            Term::Cond { taken, fall } => vec![taken, fall],
        }
    }
}

/// A basic block: its instructions (with their addresses) and its end. Block 0 is the
/// synthetic entry: no instructions, going to the kernel's first block.
#[derive(Debug, Clone)]
pub struct BasicBlock {
    /// Address of the first instruction (the kernel's entry for block 0).
    pub start: u32,
    pub insns: Vec<(u32, Insn)>,
    pub term: Term,
}

impl BasicBlock {
    pub fn successors(&self) -> Vec<usize> {
        let mut s: Vec<usize> = (self.term.targets().into_iter())
            .filter_map(|t| match t {
                Target::Block(b) => Some(b),
                Target::Exit => None,
            })
            .collect();
        s.dedup();
        s
    }
}

/// The blocks, indexed by block ID.
#[derive(Debug, Clone)]
pub struct Cfg {
    pub blocks: Vec<BasicBlock>,
}

/// The registers never written in the kernel that `ret` may read: ra holds the thread's
/// end address (0) throughout, so `jalr x0, 0(ra)` is the thread's end.
fn writes_ra(insns: &[(u32, Insn)]) -> bool {
    insns.iter().any(|(_, i)| i.def() == Some(Reg::RA))
}

/// Decodes the kernel function of `words` at `entry` into blocks in ID order.
pub fn build(entry: u32, words: &[u32]) -> Result<Cfg, CompileError> {
    let end = entry + 4 * words.len() as u32;
    let insns: Vec<(u32, Insn)> = (words.iter().enumerate())
        .map(|(k, &w)| {
            let pc = entry + 4 * k as u32;
            (pc, decode(w, pc))
        })
        .collect();
    let ra_written = writes_ra(&insns);
    let inside = |pc: u32| (entry..end).contains(&pc);
    let mut leaders = BTreeSet::from([entry]);
    for (k, (pc, insn)) in insns.iter().enumerate() {
        let word = words[k];
        let unsupported = |what: String| CompileError::Unsupported {
            pc: *pc,
            insn: word,
            what,
        };
        match insn {
            Insn::Unsupported(what) => return Err(unsupported(what.to_string())),
            Insn::Jal { rd, .. } if *rd != Reg::ZERO => {
                return Err(unsupported("a call (kernels must be leaf code)".into()))
            }
            Insn::Jalr { rd, rs1, offset } => {
                if *rd != Reg::ZERO {
                    return Err(unsupported("an indirect call".into()));
                }
                if *rs1 != Reg::RA || *offset != 0 || ra_written {
                    return Err(unsupported("an indirect jump".into()));
                }
            }
            Insn::Jal { target, .. } | Insn::Branch { target, .. } => {
                if !inside(*target) {
                    return Err(unsupported(format!(
                        "a jump to {target:#x}, outside the kernel function"
                    )));
                }
                leaders.insert(*target);
            }
            _ => {}
        }
        if insn.ends_block() {
            leaders.insert(pc + 4);
        }
    }
    if let Some((pc, insn)) = insns.last() {
        if !insn.ends_block() {
            return Err(CompileError::Unsupported {
                pc: *pc,
                insn: words[words.len() - 1],
                what: "the kernel function's last instruction, which falls off its end".into(),
            });
        }
    }
    leaders.retain(|pc| *pc < end);
    let starts: Vec<u32> = leaders.into_iter().collect();
    let index: BTreeMap<u32, usize> = starts.iter().enumerate().map(|(k, &s)| (s, k)).collect();
    let target = |pc: u32| Target::Block(index[&pc]);
    let mut blocks: Vec<BasicBlock> = Vec::new();
    for (k, &start) in starts.iter().enumerate() {
        let stop = starts.get(k + 1).copied().unwrap_or(end);
        let body: Vec<(u32, Insn)> = (insns.iter())
            .filter(|(pc, _)| (start..stop).contains(pc))
            .cloned()
            .collect();
        let term = match &body.last().unwrap().1 {
            Insn::Branch { target: t, .. } => Term::Cond {
                taken: target(*t),
                fall: target(stop),
            },
            Insn::Jal { target: t, .. } => Term::Goto(target(*t)),
            Insn::Jalr { .. } => Term::Goto(Target::Exit),
            _ => Term::Goto(target(stop)),
        };
        blocks.push(BasicBlock {
            start,
            insns: body,
            term,
        });
    }
    Ok(order(entry, blocks))
}

/// Block IDs: the entry block 0, then the blocks in loop-contiguous topological order.
fn order(entry: u32, blocks: Vec<BasicBlock>) -> Cfg {
    let n = blocks.len();
    let succ: Vec<Vec<usize>> = blocks.iter().map(|b| b.successors()).collect();
    let dom = dominators(&succ);
    // Back edges go to a dominator (loops); the rest are forward edges.
    let back = |u: usize, v: usize| dom[u].contains(&v);
    let mut loops: Vec<(usize, BTreeSet<usize>)> = Vec::new();
    for u in 0..n {
        for &v in &succ[u] {
            if back(u, v) {
                let body = natural_loop(&succ, v, u);
                match loops.iter_mut().find(|(h, _)| *h == v) {
                    Some((_, b)) => b.extend(body),
                    None => loops.push((v, body)),
                }
            }
        }
    }
    let reached: BTreeSet<usize> = reachable(&succ);
    let mut indegree = vec![0usize; n];
    for &u in &reached {
        for &v in &succ[u] {
            if !back(u, v) {
                indegree[v] += 1;
            }
        }
    }
    let mut ready: BTreeSet<usize> = BTreeSet::from([0]);
    let mut placed: Vec<usize> = Vec::with_capacity(n);
    let mut is_placed = vec![false; n];
    let mut open: Vec<&BTreeSet<usize>> = Vec::new();
    while placed.len() < reached.len() {
        if ready.is_empty() {
            // Irreducible control flow (GCC makes some): a cycle with two entries. Its
            // first block reached from placed code goes next; the cycle's edges into it
            // become back edges, as every edge to a smaller ID is.
            let entered = (0..n)
                .find(|&b| {
                    reached.contains(&b)
                        && !is_placed[b]
                        && (0..n).any(|u| is_placed[u] && succ[u].contains(&b))
                })
                .expect("every reached block is reached from a placed one");
            ready.insert(entered);
        }
        open.retain(|l| l.iter().any(|b| !is_placed[*b]));
        // The innermost open loop's blocks first, then outer ones, then the rest; the
        // lowest address among equals (blocks are in address order).
        let pick = (open.iter().rev())
            .find_map(|l| ready.iter().find(|b| l.contains(b)).copied())
            .unwrap_or_else(|| *ready.iter().next().unwrap());
        ready.remove(&pick);
        placed.push(pick);
        is_placed[pick] = true;
        if let Some((_, body)) = loops.iter().find(|(h, _)| *h == pick) {
            open.push(body);
        }
        for &v in &succ[pick] {
            if !back(pick, v) && !is_placed[v] {
                indegree[v] -= 1;
                if indegree[v] == 0 {
                    ready.insert(v);
                }
            }
        }
    }
    let mut id = vec![usize::MAX; n];
    for (k, &b) in placed.iter().enumerate() {
        id[b] = k + 1;
    }
    let renumber = |t: Target| match t {
        Target::Block(b) => Target::Block(id[b]),
        Target::Exit => Target::Exit,
    };
    let mut out = vec![BasicBlock {
        start: entry,
        insns: Vec::new(),
        term: Term::Goto(Target::Block(1)),
    }];
    for &b in &placed {
        let block = &blocks[b];
        let term = match block.term {
            Term::Goto(t) => Term::Goto(renumber(t)),
            Term::Cond { taken, fall } if taken == fall => Term::Goto(renumber(taken)),
            Term::Cond { taken, fall } => Term::Cond {
                taken: renumber(taken),
                fall: renumber(fall),
            },
        };
        out.push(BasicBlock {
            start: block.start,
            insns: block.insns.clone(),
            term,
        });
    }
    Cfg { blocks: out }
}

fn reachable(succ: &[Vec<usize>]) -> BTreeSet<usize> {
    let mut seen = BTreeSet::from([0]);
    let mut stack = vec![0];
    while let Some(u) = stack.pop() {
        for &v in &succ[u] {
            if seen.insert(v) {
                stack.push(v);
            }
        }
    }
    seen
}

/// The dominator set of every block reachable from block 0 (iterative data flow).
fn dominators(succ: &[Vec<usize>]) -> Vec<BTreeSet<usize>> {
    let n = succ.len();
    let reach = reachable(succ);
    let mut pred = vec![Vec::new(); n];
    for (u, s) in succ.iter().enumerate() {
        for &v in s {
            pred[v].push(u);
        }
    }
    let all: BTreeSet<usize> = reach.clone();
    let mut dom: Vec<BTreeSet<usize>> = (0..n)
        .map(|b| {
            if b == 0 {
                BTreeSet::from([0])
            } else {
                all.clone()
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            if !reach.contains(&b) {
                continue;
            }
            let mut d: Option<BTreeSet<usize>> = None;
            for &p in pred[b].iter().filter(|p| reach.contains(p)) {
                d = Some(match d {
                    None => dom[p].clone(),
                    Some(d) => d.intersection(&dom[p]).copied().collect(),
                });
            }
            let mut d = d.unwrap_or_default();
            d.insert(b);
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
    }
    dom
}

/// The natural loop of the back edge `latch -> header`.
fn natural_loop(succ: &[Vec<usize>], header: usize, latch: usize) -> BTreeSet<usize> {
    let mut pred = vec![Vec::new(); succ.len()];
    for (u, s) in succ.iter().enumerate() {
        for &v in s {
            pred[v].push(u);
        }
    }
    let mut body = BTreeSet::from([header, latch]);
    let mut stack = vec![latch];
    while let Some(u) = stack.pop() {
        if u == header {
            continue;
        }
        for &p in &pred[u] {
            if body.insert(p) {
                stack.push(p);
            }
        }
    }
    body
}
