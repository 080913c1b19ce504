//! The expander (Figure 8.9, Tables 8.5-8.6): turns the sequencer operation of one strip
//! into bank micro-ops placed in shift registers at exactly the cycles the systolic
//! schedule needs, and refuses an operation whose micro-ops would collide with those
//! already placed.
//!
//! Slot `t` holds what bank 0 executes `t` cycles from now (slot 0: this cycle); bank
//! `b` executes the same micro-ops `b` cycles later, so checking bank 0's schedule checks
//! every bank's. An operation with `r` vector operands reads them at slots 0..r (operand
//! 1 into latch 0, operand 2 into latch 1), starts its unit at slot `f = r + 1` (the
//! latches hold the data by then) and writes at `w = f + latency(unit)`.
//!
//! The lane sequencer offers one candidate per sequencer slot (`cand_<i>`), the expander
//! answers which it could take this cycle (`ok`, the thesis's "peeking into the
//! expander"), and the sequencer picks one of those (`pick`, one-hot). A candidate is
//! acceptable (its slots counted from the next cycle) when:
//! - its read, fop and write slots are free (readouts for the VMU have no write) (one SRAM read, one unit issue and one
//!   register-file write per bank per cycle), and for a crossbar unit the crossbar is
//!   free for the B cycles its strip occupies it (the bank slots pass one by one);
//! - no placed write to a row it reads lands at or after its read (RAW), no placed write
//!   to its destination lands at or after its write (WAW), and no placed read of its
//!   destination happens at or after its write (WAR), for the vector and predicate
//!   register files alike (an SRAM read and write of one row in one cycle is avoided).

