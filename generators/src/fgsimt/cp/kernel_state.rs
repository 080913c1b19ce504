//! The CP's kernel state registers and warp contexts (seed 000, section 3.1 and Figure 3:
//! "the CP ... launches warps one at a time"; with `warps` > 1, seed 001's resident
//! warps; docs/fgsimt-engine.md, "CP engine side" and "Multithreading").
//!
//! It takes the SIMT runtime's RoCC commands (`kernels/runtime/simt.h`): `stack` (sp of
//! thread t = top - t * bytes) and `globals` (gp, tp) set registers; `launch` (n threads
//! from `entry`, xd set) runs warps 0 .. ceil(n / warp_size) - 1 in `warps` contexts: the
//! next warp starts in the lowest context that holds none and whose last warp's
//! instructions have all written back (`ctx_idle`: the SRF holds a warp a context), one
//! a cycle, with the mask of its threads below n. With one context that is seed 000's
//! one warp at a time. After the last warp the fence waits for the SMU's in-flight
//! counter (`smu_idle`) and then answers the command, so the host sees every store of
//! the kernel. `busy` is high from the launch's acceptance to its answer.
//!
//! A command the runtime never sends (another funct7, a wrong funct3 or rd, `tidx` on
//! the host) raises `bad_cmd` (the engine's fault: the bench stops, naming it); with
//! `avc`, so does a `stack` whose top or bytes a thread are not word-aligned.
//! `halt` (a kernel fault) stops everything: no command is accepted or answered.

