//! The lane's side of the vector memory unit (Figures 8.6, 8.10): the VMU command queue,
//! the readout path from the banks' read queues (BRQ) into the VMU's predicate, address
//! and store-data queues (the VPU, VGU and VSU functional units), and the load-data
//! writeback (VLU) from the VMU into the banks' write queues (BWQ).
//!
//! - Commands: a vector memory instruction's command is queued when the master
//!   sequencer allocates its slot (in program order, as the readouts come). A store's
//!   command goes to the VMU at once; a load's or AMO's waits until every older
//!   operation it depends on is done in this lane (sequenced and drained), since its
//!   results are written back whenever the memory answers.
//! - Readouts: each readout strip leaves one entry in every bank's BRQ (the sequencer
//!   reserves them, `brq_space`); the feeder drains the banks in order, one entry per
//!   cycle: its predicates to the VPQ, its store data to the VSDQ, and for indexed
//!   accesses its indices to the VVAQ one element per cycle. Entries past the vector's
//!   end carry no element and are dropped. A divide's entries, empty ones too, go whole
//!   to the lane's VFU2 (`vfu2.rs`: integer and FP dividers), and reductions' to the
//!   reducer.
//! - Writeback: the VMU writes one command's results back at a time (`vmu.rs`); group
//!   `g` of S elements is bank `g % B`'s entry of lane-local strip `g / B`, row
//!   `(g / B) * n + rd`; `done_load` ends the command and tells the sequencer (`wb_done`).
//!   The divider's results share the write queues and go first.
//! - Chaining from loads: `wb_strips` tells the sequencer how many leading strips of the
//!   load writing back are in the banks (`load_progress`), so its dependents follow it
//!   strip by strip.

use super::bank::{brq_shape, bwq_count_bits, bwq_shape};
use super::regmap::Layout;
use super::sequencer::lane_vlen;
use super::uop::{eidx_bits, rd_bits, strip_count_bits, vinsn};
use super::vfu2::vfu2;
use crate::hwacha::master::slot_bits;
use crate::hwacha::params::HwachaParams;
use crate::hwacha::vmu::{self, Fifo};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{
    cat, Bits, Bundle, Dir, HdlErrors, Inst, Module, ModuleBuilder, ResetValue, Shape, Value,
};
use std::rc::Rc;

/// A lane's reduction result: whether every / any element is active, and the first
/// active element's global index and value (vfirst).
pub fn reduction_shape() -> Shape {
    Shape::valid(Shape::bundle(vec![
        Shape::field("all", Shape::UInt(1)),
        Shape::field("any", Shape::UInt(1)),
        Shape::field("found", Shape::UInt(1)),
        Shape::field("index", Shape::UInt(32)),
        Shape::field("value", Shape::UInt(64)),
    ]))
}

/// Where group `group` of a register's lane-local elements lives (S elements: bank
/// `g % B`'s entry of lane-local strip `g / B`): its bank, and the row, class and
/// subword of register `rd` there (`regmap::Layout::place`).
pub(super) struct GroupPlace {
    pub bank: Value,
    pub row: Value,
    pub cls: Value,
    pub sub: Value,
}

pub(super) fn group_place(
    p: &HwachaParams,
    layout: &Layout,
    group: &Value,
    rd: &Value,
) -> GroupPlace {
    let bank_log = p.banks.trailing_zeros();
    let (row, cls, sub) = layout.place(&group.shr(bank_log), rd);
    let bank = if bank_log == 0 {
        group.konst(Bits::zero(1))
    } else {
        group.slice(bank_log - 1, 0)
    };
    GroupPlace {
        bank,
        row,
        cls,
        sub,
    }
}

/// Connects a bank write queue's packing fields (`cls`, `sub`) when it has them.
pub(super) fn connect_packing(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    q: &Bundle,
    cls: &Value,
    sub: &Value,
) {
    if p.mixed_precision {
        m.connect(q.get("cls").value(), cls);
        m.connect(q.get("sub").value(), sub);
    }
}

/// Command queue entry fields, low first.
fn cmd_fields(p: &HwachaParams) -> Vec<(&'static str, u32)> {
    vec![
        ("slot", addr_width(p.seq_entries as u64).max(1)),
        ("op", 2),
        ("amo_fn", 4),
        ("mode", 2),
        ("width", 2),
        ("unsigned", 1),
        ("base", 64),
        ("stride", 64),
        // The lane's vector length (`lane_vlen`); the VMU takes it zero-extended.
        ("vlen", eidx_bits(p)),
        ("rd", rd_bits(p)),
        ("rd_width", 2),
        ("red", 2),
        // vfirst of a shared register: its value is the base.
        ("red_scalar", 1),
    ]
}

