//! The lane's VFU2 (Figure 8.6): the integer divider (IDiv) and the FP divide and square
//! root unit (FDiv/FSqrt), sequencer operations VQU with VIDU or VFDU (Table 8.4). A
//! divide's operands leave the banks as a readout, like a memory instruction's and in
//! program order with them, through the banks' read queues; the lane's memory side hands
//! this unit the divide's entries. Each entry's active elements go one at a time to an
//! iterative unit: Rocket's `MulDiv` for integers, the FP library's divider
//! (`fpu::divsqrt`, one per format: double, single, half) for floating point, both of
//! `idiv_bits_per_cycle` quotient bits a cycle; the entry's results (an FP one
//! sign-extended from its format, as registers hold it) go to its bank's write queue,
//! written whenever the bank's write port is free, as loads are. The lane sequencer
//! keeps the slot pending until the last entry is written (`done`); the FP elements'
//! exception flags leave on `fflags` as they finish.
//!
//! An entry's operands stay in the read queue's head while it is divided (the feeder
//! drains the queues in order, so nothing passes it): the unit keeps only the elements
//! left, the write mask and the results.
//!
//! Commands are queued at allocation. A command takes entries only once every older
//! operation it depends on is done in this lane (`deps_clear`): its late writes then
//! cannot be overtaken by an older write to the same rows.

