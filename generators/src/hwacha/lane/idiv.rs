//! The lane's integer divide unit (IDiv, on VFU2 in Figure 8.6; sequencer operations VQU
//! and VIDU of Table 8.4). A divide's operands leave the banks as a readout, like a
//! memory instruction's and in program order with them, through the banks' read queues;
//! the lane's memory side hands this unit the divide's entries. Each entry's active
//! elements are divided one at a time by an iterative divider (Rocket's `MulDiv`,
//! `idiv_bits_per_cycle` quotient bits a cycle), and the entry's results go to its bank's
//! write queue, written whenever the bank's write port is free, as loads are. The lane
//! sequencer keeps the slot pending until the last entry is written (`done`).
//!
//! Commands are queued at allocation. A command takes entries only once every older
//! operation it depends on is done in this lane (`deps_clear`): its late writes then
//! cannot be overtaken by an older write to the same rows.

use super::bank::bwq_shape;
use super::memory::group_row;
use super::sequencer::{lane_id_bits, lane_vlen};
use super::uop::{eidx_bits, row_bits, vinsn};
use crate::hwacha::master::NVV_BITS;
use crate::hwacha::params::HwachaParams;
use crate::hwacha::vmu::Fifo;
use crate::rocket::muldiv::muldiv;
use crate::rocket::params::{MulDivParams, MulKind};
use hdl::helpers::onehot_decode;
use hdl::ir::addr_width;
use hdl::{cat, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value};
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

