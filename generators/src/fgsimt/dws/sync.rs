//! The start of a DWS sequencer cycle (seed 001, spec section 3 "each cycle", steps 1-5;
//! the golden model's `DwsControl::begin_cycle` and `sync` in `dws/reconv.rs`): warps
//! start, fills clear pending threads, groups whose data is all in wake, each warp whose
//! groups at the top of its stack all wait merges them or gives the oldest waiting at a
//! branch a frame of its own (warp by warp, in order), and free scheduler slots go to
//! the oldest groups.

use super::params::{DwsParams, Reconv, DELAY_BITS};
use super::state::{any, lit, status, Frame, Group, State, Widths};
use hdl::helpers::{lowest_one, onehot_decode, onehot_mux, prefix_counts};
use hdl::{cat, mux, Value};

/// The warps starting this cycle: a bit a context, their entry pc and each one's threads.
pub struct Starts<'a> {
    pub start: &'a Value,
    pub pc: &'a Value,
    pub masks: &'a [Value],
}

/// Warps start in idle contexts: a one-frame stack (re-converging at the exit, pc 0)
/// and one ready group each, appended in context order.
pub fn start_warps(p: &DwsParams, s: &State, starts: &Starts) -> State {
    let w = Widths::of(p);
    let mut out = s.clone();
    for k in 0..p.warps {
        let on = starts.start.bit(k);
        let mask = &starts.masks[k as usize];
        let zero_w = lit(mask, 0, p.warp_size);
        let frame = Frame {
            pc: starts.pc.clone(),
            rpc: lit(starts.pc, 0, 32),
            mask: mask.clone(),
        };
        let stack = &out.stacks[k as usize];
        let one = lit(&stack.len, 1, w.len);
        let mut started = stack.write(&on, &lit(&stack.len, 0, w.depth), &frame);
        started.len = mux(&on, &one, &stack.len);
        out.stacks[k as usize] = started;
        let g = Group {
            status: lit(&on, status::READY, 2),
            warp: lit(&on, k as u64, w.warp),
            depth: lit(&on, 0, w.depth),
            pc: starts.pc.clone(),
            mask: mask.clone(),
            delay: lit(&on, 0, DELAY_BITS),
            ready: zero_w.clone(),
            pending: zero_w,
            slotted: lit(&on, 0, 1),
            slot: lit(&on, 0, w.slot),
            running: lit(&on, 0, 1),
            awaiting: lit(&on, 0, 1),
        };
        out = out.append(&on, &g);
    }
    out
}

/// Fills (`fills`, a mask a context) clear their groups' pending threads; a group
/// waiting for memory with none pending becomes ready, every thread satisfied (it
/// replays its access), or without `replay` at the next instruction.
pub fn fill_and_wake(p: &DwsParams, s: &State, fills: &[Value]) -> State {
    let groups = s
        .groups
        .iter()
        .map(|g| {
            let fill = onehot_mux(&onehot_decode(&g.warp, p.warps), fills);
            let pending = &g.pending & &!&fill;
            let g = Group {
                pending: pending.clone(),
                ..g.clone()
            };
            let wake = &g.is(status::WAIT_MEM) & &pending.eq(&lit(&pending, 0, p.warp_size));
            // It replays its access, every thread satisfied, or goes on past it.
            let woken = match p.replay {
                true => Group {
                    ready: g.mask.clone(),
                    ..g.ready_now()
                },
                false => Group {
                    pc: &g.pc + &lit(&g.pc, 4, 32),
                    ready: lit(&g.mask, 0, p.warp_size),
                    ..g.ready_now()
                },
            };
            g.pick(&wake, &woken)
        })
        .collect();
    State {
        groups,
        ..s.clone()
    }
}

