//! Design `rocket-hwacha`: the Rocket-like tile with the Hwacha vector unit on its RoCC
//! port (Figure 8.1's tile). The tile's memory port, the vector unit's frontend ports
//! (vector I$ refills, scalar memory unit) and each lane's 128-bit port are top-level
//! memory ports onto one memory (the thesis's L2), so vector stores are seen by the
//! core after a `fence` (which waits for the unit's `busy` and drops the D$).

use super::params::HwachaParams;
use super::rocc::xcpt_shape;
use super::scalar::RamWindow;
use super::unit::hwacha;
use super::vector_unit::lane_mem_port;
use super::vmu;
use super::vru::VruSystem;
use crate::l2::narrow::narrow_port;
use crate::l2::{self, Geometry, L2Cache, L2Params};
use crate::rocket::bus::{mem_request, mem_response};
use crate::rocket::params::RocketParams;
use crate::rocket::tile::{tile, TAG_BITS};
use crate::rocket::trace::trace_shape;
use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::ir::addr_width;
use hdl::{mux, Bundle, Dir, HdlErrors, Inst, Module, ModuleBuilder};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// What the tile's and the vector unit's memory ports reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SocMemory {
    /// Each port is a top-level port onto one memory.
    #[default]
    Flat,
    /// The L2 of thesis Table 9.2 (`crate::l2`, shaped by `[l2]`) between every port and
    /// its banks' top-level memory ports; the tile's uncached region bypasses it.
    L2,
}

/// The tile's parameters (`[rocket]`, design `rocket`'s without `rocc`: the vector unit
/// is always attached), the vector unit's (`[hwacha]`) and the memory system's
/// (`memory`, `[l2]`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RocketHwachaParams {
    pub rocket: RocketParams,
    pub hwacha: HwachaParams,
    pub memory: SocMemory,
    pub l2: L2Cache,
}

pub struct RocketHwacha;

impl Generator for RocketHwacha {
    type Params = RocketHwachaParams;
    const NAME: &'static str = "rocket-hwacha";
    const DESCRIPTION: &'static str =
        "the rocket tile with the Hwacha vector unit on its RoCC port (thesis chapter 8)";

    fn params() -> Vec<Param> {
        vec![
            Param::table(
                "rocket",
                crate::rocket::params::params(),
                "the tile: the `rocket` design's parameters but `rocc`",
            ),
            Param::table(
                "hwacha",
                super::params::params(),
                "the vector unit (thesis Table 8.7 names)",
            ),
            Param::choice(
                "memory",
                &["flat", "l2"],
                "every port straight to memory, or through the L2 (thesis Table 9.2)",
            ),
            Param::table(
                "l2",
                l2::cache_params(),
                "the L2's shape, with memory = \"l2\"",
            ),
        ]
    }

    fn validate(p: &RocketHwachaParams) -> Result<(), ParamError> {
        p.rocket.validate().map_err(|e| e.within("rocket"))?;
        p.rocket.require_rv64().map_err(|e| e.within("rocket"))?;
        p.hwacha.validate().map_err(|e| e.within("hwacha"))?;
        p.l2.validate().map_err(|e| e.within("l2"))
    }

    fn build(p: &RocketHwachaParams) -> Result<Rc<Module>, HdlErrors> {
        rocket_hwacha(p)
    }
}

