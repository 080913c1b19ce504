//! The expander (Figure 8.9, Tables 8.5-8.6): turns the sequencer operation of one strip
//! into bank micro-ops placed in shift registers at exactly the cycles the systolic
//! schedule needs, and refuses an operation whose micro-ops would collide with those
//! already placed.
//!
//! Slot `t` holds what bank 0 executes `t` cycles from now (slot 0: this cycle); bank
//! `b` executes the same micro-ops `b` cycles later, so checking bank 0's schedule checks
//! every bank's. An operation with `r` vector operands reads them at slots 0..r (operand
//! k into latch k-1, Figure 8.9's three opl micro-ops of an FMA), starts its unit at
//! slot `f = r + 1` (the latches hold the data by then) and writes at `w = f +
//! latency(unit)`, an FMA's latency that of its format's pipe (Table 8.7).
//!
//! The lane sequencer offers one candidate per sequencer slot (`cand_<i>`), the expander
//! answers which it could take this cycle (`ok`, the thesis's "peeking into the
//! expander"), and the sequencer picks one of those (`pick`, one-hot). A candidate is
//! acceptable (its slots counted from the next cycle) when:
//! - its read, fop and write slots are free (readouts for the VMU have no write) (one
//!   SRAM read, one unit issue and one register-file write per bank per cycle), and for
//!   a crossbar unit its VFU's crossbar port is free for the B cycles its strip occupies
//!   it (the bank slots pass one by one): VFU0's for IMul, FConv and an FMA on FMA0,
//!   VFU1's for FCmp and an FMA on FMA1, which an FMA takes when VFU0's is not free
//!   (Table 8.6's fop-vfu0-fma0 or fop-vfu1-fma1);
//! - no placed write to a row it reads lands at or after its read (RAW), no placed write
//!   to its destination lands at or after its write (WAW), and no placed read of its
//!   destination happens at or after its write (WAR), for the vector and predicate
//!   register files alike (an SRAM read and write of one row in one cycle is avoided).