/// Warp `k`'s merge or re-convergence once all its groups at the top of its stack wait:
/// all at one pc merge into the oldest; else the oldest not at the post-dominator gets
/// a frame of its own. While some do not wait, those waiting at a branch retry when a
/// WST entry is free (not with BL).
fn sync_warp(p: &DwsParams, s: &State, k: u32) -> State {
    let w = Widths::of(p);
    let stack = &s.stacks[k as usize];
    let live = !&stack.len.eq(&lit(&stack.len, 0, w.len));
    let top = stack.top(&w);
    let rpc = stack.frame(&top).rpc;
    let warp = lit(&top, k as u64, w.warp);
    let at_top: Vec<Value> = s
        .groups
        .iter()
        .map(|g| &live & &g.at(&warp, &top))
        .collect();
    let at_top_v = s.bits(|g| &live & &g.at(&warp, &top));
    let some = at_top_v.or_r();
    let running: Vec<Value> = s
        .groups
        .iter()
        .zip(&at_top)
        .map(|(g, a)| a & &!&g.is(status::WAIT))
        .collect();
    let all_wait = &some & &!&any(&running);
    // Retries (some group at the top does not wait).
    let retry_ok = match p.reconv {
        Reconv::Bl => lit(&top, 0, 1),
        _ => s.wst_used(p).lt(&lit(&top, p.wst_entries as u64, 8)),
    };
    let retry = &(&some & &!&all_wait) & &retry_ok;
    // All wait: the oldest, and whether every one is at its pc.
    let oldest = lowest_one(&at_top_v);
    let pc0 = s.select(&oldest).pc;
    let differ: Vec<Value> = s
        .groups
        .iter()
        .zip(&at_top)
        .map(|(g, a)| a & &!&g.pc.eq(&pc0))
        .collect();
    let merge = &all_wait & &!&any(&differ);
    let masks: Vec<Value> = s.groups.iter().map(|g| g.mask.clone()).collect();
    let merged_mask = onehot_mux(&at_top_v, &masks);
    // Not one pc: the oldest not at the post-dominator takes a frame.
    let away: Vec<Value> = s
        .groups
        .iter()
        .zip(&at_top)
        .map(|(g, a)| a & &!&g.pc.eq(&rpc))
        .collect();
    let own = lowest_one(&cat(&away.iter().rev().collect::<Vec<_>>()));
    let frame_it = &all_wait & &!&merge;
    let groups = s
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let i = i as u32;
            let retried =
                &(&retry & &at_top[i as usize]) & &(&g.is(status::WAIT) & &!&g.pc.eq(&rpc));
            let g1 = g.pick(&retried, &g.ready_now());
            let first = &merge & &oldest.bit(i);
            let into = Group {
                mask: merged_mask.clone(),
                ..g.ready_now()
            };
            let gone = &(&merge & &at_top[i as usize]) & &!&oldest.bit(i);
            let g2 = g1.pick(&first, &into).pick(&gone, &g.removed());
            let framed = &frame_it & &own.bit(i);
            let deeper = Group {
                depth: &g.depth + &lit(&g.depth, 1, w.depth),
                ..g.ready_now()
            };
            g2.pick(&framed, &deeper)
        })
        .collect();
    let framed = s.select(&own);
    let frame = Frame {
        pc: framed.pc,
        rpc: rpc.clone(),
        mask: framed.mask,
    };
    let full = stack.len.eq(&lit(&stack.len, p.stack_depth as u64, w.len));
    let at = stack.len.slice(w.depth - 1, 0);
    let mut pushed = stack.write(&frame_it, &at, &frame);
    pushed.len = mux(
        &frame_it,
        &(&stack.len + &lit(&stack.len, 1, w.len)),
        &stack.len,
    );
    let mut stacks = s.stacks.clone();
    stacks[k as usize] = pushed;
    State {
        groups,
        stacks,
        tail: s.tail.clone(),
        overflow: &s.overflow | &(&frame_it & &full),
    }
}

/// Every warp's [`sync_warp`], in parallel: each sees the cycle's state at the start
/// of the syncs (their WST use), changes only its own groups and stack, and each group
/// takes its warp's result.
pub fn sync(p: &DwsParams, s: &State) -> State {
    let each: Vec<State> = (0..p.warps).map(|k| sync_warp(p, s, k)).collect();
    let groups = s
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let sel = onehot_decode(&g.warp, p.warps);
            let fields: Vec<Value> = (0..g.fields().len())
                .map(|f| {
                    let vs: Vec<Value> = each
                        .iter()
                        .map(|e| e.groups[i].fields()[f].clone())
                        .collect();
                    onehot_mux(&sel, &vs)
                })
                .collect();
            Group::from_fields(&fields)
        })
        .collect();
    State {
        groups,
        stacks: each
            .iter()
            .enumerate()
            .map(|(k, e)| e.stacks[k].clone())
            .collect(),
        tail: s.tail.clone(),
        overflow: any(&each.iter().map(|e| e.overflow.clone()).collect::<Vec<_>>()),
    }
}

/// Whether no group can run, wait for memory or merge (a deadlock: a bug).
pub fn deadlock(s: &State) -> Value {
    let live: Vec<Value> = s.groups.iter().map(Group::valid).collect();
    let going: Vec<Value> = s
        .groups
        .iter()
        .map(|g| &g.is(status::READY) | &g.is(status::WAIT_MEM))
        .collect();
    &any(&live) & &!&any(&going)
}

/// Free slots go to the unslotted groups that do not wait, oldest first: the k-th such
/// group takes the k-th free slot (the lowest first).
pub fn assign_slots(p: &DwsParams, s: &State) -> State {
    let w = Widths::of(p);
    let n = p.slot_count();
    let taken: Vec<Value> = (0..n)
        .map(|k| {
            let held: Vec<Value> = s
                .groups
                .iter()
                .map(|g| &(&g.valid() & &g.slotted) & &g.slot.eq(&lit(&g.slot, k as u64, w.slot)))
                .collect();
            any(&held)
        })
        .collect();
    let free: Vec<Value> = taken.iter().map(|t| !t).collect();
    let rw = hdl::ir::addr_width(s.groups.len() as u64 + 1).max(hdl::ir::addr_width(n as u64 + 1));
    // The rank of each free slot among the free ones, and of each group among those
    // that want one.
    let free_rank = prefix_counts(&free, rw);
    let wants: Vec<Value> = s
        .groups
        .iter()
        .map(|g| &(&g.valid() & &!&g.slotted) & &!&g.is(status::WAIT))
        .collect();
    let rank = prefix_counts(&wants, rw);
    let groups = s
        .groups
        .iter()
        .zip(wants.iter().zip(&rank))
        .map(|(g, (wants, rank))| {
            let hits: Vec<Value> = (0..n as usize)
                .map(|k| &free[k] & &free_rank[k].eq(rank))
                .collect();
            let hit = cat(&hits.iter().rev().collect::<Vec<_>>());
            let gets = wants & &hit.or_r();
            let slots: Vec<Value> = (0..n).map(|k| lit(&g.slot, k as u64, w.slot)).collect();
            let slotted = Group {
                slotted: lit(&g.slotted, 1, 1),
                slot: onehot_mux(&hit, &slots),
                ..g.clone()
            };
            g.pick(&gets, &slotted)
        })
        .collect();
    State {
        groups,
        ..s.clone()
    }
}
