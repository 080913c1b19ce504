//! The DWS sequencer (seed 001, spec section 3; docs/fgsimt-engine.md, "The sequencer
//! the RTL will mirror"): the registers of the group table (the WST's entries and each
//! undivided warp's group), the warps' re-convergence stacks and the round-robin
//! pointer, and one cycle of the golden model's `DwsControl` between them: `sync.rs`
//! (starts, fills, wakes, merges, slots), then `action.rs` (the pick and its outcome).
//!
//! The datapath answers an issued group in its issue cycle (`op` and the answer
//! inputs), as the golden model's `Machine` does; `busy` holds the issue stage (no
//! action). With `late_answers` a branch, an indirect jump (`op` 3) or a memory
//! instruction is only sent in its issue cycle (a memory instruction's merged group on
//! `mem_mask`/`mem_ready`) and its group awaits the answer: `ans` (1 a branch, 2 a
//! memory instruction, 3 a jump) names its warp (`ans_warp`) in a later cycle, with the
//! answer inputs, and `executed`/`run` say that cycle's decision (`action.rs`,
//! `answer_late`). The whole state is visible on trace ports (`g<i>_<field>`,
//! `s<k>_len`, `s<k>_f<d>_{pc,rpc,mask}`, `last_slot`) for the lockstep against the
//! model.

