//! The DWS model's state (seed 001, sections 2.1-2.2): each warp's re-convergence stack
//! (Fig. 3) and the SIMD groups that divide its top (the WST's entries, Free being an
//! absent group), with the invariants I1-I3 of spec section 3.

/// A re-convergence stack entry: where its threads go next (`pc`, read when the entry
/// becomes the top), where they re-converge (`rpc`) and which they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub pc: u64,
    pub rpc: u64,
    pub mask: u32,
}

/// A SIMD group's status (the WST's 2-bit field; Free is an absent group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ready,
    WaitMem,
    /// Waiting at a synchronization pc: the top of stack's post-dominator, a BL barrier
    /// or a branch whose split waits for a WST entry.
    Wait,
}

/// A SIMD group: a whole warp or a warp-split.
#[derive(Debug, Clone)]
pub struct Group {
    /// Creation order (the oldest first).
    pub id: u64,
    pub warp: usize,
    /// The stack entry it divides.
    pub depth: usize,
    pub pc: u64,
    pub mask: u32,
    pub status: Status,
    /// Ready: the first cycle it may issue.
    pub ready_at: u64,
    /// Threads whose access of the memory instruction at `pc` is satisfied.
    pub data_ready: u32,
    /// WaitMem: threads whose data has not arrived.
    pub pending: u32,
    /// Memory instructions completed since the group was split off or last merged (the
    /// slip's distance).
    pub slipped: u32,
    pub slot: Option<usize>,
    /// Its branch or memory instruction awaits the datapath's late answer.
    pub awaiting: bool,
}

/// A group as tests see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupView {
    pub depth: usize,
    pub pc: u64,
    pub mask: u32,
    pub status: Status,
    pub slotted: bool,
}

/// Invariant I1 for one warp (generalised to the frames groups wait below): at every
/// depth holding groups, their masks are disjoint and, with the mask of the frame just
/// above (a waiting group's own frame), OR to the depth's frame's mask; groups below the
/// top wait.
pub(super) fn check_warp(w: usize, frames: &[Frame], groups: &[Group]) -> Result<(), String> {
    let top = frames.len().saturating_sub(1);
    for (d, frame) in frames.iter().enumerate() {
        let mut or = 0u32;
        let mut any = false;
        for g in groups.iter().filter(|g| g.warp == w && g.depth == d) {
            if or & g.mask != 0 || g.mask == 0 {
                return Err(format!(
                    "I1: warp {w} depth {d}: group masks overlap or are empty"
                ));
            }
            if d < top && g.status != Status::Wait {
                return Err(format!("I1: warp {w}: a group below the top of stack runs"));
            }
            or |= g.mask;
            any = true;
        }
        if !any && d < top {
            continue;
        }
        let above = if d < top { frames[d + 1].mask } else { 0 };
        if or & above != 0 || or | above != frame.mask {
            return Err(format!(
                "I1: warp {w} depth {d}: groups {or:#x} and the frame above {above:#x} do not \
                 make the frame's mask {:#x}",
                frame.mask
            ));
        }
    }
    if groups.iter().any(|g| g.warp == w && g.depth > top) {
        return Err(format!("I1: warp {w}: a group above the top of stack"));
    }
    Ok(())
}
