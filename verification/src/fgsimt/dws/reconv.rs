//! Branches and re-convergence in the DWS sequencer (seed 001, sections 2.1, 2.3 and
//! 2.5; Fig. 3): the conventional stack push and pop, branch splits, stack-based merges
//! at the top of stack's post-dominator, BL barriers, threads that end, and the WST-full
//! fallback (a frame of the group's own; see the module `dws`).

use super::cfg::BranchInfo;
use super::control::DwsControl;
use super::state::{Frame, Status};
use super::{Reconv, SplitPolicy};

/// A conditional branch's outcome for a group, as the datapath computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchOutcome {
    /// The group's threads that take it.
    pub taken: u32,
    pub target: u64,
    pub info: BranchInfo,
}

impl DwsControl {
    /// Group `id`'s conditional branch: whether it executes (`false`: the group waits
    /// at the branch, a BL barrier or a split with no WST entry). A divergent one splits
    /// the group or pushes the stack; the group goes on with the not-taken threads (it
    /// runs on, unless the answer came late).
    pub fn branch(&mut self, id: u64, o: BranchOutcome) -> bool {
        let i = self.at(id);
        let (w, pc, mask, depth) = {
            let g = &self.groups[i];
            (g.warp, g.pc, g.mask, g.depth)
        };
        let fall = (pc + 4) & 0xffff_ffff;
        let t_mask = o.taken & mask;
        let f_mask = mask & !t_mask;
        let divided = self
            .groups
            .iter()
            .any(|g| g.warp == w && g.depth == depth && g.id != id);
        if divided && self.cfg.reconv == Reconv::Bl {
            // A barrier: the warp's groups merge here before the branch.
            self.wait(i);
            return false;
        }
        if t_mask != 0 && f_mask != 0 {
            let split = if divided {
                if !self.can_split(w) {
                    self.stats.wst_waits += 1;
                    self.wait(i);
                    return false;
                }
                true
            } else {
                self.cfg.branch_dws && o.info.short(self.cfg.short_block) && self.can_split(w)
            };
            self.stats.divergent_branches += 1;
            if split {
                self.stats.branch_splits += 1;
                self.new_group(w, depth, o.target, t_mask);
            } else {
                // The entry becomes the re-convergence entry, unless it already
                // re-converges there (a loop's branch diverging again) and no group
                // waits below it: then the paths replace it, and the stack does not
                // grow with the iterations.
                let below = self
                    .groups
                    .iter()
                    .any(|g| g.warp == w && g.depth + 1 == depth);
                let frames = &mut self.stacks[w];
                if frames[depth].rpc == o.info.ipdom && !below {
                    frames.truncate(depth);
                } else {
                    frames[depth].pc = o.info.ipdom;
                }
                for (pc, mask) in [(o.target, t_mask), (fall, f_mask)] {
                    frames.push(Frame {
                        pc,
                        rpc: o.info.ipdom,
                        mask,
                    });
                }
                let top = frames.len() - 1;
                let i = self.at(id);
                self.groups[i].depth = top;
            }
        }
        self.stats.branches += 1;
        let i = self.at(id);
        let g = &mut self.groups[i];
        if f_mask == 0 {
            g.pc = o.target;
        } else {
            g.pc = fall;
            g.mask = f_mask;
        }
        if !self.late() {
            self.running = Some(id);
        }
        true
    }

    /// The group at index `i` waits at its pc (giving up its slot); its warp may then
    /// merge or re-converge (next cycle).
    fn wait(&mut self, i: usize) {
        self.groups[i].status = Status::Wait;
        self.unslot(i);
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
        let frames = &mut self.stacks[w];
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
    /// `wst`: WST entries in use when the cycle's syncs began (a merge of another warp
    /// in the same cycle frees its entries for the next cycle's retries).
    pub(super) fn sync(&mut self, w: usize, wst: usize) {
        let Some(top) = self.stacks[w].len().checked_sub(1) else {
            return;
        };
        let rpc = self.stacks[w][top].rpc;
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
            if self.cfg.reconv != Reconv::Bl && wst < self.cfg.wst_entries as usize {
                let slip = (self.cfg.dws == SplitPolicy::Slip).then_some(self.slip_limit());
                for &i in &at_top {
                    let g = &mut self.groups[i];
                    // (A group waiting at its slip limit stays: the others merge it.)
                    let at_limit = slip.is_some_and(|l| g.slipped >= l);
                    if g.status == Status::Wait && g.pc != rpc && !at_limit {
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
            g.slipped = 0;
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
        self.stacks[w].push(frame);
    }

    /// Every thread of the group at index `i` returned: they leave the stack, and the
    /// warp goes on with its next stack entry, or ends.
    pub(super) fn exit(&mut self, i: usize) {
        let (w, mask) = (self.groups[i].warp, self.groups[i].mask);
        self.remove(i);
        let frames = &mut self.stacks[w];
        for f in frames.iter_mut() {
            f.mask &= !mask;
        }
        loop {
            let Some(top) = self.stacks[w].len().checked_sub(1) else {
                return; // the warp has ended: its context is idle
            };
            if self.groups.iter().any(|g| g.warp == w && g.depth == top) {
                return;
            }
            let frame = self.stacks[w][top];
            if frame.mask == 0 {
                self.stacks[w].pop();
                continue;
            }
            self.new_group(w, top, frame.pc, frame.mask);
            return;
        }
    }
}