/// Ports: `mem` (the tile's, tagged), `vimem`/`vdmem` (the frontend's), `l<l>_mem` (lane
/// `l`'s) with `memory = "flat"`; with `"l2"`, `mem` (the tile's uncached region),
/// `l2_b<j>_mem` (the L2 banks'), `l2_b<j>_trace`, `l2_flush`/`l2_flushed`
/// ([`l2_memory`]); `trace` (the core's commits), `xcpt` (the vector unit's exceptions, in the
/// cycle the core takes each as a trap), and the vector unit's FP state and activity:
/// `frm` (in: its dynamic rounding mode), `fflags` (the FP exception flags it has
/// accrued) and `vbusy` (work the core has issued to it is not finished).
pub fn rocket_hwacha(p: &RocketHwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RocketHwacha");
    let t = m.instance("tile", &tile(&p.rocket, true)?);
    let ram = RamWindow {
        base: p.rocket.ram_base,
        size: p.rocket.ram_size,
    };
    let vru = (p.memory == SocMemory::L2).then(|| vru_system(p));
    let h_mod = hwacha(&p.hwacha, ram, vru.as_ref())?;
    let h = m.instance("hwacha", &h_mod);
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(TAG_BITS));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(TAG_BITS));
    if p.memory == SocMemory::Flat {
        m.connect_bundle(&mem_req, &t.io("mem_req"));
        m.connect_bundle(&t.io("mem_resp"), &mem_resp);
    }
    let trace = m.io("trace", Dir::Out, &trace_shape());
    m.connect_bundle(&trace, &t.io("trace"));
    m.connect_bundle(&h.io("cmd"), &t.io("rocc_cmd"));
    m.connect_bundle(&t.io("rocc_resp"), &h.io("resp"));
    m.connect(&t.port("rocc_busy"), &h.port("busy"));
    m.connect_bundle(&t.io("rocc_xcpt"), &h.io("xcpt"));
    // The unit's memory traffic has its own ports: the tile's accelerator port is idle.
    m.tie_off(&t.io("rocc_mem_req"));
    let flat = p.memory == SocMemory::Flat;
    if flat {
        for (outer, inner) in [("vimem", "imem"), ("vdmem", "dmem")] {
            let req = m.io(&format!("{outer}_req"), Dir::Out, &mem_request(0));
            let resp = m.io(&format!("{outer}_resp"), Dir::In, &mem_response(0));
            m.connect_bundle(&req, &h.io(&format!("{inner}_req")));
            m.connect_bundle(&h.io(&format!("{inner}_resp")), &resp);
        }
    } else {
        l2_memory(&mut m, p, &t, &h, (&mem_req, &mem_resp))?;
    }
    // The lanes' memory ports (flat memory) and the unit's FP state and activity, out
    // as they are.
    let outside =
        |name: &str| (flat && lane_mem_port(name)) || ["frm", "fflags", "busy"].contains(&name);
    for port in h_mod.body.ports.iter().filter(|x| outside(&x.name)) {
        let width = h_mod.signal(port.sig).width;
        let name = if port.name == "busy" {
            "vbusy"
        } else {
            &port.name
        };
        if port.dir == Dir::Out {
            let outer = m.output(name, width);
            m.connect(&outer, &h.port(&port.name));
        } else {
            let outer = m.input(name, width);
            m.connect(&h.port(&port.name), &outer);
        }
    }
    // The exceptions the core takes, for the bench (`SocConfig::xcpt`).
    let xcpt = m.io("xcpt", Dir::Out, &xcpt_shape());
    let hx = h.io("xcpt");
    m.connect(xcpt.valid(), &hx.fire());
    for f in ["cause", "tval"] {
        m.connect(xcpt.bits().get(f).value(), hx.bits().get(f).value());
    }
    m.finish()
}

/// Requests of a narrow port in flight through the L2 (its reorder buffer's slots).
pub const NARROW_SLOTS: u32 = 4;

/// The L2's client ports, in order: the tile's, the frontend's `vimem` and `vdmem`,
/// each lane's, then the VRU's (with `hwacha.vru`).
pub fn l2_params(p: &RocketHwachaParams) -> L2Params {
    let tag_bits = vmu::tag_bits(&p.hwacha).max(addr_width(NARROW_SLOTS as u64));
    L2Params {
        ports: 3 + p.hwacha.lanes + p.hwacha.vru as u32,
        tag_bits,
        cache: p.l2.clone(),
    }
}

/// The VRU's L2: its geometry, and a third of its MSHRs for prefetches (thesis 8.4).
pub fn vru_system(p: &RocketHwachaParams) -> VruSystem {
    VruSystem {
        geometry: Geometry::new(&l2_params(p)),
        trackers: (p.l2.banks * p.l2.mshrs / 3).max(1),
    }
}

