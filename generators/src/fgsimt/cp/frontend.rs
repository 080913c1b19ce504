//! The CP's engine side (seed 000, section 3.1 and Figure 3; docs/fgsimt-engine.md, "CP
//! engine side"): the kernel state and warp counter (`kernel_state.rs`), the AWFR/PWFB
//! (`pwfb.rs`) and the warp fetch unit, which fetches the active fragment's instruction,
//! decodes it, resolves unconditional jumps, and hands everything else to the SIU
//! (`bundles::warp_inst`).
//!
//! One warp instruction at a time: fetch at the AWFR's pc through the I$ (a hit answers
//! the next cycle), decode, then
//! - `jal`: the PWFB moves to the target here; the SIU gets the instruction only when it
//!   writes a link (rd != x0). `fence`/`fence.i` go no further (a thread's accesses stay
//!   in order in the SMU; there is no instruction memory to synchronise).
//! - conditional branches wait for the lanes' taken mask (`branch`): all taken or none
//!   moves the AWFR; a split parks the taken threads in the PWFB at the target;
//! - `jalr` waits for the lanes' target (`jump`): 0 (`EXIT_PC`) ends the fragment's
//!   threads; targets that differ across the fragment are a fault (the model's
//!   `DivergentJump`);
//! - the rest go to the SIU and the AWFR moves to pc + 4 as the SIU accepts them.
//!
//! With the affine mechanisms (`affine` a, ab: `classify.rs`, `asrf.rs`,
//! `shared_load.rs`) the CP completes compact arithmetic, `jalr` on a uniform target
//! and (+b) uniform branches itself, shared loads through its own D$ port, and sends
//! the lanes compact sources to expand (docs/fgsimt-engine.md, "How +a is built").
//!
//! Fetch streams: a one-instruction prefetch buffer fetches the successor of each
//! instruction as it arrives in decode, so a run of instructions leaves decode at one a
//! cycle (the CP's own, e.g. affine arithmetic, complete there; the SIU accepts a lane
//! instruction at most every warp_size / lanes / 2 cycles, 2 in the paper's engine: two
//! SAUs of 4-cycle occupancy). A branch or `jalr` the CP resolves (+a, +b) updates the
//! PWFB the cycle after decode (its result is registered: resolving it in decode's cycle
//! put the affine ALU, the compare and the PWFB update on one path, 194 -> 161 MHz at
//! abm); one the lanes resolve, when its result arrives. Either way the AWFR's next pc
//! is fetched at once, or taken from the buffer when it is the fall-through, so a taken
//! CP branch costs 3 cycles and a fall-through 2. Whether the buffer holds the next
//! instruction is decided from registers (its pc against decode's pc + 4) and the
//! fall-through flag, not by comparing the computed next pc.
//!
//! With `warps` > 1 (seed 001's baseline; `contexts.rs`): the fetch unit serves one
//! warp context at a time, each with its own AWFR/PWFB. A load-like instruction (its
//! data returns through the SLWQ) leaving decode sends it back to state FETCH without
//! taking its successor, and from there to the next eligible context (round robin; the
//! load suspends its context until its writeback starts, `load_done`, unless every
//! context waits); stores keep the context (the warp does not wait for them); a context whose
//! AWFR cannot fetch (its warp finished, or a branch's update still settling) is left
//! the same way. Branches and `jalr` keep the context until their result arrives.
//! `inst` and `ftrace` carry the context; faults name the thread of the context's warp.
//!
//! With the DWS sequencer (`reconv` other than `pwfb`; seed 001, `warp_sequencer.rs`)
//! in place of the PWFBs, the fetch unit fetches the sequencer's pick (the AWFR's
//! ports), a warp a context, and its instructions leaving decode are the sequencer's
//! issues (`go`, `op`, the next pc); branches and jumps answer it when their result
//! arrives (the issued group's mask and warp kept meanwhile: the pick moves on), and
//! after a load-like instruction the fetch unit fetches whatever is picked next. Each
//! launch first reads its kernel's branches into the sequencer's table through the I$
//! port (`branch_directory.rs`).
//!
//! Faults (`bundles::fault`, held): the SIU's (memory alignment), illegal instructions
//! (anything not RV32IMAF, `tidx` or a legal `fence`; SYSTEM instructions, CSR accesses
//! included: kernels may not touch CSRs), `ecall` (11) and `ebreak` (3) as the ISS
//! raises them, misaligned jump and taken-branch targets (0), divergent `jalr` targets,
//! and a RoCC command the runtime never sends.

