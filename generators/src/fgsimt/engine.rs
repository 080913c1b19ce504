//! `FgsimtEngine`: the engine behind the control processor's RoCC port (seed 000,
//! Figure 3; docs/fgsimt-engine.md, "Interfaces"): the CP's engine side (`cp/frontend.rs`:
//! kernel state, warp counter, AWFR/PWFB, warp fetch and decode), the SIU and the lanes
//! (`execute.rs`) and the SMU (`smu/`), joined as the interfaces of `bundles.rs` say.
//!
//! Ports: `rocc_cmd` (in), `rocc_resp`, `rocc_busy`; `fetch_req`/`fetch_resp` (to the
//! I$ arbiter); `n<l>_req`/`n<l>_resp` per lane and `w_req`/`w_resp` (the D$'s narrow and
//! wide ports); `fault`; `ftrace`, `wtrace` (lockstep traces; with the DWS sequencer
//! also `strace`, `bundles::strace`); the Table 3 counters
//! of [`STATS`]; with `avc`, `p_req`/`p_resp`, `avc_idle` and `avc_discard` (the
//! private path to the tile's AVC, `smu/private.rs`).

use super::bundles::{self, MEM_TAG_BITS};
use super::cp::frontend::frontend;
use super::execute::execute;
use super::l1::{narrow_request, narrow_response, op as l1_op, wide_request, wide_response};
use super::params::{Affine, FgsimtParams};
use super::smu::smu;
use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_response};
use hdl::{Dir, HdlErrors, Inst, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// The engine's counters for Table 3 (32 bits each, from reset): cycles a launch runs,
/// the SMU's wide and narrow D$ accesses and the bytes the threads' accesses asked for.
pub const STATS: [&str; 4] = [
    "stat_kernel_cycles",
    "stat_wide",
    "stat_narrow",
    "stat_bytes",
];

/// Passes `inst`'s bundle `name` (of `shape`, flowing `dir`) through as the engine's.
fn pass(m: &mut ModuleBuilder, inst: &Inst, name: &str, dir: Dir, shape: &Shape) {
    let io = m.io(name, dir, shape);
    match dir {
        Dir::In => m.connect_bundle(&inst.io(name), &io),
        Dir::Out => m.connect_bundle(&io, &inst.io(name)),
    }
}

/// The front end's `scalar_write` (+a): any SRF write of `execute` (the front end looks
/// only while the lanes run its scalar instruction alone, whose one write it is).
fn scalar_write(m: &mut ModuleBuilder, p: &FgsimtParams, fe: &Inst, ex: &Inst) {
    let trace = ex.io("wtrace");
    let writes: Vec<(Value, Value)> = (0..p.lanes as usize)
        .flat_map(|l| (0..bundles::SRF_WRITE_PORTS as usize).map(move |i| (l, i)))
        .map(|(l, i)| {
            let w = trace.index(l).index(i);
            (w.valid().clone(), w.bits().get("data").value().clone())
        })
        .collect();
    let sw = fe.io("scalar_write");
    let any = writes[1..]
        .iter()
        .fold(writes[0].0.clone(), |a, (v, _)| &a | v);
    m.connect(sw.valid(), &any);
    let data = hdl::helpers::priority_mux(&writes, &writes[0].1);
    m.connect(sw.bits().get("data").value(), &data);
}

/// The front end's `snoop` (its shared load cache): the words each memory slot entering
/// the SMU writes (a store, SC or AMO: any op but a load or LR).
fn store_snoop(m: &mut ModuleBuilder, p: &FgsimtParams, fe: &Inst, ex: &Inst) {
    let slot = ex.io("mem");
    let bits = slot.bits();
    let op = bits.get("op").value();
    let read = |code: u64| op.eq(&op.konst(hdl::Bits::from_u64(op.width(), code)));
    let mut writes = &(slot.valid() & &!&(&read(l1_op::LOAD) | &read(l1_op::LR))).repeat(p.lanes)
        & bits.get("active").value();
    if p.avc {
        // Private stores (their `addr` a stack offset) touch no word the cache holds.
        writes = &writes & &!bits.get("private").value();
    }
    let snoop = fe.io("snoop");
    m.connect(snoop.get("write").value(), &writes);
    for l in 0..p.lanes as usize {
        let addr = bits.get("lane").index(l).get("addr").value().slice(31, 2);
        m.connect(snoop.get("word").index(l).value(), &addr);
    }
}

/// With `avc`: the stacks' extent to execute's stack check, the launch's thread count
/// to the SMU, and the SMU's private path to the AVC (`p_req`,
/// `p_resp`, `avc_idle`; `avc_discard` at each launch), the engine's ports.
fn private_ports(m: &mut ModuleBuilder, p: &FgsimtParams, (fe, ex, mu): (&Inst, &Inst, &Inst)) {
    m.connect(&ex.port("stack_region"), &fe.port("stack_region"));
    m.connect(&mu.port("threads"), &fe.port("threads"));
    let g = p.avc_cache();
    use crate::fgsimt::avc::controller::{transaction, words};
    pass(m, mu, "p_req", Dir::Out, &transaction(&g));
    pass(m, mu, "p_resp", Dir::In, &words(&g));
    let idle = m.input("avc_idle", 1);
    m.connect(&mu.port("avc_idle"), &idle);
    let discard = m.output("avc_discard", 1);
    m.connect(&discard, &fe.port("avc_discard"));
}

/// The engine of `p`.
pub fn engine(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtEngine");
    let fe = m.instance("frontend", &frontend(p)?);
    let ex = m.instance("execute", &execute(p)?);
    let mu = m.instance("smu", &smu(p)?);
    for (name, dir, shape) in [
        ("rocc_cmd", Dir::In, rocc_command()),
        ("rocc_resp", Dir::Out, rocc_response()),
        ("fetch_req", Dir::Out, mem_request(0)),
        ("fetch_resp", Dir::In, mem_response(0)),
        ("fault", Dir::Out, bundles::fault()),
        (
            "ftrace",
            Dir::Out,
            bundles::ftrace(p.warp_size, p.ctx_bits()),
        ),
    ] {
        pass(&mut m, &fe, name, dir, &shape);
    }
    if let Some(d) = p.sequencer() {
        pass(&mut m, &fe, "strace", Dir::Out, &bundles::strace(&d));
    }
    let busy = m.output("rocc_busy", 1);
    m.connect(&busy, &fe.port("rocc_busy"));
    let wtrace = bundles::wtrace(p.lanes, p.threads_per_lane(), p.reg_bits());
    pass(&mut m, &ex, "wtrace", Dir::Out, &wtrace);
    for l in 0..p.lanes {
        let (req, resp) = (narrow_request(MEM_TAG_BITS), narrow_response(MEM_TAG_BITS));
        pass(&mut m, &mu, &format!("n{l}_req"), Dir::Out, &req);
        pass(&mut m, &mu, &format!("n{l}_resp"), Dir::In, &resp);
    }
    pass(&mut m, &mu, "w_req", Dir::Out, &wide_request(MEM_TAG_BITS));
    pass(&mut m, &mu, "w_resp", Dir::In, &wide_response(MEM_TAG_BITS));
    for name in &STATS[1..] {
        let v = mu.port(name);
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    // Cycles a launch runs (RoCC busy: from its acceptance to its answer).
    let kernel_cycles = m.reg("kernel_cycles", 32, 0u64);
    let busy_now = fe.port("rocc_busy");
    m.connect(&kernel_cycles, &(&kernel_cycles + &busy_now.zext(32)));
    let o = m.output(STATS[0], 32);
    m.connect(&o, &kernel_cycles);

    // Front end and execute.
    m.connect_bundle(&ex.io("inst"), &fe.io("inst"));
    m.connect_bundle(&fe.io("branch"), &ex.io("branch"));
    m.connect_bundle(&fe.io("jump"), &ex.io("jump"));
    m.connect_bundle(&fe.io("exec_fault"), &ex.io("fault"));
    m.connect(&fe.port("exec_idle"), &ex.port("idle"));
    m.connect(&fe.port("ctx_idle"), &ex.port("ctx_idle"));
    for name in super::execute::load_ports(p) {
        m.connect(&fe.port(name), &ex.port(name));
    }
    if p.warps > 1 {
        m.connect(&ex.port("start_ctx"), &fe.port("start_ctx"));
    }
    if p.affine_arith() {
        pass(
            &mut m,
            &fe,
            "atrace",
            Dir::Out,
            &bundles::atrace(p.ctx_bits()),
        );
        let shared = (narrow_request(MEM_TAG_BITS), narrow_response(MEM_TAG_BITS));
        pass(&mut m, &fe, "s_req", Dir::Out, &shared.0);
        pass(&mut m, &fe, "s_resp", Dir::In, &shared.1);
        scalar_write(&mut m, p, &fe, &ex);
        if p.shared_load_cache > 0 {
            store_snoop(&mut m, p, &fe, &ex);
        }
    }
    m.connect(&fe.port("smu_idle"), &mu.port("idle"));
    if p.avc {
        private_ports(&mut m, p, (&fe, &ex, &mu));
    }
    for name in [
        "warp_start",
        "tid_base",
        "stack_top",
        "stack_bytes",
        "gp",
        "tp",
    ] {
        m.connect(&ex.port(name), &fe.port(name));
    }
    // Execute and the SMU.
    m.connect_bundle(&mu.io("slot"), &ex.io("mem"));
    m.connect(&ex.port("space"), &mu.port("space"));
    m.connect_bundle(&ex.io("load"), &mu.io("load"));
    if p.hit_masks() {
        m.connect_bundle(&fe.io("hits"), &mu.io("hits"));
    }
    if p.affine == Affine::Abm {
        m.connect_bundle(&mu.io("aload"), &ex.io("aload"));
    }
    m.finish()
}
