//! `RocketTile`, the top of design `rocket`: the core, its multiply/divide unit, the
//! I-side and D-side paths (blocking L1 caches, or straight through), and the arbiter of
//! the I-side (tag 0), the D-side (tag 1) and the accelerator's memory requests (tag 2,
//! uncached) onto the one outer memory port. The RoCC and trace ports of the core are
//! the tile's.

use super::bus::{mem_request, mem_response, rocc_command, rocc_exception, rocc_response};
use super::cache::cache;
use super::core::core;
use super::mem_arbiter::mem_arbiter;
use super::muldiv::muldiv;
use super::params::{MemoryKind, RocketParams};
use super::trace::trace_shape;
use hdl::{Dir, HdlErrors, Inst, Module, ModuleBuilder};
use std::rc::Rc;

/// Tag bits of the outer memory port.
pub const TAG_BITS: u32 = 2;

/// `rocc`: an accelerator is attached (custom-0..3 go to the RoCC port).
pub fn tile(p: &RocketParams, rocc: bool) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RocketTile");
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(TAG_BITS));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(TAG_BITS));
    let rocc_cmd = m.io("rocc_cmd", Dir::Out, &rocc_command());
    let rocc_resp = m.io("rocc_resp", Dir::In, &rocc_response());
    let rocc_busy = m.input("rocc_busy", 1);
    let rocc_xcpt = m.io("rocc_xcpt", Dir::In, &rocc_exception());
    let rocc_mem_req = m.io("rocc_mem_req", Dir::In, &mem_request(0));
    let rocc_mem_resp = m.io("rocc_mem_resp", Dir::Out, &mem_response(0));
    let trace = m.io("trace", Dir::Out, &trace_shape());

    let core = core_with_units(&mut m, p, rocc)?;

    let arb = m.instance("arbiter", &mem_arbiter(3)?);
    m.connect_bundle(&mem_req, &arb.io("mem_req"));
    m.connect_bundle(&arb.io("mem_resp"), &mem_resp);
    for (side, client, params, name, invalidate) in [
        ("imem", "c0", p.icache(), "ICache", "icache_invalidate"),
        ("dmem", "c1", p.dcache(), "DCache", "dcache_invalidate"),
    ] {
        let (req, resp) = (format!("{side}_req"), format!("{side}_resp"));
        let (creq, cresp) = (format!("{client}_req"), format!("{client}_resp"));
        let invalidate = core.port(invalidate);
        match p.memory {
            MemoryKind::Direct => {
                m.connect_bundle(&arb.io(&creq), &core.io(&req));
                m.connect_bundle(&core.io(&resp), &arb.io(&cresp));
            }
            MemoryKind::Cache => {
                let c = m.instance(&name.to_lowercase(), &cache(name, &params)?);
                m.connect_bundle(&c.io("cpu_req"), &core.io(&req));
                m.connect_bundle(&core.io(&resp), &c.io("cpu_resp"));
                m.connect_bundle(&arb.io(&creq), &c.io("mem_req"));
                m.connect_bundle(&c.io("mem_resp"), &arb.io(&cresp));
                m.connect(&c.port("invalidate"), &invalidate);
                if side == "dmem" {
                    m.connect(
                        &core.port("dcache_writes_pending"),
                        &c.port("writes_pending"),
                    );
                    m.connect(&c.port("cpu_kill"), &core.port("dcache_kill"));
                }
            }
        }
    }
    m.connect_bundle(&arb.io("c2_req"), &rocc_mem_req);
    m.connect_bundle(&rocc_mem_resp, &arb.io("c2_resp"));

    m.connect_bundle(&rocc_cmd, &core.io("rocc_cmd"));
    m.connect_bundle(&core.io("rocc_resp"), &rocc_resp);
    m.connect(&core.port("rocc_busy"), &rocc_busy);
    m.connect_bundle(&core.io("rocc_xcpt"), &rocc_xcpt);
    m.connect_bundle(&trace, &core.io("trace"));
    m.finish()
}

/// Instances the core with its multiply/divide unit and (with `fpu`) its FPU, connected
/// to each other; the core's memory, RoCC and trace ports are left to the caller.
pub fn core_with_units(
    m: &mut ModuleBuilder,
    p: &RocketParams,
    rocc: bool,
) -> Result<Inst, HdlErrors> {
    let core = m.instance("core", &core(p, rocc)?);
    let md = m.instance("muldiv", &muldiv(&p.muldiv())?);
    m.connect_bundle(&md.io("req"), &core.io("muldiv_req"));
    m.connect_bundle(&core.io("muldiv_resp"), &md.io("resp"));
    m.connect(&md.port("kill"), &core.port("muldiv_kill"));
    if p.fpu {
        let fpu = m.instance("fpu", &super::fpu::fpu(p.fma_stages)?);
        m.connect_bundle(&fpu.io("req"), &core.io("fpu_req"));
        m.connect_bundle(&core.io("fpu_resp"), &fpu.io("resp"));
        m.connect(&fpu.port("kill"), &core.port("fpu_kill"));
    }
    Ok(core)
}
