//! A DWS sequencer cycle's one action (seed 001, spec section 3 "each cycle", step 6;
//! sections 2.3-2.5 and Fig. 3; the golden model's `DwsControl::action` and what follows
//! it in `dws/control.rs` and `dws/reconv.rs`): the pick (the running group, else round
//! robin over the slots), then
//! - a group at its stack entry's post-dominator pops the stack or waits there;
//! - an issued group's instruction, answered by the datapath in the same cycle: a branch
//!   (BL barrier, WST wait, split, or stack push), a memory instruction (PC-based merge,
//!   then complete, suspend or split by the satisfied mask), anything else (its next pc,
//!   or its threads' end: they leave the stack, and a pending frame becomes a group).
//!   With `late_answers` a branch or a memory instruction (after its merge) is only sent
//!   and its group awaits; the same decisions are made when the answer comes, at the
//!   start of a later cycle (`answer_late`), and no group of an awaiting warp is picked;
//! - nothing runnable: a stall, where ReviveSplit splits the oldest suspended group with
//!   both arrived and pending threads.

use super::params::{DwsParams, Reconv, SplitPolicy, DELAY_BITS};
use super::reconv_table::{self, Table};
use super::state::{lit, status, Frame, Group, Stack, State, Widths};
use hdl::helpers::{lowest_one, onehot_decode, onehot_mux, priority_encode};
use hdl::{cat, mux, Value};

/// The datapath's answer for the issued group (valid in its issue cycle).
#[derive(Clone)]
pub struct Answer {
    /// 0: anything else, 1: a conditional branch, 2: a memory instruction, 3: an
    /// indirect jump whose answer comes late (`late_answers`).
    pub op: Value,
    /// Anything else: the threads' common next pc (`next_valid`), or their end.
    pub next_valid: Value,
    pub next_pc: Value,
    /// A branch: the group's threads that take it and its target (its post-dominator
    /// comes from the re-convergence table, `reconv_table.rs`).
    pub taken: Value,
    pub target: Value,
    /// A memory instruction: the merged group's threads whose data is there (hits and
    /// those already satisfied), and the cycles until the hits' data.
    pub satisfied: Value,
    pub hit_delay: Value,
}

/// What the sequencer decided this cycle.
pub struct Decision {
    /// A group issues: one-hot over the table, and its fields.
    pub issue: Value,
    pub picked: Group,
    /// A group is picked (whether or not `busy`), and it is at its stack entry's
    /// post-dominator (its action is a re-convergence, not an issue).
    pub pick_valid: Value,
    pub pick_at_rpc: Value,
    /// A group re-converged or began to wait at its post-dominator.
    pub control: Value,
    /// Nothing could run.
    pub stall: Value,
    /// A branch executed (else its group waits at it).
    pub executed: Value,
    /// A memory instruction's merged group: threads, and those already satisfied.
    pub mem_mask: Value,
    pub mem_ready: Value,
    /// The threads that execute the memory instruction now.
    pub run: Value,
    /// The slot picked last (round robin).
    pub last_slot: Value,
    /// The picked group's pc in the re-convergence table (its branch's entry).
    pub entry: reconv_table::Reconv,
}

/// Warp `warp`'s stack.
fn stack_of(s: &State, p: &DwsParams, warp: &Value) -> Stack {
    let sel = onehot_decode(warp, p.warps);
    let pick = |f: &dyn Fn(&Stack) -> Value| {
        let vs: Vec<Value> = s.stacks.iter().map(f).collect();
        onehot_mux(&sel, &vs)
    };
    Stack {
        len: pick(&|st| st.len.clone()),
        frames: (0..p.stack_depth as usize)
            .map(|d| Frame {
                pc: pick(&|st| st.frames[d].pc.clone()),
                rpc: pick(&|st| st.frames[d].rpc.clone()),
                mask: pick(&|st| st.frames[d].mask.clone()),
            })
            .collect(),
    }
}

/// `s` with warp `warp`'s stack replaced by `stack` where `cond`.
fn put_stack(s: &State, cond: &Value, warp: &Value, stack: &Stack) -> State {
    let stacks = s
        .stacks
        .iter()
        .enumerate()
        .map(|(k, st)| {
            let here = cond & &warp.eq(&lit(warp, k as u64, warp.width()));
            st.pick(&here, stack)
        })
        .collect();
    State {
        stacks,
        ..s.clone()
    }
}

