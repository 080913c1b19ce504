//! The CP's warp-fragment control (seed 000, section 3.1 and Figure 3): the active warp
//! fragment register (AWFR) and the pending warp fragment buffer (PWFB) with the
//! two-stack PC-ordered scheme of Lee et al. [20].
//!
//! The paper names the scheme and leaves its rules to [20]; ours, mirrored by the RTL
//! (`generators/src/fgsimt/cp/pwfb.rs`):
//! - A divergent branch at `pc` pushes {target, taken threads}: onto the forward stack if
//!   the target is above `pc`, else onto the backward stack. The AWFR goes on with the
//!   not-taken threads at `pc + 4`.
//! - Each stack is kept ordered by pc, lowest on top; a fragment pushed at a pc already in
//!   that stack merges into it (masks ORed).
//! - Before each fetch, the fragment with the lowest pc runs: a stack top at the AWFR's pc
//!   merges into the AWFR; a stack top below it swaps with it (the AWFR goes onto the
//!   forward stack); an AWFR whose threads have all returned takes the lowest top (both
//!   tops, if their pcs are equal). The warp is done when the AWFR is empty and both
//!   stacks are.
//!
//! So threads that leave a loop early wait at the loop's exit for the others (lowest pc
//! first), and threads rejoin at the first pc they share.

/// A warp fragment: a pc and the threads of the warp executing it (bit i: thread i).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Fragment {
    pub pc: u64,
    pub mask: u32,
}

/// The AWFR and the two PWFB stacks of one warp.
#[derive(Debug, Default, Clone)]
pub struct Pwfb {
    /// The active fragment (mask 0: none).
    pub awfr: Fragment,
    /// Ordered by pc, highest first: the top (last) has the lowest pc.
    forward: Vec<Fragment>,
    backward: Vec<Fragment>,
}

/// Inserts `f` into `stack` by pc (lowest on top), merging with an equal pc.
fn insert(stack: &mut Vec<Fragment>, f: Fragment) {
    if let Some(e) = stack.iter_mut().find(|e| e.pc == f.pc) {
        e.mask |= f.mask;
        return;
    }
    let at = stack
        .iter()
        .position(|e| e.pc < f.pc)
        .unwrap_or(stack.len());
    stack.insert(at, f);
}

impl Pwfb {
    /// A warp starting at `pc` with threads `mask`.
    pub fn new(pc: u64, mask: u32) -> Pwfb {
        Pwfb {
            awfr: Fragment { pc, mask },
            ..Pwfb::default()
        }
    }

    /// Fragments waiting in the two stacks.
    pub fn pending(&self) -> usize {
        self.forward.len() + self.backward.len()
    }

    /// The warp is done: the AWFR and both stacks are empty ([`Pwfb::select`] returns
    /// `None`).
    pub fn done(&self) -> bool {
        self.awfr.mask == 0 && self.pending() == 0
    }

    /// A divergent branch at `pc`: the taken threads go to `target`, the rest stay in the
    /// AWFR (the caller sets its pc to the fall-through).
    pub fn push_taken(&mut self, pc: u64, target: u64, taken: u32) {
        let f = Fragment {
            pc: target,
            mask: taken,
        };
        if target > pc {
            insert(&mut self.forward, f);
        } else {
            insert(&mut self.backward, f);
        }
        self.awfr.mask &= !taken;
    }

    /// The lowest pc on either stack's top.
    fn lowest_top(&self) -> Option<u64> {
        let f = self.forward.last().map(|f| f.pc);
        let b = self.backward.last().map(|f| f.pc);
        match (f, b) {
            (Some(f), Some(b)) => Some(f.min(b)),
            (f, b) => f.or(b),
        }
    }

    /// Pops every stack top at `pc` into one fragment.
    fn pop_at(&mut self, pc: u64) -> Fragment {
        let mut out = Fragment { pc, mask: 0 };
        for stack in [&mut self.forward, &mut self.backward] {
            if stack.last().is_some_and(|f| f.pc == pc) {
                out.mask |= stack.pop().map_or(0, |f| f.mask);
            }
        }
        out
    }

    /// Applies the PC-ordering rules before a fetch; returns the fragment to fetch for,
    /// or `None` when the warp is done.
    pub fn select(&mut self) -> Option<Fragment> {
        if let Some(low) = self.lowest_top() {
            if self.awfr.mask == 0 {
                self.awfr = self.pop_at(low);
            } else if low == self.awfr.pc {
                self.awfr.mask |= self.pop_at(low).mask;
            } else if low < self.awfr.pc {
                let next = self.pop_at(low);
                insert(&mut self.forward, self.awfr);
                self.awfr = next;
            }
        }
        (self.awfr.mask != 0).then_some(self.awfr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_if_else_reconverges_at_the_join() {
        // 0x10: beq -> 0x20 (else); 0x14..0x1c: then; 0x1c: j 0x28; 0x20..: else; 0x28 join.
        let mut p = Pwfb::new(0x10, 0xff);
        p.push_taken(0x10, 0x20, 0x0f);
        p.awfr.pc = 0x14;
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x14,
                mask: 0xf0
            })
        );
        p.awfr.pc = 0x28; // the then-side jumps past the else-side
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x20,
                mask: 0x0f
            }),
            "lowest pc first"
        );
        p.awfr.pc = 0x24;
        p.select();
        p.awfr.pc = 0x28;
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x28,
                mask: 0xff
            }),
            "merged at the join"
        );
        assert_eq!(p.pending(), 0);
    }

    #[test]
    fn loop_leavers_wait_at_the_exit() {
        // A loop 0x40..0x50 whose back edge at 0x50 diverges: threads 0-1 stay.
        let mut p = Pwfb::new(0x50, 0xf);
        p.push_taken(0x50, 0x40, 0x3);
        p.awfr.pc = 0x54;
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x40,
                mask: 0x3
            })
        );
        p.awfr.pc = 0x54; // they leave too
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x54,
                mask: 0xf
            })
        );
    }

    #[test]
    fn an_empty_awfr_takes_both_equal_tops() {
        let mut p = Pwfb::new(0x100, 0xf);
        p.push_taken(0x100, 0x200, 0x1);
        p.awfr.pc = 0x80;
        p.push_taken(0x80, 0x40, 0x2);
        p.awfr.pc = 0x84;
        p.push_taken(0x84, 0x200, 0x4);
        // AWFR {0x84: thread 3}; stacks: forward {0x200: 0,2}, backward {0x40: 1}.
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x40,
                mask: 0x2
            })
        );
        p.awfr.mask = 0; // thread 1 returns
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x84,
                mask: 0x8
            })
        );
        p.awfr.pc = 0x200;
        assert_eq!(
            p.select(),
            Some(Fragment {
                pc: 0x200,
                mask: 0xd
            })
        );
        p.awfr.mask = 0;
        assert_eq!(p.select(), None);
    }
}
