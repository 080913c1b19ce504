//! The kernel's control-flow graph and post-dominators (seed 001, section 2.1: the
//! re-convergence stack of Fung et al. re-converges a divergent branch at its immediate
//! post-dominator; section 2.3: the static selection of branches whose post-dominator is
//! followed by a short basic block). The paper marked both by hand; here they are
//! computed from the kernel's machine code, one instruction a node.
//!
//! Kernels are leaf code (`kernels/README.md`): a `jalr` returns (the thread ends) and a
//! `jal` jumps (its link is only a register write). The virtual exit node is
//! [`EXIT_PC`]; a branch whose paths meet only there re-converges at the exit (its
//! threads end). A kernel that calls a function reaches code after the call that the
//! analysis never saw: its branches there are refused at run time
//! ([`CfgError::NotAnalysed`]).

use crate::iss::decode::{self, opcode};
use crate::iss::simt::EXIT_PC;
use crate::iss::Iss;
use std::collections::HashMap;

/// The re-convergence facts of one conditional branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchInfo {
    /// The immediate post-dominator's pc ([`EXIT_PC`]: the kernel's return).
    pub ipdom: u64,
    /// Instructions in the basic block that starts at the post-dominator (0 at the exit).
    pub block_after: u32,
}

impl BranchInfo {
    /// The block after the post-dominator is short (section 2.3's static selection):
    /// at most `short_block` instructions.
    pub fn short(&self, short_block: u32) -> bool {
        self.block_after <= short_block
    }
}

/// Why a kernel's control flow cannot be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CfgError {
    #[error(
        "the branch at {0:#x} is not reachable from the kernel's entry without a return: \
         the DWS model needs leaf kernels (post-dominators are computed within the kernel)"
    )]
    NotAnalysed(u64),
    #[error("the kernel's code at {0:#x} is outside memory")]
    Unmapped(u64),
    #[error("the kernel has more than {0} instructions reachable from its entry")]
    TooLarge(usize),
}

/// At most this many instructions are analysed (the kernels have hundreds).
const MAX_NODES: usize = 1 << 16;

/// The post-dominator facts of a kernel's conditional branches, by pc.
#[derive(Debug, Clone, Default)]
pub struct Cfg {
    branches: HashMap<u64, BranchInfo>,
}

/// An instruction's successors: fall-through and/or target ([`EXIT_PC`] for a return).
fn successors(pc: u64, insn: u32) -> Vec<u64> {
    let at = |off: u64| pc.wrapping_add(off) & 0xffff_ffff;
    match insn & 0x7f {
        opcode::BRANCH => vec![at(4), at(decode::imm_b(insn))],
        opcode::JAL => vec![at(decode::imm_j(insn))],
        opcode::JALR => vec![EXIT_PC],
        _ => vec![at(4)],
    }
}

impl Cfg {
    /// Analyses the kernel at `entry` in `iss`'s memory.
    pub fn of_kernel(iss: &Iss, entry: u64) -> Result<Cfg, CfgError> {
        let fetch = |pc: u64| {
            iss.mem
                .read(pc, 4)
                .map(|w| w as u32)
                .ok_or(CfgError::Unmapped(pc))
        };
        // Nodes: reachable instructions, then the exit.
        let mut index: HashMap<u64, usize> = HashMap::new();
        let mut pcs = vec![entry];
        let mut succ: Vec<Vec<u64>> = Vec::new();
        index.insert(entry, 0);
        let mut i = 0;
        while i < pcs.len() {
            let s = successors(pcs[i], fetch(pcs[i])?);
            for &t in &s {
                if t != EXIT_PC && !index.contains_key(&t) {
                    if pcs.len() == MAX_NODES {
                        return Err(CfgError::TooLarge(MAX_NODES));
                    }
                    index.insert(t, pcs.len());
                    pcs.push(t);
                }
            }
            succ.push(s);
            i += 1;
        }
        let exit = pcs.len();
        let node = |pc: u64| if pc == EXIT_PC { exit } else { index[&pc] };
        let succ: Vec<Vec<usize>> = succ
            .iter()
            .map(|s| s.iter().map(|&t| node(t)).collect())
            .collect();
        let ipdom = post_dominators(&succ, exit);
        let leaders = leaders(&pcs, &succ, exit);
        let mut branches = HashMap::new();
        for (n, &pc) in pcs.iter().enumerate() {
            if fetch(pc)? & 0x7f != opcode::BRANCH {
                continue;
            }
            let p = ipdom[n];
            let info = if p == exit {
                BranchInfo {
                    ipdom: EXIT_PC,
                    block_after: 0,
                }
            } else {
                BranchInfo {
                    ipdom: pcs[p],
                    block_after: block_len(p, &succ, &leaders, exit),
                }
            };
            branches.insert(pc, info);
        }
        Ok(Cfg { branches })
    }