/// Each group of `sel` (one-hot) changed by `f`, where `cond`.
fn change(s: &State, sel: &Value, cond: &Value, f: impl Fn(&Group) -> Group) -> State {
    let groups = s
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| g.pick(&(cond & &sel.bit(i as u32)), &f(g)))
        .collect();
    State {
        groups,
        ..s.clone()
    }
}

/// Only the groups of `sel` run (`running`).
fn run_only(s: &State, sel: &Value) -> State {
    let groups = s
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| Group {
            running: sel.bit(i as u32),
            ..g.clone()
        })
        .collect();
    State {
        groups,
        ..s.clone()
    }
}

/// A new ready group (unslotted, nothing satisfied or pending).
fn new_group(p: &DwsParams, warp: &Value, depth: &Value, pc: &Value, mask: &Value) -> Group {
    let zero = lit(mask, 0, p.warp_size);
    let w = Widths::of(p);
    Group {
        status: lit(pc, status::READY, 2),
        warp: warp.clone(),
        depth: depth.clone(),
        pc: pc.clone(),
        mask: mask.clone(),
        delay: lit(pc, 0, DELAY_BITS),
        ready: zero.clone(),
        pending: zero,
        slotted: lit(pc, 0, 1),
        slot: lit(pc, 0, w.slot),
        running: lit(pc, 0, 1),
        awaiting: lit(pc, 0, 1),
    }
}

/// The pick: the running group if it can run, else the next runnable slot after the
/// last picked. Returns (one-hot pick, whether it is the running one, the slot picked).
fn pick(p: &DwsParams, s: &State, last: &Value) -> (Value, Value, Value) {
    let w = Widths::of(p);
    let awaits = awaiting_warps(p, s);
    let runnable = s.bits(|g| {
        let can = &(&g.is(status::READY) & &g.slotted) & &g.delay.eq(&lit(&g.delay, 0, DELAY_BITS));
        match &awaits {
            Some(a) => &can & &!&onehot_mux(&onehot_decode(&g.warp, p.warps), a),
            None => can,
        }
    });
    let running = &s.bits(|g| g.running.clone()) & &runnable;
    let n = p.slot_count();
    let by_slot: Vec<Value> = (0..n)
        .map(|k| {
            let here = s.bits(|g| g.slot.eq(&lit(&g.slot, k as u64, w.slot)));
            (&here & &runnable).or_r()
        })
        .collect();
    let slots = cat(&by_slot.iter().rev().collect::<Vec<_>>());
    let twice = cat(&[&slots, &slots]);
    let sw = w.slot + 1;
    let after = &last.zext(sw) + &lit(last, 1, sw);
    let order = twice.dshr(&after).slice(n - 1, 0);
    let k = priority_encode(&order).zext(sw);
    let at = &after + &k;
    let wrap = at.ge(&lit(&at, n as u64, sw));
    let slot = mux(&wrap, &(&at - &lit(&at, n as u64, sw)), &at).slice(w.slot - 1, 0);
    let in_slot = s.bits(|g| g.slot.eq(&slot));
    let rr = &(&in_slot & &runnable) & &order.or_r().repeat(s.groups.len() as u32);
    let keep = running.or_r();
    (mux(&keep, &running, &rr), keep, slot)
}

/// Late answers: each warp's bit, set while one of its groups awaits an answer (none
/// of its groups is picked then); `None` without late answers.
fn awaiting_warps(p: &DwsParams, s: &State) -> Option<Vec<Value>> {
    let w = Widths::of(p);
    p.late_answers.then(|| {
        (0..p.warps)
            .map(|k| {
                let k = lit(&s.tail, k as u64, w.warp);
                s.bits(|g| &(&g.valid() & &g.awaiting) & &g.warp.eq(&k))
                    .or_r()
            })
            .collect()
    })
}

