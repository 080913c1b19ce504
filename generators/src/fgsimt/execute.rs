//! The engine's execute side, integer baseline (seed 000, section 1.5 and Figure 3: the
//! SIU and the lanes; docs/fgsimt-engine.md, "SIU", "Lanes" and "Interfaces"):
//! `FgsimtExecute` joins the SIU (`siu.rs`) and `lanes` lanes (`lane/lane.rs`), and
//! gathers what the front end and the SMU see:
//! - `branch`: a conditional branch's taken mask, valid in the execute cycle of its last
//!   slot (every slot's compares, thread c * lanes + l at bit c * lanes + l);
//! - `jump`: a `jalr`'s lowest active thread's target and whether every active thread's
//!   agrees, the cycle after (its link is written as an ALU result);
//! - `fault`: the first fault, held: a misaligned access (the lowest misaligned active
//!   thread of the first slot that has one; its access is not sent) or an instruction
//!   the SIU refuses (its lowest active thread; as the ISS traps: `ecall` and `ebreak`
//!   with their own causes, the others illegal with `tval` the instruction);
//! - `mem` (`bundles::mem_slot`): a memory instruction's slot a cycle, in its execute
//!   cycles; `load`: the SMU's load data, one slot popped a cycle by the SLU;
//! - `wtrace`: every SRF write (lane, write port SAU0/SAU1/SLU) for the lockstep bench;
//! - `idle`: nothing queued, executing or waiting for load data.
//!
//! `warp_start` (with the kernel state: `stack_top`, `stack_bytes`, `gp`, `tp` and the
//! warp's `tid_base`; with `warps` > 1, `start_ctx`) clears the context's SRF written
//! bits and latches the initial values: thread i's sp is `stack_top - (tid_base + i) *
//! stack_bytes`. `ctx_idle` (a bit a context: nothing of it queued or executing) lets
//! the kernel state start a context's next warp; with `warps` > 1, `load_done` and
//! `load_ctx` say a load's writeback starts (its context may fetch again); with the DWS
//! sequencer, `load_done` and `load_mask` (its threads: their fills).

use super::bundles::{self, cause};
use super::lane::lane::{lane, lane_bits, sp0_port, WRITE_PORTS};
use super::params::{Affine, FgsimtParams};
use super::siu::siu;
use super::stack_check::{stack_check, WarpStacks};
use hdl::helpers::{lowest_one, onehot_mux, priority_encode};
use hdl::{cat, mux, Bits, Dir, HdlErrors, Inst, Module, ModuleBuilder, Value};
use std::rc::Rc;

fn k(like: &Value, value: u64, width: u32) -> Value {
    like.konst(Bits::from_u64(width, value))
}

/// The index of `v`'s lowest set bit, 32 bits (0 for a 1-bit `v`).
fn lowest_index(v: &Value) -> Value {
    if v.width() == 1 {
        k(v, 0, 32)
    } else {
        priority_encode(v).zext(32)
    }
}

