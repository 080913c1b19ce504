//! The front end's warp contexts (`warps` > 1; seed 001, Table 3's baseline: several
//! warps resident, the scheduler switching warp on a D-cache access at no cost;
//! docs/fgsimt-engine.md, "Multithreading"): an AWFR/PWFB (`pwfb.rs`) per context, the
//! current context the fetch unit serves, and its pick.
//!
//! The bank has the PWFB's ports: `start` goes to context `start_ctx`, the update ports
//! to the current one (`ctx`), and the AWFR's outputs are the current context's. A
//! context is *ready* while it holds a warp (`running`) and its AWFR has settled, and
//! *eligible* while ready and waiting for no load: a load-like instruction (loads, LR,
//! SC, AMOs: their data return through the SLWQ) accepted by the SIU (`load_sent`)
//! suspends its context until a writeback of that context starts (`load_done` of
//! context `load_ctx`), as the paper's warp waits for its access. When every ready
//! context waits, every ready one is eligible (their consumers wait in the SIU's
//! scoreboard, as one context's do): kmeans ran 14 % faster at 4 contexts on the test
//! tile than with the front end idle then. While `leave` (a load-like instruction
//! leaves decode, or the fetch unit is between instructions and its context cannot
//! fetch or its load found no other to switch to), the current context becomes the next
//! eligible one in round-robin order after it (itself only when no other is eligible).
//! `peek_pc` and `peek_other` say where a load's switch goes, the current context
//! counted as waiting: the front end prefetches that pc as the load arrives in decode,
//! and the switch in the load's cycle is then free (docs/fgsimt-engine.md,
//! "Multithreading").

use super::pwfb::pwfb;
use hdl::helpers::{onehot_mux, priority_encode};
use hdl::{cat, mux, Bits, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// The PWFB's outputs the bank multiplexes by the current context.
const OUTPUTS: [&str; 5] = [
    "awfr_valid",
    "done",
    "awfr_pc_out",
    "awfr_mask_out",
    "pending",
];

/// The PWFB's update inputs the bank passes to the current context, and their widths
/// (0: a warp's mask).
const UPDATES: [(&str, u32); 6] = [
    ("update", 1),
    ("upd_pc", 32),
    ("upd_exit_mask", 0),
    ("upd_push", 1),
    ("upd_push_pc", 32),
    ("upd_push_mask", 0),
];

/// `warps` contexts of warps of `warp_size` threads. Ports: the PWFB's (`start`,
/// `start_pc`, `start_mask`, `update`, `upd_*` in; `awfr_valid`, `done`,
/// `awfr_pc_out`, `awfr_mask_out`, `pending` out, the current context's), and
/// `start_ctx`, `running`, `leave`, `load_sent`, `load_done`, `load_ctx` in; `ctx` (the
/// current context), `eligible` (it may fetch), `dones` (a bit a context: it holds
/// a warp whose fragments have all finished), `peek_other` and `peek_pc` out.
pub fn contexts(warps: u32, warp_size: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtContexts");
    let cb = warps.trailing_zeros();
    let pw = pwfb(warp_size)?;
    let banks: Vec<hdl::Inst> = (0..warps)
        .map(|k| m.instance(&format!("pwfb{k}"), &pw))
        .collect();
    let start = m.input("start", 1);
    let start_ctx = m.input("start_ctx", cb);
    let start_pc = m.input("start_pc", 32);
    let start_mask = m.input("start_mask", warp_size);
    let running = m.input("running", warps);
    let leave = m.input("leave", 1);
    let load_sent = m.input("load_sent", 1);
    let load_done = m.input("load_done", 1);
    let load_ctx = m.input("load_ctx", cb);
    let cur = m.reg("ctx_r", cb, 0u64);
    let mine = |c: &Value, k: usize| c.eq(&lit(c, k as u64, cb));
    let updates: Vec<(&str, Value)> = UPDATES
        .iter()
        .map(|&(name, w)| (name, m.input(name, if w == 0 { warp_size } else { w })))
        .collect();
    for (k, b) in banks.iter().enumerate() {
        m.connect(&b.port("start"), &(&start & &mine(&start_ctx, k)));
        m.connect(&b.port("start_pc"), &start_pc);
        m.connect(&b.port("start_mask"), &start_mask);
        for (name, v) in &updates {
            let v = if *name == "update" {
                v & &mine(&cur, k)
            } else {
                v.clone()
            };
            m.connect(&b.port(name), &v);
        }
    }
    let sel = hdl::helpers::onehot_decode(&cur, warps);
    for name in OUTPUTS {
        let values: Vec<Value> = banks.iter().map(|b| b.port(name)).collect();
        let out = m.output(name, values[0].width());
        m.connect(&out, &onehot_mux(&sel, &values));
    }
    let bit = |name: &str| {
        let bits: Vec<Value> = banks.iter().rev().map(|b| b.port(name)).collect();
        cat(&bits.iter().collect::<Vec<_>>())
    };
    // Suspended by a load until its writeback starts (at most one a context: it is
    // suspended as the load is sent).
    let waiting = m.reg("waiting", warps, 0u64);
    let sent = &sel & &load_sent.repeat(warps);
    let done = &hdl::helpers::onehot_decode(&load_ctx, warps) & &load_done.repeat(warps);
    m.connect(&waiting, &(&(&waiting & &!&done) | &sent));
    let ready = &running & &bit("awfr_valid");
    let free = &ready & &!&waiting;
    // When every ready context waits for a load, they all may fetch (the scoreboard
    // holds their consumers), as one context alone does.
    let eligible = mux(&free.or_r(), &free, &ready);
    let next = round_robin(&cur, &eligible);
    // The next context once the current one waits for a load: fetched ahead while its
    // load is in decode, switched to as the load is sent (`peek_*`).
    let free_after = &free & &!&sel;
    let eligible_after = mux(&free_after.or_r(), &free_after, &ready);
    let peek = round_robin(&cur, &eligible_after);
    let other = &eligible_after.or_r() & &peek.ne(&cur);
    let pcs: Vec<Value> = banks.iter().map(|b| b.port("awfr_pc_out")).collect();
    let peek_pc = onehot_mux(&hdl::helpers::onehot_decode(&peek, warps), &pcs);
    let to = mux(&load_sent, &peek, &next);
    let switch = &leave & &mux(&load_sent, &other, &eligible.or_r());
    m.when(&switch, |m| m.connect(&cur, &to));
    for (name, v) in [
        ("ctx", cur.clone()),
        ("eligible", eligible.dshr(&cur).bit(0)),
        ("dones", &running & &bit("done")),
        ("peek_other", other),
        ("peek_pc", peek_pc),
    ] {
        let out = m.output(name, v.width());
        m.connect(&out, &v);
    }
    m.finish()
}

/// Round robin: the first context set in `eligible` after `cur` (`cur` itself last;
/// meaningless when none is).
fn round_robin(cur: &Value, eligible: &Value) -> Value {
    let (cb, warps) = (cur.width(), eligible.width());
    let twice = cat(&[eligible, eligible]);
    let after = &cur.zext(cb + 1) + &lit(cur, 1, cb + 1);
    let order = twice.dshr(&after).slice(warps - 1, 0);
    (&after + &priority_encode(&order).zext(cb + 1)).slice(cb - 1, 0)
}