use super::super::bundles::{self, branch_result, cause, fault, jump_result, warp_inst};
use super::super::params::{Affine, FgsimtParams};
use super::branch_directory::branch_directory;
use super::classify::{classify, Compact, Plan};
use super::contexts::contexts;
use super::kernel_state::{funct7, kernel_state};
use super::pwfb::pwfb;
use super::shared_load::shared_load;
use super::warp_sequencer::{op as seq_op, warp_sequencer};
use crate::fgsimt::bundles::MEM_TAG_BITS;
use crate::fgsimt::l1::{narrow_request, narrow_response};
use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_response};
use crate::rocket::decode::{decode, opcode, Ctrl};
use hdl::helpers::{lowest_one, onehot_decode, onehot_encode, onehot_mux};
use hdl::{mux, Bits, Bundle, Dir, HdlErrors, Inst, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// The fetch unit's states.
const FETCH: u64 = 0;
const WAIT: u64 = 1;
const DISPATCH: u64 = 2;
const BRANCH: u64 = 3;
const JUMP: u64 = 4;
const HALTED: u64 = 5;
/// A scalar instruction (+a) waits for its one result.
const SCALAR: u64 = 6;
const STATE_BITS: u32 = 3;

const OPCODE_SYSTEM: u64 = 0x73;
const OPCODE_CUSTOM0: u64 = 0x0b;
/// `tidx`'s funct3: xd only.
const TIDX_FUNCT3: u64 = 4;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// A fault to report: (`cause`, `tval`), the faulting thread's index in the warp as a
/// one-hot `who` (within the mask), and whether it happens.
struct Fault {
    when: Value,
    cause: Value,
    tval: Value,
    who: Value,
}

/// A branch's or jump's PWFB update (`pwfb.rs` ports) when its result arrives.
struct Update {
    when: Value,
    pc: Value,
    /// `pc` is the fall-through (a branch some thread does not take).
    fall: Value,
    exit: Value,
    push: Value,
    push_mask: Value,
    fault: Fault,
}

/// What decode says about the fetched instruction.
struct Decoded {
    /// A fault at decode (illegal, ecall, ebreak, misaligned jal target).
    fault: Fault,
    tidx: Value,
    branch: Value,
    jalr: Value,
    /// Goes to the SIU.
    to_siu: Value,
    /// The AWFR's next pc when the instruction is neither a branch nor a jalr.
    next_pc: Value,
    /// Branch target.
    target: Value,
}

/// Ports: `rocc_cmd`, `rocc_resp`, `rocc_busy`; `fetch_req`/`fetch_resp` (to the I$);
/// `inst` (to the SIU), `branch`, `jump`, `exec_fault`, `exec_idle`, `smu_idle`; out
/// `warp_start`, `tid_base`, `stack_top`, `stack_bytes`, `gp`, `tp` (the SRF's initial
/// values), `fault`, `ftrace`; with `avc` also `threads` (the launch's),
/// `stack_region` (the stacks' bytes) and `avc_discard` (a launch is accepted: the AVC
/// drops the last one's dead stacks). With
/// +a also `scalar_write` in (valid, `data`: an SRF
/// write, the scalar instruction's one result) and `atrace` out (the ASRF's writes);
/// with the DWS sequencer `strace` out (`bundles::strace`).
pub fn frontend(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtFrontend");
    let w = p.warp_size;
    let affine = p.affine != Affine::None;
    let ks = m.instance("kernel_state", &kernel_state(p)?);
    let pw = match (p.sequencer(), p.warps) {
        (Some(_), _) => m.instance("sequencer", &warp_sequencer(p)?),
        (None, 1) => m.instance("pwfb", &pwfb(w)?),
        (None, n) => m.instance("contexts", &contexts(n, w)?),
    };
    for (name, shape, dir) in [
        ("rocc_cmd", rocc_command(), Dir::In),
        ("rocc_resp", rocc_response(), Dir::Out),
    ] {
        let io = m.io(name, dir, &shape);
        match dir {
            Dir::In => m.connect_bundle(&ks.io(name), &io),
            Dir::Out => m.connect_bundle(&io, &ks.io(name)),
        }
    }
    let scalar_write = Shape::valid(Shape::bundle(vec![Shape::field("data", Shape::UInt(32))]));
    let ports = Ports {
        fetch_req: m.io("fetch_req", Dir::Out, &mem_request(0)),
        fetch_resp: m.io("fetch_resp", Dir::In, &mem_response(0)),
        inst: m.io("inst", Dir::Out, &warp_inst(p)),
        branch: m.io("branch", Dir::In, &branch_result(w)),
        jump: m.io("jump", Dir::In, &jump_result()),
        exec_fault: m.io("exec_fault", Dir::In, &fault()),
        fault: m.io("fault", Dir::Out, &fault()),
        ftrace: m.io("ftrace", Dir::Out, &bundles::ftrace(w, p.ctx_bits())),
        exec_idle: m.input("exec_idle", 1),
        smu_idle: m.input("smu_idle", 1),
        shared: affine.then(|| {
            let req = m.io("s_req", Dir::Out, &narrow_request(MEM_TAG_BITS));
            (req, m.io("s_resp", Dir::In, &narrow_response(MEM_TAG_BITS)))
        }),
        snoop: (affine && p.shared_load_cache > 0)
            .then(|| m.io("snoop", Dir::In, &bundles::store_snoop(p.lanes))),
        scalar_write: affine.then(|| m.io("scalar_write", Dir::In, &scalar_write)),
        atrace: affine.then(|| m.io("atrace", Dir::Out, &bundles::atrace(p.ctx_bits()))),
    };
    m.connect(&ks.port("exec_idle"), &ports.exec_idle);
    let ctx_idle = m.input("ctx_idle", p.warps);
    m.connect(&ks.port("ctx_idle"), &ctx_idle);
    m.connect(&ks.port("smu_idle"), &ports.smu_idle);
    let mut outputs = vec![
        ("rocc_busy", "rocc_busy"),
        ("warp_start", "start"),
        ("tid_base", "tid_base"),
        ("stack_top", "stack_top"),
        ("stack_bytes", "stack_bytes"),
        ("gp", "gp"),
        ("tp", "tp"),
    ];
    if p.warps > 1 {
        outputs.push(("start_ctx", "start_ctx"));
    }
    if p.avc {
        outputs.extend([
            ("threads", "threads"),
            ("avc_discard", "launching"),
            ("stack_region", "stack_region"),
        ]);
    }
    for (out, from) in outputs {
        let v = ks.port(from);
        let o = m.output(out, v.width());
        m.connect(&o, &v);
    }
    if let Some(d) = p.sequencer() {
        let strace = m.io("strace", Dir::Out, &bundles::strace(&d));
        m.connect_bundle(&strace, &pw.io("strace"));
    }
    m.connect(&pw.port("start"), &ks.port("start"));
    m.connect(&pw.port("start_pc"), &ks.port("entry"));
    m.connect(&pw.port("start_mask"), &ks.port("start_mask"));
    let ctx = warp_context(&mut m, p, &ks, &pw);
    let dir = directory(&mut m, p, (&ks, &pw), &ports)?;
    fetch_unit(&mut m, p, (&ks, &pw, &ctx), &ports, dir.as_ref())?;
    m.finish()
}

/// With the DWS sequencer: the re-convergence directory's reader (`branch_directory.rs`)
/// between the kernel state's launch and the sequencer's table; the fetch unit lends it
/// the I$ port and says when it is `quiet`.
fn directory(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (ks, pw): (&Inst, &Inst),
    io: &Ports,
) -> Result<Option<Inst>, HdlErrors> {
    if p.sequencer().is_none() {
        return Ok(None);
    }
    let dir = m.instance("directory", &branch_directory(p)?);
    m.connect(&dir.port("go"), &ks.port("launching"));
    m.connect(&dir.port("entry"), &ks.port("entry"));
    m.connect_bundle(&dir.io("resp"), &io.fetch_resp);
    m.connect(&ks.port("table_ready"), &dir.port("ready"));
    for name in [
        "tbl_clear",
        "tbl_we",
        "tbl_index",
        "tbl_pc",
        "tbl_ipdom",
        "tbl_short",
    ] {
        m.connect(&pw.port(name), &dir.port(name));
    }
    Ok(Some(dir))
}

struct Ports {
    fetch_req: Bundle,
    fetch_resp: Bundle,
    inst: Bundle,
    branch: Bundle,
    jump: Bundle,
    exec_fault: Bundle,
    fault: Bundle,
    ftrace: Bundle,
    exec_idle: Value,
    smu_idle: Value,
    /// +a: the shared loads' port (request, response).
    shared: Option<(Bundle, Bundle)>,
    /// +a with a shared load cache: the lanes' stores (`bundles::store_snoop`).
    snoop: Option<Bundle>,
    scalar_write: Option<Bundle>,
    atrace: Option<Bundle>,
}

/// The context the fetch unit serves: with `warps` > 1 the contexts' current one
/// (`contexts.rs`) or the sequencer's pick's warp, else the one warp.
#[derive(Clone)]
struct Context {
    /// Its warp's thread 0.
    tid_base: Value,
    /// It may fetch: it holds a warp whose AWFR has settled (with contexts, waiting for
    /// no load).
    eligible: Value,
    /// A bit a context: it holds a warp whose fragments have all finished.
    dones: Value,
    /// With contexts: the current one's number.
    index: Option<Value>,
}

/// The fetch unit's view of the warp contexts; with `warps` > 1 the bank's `running`
/// and `load_done`/`load_ctx` (the front end's inputs from execute) are connected here.
fn warp_context(m: &mut ModuleBuilder, p: &FgsimtParams, ks: &Inst, pw: &Inst) -> Context {
    if p.sequencer().is_some() {
        return sequencer_context(m, p, ks, pw);
    }
    if p.warps == 1 {
        return Context {
            tid_base: ks.port("tid0"),
            eligible: &ks.port("running") & &pw.port("awfr_valid"),
            dones: pw.port("done"),
            index: None,
        };
    }
    m.connect(&pw.port("start_ctx"), &ks.port("start_ctx"));
    m.connect(&pw.port("running"), &ks.port("running"));
    for (name, width) in [("load_done", 1), ("load_ctx", p.ctx_bits())] {
        let v = m.input(name, width);
        m.connect(&pw.port(name), &v);
    }
    let index = pw.port("ctx");
    let tids: Vec<Value> = (0..p.warps).map(|k| ks.port(&format!("tid{k}"))).collect();
    Context {
        tid_base: onehot_mux(&onehot_decode(&index, p.warps), &tids),
        eligible: pw.port("eligible"),
        dones: pw.port("dones"),
        index: Some(index),
    }
}

/// With the DWS sequencer (`warp_sequencer.rs`): the context is the pick's warp, which
/// may fetch while the AWFR is valid, and whose warp ends as its stack empties; the
/// front end's fill inputs from execute (`load_done`, `load_mask`, and `load_ctx` with
/// `warps` > 1) and, with hit masks, the SMU's answers to loads (`hits`) go to the
/// sequencer.
fn sequencer_context(m: &mut ModuleBuilder, p: &FgsimtParams, ks: &Inst, pw: &Inst) -> Context {
    let mut fills = vec![("load_done", 1), ("load_mask", p.warp_size)];
    if p.warps > 1 {
        m.connect(&pw.port("start_ctx"), &ks.port("start_ctx"));
        fills.push(("load_ctx", p.ctx_bits()));
    }
    for (name, width) in fills {
        let v = m.input(name, width);
        m.connect(&pw.port(name), &v);
    }
    if p.hit_masks() {
        let hits = m.io("hits", Dir::In, &bundles::load_hits(p.warp_size));
        m.connect(&pw.port("hit_valid"), hits.valid());
        m.connect(&pw.port("hit_mask"), hits.bits().value());
        m.connect(hits.ready(), &pw.port("hit_ready"));
    }
    let index = (p.warps > 1).then(|| pw.port("ctx"));
    let tids: Vec<Value> = (0..p.warps).map(|k| ks.port(&format!("tid{k}"))).collect();
    Context {
        tid_base: match &index {
            Some(i) => onehot_mux(&onehot_decode(i, p.warps), &tids),
            None => tids[0].clone(),
        },
        eligible: pw.port("awfr_valid"),
        dones: &ks.port("running") & &pw.port("idle"),
        index,
    }
}

/// The fetch/decode/dispatch state machine and its PWFB updates.
fn fetch_unit(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (ks, pw, ctx): (&Inst, &Inst, &Context),
    io: &Ports,
    dir: Option<&Inst>,
) -> Result<(), HdlErrors> {
    let state = m.reg("fetch_state", STATE_BITS, FETCH);
    let is = |s: u64| state.eq(&lit(&state, s, STATE_BITS));
    let goto = |m: &mut ModuleBuilder, s: u64| m.connect(&state, &lit(&state, s, STATE_BITS));
    let pc = m.reg("pc", 32, hdl::ResetValue::None);
    let insn = m.reg("insn", 32, hdl::ResetValue::None);
    let seq = p.sequencer().is_some();
    // The mask a branch's or jump's result applies to: with the sequencer the issued
    // group's, kept (the sequencer's pick depends on the result).
    let (mask, result_mask, ctx) = match seq {
        true => held_issue(m, &is(DISPATCH), &pw.port("awfr_mask_out"), ctx),
        false => {
            let mask = pw.port("awfr_mask_out");
            (mask.clone(), mask, ctx.clone())
        }
    };
    let ctx = &ctx;
    let w = mask.width();

    // Dispatch.
    let c = decode(&insn, true, 32, true);
    let d = decode_insn(&c, &insn, &pc, &mask);
    let plan = match io.atrace {
        Some(_) => affine_plan(m, p, (ks, pw, ctx), (&insn, &pc, &mask), (&c, &d))?,
        None => baseline_plan(&d, &insn),
    };
    // An instruction fetched ahead is the AWFR's once the PWFB has settled at its pc;
    // else it is fetched again.
    let settled = pw.port("awfr_valid");
    let ours = &settled & &pw.port("awfr_pc_out").eq(&pc);
    let decoded = &is(DISPATCH) & &ours;
    m.when(&(&is(DISPATCH) & &(&settled & &!&ours)), |m| goto(m, FETCH));
    let sl = shared_load_unit(m, p, ks, io)?;
    let writes_memory = &(&c.store | &c.amo) | &c.sc;
    let hazard = shared_load_hazard(&sl, &plan, &writes_memory);
    let dispatch = &(&decoded & &!&d.fault.when) & &!&hazard;
    let sent = send(m, (io, seq), ctx, &plan, (&dispatch, &insn, &pc, &mask));
    let in_cp = &plan.cp_alone | &plan.load_in_cp;
    let gone = &sent.main & &(&in_cp | io.inst.ready());
    let plain = &(&gone & &!&d.branch) & &!&d.jalr;
    let switch = match seq {
        // The sequencer's pick moves on after a load-like instruction.
        true => Switch {
            after_load: &gone & &load_like(&c),
            fetch: &is(FETCH) & &ctx.eligible,
            free: None,
        },
        false => context_switch(m, (pw, ctx), (&is(FETCH), &gone, &c), &plan.load_in_cp),
    };
    m.when(&(&gone & &d.branch), |m| goto(m, BRANCH));
    m.when(&(&gone & &d.jalr), |m| goto(m, JUMP));
    m.when(&(&plain & &!&plan.scalar), |m| goto(m, FETCH));
    let lanes_scalar = &plan.scalar & &!&plan.load_in_cp;
    m.when(&(&plain & &lanes_scalar), |m| goto(m, SCALAR));
    let stores = &(&sent.to_siu & io.inst.ready()) & &writes_memory;
    shared_load_inputs(m, sl.as_ref(), &plan, (&gone, &insn), stores);
    let scalar_done = asrf_writes(m, io, &plan, (&gone, &is(SCALAR)), sl.as_ref());
    m.when(&scalar_done, |m| goto(m, FETCH));

    let cp_branch = &(&gone & &plan.cp_alone) & &d.branch;
    let br = resolve_branch(
        m,
        io,
        (&is(BRANCH), &pc, &result_mask, &d.target),
        (&cp_branch, &plan.branch_taken),
    );
    let cp_jump = &(&gone & &plan.cp_alone) & &d.jalr;
    let jr = resolve_jump(
        m,
        io,
        &is(JUMP),
        &result_mask,
        (&cp_jump, &plan.jalr_target),
    );
    // Plain instructions move the AWFR to their next pc when dispatched; branches and
    // jumps when their result arrives (at most one of the three in a cycle).
    let zero_w = lit(&mask, 0, w);
    let upd_pc = mux(&br.when, &br.pc, &mux(&jr.when, &jr.pc, &d.next_pc));
    let upd_exit = mux(&jr.when, &jr.exit, &zero_w);
    let resolved = &br.when | &jr.when;
    let update = &plain | &resolved;
    // A result's next pc is fetched ahead for the PWFB; the sequencer picks afresh.
    let ahead_of = match seq {
        true => {
            sequencer_inputs(m, pw, (&gone, &c, &d, &plan), (&br, &jr));
            lit(&resolved, 0, 1)
        }
        false => {
            pwfb_update(m, pw, &update, (&upd_pc, &upd_exit), (&d, &br));
            resolved.clone()
        }
    };
    m.when(&resolved, |m| goto(m, FETCH));

    // The next instruction, where the AWFR goes unless threads ended.
    let leaves = &(&(&plain & &!&lanes_scalar) | &ahead_of) & &upd_exit.eq(&zero_w);
    let leaves = &leaves & &!&switch.after_load;
    // It is pc + 4 for a plain instruction but `jal`, and a branch not all threads take.
    let fall = mux(&br.when, &br.fall, &!&c.jal);
    let fetching = next_fetch(
        m,
        io,
        (ks, pw, &switch, dir),
        (&state, &pc, &insn),
        (&leaves, &upd_pc, &fall),
    );
    let extra = match dir {
        Some(dir) => {
            m.connect(&dir.port("quiet"), &(&!&is(WAIT) & &!&fetching));
            sequencer_faults(ks, pw, dir, &mask)
        }
        None => Vec::new(),
    };
    // A branch the sequencer did not execute (its group waits at it: a BL barrier, no
    // WST entry free) is issued again later: it commits then.
    let committed = match seq {
        true => &(&plain | &jr.when) | &(&br.when & &pw.port("executed")),
        false => update.clone(),
    };
    trace_fetch(m, p, io, (ctx, &plan), (&committed, &pc, &insn, &mask));
    fetch_faults(
        m,
        io,
        (ks, ctx),
        (&decoded, d.fault),
        (br.fault, jr.fault, extra),
        (&state, &pc, &mask),
    );
    // The fetch unit has left the warp: between instructions, no fetch in the I$.
    let left = &is(FETCH) & &!&fetching;
    warp_done(m, p, (ks, ctx, sl.as_ref()), &left, &pc);
    m.connect(&ks.port("halt"), &is(HALTED));
    m.when(&is(HALTED), |m| goto(m, HALTED));
    Ok(())
}

/// With the DWS sequencer: the issued group's mask and warp, kept while the fetch unit
/// waits for its branch's or jump's result (the pick moves on as it leaves decode); in
/// state DISPATCH, the pick's. Returns the mask (the pick's or the kept one), the kept
/// mask alone and the context.
fn held_issue(
    m: &mut ModuleBuilder,
    in_dispatch: &Value,
    mask: &Value,
    ctx: &Context,
) -> (Value, Value, Context) {
    let mut keep = |name: &str, v: &Value| {
        let r = m.reg(name, v.width(), hdl::ResetValue::None);
        m.when(in_dispatch, |m| m.connect(&r, v));
        r
    };
    let held = Context {
        tid_base: keep("issued_tid_base", &ctx.tid_base),
        index: ctx.index.as_ref().map(|i| keep("issued_ctx", i)),
        ..ctx.clone()
    };
    let kept = keep("issued_mask", mask);
    let pick = |live: &Value, kept: &Value| mux(in_dispatch, live, kept);
    let ctx = Context {
        tid_base: pick(&ctx.tid_base, &held.tid_base),
        index: (ctx.index.as_ref().zip(held.index.as_ref())).map(|(l, k)| pick(l, k)),
        ..held
    };
    (pick(mask, &kept), kept, ctx)
}

/// The PWFB's update ports: a plain instruction's next pc as it leaves decode, a
/// branch's or jump's when its result arrives (`pwfb.rs`).
fn pwfb_update(
    m: &mut ModuleBuilder,
    pw: &Inst,
    update: &Value,
    (upd_pc, upd_exit): (&Value, &Value),
    (d, br): (&Decoded, &Update),
) {
    for (port, v) in [
        ("upd_pc", upd_pc),
        ("upd_exit_mask", upd_exit),
        ("upd_push", &(&br.when & &br.push)),
        ("upd_push_pc", &d.target),
        ("upd_push_mask", &br.push_mask),
        ("update", update),
    ] {
        m.connect(&pw.port(port), v);
    }
}

/// The DWS sequencer's inputs (`warp_sequencer.rs`): the pick's instruction leaves
/// decode (`gone`) with its kind, next pc and whether it is a shared load the CP
/// serves (+a: still a memory instruction to the sequencer, whose PC-merged group it
/// runs); a branch's taken mask and target and a jump's target when the lanes (or the
/// CP) give them.
fn sequencer_inputs(
    m: &mut ModuleBuilder,
    pw: &Inst,
    (gone, c, d, plan): (&Value, &Ctrl, &Decoded, &Plan),
    (br, jr): (&Update, &Update),
) {
    let k2 = |v: u64| lit(gone, v, 2);
    let op = mux(
        &d.branch,
        &k2(seq_op::BRANCH),
        &mux(
            &d.jalr,
            &k2(seq_op::JUMP),
            &mux(&load_like(c), &k2(seq_op::MEMORY), &k2(seq_op::OTHER)),
        ),
    );
    for (port, v) in [
        ("go", gone),
        ("op", &op),
        ("cp_load", &plan.load_in_cp),
        ("next_pc", &d.next_pc),
        ("br", &br.when),
        ("taken", &br.push_mask),
        ("target", &d.target),
        ("jr", &jr.when),
        ("jr_target", &jr.pc),
    ] {
        m.connect(&pw.port(port), v);
    }
}

/// With the DWS sequencer, its faults: the directory's (a launch of a kernel it lacks,
/// or of more branches than the table holds; `tval` the kernel's entry) and the
/// sequencer's `error` (a deadlock, a stack or the WST overflowed, a branch the table
/// lacks), reported for the issued group's lowest thread.
fn sequencer_faults(ks: &Inst, pw: &Inst, dir: &Inst, mask: &Value) -> Vec<Fault> {
    let entry = ks.port("entry");
    vec![
        Fault {
            when: dir.port("fault"),
            cause: lit(&entry, cause::NO_BRANCH_TABLE, 5),
            tval: entry.clone(),
            who: lit(mask, 0, mask.width()),
        },
        Fault {
            when: pw.port("error"),
            cause: lit(&entry, cause::SEQUENCER, 5),
            tval: lit(&entry, 0, 32),
            who: lowest_one(mask),
        },
    ]
}

/// A load-like instruction: its data returns through the SLWQ (load, LR, SC, AMO).
fn load_like(c: &Ctrl) -> Value {
    let loads = [&c.load, &c.amo, &c.lr, &c.sc];
    loads[1..].iter().fold(loads[0].clone(), |a, b| &a | *b)
}

/// `ftrace`: each PWFB `update` with the instruction, its fragment's mask, whether the
/// CP completed it (alone or as a scalar instruction) and its warp (and context).
fn trace_fetch(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    io: &Ports,
    (ctx, plan): (&Context, &Plan),
    (update, pc, insn, mask): (&Value, &Value, &Value, &Value),
) {
    m.connect(io.ftrace.valid(), update);
    let tb = io.ftrace.bits();
    let cp = &plan.cp_alone | &plan.scalar;
    let warp = ctx
        .tid_base
        .slice(31, p.warp_size.trailing_zeros())
        .zext(32);
    for (field, v) in [
        ("pc", pc),
        ("insn", insn),
        ("mask", mask),
        ("cp", &cp),
        ("warp", &warp),
    ] {
        m.connect(tb.get(field).value(), v);
    }
    if let Some(index) = &ctx.index {
        m.connect(tb.get("ctx").value(), index);
    }
}

/// The fetch unit's faults to [`report_faults`], in order: decode's (once the
/// instruction is `decoded`), the branch's and the jump's results', and a RoCC command
/// the kernel state refuses (`bad_cmd`).
fn fetch_faults(
    m: &mut ModuleBuilder,
    io: &Ports,
    (ks, ctx): (&Inst, &Context),
    (decoded, decode): (&Value, Fault),
    (branch, jump, extra): (Fault, Fault, Vec<Fault>),
    (state, pc, mask): (&Value, &Value, &Value),
) {
    let decode_fault = Fault {
        when: decoded & &decode.when,
        ..decode
    };
    let ks_fault = Fault {
        when: ks.port("bad_cmd"),
        cause: lit(pc, cause::ILLEGAL_INSTRUCTION, 5),
        tval: lit(pc, 0, 32),
        who: lit(mask, 0, mask.width()),
    };
    let mut faults = vec![decode_fault, branch, jump, ks_fault];
    faults.extend(extra);
    report_faults(m, io, &ctx.tid_base, &faults, (state, pc));
}

/// `warp_done`, a bit a context: its warp has ended, every fragment finished and the
/// fetch unit having `left` it (with contexts, only the current one can be in use), and
/// its last shared load is in the ASRF (the next warp resets it).
fn warp_done(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (ks, ctx, sl): (&Inst, &Context, Option<&Inst>),
    left: &Value,
    pc: &Value,
) {
    let ended = match &ctx.index {
        None => &ctx.dones & left,
        Some(index) => {
            let here = onehot_decode(index, p.warps);
            &ctx.dones & &!&(&here & &(!left).repeat(p.warps))
        }
    };
    let ended = match sl {
        None => ended,
        Some(sl) => {
            let rd = sl.port("rd_out");
            let at = match p.warps {
                1 => lit(pc, 1, 1),
                n => onehot_decode(&rd.slice(rd.width() - 1, 6), n),
            };
            &ended & &!&(&at & &sl.port("busy").repeat(p.warps))
        }
    };
    m.connect(&ks.port("warp_done"), &ended);
}

/// The fetch unit's use of the contexts.
struct Switch {
    /// A load-like instruction leaves decode: with contexts, its successor is not
    /// taken (the next instruction is the next context's).
    after_load: Value,
    /// State FETCH fetches at the current context's AWFR.
    fetch: Value,
    /// With contexts: the free switch.
    free: Option<FreeSwitch>,
}

/// The free switch (contexts' `peek_*`): a load arriving in decode prefetches the next
/// context's pc, and the contexts switch as it leaves.
struct FreeSwitch {
    /// The switch happens as the load leaves (another context may fetch).
    now: Value,
    /// Its target's pc.
    peek_pc: Value,
    /// Another context may fetch once the current one waits: an arriving load's
    /// prefetch goes to `peek_pc`.
    other: Value,
}

/// With `warps` > 1 (seed 001's switch on a D-cache access, on the accesses a warp of
/// this engine waits for): a load-like instruction (load, LR, SC, AMO: its data returns
/// through the SLWQ) that leaves decode (`gone`) suspends its context until its
/// writeback (`load_sent`). When another context may fetch, the contexts switch to it in
/// that cycle (`leave`), and decode takes its instruction from the prefetch buffer, which
/// fetched it as the load arrived in decode (`next_fetch`): no cycle is lost. Else the
/// fetch unit goes to state FETCH, which asks the contexts for the next one (`leave`,
/// also while its own cannot fetch). Stores, fences and the shared loads the CP's own
/// port serves (`in_cp`, +a) keep the context: the warp does not wait for them (a shared
/// load's destination is checked at dispatch).
fn context_switch(
    m: &mut ModuleBuilder,
    (pw, ctx): (&Inst, &Context),
    (in_fetch, gone, c): (&Value, &Value, &Ctrl),
    in_cp: &Value,
) -> Switch {
    if ctx.index.is_none() {
        return Switch {
            after_load: lit(gone, 0, 1),
            fetch: in_fetch & &ctx.eligible,
            free: None,
        };
    }
    let sent = &(gone & &load_like(c)) & &!in_cp;
    let other = pw.port("peek_other");
    let now = &sent & &other;
    let pending = m.reg("switch_pending", 1, false);
    m.connect(&pending, &(&(&pending | &(&sent & &!&other)) & &!in_fetch));
    let leave = &(in_fetch & &(&pending | &!&ctx.eligible)) | &now;
    m.connect(&pw.port("leave"), &leave);
    m.connect(&pw.port("load_sent"), &sent);
    Switch {
        after_load: sent,
        fetch: &(in_fetch & &ctx.eligible) & &!&pending,
        free: Some(FreeSwitch {
            now,
            peek_pc: pw.port("peek_pc"),
            other,
        }),
    }
}

/// The I$ requests and what decode takes next: the AWFR's pc in state FETCH; at a
/// plain instruction's, a CP-resolved branch's or a lanes' result's next pc (`leaves`,
/// `upd_pc`: before the PWFB has settled on it, checked at dispatch), the prefetched
/// instruction when it is at that pc, else a fetch ahead; at a switch as a load leaves
/// (`Switch::free`), the prefetched instruction when it is at the next context's pc.
/// Returns whether a prefetch is still in the I$.
fn next_fetch(
    m: &mut ModuleBuilder,
    io: &Ports,
    (ks, pw, switch, dir): (&Inst, &Inst, &Switch, Option<&Inst>),
    (state, pc, insn): (&Value, &Value, &Value),
    (leaves, upd_pc, fall): (&Value, &Value, &Value),
) -> Value {
    let is = |s: u64| state.eq(&lit(state, s, STATE_BITS));
    let goto = |m: &mut ModuleBuilder, s: u64| m.connect(state, &lit(state, s, STATE_BITS));
    let awfr_pc = pw.port("awfr_pc_out");
    let (follow_d, pref) = (m.wire("follow_decode", 1), m.wire("prefetch", 1));
    let pf = prefetch_buffer(
        m,
        io,
        (&is(WAIT), pc, &ks.port("start")),
        (&follow_d, &pref, switch),
    );
    let follow_f = &(&switch.fetch & &pf.full) & &awfr_pc.eq(&pf.pc);
    let fetch = &(&switch.fetch & &!&follow_f) & &!&pf.busy;
    // (From registers, not through decode: `fall` says the next pc is pc + 4.)
    let pf_next = pf.pc.eq(&(pc + &lit(pc, 4, 32)));
    let follow = &(&(leaves & &(&pf.full | &pf.arriving)) & fall) & &pf_next;
    let follow = match &switch.free {
        Some(f) => {
            let there = &(&pf.full | &pf.arriving) & &pf.pc.eq(&f.peek_pc);
            &follow | &(&f.now & &there)
        }
        None => follow,
    };
    m.connect(&follow_d, &follow);
    let ahead = &(leaves & &!&follow) & &!&pf.busy;

    let fetch_pc = mux(&pref, &pf.next_pc, &mux(&ahead, upd_pc, &awfr_pc));
    fetch_request(m, io, dir, (&(&(&fetch | &ahead) | &pref), &fetch_pc));
    let resp = io.fetch_resp.bits().get("data").value();
    let arrives = &is(WAIT) & io.fetch_resp.valid();
    m.when(&arrives, |m| {
        m.connect(
            insn,
            &mux(&pc.bit(2), &resp.slice(63, 32), &resp.slice(31, 0)),
        );
        goto(m, DISPATCH);
    });
    m.when(&(&(&fetch | &ahead) & io.fetch_req.ready()), |m| {
        m.connect(pc, &fetch_pc);
        goto(m, WAIT);
    });
    // The prefetched instruction moves to decode (the AWFR is, or is about to be, at
    // its pc), and its successor is prefetched in the same cycle.
    let follow = &follow | &follow_f;
    m.connect(&pref, &(&arrives | &follow));
    m.when(&follow, |m| {
        m.connect(insn, &pf.insn);
        m.connect(pc, &pf.pc);
        goto(m, DISPATCH);
    });
    pf.inflight
}

/// The I$ request: the fetch unit's (`valid`, `addr`), or the directory reader's while
/// it is `active` (the fetch unit is quiet then: no warp runs before the table is read).
fn fetch_request(
    m: &mut ModuleBuilder,
    io: &Ports,
    dir: Option<&Inst>,
    (valid, addr): (&Value, &Value),
) {
    let req = io.fetch_req.bits();
    let size = lit(addr, 2, crate::rocket::bus::SIZE_BITS);
    let zero = |width: u32| lit(addr, 0, width);
    let mut fields = vec![
        (io.fetch_req.valid().clone(), valid.clone()),
        (req.get("addr").value().clone(), addr.clone()),
        (req.get("size").value().clone(), size),
    ];
    for (field, width) in [("write", 1), ("data", 64), ("mask", 8)] {
        fields.push((req.get(field).value().clone(), zero(width)));
    }
    let Some(dir) = dir else {
        for (port, v) in fields {
            m.connect(&port, &v);
        }
        return;
    };
    let active = dir.port("active");
    let theirs = dir.io("req");
    m.connect(theirs.ready(), io.fetch_req.ready());
    let tb = theirs.bits();
    let names = ["valid", "addr", "size", "write", "data", "mask"];
    for ((port, v), name) in fields.into_iter().zip(names) {
        let other = match name {
            "valid" => theirs.valid().clone(),
            _ => tb.get(name).value().clone(),
        };
        m.connect(&port, &mux(&active, &other, &v));
    }
}

/// The prefetch buffer: one instruction, fetched at the sequential successor of the one
/// arriving in decode, so that a run of plain instructions leaves decode at one a cycle.
struct Prefetch {
    /// Holds `insn` at `pc`.
    full: Value,
    /// Its request is in the I$ (the only one: the I$ is blocking).
    inflight: Value,
    /// Its response arrives this cycle.
    arriving: Value,
    /// In flight and not answering this cycle: no other request may start.
    busy: Value,
    pc: Value,
    /// The instruction, held or arriving.
    insn: Value,
    /// Where a prefetch started this cycle fetches.
    next_pc: Value,
}

/// The prefetch buffer's registers. A prefetch (`pref`) starts as decode's own
/// instruction arrives (state WAIT: at `pc` + 4) or as the buffer's moves to decode
/// (`follow`: at its pc + 4); an unused one stays (the code does not change within a
/// kernel) until the next prefetch or warp `start`. With contexts, a load-like
/// instruction arriving in decode (by its opcode: a shared load the CP serves keeps its
/// context, and then the fall-through is fetched when it leaves) prefetches the next
/// context's pc instead when another context may fetch (`Switch::free`), but not at the
/// switch itself (the next context's instruction arriving).
fn prefetch_buffer(
    m: &mut ModuleBuilder,
    io: &Ports,
    (in_wait, pc, start): (&Value, &Value, &Value),
    (follow, pref, switch): (&Value, &Value, &Switch),
) -> Prefetch {
    let full = m.reg("pf_full", 1, false);
    let inflight = m.reg("pf_inflight", 1, false);
    let pf_pc = m.reg("pf_pc", 32, hdl::ResetValue::None);
    let held = m.reg("pf_insn", 32, hdl::ResetValue::None);
    let resp = io.fetch_resp.bits().get("data").value();
    let word = mux(&pf_pc.bit(2), &resp.slice(63, 32), &resp.slice(31, 0));
    let arriving = &inflight & io.fetch_resp.valid();
    let four = lit(pc, 4, 32);
    let sequential = mux(in_wait, &(pc + &four), &(&pf_pc + &four));
    let next_pc = match &switch.free {
        Some(FreeSwitch {
            now,
            peek_pc,
            other,
        }) => {
            let decode_word = mux(&pc.bit(2), &resp.slice(63, 32), &resp.slice(31, 0));
            let incoming = mux(in_wait, &decode_word, &mux(&full, &held, &word));
            let op = incoming.slice(6, 0);
            let load_like = [opcode::LOAD, opcode::LOAD_FP, opcode::AMO]
                .iter()
                .fold(lit(pc, 0, 1), |a, &o| &a | &op.eq(&lit(pc, o, 7)));
            let ahead = &(&load_like & other) & &!now;
            mux(&ahead, peek_pc, &sequential)
        }
        None => sequential,
    };
    m.when(&arriving, |m| {
        m.connect(&full, &lit(pc, 1, 1));
        m.connect(&held, &word);
        m.connect(&inflight, &lit(pc, 0, 1));
    });
    m.when(&(follow | start), |m| m.connect(&full, &lit(pc, 0, 1)));
    m.when(&(pref & io.fetch_req.ready()), |m| {
        m.connect(&inflight, &lit(pc, 1, 1));
        m.connect(&pf_pc, &next_pc);
        m.connect(&full, &lit(pc, 0, 1));
    });
    Prefetch {
        busy: &inflight & &!io.fetch_resp.valid(),
        insn: mux(&full, &held, &word),
        full,
        inflight,
        arriving,
        pc: pf_pc,
        next_pc,
    }
}

/// The plan without affine mechanisms: `jal x0` and fences stay in the CP, the rest goes
/// to the lanes.
fn baseline_plan(d: &Decoded, insn: &Value) -> Plan {
    let zero = |w: u32| lit(insn, 0, w);
    let none = Compact {
        ok: zero(1),
        base: zero(32),
        stride: zero(16),
    };
    Plan {
        cp_alone: !&d.to_siu,
        scalar: zero(1),
        load_in_cp: zero(1),
        load_addr: zero(32),
        touches: Vec::new(),
        materialize: zero(1),
        mat_insn: zero(32),
        old: none.clone(),
        rd: zero(6),
        writes: zero(1),
        result: none.clone(),
        branch_in_cp: zero(1),
        branch_taken: zero(1),
        jalr_in_cp: zero(1),
        jalr_target: zero(32),
        sources: Vec::new(),
        outside: zero(d.fault.who.width()),
        asrf: None,
    }
}

/// What [`send`] decided: the instruction itself leaves decode this cycle if the SIU
/// takes it (`main`), and whether it goes to the SIU.
struct Sent {
    main: Value,
    to_siu: Value,
}

/// Drives `inst`: the instruction with its compact sources, a scalar instruction for
/// the fragment's lowest thread once the lanes are idle, and a materialisation when the
/// plan has one ([`Materialization`]: with PWFBs first, with the DWS sequencer right
/// after the instruction).
fn send(
    m: &mut ModuleBuilder,
    (io, seq): (&Ports, bool),
    ctx: &Context,
    plan: &Plan,
    (dispatch, insn, pc, mask): (&Value, &Value, &Value, &Value),
) -> Sent {
    let hold = &(&(dispatch & &plan.scalar) & &!&plan.load_in_cp) & &!&io.exec_idle;
    let ib = io.inst.bits();
    let Some(mat) = plan.asrf.is_some().then(|| match seq {
        false => Materialization::first(m, ctx, plan, (dispatch, pc)),
        true => Materialization::after(m, ctx, plan, pc),
    }) else {
        // Without the ASRF: the instruction alone.
        let main = dispatch & &!&hold;
        let to_siu = &main & &!&plan.cp_alone;
        m.connect(io.inst.valid(), &to_siu);
        for (field, v) in [("pc", pc), ("insn", insn), ("mask", mask)] {
            m.connect(ib.get(field).value(), v);
        }
        m.connect(ib.get("tid_base").value(), &ctx.tid_base);
        if let Some(index) = &ctx.index {
            m.connect(ib.get("ctx").value(), index);
        }
        return Sent { main, to_siu };
    };
    let main = &(dispatch & &!&mat.now) & &!&hold;
    let to_siu = &(&main & &!&plan.cp_alone) & &!&plan.load_in_cp;
    m.connect(io.inst.valid(), &(&mat.now | &to_siu));
    mat.advance(m, plan, (&main, &to_siu), io.inst.ready());
    let mask_out = mux(
        &mat.now,
        &mat.outside,
        &mux(&plan.scalar, &lowest_one(mask), mask),
    );
    for (field, v) in [
        ("pc", mux(&mat.now, &mat.pc, pc)),
        ("insn", mux(&mat.now, &mat.insn, insn)),
        ("mask", mask_out),
        ("tid_base", mux(&mat.now, &mat.tid_base, &ctx.tid_base)),
    ] {
        m.connect(ib.get(field).value(), &v);
    }
    if let (Some(index), Some(held)) = (&ctx.index, &mat.ctx) {
        m.connect(ib.get("ctx").value(), &mux(&mat.now, held, index));
    }
    if seq {
        m.connect(ib.get("mat_after").value(), &mat.now);
    }
    let src = ib.get("src");
    for (i, s) in plan.sources.iter().enumerate() {
        // The materialisation reads the old entry as rs1 (and as rs2: fsgnj.s).
        let ok = mux(&mat.now, &lit(pc, (i < 2) as u64, 1), &s.ok);
        let base = mux(&mat.now, &mat.base, &s.base);
        let stride = mux(&mat.now, &mat.stride, &s.stride);
        let e = src.index(i);
        for (field, v) in [("ok", ok), ("base", base), ("stride", stride)] {
            m.connect(e.get(field).value(), &v);
        }
    }
    Sent { main, to_siu }
}

/// Lazy expansion's materialisation (+a): the destination's old entry written to the
/// warp's threads outside the group, sent to the SIU (`now`) with the instruction's
/// pc, warp and context.
/// - With PWFBs it goes first, from decode (`done` once it went, until its instruction
///   leaves): the AWFR does not move while an instruction waits in decode.
/// - With the DWS sequencer it goes right after its instruction (`done` is then the
///   materialisation pending; nothing is dispatched before it goes): the sequencer's
///   pick may change while an instruction waits in decode (its syncs go on), and a
///   materialisation sent ahead would be left without its instruction. The two write
///   disjoint threads, so their order does not matter to the registers; the cost is
///   the SIU's write-after-write wait behind the instruction (a load's writeback).
struct Materialization {
    now: Value,
    done: Value,
    /// The registers the instruction's leaving fills (with the sequencer).
    held: Option<Vec<(Value, Value)>>,
    pc: Value,
    insn: Value,
    outside: Value,
    base: Value,
    stride: Value,
    tid_base: Value,
    ctx: Option<Value>,
}

impl Materialization {
    fn first(
        m: &mut ModuleBuilder,
        ctx: &Context,
        plan: &Plan,
        (dispatch, pc): (&Value, &Value),
    ) -> Materialization {
        let done = m.reg("mat_done", 1, false);
        Materialization {
            now: &(dispatch & &plan.materialize) & &!&done,
            done,
            held: None,
            pc: pc.clone(),
            insn: plan.mat_insn.clone(),
            outside: plan.outside.clone(),
            base: plan.old.base.clone(),
            stride: plan.old.stride.clone(),
            tid_base: ctx.tid_base.clone(),
            ctx: ctx.index.clone(),
        }
    }

    fn after(m: &mut ModuleBuilder, ctx: &Context, plan: &Plan, pc: &Value) -> Materialization {
        let mut held = Vec::new();
        let mut keep = |name: &str, v: &Value| {
            let r = m.reg(name, v.width(), hdl::ResetValue::None);
            held.push((r.clone(), v.clone()));
            r
        };
        let (pc, insn) = (keep("mat_pc", pc), keep("mat_insn", &plan.mat_insn));
        let outside = keep("mat_mask", &plan.outside);
        let (base, stride) = (
            keep("mat_base", &plan.old.base),
            keep("mat_stride", &plan.old.stride),
        );
        let tid_base = keep("mat_tid_base", &ctx.tid_base);
        let ctx = ctx.index.as_ref().map(|i| keep("mat_ctx", i));
        let pending = m.reg("mat_pending", 1, false);
        Materialization {
            now: pending.clone(),
            done: pending,
            held: Some(held),
            pc,
            insn,
            outside,
            base,
            stride,
            tid_base,
            ctx,
        }
    }

    /// The next cycle's state, as the SIU is `ready` for what `now` sends and the
    /// instruction (`main`, to the SIU or completed in the CP) leaves.
    fn advance(
        &self,
        m: &mut ModuleBuilder,
        plan: &Plan,
        (main, to_siu): (&Value, &Value),
        ready: &Value,
    ) {
        let (one, zero) = (lit(ready, 1, 1), lit(ready, 0, 1));
        let sent = &self.now & ready;
        let Some(held) = &self.held else {
            let leaves = main & &(&(&plan.cp_alone | &plan.load_in_cp) | ready);
            m.when(&sent, |m| m.connect(&self.done, &one))
                .elsewhen(&leaves, |m| m.connect(&self.done, &zero));
            return;
        };
        let leaves = &(to_siu & ready) & &plan.materialize;
        m.when(&leaves, |m| {
            m.connect(&self.done, &one);
            for (r, v) in held {
                m.connect(r, v);
            }
        })
        .elsewhen(&sent, |m| m.connect(&self.done, &zero));
    }
}

/// The CP's shared loads (`shared_load.rs`, +a) on the `s_req`/`s_resp` port, with
/// the shared load cache emptied while no kernel runs; the front end drives `go`,
/// `addr`, `funct3`, `rd` and `store_sent`.
fn shared_load_unit(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    ks: &Inst,
    io: &Ports,
) -> Result<Option<Inst>, HdlErrors> {
    let Some((req, resp)) = &io.shared else {
        return Ok(None);
    };
    let sl = m.instance(
        "shared_load",
        &shared_load(&p.shared_load_cache(), p.reg_bits())?,
    );
    m.connect(&sl.port("exec_idle"), &io.exec_idle);
    m.connect(&sl.port("smu_idle"), &io.smu_idle);
    m.connect_bundle(req, &sl.io("req"));
    m.connect_bundle(&sl.io("resp"), resp);
    if let Some(snoop) = &io.snoop {
        m.connect_bundle(&sl.io("snoop"), snoop);
        m.connect(&sl.port("flush"), &!&ks.port("rocc_busy"));
    }
    Ok(Some(sl))
}

/// The shared load unit's inputs (+a): a load the CP serves leaves decode (`go` as it
/// is `gone`, with its address, width and destination), and the SIU takes a store
/// (`stores`).
fn shared_load_inputs(
    m: &mut ModuleBuilder,
    sl: Option<&Inst>,
    plan: &Plan,
    (gone, insn): (&Value, &Value),
    stores: Value,
) {
    let Some(sl) = sl else {
        return;
    };
    for (port, v) in [
        ("go", gone & &plan.load_in_cp),
        ("addr", plan.load_addr.clone()),
        ("funct3", insn.slice(14, 12)),
        ("rd", plan.rd.clone()),
        ("store_sent", stores),
    ] {
        m.connect(&sl.port(port), &v);
    }
}

/// Whether the decoded instruction must wait for the shared load in flight: it reads
/// or writes its destination, is itself scalar (one at a time), writes memory (the load
/// must not see a later store), or the load's value is written to the ASRF this cycle
/// (its one write port).
fn shared_load_hazard(sl: &Option<Inst>, plan: &Plan, writes_memory: &Value) -> Value {
    let Some(sl) = sl else {
        return lit(&plan.rd, 0, 1);
    };
    let rd = sl.port("rd_out");
    let touches = plan
        .touches
        .iter()
        .fold(&plan.scalar | writes_memory, |a, (uses, r)| {
            &a | &(uses & &r.eq(&rd))
        });
    &(&sl.port("busy") & &touches) | &sl.port("done")
}

/// The ASRF's writes (and `atrace`): the destination's new entry as the instruction
/// leaves decode (a scalar one's later, when its result arrives in state SCALAR:
/// returns that arrival).
fn asrf_writes(
    m: &mut ModuleBuilder,
    io: &Ports,
    plan: &Plan,
    (gone, in_scalar): (&Value, &Value),
    sl: Option<&Inst>,
) -> Value {
    let (Some(file), Some(at), Some(sw), Some(sl)) = (&plan.asrf, &io.atrace, &io.scalar_write, sl)
    else {
        return lit(gone, 0, 1);
    };
    let scalar_done = in_scalar & sw.valid();
    let loaded = sl.port("done");
    let done = &scalar_done | &loaded;
    let decided = &(gone & &plan.writes) & &!&plan.scalar;
    let data = &mux(&loaded, &sl.port("data"), sw.bits().get("data").value());
    let r = &plan.result;
    let one = lit(gone, 1, 1);
    let reg = mux(&loaded, &sl.port("rd_out"), &plan.rd);
    for (port, v) in [
        ("en", &decided | &done),
        ("reg", reg.clone()),
        ("ok", mux(&done, &one, &r.ok)),
        ("base", mux(&done, data, &r.base)),
        ("stride", mux(&done, &lit(gone, 0, 16), &r.stride)),
    ] {
        m.connect(&file.port(&format!("w_{port}")), &v);
        match port {
            "en" => m.connect(at.valid(), &v),
            "reg" => m.connect(at.bits().get(port).value(), &v.slice(5, 0)),
            _ => m.connect(at.bits().get(port).value(), &v),
        }
    }
    if reg.width() > 6 {
        m.connect(at.bits().get("ctx").value(), &reg.slice(reg.width() - 1, 6));
    }
    scalar_done
}

/// The plan with +a: the ASRF, its initial values at a warp's start, and the
/// classification (`classify.rs`) for the warp's convergence (with contexts, the
/// current context's: each keeps its warp's mask and its bank of the ASRF). The warp
/// is converged when the instruction's `mask` holds all its threads and (with PWFBs)
/// no fragment is pending; with the DWS sequencer a load-like instruction's mask is its
/// PC-merged group's (the golden model's: the group that executes it).
fn affine_plan(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (ks, pw, ctx): (&Inst, &Inst, &Context),
    (insn, pc, mask): (&Value, &Value, &Value),
    (c, d): (&Ctrl, &Decoded),
) -> Result<Plan, HdlErrors> {
    let start = ks.port("start");
    let start_mask = ks.port("start_mask");
    let warp_mask = warp_masks(m, p, ks, ctx);
    let converged = match p.sequencer() {
        Some(_) => mask.eq(&warp_mask),
        None => {
            let pending = pw.port("pending");
            &mask.eq(&warp_mask) & &pending.eq(&lit(&pending, 0, pending.width()))
        }
    };
    let branches = matches!(p.affine, Affine::Ab | Affine::Abm);
    let stacks = p
        .avc
        .then(|| (ks.port("stack_top"), ks.port("stack_region")));
    let (file, plan) = classify(
        m,
        (p.warp_size, branches, p.warps),
        (insn, pc, &ctx.tid_base, ctx.index.as_ref()),
        (c, &d.tidx),
        (&converged, stacks.as_ref().map(|(t, r)| (t, r))),
    )?;
    if p.warps > 1 {
        m.connect(&file.port("start_ctx"), &ks.port("start_ctx"));
    }
    // sp = top - tid * bytes: compact when -bytes fits the stride (always for a warp of
    // one thread, whose stride is 0), as the golden model's `Asrf::warp_start` finds.
    let bytes = ks.port("stack_bytes");
    // (At a warp's start: the kernel state's `tid_base` is the starting warp's.)
    let sp_base = &ks.port("stack_top") - &ks.port("tid_base").mul(&bytes).slice(31, 0);
    let step = lit(&bytes, 0, 32) - bytes.clone();
    let single = start_mask.eq(&lit(&start_mask, 1, start_mask.width()));
    let top = step.slice(31, 15);
    let fits = &top.eq(&lit(&top, 0, 17)) | &top.eq(&lit(&top, 0x1_ffff, 17));
    for (port, v) in [
        ("start", start.clone()),
        ("sp_base", sp_base),
        (
            "sp_stride",
            mux(&single, &lit(&bytes, 0, 16), &step.slice(15, 0)),
        ),
        ("sp_ok", &single | &fits),
        ("gp", ks.port("gp")),
        ("tp", ks.port("tp")),
    ] {
        m.connect(&file.port(port), &v);
    }
    Ok(Plan {
        outside: &warp_mask & &!mask,
        asrf: Some(file),
        ..plan
    })
}

/// The current context's warp's threads (its mask at its start).
fn warp_masks(m: &mut ModuleBuilder, p: &FgsimtParams, ks: &Inst, ctx: &Context) -> Value {
    let start = ks.port("start");
    let start_mask = ks.port("start_mask");
    let Some(index) = &ctx.index else {
        let warp_mask = m.reg_en("warp_mask", start_mask.width(), 0u64, &start);
        m.connect(&warp_mask, &start_mask);
        return warp_mask;
    };
    let at = onehot_decode(&ks.port("start_ctx"), p.warps);
    let masks: Vec<Value> = (0..p.warps)
        .map(|k| {
            let en = &start & &at.bit(k);
            let r = m.reg_en(&format!("warp_mask{k}"), start_mask.width(), 0u64, &en);
            m.connect(&r, &start_mask);
            r
        })
        .collect();
    onehot_mux(&onehot_decode(index, p.warps), &masks)
}

/// Decodes the fetched instruction: what goes where, and the faults of decode.
fn decode_insn(c: &Ctrl, insn: &Value, pc: &Value, mask: &Value) -> Decoded {
    let opcode = insn.slice(6, 0);
    let rd0 = insn.slice(11, 7).eq(&lit(insn, 0, 5));
    let funct3 = insn.slice(14, 12);
    let system = opcode.eq(&lit(insn, OPCODE_SYSTEM, 7));
    let tidx = &(&(&opcode.eq(&lit(insn, OPCODE_CUSTOM0, 7))
        & &insn.slice(31, 25).eq(&lit(insn, funct7::TIDX, 7)))
        & &funct3.eq(&lit(insn, TIDX_FUNCT3, 3)))
        & &insn.slice(24, 15).eq(&lit(insn, 0, 10));
    let fp = c.fp.as_ref().expect("decoded with the F extension");
    let rm = insn.slice(14, 12);
    let bad_rm = &fp.rm_used & &(&rm.eq(&lit(insn, 5, 3)) | &rm.eq(&lit(insn, 6, 3)));
    let ecall = &c.ecall;
    let ebreak = &c.ebreak;
    let illegal =
        &(&(&!&c.legal | &bad_rm) | &(&system & &!&(ecall | ebreak))) | &(&c.rocc & &!&tidx);
    let jal_target = pc + &c.imm;
    let misaligned_jal = &c.jal & &jal_target.bit(1);
    let k5 = |v: u64| lit(insn, v, 5);
    let cause = mux(
        &illegal,
        &k5(cause::ILLEGAL_INSTRUCTION),
        &mux(
            ecall,
            &k5(cause::ECALL),
            &mux(
                ebreak,
                &k5(cause::BREAKPOINT),
                &k5(cause::MISALIGNED_TARGET),
            ),
        ),
    );
    let tval = mux(
        &illegal,
        insn,
        &mux(ecall, &lit(insn, 0, 32), &mux(ebreak, pc, &jal_target)),
    );
    let when = &(&illegal | &(ecall | ebreak)) | &misaligned_jal;
    let to_siu = !&(&(&(&c.jal & &rd0) | &c.fence) | &c.fence_i);
    Decoded {
        fault: Fault {
            when,
            cause,
            tval,
            who: lowest_one(mask),
        },
        tidx,
        branch: c.branch.clone(),
        jalr: c.jalr.clone(),
        to_siu,
        next_pc: mux(&c.jal, &jal_target, &(pc + &lit(pc, 4, 32))),
        target: pc + &c.imm,
    }
}

/// A result the CP resolved (`set`, with `value`), held until the state `waiting` for
/// it takes it the next cycle: (the CP's, its value, a result from either side taken,
/// the lanes' arriving as `lanes`).
fn cp_result(
    m: &mut ModuleBuilder,
    name: &str,
    (waiting, lanes): (&Value, &Value),
    (set, value): (&Value, &Value),
) -> (Value, Value, Value) {
    let cp = m.reg(&format!("cp_{name}"), 1, false);
    let held = m.reg(
        &format!("cp_{name}_value"),
        value.width(),
        hdl::ResetValue::None,
    );
    let got = waiting & &(lanes | &cp);
    m.when(set, |m| {
        m.connect(&cp, &lit(value, 1, 1));
        m.connect(&held, value);
    })
    .elsewhen(&got, |m| m.connect(&cp, &lit(value, 0, 1)));
    (cp, held, got)
}

/// A branch's result, from the lanes (in state `waiting`) or (`cp_set`: +b, a uniform
/// branch) from the CP as it leaves decode: the PWFB update it makes and its fault (a
/// misaligned target some thread takes).
fn resolve_branch(
    m: &mut ModuleBuilder,
    io: &Ports,
    (waiting, pc, mask, target): (&Value, &Value, &Value, &Value),
    (cp_set, cp_taken): (&Value, &Value),
) -> Update {
    let (cp, all, got) = cp_result(
        m,
        "branch",
        (waiting, io.branch.valid()),
        (cp_set, cp_taken),
    );
    let zero = lit(mask, 0, mask.width());
    let lanes = io.branch.bits().get("taken").value();
    let taken = &mux(&cp, &mux(&all, mask, &zero), lanes) & mask;
    let none = taken.eq(&zero);
    let all = taken.eq(mask);
    let fault = Fault {
        when: &(&got & &!&none) & &target.bit(1),
        cause: lit(pc, cause::MISALIGNED_TARGET, 5),
        tval: target.clone(),
        who: lowest_one(&taken),
    };
    Update {
        when: &got & &!&fault.when,
        pc: mux(&all, target, &(pc + &lit(pc, 4, 32))),
        fall: !&all,
        exit: zero.clone(),
        push: &!&none & &!&all,
        push_mask: taken,
        fault,
    }
}

/// A jalr's result, from the lanes (in state `waiting`) or (`cp_set`: +a, a uniform
/// target) from the CP as it leaves decode: its PWFB update (a target of 0 ends the
/// fragment's threads) and its fault (divergent or misaligned targets).
fn resolve_jump(
    m: &mut ModuleBuilder,
    io: &Ports,
    waiting: &Value,
    mask: &Value,
    (cp_set, cp_target): (&Value, &Value),
) -> Update {
    let (cp, held, got) = cp_result(m, "jump", (waiting, io.jump.valid()), (cp_set, cp_target));
    let jb = io.jump.bits();
    let target = mux(&cp, &held, jb.get("target").value());
    let agree = &cp | jb.get("agree").value();
    let agree = &agree;
    let exit = target.eq(&lit(&target, 0, 32));
    let fault = Fault {
        when: &got & &(&!agree | &target.bit(1)),
        cause: mux(
            agree,
            &lit(&target, cause::MISALIGNED_TARGET, 5),
            &lit(&target, cause::DIVERGENT_JUMP, 5),
        ),
        tval: target.clone(),
        who: lowest_one(mask),
    };
    Update {
        when: &got & &!&fault.when,
        pc: target,
        fall: lit(mask, 0, 1),
        exit: mux(&exit, mask, &lit(mask, 0, mask.width())),
        push: lit(mask, 0, 1),
        push_mask: lit(mask, 0, mask.width()),
        fault,
    }
}

/// The first fault (the SIU's, being of an older instruction, before the front end's)
/// goes to the `fault` port and halts the engine.
fn report_faults(
    m: &mut ModuleBuilder,
    io: &Ports,
    tid_base: &Value,
    faults: &[Fault],
    (state, pc): (&Value, &Value),
) {
    let out = io.fault.bits();
    let regs: Vec<Value> = ["cause", "pc", "thread", "tval"]
        .iter()
        .map(|f| m.reg(&format!("fault_{f}"), out.get(f).value().width(), 0u64))
        .collect();
    let valid = m.reg("fault_valid", 1, false);
    let ef = io.exec_fault.bits();
    let mut pending = lit(pc, 0, 1);
    let mut chosen: Option<[Value; 4]> = None;
    let exec = [
        ef.get("cause").value().clone(),
        ef.get("pc").value().clone(),
        ef.get("thread").value().clone(),
        ef.get("tval").value().clone(),
    ];
    let cases =
        std::iter::once((io.exec_fault.valid().clone(), exec)).chain(faults.iter().map(|f| {
            let thread = tid_base + &onehot_encode(&f.who).zext(32);
            (
                f.when.clone(),
                [f.cause.clone(), pc.clone(), thread, f.tval.clone()],
            )
        }));
    for (when, values) in cases.collect::<Vec<_>>().into_iter().rev() {
        chosen = Some(match chosen {
            None => values,
            Some(prev) => std::array::from_fn(|i| mux(&when, &values[i], &prev[i])),
        });
        pending = &pending | &when;
    }
    let chosen = chosen.expect("at least one fault source");
    m.when(&(&pending & &!&valid), |m| {
        m.connect(&valid, &lit(&valid, 1, 1));
        for (r, v) in regs.iter().zip(&chosen) {
            m.connect(r, v);
        }
        m.connect(state, &lit(state, HALTED, STATE_BITS));
    });
    m.connect(io.fault.valid(), &valid);
    for (f, r) in ["cause", "pc", "thread", "tval"].iter().zip(&regs) {
        m.connect(out.get(f).value(), r);
    }
}