use super::uop::{
    fop_uop, prow_bits, read_uop, row_bits, seq_op, unit, uop_regs, uop_regs_with, write_uop,
};
use crate::hwacha::params::HwachaParams;
use hdl::helpers::onehot_mux;
use hdl::{Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

/// Slots: the latest write is at `f + latency` with `f` at most 3.
pub fn slots(p: &HwachaParams) -> u32 {
    FOP_SLOTS + p.stages_alu.max(p.stages_plu).max(p.stages_imul)
}

/// Slots that can hold a read: operand 1 reads at slot 0, operand 2 at slot 0 or 1.
/// Later slots are always empty, so they have no registers.
const READ_SLOTS: u32 = 2;
/// Slots that can hold a fop: `f = 1 + vector operands` is at most 3.
const FOP_SLOTS: u32 = 4;

/// Where an operation's micro-ops go, as 8-bit slot numbers.
struct Plan {
    op: Bundle,
    rs1_v: Value,
    rs2_v: Value,
    /// Slot of operand 2's read (operand 1 reads at 0).
    j2: Value,
    f: Value,
    w: Value,
    /// A write micro-op goes at `w` (not for readouts, whose loads write back through
    /// the bank write queues).
    writes: Value,
    /// The written row (of the predicate file when `rd_pred`).
    dest: Value,
    rd_pred: Value,
    imul: Value,
    plu: Value,
}

fn slot_no(v: &Value, n: u64) -> Value {
    v.konst(Bits::from_u64(8, n))
}

fn plan(p: &HwachaParams, op: &Bundle) -> Plan {
    let o = |name: &str| op.get(name).value().clone();
    let (rs1_v, rs2_v) = (o("rs1_v"), o("rs2_v"));
    let j2 = rs1_v.zext(8);
    let f = &(&rs1_v.zext(8) + &rs2_v.zext(8)) + &slot_no(&j2, 1);
    let (imul, plu) = (
        unit::is(&o("unit"), unit::IMUL),
        unit::is(&o("unit"), unit::PLU),
    );
    let latency = imul.mux(
        &slot_no(&f, p.stages_imul as u64),
        &plu.mux(
            &slot_no(&f, p.stages_plu as u64),
            &slot_no(&f, p.stages_alu as u64),
        ),
    );
    let w = &f + &latency;
    let row_w = row_bits(p).max(prow_bits(p));
    let rd_pred = o("rd_pred");
    let dest = rd_pred.mux(&o("prd").zext(row_w), &o("rd").zext(row_w));
    let writes = &o("wr") & &!&unit::is(&o("unit"), unit::MEM);
    Plan {
        writes,
        op: op.clone(),
        rs1_v,
        rs2_v,
        j2,
        f,
        w,
        dest,
        rd_pred,
        imul,
        plu,
    }
}

/// The micro-ops already placed, as they stand from the next cycle on.
struct View {
    read: Vec<Bundle>,
    fop: Vec<Bundle>,
    write: Vec<Bundle>,
    xbar: Value,
}

/// Whether the fop micro-op `fop` reads predicate row `row` (a PLU fop's `pred` is its
/// first source, `uop::fop_uop`).
fn reads_pred(fop: &Bundle, row: &Value) -> Value {
    let g = |n: &str| fop.get(n).value().clone();
    let plu = unit::is(&g("unit"), unit::PLU);
    let first = &(&g("pred_on") | &plu) & &g("pred").eq(row);
    let sources = &g("ps2").eq(row) | &g("ps3").eq(row);
    &g("valid") & &(&first | &(&plu & &sources))
}

/// The crossbar cycles an operation takes: B from its fop slot, for crossbar units.
fn xbar_claim(p: &HwachaParams, plan: &Plan, len: u32) -> Value {
    let mut claim = plan.f.konst(Bits::zero(len));
    for t in 0..len {
        let tt = slot_no(&plan.f, t as u64);
        let within = &tt.ge(&plan.f) & &tt.lt(&(&plan.f + &slot_no(&plan.f, p.banks as u64)));
        claim = within.mux(
            &(&claim | &claim.konst(Bits::from_u64(len, 1 << t))),
            &claim,
        );
    }
    plan.imul.mux(&claim, &claim.konst(Bits::zero(len)))
}

/// Whether `plan` collides with `view` (the rules in the module docs).
fn hazard(p: &HwachaParams, plan: &Plan, view: &View) -> Value {
    let o = |name: &str| plan.op.get(name).value().clone();
    let row_w = plan.dest.width();
    let mut hazard = plan.f.konst(Bits::zero(1));
    for t in 0..view.read.len() {
        let tt = slot_no(&plan.f, t as u64);
        let g = |b: &Bundle, name: &str| b.get(name).value().clone();
        let (rd, fo, wr) = (&view.read[t], &view.fop[t], &view.write[t]);
        let at_j1 = &plan.rs1_v & &tt.konst(Bits::from_u64(1, (t == 0) as u64));
        let at_j2 = &plan.rs2_v & &tt.eq(&plan.j2);
        // Structural: the read port, the unit issue, the write port.
        let mut h = &(&(&at_j1 | &at_j2) & &g(rd, "valid")) | &(&tt.eq(&plan.f) & &g(fo, "valid"));
        h = &h | &(&(&plan.writes & &tt.eq(&plan.w)) & &g(wr, "valid"));
        // RAW on the vector register file: a placed write at or after the read.
        let wrow = g(wr, "row");
        let wr_vrf = &g(wr, "valid") & &!&g(wr, "pred");
        let wr_prf = &g(wr, "valid") & &g(wr, "pred");
        let raw1 = &plan.rs1_v & &wrow.eq(&o("rs1").zext(row_w));
        let raw2 = &(&plan.rs2_v & &tt.ge(&plan.j2)) & &wrow.eq(&o("rs2").zext(row_w));
        h = &h | &(&wr_vrf & &(&raw1 | &raw2));
        // RAW on the predicate file: the fop reads its predicates at f.
        let prow = wrow.slice(o("pred").width() - 1, 0);
        let guard = &o("pred_on") & &o("pred").eq(&prow);
        let sources = &(&o("ps1").eq(&prow) | &o("ps2").eq(&prow)) | &o("ps3").eq(&prow);
        let pred_read = &guard | &(&plan.plu & &sources);
        h = &h | &(&(&wr_prf & &tt.ge(&plan.f)) & &pred_read);
        // WAW: a placed write of the same row of the same file at or after ours.
        let same_file = g(wr, "pred").eq(&plan.rd_pred);
        let waw = &(&(&g(wr, "valid") & &same_file) & &tt.ge(&plan.w)) & &wrow.eq(&plan.dest);
        // WAR: a placed read of our destination at or after our write.
        let war_vrf =
            &(&g(rd, "valid") & &!&plan.rd_pred) & &g(rd, "row").zext(row_w).eq(&plan.dest);
        let war_prf = &plan.rd_pred & &reads_pred(fo, &o("prd"));
        let war = &tt.ge(&plan.w) & &(&war_vrf | &war_prf);
        h = &h | &(&plan.writes & &(&waw | &war));
        hazard = &hazard | &h;
    }
    let claim = xbar_claim(p, plan, view.xbar.width());
    &hazard | &(&claim & &view.xbar).or_r()
}

/// The picked candidate's sequencer operation. `pick` is one-hot, or zero when nothing
/// is placed (every placement is gated by its OR), so each field is an AND-OR of the
/// candidates' rather than a chain of muxes.
fn picked(m: &mut ModuleBuilder, p: &HwachaParams, pick: &Value, cands: &[Bundle]) -> Bundle {
    let shape = seq_op(p);
    let op = m.wire_bundle("picked", &shape);
    for (name, ..) in shape.leaves("") {
        let name = &name[1..];
        let fields: Vec<Value> = cands
            .iter()
            .map(|c| c.bits().get(name).value().clone())
            .collect();
        m.connect(op.get(name).value(), &onehot_mux(pick, &fields));
    }
    op
}

/// The registers of fop slot `t`, as `uop::uop_regs`'s but for the scalars: a fop is
/// placed at slot `f = 1 + vector operands`, so one at slot 3 has no scalar operand (its
/// `s1`/`s2` read zero, no registers) and one at slot 2 has one: a single register
/// `fop2_s` holds it and reads as both `s1` and `s2` (a bank reads `s1` only for a
/// scalar operand 1 and `s2` only for a scalar operand 2).
fn fop_slot(m: &mut ModuleBuilder, shape: &Shape, t: u32) -> Bundle {
    let shared = (t == 2).then(|| m.reg(&format!("fop{t}_s"), 64, ResetValue::None));
    uop_regs_with(m, &format!("fop{t}"), shape, |m, name, w| match name {
        "s1" | "s2" if t >= 2 => Some(shared.clone().unwrap_or_else(|| m.lit(0, w))),
        _ => None,
    })
}

/// Loads fop slot `t`'s registers (`fop_slot`) from `fo`.
fn connect_fop(m: &mut ModuleBuilder, shape: &Shape, t: u32, reg: &Bundle, fo: &Bundle) {
    for (name, ..) in shape.leaves("") {
        let name = &name[1..];
        let (r, v) = (reg.get(name).value(), fo.get(name).value());
        match (name, t) {
            ("s1" | "s2", 3..) | ("s2", 2) => {}
            // The scalar operand: operand 2's when operand 1 is a vector register.
            ("s1", 2) => {
                let rs1_v = fo.get("rs1_v").value();
                m.connect(r, &rs1_v.mux(fo.get("s2").value(), v));
            }
            _ => m.connect(r, v),
        }
    }
}

/// Ports: `cand_<i>` (valid + sequencer operation) for `candidates` candidates and
/// `pick` (one-hot, only among `ok`) in; `ok`, bank 0's micro-ops `read`/`fop`/`write`
/// and `busy` (micro-ops still to be executed by some bank) out.
pub fn expander(p: &HwachaParams, candidates: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Expander");
    let cand_s = Shape::valid(seq_op(p));
    let cands: Vec<Bundle> = (0..candidates)
        .map(|i| m.io(&format!("cand_{i}"), Dir::In, &cand_s))
        .collect();
    let ok = m.output("ok", candidates);
    let pick = m.input("pick", candidates);
    let (read_s, fop_s, write_s) = (read_uop(p), fop_uop(p), write_uop(p));
    let out_read = m.io("read", Dir::Out, &read_s);
    let out_fop = m.io("fop", Dir::Out, &fop_s);
    let out_write = m.io("write", Dir::Out, &write_s);
    let busy = m.output("busy", 1);

    let n = slots(p) as usize;
    let regs = |m: &mut ModuleBuilder, name: &str, s: &Shape, len: usize| -> Vec<Bundle> {
        (0..len)
            .map(|t| uop_regs(m, &format!("{name}{t}"), s))
            .collect()
    };
    let reads = regs(&mut m, "read", &read_s, READ_SLOTS as usize);
    let fops: Vec<Bundle> = (0..FOP_SLOTS)
        .map(|t| fop_slot(&mut m, &fop_s, t))
        .collect();
    let writes = regs(&mut m, "write", &write_s, n);
    // The crossbar is taken from the fop slot of bank 0 to that of the last bank.
    let xbar_len = (n + p.banks as usize) as u32;
    let xbar = m.reg("xbar_busy", xbar_len, 0u64);
    m.connect_bundle(&out_read, &reads[0]);
    m.connect_bundle(&out_fop, &fops[0]);
    m.connect_bundle(&out_write, &writes[0]);

    // Next cycle's view of all n slots: slot t then holds what slot t + 1 holds now
    // (empty past the registers).
    let shifted = |m: &mut ModuleBuilder, regs: &[Bundle], s: &Shape, name: &str| {
        let empty = m.wire_bundle(name, s);
        for (leaf, _) in empty.leaves() {
            let z = leaf.konst(Bits::zero(leaf.width()));
            m.connect(leaf, &z);
        }
        let mut v: Vec<Bundle> = regs[1..].to_vec();
        v.resize(n, empty);
        v
    };
    let view = View {
        read: shifted(&mut m, &reads, &read_s, "no_read"),
        fop: shifted(&mut m, &fops, &fop_s, "no_fop"),
        write: shifted(&mut m, &writes, &write_s, "no_write"),
        xbar: xbar.shr(1),
    };

    let mut oks = Vec::new();
    for c in &cands {
        let h = hazard(p, &plan(p, c.bits()), &view);
        oks.push(c.valid() & &!&h);
    }
    let oks_v = hdl::cat(&oks.iter().rev().collect::<Vec<_>>());
    m.connect(&ok, &oks_v);

    // Placement of the picked candidate, merged into the shifted slots.
    let chosen = plan(p, &picked(&mut m, p, &pick, &cands));
    let fire = pick.or_r();
    let o = |name: &str| chosen.op.get(name).value().clone();
    let one = m.lit(1, 1);
    let new_read = |m: &mut ModuleBuilder, name: &str, row: &Value, idx: u64| {
        let b = m.wire_bundle(name, &read_s);
        let idx = m.lit(idx, 1);
        m.connect(b.get("valid").value(), &one);
        m.connect(b.get("row").value(), row);
        m.connect(b.get("idx").value(), &idx);
        b
    };
    let new_r1 = new_read(&mut m, "new_read1", &o("rs1"), 0);
    let new_r2 = new_read(&mut m, "new_read2", &o("rs2"), 1);
    let new_fop = m.wire_bundle("new_fop", &fop_s);
    m.connect(new_fop.get("valid").value(), &one);
    for (name, ..) in fop_s.leaves("").iter().skip(1) {
        let name = &name[1..];
        let v = match name {
            "pred" => chosen.plu.mux(&o("ps1"), &o("pred")),
            _ => o(name),
        };
        m.connect(new_fop.get(name).value(), &v);
    }
    let new_write = m.wire_bundle("new_write", &write_s);
    m.connect(new_write.get("valid").value(), &one);
    m.connect(new_write.get("pred").value(), &chosen.rd_pred);
    m.connect(new_write.get("row").value(), &chosen.dest);
    m.connect(new_write.get("src").value(), &o("unit"));
    m.connect(new_write.get("width").value(), &o("rd_width"));
    for (t, write_reg) in writes.iter().enumerate() {
        let tt = slot_no(&chosen.f, t as u64);
        if let Some(reg) = reads.get(t) {
            let at_j1 = &(&fire & &chosen.rs1_v) & &m.lit((t == 0) as u64, 1);
            let at_j2 = &(&fire & &chosen.rs2_v) & &tt.eq(&chosen.j2);
            let r = Bundle::mux(
                &at_j1,
                &new_r1,
                &Bundle::mux(&at_j2, &new_r2, &view.read[t]),
            );
            m.connect_bundle(reg, &r);
        }
        if let Some(reg) = fops.get(t) {
            let fo = Bundle::mux(&(&fire & &tt.eq(&chosen.f)), &new_fop, &view.fop[t]);
            connect_fop(&mut m, &fop_s, t as u32, reg, &fo);
        }
        let place = &(&fire & &chosen.writes) & &tt.eq(&chosen.w);
        let wr = Bundle::mux(&place, &new_write, &view.write[t]);
        m.connect_bundle(write_reg, &wr);
    }
    let claim = xbar_claim(p, &chosen, xbar_len);
    let none = m.lit(0, xbar_len);
    m.connect(&xbar, &(&view.xbar | &fire.mux(&claim, &none)));

    let pending = reads
        .iter()
        .chain(&fops)
        .chain(&writes)
        .fold(m.lit(0, 1), |a, b| &a | b.get("valid").value());
    m.connect(&busy, &(&pending | &xbar.or_r()));
    m.finish()
}
