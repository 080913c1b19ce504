//! One lane (Figure 8.2): the lane sequencer, the vector execution unit (expander,
//! banks, shared units) and the vector memory unit with the lane's side of it.

pub mod alu;
pub mod bank;
pub mod expander;
pub mod fcmp;
pub mod fconv;
pub mod fma;
pub mod fp_port;
pub mod imul;
pub mod memory;
pub mod plu;
pub mod regmap;
pub mod sequencer;
pub mod uop;
pub mod vfu2;
pub mod vxu;

use super::params::HwachaParams;
use hdl::{Dir, HdlErrors, Module, ModuleBuilder, Value};
use std::collections::HashMap;
use std::rc::Rc;

/// Ports: the master sequencer's broadcast and `lane_id` in; `done`, `clearing`,
/// `mem_ready`, `busy` (micro-ops or memory accesses in flight) out; the VMU's memory
/// port (`mem_req`/`mem_resp`) and `xcpt`; each bank's register-file writes
/// (`b<i>_vrf_w`, `b<i>_prf_w`); `fflags` (FP exception flags raised this cycle).
pub fn lane(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Lane");
    let candidates = p.seq_entries + 1;
    let seq_mod = sequencer::lane_sequencer(p)?;
    let mem_mod = memory::lane_memory(p)?;
    let vxu_mod = vxu::vxu(p, candidates)?;
    let seq = m.instance("sequencer", &seq_mod);
    let mem = m.instance("memory", &mem_mod);
    let vxu = m.instance("vxu", &vxu_mod);
    // Sequencer and expander.
    for i in 0..candidates {
        let name = format!("cand_{i}");
        m.connect_bundle(&vxu.io(&name), &seq.io(&name));
    }
    m.connect(&vxu.port("pick"), &seq.port("pick"));
    m.connect(&seq.port("ok"), &vxu.port("ok"));
    // Sequencer and memory side.
    for name in ["brq_space", "wb_done"] {
        m.connect(&seq.port(name), &mem.port(name));
    }
    m.connect_bundle(&seq.io("wb_strips"), &mem.io("wb_strips"));
    for name in ["deps_clear", "readout"] {
        m.connect(&mem.port(name), &seq.port(name));
    }
    for b in 0..p.banks {
        m.connect_bundle(&mem.io(&format!("b{b}_brq")), &vxu.io(&format!("b{b}_brq")));
        m.connect_bundle(&vxu.io(&format!("b{b}_bwq")), &mem.io(&format!("b{b}_bwq")));
        for q in ["count", "deq"] {
            let name = format!("b{b}_bwq_{q}");
            m.connect(&mem.port(&name), &vxu.port(&name));
        }
    }
    let internal = |name: &str| {
        name.starts_with("cand_")
            || name.starts_with("wb_strips")
            || name.contains("brq")
            || name.contains("bwq")
            || [
                "pick",
                "ok",
                "brq_space",
                "wb_done",
                "deps_clear",
                "readout",
            ]
            .contains(&name)
    };
    // The rest are the lane's own ports; an input both blocks take is one lane input.
    let mut inputs: HashMap<String, Value> = HashMap::new();
    for (inst, module) in [(&seq, &seq_mod), (&mem, &mem_mod)] {
        for port in &module.body.ports {
            let name = port.name.as_str();
            if internal(name) || name == "busy" || name == "div_fflags" {
                continue;
            }
            let width = module.signal(port.sig).width;
            match port.dir {
                Dir::In => {
                    let outer = inputs
                        .entry(name.to_string())
                        .or_insert_with(|| m.input(name, width))
                        .clone();
                    m.connect(&inst.port(name), &outer);
                }
                Dir::Out => {
                    let outer = m.output(name, width);
                    m.connect(&outer, &inst.port(name));
                }
            }
        }
    }
    for port in &vxu_mod.body.ports {
        let name = port.name.as_str();
        if name.ends_with("_w_valid") || name.contains("_w_bits_") {
            let outer = m.output(name, vxu_mod.signal(port.sig).width);
            m.connect(&outer, &vxu.port(name));
        }
    }
    // FP exception flags: the crossbar units' and VFU2's dividers'.
    let fflags = m.output("fflags", 5);
    m.connect(&fflags, &(&vxu.port("fflags") | &mem.port("div_fflags")));
    let busy = m.output("busy", 1);
    m.connect(&busy, &(&vxu.port("busy") | &mem.port("busy")));
    m.finish()
}