/// The picked group (`sel`) at its post-dominator: it waits if its warp has other groups
/// at its stack entry, else the stack pops and it takes the entry below (its pc and
/// threads, unless groups wait there).
fn reconverge(p: &DwsParams, s: &State, sel: &Value, g: &Group) -> State {
    let w = Widths::of(p);
    let others = s.others_at(sel, &g.warp, &g.depth);
    let waits = change(s, sel, &others, |g| g.with_status(status::WAIT).unslotted());
    let st = stack_of(s, p, &g.warp);
    let below = &g.depth - &lit(&g.depth, 1, w.depth);
    let groups_below = s.others_at(sel, &g.warp, &below);
    let frame = st.frame(&below);
    let popped = Stack {
        len: &st.len - &lit(&st.len, 1, w.len),
        ..st
    };
    let pop = !&others;
    let s2 = change(s, sel, &pop, |x| Group {
        depth: below.clone(),
        pc: mux(&groups_below, &x.pc, &frame.pc),
        mask: mux(&groups_below, &x.mask, &frame.mask),
        ..x.clone()
    });
    let mut s2 = put_stack(&s2, &pop, &g.warp, &popped);
    // Popping a warp's last frame cannot happen (its rpc is the exit).
    s2.overflow = &s2.overflow | &(&pop & &g.depth.eq(&lit(&g.depth, 0, w.depth)));
    waits.pick(&pop, &s2)
}

/// The picked group's threads end: they leave every frame of their warp's stack; empty
/// frames pop, and a frame no group divides becomes a group.
fn exit(p: &DwsParams, s: &State, sel: &Value, g: &Group) -> State {
    let w = Widths::of(p);
    let one = lit(sel, 1, 1);
    let s1 = change(s, sel, &one, Group::removed);
    let st = stack_of(&s1, p, &g.warp);
    let frames: Vec<Frame> = st
        .frames
        .iter()
        .map(|f| Frame {
            mask: &f.mask & &!&g.mask,
            ..f.clone()
        })
        .collect();
    let none = lit(sel, 0, s1.groups.len() as u32);
    let mut len = lit(&st.len, 0, w.len);
    let mut divided = lit(sel, 0, 1);
    for (d, f) in frames.iter().enumerate() {
        let depth = lit(&g.depth, d as u64, w.depth);
        let here = s1.others_at(&none, &g.warp, &depth);
        let live = lit(&st.len, d as u64, w.len).lt(&st.len);
        let stop = &live & &(&here | &!&f.mask.eq(&lit(&f.mask, 0, p.warp_size)));
        len = mux(&stop, &lit(&st.len, d as u64 + 1, w.len), &len);
        divided = mux(&stop, &here, &divided);
    }
    let top = Stack {
        len: len.clone(),
        frames: frames.clone(),
    };
    let depth = top.top(&w);
    let frame = top.frame(&depth);
    let s2 = put_stack(&s1, &one, &g.warp, &top);
    let create = &!&len.eq(&lit(&len, 0, w.len)) & &!&divided;
    s2.append(
        &create,
        &new_group(p, &g.warp, &depth, &frame.pc, &frame.mask),
    )
}