use super::regmap::{cls, is_packed, Layout};
use super::uop::{
    fmt, fop_uop, prow_bits, read_uop, row_bits, seq_op, unit, uop_regs, uop_regs_with, write_uop,
    VFUS,
};
use crate::hwacha::params::HwachaParams;
use hdl::helpers::{onehot_mux, priority_mux};
use hdl::{Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// The longest unit latency.
fn max_latency(p: &HwachaParams) -> u32 {
    [
        p.stages_alu,
        p.stages_plu,
        p.stages_imul,
        p.stages_dfma,
        p.stages_sfma,
        p.stages_hfma,
        p.stages_fconv,
        p.stages_fcmp,
    ]
    .into_iter()
    .max()
    .unwrap_or(0)
}

/// Slots: the latest write is at `f + latency` with `f` at most 4.
pub fn slots(p: &HwachaParams) -> u32 {
    FOP_SLOTS + max_latency(p)
}

/// Slots that can hold a read: operand k (0-2) reads at the slot after the vector
/// operands before it, so at most at slot 2. Later slots are always empty, so they have
/// no registers.
const READ_SLOTS: u32 = 3;
/// Slots that can hold a fop: `f = 1 + vector operands` is at most 4.
const FOP_SLOTS: u32 = 5;

/// Where an operation's micro-ops go, as 8-bit slot numbers.
struct Plan {
    op: Bundle,
    /// Operand k is a vector register, read at slot `j[k]`.
    rs_v: [Value; 3],
    j: [Value; 3],
    f: Value,
    w: Value,
    /// A write micro-op goes at `w` (not for readouts, whose loads write back through
    /// the bank write queues).
    writes: Value,
    /// The written row (of the predicate file when `rd_pred`).
    dest: Value,
    rd_pred: Value,
    plu: Value,
    /// The crossbar ports the operation may take: `vfu[v]` for VFU v; an FMA may take
    /// either (`fma`), FMA0's when free.
    vfu: [Value; VFUS],
    fma: Value,
    /// Mixed precision: the subwords of this strip in the operands' rows and in the
    /// destination's, and the strip's subword of the predicate rows.
    subs: Option<Subs>,
}

struct Subs {
    rs: [Value; 3],
    dest: Value,
    pred: Value,
    /// The write covers its whole row (`rd_c` is D, or a packed operation's).
    dest_whole: Value,
    /// A packed operation's reads cover their whole rows (data and predicate).
    reads_whole: Value,
}

fn slot_no(v: &Value, n: u64) -> Value {
    v.konst(Bits::from_u64(8, n))
}

/// Cycles from the fop to the result of the operation's unit (Table 8.7's stages; an
/// FMA's by its format).
fn latency(p: &HwachaParams, op: &Bundle, f: &Value) -> Value {
    let o = |name: &str| op.get(name).value().clone();
    let (u, fm) = (o("unit"), o("fmt"));
    let n = |v: u32| slot_no(f, v as u64);
    let is_fmt = |c: u64| fm.eq(&fm.konst(Bits::from_u64(2, c)));
    let fma = is_fmt(fmt::D).mux(
        &n(p.stages_dfma),
        &is_fmt(fmt::H).mux(&n(p.stages_hfma), &n(p.stages_sfma)),
    );
    let cases = [
        (unit::IMUL, n(p.stages_imul)),
        (unit::PLU, n(p.stages_plu)),
        (unit::FMA, fma.clone()),
        (unit::FMA1, fma),
        (unit::FCONV, n(p.stages_fconv)),
        (unit::FCMP, n(p.stages_fcmp)),
    ]
    .map(|(code, lat)| (unit::is(&u, code), lat));
    priority_mux(&cases, &n(p.stages_alu))
}

fn plan(p: &HwachaParams, op: &Bundle) -> Plan {
    let o = |name: &str| op.get(name).value().clone();
    let rs_v = [o("rs1_v"), o("rs2_v"), o("rs3_v")];
    let k8 = |v: &Value| v.zext(8);
    let j = [
        slot_no(&rs_v[0], 0),
        k8(&rs_v[0]),
        &k8(&rs_v[0]) + &k8(&rs_v[1]),
    ];
    let f = &(&j[2] + &k8(&rs_v[2])) + &slot_no(&rs_v[0], 1);
    let u = o("unit");
    let plu = unit::is(&u, unit::PLU);
    let w = &f + &latency(p, op, &f);
    let row_w = row_bits(p).max(prow_bits(p));
    let rd_pred = o("rd_pred");
    let dest = rd_pred.mux(&o("prd").zext(row_w), &o("rd").zext(row_w));
    let writes = &o("wr") & &!&unit::is(&u, unit::MEM);
    let on = |v: usize| {
        (0..1u64 << unit::WIDTH)
            .filter(|&c| unit::on_crossbar(c) && unit::vfu(c) == v)
            .fold(u.konst(Bits::zero(1)), |acc, c| &acc | &unit::is(&u, c))
    };
    let subs = p.mixed_precision.then(|| {
        let lo = o("slo");
        let sub = |c: &str| Layout::subword(&o(c), &lo);
        let (rd_c, pk) = (o("rd_c"), o("pk"));
        let packed = is_packed(&pk);
        Subs {
            rs: [sub("rs1_c"), sub("rs2_c"), sub("rs3_c")],
            dest: sub("rd_c"),
            pred: lo.clone(),
            dest_whole: &rd_c.eq(&rd_c.konst(Bits::from_u64(2, cls::D))) | &packed,
            reads_whole: packed,
        }
    });
    Plan {
        subs,
        writes,
        op: op.clone(),
        rs_v,
        j,
        f,
        w,
        dest,
        rd_pred,
        plu,
        vfu: [on(0), on(1)],
        fma: unit::is(&u, unit::FMA),
    }
}

/// The micro-ops already placed, as they stand from the next cycle on.
struct View {
    read: Vec<Bundle>,
    fop: Vec<Bundle>,
    write: Vec<Bundle>,
    /// Each crossbar port's cycles taken.
    xbar: [Value; VFUS],
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

/// The crossbar cycles an operation takes on its port: B from its fop slot.
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
    claim
}

/// Which crossbar port the operation gets, if it can have one it needs: `(ok, vfu1)`,
/// `vfu1` when it goes to VFU1 (an FMA whose VFU0 port is taken goes to FMA1).
fn xbar_port(p: &HwachaParams, plan: &Plan, xbar: &[Value; VFUS]) -> (Value, Value) {
    let claim = xbar_claim(p, plan, xbar[0].width());
    let free: Vec<Value> = xbar.iter().map(|x| !&(&claim & x).or_r()).collect();
    let local = !&(&plan.vfu[0] | &plan.vfu[1]);
    let to1 = &(&plan.vfu[1] & &free[1]) | &(&(&plan.fma & &!&free[0]) & &free[1]);
    let ok = &(&local | &(&plan.vfu[0] & &free[0])) | &to1;
    (ok, to1)
}

/// Whether two accesses of one row overlap: always in the baseline; with mixed
/// precision when they are to the same subword (one data row holds one register, so one
/// class), or when either covers the whole row (`whole`: class D, a doubleword
/// register or the clear state's rows, or a packed operation's access). The thesis's
/// interval check, at rows of packed strips.
fn overlaps(placed: &Bundle, placed_sub: &str, sub: Option<(&Value, &Value)>) -> Value {
    let g = |n: &str| placed.get(n).value().clone();
    match sub {
        None => g("valid").konst(Bits::from_u64(1, 1)),
        Some((sub, whole)) => {
            // Read and write micro-ops (which have a `sub`, unlike the fop) carry a
            // class that may cover the row (a read's class D has subword 0 alike).
            let pk = g("pk");
            let mut placed_whole = is_packed(&pk);
            if placed_sub == "sub" {
                placed_whole =
                    &placed_whole | &g("cls").eq(&g("cls").konst(Bits::from_u64(2, cls::D)));
            }
            &(&g(placed_sub).eq(sub) | &placed_whole) | whole
        }
    }
}

/// Whether `plan` collides with `view` in the register files and bank slots (the rules
/// in the module docs; the crossbar is `xbar_port`'s).
fn hazard(plan: &Plan, view: &View) -> Value {
    let o = |name: &str| plan.op.get(name).value().clone();
    let row_w = plan.dest.width();
    let rs = [o("rs1"), o("rs2"), o("rs3")];
    let subs = plan.subs.as_ref();
    let mut hazard = plan.f.konst(Bits::zero(1));
    for t in 0..view.read.len() {
        let tt = slot_no(&plan.f, t as u64);
        let g = |b: &Bundle, name: &str| b.get(name).value().clone();
        let (rd, fo, wr) = (&view.read[t], &view.fop[t], &view.write[t]);
        let reads_here = (0..3).fold(tt.konst(Bits::zero(1)), |acc, k| {
            &acc | &(&plan.rs_v[k] & &tt.eq(&plan.j[k]))
        });
        // Structural: the read port, the unit issue, the write port.
        let mut h = &(&reads_here & &g(rd, "valid")) | &(&tt.eq(&plan.f) & &g(fo, "valid"));
        h = &h | &(&(&plan.writes & &tt.eq(&plan.w)) & &g(wr, "valid"));
        // RAW on the vector register file: a placed write at or after the read.
        let wrow = g(wr, "row");
        let wr_vrf = &g(wr, "valid") & &!&g(wr, "pred");
        let wr_prf = &g(wr, "valid") & &g(wr, "pred");
        let raw = (0..3).fold(tt.konst(Bits::zero(1)), |acc, k| {
            let at_or_after = &plan.rs_v[k] & &tt.ge(&plan.j[k]);
            let same = &wrow.eq(&rs[k].zext(row_w))
                & &overlaps(wr, "sub", subs.map(|s| (&s.rs[k], &s.reads_whole)));
            &acc | &(&at_or_after & &same)
        });
        h = &h | &(&wr_vrf & &raw);
        // RAW on the predicate file: the fop reads its predicates at f.
        let prow = wrow.slice(o("pred").width() - 1, 0);
        let guard = &o("pred_on") & &o("pred").eq(&prow);
        let sources = &(&o("ps1").eq(&prow) | &o("ps2").eq(&prow)) | &o("ps3").eq(&prow);
        let pred_read = &(&guard | &(&plan.plu & &sources))
            & &overlaps(wr, "sub", subs.map(|s| (&s.pred, &s.reads_whole)));
        h = &h | &(&(&wr_prf & &tt.ge(&plan.f)) & &pred_read);
        // WAW: a placed write of the same row of the same file at or after ours.
        let same_file = g(wr, "pred").eq(&plan.rd_pred);
        let waw = &(&(&g(wr, "valid") & &same_file) & &tt.ge(&plan.w)) & &wrow.eq(&plan.dest);
        let waw = &waw & &overlaps(wr, "sub", subs.map(|s| (&s.dest, &s.dest_whole)));
        // WAR: a placed read of our destination at or after our write.
        let war_vrf = &(&(&g(rd, "valid") & &!&plan.rd_pred)
            & &g(rd, "row").zext(row_w).eq(&plan.dest))
            & &overlaps(rd, "sub", subs.map(|s| (&s.dest, &s.dest_whole)));
        let war_prf = &(&plan.rd_pred & &reads_pred(fo, &o("prd")))
            & &overlaps(fo, "psub", subs.map(|s| (&s.dest, &s.dest_whole)));
        let war = &tt.ge(&plan.w) & &(&war_vrf | &war_prf);
        h = &h | &(&plan.writes & &(&waw | &war));
        hazard = &hazard | &h;
    }
    hazard
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

/// Scalar operands fop slot `t` keeps: a fop placed at slot `f` has `f - 1` vector
/// operands, so at most `4 - f` scalars (`uop::fop_uop`), and slot 0 takes slot 1's.
fn scalars_at(t: u32) -> u32 {
    3.min(4 - t.max(1))
}

/// The registers of fop slot `t`, as `uop::uop_regs`'s but for the scalars: those the
/// slot cannot hold (`scalars_at`) read zero and have no registers.
fn fop_slot(m: &mut ModuleBuilder, shape: &Shape, t: u32) -> Bundle {
    let kept = scalars_at(t);
    uop_regs_with(m, &format!("fop{t}"), shape, |m, name, w| {
        let k = ["s1", "s2", "s3"].iter().position(|s| *s == name)?;
        (k as u32 >= kept).then(|| m.lit(0, w))
    })
}

/// Loads fop slot `t`'s registers (`fop_slot`) from `fo`.
fn connect_fop(m: &mut ModuleBuilder, shape: &Shape, t: u32, reg: &Bundle, fo: &Bundle) {
    let kept = scalars_at(t);
    for (name, ..) in shape.leaves("") {
        let name = &name[1..];
        let scalar = ["s1", "s2", "s3"].iter().position(|s| *s == name);
        if scalar.is_some_and(|k| k as u32 >= kept) {
            continue;
        }
        m.connect(reg.get(name).value(), fo.get(name).value());
    }
}

/// The scalar operands packed in operand order, vector operands skipped (`uop::fop_uop`).
fn packed_scalars(op: &Bundle) -> [Value; 3] {
    let o = |name: &str| op.get(name).value().clone();
    let (v1, v2) = (o("rs1_v"), o("rs2_v"));
    let (s1, s2, s3) = (o("s1"), o("s2"), o("s3"));
    let zero = s1.konst(Bits::zero(64));
    [
        v1.mux(&v2.mux(&s3, &s2), &s1),
        v1.mux(&v2.mux(&zero, &s3), &v2.mux(&s3, &s2)),
        (&v1 | &v2).mux(&zero, &s3),
    ]
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
    let reads: Vec<Bundle> = (0..READ_SLOTS)
        .map(|t| uop_regs(&mut m, &format!("read{t}"), &read_s))
        .collect();
    let fops: Vec<Bundle> = (0..FOP_SLOTS)
        .map(|t| fop_slot(&mut m, &fop_s, t))
        .collect();
    let writes: Vec<Bundle> = (0..n)
        .map(|t| uop_regs(&mut m, &format!("write{t}"), &write_s))
        .collect();
    // A crossbar port is taken from the fop slot of bank 0 to that of the last bank.
    let xbar_len = (n + p.banks as usize) as u32;
    let xbar = [0, 1].map(|v| m.reg(&format!("xbar{v}_busy"), xbar_len, 0u64));
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
        xbar: xbar.clone().map(|x| x.shr(1)),
    };

    let mut oks = Vec::new();
    for c in &cands {
        let pl = plan(p, c.bits());
        let (port_ok, _) = xbar_port(p, &pl, &view.xbar);
        oks.push(&(c.valid() & &!&hazard(&pl, &view)) & &port_ok);
    }
    let oks_v = hdl::cat(&oks.iter().rev().collect::<Vec<_>>());
    m.connect(&ok, &oks_v);

    let chosen = plan(p, &picked(&mut m, p, &pick, &cands));
    let fire = pick.or_r();
    let (_, to1) = xbar_port(p, &chosen, &view.xbar);
    let placed = new_uops(&mut m, p, &chosen, &to1);
    for (t, write_reg) in writes.iter().enumerate() {
        let tt = slot_no(&chosen.f, t as u64);
        if let Some(reg) = reads.get(t) {
            let r = (0..3).rev().fold(view.read[t].clone(), |acc, k| {
                let here = &(&fire & &chosen.rs_v[k]) & &tt.eq(&chosen.j[k]);
                Bundle::mux(&here, &placed.reads[k], &acc)
            });
            m.connect_bundle(reg, &r);
        }
        if let Some(reg) = fops.get(t) {
            let fo = Bundle::mux(&(&fire & &tt.eq(&chosen.f)), &placed.fop, &view.fop[t]);
            connect_fop(&mut m, &fop_s, t as u32, reg, &fo);
        }
        let place = &(&fire & &chosen.writes) & &tt.eq(&chosen.w);
        let wr = Bundle::mux(&place, &placed.write, &view.write[t]);
        m.connect_bundle(write_reg, &wr);
    }
    let claim = xbar_claim(p, &chosen, xbar_len);
    let none = m.lit(0, xbar_len);
    let on1 = &chosen.vfu[1] | &to1;
    let on0 = &(&chosen.vfu[0] & &!&chosen.fma) | &(&chosen.fma & &!&to1);
    for (v, on) in [on0, on1].iter().enumerate() {
        let take = &fire & on;
        m.connect(&xbar[v], &(&view.xbar[v] | &take.mux(&claim, &none)));
    }

    let pending = reads
        .iter()
        .chain(&fops)
        .chain(&writes)
        .fold(m.lit(0, 1), |a, b| &a | b.get("valid").value());
    let xbar_busy = &xbar[0].or_r() | &xbar[1].or_r();
    m.connect(&busy, &(&pending | &xbar_busy));
    m.finish()
}

/// The picked operation's micro-ops: a read per operand, the fop (on FMA1 when `to1`
/// for an FMA, scalars packed) and the write.
struct Placed {
    reads: [Bundle; 3],
    fop: Bundle,
    write: Bundle,
}

fn new_uops(m: &mut ModuleBuilder, p: &HwachaParams, chosen: &Plan, to1: &Value) -> Placed {
    let (read_s, fop_s, write_s) = (read_uop(p), fop_uop(p), write_uop(p));
    let o = |name: &str| chosen.op.get(name).value().clone();
    let one = m.lit(1, 1);
    // Mixed precision: the subword of each register's class for this strip.
    let packing = |m: &mut ModuleBuilder, b: &Bundle, c: &str| {
        if p.mixed_precision {
            let (c, lo) = (o(c), o("slo"));
            m.connect(b.get("sub").value(), &Layout::subword(&c, &lo));
            m.connect(b.get("cls").value(), &c);
            m.connect(b.get("pk").value(), &o("pk"));
        }
    };
    let reads = [("rs1", 0), ("rs2", 1), ("rs3", 2)].map(|(r, idx)| {
        let b = m.wire_bundle(&format!("new_read{}", idx + 1), &read_s);
        let idx = m.lit(idx, 2);
        m.connect(b.get("valid").value(), &one);
        m.connect(b.get("row").value(), &o(r));
        m.connect(b.get("idx").value(), &idx);
        packing(m, &b, &format!("{r}_c"));
        b
    });
    let fma1 = m.lit(unit::FMA1, unit::WIDTH);
    let u = (&chosen.fma & to1).mux(&fma1, &o("unit"));
    let [c0, c1, c2] = packed_scalars(&chosen.op);
    let fop = m.wire_bundle("new_fop", &fop_s);
    m.connect(fop.get("valid").value(), &one);
    for (name, ..) in fop_s.leaves("").iter().skip(1) {
        let name = &name[1..];
        let v = match name {
            "pred" => chosen.plu.mux(&o("ps1"), &o("pred")),
            "unit" => u.clone(),
            "s1" => c0.clone(),
            "s2" => c1.clone(),
            "s3" => c2.clone(),
            "psub" => o("slo"),
            _ => o(name),
        };
        m.connect(fop.get(name).value(), &v);
    }
    let write = m.wire_bundle("new_write", &write_s);
    m.connect(write.get("valid").value(), &one);
    m.connect(write.get("pred").value(), &chosen.rd_pred);
    m.connect(write.get("row").value(), &chosen.dest);
    m.connect(write.get("src").value(), &u);
    m.connect(write.get("fmt").value(), &o("fmt"));
    m.connect(write.get("width").value(), &o("rd_width"));
    packing(m, &write, "rd_c");
    Placed { reads, fop, write }
}
