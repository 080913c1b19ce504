//! `FgsimtTile`, the top of design `fgsimt` (seed 000, Figure 3; docs/fgsimt-engine.md,
//! "System"): the control processor (the Rocket-like core at `xlen = 32` with the F
//! extension, direct memory ports and RoCC), the engine on its RoCC port, the shared L1
//! I$ behind the 2:1 fetch arbiter (the CP's instruction port and the engine's warp
//! fetch), and the banked L1 D$ with the lanes on narrow ports 0..L-1, the CP on narrow
//! port L (through `cp_port.rs`) and the engine's wide port; with `avc`, the AVC and its
//! L1 on the engine's private path.
//!
//! Ports to the memory model: the I$'s `icache_mem` (64-bit, untagged, in order), each
//! D$ bank's `b<i>_mem` (32-byte, untagged, in order) and the uncached `io_mem` (32-bit,
//! tagged, with AMOs; HTIF's `tohost` lives there); with `avc` the AVC's `avc_mem`
//! (`4 * warp_size` bytes, byte mask, untagged, in order, in a space of its own). The D$'s `flush`/`flush_done` (a
//! bench writes the dirty lines back before comparing memory), the core's commit
//! `trace`, and the engine's `fault`, `ftrace` and `wtrace` (and `strace` with the DWS
//! sequencer) are the tile's too.

use super::bundles::{self, MEM_TAG_BITS};
use super::cp_port::cp_port;
use super::engine::engine;
use super::fetch_arbiter::fetch_arbiter;
use super::l1::xbar::{io_mem_request, io_mem_response, io_tag_bits};
use super::l1::xbar::{line_mem_request, line_mem_response};
use super::l1::{self, Geometry};
use super::params::FgsimtParams;
use crate::rocket::bus::{mem_request, mem_response};
use crate::rocket::tile::core_with_units;
use crate::rocket::trace::trace_shape;
use hdl::{Dir, HdlErrors, Inst, Module, ModuleBuilder, Shape};
use std::rc::Rc;

/// The tile of `p` (validated).
pub fn tile(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtTile");
    let core = core_with_units(&mut m, &p.cp(), true)?;
    let eng = m.instance("engine", &engine(p)?);
    on_rocc(&mut m, &core, &eng);

    let fetch = m.instance("fetch_arbiter", &fetch_arbiter()?);
    m.connect_bundle(&fetch.io("cp_req"), &core.io("imem_req"));
    m.connect_bundle(&core.io("imem_resp"), &fetch.io("cp_resp"));
    m.connect_bundle(&fetch.io("warp_req"), &eng.io("fetch_req"));
    m.connect_bundle(&eng.io("fetch_resp"), &fetch.io("warp_resp"));
    let icache = m.instance("l1i", &l1::icache(p.icache_bytes, p.sram_threshold_bits)?);
    m.connect_bundle(&icache.io("cpu_req"), &fetch.io("icache_req"));
    m.connect_bundle(&fetch.io("icache_resp"), &icache.io("cpu_resp"));
    m.connect(&icache.port("invalidate"), &core.port("icache_invalidate"));
    let shapes = (mem_request(0), mem_response(0));
    export(&mut m, &icache, ("mem", "icache_mem"), &shapes);

    dcache(&mut m, p, &core, &eng)?;
    if p.avc {
        avc(&mut m, p, &eng)?;
    }
    let trace = m.io("trace", Dir::Out, &trace_shape());
    m.connect_bundle(&trace, &core.io("trace"));
    for (name, shape) in [
        ("fault", bundles::fault()),
        ("ftrace", bundles::ftrace(p.warp_size, p.ctx_bits())),
        (
            "wtrace",
            bundles::wtrace(p.lanes, p.threads_per_lane(), p.reg_bits()),
        ),
    ] {
        let out = m.io(name, Dir::Out, &shape);
        m.connect_bundle(&out, &eng.io(name));
    }
    if p.affine_arith() {
        let out = m.io("atrace", Dir::Out, &bundles::atrace(p.ctx_bits()));
        m.connect_bundle(&out, &eng.io("atrace"));
    }
    if let Some(d) = p.sequencer() {
        let out = m.io("strace", Dir::Out, &bundles::strace(&d));
        m.connect_bundle(&out, &eng.io("strace"));
    }
    for name in super::engine::STATS {
        let out = m.output(name, 32);
        m.connect(&out, &eng.port(name));
    }
    m.finish()
}

/// Puts `acc` (the FG-SIMT engine, the VGIW launcher) on the core's RoCC port. Its
/// faults stop it and end the run (the bench reads its `fault`): the core takes no
/// accelerator exceptions.
pub(crate) fn on_rocc(m: &mut ModuleBuilder, core: &Inst, acc: &Inst) {
    m.connect_bundle(&acc.io("rocc_cmd"), &core.io("rocc_cmd"));
    m.connect_bundle(&core.io("rocc_resp"), &acc.io("rocc_resp"));
    m.connect(&core.port("rocc_busy"), &acc.port("rocc_busy"));
    m.tie_off(&core.io("rocc_xcpt"));
}