/// The picked group's conditional branch (`r`: its entry in the re-convergence table).
/// Returns the state and whether it executed.
fn branch(
    p: &DwsParams,
    s: &State,
    sel: &Value,
    g: &Group,
    (a, r): (&Answer, &reconv_table::Reconv),
) -> (State, Value) {
    let w = Widths::of(p);
    let fall = &g.pc + &lit(&g.pc, 4, 32);
    let t = &a.taken & &g.mask;
    let f = &g.mask & &!&t;
    let zero = lit(&t, 0, p.warp_size);
    let div = &!&t.eq(&zero) & &!&f.eq(&zero);
    let divided = s.others_at(sel, &g.warp, &g.depth);
    let bl_wait = match p.reconv {
        Reconv::Bl => divided.clone(),
        _ => lit(sel, 0, 1),
    };
    let cs = s.can_split(p, &g.warp);
    let wst_wait = &(&(&!&bl_wait & &div) & &divided) & &!&cs;
    let executed = &!&bl_wait & &!&wst_wait;
    let waits = change(s, sel, &!&executed, |g| {
        g.with_status(status::WAIT).unslotted()
    });
    let branch_split = match p.branch_dws {
        true => &r.short & &cs,
        false => lit(sel, 0, 1),
    };
    let split = &(&executed & &div) & &(&divided | &branch_split);
    let push = &(&executed & &div) & &!&split;
    // A push: the entry becomes the re-convergence entry, unless it already
    // re-converges at the post-dominator with no group waiting below (then the paths
    // replace it).
    let st = stack_of(s, p, &g.warp);
    let below = &s.others_at(sel, &g.warp, &(&g.depth - &lit(&g.depth, 1, w.depth)))
        & &!&g.depth.eq(&lit(&g.depth, 0, w.depth));
    let replace = &st.frame(&g.depth).rpc.eq(&r.ipdom) & &!&below;
    let base = mux(&replace, &g.depth, &(&g.depth + &lit(&g.depth, 1, w.depth)));
    let at_rpc = Frame {
        pc: r.ipdom.clone(),
        ..st.frame(&g.depth)
    };
    let taken = Frame {
        pc: a.target.clone(),
        rpc: r.ipdom.clone(),
        mask: t.clone(),
    };
    let not_taken = Frame {
        pc: fall.clone(),
        rpc: r.ipdom.clone(),
        mask: f.clone(),
    };
    let grown = st
        .write(&!&replace, &g.depth, &at_rpc)
        .write(&push, &base, &taken)
        .write(&push, &(&base + &lit(&base, 1, w.depth)), &not_taken);
    let len = &base.zext(w.len) + &lit(&st.len, 2, w.len);
    let pushed = Stack { len, ..grown };
    let deep = pushed
        .len
        .gt(&lit(&pushed.len, p.stack_depth as u64, w.len));
    let mut s1 = put_stack(s, &push, &g.warp, &pushed);
    s1.overflow = &s1.overflow | &(&push & &deep);
    let new_depth = mux(&push, &(&base + &lit(&base, 1, w.depth)), &g.depth);
    let f_zero = f.eq(&zero);
    let s2 = change(&s1, sel, &executed, |x| Group {
        depth: new_depth.clone(),
        pc: mux(&f_zero, &a.target, &fall),
        mask: mux(&f_zero, &x.mask, &f),
        ..x.clone()
    });
    let s2 = match p.late_answers {
        true => s2,
        false => run_only(&s2, &(sel & &executed.repeat(sel.width()))),
    };
    let s2 = s2.append(&split, &new_group(p, &g.warp, &g.depth, &a.target, &t));
    (waits.pick(&executed, &s2), executed)
}

/// The picked group's memory instruction, PC-based merges (not with stack
/// re-convergence): the state with the merged groups removed and none running, the
/// merged group's threads and its satisfied ones.
fn merge(p: &DwsParams, s: &State, sel: &Value, g: &Group) -> (State, Value, Value) {
    let mergeable = match p.reconv {
        Reconv::Stack => lit(sel, 0, s.groups.len() as u32),
        _ => {
            s.bits(|r| {
                let same = &(&r.at(&g.warp, &g.depth) & &r.pc.eq(&g.pc)) & &r.is(status::READY);
                &same & &r.delay.eq(&lit(&r.delay, 0, DELAY_BITS))
            }) & !sel
        }
    };
    let masks: Vec<Value> = s.groups.iter().map(|r| r.mask.clone()).collect();
    let readys: Vec<Value> = s.groups.iter().map(|r| r.ready.clone()).collect();
    let mask = &g.mask | &onehot_mux(&mergeable, &masks);
    let ready = &g.ready | &onehot_mux(&mergeable, &readys);
    let one = lit(sel, 1, 1);
    let s1 = change(s, &mergeable, &one, Group::removed);
    (run_only(&s1, &lit(sel, 0, sel.width())), mask, ready)
}

