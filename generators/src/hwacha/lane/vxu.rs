//! The vector execution unit of one lane (Figure 8.6): the expander feeding bank 0, the
//! banks chained so that micro-ops pass to the next bank each cycle (the systolic
//! schedule of Figure 8.7), and the operand crossbar to the shared units (VFU0's IMul;
//! VFU0/VFU1's FMA, FConv and FCmp and VFU2's dividers take further crossbar ports).

use super::bank::{bank, brq_shape, bwq_shape};
use super::expander::expander;
use super::imul::imul;
use super::uop::{seq_op, write_trace, xbar};
use crate::hwacha::params::HwachaParams;
use hdl::ir::addr_width;
use hdl::{Bundle, Dir, HdlErrors, Module, ModuleBuilder, Shape};
use std::rc::Rc;

/// Ports: the expander's `cand_<i>`, `ok` and `pick` (see `expander`), each bank's read
/// and write queues to the memory side (`b<i>_brq`, `b<i>_bwq`), `b<i>_vrf_w` /
/// `b<i>_prf_w` (each bank's register-file writes) and `busy` (micro-ops in flight).
pub fn vxu(p: &HwachaParams, candidates: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Vxu");
    let busy = m.output("busy", 1);
    let exp = m.instance("expander", &expander(p, candidates)?);
    for i in 0..candidates {
        let name = format!("cand_{i}");
        let cand = m.io(&name, Dir::In, &Shape::valid(seq_op(p)));
        m.connect_bundle(&exp.io(&name), &cand);
    }
    let ok = m.output("ok", candidates);
    let pick = m.input("pick", candidates);
    m.connect(&ok, &exp.port("ok"));
    m.connect(&exp.port("pick"), &pick);
    let (bank_mod, last_mod) = (bank(p, false)?, bank(p, true)?);
    let mul = m.instance("imul", &imul(p)?);
    let id_bits = addr_width(p.banks as u64).max(1);
    let (row_w, prow_w) = (
        addr_width(p.bank_entries as u64),
        addr_width(p.pred_entries as u64),
    );
    let s = p.slices();

    let mut upstream = [exp.io("read"), exp.io("fop"), exp.io("write")];
    let mut in_flight = exp.port("busy");
    let mut xbars: Vec<Bundle> = Vec::new();
    for b in 0..p.banks {
        let last = b + 1 == p.banks;
        let bank = m.instance(
            &format!("bank{b}"),
            if last { &last_mod } else { &bank_mod },
        );
        let id = m.lit(b as u64, id_bits);
        m.connect(&bank.port("bank_id"), &id);
        for (name, up) in ["read", "fop", "write"].iter().zip(&upstream) {
            m.connect_bundle(&bank.io(name), up);
        }
        if !last {
            upstream = [
                bank.io("next_read"),
                bank.io("next_fop"),
                bank.io("next_write"),
            ];
            for u in &upstream {
                in_flight = &in_flight | u.get("valid").value();
            }
        }
        m.connect_bundle(&bank.io("imul_result"), &mul.io("result"));
        for (name, rw, dw) in [("vrf_w", row_w, p.bank_width), ("prf_w", prow_w, s)] {
            let out = m.io(&format!("b{b}_{name}"), Dir::Out, &write_trace(rw, dw, s));
            m.connect_bundle(&out, &bank.io(name));
        }
        xbars.push(bank.io("xbar"));
        let brq = m.io(
            &format!("b{b}_brq"),
            Dir::Out,
            &Shape::decoupled(brq_shape(p)),
        );
        m.connect_bundle(&brq, &bank.io("brq"));
        let bwq = m.io(
            &format!("b{b}_bwq"),
            Dir::In,
            &Shape::decoupled(bwq_shape(p)),
        );
        m.connect_bundle(&bank.io("bwq"), &bwq);
        let empty = m.output(&format!("b{b}_bwq_empty"), 1);
        m.connect(&empty, &bank.port("bwq_empty"));
    }
    // The expander gives the crossbar to one bank per cycle, so the drivers are ORed.
    let x = mul.io("xbar");
    let xb_shape = xbar(p);
    let mut merged = xbars[0].clone();
    for other in &xbars[1..] {
        merged = or_bundle(&mut m, &merged, other, &xb_shape);
    }
    m.connect_bundle(&x, &merged);
    m.connect(&busy, &in_flight);
    m.finish()
}

/// Leaf-by-leaf OR of two valid bundles, each leaf gated by its bundle's valid.
fn or_bundle(m: &mut ModuleBuilder, a: &Bundle, b: &Bundle, shape: &Shape) -> Bundle {
    let w = m.wire_bundle("xbar_or", shape);
    let (va, vb) = (a.valid().clone(), b.valid().clone());
    for (((dst, _), (x, _)), (y, _)) in w.leaves().into_iter().zip(a.leaves()).zip(b.leaves()) {
        let gx = &va.repeat(x.width()) & x;
        let gy = &vb.repeat(y.width()) & y;
        m.connect(dst, &(&gx | &gy));
    }
    w
}
