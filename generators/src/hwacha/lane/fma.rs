//! An FMA unit on the operand crossbar (Figure 8.6: FMA0 in VFU0, FMA1 in VFU1; Table
//! 8.7's HwachaStagesDFMA/SFMA/HFMA): per 64-bit slice one pipe per precision, each the
//! library's fused multiply-add (`fpu::fma`, which also does add, sub and mul), as
//! Hwacha's FMA holds a double, a single and a half pipe. An operation goes to its
//! format's pipes, one bank entry (S elements) a cycle; each pipe's results leave on
//! lines of their own (`d`, `s`, `h`), since the pipes' latencies differ and a bank
//! selects by the write micro-op's format (`uop::result_lines`).
//!
//! The widening forms (`vfadd.d.s`, `vfmadd.d.h`, ...: [`fma_fn::WIDEN`] in `fn`, the
//! sources' format beside it) widen their operands exactly in front of the pipe of the
//! result's format, through combinational conversion units (the library's, no stages);
//! a signaling NaN source raises NV (the golden model's reading), its flags travel
//! beside the pipe to join the operation's.
//!
//! With mixed precision (thesis chapter 8, "Spatial Parallelism"), each slice's single
//! pipe gains a second lane and its half pipe three more (`packed_lanes`: per VFU two
//! more single and six more half FMAs at S = 2), so that a packed operation computes a
//! whole packed row (2S singles or 4S halves) a cycle.

use super::fp_port::{
    any_flags, delay, drive_packed, drive_result, result_out, Done, PackedLanes, Port,
};
use super::uop::fmt;
use crate::fpu::convert::{self, kind, ConvertParams};
use crate::fpu::{fma, FloatFormat, DOUBLE, HALF, SINGLE};
use crate::hwacha::params::HwachaParams;
use hdl::{cat, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The FMA's `fn`: the library's operation (`fpu::fma::op`) in bits 2:0; a widening
/// form sets [`WIDEN`](fma_fn::WIDEN) and gives its sources' format (`uop::fmt`) in bits
/// 4:3.
pub mod fma_fn {
    pub const WIDEN: u64 = 1 << 5;

    /// `fn` of the widening form of `op` on sources of format `from`.
    pub fn widening(op: u64, from: u64) -> u64 {
        op | WIDEN | from << 3
    }
}

/// Each slice's operands widened to the operation's format (`fmt`) from the sources'
/// (`fn[4:3]`), and the flags the widening raised (read only for widening forms).
fn widened(m: &mut ModuleBuilder, port: &Port, s: u32) -> Result<([Value; 3], Value), HdlErrors> {
    let unit = convert::convert(&ConvertParams {
        formats: "hsd".into(),
        stages: 0,
    })?;
    let f = port.get("fn");
    let op = cat(&[
        &f.konst(hdl::Bits::from_u64(4, kind::F2F << 2)),
        &port.get("fmt"),
        &f.slice(4, 3),
    ]);
    let mut flags = f.konst(hdl::Bits::zero(5));
    let values = ["a", "b", "c"].map(|x| {
        let inst = m.instance(&format!("widen_{x}{s}"), &unit);
        m.connect(&inst.port("in_valid"), &port.starts(s));
        m.connect(&inst.port("rm"), &port.get("rm"));
        m.connect(&inst.port("op"), &op);
        m.connect(&inst.port("a"), &port.operand(x, s));
        flags = &flags | &inst.port("flags");
        inst.port("result")
    });
    Ok((values, flags))
}

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
    let widen = port.get("fn").bit(5);
    let wide: Vec<([Value; 3], Value)> = (0..p.slices())
        .map(|s| widened(&mut m, &port, s))
        .collect::<Result<_, _>>()?;
    let mut finished = Vec::new();
    for (name, code, format, stages) in pipes(p) {
        let pipe = fma::fma(format, stages)?;
        let selected = port.fmt_is(code);
        let w = format.width();
        let mut slices = Vec::new();
        let mut packed = Vec::new();
        for (s, (values, flags)) in wide.iter().enumerate() {
            let s = s as u32;
            let inst = m.instance(&format!("{name}{s}"), &pipe);
            m.connect(&inst.port("in_valid"), &(&port.starts(s) & &selected));
            m.connect(&inst.port("rm"), &port.get("rm"));
            m.connect(&inst.port("op"), &port.get("fn").slice(2, 0));
            for (x, v) in ["a", "b", "c"].iter().zip(values) {
                let operand = widen.mux(v, &port.operand(x, s)).slice(w - 1, 0);
                m.connect(&inst.port(x), &operand);
            }
            let raised = &widen.repeat(5) & flags;
            let late = delay(&mut m, &format!("{name}{s}_widen_flags"), &raised, stages);
            let done = Done::of(&inst, w);
            let lane0 = inst.port("result");
            slices.push(Done {
                flags: &done.flags | &late,
                ..done
            });
            let per_slice = if p.mixed_precision { 64 / w } else { 1 };
            let lanes = (name, &pipe, selected.clone(), w);
            packed.push(packed_lanes(&mut m, &port, lanes, (s, per_slice), lane0));
        }
        let out = result_out(&mut m, p, name);
        if p.mixed_precision && code != fmt::D {
            drive_packed(&mut m, &out, &slices, &packed);
        } else {
            drive_result(&mut m, &out, &slices);
        }
        finished.extend(slices);
        finished.extend(packed.into_iter().flat_map(|l| l.lanes));
    }
    m.connect(&port.flags, &any_flags(&finished));
    m.finish()
}

/// A slice's further lanes of a packed operation (mixed precision, thesis chapter 8's
/// spatial parallelism): subwords 1.. of a single (2 to a slice) or half (4) pipe, each
/// the library's FMA on its subword of the operands, started by its subword's mask bit.
fn packed_lanes(
    m: &mut ModuleBuilder,
    port: &Port,
    (name, pipe, selected, w): (&str, &Rc<Module>, Value, u32),
    (s, per_slice): (u32, u32),
    lane0: Value,
) -> PackedLanes {
    let lanes = (1..per_slice)
        .map(|j| {
            let inst = m.instance(&format!("{name}{s}_lane{j}"), pipe);
            m.connect(
                &inst.port("in_valid"),
                &(&port.starts_packed(s, j) & &selected),
            );
            m.connect(&inst.port("rm"), &port.get("rm"));
            m.connect(&inst.port("op"), &port.get("fn").slice(2, 0));
            for x in ["a", "b", "c"] {
                let operand = port.operand(x, s).slice(w * j + w - 1, w * j);
                m.connect(&inst.port(x), &operand);
            }
            Done {
                valid: inst.port("out_valid"),
                data: inst.port("result"),
                flags: inst.port("flags"),
            }
        })
        .collect();
    PackedLanes { lane0, lanes }
}
