//! The compare unit on the operand crossbar (Figure 8.6: FCmp in VFU1; Table 8.7's
//! HwachaStagesFCmp): per 64-bit slice one library compare unit per precision
//! (`fpu::compare`: compares into predicates, min/max, sign injection, classify), all
//! of the same latency, so one result line serves them.

use super::fp_port::{any_flags, drive_result, result_out, Done, Port};
use super::uop::fmt;
use crate::fpu::compare::{self, CompareParams};
use crate::hwacha::params::HwachaParams;
use hdl::{HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// Ports: `xbar` in (FCmp operations only), `result` (data and element mask) and
/// `flags` out.
pub fn fcmp_unit(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("HwachaFCmp_x{}", p.slices()));
    let port = Port::new(&mut m, p);
    let formats = [("d", fmt::D), ("s", fmt::S), ("h", fmt::H)];
    let mut per_format: Vec<Vec<Done>> = Vec::new();
    for (name, code) in formats {
        let params = CompareParams {
            format: name.into(),
            stages: p.stages_fcmp,
        };
        let unit = compare::compare(&params)?;
        let w = params.format().width();
        let selected = port.fmt_is(code);
        let done = (0..p.slices())
            .map(|s| {
                let inst = m.instance(&format!("{name}{s}"), &unit);
                m.connect(&inst.port("in_valid"), &(&port.starts(s) & &selected));
                m.connect(&inst.port("rm"), &port.get("rm"));
                m.connect(
                    &inst.port("op"),
                    &port.get("fn").slice(compare::OP_BITS - 1, 0),
                );
                for x in ["a", "b"] {
                    m.connect(&inst.port(x), &port.operand(x, s).slice(w - 1, 0));
                }
                Done::of(&inst, w)
            })
            .collect();
        per_format.push(done);
    }
    // A slice's result: the one format whose operation finished (the others are
    // invalid, their data masked off).
    let slices: Vec<Done> = (0..p.slices() as usize)
        .map(|s| {
            let ds: Vec<Done> = per_format.iter().map(|f| f[s].clone()).collect();
            let data = ds.iter().map(|d| &d.valid.repeat(64) & &d.data);
            Done {
                valid: ds
                    .iter()
                    .map(|d| d.valid.clone())
                    .reduce(|a, v| &a | &v)
                    .unwrap(),
                data: data.reduce(|a, v| &a | &v).unwrap(),
                flags: any_flags(&ds),
            }
        })
        .collect();
    let out = result_out(&mut m, p, "result");
    let flags = drive_result(&mut m, &out, &slices);
    m.connect(&port.flags, &flags);
    m.finish()
}
