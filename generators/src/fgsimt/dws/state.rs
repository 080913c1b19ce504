//! The DWS sequencer's state as values within a cycle (seed 001, sections 2.1-2.2 and
//! Fig. 3): the SIMD groups (the WST's entries and each undivided warp's one group, in a
//! table ordered by age) and each warp's re-convergence stack. The sequencer's phases
//! (`sync.rs`, `action.rs`) are functions from one [`State`] to the next; the registers
//! (`sequencer.rs`) hold the last one.
//!
//! The table is compact at a cycle's start (entries 0..count valid, the oldest first).
//! Within the cycle removed entries become free in place and new groups are appended
//! after every valid one ([`State::append`]), so index order stays age order; the end of
//! the cycle compacts it again ([`State::compact`]).

use super::params::{DwsParams, DELAY_BITS};
use hdl::helpers::{onehot_mux, popcount_tree, prefix_counts};
use hdl::ir::addr_width;
use hdl::{mux, Bits, Value};

/// A group's 2-bit status (free: no group).
pub mod status {
    pub const FREE: u64 = 0;
    pub const READY: u64 = 1;
    pub const WAIT_MEM: u64 = 2;
    /// Waiting at a synchronization pc.
    pub const WAIT: u64 = 3;
}

pub fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

pub fn any(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}

/// Bits of a warp's number, a stack depth, a stack's length and a slot's number.
#[derive(Clone, Copy)]
pub struct Widths {
    pub warp: u32,
    pub depth: u32,
    pub len: u32,
    pub slot: u32,
}

impl Widths {
    pub fn of(p: &DwsParams) -> Widths {
        Widths {
            warp: addr_width(p.warps as u64),
            depth: addr_width(p.stack_depth as u64),
            len: addr_width(p.stack_depth as u64 + 1),
            slot: addr_width(p.slot_count() as u64),
        }
    }
}

/// One SIMD group (an entry of the table).
#[derive(Clone)]
pub struct Group {
    pub status: Value,
    pub warp: Value,
    /// The stack entry it divides.
    pub depth: Value,
    pub pc: Value,
    pub mask: Value,
    /// Ready: cycles from this one until it may issue.
    pub delay: Value,
    /// Threads whose access of the memory instruction at `pc` is satisfied.
    pub ready: Value,
    /// Waiting for memory: threads whose data has not arrived.
    pub pending: Value,
    pub slotted: Value,
    pub slot: Value,
    /// The running group (issues again without a pick).
    pub running: Value,
    /// Its branch or memory instruction awaits a late answer.
    pub awaiting: Value,
}

/// The fields' names and widths (registers and trace ports).
pub fn group_fields(p: &DwsParams) -> Vec<(&'static str, u32)> {
    let w = Widths::of(p);
    vec![
        ("status", 2),
        ("warp", w.warp),
        ("depth", w.depth),
        ("pc", 32),
        ("mask", p.warp_size),
        ("delay", DELAY_BITS),
        ("ready", p.warp_size),
        ("pending", p.warp_size),
        ("slotted", 1),
        ("slot", w.slot),
        ("running", 1),
        ("awaiting", 1),
    ]
}

impl Group {
    pub fn from_fields(f: &[Value]) -> Group {
        Group {
            status: f[0].clone(),
            warp: f[1].clone(),
            depth: f[2].clone(),
            pc: f[3].clone(),
            mask: f[4].clone(),
            delay: f[5].clone(),
            ready: f[6].clone(),
            pending: f[7].clone(),
            slotted: f[8].clone(),
            slot: f[9].clone(),
            running: f[10].clone(),
            awaiting: f[11].clone(),
        }
    }

    pub fn fields(&self) -> [&Value; 12] {
        [
            &self.status,
            &self.warp,
            &self.depth,
            &self.pc,
            &self.mask,
            &self.delay,
            &self.ready,
            &self.pending,
            &self.slotted,
            &self.slot,
            &self.running,
            &self.awaiting,
        ]
    }

    pub fn is(&self, s: u64) -> Value {
        self.status.eq(&lit(&self.status, s, 2))
    }

    pub fn valid(&self) -> Value {
        !&self.is(status::FREE)
    }

    /// `then` where `cond`, else `self`.
    pub fn pick(&self, cond: &Value, then: &Group) -> Group {
        let f: Vec<Value> = self
            .fields()
            .iter()
            .zip(then.fields())
            .map(|(a, b)| mux(cond, b, a))
            .collect();
        Group::from_fields(&f)
    }

