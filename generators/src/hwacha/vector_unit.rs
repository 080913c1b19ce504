//! The vector side of Hwacha without its frontend: the master sequencer and the lanes.
//! The scalar unit (or a testbench) issues decoded vector instructions (`issue`) and
//! configurations (`cfg`).

use super::lane::lane;
use super::lane::uop::vinsn;
use super::master::{cfg_shape, master_sequencer};
use super::params::HwachaParams;
use super::scalar::smu::reg_write as vresp_shape;
use super::scalar::vbranch_shape;
use hdl::{Dir, HdlErrors, Module, ModuleBuilder, Shape};
use std::rc::Rc;

/// Whether `name` is a port of a lane's memory channel (`l<l>_mem_req...`,
/// `l<l>_mem_resp...`).
pub fn lane_mem_port(name: &str) -> bool {
    name.strip_prefix('l')
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(lane, port)| {
            lane.chars().all(|c| c.is_ascii_digit()) && port.starts_with("mem_")
        })
}

/// Ports: `issue` (decoupled decoded vector instruction), `cfg` (valid; send only while
/// `idle`), `idle`, `vresp`/`vbranch` (reduction results to the scalar unit), `fflags`
/// (the FP exception flags the lanes raised this cycle), and lane `l`'s memory port
/// `l<l>_mem_req`/`l<l>_mem_resp`, `l<l>_xcpt` and bank writes `l<l>_b<i>_vrf_w` /
/// `l<l>_b<i>_prf_w`.
pub fn vector_unit(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("VectorUnit");
    let issue = m.io("issue", Dir::In, &Shape::decoupled(vinsn()));
    let cfg = m.io("cfg", Dir::In, &cfg_shape(p));
    let idle = m.output("idle", 1);
    let master = m.instance("master", &master_sequencer(p)?);
    m.connect_bundle(&master.io("issue"), &issue);
    m.connect_bundle(&master.io("cfg"), &cfg);
    m.connect(&idle, &master.port("idle"));
    let vresp = m.io("vresp", Dir::Out, &vresp_shape());
    m.connect_bundle(&vresp, &master.io("vresp"));
    let vbranch = m.io("vbranch", Dir::Out, &vbranch_shape());
    m.connect_bundle(&vbranch, &master.io("vbranch"));
    let lane_mod = lane(p)?;
    let id_bits = super::lane::sequencer::lane_id_bits(p);
    let mut fflags = m.lit(0, 5);
    for l in 0..p.lanes {
        let ln = m.instance(&format!("lane{l}"), &lane_mod);
        let id = m.lit(l as u64, id_bits);
        m.connect(&ln.port("lane_id"), &id);
        for port in &lane_mod.body.ports {
            let name = port.name.as_str();
            let width = lane_mod.signal(port.sig).width;
            match (port.dir, name) {
                (_, "lane_id") => {}
                (Dir::Out, _) if name.starts_with("red_") => {
                    let rest = &name["red_".len()..];
                    m.connect(&master.port(&format!("red_{l}_{rest}")), &ln.port(name));
                }
                (Dir::Out, "fflags") => fflags = &fflags | &ln.port(name),
                (Dir::Out, "done" | "clearing" | "busy" | "mem_ready") => {
                    m.connect(&master.port(&format!("{name}_{l}")), &ln.port(name));
                }
                (Dir::Out, _) => {
                    let outer = m.output(&format!("l{l}_{name}"), width);
                    m.connect(&outer, &ln.port(name));
                }
                (Dir::In, _) if name.starts_with("mem_") => {
                    let outer = m.input(&format!("l{l}_{name}"), width);
                    m.connect(&ln.port(name), &outer);
                }
                (Dir::In, _) => m.connect(&ln.port(name), &master.port(name)),
            }
        }
    }
    let out = m.output("fflags", 5);
    m.connect(&out, &fflags);
    m.finish()
}
