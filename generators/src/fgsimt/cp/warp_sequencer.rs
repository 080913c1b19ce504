//! The front end's DWS sequencer (seed 001, section 3 and Fig. 3's WPU; with `reconv`
//! other than `pwfb`; docs/fgsimt-engine.md, "DWS in the engine"): the golden model's
//! `DwsControl` in RTL (`dws/sequencer.rs`) in place of the warp contexts' PWFBs, a warp
//! a context. Its pick is what the fetch unit fetches and decodes, with the AWFR's ports
//! (`awfr_valid`, `awfr_pc_out`, `awfr_mask_out`), so the fetch unit drives it as it
//! drives a PWFB:
//!
//! - The sequencer acts only when the fetch unit `go`es: the instruction at the pick's
//!   pc leaves decode (`busy` otherwise). In a cycle a warp starts, its group may be the
//!   pick already, but the kernel state's registers still hold the context's last
//!   warp: the AWFR is not valid then. A pick at its stack entry's post-dominator
//!   re-converges without an instruction (`busy` low), and a cycle with nothing to pick
//!   is the sequencer's stall.
//! - `op` (1 a conditional branch, 3 `jalr`, 2 a load-like instruction: load, LR, SC,
//!   AMO, 0 the rest with its `next_pc`) comes from decode. A load-like instruction
//!   goes to the lanes with the threads of the groups PC-based merging merged into it
//!   (`awfr_mask_out` is then the sequencer's `mem_mask`).
//! - Answers come late (`late_answers`): a branch's taken mask and target (`br`,
//!   `taken`, `target`) and a jump's target (`jr`, `jr_target`; 0 ends the threads) when
//!   the lanes give them. The fetch unit keeps a branch or a jump until its answer, so
//!   those never coincide. A shared load the CP serves (+a: `cp_load` with `go`) is
//!   answered the cycle after it left, every thread of its (PC-merged) group
//!   satisfied. A load-like instruction to the lanes is answered as `dws` says:
//!   - `off`: the cycle after it left, no thread satisfied (the conventional answer), so
//!     its group waits for memory, as the baseline's warp waits for its access, until
//!     its writeback starts: the SIU's `load_done` (with `load_ctx`) fills the load's
//!     threads (`load_mask`), and the group goes on past the load (`replay` off: the
//!     SLWQ has written every thread).
//!   - the split policies: the SMU's hit mask (`hit_valid`, `hit_mask`, `hit_ready` out;
//!     `smu/hit_mask.rs`), the threads whose data is in, in the order the loads left;
//!     the warps that sent them wait in a queue. Taken in a cycle without a branch's or
//!     jump's answer, so the policy splits the group (run-ahead at the next
//!     instruction, fall-behind waiting), suspends it or completes it. The load's
//!     write-back passes fill the threads that were not hits.
//!
//! Ports: in `start`, `start_pc`, `start_mask` (and `start_ctx` with `warps` > 1), `go`,
//! `op`, `cp_load`, `next_pc`, `br`, `taken`, `target`, `jr`, `jr_target`, `load_done`,
//! `load_mask` (and `load_ctx` with `warps` > 1), with hit masks `hit_valid` and
//! `hit_mask` (and `hit_ready` out), the re-convergence
//! table's writes (`tbl_*`, from `branch_directory.rs`); out `awfr_valid`,
//! `awfr_pc_out`, `awfr_mask_out`, `ctx` (the pick's warp, with `warps` > 1),
//! `executed` (a branch's answer executed it), `idle`
//! (a bit a context: no thread of its warp is left), `error` (held: a deadlock, a
//! stack or the WST overflowed, or a branch the table lacks) and `strace` (the
//! sequencer's inputs and decisions each cycle, `bundles::strace`, for the lockstep).

use super::super::bundles;
use super::super::params::FgsimtParams;
use crate::examples::queue::{queue, QueueParams};
use crate::fgsimt::dws::params::{DwsParams, DELAY_BITS};
use crate::fgsimt::dws::sequencer::sequencer;
use crate::fgsimt::dws::state::Widths;
use hdl::helpers::onehot_decode;
use hdl::ir::addr_width;
use hdl::{mux, Bits, Dir, HdlErrors, Inst, Module, ModuleBuilder, Value};
use std::rc::Rc;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// `op` values (`dws/action.rs`'s `Answer::op`).
pub mod op {
    pub const OTHER: u64 = 0;
    pub const BRANCH: u64 = 1;
    pub const MEMORY: u64 = 2;
    pub const JUMP: u64 = 3;
}