    /// With status `s`.
    pub fn with_status(&self, s: u64) -> Group {
        Group {
            status: lit(&self.status, s, 2),
            ..self.clone()
        }
    }

    /// Ready now (`ready_at = now`).
    pub fn ready_now(&self) -> Group {
        Group {
            delay: lit(&self.delay, 0, DELAY_BITS),
            ..self.with_status(status::READY)
        }
    }

    /// Without its slot (and not running): it waits, or is removed.
    pub fn unslotted(&self) -> Group {
        let zero = lit(&self.slotted, 0, 1);
        Group {
            slotted: zero.clone(),
            running: zero,
            ..self.clone()
        }
    }

    /// Removed: free and unslotted.
    pub fn removed(&self) -> Group {
        self.unslotted().with_status(status::FREE)
    }

    /// Belongs to warp `warp` at stack entry `depth`.
    pub fn at(&self, warp: &Value, depth: &Value) -> Value {
        &(&self.valid() & &self.warp.eq(warp)) & &self.depth.eq(depth)
    }
}

/// A re-convergence stack entry.
#[derive(Clone)]
pub struct Frame {
    pub pc: Value,
    pub rpc: Value,
    pub mask: Value,
}

impl Frame {
    pub fn pick(&self, cond: &Value, then: &Frame) -> Frame {
        Frame {
            pc: mux(cond, &then.pc, &self.pc),
            rpc: mux(cond, &then.rpc, &self.rpc),
            mask: mux(cond, &then.mask, &self.mask),
        }
    }
}

/// A warp's stack: its length (0: the warp context is idle) and `stack_depth` frames.
#[derive(Clone)]
pub struct Stack {
    pub len: Value,
    pub frames: Vec<Frame>,
}

impl Stack {
    pub fn pick(&self, cond: &Value, then: &Stack) -> Stack {
        Stack {
            len: mux(cond, &then.len, &self.len),
            frames: self
                .frames
                .iter()
                .zip(&then.frames)
                .map(|(a, b)| a.pick(cond, b))
                .collect(),
        }
    }

    /// The frame at `depth`.
    pub fn frame(&self, depth: &Value) -> Frame {
        let sel = hdl::helpers::onehot_decode(depth, self.frames.len() as u32);
        let f = |g: fn(&Frame) -> &Value| {
            let vs: Vec<Value> = self.frames.iter().map(|fr| g(fr).clone()).collect();
            onehot_mux(&sel, &vs)
        };
        Frame {
            pc: f(|fr| &fr.pc),
            rpc: f(|fr| &fr.rpc),
            mask: f(|fr| &fr.mask),
        }
    }

    /// With frame `at` (a depth) replaced by `frame` where `cond`.
    pub fn write(&self, cond: &Value, at: &Value, frame: &Frame) -> Stack {
        let frames = self
            .frames
            .iter()
            .enumerate()
            .map(|(d, fr)| {
                let here = cond & &at.eq(&lit(at, d as u64, at.width()));
                fr.pick(&here, frame)
            })
            .collect();
        Stack {
            len: self.len.clone(),
            frames,
        }
    }

    /// The top's depth (`len - 1`, as a depth).
    pub fn top(&self, w: &Widths) -> Value {
        (&self.len - &lit(&self.len, 1, w.len)).slice(w.depth - 1, 0)
    }
}

/// The sequencer's state within a cycle, and the errors met so far.
#[derive(Clone)]
pub struct State {
    pub groups: Vec<Group>,
    pub stacks: Vec<Stack>,
    /// Where the next new group goes (after every valid entry).
    pub tail: Value,
    /// A stack or the table overflowed.
    pub overflow: Value,
}

impl State {
    /// `then` where `cond`, else `self`.
    pub fn pick(&self, cond: &Value, then: &State) -> State {
        State {
            groups: self
                .groups
                .iter()
                .zip(&then.groups)
                .map(|(a, b)| a.pick(cond, b))
                .collect(),
            stacks: self
                .stacks
                .iter()
                .zip(&then.stacks)
                .map(|(a, b)| a.pick(cond, b))
                .collect(),
            tail: mux(cond, &then.tail, &self.tail),
            overflow: mux(cond, &then.overflow, &self.overflow),
        }
    }

    /// Each warp's number of groups (`addr_width(groups + 1)` bits).
    pub fn counts(&self, p: &DwsParams) -> Vec<Value> {
        let w = Widths::of(p);
        (0..p.warps)
            .map(|k| {
                let bits: Vec<Value> = self
                    .groups
                    .iter()
                    .rev()
                    .map(|g| &g.valid() & &g.warp.eq(&lit(&g.warp, k as u64, w.warp)))
                    .collect();
                popcount_tree(&hdl::cat(&bits.iter().collect::<Vec<_>>()))
            })
            .collect()
    }

