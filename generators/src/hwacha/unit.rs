//! `Hwacha`: the whole vector unit of Figure 8.2 behind its RoCC port: the frontend (RoCC
//! unit, VCMDQ, scalar unit with the vector I$), the master sequencer's decode of issued
//! vector instructions (`vdecode.rs`), and the vector side (master sequencer, lanes).
//!
//! Exceptions reach the core on `xcpt` (`bus::rocc_exception`): the first one raised
//! anywhere (the RoCC unit's illegal command, the scalar unit's, an instruction the vector
//! side cannot run, a lane's misaligned access) is held until the core takes it, and the
//! unit stays halted (no command accepted, the block ended, queued `vmcs`/`vmca`/`vf`
//! dropped) until then and until everything issued before has drained, so that one
//! exception makes one trap and nothing of the faulted work overlaps what follows.
//! Control-thread exceptions are precise (the core still holds the illegal command and
//! traps on it); worker-thread ones are not (the core traps wherever it is when they
//! arrive; what was issued before the faulting instruction completes, what was issued
//! after it may too).

use super::lane::regmap::{layout_fields, layout_of};
use super::params::HwachaParams;
use super::scalar::fpu::scalar_fpu;
use super::scalar::frontend;
use super::scalar::RamWindow;
use super::vdecode::{vdecode, Config};
use super::vector_unit::{lane_mem_port, vector_unit};
use super::vru::{vru, VruSystem};
use crate::l2::{client_request, client_response};
use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_exception, rocc_response};
use hdl::{mux, Dir, HdlErrors, Inst, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// RISC-V exception causes the unit reports (`xcpt.cause`).
const ILLEGAL_INSTRUCTION: u64 = 2;
const LOAD_MISALIGNED: u64 = 4;
const STORE_MISALIGNED: u64 = 6;

/// Ports: RoCC `cmd`/`resp`/`busy`/`xcpt`; the frontend's 64-bit `imem`/`dmem` ports;
/// lane `l`'s 128-bit `l<l>_mem` port; `frm`, the worker thread's dynamic rounding mode
/// (RISC-V frm, 0-4, held by the system as the host sets the golden model's: the
/// control processor has no F extension to hold it; see `vdecode.rs`); `fflags`, the FP
/// exception flags the worker thread has accrued since reset (RISC-V fflags order; the
/// golden model's `fflags`),
/// from the lanes and the scalar FPU (`scalar/fpu.rs`), which runs the FP instructions
/// on shared registers only and answers on the scalar unit's `vresp` when no reduction
/// does.
///
/// With `vru` (an L2 to prefetch into) and `p.vru`, the VRU (`vru.rs`) takes the VRCMDQ
/// and has the `vru_mem_req`/`vru_mem_resp` port (an L2 client port); else the VRCMDQ's
/// commands are dropped.
pub fn hwacha(
    p: &HwachaParams,
    ram: RamWindow,
    vru: Option<&VruSystem>,
) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Hwacha");
    let fe = m.instance("frontend", &frontend(p, ram)?);
    let vu_mod = vector_unit(p)?;
    let vu = m.instance("vector", &vu_mod);
    for (name, dir, shape) in [
        ("cmd", Dir::In, rocc_command()),
        ("resp", Dir::Out, rocc_response()),
        ("imem_req", Dir::Out, mem_request(0)),
        ("imem_resp", Dir::In, mem_response(0)),
        ("dmem_req", Dir::Out, mem_request(0)),
        ("dmem_resp", Dir::In, mem_response(0)),
    ] {
        let outer = m.io(name, dir, &shape);
        match dir {
            Dir::In => m.connect_bundle(&fe.io(name), &outer),
            Dir::Out => m.connect_bundle(&outer, &fe.io(name)),
        }
    }
    let one = m.lit(1, 1);
    let fpu = m.instance("scalar_fpu", &scalar_fpu(p)?);
    let idle = &vu.port("idle") & &!&fpu.port("busy");
    let halted = m.reg("halted", 1, false);
    let vru_busy = runahead(&mut m, p, (ram, vru), &fe, &halted)?;
    let busy = m.output("busy", 1);
    m.connect(
        &busy,
        &(&(&(&fe.port("busy") | &!&idle) | &halted) | &vru_busy),
    );
    m.connect(&fe.port("halt"), &halted);
    m.connect(&fe.port("vidle"), &idle);
    m.connect_bundle(&fe.io("vbranch"), &vu.io("vbranch"));
    // vresp: a reduction's answer, else the scalar FPU's result (which waits).
    let (answer, fp_resp, vresp) = (vu.io("vresp"), fpu.io("resp"), fe.io("vresp"));
    m.connect(fp_resp.ready(), &!answer.valid());
    m.connect(vresp.valid(), &(answer.valid() | fp_resp.valid()));
    for f in ["rd", "data"] {
        let v = answer
            .valid()
            .mux(answer.bits().get(f).value(), fp_resp.bits().get(f).value());
        m.connect(vresp.bits().get(f).value(), &v);
    }
    let accrued = m.reg("fflags", 5, 0u64);
    let raised = &vu.port("fflags") | &fpu.port("fflags");
    m.connect(&accrued, &(&accrued | &raised));
    let fflags = m.output("fflags", 5);
    m.connect(&fflags, &accrued);

    // The configuration the decode and the lanes lay registers out by.
    let vcfg = fe.io("vcfg");
    let cfg_reg = m.reg("vcfg", 32, 0u64);
    m.when(vcfg.valid(), |m| {
        m.connect(&cfg_reg, vcfg.bits().get("vcfg").value())
    });
    let field = |v: &hdl::Value, hi, lo| v.slice(hi, lo).zext(10);
    let new_cfg = vcfg.bits().get("vcfg").value().clone();
    let cfg_port = vu.io("cfg");
    m.connect(cfg_port.valid(), vcfg.valid());
    let fields = layout_fields(p).into_iter().zip(layout_of(p, &new_cfg));
    for ((name, _), v) in fields {
        m.connect(cfg_port.bits().get(name).value(), &v);
    }
    let cfg = Config {
        vv64: field(&cfg_reg, 8, 0),
        vv32: field(&cfg_reg, 22, 14),
        vp: field(&cfg_reg, 13, 9),
        frm: m.input("frm", 3),
    };

    // Issue: decoded; an instruction the vector side cannot run is an exception.
    let vissue = fe.io("vissue");
    let decoded = vdecode(&mut m, "vinsn", vissue.bits(), &cfg);
    let unsupported = decoded.unsupported.clone();
    let (issue, fp_op) = (vu.io("issue"), fpu.io("op"));
    let (to_fpu, to_vector) = (
        &decoded.scalar_fp & &!&unsupported,
        &!&decoded.scalar_fp & &!&unsupported,
    );
    m.connect_bundle(issue.bits(), &decoded.vinsn);
    m.connect_bundle(fp_op.bits(), &decoded.vinsn);
    m.connect(issue.valid(), &(vissue.valid() & &to_vector));
    m.connect(fp_op.valid(), &(vissue.valid() & &to_fpu));
    let ready = &(issue.ready() & &to_vector) | &(fp_op.ready() & &to_fpu);
    m.connect(vissue.ready(), &ready);

    // The lanes' memory ports, as they are.
    for port in vu_mod.body.ports.iter().filter(|x| lane_mem_port(&x.name)) {
        let width = vu_mod.signal(port.sig).width;
        if port.dir == Dir::Out {
            let outer = m.output(&port.name, width);
            m.connect(&outer, &vu.port(&port.name));
        } else {
            let outer = m.input(&port.name, width);
            m.connect(&vu.port(&port.name), &outer);
        }
    }

    // Exceptions: the frontend's, an unsupported instruction, a lane's misaligned access.
    let xcpt = m.io("xcpt", Dir::Out, &rocc_exception());
    let fx = fe.io("xcpt");
    let mut valid = fx.valid().clone();
    let mut cause = fx.bits().get("cause").value().clone();
    let mut tval = fx.bits().get("tval").value().clone();
    let bad = vissue.valid() & &unsupported;
    let illegal = m.lit(ILLEGAL_INSTRUCTION, 4);
    cause = bad.mux(&illegal, &cause);
    tval = bad.mux(vissue.bits().get("bits").value(), &tval);
    valid = &valid | &bad;
    for l in 0..p.lanes {
        let lx = |f: &str| vu.port(&format!("l{l}_xcpt_{f}"));
        let hit = &lx("valid") & &!&valid;
        let code = mux(
            &lx("bits_store"),
            &m.lit(STORE_MISALIGNED, 4),
            &m.lit(LOAD_MISALIGNED, 4),
        );
        cause = hit.mux(&code, &cause);
        tval = hit.mux(&lx("bits_addr"), &tval);
        valid = &valid | &hit;
    }
    let held = m.reg("xcpt_held", 1, false);
    let held_cause = m.reg("xcpt_cause", 4, 0u64);
    let held_tval = m.reg("xcpt_tval", 64, 0u64);
    let zero = m.lit(0, 1);
    let raise = &valid & &!&halted;
    m.when(&raise, |m| {
        m.connect(&halted, &one);
        m.connect(&held, &one);
        m.connect(&held_cause, &cause);
        m.connect(&held_tval, &tval);
    });
    m.when(xcpt.ready(), |m| m.connect(&held, &zero));
    let drained = &(&!&held & &!&fe.port("busy")) & &idle;
    m.when(&(&halted & &drained), |m| m.connect(&halted, &zero));
    m.connect(xcpt.valid(), &held);
    m.connect(xcpt.bits().get("cause").value(), &held_cause);
    m.connect(xcpt.bits().get("tval").value(), &held_tval);
    m.finish()
}

/// The VRU (Figure 8.2) on the frontend's VRCMDQ and its own L2 port, or (without an
/// L2, or with `vru` off) the VRCMDQ's commands dropped; returns the VRU's `busy`.
fn runahead(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    (ram, sys): (RamWindow, Option<&VruSystem>),
    fe: &Inst,
    halted: &Value,
) -> Result<Value, HdlErrors> {
    let vrcmd = fe.io("vrcmd");
    let Some(sys) = sys.filter(|_| p.vru) else {
        let one = m.lit(1, 1);
        m.connect(vrcmd.ready(), &one);
        return Ok(m.lit(0, 1));
    };
    let r = m.instance("vru", &vru(p, sys, ram)?);
    m.connect_bundle(&r.io("vrcmd"), &vrcmd);
    m.connect(&r.port("ack"), &fe.port("vstop"));
    m.connect(&r.port("halt"), halted);
    let g = &sys.geometry;
    let req = m.io("vru_mem_req", Dir::Out, &client_request(g));
    m.connect_bundle(&req, &r.io("mem_req"));
    let resp = m.io("vru_mem_resp", Dir::In, &client_response(g));
    m.connect_bundle(&r.io("mem_resp"), &resp);
    Ok(r.port("busy"))
}
