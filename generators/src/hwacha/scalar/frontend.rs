//! `HwachaFrontend`: the RoCC unit (`rocc.rs`) feeding the scalar unit through the VCMDQ,
//! with the scalar unit's memory, vector-side and trace ports brought out.

use super::smu::reg_write;
use super::{scalar_unit, trace_shape, vbranch_shape, vcfg_shape, vissue_shape, RamWindow};
use crate::hwacha::params::HwachaParams;
use crate::hwacha::rocc::{rocc_unit, vcmd_entry, xcpt_shape};
use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_response};
use hdl::{mux, Dir, HdlErrors, Module, ModuleBuilder, Shape};
use std::rc::Rc;

/// `HwachaFrontend`: the RoCC unit feeding the scalar unit through the VCMDQ. Ports:
/// `cmd`, `resp`, `busy` (RoCC), `vrcmd` (the RoCC unit's VRCMDQ), and the scalar unit's `imem_*`, `dmem_*`, `vissue`,
/// `vresp`, `vbranch`, `vstop`, `vidle`, `vcfg`, `halt` (to both units), `xcpt` (either unit's
/// exceptions: the scalar unit's for a cycle, the RoCC unit's while the core presents
/// the illegal command), `trace`.
pub fn frontend(p: &HwachaParams, ram: RamWindow) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaFrontend");
    let rocc = m.instance("rocc", &rocc_unit(p)?);
    let scalar = m.instance("scalar", &scalar_unit(p, ram)?);
    let cmd = m.io("cmd", Dir::In, &rocc_command());
    m.connect_bundle(&rocc.io("cmd"), &cmd);
    let resp = m.io("resp", Dir::Out, &rocc_response());
    m.connect_bundle(&resp, &rocc.io("resp"));
    let busy = m.output("busy", 1);
    m.connect(&busy, &rocc.port("busy"));
    m.connect_bundle(&scalar.io("vcmd"), &rocc.io("vcmd"));
    let vrcmd = m.io("vrcmd", Dir::Out, &Shape::decoupled(vcmd_entry(p)));
    m.connect_bundle(&vrcmd, &rocc.io("vrcmd"));
    m.connect(&rocc.port("scalar_busy"), &scalar.port("busy"));
    for (name, dir, shape) in [
        ("imem_req", Dir::Out, mem_request(0)),
        ("imem_resp", Dir::In, mem_response(0)),
        ("dmem_req", Dir::Out, mem_request(0)),
        ("dmem_resp", Dir::In, mem_response(0)),
        ("vissue", Dir::Out, vissue_shape(p)),
        ("vresp", Dir::In, reg_write()),
        ("vbranch", Dir::In, vbranch_shape()),
        ("vcfg", Dir::Out, vcfg_shape()),
        ("trace", Dir::Out, trace_shape()),
    ] {
        let outer = m.io(name, dir, &shape);
        if dir == Dir::Out {
            m.connect_bundle(&outer, &scalar.io(name));
        } else {
            m.connect_bundle(&scalar.io(name), &outer);
        }
    }
    let vstop = m.output("vstop", 1);
    m.connect(&vstop, &scalar.port("vstop"));
    let vidle = m.input("vidle", 1);
    m.connect(&scalar.port("vidle"), &vidle);
    let halt = m.input("halt", 1);
    m.connect(&scalar.port("halt"), &halt);
    m.connect(&rocc.port("halt"), &halt);
    // The RoCC unit raises only while the scalar unit is idle: never both at once.
    let xcpt = m.io("xcpt", Dir::Out, &xcpt_shape());
    let (rx, sx) = (rocc.io("xcpt"), scalar.io("xcpt"));
    m.connect(xcpt.valid(), &(rx.valid() | sx.valid()));
    for f in ["cause", "tval"] {
        let v = mux(
            rx.valid(),
            rx.bits().get(f).value(),
            sx.bits().get(f).value(),
        );
        m.connect(xcpt.bits().get(f).value(), &v);
    }
    m.finish()
}