use super::action::{act, answer_late, Answer, Late};
use super::params::{DwsParams, DELAY_BITS};
use super::reconv_table::{reconv_table, Reconv};
use super::state::{group_fields, lit, Frame, Group, Stack, State, Widths};
use super::sync::{assign_slots, deadlock, fill_and_wake, start_warps, sync, Starts};
use hdl::helpers::{onehot_decode, onehot_mux, popcount_tree};
use hdl::ir::addr_width;
use hdl::{cat, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// Fields whose registers reset (control state): a free table, no slot, none running.
const RESET_FIELDS: [&str; 4] = ["status", "slotted", "running", "awaiting"];

/// `DwsSequencer`. Ports: in `start` (a bit a context), `start_pc`, `start_mask<k>`,
/// `fill<k>` (a context's threads whose data arrived), `busy`, the re-convergence
/// table's write ports (`tbl_*`, `reconv_table.rs`), and the answer (`op`:
/// 0 other, 1 branch, 2 memory, 3 a late jump; `next_valid`, `next_pc`; `taken`,
/// `target`; `satisfied`, `hit_delay`; with `late_answers`,
/// `ans`, `ans_warp`, and a jump's `ans_next_valid`, `ans_next_pc`); out `idle` (a bit a
/// context), `pick` (a group is picked, `busy` or not) and `pick_rpc` (it is at its
/// post-dominator: its action re-converges, it issues nothing), `issue` with
/// `issue_warp`, `issue_pc`, `issue_mask`, `issue_ready` (the pick's, `busy` or not),
/// `control`, `stall`, `executed`, `mem_mask`, `mem_ready`, `run`, `error` (held: a
/// deadlock, a stack or the table overflowed, a branch the re-convergence table lacks,
/// or an answer for a warp that awaits none), and the trace ports.
pub fn sequencer(p: &DwsParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("DwsSequencer");
    let w = Widths::of(p);
    let n = p.groups();
    let (regs, stacks) = state_registers(&mut m, p);
    let last = m.reg("last_slot", w.slot, 0u64);
    let error = m.reg("error_q", 1, false);
    let start = m.input("start", p.warps);
    let start_pc = m.input("start_pc", 32);
    let masks: Vec<Value> = (0..p.warps)
        .map(|k| m.input(&format!("start_mask{k}"), p.warp_size))
        .collect();
    let fills: Vec<Value> = (0..p.warps)
        .map(|k| m.input(&format!("fill{k}"), p.warp_size))
        .collect();
    let busy = m.input("busy", 1);
    let answer = Answer {
        op: m.input("op", 2),
        next_valid: m.input("next_valid", 1),
        next_pc: m.input("next_pc", 32),
        taken: m.input("taken", p.warp_size),
        target: m.input("target", 32),
        satisfied: m.input("satisfied", p.warp_size),
        hit_delay: m.input("hit_delay", DELAY_BITS),
    };

    // The table and one spare entry (a group appended while the table is full, before
    // a removal's compaction).
    let valid: Vec<Value> = regs.iter().rev().map(Group::valid).collect();
    let count = popcount_tree(&cat(&valid.iter().collect::<Vec<_>>()));
    let tw = addr_width(n as u64 + 2);
    let mut groups = regs.clone();
    groups.push(regs[0].removed());
    let s = State {
        groups,
        stacks: stacks.clone(),
        tail: count.zext(tw),
        overflow: lit(&start, 0, 1),
    };
    let starts = Starts {
        start: &start,
        pc: &start_pc,
        masks: &masks,
    };
    let s = start_warps(p, &s, &starts);
    let table = reconv_table(&mut m, p);
    // Late answers: each warp's sent branch's table entry, looked up at its issue.
    let sent = sent_entries(&mut m, p);
    let (s, late) = match p.late_answers {
        true => {
            let l = Late {
                kind: m.input("ans", 2),
                warp: m.input("ans_warp", w.warp),
            };
            // A jump's target on ports of its own: an instruction issued in the same
            // cycle answers on `next_valid`/`next_pc`.
            let a = Answer {
                next_valid: m.input("ans_next_valid", 1),
                next_pc: m.input("ans_next_pc", 32),
                ..answer.clone()
            };
            let sel = onehot_decode(&l.warp, p.warps);
            let entry = Reconv {
                hit: lit(&sel, 1, 1),
                ipdom: onehot_mux(&sel, &sent.iter().map(|e| e.0.clone()).collect::<Vec<_>>()),
                short: onehot_mux(&sel, &sent.iter().map(|e| e.1.clone()).collect::<Vec<_>>()),
            };
            let (s, executed, run) = answer_late(p, &s, (&l, &a, &entry));
            (s, Some((executed, run)))
        }
        false => (s, None),
    };
    let s = sync(p, &fill_and_wake(p, &s, &fills));
    let stuck = deadlock(&s);
    let s = assign_slots(p, &s);
    let (s, d) = act(p, (&s, &last, &busy), &answer, &table);
    // A branch issues: with late answers its entry is kept for the answer; a branch
    // the table lacks is an error.
    let branch = &d.issue.or_r() & &answer.op.eq(&lit(&answer.op, 1, 2));
    let unknown = &branch & &!&d.entry.hit;
    for (k, (ipdom, short)) in sent.iter().enumerate() {
        let mine = &branch & &d.picked.warp.eq(&lit(&d.picked.warp, k as u64, w.warp));
        m.when(&mine, |m| {
            m.connect(ipdom, &d.entry.ipdom);
            m.connect(short, &d.entry.short);
        });
    }
    let (executed, run) = late.unwrap_or((d.executed, d.run));
    let (next, overflow) = s.compact(n as usize);
    for (r, v) in regs.iter().zip(&next) {
        for (a, b) in r.fields().iter().zip(v.fields()) {
            m.connect(a, b);
        }
    }
    for (r, v) in stacks.iter().zip(&s.stacks) {
        m.connect(&r.len, &v.len);
        for (a, b) in r.frames.iter().zip(&v.frames) {
            m.connect(&a.pc, &b.pc);
            m.connect(&a.rpc, &b.rpc);
            m.connect(&a.mask, &b.mask);
        }
    }
    m.connect(&last, &d.last_slot);
    m.connect(&error, &(&(&(&error | &stuck) | &overflow) | &unknown));
    let idle: Vec<Value> = stacks
        .iter()
        .rev()
        .map(|st| st.len.eq(&lit(&st.len, 0, w.len)))
        .collect();
    let outputs = [
        ("idle", cat(&idle.iter().collect::<Vec<_>>())),
        ("issue", d.issue.or_r()),
        ("pick", d.pick_valid.clone()),
        ("pick_rpc", d.pick_at_rpc.clone()),
        ("issue_warp", d.picked.warp.clone()),
        ("issue_pc", d.picked.pc.clone()),
        ("issue_mask", d.picked.mask.clone()),
        ("issue_ready", d.picked.ready.clone()),
        ("control", d.control),
        ("stall", d.stall),
        ("executed", executed),
        ("mem_mask", d.mem_mask),
        ("mem_ready", d.mem_ready),
        ("run", run),
        ("error", error.clone()),
        ("last_slot", last.clone()),
    ];
    for (name, v) in outputs {
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    trace_ports(&mut m, p, &regs, &stacks);
    m.finish()
}

/// Late answers: a register a warp holding its sent branch's table entry (none
/// without late answers: the entry is looked up in the issue cycle).
fn sent_entries(m: &mut ModuleBuilder, p: &DwsParams) -> Vec<(Value, Value)> {
    if !p.late_answers {
        return Vec::new();
    }
    (0..p.warps)
        .map(|k| {
            (
                m.reg(&format!("sent{k}_ipdom"), 32, ResetValue::None),
                m.reg(&format!("sent{k}_short"), 1, ResetValue::None),
            )
        })
        .collect()
}

/// The group table's registers (control fields reset: a free table) and the stacks'
/// (lengths reset: every context idle).
fn state_registers(m: &mut ModuleBuilder, p: &DwsParams) -> (Vec<Group>, Vec<Stack>) {
    let w = Widths::of(p);
    let fields = group_fields(p);
    let regs = (0..p.groups())
        .map(|i| {
            let f: Vec<Value> = fields
                .iter()
                .map(|&(name, width)| {
                    let reset = match RESET_FIELDS.contains(&name) {
                        true => ResetValue::from(0u64),
                        false => ResetValue::None,
                    };
                    m.reg(&format!("g{i}_{name}"), width, reset)
                })
                .collect();
            Group::from_fields(&f)
        })
        .collect();
    let stacks = (0..p.warps)
        .map(|k| Stack {
            len: m.reg(&format!("s{k}_len"), w.len, 0u64),
            frames: (0..p.stack_depth)
                .map(|d| {
                    let mut r =
                        |f: &str, width| m.reg(&format!("s{k}_f{d}_{f}"), width, ResetValue::None);
                    Frame {
                        pc: r("pc", 32),
                        rpc: r("rpc", 32),
                        mask: r("mask", p.warp_size),
                    }
                })
                .collect(),
        })
        .collect();
    (regs, stacks)
}

/// The state's trace ports: `g<i>_<field>`, `s<k>_len`, `s<k>_f<d>_{pc,rpc,mask}`.
fn trace_ports(m: &mut ModuleBuilder, p: &DwsParams, regs: &[Group], stacks: &[Stack]) {
    let mut ports: Vec<(String, &Value)> = Vec::new();
    for (i, g) in regs.iter().enumerate() {
        for ((name, _), v) in group_fields(p).iter().zip(g.fields()) {
            ports.push((format!("g{i}_{name}"), v));
        }
    }
    for (k, st) in stacks.iter().enumerate() {
        ports.push((format!("s{k}_len"), &st.len));
        for (d, f) in st.frames.iter().enumerate() {
            for (name, v) in [("pc", &f.pc), ("rpc", &f.rpc), ("mask", &f.mask)] {
                ports.push((format!("s{k}_f{d}_{name}"), v));
            }
        }
    }
    for (name, v) in ports {
        let o = m.output(&name, v.width());
        m.connect(&o, v);
    }
}