/// The L2 between every port and memory. The tile's port goes through an in-order
/// adapter (`l2::narrow`), but for its uncached region (the HTIF mailbox), which reaches
/// the top-level `mem` port directly (its answers go first when both have one); the
/// frontend's ports through adapters of their own; each lane's straight to an L2 port.
/// The L2's banks' ports, traces and flush are top-level ports.
fn l2_memory(
    m: &mut ModuleBuilder,
    p: &RocketHwachaParams,
    t: &Inst,
    h: &Inst,
    mem: (&Bundle, &Bundle),
) -> Result<(), HdlErrors> {
    let lp = l2_params(p);
    let g = Geometry::new(&lp);
    let l2i = m.instance("l2", &l2::l2(&lp)?);
    tile_port(m, p, t, (&l2i, &g), mem)?;
    let untagged = narrow_port(0, &g, NARROW_SLOTS)?;
    for (i, inner) in ["imem", "dmem"].iter().enumerate() {
        let a = m.instance(&format!("{inner}_l2"), &untagged);
        m.connect_bundle(&a.io("in_req"), &h.io(&format!("{inner}_req")));
        let back = a.io("in_resp");
        let resp = h.io(&format!("{inner}_resp"));
        let always = m.lit(1, 1);
        m.connect(back.ready(), &always);
        m.connect(resp.valid(), back.valid());
        m.connect(
            resp.bits().get("data").value(),
            back.bits().get("data").value(),
        );
        m.connect_bundle(&l2i.io(&format!("p{}_req", i + 1)), &a.io("out_req"));
        m.connect_bundle(&a.io("out_resp"), &l2i.io(&format!("p{}_resp", i + 1)));
    }
    if p.hwacha.vru {
        let n = 3 + p.hwacha.lanes;
        m.connect_bundle(&l2i.io(&format!("p{n}_req")), &h.io("vru_mem_req"));
        m.connect_bundle(&h.io("vru_mem_resp"), &l2i.io(&format!("p{n}_resp")));
    }
    let lane_tag = vmu::tag_bits(&p.hwacha);
    for l in 0..p.hwacha.lanes {
        let lane = |f: &str| h.port(&format!("l{l}_mem_{f}"));
        let port = |f: &str| l2i.port(&format!("p{}_{f}", 3 + l));
        for f in [
            "valid",
            "bits_addr",
            "bits_write",
            "bits_data",
            "bits_mask",
            "bits_size",
            "bits_amo",
        ] {
            m.connect(&port(&format!("req_{f}")), &lane(&format!("req_{f}")));
        }
        m.connect(
            &port("req_bits_tag"),
            &lane("req_bits_tag").zext(g.tag_bits),
        );
        m.connect(&lane("req_ready"), &port("req_ready"));
        for f in ["valid", "bits_data"] {
            m.connect(&lane(&format!("resp_{f}")), &port(&format!("resp_{f}")));
        }
        m.connect(
            &lane("resp_bits_tag"),
            &port("resp_bits_tag").slice(lane_tag - 1, 0),
        );
        m.connect(&port("resp_ready"), &lane("resp_ready"));
    }
    for b in 0..p.l2.banks {
        for (name, dir, shape) in [
            ("mem_req", Dir::Out, l2::mem_request(&g)),
            ("mem_resp", Dir::In, l2::mem_response(&g)),
            ("trace", Dir::Out, l2::trace_shape(&g)),
        ] {
            let outer = m.io(&format!("l2_b{b}_{name}"), dir, &shape);
            let inner = l2i.io(&format!("b{b}_{name}"));
            if dir == Dir::In {
                m.connect_bundle(&inner, &outer);
            } else {
                m.connect_bundle(&outer, &inner);
            }
        }
    }
    let flush = m.input("l2_flush", 1);
    m.connect(&l2i.port("flush"), &flush);
    let flushed = m.output("l2_flushed", 1);
    m.connect(&flushed, &l2i.port("flushed"));
    Ok(())
}

/// The tile's port: its uncached region to the top-level `mem` port, the rest through
/// an in-order adapter to L2 port 0; the answers merged, `mem`'s first.
fn tile_port(
    m: &mut ModuleBuilder,
    p: &RocketHwachaParams,
    t: &Inst,
    (l2i, g): (&Inst, &Geometry),
    (mem_req, mem_resp): (&Bundle, &Bundle),
) -> Result<(), HdlErrors> {
    let a = m.instance("tile_l2", &narrow_port(TAG_BITS, g, NARROW_SLOTS)?);
    let treq = t.io("mem_req");
    let addr = treq.bits().get("addr").value().clone();
    let (base, size) = (p.rocket.uncached_base, p.rocket.uncached_size);
    let uncached = if size == 0 {
        m.lit(0, 1)
    } else {
        let lo = addr.ge(&m.lit(base, 32));
        let end = base + size;
        let hi = if end >> 32 != 0 {
            m.lit(1, 1)
        } else {
            addr.lt(&m.lit(end, 32))
        };
        &lo & &hi
    };
    let ain = a.io("in_req");
    m.connect_bundle(mem_req.bits(), treq.bits());
    m.connect_bundle(ain.bits(), treq.bits());
    m.connect(mem_req.valid(), &(treq.valid() & &uncached));
    m.connect(ain.valid(), &(treq.valid() & &!&uncached));
    m.connect(treq.ready(), &mux(&uncached, mem_req.ready(), ain.ready()));
    let back = a.io("in_resp");
    let tresp = t.io("mem_resp");
    m.connect(back.ready(), &!mem_resp.valid());
    m.connect(tresp.valid(), &(mem_resp.valid() | back.valid()));
    for f in ["data", "tag"] {
        let v = mux(
            mem_resp.valid(),
            mem_resp.bits().get(f).value(),
            back.bits().get(f).value(),
        );
        m.connect(tresp.bits().get(f).value(), &v);
    }
    m.connect_bundle(&l2i.io("p0_req"), &a.io("out_req"));
    m.connect_bundle(&a.io("out_resp"), &l2i.io("p0_resp"));
    Ok(())
}