/// Entries of the lane's command queues (this one, whose entry holds a 64-bit base and
/// stride, and the divider's): half the sequencer slots. A memory instruction or divide
/// beyond them waits in the master (`mem_ready`); the queues drain in order whatever
/// the younger slots hold.
pub(super) fn cmdq_entries(p: &HwachaParams) -> u32 {
    (p.seq_entries / 2).max(2)
}

/// Splits a packed entry into its fields.
fn unpack(v: &Value, fields: &[(&'static str, u32)]) -> Vec<(&'static str, Value)> {
    let mut at = 0;
    fields
        .iter()
        .map(|&(n, w)| {
            let f = v.slice(at + w - 1, at);
            at += w;
            (n, f)
        })
        .collect()
}

fn get<'a>(fields: &'a [(&str, Value)], name: &str) -> &'a Value {
    &fields.iter().find(|(n, _)| *n == name).expect("field").1
}

/// The lane memory's ports and its VMU instance (typed bundle of its interface).
struct MemoryIo {
    lane: Value,
    new: Bundle,
    alloc: Value,
    layout: Layout,
    deps_clear: Value,
    readout: Value,
    brq_space: Value,
    wb_done: Value,
    mem_ready: Value,
    brqs: Vec<Bundle>,
    bwqs: Vec<Bundle>,
    /// The VMU.
    unit: Inst,
    busy: Value,
    red_out: Bundle,
    red_ack: Value,
}

