//! Branches and re-convergence in the DWS model (seed 001, sections 2.1, 2.3 and 2.5;
//! Fig. 3): the conventional stack push and pop, branch splits, stack-based merges at
//! the top of stack's post-dominator, BL barriers, threads that end, and the WST-full
//! fallback (a frame of the group's own; see the module `dws`).

use super::machine::{DwsError, Issue, Machine};
use super::state::{Frame, Status};
use super::Reconv;
use crate::iss::decode;
use crate::iss::Iss;

/// Whether conditional branch `insn` is taken for operands `a`, `b` (RV32 values).
fn taken(insn: u32, a: u64, b: u64) -> bool {
    let (a, b) = (a as u32, b as u32);
    match decode::funct3(insn) {
        0 => a == b,
        1 => a != b,
        4 => (a as i32) < (b as i32),
        5 => (a as i32) >= (b as i32),
        6 => a < b,
        _ => a >= b,
    }
}

impl Machine {
    /// A conditional branch of the group at index `i`.
    pub(super) fn branch(&mut self, iss: &mut Iss, i: usize, insn: u32) -> Result<Issue, DwsError> {
        let (w, pc, mask, depth, id) = {
            let g = &self.groups[i];
            (g.warp, g.pc, g.mask, g.depth, g.id)
        };
        let threads = &self.warps[w].threads;
        let (r1, r2) = (decode::rs1(insn), decode::rs2(insn));
        let t_mask = (0..threads.len())
            .filter(|&t| mask >> t & 1 != 0 && taken(insn, threads[t].x(r1), threads[t].x(r2)))
            .fold(0u32, |m, t| m | 1 << t);
        let target = pc.wrapping_add(decode::imm_b(insn)) & 0xffff_ffff;
        let fall = (pc + 4) & 0xffff_ffff;
        let f_mask = mask & !t_mask;
        let divided = self
            .groups
            .iter()
            .any(|g| g.warp == w && g.depth == depth && g.id != id);
        if divided && self.cfg.reconv == Reconv::Bl {
            // A barrier: the warp's groups merge here before the branch.
            self.wait(i);
            return Ok(Issue::Again);
        }
        if t_mask != 0 && f_mask != 0 {
            let split = if divided {
                if !self.can_split(w) {
                    self.stats.wst_waits += 1;
                    self.wait(i);
                    return Ok(Issue::Again);
                }
                true
            } else {
                let info = self.code.branch(pc)?;
                self.cfg.branch_dws && info.block_after <= self.cfg.short_block && self.can_split(w)
            };
            self.stats.divergent_branches += 1;
            if split {
                self.stats.branch_splits += 1;
                self.new_group(w, depth, target, t_mask);
            } else {
                let ipdom = self.code.branch(pc)?.ipdom;
                let frames = &mut self.warps[w].frames;
                frames[depth].pc = ipdom;
                for (pc, mask) in [(target, t_mask), (fall, f_mask)] {
                    frames.push(Frame {
                        pc,
                        rpc: ipdom,
                        mask,
                    });
                }
                self.groups[i].depth = depth + 2;
            }
        }
        self.stats.branches += 1;
        self.count_issue(mask);
        self.execute(iss, w, mask)?;
        let i = self.at(id);
        let g = &mut self.groups[i];
        if f_mask == 0 {
            g.pc = target;
        } else {
            g.pc = fall;
            g.mask = f_mask;
        }
        let threads = &self.warps[w].threads;
        if (0..threads.len()).any(|t| {
            mask >> t & 1 != 0
                && threads[t].pc() != if t_mask >> t & 1 != 0 { target } else { fall }
        }) {
            return Err(DwsError::Model {
                cycle: self.now,
                what: format!("the branch at {pc:#x} went elsewhere than the model's compare"),
            });
        }
        Ok(Issue::Issued)
    }

    /// The group at index `i` waits at its pc (giving up its slot); its warp may then
    /// merge or re-converge.
    fn wait(&mut self, i: usize) {
        self.groups[i].status = Status::Wait;
        self.unslot(i);
        let w = self.groups[i].warp;
        self.sync(w);
    }

