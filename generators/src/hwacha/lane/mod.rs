//! One lane (Figure 8.2): the lane sequencer and the vector execution unit (expander,
//! banks, shared units).

pub mod alu;
pub mod bank;
pub mod expander;
pub mod imul;
pub mod plu;
pub mod sequencer;
pub mod uop;
pub mod vxu;

use super::params::HwachaParams;
use hdl::{HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// Ports: the lane sequencer's (`lane_id` and the master sequencer's broadcast in,
/// `done`/`clearing` out), `busy` (micro-ops in flight) and each bank's register-file
/// writes (`b<i>_vrf_w`, `b<i>_prf_w`).
pub fn lane(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Lane");
    let candidates = p.seq_entries + 1;
    let seq_mod = sequencer::lane_sequencer(p)?;
    let seq = m.instance("sequencer", &seq_mod);
    let vxu = m.instance("vxu", &vxu::vxu(p, candidates)?);
    for port in &seq_mod.body.ports {
        let name = port.name.as_str();
        let is_cand = name.starts_with("cand_");
        if is_cand || name == "pick" {
            m.connect(&vxu.port(name), &seq.port(name));
        } else if name == "ok" {
            m.connect(&seq.port(name), &vxu.port(name));
        } else {
            // Everything else goes through to the lane's own ports.
            let width = seq_mod.signal(port.sig).width;
            match port.dir {
                hdl::Dir::In => {
                    let outer = m.input(name, width);
                    m.connect(&seq.port(name), &outer);
                }
                hdl::Dir::Out => {
                    let outer = m.output(name, width);
                    m.connect(&outer, &seq.port(name));
                }
            }
        }
    }
    let vxu_mod = vxu.module().clone();
    for port in &vxu_mod.body.ports {
        let name = port.name.as_str();
        if name == "busy" || name.starts_with('b') && name.contains("_w_") {
            let width = vxu_mod.signal(port.sig).width;
            let outer = m.output(name, width);
            m.connect(&outer, &vxu.port(name));
        }
    }
    m.finish()
}
