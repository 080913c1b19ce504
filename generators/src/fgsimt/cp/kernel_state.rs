//! The CP's kernel state registers and warp counter (seed 000, section 3.1 and Figure 3:
//! "the CP ... launches warps one at a time"; docs/fgsimt-engine.md, "CP engine side").
//!
//! It takes the SIMT runtime's RoCC commands (`kernels/runtime/simt.h`): `stack` (sp of
//! thread t = top - t * bytes) and `globals` (gp, tp) set registers; `launch` (n threads
//! from `entry`, xd set) runs warps 0 .. ceil(n / warp_size) - 1 one at a time: a warp
//! starts once the previous one's instructions have all written back (`exec_idle`: the
//! SRF holds one warp), with the mask of its threads below n. After the last warp the
//! fence waits for the SMU's in-flight counter (`smu_idle`) and then answers the
//! command, so the host sees every store of the kernel. `busy` is high from the
//! launch's acceptance to its answer.
//!
//! A command the runtime never sends (another funct7, a wrong funct3 or rd, `tidx` on
//! the host) raises `bad_cmd` (the engine's fault: the bench stops, naming it); with
//! `avc`, so does a `stack` whose top or bytes a thread are not word-aligned.
//! `halt` (a kernel fault) stops everything: no command is accepted or answered.

use super::super::params::FgsimtParams;
use crate::rocket::bus::{rocc_command, rocc_response};
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
const START: u64 = 1;
const RUN: u64 = 2;
const FENCE: u64 = 3;
const RESPOND: u64 = 4;
const STATE_BITS: u32 = 3;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// Ports: `rocc_cmd`, `rocc_resp`, `rocc_busy`; in: `warp_done` (the running warp's
/// fragments have all finished), `exec_idle`, `smu_idle`, `halt`; out: `start` (a warp
/// starts this cycle) with `entry`, `start_mask`, `tid_base`, the ABI values
/// `stack_top`, `stack_bytes`, `gp`, `tp`, and `running` (a warp runs), `bad_cmd`; with
/// `avc` also `threads` (the launch's n), `launching` (a launch accepted) and
/// `stack_region` (n * bytes, the stacks' extent below `stack_top`).
pub fn kernel_state(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtKernelState");
    let w = p.warp_size;
    let cmd = m.io("rocc_cmd", Dir::In, &rocc_command());
    let resp = m.io("rocc_resp", Dir::Out, &rocc_response());
    let busy_out = m.output("rocc_busy", 1);
    let warp_done = m.input("warp_done", 1);
    let exec_idle = m.input("exec_idle", 1);
    let smu_idle = m.input("smu_idle", 1);
    let halt = m.input("halt", 1);

    let state = m.reg("state", STATE_BITS, IDLE);
    let is = |s: u64| state.eq(&lit(&state, s, STATE_BITS));
    let regs: Vec<Value> = [
        "stack_top",
        "stack_bytes",
        "gp",
        "tp",
        "entry",
        "n",
        "tid_base",
    ]
    .iter()
    .map(|name| m.reg(&format!("{name}_r"), 32, 0u64))
    .collect();
    let [top, bytes, gp, tp, entry, n, tid_base] = <[Value; 7]>::try_from(regs).unwrap();
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
    let zero = lit(&n, 0, 32);
    m.when(&(fire & launch), |m| {
        m.connect(&n, rs1);
        m.connect(&entry, rs2);
        m.connect(&tid_base, &zero);
        m.connect(&resp_rd, &c.rd);
        let first = mux(
            &rs1.eq(&zero),
            &lit(&state, FENCE, STATE_BITS),
            &lit(&state, START, STATE_BITS),
        );
        m.connect(&state, &first);
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

    // Warps: start one once the SRF is free, run it until its fragments finish.
    let start = &(&is(START) & &exec_idle) & &!&halt;
    m.when(&start, |m| m.connect(&state, &lit(&state, RUN, STATE_BITS)));
    let next_base = &tid_base.zext(33) + &lit(&tid_base, w as u64, 33);
    let last_warp = next_base.ge(&n.zext(33));
    m.when(&(&is(RUN) & &warp_done), |m| {
        m.connect(&tid_base, &next_base.slice(31, 0));
        let next = mux(
            &last_warp,
            &lit(&state, FENCE, STATE_BITS),
            &lit(&state, START, STATE_BITS),
        );
        m.connect(&state, &next);
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
    let remaining = &n - &tid_base;
    let full = remaining.ge(&lit(&n, w as u64, 32));
    let ones = lit(&n, u64::MAX >> (64 - w), w);
    let short = ones.dshr(&(&lit(&n, w as u64, 32) - &remaining));
    for (name, v) in [
        ("start", start),
        ("start_mask", mux(&full, &ones, &short)),
        ("entry", entry),
        ("tid_base", tid_base),
        ("stack_top", top),
        ("stack_bytes", bytes),
        ("gp", gp),
        ("tp", tp),
        ("running", is(RUN)),
        ("bad_cmd", bad),
    ] {
        let out = m.output(name, v.width());
        m.connect(&out, &v);
    }
    if let Some(region) = region {
        let launching = fire & launch;
        for (name, v) in [
            ("threads", n),
            ("launching", launching),
            ("stack_region", region),
        ] {
            let out = m.output(name, v.width());
            m.connect(&out, &v);
        }
    }
    m.finish()
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