/// The command stage's outputs: the head command, the load queue and the reducer's
/// handshake registers.
struct Commands {
    head: Vec<(&'static str, Value)>,
    loadq: Fifo,
    /// Slot field width.
    sb: u32,
    reducer_busy: Value,
    result_valid: Value,
    to_reducer: Value,
}

/// The feeder's signals the reducer and the credits read.
struct Feed {
    here: Vec<Value>,
    pop: Value,
    indices: Value,
    pred: Value,
    exists: Value,
    reduced: Value,
}

/// The reducer's registers (datapath: set when a reduction arms it).
struct ReducerRegs {
    left: Value,
    count: Value,
    scalar: Value,
    scalar_value: Value,
    all: Value,
    any: Value,
    found: Value,
    index: Value,
    value: Value,
}

/// Ports: `lane_id`, the master's `new`/`alloc`/`nvv`; the sequencer's `deps_clear`
/// (slots whose older dependences are done here) and `readout` (a readout strip was
/// sequenced) in, `brq_space` and `wb_done` (one-hot: the slot whose load finished) out;
/// `mem_ready` (room for a command) out; each bank's `b<i>_brq` in, `b<i>_bwq` out and
/// `b<i>_bwq_empty` in;
/// the VMU's `mem_req`/`mem_resp`, `xcpt` and `busy`; `div_fflags` (the FP dividers'
/// exception flags raised this cycle).
pub fn lane_memory(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("LaneMemory");
    let io = memory_io(&mut m, p)?;
    let div = lane_divider(&mut m, p, &io)?;
    let cmds = commands(&mut m, p, &io, &div)?;
    writeback(&mut m, p, &io, &div, &cmds);
    let feed = feeder(&mut m, p, &io, &div, &cmds);
    reducer(&mut m, p, &io, &div, &cmds, &feed);
    brq_credits(&mut m, p, &io, &feed);
    m.finish()
}

/// The module's ports and the VMU instance (Figure 8.6), wired to the memory ports.
fn memory_io(m: &mut ModuleBuilder, p: &HwachaParams) -> Result<MemoryIo, HdlErrors> {
    let n = p.seq_entries;
    let lane = m.input("lane_id", super::sequencer::lane_id_bits(p));
    let new = m.io("new", Dir::In, &vinsn());
    let alloc = m.input("alloc", n);
    let layout = Layout::inputs(m, p);
    let deps_clear = m.input("deps_clear", n);
    let readout = m.input("readout", 1);
    let brq_space = m.output("brq_space", 1);
    let wb_done = m.output("wb_done", n);
    let mem_ready = m.output("mem_ready", 1);
    let brqs: Vec<Bundle> = (0..p.banks)
        .map(|b| {
            m.io(
                &format!("b{b}_brq"),
                Dir::In,
                &Shape::decoupled(brq_shape(p)),
            )
        })
        .collect();
    let bwqs: Vec<Bundle> = (0..p.banks)
        .map(|b| {
            m.io(
                &format!("b{b}_bwq"),
                Dir::Out,
                &Shape::decoupled(bwq_shape(p)),
            )
        })
        .collect();
    let vmu_mod = vmu::vmu(p)?;
    let unit = m.instance("vmu", &vmu_mod);
    m.connect(
        &unit.port("lane_id"),
        &lane
            .zext(vmu::lane_id_bits(p))
            .slice(vmu::lane_id_bits(p) - 1, 0),
    );
    let tb = vmu::tag_bits(p);
    let req = m.io("mem_req", Dir::Out, &vmu::mem_request(tb));
    let resp = m.io("mem_resp", Dir::In, &vmu::mem_response(tb));
    m.connect_bundle(&req, &unit.io("mem_req"));
    m.connect_bundle(&unit.io("mem_resp"), &resp);
    let xcpt = m.io("xcpt", Dir::Out, &vmu::xcpt_shape());
    m.connect_bundle(&xcpt, &unit.io("xcpt"));
    let busy = m.output("busy", 1);
    let red_out = m.io("red", Dir::Out, &reduction_shape());
    let red_ack = m.input("red_ack", 1);
    Ok(MemoryIo {
        lane,
        new,
        alloc,
        layout,
        deps_clear,
        readout,
        brq_space,
        wb_done,
        mem_ready,
        brqs,
        bwqs,
        unit,
        busy,
        red_out,
        red_ack,
    })
}

/// The lane's VFU2 instance (`vfu2.rs`), fed the master's allocations.
fn lane_divider(m: &mut ModuleBuilder, p: &HwachaParams, io: &MemoryIo) -> Result<Inst, HdlErrors> {
    let div = m.instance("vfu2", &vfu2(p)?);
    let fflags = m.output("div_fflags", 5);
    m.connect(&fflags, &div.port("fflags"));
    m.connect(&div.port("lane_id"), &io.lane);
    m.connect_bundle(&div.io("new"), &io.new);
    for (name, v) in [("alloc", &io.alloc), ("deps_clear", &io.deps_clear)] {
        m.connect(&div.port(name), v);
    }
    for (name, v) in io.layout.ports() {
        m.connect(&div.port(name), v);
    }
    Ok(div)
}

/// The command queue: commands queued at allocation, released to the VMU (stores at
/// once, loads and AMOs once their dependences clear) or to the reducer.
fn commands(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &MemoryIo,
    div: &Inst,
) -> Result<Commands, HdlErrors> {
    let n = p.seq_entries;
    let (new, lane, unit) = (&io.new, &io.lane, &io.unit);
    // Commands, queued at allocation (an empty memory command is not: nothing would
    // finish it; a reduction is, as every lane answers).
    let fields = cmd_fields(p);
    let width: u32 = fields.iter().map(|f| f.1).sum();
    let cmdq = Fifo::new(m, p, "cmdq", cmdq_entries(p), width)?;
    let g = |f: &str| new.get(f).value().clone();
    let lvlen = lane_vlen(p, &g("vlen"), lane);
    let slot = hdl::helpers::onehot_encode(&io.alloc);
    let sb = fields[0].1;
    let entry = cat(&[
        &!&g("rs1_v"),
        &g("red"),
        &g("rd_width"),
        &g("rd").zext(8.max(rd_bits(p))).slice(rd_bits(p) - 1, 0),
        &lvlen,
        &g("s2"),
        &g("s1"),
        &g("unsigned"),
        &g("width"),
        &g("mode"),
        &g("amo_fn"),
        &g("mem_op"),
        &slot.zext(sb.max(slot.width())).slice(sb - 1, 0),
    ]);
    let zero = m.lit(0, eidx_bits(p));
    let is_red = g("red").ne(&m.lit(0, 2));
    let queued = &(&g("mem") & &lvlen.ne(&zero)) | &is_red;
    m.connect(&cmdq.enq_valid(), &(&io.alloc.or_r() & &queued));
    m.connect(&cmdq.enq_bits(), &entry);
    m.connect(&io.mem_ready, &(&cmdq.enq_ready() & &div.port("ready")));
    let head = unpack(&cmdq.deq_bits(), &fields);
    let is_store = get(&head, "op").eq(&m.lit(vmu::OP_STORE, 2));
    let head_slot = onehot_decode(get(&head, "slot"), n);
    let cleared = (&head_slot & &io.deps_clear).or_r();
    // Load and AMO results go back one command at a time, in command order.
    let loadq = Fifo::new(m, p, "loadq", n, sb + rd_bits(p) + 2)?;
    let cmd = unit.io("cmd");
    // Reductions go to the reducer instead, once it is free.
    let head_red = get(&head, "red").ne(&m.lit(0, 2));
    let reducer_busy = m.reg("red_active", 1, 0u64);
    let result_valid = m.reg("red_valid", 1, 0u64);
    let to_reducer = &(&cmdq.deq_valid() & &head_red) & &!&(&reducer_busy | &result_valid);
    let release =
        &(&cmdq.deq_valid() & &!&head_red) & &(&is_store | &(&cleared & &loadq.enq_ready()));
    m.connect(cmd.valid(), &release);
    for f in [
        "op", "amo_fn", "mode", "width", "unsigned", "base", "stride",
    ] {
        m.connect(cmd.bits().get(f).value(), get(&head, f));
    }
    let vlen = cmd.bits().get("vlen").value().clone();
    m.connect(&vlen, &get(&head, "vlen").zext(vlen.width()));
    m.connect(
        &cmdq.deq_ready(),
        &(&(&release & cmd.ready()) | &to_reducer),
    );
    let sent_load = &(&release & cmd.ready()) & &!&is_store;
    m.connect(&loadq.enq_valid(), &sent_load);
    let load_entry = cat(&[get(&head, "rd_width"), get(&head, "rd"), get(&head, "slot")]);
    m.connect(&loadq.enq_bits(), &load_entry);
    Ok(Commands {
        head,
        loadq,
        sb,
        reducer_busy,
        result_valid,
        to_reducer,
    })
}

/// Writeback (the VLU, Figure 8.10): the divider's and the VMU's results into the
/// banks' write queues, and `wb_done` once they have drained.
fn writeback(m: &mut ModuleBuilder, p: &HwachaParams, io: &MemoryIo, div: &Inst, cmds: &Commands) {
    let n = p.seq_entries;
    let (unit, loadq) = (&io.unit, &cmds.loadq);
    // Writeback: the VLU's groups (g and g + 1, in different banks) to their banks'
    // write queues.
    let wb_fields = [("slot", cmds.sb), ("rd", rd_bits(p)), ("rd_width", 2)];
    let wb = unpack(&loadq.deq_bits(), &wb_fields);
    let vlus = [unit.io("vlu"), unit.io("vlu_next")];
    let places: Vec<GroupPlace> = (vlus.iter())
        .map(|v| group_place(p, &io.layout, v.bits().get("group").value(), get(&wb, "rd")))
        .collect();
    // The divider's results go first; the VLU takes the banks it leaves.
    let dwb = div.io("wb");
    let div_bank = dwb.bits().get("bank").value().clone();
    let mut vlu_ready = [m.lit(0, 1), m.lit(0, 1)];
    let mut div_ready = m.lit(0, 1);
    for (b, q) in io.bwqs.iter().enumerate() {
        let id = div_bank.konst(Bits::from_u64(div_bank.width(), b as u64));
        let mine: Vec<Value> = places.iter().map(|pl| pl.bank.eq(&id)).collect();
        let div_here = dwb.valid() & &div_bank.eq(&id);
        let a_here = vlus[0].valid() & &mine[0];
        let b_here = &(vlus[1].valid() & &mine[1]) & &!&a_here;
        m.connect(q.valid(), &(&(&div_here | &a_here) | &b_here));
        // The divider's field `d`, else group g's `a`, else group g + 1's `b`.
        let pick = |d: &Value, a: &Value, b: &Value| div_here.mux(d, &a_here.mux(a, b));
        let vlu_field = |f: &str| {
            let [a, b] = &vlus;
            (
                a.bits().get(f).value().clone(),
                b.bits().get(f).value().clone(),
            )
        };
        let qb = q.bits();
        let div_field = |f: &str| dwb.bits().get(f).value().clone();
        m.connect(
            qb.get("row").value(),
            &pick(&div_field("row"), &places[0].row, &places[1].row),
        );
        if p.mixed_precision {
            let cls = pick(&div_field("cls"), &places[0].cls, &places[1].cls);
            let sub = pick(&div_field("sub"), &places[0].sub, &places[1].sub);
            connect_packing(m, p, qb, &cls, &sub);
        }
        for f in ["data", "mask"] {
            let (a, b) = vlu_field(f);
            m.connect(qb.get(f).value(), &pick(&div_field(f), &a, &b));
        }
        m.connect(
            qb.get("width").value(),
            &div_here.mux(&div_field("width"), get(&wb, "rd_width")),
        );
        let free = q.ready() & &!&div_here;
        vlu_ready[0] = &vlu_ready[0] | &(&mine[0] & &free);
        vlu_ready[1] = &vlu_ready[1] | &(&(&mine[1] & &free) & &!&a_here);
        div_ready = &div_ready | &(&div_here & q.ready());
    }
    for (v, r) in vlus.iter().zip(&vlu_ready) {
        m.connect(v.ready(), r);
    }
    m.connect(dwb.ready(), &div_ready);
    let finished = unit.port("done_load");
    m.connect(&loadq.deq_ready(), &finished);
    let queues = bank_queues(m, p, io);
    load_progress(m, p, io, cmds, &queues, get(&wb, "slot"));
    let none = m.lit(0, n);
    let load_done = finished.mux(&onehot_decode(get(&wb, "slot"), n), &none);
    // A load's or divide's last results may still wait in a bank write queue when it
    // finishes (a bank's own operations take its write port first). It counts as written
    // back (`wb_done`) from a later cycle in which every queue is empty, so that nothing
    // reads or overwrites those rows before them.
    let zero = m.lit(0, bwq_count_bits(p));
    let all_empty = queues
        .iter()
        .fold(m.lit(1, 1), |acc, q| &acc & &q.count.eq(&zero));
    let done_wait = m.reg("done_wait", n, 0u64);
    m.connect(&io.wb_done, &all_empty.mux(&done_wait, &none));
    let kept = all_empty.mux(&none, &done_wait);
    m.connect(&done_wait, &(&(&kept | &load_done) | &div.port("done")));
}

/// A bank write queue as the lane memory sees it: entries held, the one entering and the
/// one leaving for the SRAM this cycle.
struct BankQueue {
    count: Value,
    enq: Value,
    deq: Value,
}

/// Each bank write queue's `b<i>_bwq_count` and `b<i>_bwq_deq` inputs and its enqueue.
fn bank_queues(m: &mut ModuleBuilder, p: &HwachaParams, io: &MemoryIo) -> Vec<BankQueue> {
    (0..p.banks)
        .map(|b| BankQueue {
            count: m.input(&format!("b{b}_bwq_count"), bwq_count_bits(p)),
            enq: io.bwqs[b as usize].fire(),
            deq: m.input(&format!("b{b}_bwq_deq"), 1),
        })
        .collect()
}

/// Chaining from loads (thesis 8.5's VLU bookkeeping operation: dependents follow a
/// load strip by strip once its elements are in the banks): `wb_strips` tells the
/// sequencer, for the load or AMO writing back (slot `slot`, the load queue's head), how
/// many of its leading lane-local strips are in the banks (all ones once the whole
/// command is).
///
/// The VMU's `retired` counts the command's leading elements handed to the bank write
/// queues; they are in the SRAM once every queue has written the entries it held. A
/// snapshot takes `retired` (in whole strips; every strip at `done_load`) and, per
/// bank, the entries queued after this cycle, and counts them down as the bank writes
/// them; with none left it is published and the next snapshot is taken. `done_load`
/// replaces a snapshot in flight (the new one covers the old one's entries).
fn load_progress(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &MemoryIo,
    cmds: &Commands,
    queues: &[BankQueue],
    slot: &Value,
) {
    let sw = strip_count_bits(p);
    let out = m.io("wb_strips", Dir::Out, &wb_strips_shape(p));
    let cw = bwq_count_bits(p);
    let busy = m.reg("chain_busy", 1, 0u64);
    let snap_slot = m.reg("chain_slot", cmds.sb, ResetValue::None);
    let snap_strips = m.reg("chain_strips", sw, ResetValue::None);
    let pend: Vec<Value> = (0..p.banks)
        .map(|b| m.reg(&format!("chain_pend{b}"), cw, 0u64))
        .collect();
    let zero = m.lit(0, cw);
    let drained = pend.iter().fold(m.lit(1, 1), |a, q| &a & &q.eq(&zero));
    let publish = &busy & &drained;
    m.connect(out.valid(), &publish);
    m.connect(out.bits().get("slot").value(), &snap_slot);
    m.connect(out.bits().get("strips").value(), &snap_strips);
    let finished = io.unit.port("done_load");
    let take = &finished | &(&cmds.loadq.deq_valid() & &(!&busy | &publish));
    let strip_log = p.strip().trailing_zeros();
    let retired = io.unit.port("retired").shr(strip_log);
    let strips = finished.mux(&m.lit((1u64 << sw) - 1, sw), &retired.slice(sw - 1, 0));
    let one = m.lit(1, cw);
    m.when(&take, |m| {
        let on = m.lit(1, 1);
        m.connect(&busy, &on);
        m.connect(&snap_slot, slot);
        m.connect(&snap_strips, &strips);
        for (r, q) in pend.iter().zip(queues) {
            let held = &(&q.count + &q.enq.zext(cw)) - &q.deq.zext(cw);
            m.connect(r, &held);
        }
    })
    .otherwise(|m| {
        m.when(&publish, |m| {
            let off = m.lit(0, 1);
            m.connect(&busy, &off);
        });
        for (r, q) in pend.iter().zip(queues) {
            let written = &q.deq & &r.ne(&zero);
            m.when(&written, |m| m.connect(r, &(r - &one)));
        }
    });
}

/// `wb_strips`: valid, the load's slot, its leading strips in the banks.
pub(super) fn wb_strips_shape(p: &HwachaParams) -> Shape {
    Shape::valid(Shape::bundle(vec![
        Shape::field("slot", Shape::UInt(slot_bits(p))),
        Shape::field("strips", Shape::UInt(strip_count_bits(p))),
    ]))
}

/// The feeder (the VPU, VGU and VSU side, Figure 8.10): drains the banks' read queues
/// in order into the VMU's VPQ, VSDQ and VVAQ, the divider and the reducer.
fn feeder(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &MemoryIo,
    div: &Inst,
    cmds: &Commands,
) -> Feed {
    let s = p.slices();
    let (brqs, unit) = (&io.brqs, &io.unit);
    let reducer_busy = &cmds.reducer_busy;
    // The feeder: bank by bank, one BRQ entry per cycle (indices one element a cycle).
    let bank_log = p.banks.trailing_zeros();
    // One bank: the pointer is a constant (a register never written is refused).
    let bank = if p.banks > 1 {
        m.reg("feed_bank", bank_log, 0u64)
    } else {
        m.lit(0, 1)
    };
    let sent = m.reg("feed_sent", 1, 0u64);
    let elem = m.reg("feed_elem", addr_width(s as u64).max(1), 0u64);
    let here: Vec<Value> = (0..p.banks)
        .map(|b| bank.eq(&bank.konst(Bits::from_u64(bank.width(), b as u64))))
        .collect();
    // The pointed-at bank's read-queue head: an AND-OR of the banks' by the one-hot
    // `here`, cheaper than a chain of muxes.
    let here_v = cat(&here.iter().rev().collect::<Vec<_>>());
    let sel = |f: &dyn Fn(&Bundle) -> Value| {
        let heads: Vec<Value> = brqs.iter().map(f).collect();
        onehot_mux(&here_v, &heads)
    };
    let valid = sel(&|q| q.valid().clone());
    let field = |name: &str| sel(&|q| q.bits().get(name).value().clone());
    let (indices, data, pred, exists) = (field("a"), field("b"), field("pred"), field("exists"));
    let (data_v, index_v) = (field("data_v"), field("index_v"));
    let for_reducer = field("red");
    let (vpq, vsdq, vvaq) = (unit.io("vpq"), unit.io("vsdq"), unit.io("vvaq"));
    // First the entry's predicates (and store data), then its indices.
    // A divide's entries (empty ones too: it counts them) go to the divider whole.
    let for_div = field("div");
    let dopnd = div.io("opnd");
    m.connect(dopnd.valid(), &(&valid & &for_div));
    for (f, v) in [("a", &indices), ("b", &data), ("pred", &pred)] {
        m.connect(dopnd.bits().get(f).value(), v);
    }
    let to_div = &(&valid & &for_div) & dopnd.ready();
    let first = &(&(&(&valid & &exists.or_r()) & &!&sent) & &!&for_reducer) & &!&for_div;
    m.connect(vpq.valid(), &(&first & &(!&data_v | vsdq.ready())));
    m.connect(vpq.bits().get("pred").value(), &pred);
    m.connect(vsdq.valid(), &(&(&first & &data_v) & vpq.ready()));
    m.connect(vsdq.bits().get("data").value(), &data);
    let first_done = &(&first & vpq.ready()) & &(!&data_v | vsdq.ready());
    let second = &(&valid & &sent) & &index_v;
    let offsets: Vec<Value> = (0..s).map(|j| indices.slice(64 * j + 63, 64 * j)).collect();
    let mut offset = offsets[0].clone();
    for (j, o) in offsets.iter().enumerate().skip(1) {
        offset = elem
            .eq(&elem.konst(Bits::from_u64(elem.width(), j as u64)))
            .mux(o, &offset);
    }
    m.connect(vvaq.valid(), &second);
    m.connect(vvaq.bits().get("offset").value(), &offset);
    let next_elem = &elem.zext(elem.width() + 1) + &m.lit(1, elem.width() + 1);
    let more = &next_elem.lt(&m.lit(s as u64, elem.width() + 1)) & &exists.dshr(&next_elem).bit(0);
    let index_fire = &second & vvaq.ready();
    // The reducer takes an entry a cycle, once the reduction's command has armed it.
    let reduced = &(&valid & &for_reducer) & reducer_busy;
    let pop = &(&valid
        & &!&for_div
        & &(&(&(&!&exists.or_r() | &reduced) | &(&first_done & &!&index_v))
            | &(&index_fire & &!&more)))
        | &to_div;
    for (b, q) in brqs.iter().enumerate() {
        m.connect(q.ready(), &(&here[b] & &pop));
    }
    m.when(&pop, |m| {
        let zero = m.lit(0, 1);
        m.connect(&sent, &zero);
        let e0 = m.lit(0, elem.width());
        m.connect(&elem, &e0);
        // Banks are a power of two: the pointer wraps by itself.
        if p.banks > 1 {
            let nb = &bank + &m.lit(1, bank.width());
            m.connect(&bank, &nb);
        }
    })
    .elsewhen(&first_done, |m| {
        let one = m.lit(1, 1);
        m.connect(&sent, &one);
    })
    .elsewhen(&index_fire, |m| {
        m.connect(&elem, &next_elem.slice(elem.width() - 1, 0));
    });
    Feed {
        here,
        pop,
        indices,
        pred,
        exists,
        reduced,
    }
}

/// The reducer (guard all/any and vfirst over this lane's elements), its result port
/// and the module's `busy`.
fn reducer(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &MemoryIo,
    div: &Inst,
    cmds: &Commands,
    feed: &Feed,
) {
    let head = &cmds.head;
    let (reducer_busy, result_valid) = (&cmds.reducer_busy, &cmds.result_valid);
    let reduced = &feed.reduced;
    // The reducer: the guard's all/any and vfirst's first active element, over this
    // lane's elements in order (lane-local element `count`, global index by the layout).
    // Its registers are datapath: set when a reduction arms it and read only while it
    // is busy or its result valid.
    let r = reducer_regs(m, p);
    let (n_all, n_any, n_found, n_index, n_value, taken) = reducer_step(m, p, &io.lane, &r, feed);
    let ReducerRegs {
        left,
        count,
        scalar,
        scalar_value,
        all,
        any,
        found,
        index,
        value,
    } = &r;
    let head_lvlen = get(head, "vlen").clone();
    let ew = eidx_bits(p);
    let zero_e = m.lit(0, ew);
    m.when(&cmds.to_reducer, |m| {
        m.connect(left, &head_lvlen);
        m.connect(count, &zero_e);
        m.connect(scalar, get(head, "red_scalar"));
        m.connect(scalar_value, get(head, "base"));
        let (one, zero) = (m.lit(1, 1), m.lit(0, 1));
        m.connect(all, &one);
        m.connect(any, &zero);
        m.connect(found, &zero);
        m.connect(index, &zero_e);
        let z64 = m.lit(0, 64);
        m.connect(value, &z64);
        // A lane with no elements has its (vacuous) result at once.
        let nothing = head_lvlen.eq(&zero_e);
        m.connect(reducer_busy, &!&nothing);
        m.connect(result_valid, &nothing);
    })
    .elsewhen(&(reduced & reducer_busy), |m| {
        m.connect(all, &n_all);
        m.connect(any, &n_any);
        m.connect(found, &n_found);
        m.connect(index, &n_index);
        m.connect(value, &n_value);
        m.connect(count, &(count + &taken));
        let rest = left - &taken;
        m.connect(left, &rest);
        let last = rest.eq(&zero_e);
        m.when(&last, |m| {
            let (one, zero) = (m.lit(1, 1), m.lit(0, 1));
            m.connect(reducer_busy, &zero);
            m.connect(result_valid, &one);
        });
    })
    .elsewhen(&(result_valid & &io.red_ack), |m| {
        let zero = m.lit(0, 1);
        m.connect(result_valid, &zero);
    });
    m.connect(io.red_out.valid(), result_valid);
    let rb = io.red_out.bits();
    let index = index.zext(rb.get("index").value().width());
    for (f, v) in [
        ("all", all),
        ("any", any),
        ("found", found),
        ("index", &index),
        ("value", value),
    ] {
        m.connect(rb.get(f).value(), v);
    }
    m.connect(
        &io.busy,
        &(&(&(&io.unit.port("busy") | reducer_busy) | result_valid) | &div.port("busy")),
    );
}

/// The reducer's registers, in declaration order: counts and the global index in
/// `eidx_bits` (below the vector length).
fn reducer_regs(m: &mut ModuleBuilder, p: &HwachaParams) -> ReducerRegs {
    let none = || ResetValue::None;
    let ew = eidx_bits(p);
    let left = m.reg("red_left", ew, none());
    let count = m.reg("red_count", ew, none());
    let scalar = m.reg("red_scalar", 1, none());
    let scalar_value = m.reg("red_value_scalar", 64, none());
    let (all, any, found) = (
        m.reg("red_all", 1, none()),
        m.reg("red_any", 1, none()),
        m.reg("red_found", 1, none()),
    );
    let (index, value) = (
        m.reg("red_index", ew, none()),
        m.reg("red_value", 64, none()),
    );
    ReducerRegs {
        left,
        count,
        scalar,
        scalar_value,
        all,
        any,
        found,
        index,
        value,
    }
}

/// One reducer step over the feeder's entry: the next all/any/found/index/value and
/// the number of elements taken.
fn reducer_step(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    lane: &Value,
    r: &ReducerRegs,
    feed: &Feed,
) -> (Value, Value, Value, Value, Value, Value) {
    let s = p.slices();
    let (exists, pred, indices) = (&feed.exists, &feed.pred, &feed.indices);
    let strip_log = p.strip().trailing_zeros();
    let ew = eidx_bits(p);
    // The global index of an element that exists is below the vector length.
    let global = |k: &Value| {
        let k = k.zext(32);
        let strip_no = k.shr(strip_log).shl(strip_log + p.lanes.trailing_zeros());
        let within = if strip_log == 0 {
            k.konst(Bits::zero(32))
        } else {
            k.slice(strip_log - 1, 0).zext(32)
        };
        (&(&strip_no | &lane.zext(32).shl(strip_log)) | &within).slice(ew - 1, 0)
    };
    let mut n_all = r.all.clone();
    let mut n_any = r.any.clone();
    let mut n_found = r.found.clone();
    let mut n_index = r.index.clone();
    let mut n_value = r.value.clone();
    let mut taken = m.lit(0, ew);
    for j in 0..s {
        let here_exists = exists.bit(j);
        let active = &here_exists & &pred.bit(j);
        n_all = &n_all & &(!&here_exists | &pred.bit(j));
        n_any = &n_any | &active;
        let new_first = &active & &!&n_found;
        let k = &r.count + &m.lit(j as u64, ew);
        n_index = new_first.mux(&global(&k), &n_index);
        let v = r
            .scalar
            .mux(&r.scalar_value, &indices.slice(64 * j + 63, 64 * j));
        n_value = new_first.mux(&v, &n_value);
        n_found = &n_found | &active;
        taken = &taken + &here_exists.zext(ew);
    }
    (n_all, n_any, n_found, n_index, n_value, taken)
}

/// Credits: strips read out and not yet drained from the last bank's BRQ
/// (`brq_space` to the sequencer).
fn brq_credits(m: &mut ModuleBuilder, p: &HwachaParams, io: &MemoryIo, feed: &Feed) {
    let (pop, here) = (&feed.pop, &feed.here);
    // Credits: strips read out and not yet drained from the last bank's BRQ.
    let last_bank = here[p.banks as usize - 1].clone();
    let strip_done = pop & &last_bank;
    let cw = addr_width(p.brq_entries as u64 + 1);
    let credits = m.reg("brq_strips", cw, 0u64);
    let one = m.lit(1, cw);
    let up = io.readout.mux(&(&credits + &one), &credits);
    m.connect(&credits, &strip_done.mux(&(&up - &one), &up));
    let limit = m.lit(p.brq_entries as u64, cw);
    m.connect(&io.brq_space, &credits.lt(&limit));
}
