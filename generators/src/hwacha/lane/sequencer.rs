//! The lane sequencer (Figure 8.8): this lane's progress through every master slot. Per
//! slot it keeps the physical rows of the next strip (`phys-*`: the register number plus
//! the configuration's register count per strip), the elements left in this lane
//! (`vlen`), the next strip's global element index (`eidx`) and the strips sequenced so
//! far. Each cycle every slot with strips left whose dependences allow offers its next
//! strip to the expander, and the oldest one the expander can take goes (age-based pick,
//! so younger operations chain into cycles the older ones cannot use).
//!
//! A slot may sequence strip `s` once every older slot it depends on has sequenced strip
//! `s` in this lane or has no strips left here: the expander then orders the two strips'
//! reads and writes cycle by cycle. A load's or AMO's results are written back whenever
//! the memory answers, outside the expander's schedule: a slot depending on one may
//! sequence strip `s` once the load's strip `s` is in the banks (`wb_strips`, from
//! `memory::load_progress`: chaining from loads, as thesis 8.5's VLU bookkeeping
//! operation lets them), a divide's once all its results are.
//!
//! With mixed precision, a packed operation (`packs`: a single or half FMA on registers
//! of that width, or a half-single conversion on 32-bit ones, thesis chapter 8's
//! "Spatial Parallelism") sequences the two or four
//! strips of a packed row at once (aligned groups, `uop::MXP_FIELDS`' `pk`), so it
//! needs its dependences to have sequenced the group's last strip; its rows step once
//! a group.
//!
//! After a new configuration the sequencer first clears the register files through the
//! expander: zeros in every data row, ones in vp0's rows and zeros in the other
//! predicate rows (candidate `seq_entries`, ahead of every slot).