    /// Every conditional branch's facts, by pc (what a sequencer's re-convergence table
    /// is loaded with).
    pub fn branches(&self) -> Vec<(u64, BranchInfo)> {
        let mut b: Vec<(u64, BranchInfo)> = self.branches.iter().map(|(&pc, &i)| (pc, i)).collect();
        b.sort_unstable_by_key(|&(pc, _)| pc);
        b
    }

    /// The facts of the conditional branch at `pc`.
    pub fn branch(&self, pc: u64) -> Result<BranchInfo, CfgError> {
        self.branches
            .get(&pc)
            .copied()
            .ok_or(CfgError::NotAnalysed(pc))
    }
}

/// Immediate post-dominators (Cooper, Harvey and Kennedy's iterative algorithm on the
/// reversed graph, rooted at `exit`). Nodes that cannot reach the exit get the exit.
fn post_dominators(succ: &[Vec<usize>], exit: usize) -> Vec<usize> {
    let n = exit + 1;
    let mut preds = vec![Vec::new(); n];
    for (a, s) in succ.iter().enumerate() {
        for &b in s {
            preds[b].push(a);
        }
    }
    // Postorder of the reversed graph from the exit (iterative DFS).
    let mut order = vec![usize::MAX; n];
    let mut post = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(exit, 0usize)];
    seen[exit] = true;
    while let Some(&mut (v, ref mut k)) = stack.last_mut() {
        if let Some(&p) = preds[v].get(*k) {
            *k += 1;
            if !seen[p] {
                seen[p] = true;
                stack.push((p, 0));
            }
        } else {
            order[v] = post.len();
            post.push(v);
            stack.pop();
        }
    }
    let mut ipdom = vec![usize::MAX; n];
    ipdom[exit] = exit;
    let intersect = |ipdom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] < order[b] {
                a = ipdom[a];
            }
            while order[b] < order[a] {
                b = ipdom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in post.iter().rev().filter(|&&v| v != exit) {
            let mut new = usize::MAX;
            for &s in &succ[v] {
                if ipdom[s] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    s
                } else {
                    intersect(&ipdom, s, new)
                };
            }
            if new != ipdom[v] {
                ipdom[v] = new;
                changed = true;
            }
        }
    }
    ipdom
        .into_iter()
        .map(|d| if d == usize::MAX { exit } else { d })
        .collect()
}

/// Which nodes start a basic block: the entry, every jump or branch target and every
/// instruction after a branch or jump.
fn leaders(pcs: &[u64], succ: &[Vec<usize>], exit: usize) -> Vec<bool> {
    let mut lead = vec![false; exit];
    lead[0] = true;
    for (n, s) in succ.iter().enumerate() {
        let falls_through = s.len() == 1 && s[0] != exit && pcs[s[0]] == pcs[n].wrapping_add(4);
        if !falls_through {
            for &t in s.iter().filter(|&&t| t != exit) {
                lead[t] = true;
            }
        }
    }
    lead
}

/// Instructions in the basic block starting at node `p`.
fn block_len(p: usize, succ: &[Vec<usize>], leaders: &[bool], exit: usize) -> u32 {
    let mut len = 1;
    let mut v = p;
    while succ[v].len() == 1 && succ[v][0] != exit && !leaders[succ[v][0]] {
        v = succ[v][0];
        len += 1;
    }
    len
}