/// The D$ with its requesters (the engine's lanes and wide port, the CP through its
/// port adapter) and its memory side and flush as the tile's ports.
fn dcache(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    core: &Inst,
    eng: &Inst,
) -> Result<(), HdlErrors> {
    let dp = p.dcache();
    let dc = m.instance("l1d", &l1::dcache(&dp, MEM_TAG_BITS)?);
    for port in (0..p.lanes)
        .map(|l| format!("n{l}"))
        .chain(["w".to_string()])
    {
        m.connect_bundle(
            &dc.io(&format!("{port}_req")),
            &eng.io(&format!("{port}_req")),
        );
        m.connect_bundle(
            &eng.io(&format!("{port}_resp")),
            &dc.io(&format!("{port}_resp")),
        );
    }
    let cp = m.instance("cp_port", &cp_port(p.affine_arith(), MEM_TAG_BITS)?);
    m.connect_bundle(&cp.io("core_req"), &core.io("dmem_req"));
    m.connect_bundle(&core.io("dmem_resp"), &cp.io("core_resp"));
    if p.affine_arith() {
        m.connect_bundle(&cp.io("eng_req"), &eng.io("s_req"));
        m.connect_bundle(&eng.io("s_resp"), &cp.io("eng_resp"));
    }
    let n = format!("n{}", p.lanes);
    m.connect_bundle(&dc.io(&format!("{n}_req")), &cp.io("dc_req"));
    m.connect_bundle(&cp.io("dc_resp"), &dc.io(&format!("{n}_resp")));

    let g = Geometry::new(&dp);
    let lines = (line_mem_request(&g), line_mem_response(&g));
    for b in 0..p.dcache_banks {
        let name = format!("b{b}_mem");
        export(m, &dc, (&name, &name), &lines);
    }
    let tb = io_tag_bits(&g);
    export(
        m,
        &dc,
        ("io_mem", "io_mem"),
        &(io_mem_request(tb), io_mem_response(tb)),
    );
    let flush = m.input("flush", 1);
    m.connect(&dc.port("flush"), &flush);
    let done = m.output("flush_done", 1);
    m.connect(&done, &dc.port("flush_done"));
    Ok(())
}

/// With `avc`: the AVC and its L1 (`avc/controller.rs`) on the engine's private path,
/// their memory the tile's `avc_mem` port (blocks of `warp_size` words with a byte
/// mask, in the private space: a system maps it where it likes; the bench serves it
/// from a memory of its own). Its events count in `stat_avc_<event>`.
fn avc(m: &mut ModuleBuilder, p: &FgsimtParams, eng: &Inst) -> Result<(), HdlErrors> {
    use crate::fgsimt::avc::controller::{controller, words};
    let g = p.avc_cache();
    let c = m.instance("avc", &controller(&g)?);
    m.connect_bundle(&c.io("req"), &eng.io("p_req"));
    m.connect_bundle(&eng.io("p_resp"), &c.io("resp"));
    m.connect(&eng.port("avc_idle"), &c.port("idle"));
    m.connect(&c.port("discard"), &eng.port("avc_discard"));
    m.connect(&c.port("flush"), &crate::blocks::k(&c.port("idle"), 0, 1));
    let (req, resp) = (
        m.io("avc_mem_req", Dir::Out, &avc_mem_request(p)),
        m.io("avc_mem_resp", Dir::In, &words(&g)),
    );
    let (from, to) = (c.io("mem_req"), req.bits());
    m.connect(req.valid(), from.valid());
    m.connect(from.ready(), req.ready());
    for f in ["write", "addr", "data"] {
        m.connect(to.get(f).value(), from.bits().get(f).value());
    }
    let mask = from.bits().get("mask").value();
    let bytes: Vec<hdl::Value> = (0..g.threads).map(|i| mask.bit(i).repeat(4)).collect();
    m.connect(
        to.get("mask").value(),
        &crate::blocks::cat_low_first(&bytes),
    );
    m.connect_bundle(&c.io("mem_resp"), &resp);
    for ev in ["replay", "conflict", "merge", "line_evict"] {
        let r = m.reg(&format!("avc_{ev}_count"), 32, 0u64);
        m.connect(&r, &(&r + &c.port(&format!("ev_{ev}")).zext(32)));
        let o = m.output(&format!("stat_avc_{ev}"), 32);
        m.connect(&o, &r);
    }
    Ok(())
}

/// The AVC's memory request: a block (`write`, `addr`, `data`) with a byte `mask`.
pub fn avc_mem_request(p: &FgsimtParams) -> Shape {
    use crate::fgsimt::l1::uint;
    let n = p.warp_size;
    Shape::decoupled(Shape::bundle(vec![
        uint("write", 1),
        uint("addr", 32),
        uint("mask", 4 * n),
        uint("data", 32 * n),
    ]))
}

/// Makes `inner`'s memory port `<inner>_req`/`<inner>_resp` of `inst` the tile's
/// `<outer>_req`/`<outer>_resp`, of the (request, response) `shapes` (also `vgiw::system`'s).
pub(crate) fn export(
    m: &mut ModuleBuilder,
    inst: &Inst,
    (inner, outer): (&str, &str),
    shapes: &(Shape, Shape),
) {
    let req = m.io(&format!("{outer}_req"), Dir::Out, &shapes.0);
    let resp = m.io(&format!("{outer}_resp"), Dir::In, &shapes.1);
    m.connect_bundle(&req, &inst.io(&format!("{inner}_req")));
    m.connect_bundle(&inst.io(&format!("{inner}_resp")), &resp);
}
