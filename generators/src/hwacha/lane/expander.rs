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
//! An operation is accepted (its slots counted from the next cycle) when:
//! - its read, fop and write slots are free (one SRAM read, one unit issue and one
//!   register-file write per bank per cycle), and for a crossbar unit the crossbar is
//!   free for the B cycles its strip occupies it (the bank slots pass one by one);
//! - no placed write to a row it reads lands at or after its read (RAW), no placed write
//!   to its destination lands at or after its write (WAW), and no placed read of its
//!   destination happens at or after its write (WAR), for the vector and predicate
//!   register files alike (an SRAM read and write of one row in one cycle is avoided).

use super::uop::{fop_uop, prow_bits, read_uop, row_bits, seq_op, unit, write_uop};
use crate::hwacha::params::HwachaParams;
use hdl::{Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// Slots: the latest write is at `f + latency` with `f` at most 3.
pub fn slots(p: &HwachaParams) -> u32 {
    4 + p.stages_alu.max(p.stages_plu).max(p.stages_imul)
}

/// Ports: `op` (decoupled sequencer operation) in; `read`/`fop`/`write` (bank 0's
/// micro-ops) and `busy` (micro-ops still to be executed by some bank) out.
pub fn expander(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Expander");
    let op = m.io("op", Dir::In, &Shape::decoupled(seq_op(p)));
    let (read_s, fop_s, write_s) = (read_uop(p), fop_uop(p), write_uop(p));
    let out_read = m.io("read", Dir::Out, &read_s);
    let out_fop = m.io("fop", Dir::Out, &fop_s);
    let out_write = m.io("write", Dir::Out, &write_s);
    let busy = m.output("busy", 1);

    let n = slots(p) as usize;
    let reads: Vec<Bundle> = (0..n)
        .map(|t| m.reg_bundle(&format!("read{t}"), &read_s))
        .collect();
    let fops: Vec<Bundle> = (0..n)
        .map(|t| m.reg_bundle(&format!("fop{t}"), &fop_s))
        .collect();
    let writes: Vec<Bundle> = (0..n)
        .map(|t| m.reg_bundle(&format!("write{t}"), &write_s))
        .collect();
    // The crossbar is taken from the fop slot of bank 0 to that of the last bank.
    let xbar_len = n + p.banks as usize;
    let xbar = m.reg("xbar_busy", xbar_len as u32, 0u64);
    m.connect_bundle(&out_read, &reads[0]);
    m.connect_bundle(&out_fop, &fops[0]);
    m.connect_bundle(&out_write, &writes[0]);

    // Next cycle's view: slot t then holds what slot t + 1 holds now.
    let empty = |m: &mut ModuleBuilder, name: &str, s: &Shape| {
        let w = m.wire_bundle(name, s);
        for (leaf, _) in w.leaves() {
            let z = m.lit_bits(Bits::zero(leaf.width()));
            m.connect(leaf, &z);
        }
        w
    };
    let view = |m: &mut ModuleBuilder, regs: &[Bundle], s: &Shape, name: &str| {
        let mut v: Vec<Bundle> = regs[1..].to_vec();
        v.push(empty(m, name, s));
        v
    };
    let v_read = view(&mut m, &reads, &read_s, "no_read");
    let v_fop = view(&mut m, &fops, &fop_s, "no_fop");
    let v_write = view(&mut m, &writes, &write_s, "no_write");
    let v_xbar = xbar.shr(1);

    let bits = op.bits();
    let o = |name: &str| bits.get(name).value().clone();
    let imul = o("unit").eq(&o("unit").konst(Bits::from_u64(unit::WIDTH, unit::IMUL)));
    let plu = o("unit").eq(&o("unit").konst(Bits::from_u64(unit::WIDTH, unit::PLU)));
    let lit = |m: &mut ModuleBuilder, v: u64| m.lit(v, 8);
    // Slot positions as 8-bit numbers.
    let rs1_v = o("rs1_v");
    let rs2_v = o("rs2_v");
    let j2 = rs1_v.zext(8);
    let f = &(&rs1_v.zext(8) + &rs2_v.zext(8)) + &lit(&mut m, 1);
    let latency = imul.mux(
        &lit(&mut m, p.stages_imul as u64),
        &plu.mux(
            &lit(&mut m, p.stages_plu as u64),
            &lit(&mut m, p.stages_alu as u64),
        ),
    );
    let w = &f + &latency;
    let rd_pred = o("rd_pred");
    let row_w = row_bits(p).max(prow_bits(p));
    let dest = rd_pred.mux(&o("prd").zext(row_w), &o("rd").zext(row_w));
    let reads_pred = |fop: &Bundle, row: &Value| {
        let g = |n: &str| fop.get(n).value().clone();
        let is_plu = g("unit").eq(&g("unit").konst(Bits::from_u64(unit::WIDTH, unit::PLU)));
        let guard = &g("pred_on") & &g("pred").eq(row);
        let sources = &(&g("ps1").eq(row) | &g("ps2").eq(row)) | &g("ps3").eq(row);
        &g("valid") & &(&guard | &(&is_plu & &sources))
    };

    let mut hazard = m.lit(0, 1);
    for t in 0..n {
        let tt = lit(&mut m, t as u64);
        let (rd, fo, wr) = (&v_read[t], &v_fop[t], &v_write[t]);
        let g = |b: &Bundle, name: &str| b.get(name).value().clone();
        let at_j1 = &rs1_v & &m.lit((t == 0) as u64, 1);
        let at_j2 = &rs2_v & &tt.eq(&j2);
        let at_f = tt.eq(&f);
        let at_w = tt.eq(&w);
        // Structural.
        let mut h = &(&(&at_j1 | &at_j2) & &g(rd, "valid")) | &(&at_f & &g(fo, "valid"));
        h = &h | &(&at_w & &g(wr, "valid"));
        // RAW on the vector register file: a placed write at or after the read.
        let wr_vrf = &g(wr, "valid") & &!&g(wr, "pred");
        let wr_prf = &g(wr, "valid") & &g(wr, "pred");
        let wrow = g(wr, "row");
        let raw1 = &rs1_v & &wrow.eq(&o("rs1").zext(row_w));
        let raw2 = &(&rs2_v & &tt.ge(&j2)) & &wrow.eq(&o("rs2").zext(row_w));
        h = &h | &(&wr_vrf & &(&raw1 | &raw2));
        // RAW on the predicate file: the fop reads predicates at f.
        let prow = wrow.slice(o("pred").width() - 1, 0);
        let guard_raw = &o("pred_on") & &o("pred").eq(&prow);
        let src_raw = &plu & &(&(&o("ps1").eq(&prow) | &o("ps2").eq(&prow)) | &o("ps3").eq(&prow));
        h = &h | &(&(&wr_prf & &tt.ge(&f)) & &(&guard_raw | &src_raw));
        // WAW: same file, same row, placed write at or after ours.
        let same_file = g(wr, "pred").eq(&rd_pred);
        h = &h | &(&(&(&g(wr, "valid") & &same_file) & &tt.ge(&w)) & &wrow.eq(&dest));
        // WAR: a placed read of our destination at or after our write.
        let war_vrf = &(&g(rd, "valid") & &!&rd_pred) & &g(rd, "row").zext(row_w).eq(&dest);
        let war_prf = &rd_pred & &reads_pred(fo, &o("prd"));
        h = &h | &(&tt.ge(&w) & &(&war_vrf | &war_prf));
        hazard = &hazard | &h;
    }
    // The crossbar for B cycles from f.
    let mut claim = m.lit(0, xbar_len as u32);
    for t in 0..xbar_len {
        let tt = lit(&mut m, t as u64);
        let within = &tt.ge(&f) & &tt.lt(&(&f + &lit(&mut m, p.banks as u64)));
        let one = m.lit(1 << t, xbar_len as u32);
        claim = within.mux(&(&claim | &one), &claim);
    }
    let claim = imul.mux(&claim, &m.lit(0, xbar_len as u32));
    hazard = &hazard | &(&claim & &v_xbar).or_r();
    m.connect(op.ready(), &!&hazard);

    // Placement on acceptance, merged into the shifted slots.
    let fire = op.fire();
    let slot_read = |m: &mut ModuleBuilder, name: &str, row: &Value, idx: u64| {
        let b = m.wire_bundle(name, &read_s);
        let (one, idx) = (m.lit(1, 1), m.lit(idx, 1));
        m.connect(b.get("valid").value(), &one);
        m.connect(b.get("row").value(), row);
        m.connect(b.get("idx").value(), &idx);
        b
    };
    let new_r1 = slot_read(&mut m, "new_read1", &o("rs1"), 0);
    let new_r2 = slot_read(&mut m, "new_read2", &o("rs2"), 1);
    let new_fop = m.wire_bundle("new_fop", &fop_s);
    let one = m.lit(1, 1);
    m.connect(new_fop.get("valid").value(), &one);
    for (name, ..) in fop_s.leaves("").iter().skip(1) {
        let name = &name[1..];
        m.connect(new_fop.get(name).value(), &o(name));
    }
    let new_write = m.wire_bundle("new_write", &write_s);
    m.connect(new_write.get("valid").value(), &one);
    m.connect(new_write.get("pred").value(), &rd_pred);
    m.connect(new_write.get("row").value(), &dest);
    m.connect(new_write.get("src").value(), &o("unit"));
    m.connect(new_write.get("width").value(), &o("rd_width"));
    for t in 0..n {
        let tt = lit(&mut m, t as u64);
        let at_j1 = &(&fire & &rs1_v) & &m.lit((t == 0) as u64, 1);
        let at_j2 = &(&fire & &rs2_v) & &tt.eq(&j2);
        let r = Bundle::mux(&at_j1, &new_r1, &Bundle::mux(&at_j2, &new_r2, &v_read[t]));
        m.connect_bundle(&reads[t], &r);
        let fo = Bundle::mux(&(&fire & &tt.eq(&f)), &new_fop, &v_fop[t]);
        m.connect_bundle(&fops[t], &fo);
        let wr = Bundle::mux(&(&fire & &tt.eq(&w)), &new_write, &v_write[t]);
        m.connect_bundle(&writes[t], &wr);
    }
    let none = m.lit(0, xbar_len as u32);
    m.connect(&xbar, &(&v_xbar | &fire.mux(&claim, &none)));

    let pending = reads
        .iter()
        .chain(&fops)
        .chain(&writes)
        .fold(m.lit(0, 1), |a, b| &a | b.get("valid").value());
    m.connect(&busy, &(&pending | &xbar.or_r()));
    m.finish()
}