use super::expander;
use super::fma::fma_fn;
use super::memory::wb_strips_shape;
use super::regmap::{cls, Layout};
use super::uop::{
    count_bits, eidx_bits, fmt, prow_bits, row_bits, seq_op, strip_count_bits, unit, vinsn,
    MXP_FIELDS,
};
use crate::fpu::convert;
use crate::hwacha::master::NVP_BITS;
use crate::hwacha::params::HwachaParams;
use hdl::helpers::lowest_one;
use hdl::ir::addr_width;
use hdl::{cat, Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

/// Bits of the lane index port.
pub fn lane_id_bits(p: &HwachaParams) -> u32 {
    addr_width(p.lanes as u64).max(1)
}

/// Elements of a `vlen`-element vector that lane `lane` holds (strips dealt round-robin),
/// `eidx_bits` wide (`vlen` is below the largest maxvl).
pub(super) fn lane_vlen(p: &HwachaParams, vlen: &Value, lane: &Value) -> Value {
    let eb = eidx_bits(p);
    let vlen = vlen.slice(eb - 1, 0);
    let strip_log = p.strip().trailing_zeros();
    let chunk_log = strip_log + p.lanes.trailing_zeros();
    let full = vlen.shr(chunk_log);
    let rest = vlen.slice(chunk_log.max(1) - 1, 0).zext(eb);
    let rest = if chunk_log == 0 {
        rest.konst(Bits::zero(eb))
    } else {
        rest
    };
    let before = lane.zext(eb).shl(strip_log);
    let strip = rest.konst(Bits::from_u64(eb, p.strip() as u64));
    let part = rest
        .gt(&before)
        .mux(&(&rest - &before), &rest.konst(Bits::zero(eb)));
    let part = part.gt(&strip).mux(&strip, &part);
    &full.shl(strip_log) + &part
}

/// The lane sequencer's ports (typed bundle of its interface).
struct SeqIo {
    lane: Value,
    slots: Vec<Bundle>,
    new: Bundle,
    valid: Value,
    deps: Vec<Value>,
    alloc: Value,
    head: Value,
    layout: Layout,
    nvp: Value,
    clear: Value,
    cands: Vec<Bundle>,
    ok: Value,
    pick: Value,
    done: Value,
    clearing_out: Value,
    mdeps: Vec<Value>,
    brq_space: Value,
    wb_done: Value,
    wb_strips: Bundle,
    deps_clear: Value,
    readout: Value,
}

/// Per-slot progress in this lane.
struct Progress {
    left: Value,
    issued: Value,
    eidx: Value,
    rows: Vec<(&'static str, Value)>,
    /// The classes (`regmap::cls`) of the data operands and destination, by row name
    /// (constant D in the baseline).
    classes: Vec<(&'static str, Value)>,
    /// A packed operation's rows' class (`uop::MXP_FIELDS`' `pk`: it sequences 2 or 4
    /// strips at a time), D otherwise (constant D in the baseline).
    pk: Value,
    /// A load, AMO or divide whose results are not all written back yet.
    pending_wb: Value,
    /// A load's or AMO's leading strips in the banks (`wb_strips`), while `pending_wb`.
    in_banks: Value,
    /// Cycles until the last strip's micro-ops have left the banks.
    drain: Value,
}

/// Widths and constants shared by the sequencer's sub-blocks.
struct SeqDims {
    row_w: u32,
    prow_w: u32,
    strip: u64,
    drain_cycles: u64,
    drain_w: u32,
    issued_w: u32,
}

impl SeqDims {
    fn new(p: &HwachaParams) -> Self {
        let (row_w, prow_w) = (row_bits(p), prow_bits(p));
        // The expander's slots plus the banks: the longest a strip's micro-ops stay.
        let drain_cycles = (expander::slots(p) + p.banks + 1) as u64;
        SeqDims {
            row_w,
            prow_w,
            strip: p.strip() as u64,
            drain_cycles,
            drain_w: addr_width(drain_cycles + 1),
            issued_w: strip_count_bits(p),
        }
    }
}

/// The clear state's registers: rows of the data file, then of the predicate file.
struct ClearRegs {
    clearing: Value,
    clear_pred: Value,
    clear_row: Value,
    clear_preg: Value,
}

/// `f(g)` in `w` bits for the strips `g` (1, 2 or 4) an operation of packed class `pk`
/// covers.
fn by_group(pk: &Value, w: u32, f: impl Fn(u64) -> u64) -> Value {
    let k = |g| pk.konst(Bits::from_u64(w, f(g)));
    pk.bit(1).mux(&k(4), &pk.bit(0).mux(&k(2), &k(1)))
}

/// Elements left in a slot for its next operation: at most a strip, or the strips of
/// its packed group.
fn next_count(p: &HwachaParams, pr: &Progress) -> Value {
    let group = by_group(&pr.pk, pr.left.width(), |g| g * p.strip() as u64);
    pr.left.gt(&group).mux(&group, &pr.left)
}

/// Bits, lowest first, as one value.
fn as_vec(bits: &[Value]) -> Value {
    cat(&bits.iter().rev().collect::<Vec<_>>())
}

/// Ports: `lane_id`; the master's `slot_<k>`, `new`, `valid`, `dep_<k>`, `alloc`, `head`,
/// `nvv`, `nvp`, `clear`; the expander's `cand_<i>` out, `ok` in and `pick` out;
/// `done` (slots with no strips left here) and `clearing` out.
pub fn lane_sequencer(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("LaneSequencer");
    let io = sequencer_io(&mut m, p);
    let d = SeqDims::new(p);
    let progress = slot_progress(&mut m, p, &d);
    let has_left = slot_status(&mut m, p, &io, &d, &progress);
    let cl = clear_regs(&mut m, &io, &d);

    // Candidates: every slot's next strip.
    slot_candidates(&mut m, p, &io, &progress, &has_left, &cl);
    clear_candidate(&mut m, p, &io, &d, &cl);
    let (chosen, clear_ok) = age_pick(&mut m, p, &io);
    progress_updates(&mut m, p, &io, &d, &progress, &chosen);
    clear_sequencing(&mut m, p, &io, &cl, &clear_ok);
    m.finish()
}

/// The module's ports.
fn sequencer_io(m: &mut ModuleBuilder, p: &HwachaParams) -> SeqIo {
    let n = p.seq_entries;
    let sb = addr_width(n as u64).max(1);
    let lane = m.input("lane_id", lane_id_bits(p));
    let insn_s = vinsn();
    let slots: Vec<Bundle> = (0..n)
        .map(|k| m.io(&format!("slot_{k}"), Dir::In, &insn_s))
        .collect();
    let new = m.io("new", Dir::In, &insn_s);
    let valid = m.input("valid", n);
    let deps: Vec<Value> = (0..n).map(|k| m.input(&format!("dep_{k}"), n)).collect();
    let alloc = m.input("alloc", n);
    let head = m.input("head", sb);
    let layout = Layout::inputs(m, p);
    let nvp = layout.port("nvp").clone();
    let clear = m.input("clear", 1);
    let cand_s = Shape::valid(seq_op(p));
    let cands: Vec<Bundle> = (0..=n)
        .map(|i| m.io(&format!("cand_{i}"), Dir::Out, &cand_s))
        .collect();
    let ok = m.input("ok", n + 1);
    let pick = m.output("pick", n + 1);
    let done = m.output("done", n);
    let clearing_out = m.output("clearing", 1);
    // Memory: strict program order among memory instructions' readouts (`mdep_<k>`), BRQ
    // room, loads written back (`wb_done`), and to the lane's memory side the slots whose
    // dependences are done here and the readout strips sequenced.
    let mdeps: Vec<Value> = (0..n).map(|k| m.input(&format!("mdep_{k}"), n)).collect();
    let brq_space = m.input("brq_space", 1);
    let wb_done = m.input("wb_done", n);
    let wb_strips = m.io("wb_strips", Dir::In, &wb_strips_shape(p));
    let deps_clear = m.output("deps_clear", n);
    let readout = m.output("readout", 1);
    SeqIo {
        lane,
        slots,
        new,
        valid,
        deps,
        alloc,
        head,
        layout,
        nvp,
        clear,
        cands,
        ok,
        pick,
        done,
        clearing_out,
        mdeps,
        brq_space,
        wb_done,
        wb_strips,
        deps_clear,
        readout,
    }
}

/// Every slot's progress registers. `issued`, `eidx` and the rows are datapath without
/// reset: the slot's allocation loads them, and they are read only for a valid slot
/// (its candidate, gated by `valid`) or one some valid slot depends on (`issued`, with
/// `left` or `pending_wb`, which keep their reset).
fn slot_progress(m: &mut ModuleBuilder, p: &HwachaParams, d: &SeqDims) -> Vec<Progress> {
    let (row_w, prow_w) = (d.row_w, d.prow_w);
    let none = || ResetValue::None;
    (0..p.seq_entries)
        .map(|k| Progress {
            left: m.reg(&format!("left{k}"), eidx_bits(p), 0u64),
            issued: m.reg(&format!("issued{k}"), d.issued_w, none()),
            eidx: m.reg(&format!("eidx{k}"), eidx_bits(p), none()),
            rows: [
                "rs1", "rs2", "rs3", "rd", "pred", "ps1", "ps2", "ps3", "prd",
            ]
            .into_iter()
            .map(|f| {
                let w = if matches!(f, "rs1" | "rs2" | "rs3" | "rd") {
                    row_w
                } else {
                    prow_w
                };
                (f, m.reg(&format!("{f}{k}"), w, none()))
            })
            .collect(),
            classes: ["rs1", "rs2", "rs3", "rd"]
                .into_iter()
                .map(|f| {
                    let c = if p.mixed_precision {
                        m.reg(&format!("{f}_c{k}"), cls::WIDTH, none())
                    } else {
                        m.lit(cls::D, cls::WIDTH)
                    };
                    (f, c)
                })
                .collect(),
            pk: if p.mixed_precision {
                m.reg(&format!("pk{k}"), cls::WIDTH, none())
            } else {
                m.lit(cls::D, cls::WIDTH)
            },
            pending_wb: m.reg(&format!("pending_wb{k}"), 1, 0u64),
            in_banks: m.reg(&format!("in_banks{k}"), d.issued_w, none()),
            drain: m.reg(&format!("drain{k}"), d.drain_w, 0u64),
        })
        .collect()
}

/// Slot status: `done` and `deps_clear`. Returns whether each slot has strips left here.
fn slot_status(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &SeqIo,
    d: &SeqDims,
    progress: &[Progress],
) -> Vec<Value> {
    let n = p.seq_entries;
    let zero = m.lit(0, eidx_bits(p));
    let has_left: Vec<Value> = progress.iter().map(|pr| pr.left.ne(&zero)).collect();
    // Done here: sequenced, drained, and (loads) written back.
    let finished: Vec<Value> = progress
        .iter()
        .zip(&has_left)
        .map(|(pr, left)| {
            let drained = pr.drain.eq(&pr.drain.konst(Bits::zero(d.drain_w)));
            &(&!left & &drained) & &!&pr.pending_wb
        })
        .collect();
    let done_bits: Vec<Value> = (0..n as usize)
        .map(|k| &io.valid.bit(k as u32) & &finished[k])
        .collect();
    m.connect(&io.done, &as_vec(&done_bits));
    let clear_bits: Vec<Value> = (0..n as usize)
        .map(|k| {
            (0..n as usize)
                .filter(|&j| j != k)
                .fold(m.lit(1, 1), |a, j| {
                    &a & &(!&io.deps[k].bit(j as u32) | &finished[j])
                })
        })
        .collect();
    m.connect(&io.deps_clear, &as_vec(&clear_bits));
    has_left
}

/// The clear state's registers (and the `clearing` port).
fn clear_regs(m: &mut ModuleBuilder, io: &SeqIo, d: &SeqDims) -> ClearRegs {
    // The clear state: rows of the data file, then of the predicate file.
    let clearing = m.reg("clearing", 1, 0u64);
    let clear_pred = m.reg("clear_pred", 1, 0u64);
    let clear_row = m.reg("clear_row", d.row_w.max(d.prow_w), 0u64);
    // The predicate register a cleared predicate row belongs to: the row modulo #vp.
    let clear_preg = m.reg("clear_preg", NVP_BITS, 0u64);
    m.connect(&io.clearing_out, &clearing);
    ClearRegs {
        clearing,
        clear_pred,
        clear_row,
        clear_preg,
    }
}

/// The slots' candidates: every slot's next strip, offered when its dependences allow.
fn slot_candidates(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &SeqIo,
    progress: &[Progress],
    has_left: &[Value],
    cl: &ClearRegs,
) {
    let n = p.seq_entries;
    let count_w = count_bits(p);
    for k in 0..n as usize {
        let (c, pr, s) = (&io.cands[k], &progress[k], &io.slots[k]);
        let mut allowed = &io.valid.bit(k as u32) & &has_left[k];
        // The last strip of this slot's next operation (of its group when packed).
        let last = &pr.issued + &by_group(&pr.pk, pr.issued.width(), |g| g - 1);
        for (j, other) in progress.iter().enumerate() {
            if j == k {
                continue;
            }
            // A load's strips count once they are in the banks (chaining from loads), a
            // divide's once all are written back.
            let waits = &io.deps[k].bit(j as u32) & &(&has_left[j] | &other.pending_wb);
            let ahead = other.pending_wb.mux(&other.in_banks, &other.issued);
            let behind = ahead.gt(&last);
            allowed = &allowed & &!&(&waits & &!&behind);
            // Memory readouts go to the VMU in program order, whole instructions at a time.
            allowed = &allowed & &!&(&io.mdeps[k].bit(j as u32) & &has_left[j]);
        }
        let unit_ = s.get("unit").value();
        let is_readout = unit_.eq(&unit_.konst(Bits::from_u64(unit::WIDTH, unit::MEM)));
        allowed = &allowed & &(!&is_readout | &io.brq_space);
        m.connect(c.valid(), &(&allowed & &!&cl.clearing));
        let b = c.bits();
        for (name, ..) in seq_op_compute_fields(p) {
            m.connect(b.get(&name).value(), s.get(&name).value());
        }
        for (f, r) in &pr.rows {
            m.connect(b.get(f).value(), r);
        }
        if p.mixed_precision {
            for (f, c) in &pr.classes {
                m.connect(b.get(&format!("{f}_c")).value(), c);
            }
            m.connect(b.get("slo").value(), &pr.issued.slice(1, 0));
            m.connect(b.get("pk").value(), &pr.pk);
        }
        let count = next_count(p, pr);
        m.connect(b.get("count").value(), &count.slice(count_w - 1, 0));
        m.connect(b.get("eidx").value(), &pr.eidx);
    }
}

/// The clear candidate: a full strip writing the clear row (ones in vp0's rows).
fn clear_candidate(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &SeqIo,
    d: &SeqDims,
    cl: &ClearRegs,
) {
    let count_w = count_bits(p);
    let (clear_pred, clear_row, clear_preg) = (&cl.clear_pred, &cl.clear_row, &cl.clear_preg);
    // The clear candidate.
    let c = &io.cands[p.seq_entries as usize];
    m.connect(c.valid(), &cl.clearing);
    let b = c.bits();
    for (leaf, _) in b.leaves() {
        let z = leaf.konst(Bits::zero(leaf.width()));
        m.connect(leaf, &z);
    }
    let plu = m.lit(unit::PLU, unit::WIDTH);
    let alu = m.lit(unit::ALU, unit::WIDTH);
    m.connect(b.get("unit").value(), &clear_pred.mux(&plu, &alu));
    let vp0 = clear_preg.eq(&clear_preg.konst(Bits::zero(NVP_BITS)));
    let ones = m.lit(0xff, 8);
    let zeros = m.lit(0, 8);
    m.connect(b.get("table").value(), &vp0.mux(&ones, &zeros));
    let one = m.lit(1, 1);
    m.connect(b.get("wr").value(), &one);
    m.connect(b.get("rd_pred").value(), clear_pred);
    m.connect(b.get("rd").value(), &clear_row.slice(d.row_w - 1, 0));
    m.connect(b.get("prd").value(), &clear_row.slice(d.prow_w - 1, 0));
    let full = m.lit(d.strip, count_w);
    m.connect(b.get("count").value(), &full);
}

/// The age-based pick (`pick`). Returns the chosen slots and whether the clear candidate
/// goes.
fn age_pick(m: &mut ModuleBuilder, p: &HwachaParams, io: &SeqIo) -> (Value, Value) {
    let n = p.seq_entries;
    let (ok, head) = (&io.ok, &io.head);
    // Age-based pick among the acceptable candidates: rotate so that `head` comes
    // first, take the lowest, rotate back. The clear candidate is alone when valid.
    let slots_ok = ok.slice(n - 1, 0);
    let double = cat(&[&slots_ok, &slots_ok]);
    let rotated = double.dshr(head).slice(n - 1, 0);
    let first = lowest_one(&rotated);
    let back = cat(&[&first, &first]).dshl(head).slice(2 * n - 1, n);
    let clear_ok = ok.bit(n);
    let none = m.lit(0, n);
    let chosen = clear_ok.mux(&none, &back);
    m.connect(&io.pick, &cat(&[&clear_ok, &chosen]));
    (chosen, clear_ok)
}

/// Progress updates: allocation loads a slot, a picked strip advances it; and the
/// `readout` port.
fn progress_updates(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &SeqIo,
    d: &SeqDims,
    progress: &[Progress],
    chosen: &Value,
) {
    let (drain_w, issued_w) = (d.drain_w, d.issued_w);
    let (new, lane) = (&io.new, &io.lane);
    // Progress updates: allocation loads a slot, a picked strip advances it.
    let lanes_log = p.lanes.trailing_zeros();
    let eb = eidx_bits(p);
    let eidx_step = m.lit(d.strip << lanes_log, eb);
    let g = |f: &str| new.get(f).value().clone();
    for (k, pr) in progress.iter().enumerate() {
        let bit = k as u32;
        m.when(&io.alloc.bit(bit), |m| {
            let lvlen = lane_vlen(p, &g("vlen"), lane);
            m.connect(&pr.left, &lvlen);
            let is_load = &g("mem") & &g("mem_op").ne(&g("mem_op").konst(Bits::from_u64(2, 1)));
            let late = &is_load | &g("div");
            m.connect(
                &pr.pending_wb,
                &(&late & &lvlen.ne(&lvlen.konst(Bits::zero(eb)))),
            );
            let d0 = m.lit(0, drain_w);
            m.connect(&pr.drain, &d0);
            let zero = m.lit(0, issued_w);
            m.connect(&pr.issued, &zero);
            m.connect(&pr.in_banks, &zero);
            m.connect(&pr.eidx, &lane.zext(eb).shl(p.strip().trailing_zeros()));
            let classes = new_classes(&io.layout, new);
            for (f, r) in &pr.rows {
                let row = match classes.iter().find(|(name, _)| name == f) {
                    Some((_, c)) => io.layout.first_row(&g(f), c),
                    None => g(f).zext(r.width().max(8)).slice(r.width() - 1, 0),
                };
                m.connect(r, &row);
            }
            if p.mixed_precision {
                for ((_, reg), (_, c)) in pr.classes.iter().zip(&classes) {
                    m.connect(reg, c);
                }
                m.connect(&pr.pk, &packs(new, &classes));
            }
        })
        .elsewhen(&chosen.bit(bit), |m| {
            let count = next_count(p, pr);
            m.connect(&pr.left, &(&pr.left - &count));
            let full = m.lit(d.drain_cycles, drain_w);
            m.connect(&pr.drain, &full);
            let strips = by_group(&pr.pk, issued_w, |g| g);
            m.connect(&pr.issued, &(&pr.issued + &strips));
            m.connect(&pr.eidx, &(&pr.eidx + &eidx_step.dshl(&pr.pk)));
            // Rows step after the last strip of the operation's group.
            let lo = (&pr.issued + &by_group(&pr.pk, issued_w, |g| g - 1)).slice(1, 0);
            for (f, r) in &pr.rows {
                let step = match pr.classes.iter().find(|(name, _)| name == f) {
                    Some((_, c)) => io.layout.step(c, &lo),
                    None => io.layout.pred_step(&lo, d.prow_w),
                };
                m.connect(r, &(r + &step));
            }
        })
        .otherwise(|m| {
            let counting = pr.drain.ne(&pr.drain.konst(Bits::zero(drain_w)));
            let one = m.lit(1, drain_w);
            m.when(&counting, |m| m.connect(&pr.drain, &(&pr.drain - &one)));
        });
        m.when(&io.wb_done.bit(bit), |m| {
            let zero = m.lit(0, 1);
            m.connect(&pr.pending_wb, &zero);
        });
        let progress = io.wb_strips.bits();
        let slot = progress.get("slot").value();
        let mine = &(io.wb_strips.valid()
            & &slot.eq(&slot.konst(Bits::from_u64(slot.width(), k as u64))))
            & &!&io.alloc.bit(bit);
        m.when(&mine, |m| {
            m.connect(&pr.in_banks, progress.get("strips").value())
        });
    }
    let mem_bits: Vec<Value> = io
        .slots
        .iter()
        .map(|s| {
            let u = s.get("unit").value();
            u.eq(&u.konst(Bits::from_u64(unit::WIDTH, unit::MEM)))
        })
        .collect();
    m.connect(&io.readout, &(chosen & &as_vec(&mem_bits)).or_r());
}

/// Clearing: every data row, then every predicate row.
fn clear_sequencing(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &SeqIo,
    cl: &ClearRegs,
    clear_ok: &Value,
) {
    let ClearRegs {
        clearing,
        clear_pred,
        clear_row,
        clear_preg,
    } = cl;
    let nvp = &io.nvp;
    // Clearing: every data row, then every predicate row.
    let last_row = m.lit(p.bank_entries as u64 - 1, clear_row.width());
    let last_prow = m.lit(p.pred_entries as u64 - 1, clear_row.width());
    let step = clear_row + &m.lit(1, clear_row.width());
    let preg_last = clear_preg + &m.lit(1, NVP_BITS);
    let preg_next = preg_last.ge(nvp).mux(&m.lit(0, NVP_BITS), &preg_last);
    m.when(&io.clear, |m| {
        let one = m.lit(1, 1);
        let zero = m.lit(0, 1);
        m.connect(clearing, &one);
        m.connect(clear_pred, &zero);
        let r0 = m.lit(0, clear_row.width());
        m.connect(clear_row, &r0);
        let p0 = m.lit(0, NVP_BITS);
        m.connect(clear_preg, &p0);
    })
    .elsewhen(clear_ok, |m| {
        m.connect(clear_row, &step);
        m.when(clear_pred, |m| m.connect(clear_preg, &preg_next));
        m.when(&(&!clear_pred & &clear_row.eq(&last_row)), |m| {
            let one = m.lit(1, 1);
            let r0 = m.lit(0, clear_row.width());
            m.connect(clear_pred, &one);
            m.connect(clear_row, &r0);
        });
        m.when(&(clear_pred & &clear_row.eq(&last_prow)), |m| {
            let zero = m.lit(0, 1);
            m.connect(clearing, &zero);
        });
    });
}

/// The classes of a newly allocated instruction's data operands and destination (a
/// predicate destination counts as H: a write of one strip's subword).
fn new_classes(layout: &Layout, new: &Bundle) -> Vec<(&'static str, Value)> {
    ["rs1", "rs2", "rs3", "rd"]
        .into_iter()
        .map(|f| {
            let c = layout.class(new.get(f).value());
            let c = if f == "rd" {
                let h = c.konst(Bits::from_u64(cls::WIDTH, cls::H));
                new.get("rd_pred").value().mux(&h, &c)
            } else {
                c
            };
            (f, c)
        })
        .collect()
}

/// The packed class (`Progress::pk`) of a newly allocated instruction, thesis chapter 8's
/// "Spatial Parallelism": an FMA (not a widening form) in single or half precision
/// whose destination and vector operands are all registers of that width (class W or
/// H), or a conversion between half and single on 32-bit registers (class W: the extra
/// half-single converters), works on whole packed rows, two or four strips an
/// operation; else D.
fn packs(new: &Bundle, classes: &[(&'static str, Value)]) -> Value {
    let g = |f: &str| new.get(f).value().clone();
    let (fm, fn_) = (g("fmt"), g("fn"));
    let k = |w: u32, v: u64| fm.konst(Bits::from_u64(w, v));
    let is_fma = unit::is(&g("unit"), unit::FMA);
    let half = &is_fma & &fm.eq(&k(2, fmt::H));
    let want = half.mux(&k(cls::WIDTH, cls::H), &k(cls::WIDTH, cls::W));
    let widening = fn_.bit(fma_fn::WIDEN.trailing_zeros());
    let fma = &(&is_fma & &fm.ne(&k(2, fmt::D))) & &!&widening;
    // FConv's `fn` (`fpu::convert::encode`): kind, integer type, destination, source.
    let (kind, dst, src) = (fn_.slice(7, 6), fn_.slice(3, 2), fn_.slice(1, 0));
    let h_s = &(&dst.eq(&k(2, fmt::H)) & &src.eq(&k(2, fmt::S)))
        | &(&dst.eq(&k(2, fmt::S)) & &src.eq(&k(2, fmt::H)));
    let f2f = kind.eq(&k(2, convert::kind::F2F));
    let conv = &(&unit::is(&g("unit"), unit::FCONV) & &f2f) & &h_s;
    let mut ok = &(&fma | &conv) & &(&g("wr") & &!&g("rd_pred"));
    for (f, c) in classes {
        let vector = match *f {
            "rd" => c.konst(Bits::from_u64(1, 1)),
            r => g(&format!("{r}_v")),
        };
        ok = &ok & &(!&vector | &c.eq(&want));
    }
    ok.mux(&want, &want.konst(Bits::from_u64(cls::WIDTH, cls::D)))
}

/// The fields a slot's candidate copies from the master slot as they are.
fn seq_op_compute_fields(p: &HwachaParams) -> Vec<(String, u32)> {
    let rows = [
        "rs1", "rs2", "rs3", "rd", "pred", "ps1", "ps2", "ps3", "prd", "count", "eidx",
    ];
    seq_op(p)
        .leaves("")
        .into_iter()
        .map(|(n, w, ..)| (n[1..].to_string(), w))
        .filter(|(n, _)| !rows.contains(&n.as_str()) && !MXP_FIELDS.contains(&n.as_str()))
        .collect()
}
