//! `VgiwTile`, the top of design `vgiw` (seed 004 section 3, Figure 4: "at the top level
//! are the BBS, CVT, LVC and the MT-CGRF core"; the core "connects to a conventional
//! GPGPU memory system through a banked L1"): a host and the fabric.
//!
//! - The **control processor** runs `main`: the FG-SIMT engine's (the Rocket-like core at
//!   RV32IMAF, `fgsimt::params::control_processor`) with its own L1 I$, and its data port
//!   on the L1 D$'s last narrow port (`fgsimt/cp_port.rs`), so that the host and the
//!   kernels share one coherent L1.
//! - The **launcher** (`launcher.rs`) on its RoCC port turns `launch_kernel` into a BBS
//!   launch and a configurator start, from the kernel directory the loader wrote.
//! - The **BBS** with its CVT (`bbs/`), the **configurator** (`configurator.rs`), the
//!   **fabric** (`fabric/`), the **LVC** (`lvc.rs`, caching the live values' array at
//!   `live_base`) and the **L1 D$** (`fgsimt::l1`'s banked D$, `l1_bytes` in `l1_banks`
//!   banks, a narrow port an LDSTU: the crossbar of Figure 4).
//!
//! Ports to the memory model: the I$'s `icache_mem` (64-bit, in order), each L1 bank's
//! `b<i>_mem` and the uncached `io_mem` (the D$'s, as design `fgsimt`'s), each LVC bank's
//! `lvc_b<i>_mem` and its `lvc_io_mem` (never used: no live value is uncached), the
//! configurator's `cfg_mem` (64-bit, tagged, any order) and the launcher's `dir_mem`
//! (64-bit, in order). `flush`/`flush_done` write the L1's dirty lines back (benches);
//! `trace` is the core's commit trace, `fault` the launcher's, `trace_or` the BBS's ORs
//! into the CVT and `trace_bbs` its launches, schedules and running tile (with
//! `trace_or`, what a bench needs to follow the CVT step by step: Figure 2's trace), and
//! the `stat_*` counters (`STATS`) count from reset.