use super::bank::bwq_shape;
use super::fp_port::sext;
use super::memory::{cmdq_entries, connect_packing, group_place};
use super::regmap::Layout;
use super::sequencer::{lane_id_bits, lane_vlen};
use super::uop::{eidx_bits, fmt, rd_bits, vinsn};
use crate::fpu::divsqrt::divsqrt;
use crate::fpu::{FloatFormat, DOUBLE, HALF, SINGLE};
use crate::hwacha::params::HwachaParams;
use crate::hwacha::vmu::Fifo;
use crate::rocket::muldiv::muldiv;
use crate::rocket::params::{MulDivParams, MulKind};
use hdl::helpers::onehot_decode;
use hdl::ir::addr_width;
use hdl::{cat, Bundle, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

/// A divide's operands for one bank entry: both operands' S elements, the elements to
/// divide (exist and active) and the elements that exist.
pub fn operand_shape(p: &HwachaParams) -> Shape {
    Shape::bundle(vec![
        Shape::field("a", Shape::UInt(p.bank_width)),
        Shape::field("b", Shape::UInt(p.bank_width)),
        Shape::field("pred", Shape::UInt(p.slices())),
    ])
}

/// A result entry for bank `bank`'s write queue.
pub fn writeback_shape(p: &HwachaParams) -> Shape {
    let mut fields = vec![Shape::field(
        "bank",
        Shape::UInt(addr_width(p.banks as u64).max(1)),
    )];
    if let Shape::Bundle(rest) = bwq_shape(p) {
        fields.extend(rest);
    }
    Shape::bundle(fields)
}

/// The module's ports (typed bundle of its interface).
struct DivIo {
    lane: Value,
    new: Bundle,
    alloc: Value,
    layout: Layout,
    deps_clear: Value,
    ready: Value,
    opnd: Bundle,
    wb: Bundle,
    done: Value,
    busy: Value,
    fflags: Value,
}

/// `fn` of an FP divide or square root (`vdecode`): bit 4 set, bit 0 the square root
/// (`fpu::divsqrt::OP_SQRT`; `OP_DIV` is 0).
pub mod fdiv_fn {
    pub const DIV: u64 = 0x10;
    pub const SQRT: u64 = 0x11;
}

/// The FP dividers: format code, format.
const FORMATS: [(u64, FloatFormat); 3] = [(fmt::D, DOUBLE), (fmt::S, SINGLE), (fmt::H, HALF)];

/// The command queue's head: its fields, its slot (one-hot) and whether its older
/// dependences are done in this lane.
struct Head {
    cmdq: Fifo,
    fields: Vec<(&'static str, Value)>,
    slot: Value,
    cleared: Value,
}

impl Head {
    fn get(&self, name: &str) -> &Value {
        &self.fields.iter().find(|f| f.0 == name).expect("field").1
    }
}

/// The entry in work (the head of the banks' read queues, left there until its results
/// are out): the elements left to divide, the written ones, the element in the divider
/// and the results so far.
struct Entry {
    have: Value,
    todo: Value,
    mask: Value,
    in_flight: Value,
    results: Vec<Value>,
    out_valid: Value,
    /// This cycle's request to the divider.
    sent: Value,
}

/// Ports: `lane_id`, the master's `new`/`alloc`/`nvv`, the sequencer's `deps_clear`;
/// `ready` (room for a command), `opnd` (decoupled entries in), `wb` (decoupled results
/// out), `done` (one-hot: the slot whose last result was written), `busy` and `fflags`.
pub fn vfu2(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Vfu2");
    let io = div_io(&mut m, p);
    let head = commands(&mut m, p, &io)?;
    let entry = entry_state(&mut m, p, &io, &head);
    divider(&mut m, p, &io, &head, &entry)?;
    writeback(&mut m, p, &io, &head, &entry);
    m.finish()
}

fn div_io(m: &mut ModuleBuilder, p: &HwachaParams) -> DivIo {
    let n = p.seq_entries;
    DivIo {
        lane: m.input("lane_id", lane_id_bits(p)),
        new: m.io("new", Dir::In, &vinsn()),
        alloc: m.input("alloc", n),
        layout: Layout::inputs(m, p),
        deps_clear: m.input("deps_clear", n),
        ready: m.output("ready", 1),
        opnd: m.io("opnd", Dir::In, &Shape::decoupled(operand_shape(p))),
        wb: m.io("wb", Dir::Out, &Shape::decoupled(writeback_shape(p))),
        done: m.output("done", n),
        busy: m.output("busy", 1),
        fflags: m.output("fflags", 5),
    }
}

/// The command queue: slot, destination, function (the integer divide's funct3 and
/// word, or an FP operation's kind, format and rounding mode), and the entries to
/// expect (every bank's entry of each of the lane's strips), queued at allocation.
fn commands(m: &mut ModuleBuilder, p: &HwachaParams, io: &DivIo) -> Result<Head, HdlErrors> {
    let n = p.seq_entries;
    let sb = addr_width(n as u64).max(1);
    let g = |f: &str| io.new.get(f).value().clone();
    let lvlen = lane_vlen(p, &g("vlen"), &io.lane);
    let strip_log = p.strip().trailing_zeros();
    let ew = eidx_bits(p);
    let round = m.lit(p.strip() as u64 - 1, ew);
    let entries = (&lvlen + &round)
        .shr(strip_log)
        .shl(p.banks.trailing_zeros());
    let rd_w = rd_bits(p);
    let fields = [
        ("slot", sb),
        ("rd", rd_w),
        ("rd_width", 2),
        ("funct3", 3),
        ("word", 1),
        ("fp", 1),
        ("fmt", 2),
        ("rm", 3),
        ("entries", ew),
    ];
    let width = fields.iter().map(|f| f.1).sum();
    let cmdq = Fifo::new(m, p, "cmdq", cmdq_entries(p), width)?;
    let slot = hdl::helpers::onehot_encode(&io.alloc);
    m.connect(
        &cmdq.enq_bits(),
        &cat(&[
            &entries,
            &g("rm"),
            &g("fmt"),
            &g("fn").bit(4),
            &g("word"),
            &g("fn").slice(2, 0),
            &g("rd_width"),
            &g("rd").zext(8.max(rd_w)).slice(rd_w - 1, 0),
            &slot.zext(sb.max(slot.width())).slice(sb - 1, 0),
        ]),
    );
    let zero = m.lit(0, ew);
    let is_div = &g("div") & &lvlen.ne(&zero);
    m.connect(&cmdq.enq_valid(), &(&io.alloc.or_r() & &is_div));
    m.connect(&io.ready, &cmdq.enq_ready());
    let bits = cmdq.deq_bits();
    let mut at = 0;
    let fields: Vec<(&'static str, Value)> = fields
        .iter()
        .map(|&(name, w)| {
            at += w;
            (name, bits.slice(at - 1, at - w))
        })
        .collect();
    let slot = onehot_decode(&fields[0].1, n);
    let cleared = &cmdq.deq_valid() & &(&slot & &io.deps_clear).or_r();
    Ok(Head {
        cmdq,
        fields,
        slot,
        cleared,
    })
}

/// The entry's state. Its operands are not copied: they are read from the banks' read
/// queue head, which stays until the entry completes (the feeder drains in order, so
/// nothing passes it meanwhile). Results are datapath without reset: one leaves only
/// under `mask`, its element's bit, once the divider has answered for it.
fn entry_state(m: &mut ModuleBuilder, p: &HwachaParams, io: &DivIo, head: &Head) -> Entry {
    let s = p.slices();
    let have = m.reg("have", 1, 0u64);
    let todo = m.reg("todo", s, 0u64);
    let mask = m.reg("mask", s, 0u64);
    let results: Vec<Value> = (0..s)
        .map(|j| m.reg(&format!("result{j}"), 64, ResetValue::None))
        .collect();
    // The element in the divider, one-hot (0: none).
    let in_flight = m.reg("in_flight", s, 0u64);
    let out_valid = m.reg("out_valid", 1, 0u64);
    let sent = m.wire("sent", 1);
    let start = &(&(&head.cleared & &!&have) & &!&out_valid) & io.opnd.valid();
    let pred = io.opnd.bits().get("pred").value().clone();
    let next = hdl::helpers::lowest_one(&todo);
    m.when(&start, |m| {
        m.connect(&todo, &pred);
        m.connect(&mask, &pred);
        let one = m.lit(1, 1);
        m.connect(&have, &one);
    })
    .elsewhen(&sent, |m| {
        m.connect(&in_flight, &next);
        m.connect(&todo, &(&todo & &!&next));
    });
    Entry {
        have,
        todo,
        mask,
        in_flight,
        results,
        out_valid,
        sent,
    }
}

/// The iterative units: the lowest element still to divide goes next, to the integer
/// divider (Rocket's `MulDiv`) or its format's FP divider, and its result back into its
/// register.
fn divider(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &DivIo,
    head: &Head,
    e: &Entry,
) -> Result<(), HdlErrors> {
    let s = p.slices();
    let unit = m.instance(
        "idiv",
        &muldiv(&MulDivParams {
            // Only divides reach it: the multiplier is the smallest one.
            mul: MulKind::Iterative,
            mul_bits_per_cycle: 1,
            mul_early_out: false,
            mul_stages: 1,
            div_bits_per_cycle: p.idiv_bits_per_cycle,
            div_early_out: false,
            adders: crate::arith::adder::Style::Inferred,
            registered_result: false,
        })?,
    );
    let zero1 = m.lit(0, 1);
    m.connect(&unit.port("kill"), &zero1);
    let next = hdl::helpers::lowest_one(&e.todo);
    let none_s = m.lit(0, s);
    let idle = e.in_flight.eq(&none_s);
    let pick = |name: &str| {
        let v = io.opnd.bits().get(name).value();
        let parts: Vec<Value> = (0..s).map(|j| v.slice(64 * j + 63, 64 * j)).collect();
        hdl::helpers::onehot_mux(&next, &parts)
    };
    let (a, b) = (pick("a"), pick("b"));
    let want = &(&e.have & &idle) & &e.todo.ne(&none_s);
    let fp = head.get("fp").clone();
    let req = unit.io("req");
    m.connect(req.valid(), &(&want & &!&fp));
    m.connect(req.bits().get("funct3").value(), head.get("funct3"));
    m.connect(req.bits().get("word").value(), head.get("word"));
    m.connect(req.bits().get("in1").value(), &a);
    m.connect(req.bits().get("in2").value(), &b);
    let resp = unit.io("resp");
    let one1 = m.lit(1, 1);
    m.connect(resp.ready(), &one1);
    // The FP dividers: one per format; the one of the command's format takes it.
    let fp_req = FpDivRequest {
        valid: &want & &fp,
        fmt: head.get("fmt").clone(),
        sqrt: head.get("funct3").bit(0),
        rm: head.get("rm").clone(),
        a,
        b,
    };
    let FpDividers {
        taken: fp_taken,
        done: fp_done,
        result: fp_result,
        flags,
    } = fp_dividers(m, p, &fp_req)?;
    m.connect(&io.fflags, &flags);
    m.connect(&e.sent, &(&req.fire() | &fp_taken));
    let answered = &resp.fire() | &fp_done;
    let result = fp_done.mux(&fp_result, resp.bits().get("data").value());
    m.when(&answered, |m| {
        for (j, r) in e.results.iter().enumerate() {
            m.when(&e.in_flight.bit(j as u32), |m| m.connect(r, &result));
        }
        let none = m.lit(0, s);
        m.connect(&e.in_flight, &none);
    });
    Ok(())
}

/// A divide or square root for [`fp_dividers`]: `fmt` (`uop::fmt`) picks the divider,
/// `sqrt` the operation (`fpu::divsqrt::OP_SQRT`), `a` and `b` hold the operands in
/// their low bits.
pub(crate) struct FpDivRequest {
    pub valid: Value,
    pub fmt: Value,
    pub sqrt: Value,
    pub rm: Value,
    pub a: Value,
    pub b: Value,
}

/// What [`fp_dividers`] answers: the request `taken` this cycle; a result `done`, its
/// value sign-extended to 64 bits and its exception flags (zero unless `done`).
pub(crate) struct FpDividers {
    pub taken: Value,
    pub done: Value,
    pub result: Value,
    pub flags: Value,
}

/// The FP dividers, one `fpu::divsqrt` per format (`fdiv_d`, `fdiv_s`, `fdiv_h`), of
/// `idiv_bits_per_cycle` quotient bits a cycle, their results always taken: VFU2's, and
/// the scalar FPU's (`scalar/fpu.rs`).
pub(crate) fn fp_dividers(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    req: &FpDivRequest,
) -> Result<FpDividers, HdlErrors> {
    let one = m.lit(1, 1);
    let (mut taken, mut done) = (m.lit(0, 1), m.lit(0, 1));
    let (mut result, mut flags) = (m.lit(0, 64), m.lit(0, 5));
    for (code, f) in FORMATS {
        let w = f.width();
        let u = m.instance(
            &format!("fdiv_{}", f.name()),
            &divsqrt(f, p.idiv_bits_per_cycle)?,
        );
        let mine = &req.valid & &req.fmt.eq(&req.fmt.konst(hdl::Bits::from_u64(2, code)));
        m.connect(&u.port("in_valid"), &mine);
        m.connect(&u.port("op"), &req.sqrt);
        m.connect(&u.port("rm"), &req.rm);
        m.connect(&u.port("a"), &req.a.slice(w - 1, 0));
        m.connect(&u.port("b"), &req.b.slice(w - 1, 0));
        m.connect(&u.port("out_ready"), &one);
        taken = &taken | &(&mine & &u.port("in_ready"));
        let out = u.port("out_valid");
        done = &done | &out;
        result = &result | &(&out.repeat(64) & &sext(&u.port("result"), w));
        flags = &flags | &(&out.repeat(5) & &u.port("flags"));
    }
    Ok(FpDividers {
        taken,
        done,
        result,
        flags,
    })
}

/// Completion: once nothing is left to divide the entry leaves the read queue and its
/// results go to the bank's write queue (an entry without active elements writes
/// nothing); the command retires with its last entry.
fn writeback(m: &mut ModuleBuilder, p: &HwachaParams, io: &DivIo, head: &Head, e: &Entry) {
    let s = p.slices();
    let ew = eidx_bits(p);
    // Entries of the head command finished so far.
    let group = m.reg("group", ew, 0u64);
    let none_s = m.lit(0, s);
    let idle = e.in_flight.eq(&none_s);
    let complete = &(&(&e.have & &e.todo.eq(&none_s)) & &idle) & &!&e.sent;
    m.connect(io.opnd.ready(), &complete);
    let empty = e.mask.eq(&none_s);
    let retire_empty = &complete & &empty;
    m.when(&complete, |m| {
        let zero = m.lit(0, 1);
        m.connect(&e.have, &zero);
        m.connect(&e.out_valid, &!&empty);
    });
    let place = group_place(p, &io.layout, &group, head.get("rd"));
    m.connect(io.wb.valid(), &e.out_valid);
    let wbits = io.wb.bits();
    m.connect(wbits.get("bank").value(), &place.bank);
    m.connect(wbits.get("row").value(), &place.row);
    connect_packing(m, p, wbits, &place.cls, &place.sub);
    m.connect(
        wbits.get("data").value(),
        &cat(&e.results.iter().rev().collect::<Vec<_>>()),
    );
    m.connect(wbits.get("mask").value(), &e.mask);
    m.connect(wbits.get("width").value(), head.get("rd_width"));
    let written = io.wb.fire();
    m.when(&written, |m| {
        let zero = m.lit(0, 1);
        m.connect(&e.out_valid, &zero)
    });
    // An entry retires when written (or at once when empty); the command with its last.
    let retired = &written | &retire_empty;
    let next_group = &group + &m.lit(1, ew);
    let last = &retired & &next_group.eq(head.get("entries"));
    let zero = m.lit(0, ew);
    m.when(&retired, |m| {
        m.connect(&group, &last.mux(&zero, &next_group))
    });
    m.connect(&head.cmdq.deq_ready(), &last);
    let none_n = m.lit(0, p.seq_entries);
    m.connect(&io.done, &last.mux(&head.slot, &none_n));
    m.connect(
        &io.busy,
        &(&head.cmdq.nonempty() | &(&e.have | &e.out_valid)),
    );
}
