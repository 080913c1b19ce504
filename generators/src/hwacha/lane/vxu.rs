//! The vector execution unit of one lane (Figure 8.6): the expander feeding bank 0, the
//! banks chained so that micro-ops pass to the next bank each cycle (the systolic
//! schedule of Figure 8.7), and the operand crossbar to the shared units: VFU0's IMul,
//! FMA0 and FConv on one port, VFU1's FMA1 and FCmp on the other (VFU2's dividers take
//! their operands through the bank read queues). Each unit's results go to every bank;
//! the FP units' exception flags leave on `fflags`.

use super::bank::{bank, brq_shape, bwq_count_bits, bwq_shape};
use super::expander::expander;
use super::fcmp::fcmp_unit;
use super::fconv::fconv_unit;
use super::fma::fma_unit;
use super::imul::imul;
use super::uop::{result_lines, seq_op, unit, write_trace, xbar, VFUS};
use crate::hwacha::params::HwachaParams;
use hdl::ir::addr_width;
use hdl::{Bundle, Dir, HdlErrors, Module, ModuleBuilder, Shape};
use std::rc::Rc;

/// Ports: the expander's `cand_<i>`, `ok` and `pick` (see `expander`), each bank's read
/// and write queues to the memory side (`b<i>_brq`, `b<i>_bwq`), `b<i>_vrf_w` /
/// `b<i>_prf_w` (each bank's register-file writes), `fflags` (the FP exception flags
/// of the elements finished this cycle) and `busy` (micro-ops in flight).
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
    let units = CrossbarUnits::new(&mut m, p)?;
    let id_bits = addr_width(p.banks as u64).max(1);
    let (row_w, prow_w) = (
        addr_width(p.bank_entries as u64),
        addr_width(p.pred_entries as u64),
    );
    let s = p.slices();

    let mut upstream = [exp.io("read"), exp.io("fop"), exp.io("write")];
    let mut in_flight = exp.port("busy");
    let mut xbars: [Vec<Bundle>; VFUS] = Default::default();
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
        for (name, line) in result_lines().iter().map(|l| l.0).zip(&units.results) {
            m.connect_bundle(&bank.io(&format!("{name}_result")), line);
        }
        for (name, rw, dw) in [("vrf_w", row_w, p.bank_width), ("prf_w", prow_w, s)] {
            let out = m.io(&format!("b{b}_{name}"), Dir::Out, &write_trace(p, rw, dw));
            m.connect_bundle(&out, &bank.io(name));
        }
        for (v, ports) in xbars.iter_mut().enumerate() {
            ports.push(bank.io(&format!("xbar{v}")));
        }
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
        let count = m.output(&format!("b{b}_bwq_count"), bwq_count_bits(p));
        m.connect(&count, &bank.port("bwq_count"));
        let deq = m.output(&format!("b{b}_bwq_deq"), 1);
        m.connect(&deq, &bank.port("bwq_deq"));
    }
    // The expander gives each crossbar port to one bank per cycle, so the drivers are
    // ORed.
    let xb_shape = xbar(p);
    for (v, ports) in xbars.iter().enumerate() {
        let mut merged = ports[0].clone();
        for other in &ports[1..] {
            merged = or_bundle(&mut m, &merged, other, &xb_shape);
        }
        units.connect_port(&mut m, v, &merged);
    }
    let fflags = m.output("fflags", 5);
    m.connect(&fflags, &units.flags);
    m.connect(&busy, &in_flight);
    m.finish()
}

/// The crossbar units: their instances (VFU0: IMul, FMA0, FConv; VFU1: FMA1, FCmp), with
/// their crossbar codes, and their result lines in `uop::result_lines`'s order.
struct CrossbarUnits {
    /// (VFU, unit code, instance); the IMul takes its VFU's port whole.
    members: Vec<(usize, u64, hdl::Inst)>,
    results: Vec<Bundle>,
    flags: hdl::Value,
}

impl CrossbarUnits {
    fn new(m: &mut ModuleBuilder, p: &HwachaParams) -> Result<CrossbarUnits, HdlErrors> {
        let fma = fma_unit(p)?;
        let members = vec![
            (0, unit::IMUL, m.instance("imul", &imul(p)?)),
            (0, unit::FMA, m.instance("fma0", &fma)),
            (1, unit::FMA1, m.instance("fma1", &fma)),
            (0, unit::FCONV, m.instance("fconv", &fconv_unit(p)?)),
            (1, unit::FCMP, m.instance("fcmp", &fcmp_unit(p)?)),
        ];
        let inst = |code: u64| &members.iter().find(|u| u.1 == code).unwrap().2;
        let results = result_lines()
            .iter()
            .map(|&(name, code, _)| match name.split_once('_') {
                Some((_, pipe)) => inst(code).io(pipe),
                None => inst(code).io("result"),
            })
            .collect();
        let flags = (members.iter().skip(1))
            .map(|u| u.2.port("flags"))
            .reduce(|a, f| &a | &f)
            .unwrap();
        Ok(CrossbarUnits {
            members,
            results,
            flags,
        })
    }

    /// Feeds VFU `v`'s port to its units, each taking only its own operations.
    fn connect_port(&self, m: &mut ModuleBuilder, v: usize, port: &Bundle) {
        for (_, code, inst) in self.members.iter().filter(|u| u.0 == v) {
            let x = inst.io("xbar");
            if *code == unit::IMUL {
                m.connect_bundle(&x, port);
                continue;
            }
            let u = port.bits().get("unit").value();
            m.connect(x.valid(), &(port.valid() & &unit::is(u, *code)));
            for ((dst, _), (src, _)) in x.bits().leaves().into_iter().zip(port.bits().leaves()) {
                m.connect(dst, src);
            }
        }
    }
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