/// The memory instruction of group `sel` (of `mask` threads, after its merge) was
/// accessed: it completes, waits for memory, or splits by the satisfied mask. Returns
/// the state and the threads that execute now.
fn accessed(
    p: &DwsParams,
    s: &State,
    sel: &Value,
    g: &Group,
    mask: &Value,
    a: &Answer,
) -> (State, Value) {
    let one = lit(sel, 1, 1);
    let zero = lit(mask, 0, p.warp_size);
    let sat = &a.satisfied & mask;
    let missing = mask & &!&sat;
    let all = missing.eq(&zero);
    let nothing = sat.eq(&zero);
    let others_ready = s.bits(|r| &r.is(status::READY) & &r.slotted) & !sel;
    let policy = match p.dws {
        SplitPolicy::Off => lit(sel, 0, 1),
        SplitPolicy::Aggress => one.clone(),
        SplitPolicy::Lazy | SplitPolicy::Revive => !&others_ready.or_r(),
    };
    let split = &(&(&!&all & &!&nothing) & &policy) & &s.can_split(p, &g.warp);
    let complete = &all | &split;
    let done = |x: &Group| Group {
        pc: &x.pc + &lit(&x.pc, 4, 32),
        mask: mux(&split, &sat, mask),
        delay: a.hit_delay.clone(),
        ready: zero.clone(),
        ..x.with_status(status::READY)
    };
    let suspended = |x: &Group| Group {
        mask: mask.clone(),
        ready: mux(&nothing, &zero, &sat),
        pending: missing.clone(),
        ..x.with_status(status::WAIT_MEM)
    };
    let s2 = change(s, sel, &complete, done);
    let s2 = change(&s2, sel, &!&complete, suspended);
    let behind = Group {
        pending: missing.clone(),
        ..new_group(p, &g.warp, &g.depth, &g.pc, &missing).with_status(status::WAIT_MEM)
    };
    let s2 = s2.append(&split, &behind);
    (s2, mux(&all, mask, &mux(&split, &sat, &zero)))
}

/// Late answers: group `sel`'s branch, jump or memory instruction (`merged`: its
/// merged threads and satisfied ones, on the state after `merge`) is sent; the group
/// awaits its answer (`answer_late`) and is switched out.
fn send(s: &State, sel: &Value, merged: Option<(&Value, &Value)>) -> State {
    let one = lit(sel, 1, 1);
    let sent = change(s, sel, &one, |x| {
        let (mask, ready) = merged.unwrap_or((&x.mask, &x.ready));
        Group {
            awaiting: one.clone(),
            mask: mask.clone(),
            ready: ready.clone(),
            ..x.clone()
        }
    });
    run_only(&sent, &lit(sel, 0, sel.width()))
}

/// Group `sel`'s instruction other than a branch or a memory access: it goes on at the
/// answer's next pc (running on, if `run`), or its threads end.
fn advance(p: &DwsParams, s: &State, sel: &Value, g: &Group, a: &Answer, run: bool) -> State {
    let next = change(s, sel, &a.next_valid, |x| Group {
        pc: a.next_pc.clone(),
        ..x.clone()
    });
    let next = match run {
        true => run_only(&next, sel),
        false => next,
    };
    exit(p, s, sel, g).pick(&a.next_valid, &next)
}

/// The late-answer ports: which instruction is answered (0 none, 1 a branch, 2 a memory
/// instruction, 3 an indirect jump) and its warp, whose one awaiting group sent it.
pub struct Late {
    pub kind: Value,
    pub warp: Value,
}

/// Late answers, at a cycle's start (before its fills): the answer to warp `l.warp`'s
/// awaiting group (`a`'s branch, memory or next-pc fields; a branch's table entry `r`,
/// looked up when it was sent), decided as in the issue cycle without them (a jump's
/// group does not run on). Returns the state (an error if no group of the warp awaits),
/// whether the branch executed, and the threads that execute the memory instruction.
pub fn answer_late(
    p: &DwsParams,
    s: &State,
    (l, a, r): (&Late, &Answer, &reconv_table::Reconv),
) -> (State, Value, Value) {
    let kind = |v: u64| l.kind.eq(&lit(&l.kind, v, 2));
    let n = s.groups.len() as u32;
    let some = !&kind(0);
    let sel = &s.bits(|g| &(&g.valid() & &g.awaiting) & &g.warp.eq(&l.warp)) & &some.repeat(n);
    let g = s.select(&sel);
    let cleared = change(s, &sel, &some, |x| Group {
        awaiting: lit(&x.awaiting, 0, 1),
        ..x.clone()
    });
    let (br, executed) = branch(p, &cleared, &sel, &g, (a, r));
    let (mem, run) = accessed(p, &cleared, &sel, &g, &g.mask, a);
    let jumped = advance(p, &cleared, &sel, &g, a, false);
    let mut out = cleared
        .pick(&kind(1), &br)
        .pick(&kind(2), &mem)
        .pick(&kind(3), &jumped);
    out.overflow = &out.overflow | &(&some & &!&sel.or_r());
    let zero = lit(&run, 0, p.warp_size);
    (out, &executed & &kind(1), mux(&kind(2), &run, &zero))
}