    /// WST entries in use: the groups of every warp that has two or more (8 bits).
    pub fn wst_used(&self, p: &DwsParams) -> Value {
        let counts = self.counts(p);
        let zero = lit(&self.tail, 0, 8);
        counts.iter().fold(zero.clone(), |a, c| {
            let two = c.ge(&lit(c, 2, c.width()));
            &a + &mux(&two, &c.zext(8), &zero)
        })
    }

    /// Whether warp `warp` may split one more group off (the overwrite-parent rule:
    /// an undivided warp's split takes two entries).
    pub fn can_split(&self, p: &DwsParams, warp: &Value) -> Value {
        let counts = self.counts(p);
        let sel = hdl::helpers::onehot_decode(warp, p.warps);
        let count = onehot_mux(&sel, &counts);
        let one = count.eq(&lit(&count, 1, count.width()));
        let need = mux(&one, &lit(&count, 2, 8), &lit(&count, 1, 8));
        (&self.wst_used(p) + &need).le(&lit(&need, p.wst_entries as u64, 8))
    }

    /// Adds `g` (at `tail`) where `cond`.
    pub fn append(&self, cond: &Value, g: &Group) -> State {
        let full = self.tail.eq(&lit(
            &self.tail,
            self.groups.len() as u64,
            self.tail.width(),
        ));
        let groups = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, old)| {
                let here = cond & &self.tail.eq(&lit(&self.tail, i as u64, self.tail.width()));
                old.pick(&here, g)
            })
            .collect();
        State {
            groups,
            stacks: self.stacks.clone(),
            tail: mux(
                cond,
                &(&self.tail + &lit(&self.tail, 1, self.tail.width())),
                &self.tail,
            ),
            overflow: &self.overflow | &(cond & &full),
        }
    }

    /// `f` of every group, a bit each (group i at bit i).
    pub fn bits(&self, f: impl Fn(&Group) -> Value) -> Value {
        let bits: Vec<Value> = self.groups.iter().rev().map(f).collect();
        hdl::cat(&bits.iter().collect::<Vec<_>>())
    }

    /// The group of `sel` (one-hot over the table).
    pub fn select(&self, sel: &Value) -> Group {
        let n = self.groups[0].fields().len();
        let f: Vec<Value> = (0..n)
            .map(|k| {
                let vs: Vec<Value> = self.groups.iter().map(|g| g.fields()[k].clone()).collect();
                onehot_mux(sel, &vs)
            })
            .collect();
        Group::from_fields(&f)
    }

    /// Other groups than those of `me` (a bit a group) at warp `warp`'s entry `depth`.
    pub fn others_at(&self, me: &Value, warp: &Value, depth: &Value) -> Value {
        let bits: Vec<Value> = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| &g.at(warp, depth) & &!&me.bit(i as u32))
            .collect();
        any(&bits)
    }

    /// The table compacted into `size` entries (oldest first), every ready delay one
    /// cycle on; an overflow if more than `size` are valid.
    pub fn compact(&self, size: usize) -> (Vec<Group>, Value) {
        let n = self.groups.len();
        let valid: Vec<Value> = self.groups.iter().map(Group::valid).collect();
        let cw = addr_width(n as u64 + 1);
        // Each entry's place: the valid entries before it.
        let before = prefix_counts(&valid, cw);
        let bits: Vec<&Value> = valid.iter().rev().collect();
        let acc = popcount_tree(&hdl::cat(&bits)).zext(cw);
        let free = self.groups[0].removed();
        // Entry k takes the one valid entry with k before it (one-hot, no chain).
        let out = (0..size)
            .map(|k| {
                let here: Vec<Value> = (0..n)
                    .map(|j| match j < k {
                        true => lit(&acc, 0, 1),
                        false => &valid[j] & &before[j].eq(&lit(&acc, k as u64, cw)),
                    })
                    .collect();
                let sel = hdl::cat(&here.iter().rev().collect::<Vec<_>>());
                free.pick(&sel.or_r(), &self.select(&sel))
            })
            .map(|g| {
                let zero = g.delay.eq(&lit(&g.delay, 0, DELAY_BITS));
                let next = mux(&zero, &g.delay, &(&g.delay - &lit(&g.delay, 1, DELAY_BITS)));
                Group { delay: next, ..g }
            })
            .collect();
        let over = acc.gt(&lit(&acc, size as u64, cw));
        (out, &self.overflow | &over)
    }
}
