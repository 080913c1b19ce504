//! An FMA unit on the operand crossbar (Figure 8.6: FMA0 in VFU0, FMA1 in VFU1; Table
//! 8.7's HwachaStagesDFMA/SFMA/HFMA): per 64-bit slice one pipe per precision, each the
//! library's fused multiply-add (`fpu::fma`, which also does add, sub and mul), as
//! Hwacha's FMA holds a double, a single and a half pipe. An operation goes to its
//! format's pipes, one bank entry (S elements) a cycle; each pipe's results leave on
//! lines of their own (`d`, `s`, `h`), since the pipes' latencies differ and a bank
//! selects by the write micro-op's format (`uop::result_lines`).

use super::fp_port::{any_flags, drive_result, result_out, Done, Port};
use super::uop::fmt;
use crate::fpu::{fma, FloatFormat, DOUBLE, HALF, SINGLE};
use crate::hwacha::params::HwachaParams;
use hdl::{HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// The pipes: result port, format code, format and stages.
fn pipes(p: &HwachaParams) -> [(&'static str, u64, FloatFormat, u32); 3] {
    [
        ("d", fmt::D, DOUBLE, p.stages_dfma),
        ("s", fmt::S, SINGLE, p.stages_sfma),
        ("h", fmt::H, HALF, p.stages_hfma),
    ]
}

/// Ports: `xbar` in (this unit's operations only), `d`, `s`, `h` (each pipe's results:
/// data and element mask) and `flags` out.
pub fn fma_unit(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("HwachaFma_x{}", p.slices()));
    let port = Port::new(&mut m, p);
    let mut finished = Vec::new();
    for (name, code, format, stages) in pipes(p) {
        let pipe = fma::fma(format, stages)?;
        let selected = port.fmt_is(code);
        let w = format.width();
        let slices: Vec<Done> = (0..p.slices())
            .map(|s| {
                let inst = m.instance(&format!("{name}{s}"), &pipe);
                m.connect(&inst.port("in_valid"), &(&port.starts(s) & &selected));
                m.connect(&inst.port("rm"), &port.get("rm"));
                m.connect(&inst.port("op"), &port.get("fn").slice(2, 0));
                for x in ["a", "b", "c"] {
                    m.connect(&inst.port(x), &port.operand(x, s).slice(w - 1, 0));
                }
                Done::of(&inst, w)
            })
            .collect();
        let out = result_out(&mut m, p, name);
        drive_result(&mut m, &out, &slices);
        finished.extend(slices);
    }
    m.connect(&port.flags, &any_flags(&finished));
    m.finish()
}