    /// The group at index `i` is at its stack entry's post-dominator: the stack pops if
    /// the group is alone there, else it waits for the others.
    pub(super) fn reconverge(&mut self, i: usize) {
        let (w, depth, id) = (self.groups[i].warp, self.groups[i].depth, self.groups[i].id);
        if self
            .groups
            .iter()
            .any(|g| g.warp == w && g.depth == depth && g.id != id)
        {
            self.wait(i);
            return;
        }
        let frames = &mut self.warps[w].frames;
        frames.pop();
        let top = frames.len() - 1;
        let below = self.groups.iter().any(|g| g.warp == w && g.depth == top);
        let frame = frames[top];
        let i = self.at(id);
        let g = &mut self.groups[i];
        g.depth = top;
        if !below {
            g.pc = frame.pc;
            g.mask = frame.mask;
        }
    }

    /// Merges or re-converges warp `w`'s groups once all at the top of its stack wait:
    /// at the post-dominator (stack-based), at one pc (a BL barrier), else the oldest
    /// waiting at a branch gets its own frame. With BranchBypass or stack
    /// re-convergence, a group waiting at a branch for a WST entry retries when one is
    /// free.
    pub(super) fn sync(&mut self, w: usize) {
        let Some(top) = self.warps[w].frames.len().checked_sub(1) else {
            return;
        };
        let rpc = self.warps[w].frames[top].rpc;
        let at_top: Vec<usize> = (0..self.groups.len())
            .filter(|&i| self.groups[i].warp == w && self.groups[i].depth == top)
            .collect();
        if at_top.is_empty() {
            return;
        }
        if at_top
            .iter()
            .any(|&i| self.groups[i].status != Status::Wait)
        {
            if self.cfg.reconv != Reconv::Bl && self.wst_used() < self.cfg.wst_entries as usize {
                for &i in &at_top {
                    let g = &mut self.groups[i];
                    if g.status == Status::Wait && g.pc != rpc {
                        g.status = Status::Ready;
                        g.ready_at = self.now;
                    }
                }
            }
            return;
        }
        let pc = self.groups[at_top[0]].pc;
        if at_top.iter().all(|&i| self.groups[i].pc == pc) {
            let merged = at_top.len() as u64 - 1;
            if pc == rpc {
                self.stats.reconv_merges += merged;
            } else {
                self.stats.barrier_merges += merged;
            }
            let mask = at_top.iter().fold(0, |m, &i| m | self.groups[i].mask);
            for &i in at_top[1..].iter().rev() {
                self.remove(i);
            }
            let g = &mut self.groups[at_top[0]];
            g.mask = mask;
            g.status = Status::Ready;
            g.ready_at = self.now;
            return;
        }
        let &i = at_top
            .iter()
            .find(|&&i| self.groups[i].pc != rpc)
            .expect("groups at two pcs: one is not at the post-dominator");
        self.stats.own_frames += 1;
        let g = &mut self.groups[i];
        g.depth = top + 1;
        g.status = Status::Ready;
        g.ready_at = self.now;
        let frame = Frame {
            pc: g.pc,
            rpc,
            mask: g.mask,
        };
        self.warps[w].frames.push(frame);
    }

    /// Every thread of the group at index `i` returned: they leave the stack, and the
    /// warp goes on with its next stack entry, or ends.
    pub(super) fn exit(&mut self, i: usize) {
        let (w, mask) = (self.groups[i].warp, self.groups[i].mask);
        self.remove(i);
        let frames = &mut self.warps[w].frames;
        for f in frames.iter_mut() {
            f.mask &= !mask;
        }
        loop {
            let Some(top) = self.warps[w].frames.len().checked_sub(1) else {
                self.warps[w].index = None;
                return;
            };
            if self.groups.iter().any(|g| g.warp == w && g.depth == top) {
                self.sync(w);
                return;
            }
            let frame = self.warps[w].frames[top];
            if frame.mask == 0 {
                self.warps[w].frames.pop();
                continue;
            }
            self.new_group(w, top, frame.pc, frame.mask);
            return;
        }
    }
}