/// A stalled cycle: ReviveSplit splits the oldest group waiting for memory with both
/// arrived and pending threads, if its warp may split (at most one a cycle).
fn revive(p: &DwsParams, s: &State) -> State {
    if p.dws != SplitPolicy::Revive {
        return s.clone();
    }
    let zero = lit(&s.tail, 0, p.warp_size);
    let cand = s.bits(|c| {
        let partial = &!&c.pending.eq(&zero) & &!&c.pending.eq(&c.mask);
        &c.is(status::WAIT_MEM) & &partial
    });
    let sel = lowest_one(&cand);
    let c = s.select(&sel);
    let go = &cand.or_r() & &s.can_split(p, &c.warp);
    let arrived = &c.mask & &!&c.pending;
    let s1 = change(s, &sel, &go, |x| Group {
        mask: x.pending.clone(),
        ready: zero.clone(),
        ..x.clone()
    });
    // The arrived threads replay the access satisfied, or (no replay) have completed it
    // and go on past it.
    let ahead = match p.replay {
        true => Group {
            ready: arrived.clone(),
            ..new_group(p, &c.warp, &c.depth, &c.pc, &arrived)
        },
        false => new_group(
            p,
            &c.warp,
            &c.depth,
            &(&c.pc + &lit(&c.pc, 4, 32)),
            &arrived,
        ),
    };
    s1.append(&go, &ahead)
}

/// The cycle's action on `s` (after the start of the cycle), unless `busy`: the state
/// after it and what was decided (a branch's post-dominator from `table`).
pub fn act(
    p: &DwsParams,
    (s, last, busy): (&State, &Value, &Value),
    a: &Answer,
    table: &Table,
) -> (State, Decision) {
    let (sel, kept, slot) = pick(p, s, last);
    let found = &sel.or_r() & &!busy;
    let g = s.select(&sel);
    let entry = table.lookup(&g.pc);
    let st = stack_of(s, p, &g.warp);
    let at_rpc = g.pc.eq(&st.frame(&g.depth).rpc);
    // The running group goes on only while it can run.
    let s0 = match_running(s, &kept, busy);
    let control = &found & &at_rpc;
    let issue = &found & &!&at_rpc;
    let is_op = |v: u64| a.op.eq(&lit(&a.op, v, 2));
    let other = advance(p, &s0, &sel, &g, a, true);
    let (merged, mem_mask, mem_ready) = merge(p, &s0, &sel, &g);
    let (issued, executed, run) = match p.late_answers {
        false => {
            let (br, executed) = branch(p, &s0, &sel, &g, (a, &entry));
            let (mem, run) = accessed(p, &merged, &sel, &g, &mem_mask, a);
            (
                other.pick(&is_op(1), &br).pick(&is_op(2), &mem),
                executed,
                run,
            )
        }
        true => {
            let sent = send(&s0, &sel, None).pick(
                &is_op(2),
                &send(&merged, &sel, Some((&mem_mask, &mem_ready))),
            );
            let zero = lit(&mem_mask, 0, p.warp_size);
            (other.pick(&!&is_op(0), &sent), lit(&sel, 0, 1), zero)
        }
    };
    let stalled = revive(p, &s0);
    let stall = &!&sel.or_r() & &!busy;
    let out = s0
        .pick(&stall, &stalled)
        .pick(&control, &reconverge(p, &s0, &sel, &g))
        .pick(&issue, &issued);
    let rr = &found & &!&kept;
    let decision = Decision {
        issue: &sel & &issue.repeat(sel.width()),
        pick_valid: sel.or_r(),
        pick_at_rpc: at_rpc,
        picked: g,
        control,
        stall,
        executed,
        mem_mask,
        mem_ready,
        run,
        last_slot: mux(&rr, &slot, last),
        entry,
    };
    (out, decision)
}

/// `s` with no running group unless the running one can run (`kept`); unchanged while
/// `busy` (no pick is made).
fn match_running(s: &State, kept: &Value, busy: &Value) -> State {
    let keep = kept | busy;
    let groups = s
        .groups
        .iter()
        .map(|g| Group {
            running: &g.running & &keep,
            ..g.clone()
        })
        .collect();
    State {
        groups,
        ..s.clone()
    }
}