/// Ports: `lane_id`, the master's `new`/`alloc`/`nvv`, the sequencer's `deps_clear`;
/// `ready` (room for a command), `opnd` (decoupled entries in), `wb` (decoupled results
/// out), `done` (one-hot: the slot whose last result was written) and `busy`.
pub fn idiv(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("IDiv");
    let n = p.seq_entries;
    let s = p.slices();
    let lane = m.input("lane_id", lane_id_bits(p));
    let new = m.io("new", Dir::In, &vinsn());
    let alloc = m.input("alloc", n);
    let nvv = m.input("nvv", NVV_BITS);
    let deps_clear = m.input("deps_clear", n);
    let ready = m.output("ready", 1);
    let opnd = m.io("opnd", Dir::In, &Shape::decoupled(operand_shape(p)));
    let wb = m.io("wb", Dir::Out, &Shape::decoupled(writeback_shape(p)));
    let done = m.output("done", n);
    let busy = m.output("busy", 1);

    // Commands: slot, destination, function, and the entries to expect (every bank's
    // entry of each of the lane's strips).
    let sb = addr_width(n as u64).max(1);
    let g = |f: &str| new.get(f).value().clone();
    let lvlen = lane_vlen(p, &g("vlen"), &lane);
    let strip_log = p.strip().trailing_zeros();
    let ew = eidx_bits(p);
    let round = m.lit(p.strip() as u64 - 1, ew);
    let entries = (&lvlen + &round)
        .shr(strip_log)
        .shl(p.banks.trailing_zeros());
    let row_w = row_bits(p);
    let fields = [
        ("slot", sb),
        ("rd", row_w),
        ("rd_width", 2),
        ("funct3", 3),
        ("word", 1),
        ("entries", ew),
    ];
    let cmdq = Fifo::new(&mut m, p, "cmdq", n, fields.iter().map(|f| f.1).sum())?;
    let slot = hdl::helpers::onehot_encode(&alloc);
    m.connect(
        &cmdq.enq_bits(),
        &cat(&[
            &entries,
            &g("word"),
            &g("fn").slice(2, 0),
            &g("rd_width"),
            &g("rd").zext(8.max(row_w)).slice(row_w - 1, 0),
            &slot.zext(sb.max(slot.width())).slice(sb - 1, 0),
        ]),
    );
    let zero = m.lit(0, ew);
    let is_div = &g("div") & &lvlen.ne(&zero);
    m.connect(&cmdq.enq_valid(), &(&alloc.or_r() & &is_div));
    m.connect(&ready, &cmdq.enq_ready());
    let head = cmdq.deq_bits();
    let mut at = 0;
    let h: Vec<(&str, Value)> = fields
        .iter()
        .map(|&(name, w)| {
            at += w;
            (name, head.slice(at - 1, at - w))
        })
        .collect();
    let hf = |name: &str| h.iter().find(|f| f.0 == name).expect("field").1.clone();
    let head_slot = onehot_decode(&hf("slot"), n);
    let cleared = &cmdq.deq_valid() & &(&head_slot & &deps_clear).or_r();

    // The entry in work: operands, elements left to divide, results so far.
    let have = m.reg("have", 1, 0u64);
    // Operands and results are datapath without reset: the operands are read only
    // under `have`, which is set with them, and a result leaves only under `mask`, its
    // element's bit, once the divider has answered for it.
    let (ea, eb) = (
        m.reg("a", p.bank_width, ResetValue::None),
        m.reg("b", p.bank_width, ResetValue::None),
    );
    let todo = m.reg("todo", s, 0u64);
    let mask = m.reg("mask", s, 0u64);
    let results: Vec<Value> = (0..s)
        .map(|j| m.reg(&format!("result{j}"), 64, ResetValue::None))
        .collect();
    // The element in the divider, one-hot (0: none).
    let in_flight = m.reg("in_flight", s, 0u64);
    // Entries of the head command finished so far.
    let group = m.reg("group", ew, 0u64);
    let out_valid = m.reg("out_valid", 1, 0u64);

    let take = &(&cleared & &!&have) & &!&out_valid;
    m.connect(opnd.ready(), &take);
    let taken = &take & opnd.valid();

    let unit = m.instance(
        "divider",
        &muldiv(&MulDivParams {
            // Only divides reach it: the multiplier is the smallest one.
            mul: MulKind::Iterative,
            mul_bits_per_cycle: 1,
            mul_stages: 1,
            div_bits_per_cycle: p.idiv_bits_per_cycle,
            adders: crate::arith::adder::Style::Inferred,
            registered_result: false,
        })?,
    );
    let zero1 = m.lit(0, 1);
    m.connect(&unit.port("kill"), &zero1);
    // The lowest element still to divide goes next.
    let next = hdl::helpers::lowest_one(&todo);
    let none_s = m.lit(0, s);
    let idle = in_flight.eq(&none_s);
    let req = unit.io("req");
    let pick = |v: &Value| {
        let parts: Vec<Value> = (0..s).map(|j| v.slice(64 * j + 63, 64 * j)).collect();
        hdl::helpers::onehot_mux(&next, &parts)
    };
    m.connect(req.valid(), &(&(&have & &idle) & &todo.ne(&none_s)));
    m.connect(req.bits().get("funct3").value(), &hf("funct3"));
    m.connect(req.bits().get("word").value(), &hf("word"));
    m.connect(req.bits().get("in1").value(), &pick(&ea));
    m.connect(req.bits().get("in2").value(), &pick(&eb));
    let resp = unit.io("resp");
    let one1 = m.lit(1, 1);
    m.connect(resp.ready(), &one1);
    let sent = req.fire();
    let back = resp.fire();

    m.when(&taken, |m| {
        let b = opnd.bits();
        m.connect(&ea, b.get("a").value());
        m.connect(&eb, b.get("b").value());
        m.connect(&todo, b.get("pred").value());
        m.connect(&mask, b.get("pred").value());
        m.connect(&have, &one1);
    })
    .elsewhen(&sent, |m| {
        m.connect(&in_flight, &next);
        m.connect(&todo, &(&todo & &!&next));
    })
    .elsewhen(&back, |m| {
        for (j, r) in results.iter().enumerate() {
            m.when(&in_flight.bit(j as u32), |m| {
                m.connect(r, resp.bits().get("data").value())
            });
        }
        let none = m.lit(0, s);
        m.connect(&in_flight, &none);
    });
    // The entry is complete once nothing is left to divide: its results go out (an entry
    // without active elements writes nothing).
    let complete = &(&(&have & &todo.eq(&none_s)) & &idle) & &!&sent;
    let empty = mask.eq(&none_s);
    let retire_empty = &complete & &empty;
    m.when(&complete, |m| {
        m.connect(&have, &zero1);
        m.connect(&out_valid, &!&empty);
    });
    let (bank, row) = group_row(p, &nvv, &group, &hf("rd"));
    m.connect(wb.valid(), &out_valid);
    let wbits = wb.bits();
    m.connect(wbits.get("bank").value(), &bank);
    m.connect(wbits.get("row").value(), &row);
    m.connect(
        wbits.get("data").value(),
        &cat(&results.iter().rev().collect::<Vec<_>>()),
    );
    m.connect(wbits.get("mask").value(), &mask);
    m.connect(wbits.get("width").value(), &hf("rd_width"));
    let written = wb.fire();
    m.when(&written, |m| m.connect(&out_valid, &zero1));
    // An entry retires when written (or at once when empty); the command with its last.
    let retired = &written | &retire_empty;
    let next_group = &group + &m.lit(1, ew);
    let last = &retired & &next_group.eq(&hf("entries"));
    m.when(&retired, |m| {
        m.connect(&group, &last.mux(&zero, &next_group))
    });
    m.connect(&cmdq.deq_ready(), &last);
    let none_n = m.lit(0, n);
    m.connect(&done, &last.mux(&head_slot, &none_n));
    m.connect(&busy, &(&cmdq.nonempty() | &(&have | &out_valid)));
    m.finish()
}