use super::bbs::{bbs, trace_or_shape};
use super::compiler::Unit;
use super::configurator::configurator;
use super::fabric::{fabric, unit_prefix};
use super::k;
use super::launcher::{fault_shape, launcher};
use super::lvc::lvc;
use super::params::VgiwParams;
use crate::fgsimt::cp_port::cp_port;
use crate::fgsimt::l1::xbar::{io_mem_request, io_mem_response, io_tag_bits};
use crate::fgsimt::l1::xbar::{line_mem_request, line_mem_response};
use crate::fgsimt::l1::{self, Geometry};
use crate::fgsimt::tile::{export, on_rocc};
use crate::rocket::bus::{mem_request, mem_response};
use crate::rocket::tile::core_with_units;
use crate::rocket::trace::trace_shape;
use hdl::helpers::popcount;
use hdl::{cat, Dir, HdlErrors, Inst, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The tile's counters (`stat_<name>`, 32 bits, from reset): cycles a launch ran (from
/// its command's acceptance to its answer), blocks the BBS scheduled, cycles from a
/// block's schedule to its configuration (fetch and shift), threads injected, live
/// value requests (LVC accesses).
pub const STATS: [&str; 5] = ["kernel_cycles", "blocks", "config_cycles", "threads", "lvc"];

/// The tile of `p` (validated).
pub fn system(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("VgiwTile");
    let core = core_with_units(&mut m, &p.cp(), true)?;
    let la = m.instance("launcher", &launcher(p)?);
    on_rocc(&mut m, &core, &la);
    let icache = m.instance("l1i", &l1::icache(p.icache_bytes, p.sram_threshold_bits)?);
    m.connect_bundle(&icache.io("cpu_req"), &core.io("imem_req"));
    m.connect_bundle(&core.io("imem_resp"), &icache.io("cpu_resp"));
    m.connect(&icache.port("invalidate"), &core.port("icache_invalidate"));
    let words = (mem_request(0), mem_response(0));
    export(&mut m, &icache, ("mem", "icache_mem"), &words);
    export(&mut m, &la, ("dir", "dir_mem"), &words);

    let fab = m.instance("fabric", &fabric(p)?);
    let bb = m.instance("bbs", &bbs(p)?);
    let cfg = m.instance("configurator", &configurator(p)?);
    m.connect_bundle(&bb.io("launch"), &la.io("launch"));
    m.connect(&la.port("bbs_busy"), &bb.port("busy"));
    m.connect(&cfg.port("start"), &la.port("cfg_start"));
    m.connect(&cfg.port("image"), &la.port("cfg_image"));
    m.connect_bundle(&cfg.io("sched"), &bb.io("sched"));
    m.connect_bundle(&bb.io("configured"), &cfg.io("configured"));
    let tb = cfg.io("mem_req").bits().get("tag").value().width();
    export(
        &mut m,
        &cfg,
        ("mem", "cfg_mem"),
        &(mem_request(tb), mem_response(tb)),
    );
    let rows = (0..super::grid::Grid::new(p).rows).map(|r| format!("cfg_row{r}"));
    for name in rows.chain(["cfg_shift".into(), "cfg_pass".into()]) {
        m.connect(&fab.port(&name), &cfg.port(&name));
    }
    for name in ["gp", "tp"] {
        m.connect(&fab.port(name), &la.port(name));
    }
    let mut injected = Vec::new();
    for i in 0..p.cvus as usize {
        let pre = unit_prefix(Unit::Cvu, i);
        m.connect_bundle(
            &fab.io(&format!("{pre}inject")),
            &bb.io(&format!("cvu{i}_inject")),
        );
        m.connect_bundle(
            &bb.io(&format!("cvu{i}_done")),
            &fab.io(&format!("{pre}done")),
        );
        m.connect(
            &bb.port(&format!("cvu{i}_active")),
            &fab.port(&format!("{pre}active")),
        );
        injected.push(bb.io(&format!("cvu{i}_inject")).fire());
    }
    let trace_or = m.io("trace_or", Dir::Out, &trace_or_shape(p));
    m.connect_bundle(&trace_or, &bb.io("trace_or"));
    bbs_trace(&mut m, &bb);
    let lv_requests = live_values(&mut m, p, &fab, &bb)?;
    data_cache(&mut m, p, &core, &fab)?;

    let trace = m.io("trace", Dir::Out, &trace_shape());
    m.connect_bundle(&trace, &core.io("trace"));
    let fault = m.io("fault", Dir::Out, &fault_shape());
    m.connect_bundle(&fault, &la.io("fault"));
    let counts = [
        la.port("rocc_busy"),
        bb.io("sched").fire(),
        configuring(&mut m, &bb),
        popcount(&cat(&injected.iter().collect::<Vec<_>>())),
        popcount(&cat(&lv_requests.iter().collect::<Vec<_>>())),
    ];
    for (name, inc) in STATS.iter().zip(counts) {
        let r = m.reg(&format!("stat_{name}_r"), 32, 0u64);
        m.connect(&r, &(&r + &inc.zext(32)));
        let o = m.output(&format!("stat_{name}"), 32);
        m.connect(&o, &r);
    }
    m.finish()
}

/// `trace_bbs`: `launch` (the BBS takes a launch, of `words` CVT words a block), `sched`
/// (it schedules `block`) and the running tile's first thread (`tile`).
fn bbs_trace(m: &mut ModuleBuilder, bb: &Inst) {
    let (launch, sched) = (bb.io("launch"), bb.io("sched"));
    let fields = [
        ("launch", launch.fire()),
        ("words", launch.bits().get("words").value().clone()),
        ("sched", sched.fire()),
        ("block", sched.bits().get("block").value().clone()),
        ("tile", bb.port("tile_base")),
    ];
    for (name, v) in fields {
        let o = m.output(&format!("trace_bbs_{name}"), v.width());
        m.connect(&o, &v);
    }
}

/// High from a block's schedule to its configuration (the cycle `configured` fires
/// included).
fn configuring(m: &mut ModuleBuilder, bb: &Inst) -> Value {
    let r = m.reg("configuring", 1, false);
    let (sched, done) = (bb.io("sched").fire(), bb.io("configured").fire());
    m.when(&sched, |m| m.connect(&r, &k(&r, 1, 1)));
    m.when(&done, |m| m.connect(&r, &k(&r, 0, 1)));
    &r | &sched
}

/// The LVC between the fabric's LVUs and memory; the LVUs' requests taken.
fn live_values(
    m: &mut ModuleBuilder,
    p: &VgiwParams,
    fab: &Inst,
    bb: &Inst,
) -> Result<Vec<Value>, HdlErrors> {
    let lv = m.instance("live_values", &lvc(p)?);
    m.connect(&lv.port("base"), &k(&bb.port("busy"), p.live_base, 32));
    m.connect(&lv.port("tile_base"), &bb.port("tile_base"));
    m.connect(&lv.port("tile_threads"), &bb.port("tile_threads"));
    m.connect(&lv.port("flush"), &k(&bb.port("busy"), 0, 1));
    let mut taken = Vec::new();
    for i in 0..p.lvus as usize {
        let pre = unit_prefix(Unit::Lvu, i);
        m.connect_bundle(
            &lv.io(&format!("lvu{i}_req")),
            &fab.io(&format!("{pre}lv_req")),
        );
        m.connect_bundle(
            &fab.io(&format!("{pre}lv_resp")),
            &lv.io(&format!("lvu{i}_resp")),
        );
        taken.push(lv.io(&format!("lvu{i}_req")).fire());
    }
    memory_side(m, &lv, p.lvc_banks, lvc_geometry(p), "lvc_");
    Ok(taken)
}

fn lvc_geometry(p: &VgiwParams) -> Geometry {
    Geometry::new(&super::lvc::cache_params(p))
}

/// A D$'s bank ports and uncached port as the tile's, names prefixed.
fn memory_side(m: &mut ModuleBuilder, cache: &Inst, banks: u32, g: Geometry, prefix: &str) {
    let lines = (line_mem_request(&g), line_mem_response(&g));
    for b in 0..banks {
        let name = format!("b{b}_mem");
        export(m, cache, (&name, &format!("{prefix}{name}")), &lines);
    }
    let tb = io_tag_bits(&g);
    export(
        m,
        cache,
        ("io_mem", &format!("{prefix}io_mem")),
        &(io_mem_request(tb), io_mem_response(tb)),
    );
}

/// The L1 D$: a narrow port an LDSTU, then the control processor's; the wide port unused.
fn data_cache(
    m: &mut ModuleBuilder,
    p: &VgiwParams,
    core: &Inst,
    fab: &Inst,
) -> Result<(), HdlErrors> {
    let dp = p.l1();
    let tag_bits = p.layout().vc_bits;
    let dc = m.instance("l1d", &l1::dcache(&dp, tag_bits)?);
    for i in 0..p.ldsts as usize {
        let pre = unit_prefix(Unit::Ldst, i);
        m.connect_bundle(
            &dc.io(&format!("n{i}_req")),
            &fab.io(&format!("{pre}mem_req")),
        );
        m.connect_bundle(
            &fab.io(&format!("{pre}mem_resp")),
            &dc.io(&format!("n{i}_resp")),
        );
    }
    let cp = m.instance("cp_port", &cp_port(false, tag_bits)?);
    m.connect_bundle(&cp.io("core_req"), &core.io("dmem_req"));
    m.connect_bundle(&core.io("dmem_resp"), &cp.io("core_resp"));
    let n = format!("n{}", p.ldsts);
    m.connect_bundle(&dc.io(&format!("{n}_req")), &cp.io("dc_req"));
    m.connect_bundle(&cp.io("dc_resp"), &dc.io(&format!("{n}_resp")));
    m.tie_off(&dc.io("w_req"));
    memory_side(m, &dc, p.l1_banks, Geometry::new(&dp), "");
    let flush = m.input("flush", 1);
    m.connect(&dc.port("flush"), &flush);
    let done = m.output("flush_done", 1);
    m.connect(&done, &dc.port("flush_done"));
    Ok(())
}