/// The sequencer of `p` (which must have one: `FgsimtParams::sequencer`).
pub fn warp_sequencer(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let d = p
        .sequencer()
        .expect("a sequencer only where reconv is not pwfb");
    let mut m = ModuleBuilder::new("FgsimtSequencer");
    let seq = m.instance("dws", &sequencer(&d)?);
    let start = starts_and_fills(&mut m, p, &seq);
    table_ports(&mut m, &d, &seq);

    // The issue: the pick's instruction leaves decode.
    let go = m.input("go", 1);
    let op_in = m.input("op", 2);
    let next_pc = m.input("next_pc", 32);
    let pick = seq.port("pick");
    let at_rpc = seq.port("pick_rpc");
    m.connect(&seq.port("busy"), &(&(&pick & &!&at_rpc) & &!&go));
    m.connect(&seq.port("op"), &op_in);
    m.connect(&seq.port("next_valid"), &lit(&go, 1, 1));
    m.connect(&seq.port("next_pc"), &next_pc);
    late_answers(&mut m, (p, &d), &seq, (&go, &op_in))?;

    let memory = op_in.eq(&lit(&op_in, op::MEMORY, 2));
    let mask = mux(&memory, &seq.port("mem_mask"), &seq.port("issue_mask"));
    let mut outputs = vec![
        // Not while a warp starts: its group may be the pick in its start cycle, before
        // the kernel state's registers (its `tid<k>`) hold the new warp.
        ("awfr_valid", &(&pick & &!&at_rpc) & &!&start),
        ("awfr_pc_out", seq.port("issue_pc")),
        ("awfr_mask_out", mask),
        ("idle", seq.port("idle")),
        ("error", seq.port("error")),
        // A branch's late answer executed it (else its group waits at it, to issue it
        // again).
        ("executed", seq.port("executed")),
    ];
    if p.warps > 1 {
        outputs.push(("ctx", seq.port("issue_warp").slice(p.ctx_bits() - 1, 0)));
    }
    for (name, v) in outputs {
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    trace(&mut m, &d, &seq);
    m.finish()
}

/// `strace` (`bundles::strace`): the sequencer's inputs and decisions each cycle, read
/// from its own ports (every context's start mask is `start_mask`).
fn trace(m: &mut ModuleBuilder, d: &DwsParams, seq: &Inst) {
    let io = m.io("strace", Dir::Out, &bundles::strace(d));
    for (name, _) in bundles::strace_fields(d) {
        let port = match name.as_str() {
            "start_mask" => "start_mask0",
            n => n,
        };
        m.connect(io.get(&name).value(), &seq.port(port));
    }
}

/// Warps start in context `start_ctx` (with its pc and mask), and a load whose
/// writeback starts (`load_done`, of context `load_ctx`) fills its threads
/// (`load_mask`). Returns `start`.
fn starts_and_fills(m: &mut ModuleBuilder, p: &FgsimtParams, seq: &Inst) -> Value {
    let w = p.warp_size;
    let start = m.input("start", 1);
    let start_ctx = (p.warps > 1).then(|| m.input("start_ctx", p.ctx_bits()));
    let start_pc = m.input("start_pc", 32);
    let start_mask = m.input("start_mask", w);
    let done = m.input("load_done", 1);
    let fill_mask = m.input("load_mask", w);
    let load_ctx = (p.warps > 1).then(|| m.input("load_ctx", p.ctx_bits()));
    // A bit a context.
    let of = |v: &Value, at: &Option<Value>| match at {
        None => v.clone(),
        Some(at) => &onehot_decode(at, p.warps) & &v.repeat(p.warps),
    };
    let (starts, fills) = (of(&start, &start_ctx), of(&done, &load_ctx));
    m.connect(&seq.port("start"), &starts);
    m.connect(&seq.port("start_pc"), &start_pc);
    let zero = lit(&start_mask, 0, w);
    for k in 0..p.warps {
        m.connect(&seq.port(&format!("start_mask{k}")), &start_mask);
        let fill = mux(&fills.bit(k), &fill_mask, &zero);
        m.connect(&seq.port(&format!("fill{k}")), &fill);
    }
    start
}

/// The re-convergence table's write ports (`tbl_*`, from `branch_directory.rs`).
fn table_ports(m: &mut ModuleBuilder, d: &DwsParams, seq: &Inst) {
    let tw = addr_width(d.branch_entries as u64);
    for (name, width) in [
        ("tbl_clear", 1),
        ("tbl_we", 1),
        ("tbl_index", tw),
        ("tbl_pc", 32),
        ("tbl_ipdom", 32),
        ("tbl_short", 1),
    ] {
        let v = m.input(name, width);
        m.connect(&seq.port(name), &v);
    }
}

/// Late answers: a branch's (`br`, `taken`, `target`) or jump's (`jr`, `jr_target`)
/// for the warp that sent it (kept while the fetch unit waits), and a load's
/// ([`load_answers`]).
fn late_answers(
    m: &mut ModuleBuilder,
    (p, d): (&FgsimtParams, &DwsParams),
    seq: &Inst,
    (go, op_in): (&Value, &Value),
) -> Result<(), HdlErrors> {
    let ww = Widths::of(d).warp;
    let is_op = |v: u64| op_in.eq(&lit(op_in, v, 2));
    let warp = seq.port("issue_warp");
    let held = m.reg("answer_warp", ww, hdl::ResetValue::None);
    m.when(&(go & &(&is_op(op::BRANCH) | &is_op(op::JUMP))), |m| {
        m.connect(&held, &warp)
    });
    let br = m.input("br", 1);
    let jr = m.input("jr", 1);
    let sent = go & &is_op(op::MEMORY);
    let in_cp = &sent & &m.input("cp_load", 1);
    let sent = Sent {
        lanes: &sent & &!&in_cp,
        in_cp,
        warp,
        mask: seq.port("mem_mask"),
    };
    let load = load_answers(m, p, &sent, &!&(&br | &jr))?;
    let k2 = |v: u64| lit(op_in, v, 2);
    let ans = mux(
        &br,
        &k2(op::BRANCH),
        &mux(
            &jr,
            &k2(op::JUMP),
            &mux(&load.valid, &k2(op::MEMORY), &k2(op::OTHER)),
        ),
    );
    m.connect(&seq.port("ans"), &ans);
    m.connect(&seq.port("ans_warp"), &mux(&load.valid, &load.warp, &held));
    let taken = m.input("taken", p.warp_size);
    let target = m.input("target", 32);
    let jr_target = m.input("jr_target", 32);
    for (port, v) in [
        ("taken", taken),
        ("target", target),
        ("ans_next_valid", jr_target.ne(&lit(&jr_target, 0, 32))),
        ("ans_next_pc", jr_target.clone()),
        ("satisfied", load.satisfied),
        ("hit_delay", lit(&jr_target, 0, DELAY_BITS)),
    ] {
        m.connect(&seq.port(port), &v);
    }
    Ok(())
}

/// A load-like instruction leaving decode this cycle: to the lanes, or a shared load
/// the CP's port serves (+a, `cp_load`); its group's warp and threads (PC-merged).
struct Sent {
    lanes: Value,
    in_cp: Value,
    warp: Value,
    mask: Value,
}

/// A load's answer this cycle: its warp and the threads satisfied.
struct LoadAnswer {
    valid: Value,
    warp: Value,
    satisfied: Value,
}

/// The answers to the loads `sent`. A shared load the CP serves is answered the cycle
/// after it left with every thread of its group satisfied: the group goes on past it,
/// and the front end keeps any reader of its destination waiting until the value is in
/// the ASRF. A load to the lanes, without hit masks, is answered the cycle after it
/// left with no thread satisfied. With them, by the SMU's answers (`hit_valid`,
/// `hit_mask`; `hit_ready` out), in the order the loads were sent, whose warps wait in
/// a queue (a warp awaits one answer at a time, so `warps` entries), taken in a cycle
/// `free` of a branch's or jump's answer and of a shared load's. (A branch's or jump's
/// answer never comes the cycle after a load left decode: the fetch unit waits for it
/// from the cycle its instruction leaves.)
fn load_answers(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    sent: &Sent,
    free: &Value,
) -> Result<LoadAnswer, HdlErrors> {
    let w = p.warp_size;
    let mut next = |name: &str, v: &Value| {
        let r = m.reg(name, v.width(), hdl::ResetValue::None);
        m.connect(&r, v);
        r
    };
    let cp_warp = next("load_warp", &sent.warp);
    let cp_mask = next("cp_load_mask", &sent.mask);
    let cp = m.reg("cp_load_answer", 1, false);
    m.connect(&cp, &sent.in_cp);
    if !p.hit_masks() {
        let valid = m.reg("load_answer", 1, false);
        m.connect(&valid, &(&sent.lanes | &sent.in_cp));
        return Ok(LoadAnswer {
            valid,
            warp: cp_warp,
            satisfied: mux(&cp, &cp_mask, &lit(&cp, 0, w)),
        });
    }
    let warp = &sent.warp;
    let q = m.instance(
        "load_warps",
        &queue(&QueueParams {
            depth: p.warps,
            width: warp.width(),
            flow: false,
            pipe: true,
            sram_threshold_bits: p.sram_threshold_bits,
        })?,
    );
    m.connect(&q.port("enq_valid"), &sent.lanes);
    m.connect(&q.port("enq_bits"), warp);
    let (hit, mask) = (m.input("hit_valid", 1), m.input("hit_mask", w));
    let ready = &(&q.port("deq_valid") & free) & &!&cp;
    let o = m.output("hit_ready", 1);
    m.connect(&o, &ready);
    let smu = &hit & &ready;
    m.connect(&q.port("deq_ready"), &smu);
    Ok(LoadAnswer {
        valid: &smu | &cp,
        warp: mux(&cp, &cp_warp, &q.port("deq_bits")),
        satisfied: mux(&cp, &cp_mask, &mask),
    })
}