use super::super::params::FgsimtParams;
use crate::rocket::bus::{rocc_command, rocc_response};
use hdl::helpers::{lowest_one, onehot_encode};
use hdl::{mux, Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The runtime's custom-0 funct7 values (`kernels/runtime/simt.h`).
pub mod funct7 {
    pub const TIDX: u64 = 0;
    pub const LAUNCH: u64 = 1;
    pub const STACK: u64 = 2;
    pub const GLOBALS: u64 = 3;
}

/// States.
const IDLE: u64 = 0;
const RUN: u64 = 1;
const FENCE: u64 = 2;
const RESPOND: u64 = 3;
const STATE_BITS: u32 = 2;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// Ports: `rocc_cmd`, `rocc_resp`, `rocc_busy`; in: `warp_done` (a bit a context: its
/// warp's fragments have all finished), `ctx_idle` (a bit a context: nothing of it
/// queued or executing, its registers final), `exec_idle`, `smu_idle`, `halt` (and
/// with the DWS sequencer `table_ready`: the launch's branches are in its table); out:
/// `start` (a warp starts this cycle) with `start_ctx` (with `warps` > 1), `entry`,
/// `start_mask`, `tid_base` (the starting warp's), `tid<k>` (context k's warp's),
/// `launching` (a launch accepted, with `avc` or the DWS sequencer),
/// `running` (a bit a context: it holds a warp), the ABI values `stack_top`,
/// `stack_bytes`, `gp`, `tp`, and `bad_cmd`; with `avc` also `threads` (the launch's n)
/// and `stack_region` (n * bytes, the stacks' extent below `stack_top`).
pub fn kernel_state(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtKernelState");
    let cmd = m.io("rocc_cmd", Dir::In, &rocc_command());
    let resp = m.io("rocc_resp", Dir::Out, &rocc_response());
    let busy_out = m.output("rocc_busy", 1);
    let warp_done = m.input("warp_done", p.warps);
    let ctx_idle = m.input("ctx_idle", p.warps);
    let exec_idle = m.input("exec_idle", 1);
    let smu_idle = m.input("smu_idle", 1);
    let halt = m.input("halt", 1);
    // With the DWS sequencer, warps start once the launch's branches are in its table.
    let table_ready = match p.sequencer() {
        Some(_) => m.input("table_ready", 1),
        None => lit(&halt, 1, 1),
    };

    let state = m.reg("state", STATE_BITS, IDLE);
    let is = |s: u64| state.eq(&lit(&state, s, STATE_BITS));
    let regs: Vec<Value> = ["stack_top", "stack_bytes", "gp", "tp", "entry", "n"]
        .iter()
        .map(|name| m.reg(&format!("{name}_r"), 32, 0u64))
        .collect();
    let [top, bytes, gp, tp, entry, n] = <[Value; 6]>::try_from(regs).unwrap();
    // The next warp to start: its thread 0's index.
    let next = m.reg("next_tid", 32, 0u64);
    let resp_rd = m.reg("resp_rd", 5, 0u64);
    let bad = m.reg("bad_r", 1, false);

    // Commands, taken only while idle.
    let c = simt_command(&mut m, &cmd, &(&is(IDLE) & &!&halt));
    let (fire, stack, globals, launch) = (&c.fire, &c.stack, &c.globals, &c.launch);
    let (rs1, rs2) = (&c.rs1, &c.rs2);
    m.when(&(fire & stack), |m| {
        m.connect(&top, rs1);
        m.connect(&bytes, rs2);
    });
    m.when(&(fire & globals), |m| {
        m.connect(&gp, rs1);
        m.connect(&tp, rs2);
    });
    m.when(&(fire & launch), |m| {
        m.connect(&n, rs1);
        m.connect(&entry, rs2);
        m.connect(&next, &lit(&n, 0, 32));
        m.connect(&resp_rd, &c.rd);
        m.connect(&state, &lit(&state, RUN, STATE_BITS));
    });
    let one = lit(&bad, 1, 1);
    // With `avc`, private memory is word-granular: the stacks must be word-aligned.
    let refused = if p.avc {
        let unaligned = (rs1 | rs2).slice(1, 0).or_r();
        &c.bad | &(&(fire & stack) & &unaligned)
    } else {
        c.bad.clone()
    };
    m.when(&refused, |m| m.connect(&bad, &one));

    let ctx = contexts(
        &mut m,
        p,
        (&(&is(RUN) & &table_ready), &halt),
        (&warp_done, &ctx_idle),
        (&n, &next),
    );
    m.when(&(&is(RUN) & &ctx.finished), |m| {
        m.connect(&state, &lit(&state, FENCE, STATE_BITS))
    });
    m.when(&(&(&is(FENCE) & &exec_idle) & &smu_idle), |m| {
        m.connect(&state, &lit(&state, RESPOND, STATE_BITS))
    });
    let respond = &is(RESPOND) & &!&halt;
    m.connect(resp.valid(), &respond);
    m.connect(resp.bits().get("rd").value(), &resp_rd);
    m.connect(resp.bits().get("data").value(), &lit(&n, 0, 64));
    m.when(&(&respond & resp.ready()), |m| {
        m.connect(&state, &lit(&state, IDLE, STATE_BITS))
    });
    m.connect(&busy_out, &!&is(IDLE));

    // With `avc`: the stacks' bytes, registered (n and the size change only while idle).
    let region = p.avc.then(|| {
        let r = m.reg("stack_region", 32, 0u64);
        m.connect(&r, &n.mul(&bytes).slice(31, 0));
        r
    });

    // The starting warp's mask: its threads below n.
    let w = p.warp_size;
    let remaining = &n - &next;
    let full = remaining.ge(&lit(&n, w as u64, 32));
    let ones = lit(&n, u64::MAX >> (64 - w), w);
    let short = ones.dshr(&(&lit(&n, w as u64, 32) - &remaining));
    let mut outputs = vec![
        ("start", ctx.start),
        ("start_mask", mux(&full, &ones, &short)),
        ("entry", entry),
        ("tid_base", next),
        ("running", ctx.running),
        ("stack_top", top),
        ("stack_bytes", bytes),
        ("gp", gp),
        ("tp", tp),
        ("bad_cmd", bad),
    ];
    if p.warps > 1 {
        outputs.push(("start_ctx", ctx.start_ctx));
    }
    if p.avc || p.sequencer().is_some() {
        outputs.push(("launching", fire & launch));
    }
    for (name, v) in outputs {
        let out = m.output(name, v.width());
        m.connect(&out, &v);
    }
    for (k, t) in ctx.tids.iter().enumerate() {
        let out = m.output(&format!("tid{k}"), 32);
        m.connect(&out, t);
    }
    if let Some(region) = region {
        for (name, v) in [("threads", n), ("stack_region", region)] {
            let out = m.output(name, v.width());
            m.connect(&out, &v);
        }
    }
    m.finish()
}

/// The warp contexts while a launch runs.
struct Contexts {
    /// A warp starts this cycle, in context `start_ctx`.
    start: Value,
    start_ctx: Value,
    /// A bit a context: it holds a warp.
    running: Value,
    /// Each context's warp's thread 0.
    tids: Vec<Value>,
    /// Every warp has started and the last ones finish this cycle (or have finished).
    finished: Value,
}

/// The context table: in state `run`, the launch's next warp (at thread `next`, while
/// below `n`) starts in the lowest context that holds none and is idle (the last
/// warp's registers final), one a cycle; a context's warp ends with its `warp_done`.
fn contexts(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    (run, halt): (&Value, &Value),
    (warp_done, ctx_idle): (&Value, &Value),
    (n, next): (&Value, &Value),
) -> Contexts {
    let running = m.reg("running", p.warps, 0u64);
    let tids: Vec<Value> = (0..p.warps)
        .map(|k| m.reg(&format!("tid{k}_r"), 32, 0u64))
        .collect();
    let free = &!&running & ctx_idle;
    let pick = lowest_one(&free);
    let more = next.lt(n);
    let start = &(&(run & &more) & &free.or_r()) & &!halt;
    let next_tid = next + &lit(next, p.warp_size as u64, 32);
    // A warp past 2^32 - warp_size threads would wrap: n is below it.
    let started = mux(&start, &pick, &lit(&pick, 0, p.warps));
    let staying = &running & &!warp_done;
    m.connect(&running, &(&staying | &started));
    m.when(&start, |m| m.connect(next, &next_tid));
    for (k, t) in tids.iter().enumerate() {
        m.when(&(&start & &pick.bit(k as u32)), |m| m.connect(t, next));
    }
    Contexts {
        finished: &!&more & &staying.eq(&lit(&running, 0, p.warps)),
        start_ctx: if p.warps > 1 {
            onehot_encode(&pick)
        } else {
            lit(n, 0, 1)
        },
        start,
        running,
        tids,
    }
}

/// A SIMT runtime command (`kernels/runtime/simt.h`) on a RoCC command port, decoded:
/// `fire` (taken this cycle), which it is, its sources' low words and its rd; `bad` is
/// a command taken that the runtime never sends (another funct7, a wrong funct3 or rd,
/// `tidx` on the host).
pub struct SimtCommand {
    pub fire: Value,
    pub stack: Value,
    pub globals: Value,
    pub launch: Value,
    pub bad: Value,
    pub rs1: Value,
    pub rs2: Value,
    pub rd: Value,
}

/// Decodes `cmd` (`rocket::bus::rocc_command`), taken while `ready`.
pub fn simt_command(m: &mut ModuleBuilder, cmd: &Bundle, ready: &Value) -> SimtCommand {
    let b = cmd.bits();
    let f7 = b.get("funct7").value();
    let f3 = hdl::cat(&[
        b.get("xd").value(),
        b.get("xs1").value(),
        b.get("xs2").value(),
    ]);
    let rd = b.get("rd").value().clone();
    let rd0 = rd.eq(&lit(f7, 0, 5));
    let is_f7 = |v: u64| f7.eq(&lit(f7, v, 7));
    let two_sources = &f3.eq(&lit(&f3, 3, 3)) & &rd0;
    let stack = &is_f7(funct7::STACK) & &two_sources;
    let globals = &is_f7(funct7::GLOBALS) & &two_sources;
    let launch = &(&is_f7(funct7::LAUNCH) & &f3.eq(&lit(&f3, 7, 3))) & &rd0;
    m.connect(cmd.ready(), ready);
    let fire = ready & cmd.valid();
    let bad = &fire & &!&(&(&stack | &globals) | &launch);
    SimtCommand {
        rs1: b.get("rs1_val").value().slice(31, 0),
        rs2: b.get("rs2_val").value().slice(31, 0),
        fire,
        stack,
        globals,
        launch,
        bad,
        rd,
    }
}