pub fn execute(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtExecute");
    let (l_n, w) = (p.lanes, p.warp_size);
    let inst = m.io("inst", Dir::In, &bundles::warp_inst(p));
    let su = m.instance("siu", &siu(p)?);
    m.connect_bundle(&su.io("inst"), &inst);
    let init = warp_state(&mut m, p);
    let lane_mod = lane(p)?;
    let lanes: Vec<Inst> = (0..l_n)
        .map(|l| m.instance(&format!("lane{l}"), &lane_mod))
        .collect();
    let passes = p.hit_masks().then_some(w);
    let load = m.io("load", Dir::In, &bundles::load_data(l_n, passes));
    let trace = m.io(
        "wtrace",
        Dir::Out,
        &bundles::wtrace(p.lanes, p.threads_per_lane(), p.reg_bits()),
    );
    for (l, li) in lanes.iter().enumerate() {
        m.connect(&li.port("lane"), &k(&init.gp, l as u64, lane_bits(p)));
        for (port, v) in [
            ("warp_start", &init.start),
            ("sp_bytes", &init.bytes),
            ("gp", &init.gp),
            ("tp", &init.tp),
        ] {
            m.connect(&li.port(port), v);
        }
        for (c, sp0) in init.sp0.iter().enumerate() {
            m.connect(&li.port(&sp0_port(p, c as u32)), sp0);
        }
        for uop in [
            "sau0_r", "sau0_x", "sau1_r", "sau1_x", "mem_r", "mem_x", "slu_x",
        ] {
            m.connect_bundle(&li.io(uop), &su.io(uop));
        }
        m.connect(&li.port("load_data"), load.get("data").index(l).value());
        for (i, _) in WRITE_PORTS.iter().enumerate() {
            m.connect_bundle(trace.index(l).index(i), &li.io(&format!("w{i}")));
        }
    }
    m.connect(&su.port("load_ready"), load.get("ready").value());
    m.connect(load.get("pop").value(), &su.port("pop"));
    if passes.is_some() {
        for name in ["pass", "fill", "whole", "first"] {
            m.connect(&su.port(&format!("load_{name}")), load.get(name).value());
        }
        m.connect(load.get("take").value(), &su.port("load_take"));
    }
    let space = m.input("space", 1);
    m.connect(&su.port("space"), &space);
    let stacks = p
        .avc
        .then(|| (init.top.clone(), m.input("stack_region", 32)));
    if let (Some((top, region)), Affine::Abm) = (&stacks, p.affine) {
        m.connect(&su.port("stack_top"), top);
        m.connect(&su.port("stack_region"), region);
    }
    let stacks = stacks.as_ref().map(|(top, region)| WarpStacks {
        start: &init.start,
        sp0: &init.sp0,
        bytes: &init.bytes,
        top,
        region,
    });
    let misaligned = memory_slots(&mut m, p, &su, &lanes, stacks.as_ref());
    let (taken, jumped) = control_results(&mut m, p, &su, &lanes);
    let branch = m.io("branch", Dir::Out, &bundles::branch_result(w));
    m.connect(branch.valid(), &taken.0);
    m.connect(branch.bits().get("taken").value(), &taken.1);
    let jump = m.io("jump", Dir::Out, &bundles::jump_result());
    m.connect(jump.valid(), &jumped.0);
    m.connect(jump.bits().get("target").value(), &jumped.1);
    m.connect(jump.bits().get("agree").value(), &jumped.2);
    let stop = fault(&mut m, p, &su, &misaligned);
    m.connect(&su.port("stop"), &stop);
    let idle = m.output("idle", 1);
    m.connect(&idle, &su.port("idle"));
    let mut outputs = vec!["ctx_idle"];
    outputs.extend(load_ports(p));
    for name in outputs {
        let v = su.port(name);
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    if p.affine == Affine::Abm {
        let aload = m.io("aload", Dir::Out, &bundles::affine_load(w));
        m.connect_bundle(&aload, &su.io("aload"));
    }
    m.finish()
}

/// The warps' initial register values, latched at `warp_start` (of context
/// `start_ctx` with `warps` > 1).
struct WarpInit {
    /// A bit a context: its warp starts.
    start: Value,
    /// Each context's warp's thread 0's sp.
    sp0: Vec<Value>,
    bytes: Value,
    gp: Value,
    tp: Value,
    /// The `stack_top` input.
    top: Value,
}

/// The `warp_start` inputs (with `start_ctx` when `warps` > 1) and [`WarpInit`]'s
/// registers.
fn warp_state(m: &mut ModuleBuilder, p: &FgsimtParams) -> WarpInit {
    let start = m.input("warp_start", 1);
    let names = ["stack_top", "stack_bytes", "gp", "tp", "tid_base"];
    let v: Vec<Value> = names.iter().map(|n| m.input(n, 32)).collect();
    let starts = match p.warps {
        1 => start.clone(),
        n => {
            let ctx = m.input("start_ctx", p.ctx_bits());
            &hdl::helpers::onehot_decode(&ctx, n) & &start.repeat(n)
        }
    };
    let mut latch = |name: &str, en: &Value, value: &Value| {
        let r = m.reg_en(&format!("warp_{name}"), 32, 0u64, en);
        m.connect(&r, value);
        r
    };
    let sp0 = &v[0] - &v[4].mul(&v[1]).slice(31, 0);
    let sp0s = (0..p.warps)
        .map(|k| match p.warps {
            1 => latch("sp0", &start, &sp0),
            _ => latch(&format!("sp0_{k}"), &starts.bit(k), &sp0),
        })
        .collect();
    WarpInit {
        bytes: latch("sp_bytes", &start, &v[1]),
        gp: latch("gp", &start, &v[2]),
        tp: latch("tp", &start, &v[3]),
        start: starts,
        sp0: sp0s,
        top: v[0].clone(),
    }
}

/// Drives `mem` from the lanes' memory slots; returns the slot's faulting lanes (with
/// `avc`, `stacks`: misaligned or breaking the private-stack rule, `stack_check.rs`).
fn memory_slots(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    su: &Inst,
    lanes: &[Inst],
    stacks: Option<&WarpStacks>,
) -> Misaligned {
    let mem = m.io("mem", Dir::Out, &bundles::mem_slot(p.lanes, p.avc));
    let info = su.io("mem_info");
    let valid = info.get("valid").value().clone();
    let lane_bit = |name: &str| {
        let bits: Vec<Value> = lanes.iter().rev().map(|l| l.port(name)).collect();
        cat(&bits.iter().collect::<Vec<_>>())
    };
    let active = lane_bit("mem_active");
    let slot = su.io("mem_x").get("slot").value().clone();
    let addrs: Vec<Value> = lanes.iter().map(|li| li.port("mem_addr")).collect();
    let on = valid.repeat(p.lanes);
    let misaligned = &(&active & &lane_bit("mem_misaligned")) & &on;
    let opv = info.get("op").value();
    let ctx = (super::siu::mem_ctx_bits(p) > 0).then(|| info.get("ctx").value().clone());
    let check = stacks.map(|s| stack_check(m, p, s, (&slot, opv, &active, ctx.as_ref()), &addrs));
    let bad = match &check {
        Some(c) => &misaligned | &(&c.violation & &on),
        None => misaligned.clone(),
    };
    let misaligned = check.is_some().then_some(misaligned);
    m.connect(mem.valid(), &valid);
    let bits = mem.bits();
    m.connect(bits.get("op").value(), opv);
    m.connect(bits.get("size").value(), su.io("mem_x").get("size").value());
    m.connect(bits.get("last").value(), info.get("last").value());
    m.connect(bits.get("active").value(), &(&active & &!&bad));
    if let Some(c) = &check {
        m.connect(bits.get("private").value(), &(&c.private & &!&bad));
        m.connect(bits.get("tid_base").value(), info.get("tid_base").value());
    }
    for (l, li) in lanes.iter().enumerate() {
        let lane = bits.get("lane").index(l);
        let addr = match &check {
            Some(c) => mux(&c.private.bit(l as u32), &c.offsets[l], &addrs[l]),
            None => addrs[l].clone(),
        };
        m.connect(lane.get("addr").value(), &addr);
        m.connect(lane.get("data").value(), &li.port("mem_data"));
        m.connect(lane.get("mask").value(), &li.port("mem_bmask"));
    }
    Misaligned {
        bad,
        misaligned,
        slot,
        addrs,
    }
}

/// The faulting active threads of the memory slot executing: misaligned, or (with
/// `avc`) breaking the private-stack rule.
struct Misaligned {
    /// One bit per lane.
    bad: Value,
    /// With `avc`: of which misaligned (their cause comes first; the others break the
    /// private-stack rule).
    misaligned: Option<Value>,
    slot: Value,
    addrs: Vec<Value>,
}

/// The bits of one slot's threads (`lanes` bits) at their place in a warp-wide mask.
fn at_slot(p: &FgsimtParams, bits: &Value, slot: &Value) -> Value {
    let shift = if p.lanes == 1 {
        slot.clone()
    } else {
        cat(&[slot, &k(slot, 0, p.lanes.trailing_zeros())])
    };
    bits.zext(p.warp_size)
        .dshl(&shift)
        .slice(p.warp_size - 1, 0)
}

/// The branch result (valid, taken), valid in the execute cycle of the instruction's
/// last slot, and the jump result (valid, target, agree), the cycle after.
fn control_results(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    su: &Inst,
    lanes: &[Inst],
) -> ((Value, Value), (Value, Value, Value)) {
    let last_slot = p.threads_per_lane() as u64 - 1;
    let mut new_taken = Vec::new();
    let (mut branch_last, mut jump_last) = (Vec::new(), Vec::new());
    let (mut jumps, mut targets) = (Vec::new(), Vec::new());
    for u in 0..2 {
        let x = su.io(&format!("sau{u}_x"));
        let f = |n: &str| x.get(n).value().clone();
        let last = &f("valid") & &f("slot").eq(&k(&f("slot"), last_slot, f("slot").width()));
        branch_last.push(&last & &f("branch"));
        jump_last.push(&last & &f("jalr"));
        let bits: Vec<Value> = lanes
            .iter()
            .rev()
            .map(|l| l.port(&format!("sau{u}_taken")))
            .collect();
        new_taken.push(at_slot(
            p,
            &cat(&bits.iter().collect::<Vec<_>>()),
            &f("slot"),
        ));
        let jb: Vec<Value> = lanes
            .iter()
            .rev()
            .map(|l| l.port(&format!("sau{u}_jump")))
            .collect();
        jumps.push(cat(&jb.iter().collect::<Vec<_>>()));
        targets.push(
            lanes
                .iter()
                .map(|l| l.port(&format!("sau{u}_target")))
                .collect::<Vec<_>>(),
        );
    }
    let taken_now = &new_taken[0] | &new_taken[1];
    let acc = m.reg("taken_acc", p.warp_size, 0u64);
    let branch_done = &branch_last[0] | &branch_last[1];
    let taken = &acc | &taken_now;
    m.connect(&acc, &mux(&branch_done, &k(&acc, 0, p.warp_size), &taken));
    // One jalr at a time: the two units' lanes' jumps are exclusive. The slot's targets
    // are registered before they are compared (the adders and the compares in one cycle
    // were the critical path): `jump` is valid the cycle after the last slot.
    let in_unit0 = jumps[0].or_r();
    let jump_bits = m.reg("jump_lanes", lanes.len() as u32, 0u64);
    m.connect(&jump_bits, &(&jumps[0] | &jumps[1]));
    let lane_targets: Vec<Value> = (0..lanes.len())
        .map(|l| {
            let t = m.reg(&format!("jump_target{l}"), 32, hdl::ResetValue::None);
            m.connect(&t, &mux(&in_unit0, &targets[0][l], &targets[1][l]));
            t
        })
        .collect();
    let first = onehot_mux(&lowest_one(&jump_bits), &lane_targets);
    let have = m.reg("jump_have", 1, false);
    let target = m.reg("jump_target", 32, 0u64);
    let agree = m.reg("jump_agree", 1, true);
    let any_now = jump_bits.or_r();
    let chosen = mux(&have, &target, &first);
    let agree_now = lane_targets
        .iter()
        .enumerate()
        .fold(agree.clone(), |acc, (l, t)| {
            &acc & &(&!&jump_bits.bit(l as u32) | &t.eq(&chosen))
        });
    let jump_done = m.reg("jump_done", 1, false);
    m.connect(&jump_done, &(&jump_last[0] | &jump_last[1]));
    let one = k(&have, 1, 1);
    m.when(&jump_done, |m| {
        m.connect(&have, &!&one);
        m.connect(&agree, &one);
    })
    .elsewhen(&any_now, |m| {
        m.connect(&have, &one);
        m.connect(&target, &chosen);
        m.connect(&agree, &agree_now);
    });
    ((branch_done, taken), (jump_done, chosen, agree_now))
}

/// The held fault (the first of a misaligned access and an illegal instruction); returns
/// whether one is held (which stops the SIU).
fn fault(m: &mut ModuleBuilder, p: &FgsimtParams, su: &Inst, mis: &Misaligned) -> Value {
    let out = m.io("fault", Dir::Out, &bundles::fault());
    let valid = m.reg("fault_valid", 1, false);
    let regs: Vec<Value> = [("cause", 5), ("pc", 32), ("thread", 32), ("tval", 32)]
        .iter()
        .map(|(n, w)| m.reg(&format!("fault_{n}"), *w, 0u64))
        .collect();
    let info = su.io("mem_info");
    let ill = su.io("illegal");
    let c = |v: u64| k(&valid, v, 5);
    let store = info.get("store").value();
    let lane = lowest_index(&mis.bad);
    let index = &at_slot_index(p, &mis.slot) + &lane;
    let mis_thread = info.get("tid_base").value() + &index;
    let lowest = lowest_one(&mis.bad);
    let mis_addr = onehot_mux(&lowest, &mis.addrs);
    let misaligned_cause = mux(
        store,
        &c(cause::STORE_MISALIGNED),
        &c(cause::LOAD_MISALIGNED),
    );
    let mis_cause = match &mis.misaligned {
        Some(bits) => mux(
            &(&lowest & bits).or_r(),
            &misaligned_cause,
            &mux(store, &c(cause::STORE_ACCESS), &c(cause::LOAD_ACCESS)),
        ),
        None => misaligned_cause,
    };
    let ib = ill.bits();
    let ill_thread = ib.get("tid_base").value() + &lowest_index(ib.get("mask").value());
    let (ill_cause, ill_tval) = trap_of(ib.get("insn").value(), ib.get("pc").value());
    let any_mis = mis.bad.or_r();
    let new = |a: &Value, b: &Value| mux(&any_mis, a, b);
    let next = [
        new(&mis_cause, &ill_cause),
        new(info.get("pc").value(), ib.get("pc").value()),
        new(&mis_thread, &ill_thread),
        new(&mis_addr, &ill_tval),
    ];
    let raise = &!&valid & &(&any_mis | ill.valid());
    m.when(&raise, |m| {
        m.connect(&valid, &k(&valid, 1, 1));
        for (r, v) in regs.iter().zip(&next) {
            m.connect(r, v);
        }
    });
    m.connect(out.valid(), &valid);
    for (n, r) in ["cause", "pc", "thread", "tval"].iter().zip(&regs) {
        m.connect(out.bits().get(n).value(), r);
    }
    valid
}

/// The trap (cause, tval) of an instruction the SIU refuses, as the ISS's: `ecall`
/// (tval 0), `ebreak` (tval the pc), else an illegal instruction (tval the instruction).
fn trap_of(insn: &Value, pc: &Value) -> (Value, Value) {
    let ecall = insn.eq(&k(insn, 0x73, 32));
    let ebreak = insn.eq(&k(insn, 0x0010_0073, 32));
    let c = |v: u64| k(insn, v, 5);
    let cause = mux(
        &ecall,
        &c(cause::ECALL),
        &mux(
            &ebreak,
            &c(cause::BREAKPOINT),
            &c(cause::ILLEGAL_INSTRUCTION),
        ),
    );
    let tval = mux(&ecall, &k(insn, 0, 32), &mux(&ebreak, pc, insn));
    (cause, tval)
}

/// `slot * lanes`, 32 bits.
fn at_slot_index(p: &FgsimtParams, slot: &Value) -> Value {
    slot.zext(32).shl(p.lanes.trailing_zeros())
}

/// The load writeback's ports the front end takes: with `warps` > 1 or the DWS
/// sequencer `load_done` (a load's writeback starts), with `warps` > 1 `load_ctx` (its
/// context), with the sequencer `load_mask` (its threads, their fills).
pub fn load_ports(p: &FgsimtParams) -> Vec<&'static str> {
    let seq = p.sequencer().is_some();
    [
        ("load_done", p.warps > 1 || seq),
        ("load_ctx", p.warps > 1),
        ("load_mask", seq),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect()
}
