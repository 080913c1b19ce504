//! One bank of the lane's systolic datapath (Figures 8.6, 8.7): a 1R1W SRAM slice of the
//! vector register file, a slice of the predicate register file (three read ports: the
//! guard, which vpop does not have, doubles as vpop's first source; one write port), two
//! operand latches, the local ALU and PLU, the bank's port onto the operand crossbar, and
//! the write-back mux.
//!
//! Micro-ops arrive from the expander (bank 0) or the previous bank and leave registered
//! to the next bank, so bank `b` executes every micro-op `b` cycles after bank 0. Timing
//! of one micro-op at this bank: `read` presents the row to the SRAM, whose data is
//! latched the next cycle; `fop` reads the latches (or scalar operands) and the
//! predicates and starts its unit; `write` takes the unit's result the cycle the
//! expander placed it at (the unit's latency after the fop).

use super::alu::alu;
use super::plu::plu;
use super::regmap::{cls, is_packed, packed_granules, pred_repack, pred_unpack, repack, unpack};
use super::uop::{
    fop_uop, max_group, read_uop, result, result_lines, unit, uop_regs, write_trace, write_uop,
    xbar, VFUS,
};
use crate::hwacha::params::HwachaParams;
use crate::hwacha::vmu::Fifo;
use hdl::helpers::onehot_mux;
use hdl::ir::addr_width;
use hdl::{
    cat, Bits, Bundle, Dir, HdlErrors, Mem, MemStyle, Module, ModuleBuilder, ResetValue, Shape,
    Value,
};
use std::rc::Rc;

/// `b` delayed by `stages` registers without reset: a unit's result, written only by a
/// valid write micro-op, which comes after the unit's valid fop.
fn delay(m: &mut ModuleBuilder, name: &str, shape: &Shape, b: &Bundle, stages: u32) -> Bundle {
    let mut cur = b.clone();
    for i in 0..stages {
        let r = m.reg_bundle_no_reset(&format!("{name}_{i}"), shape);
        m.connect_bundle(&r, &cur);
        cur = r;
    }
    cur
}

/// The S 64-bit slices of a bank entry, slice 0 in the low bits.
fn slices(v: &Value, s: u32) -> Vec<Value> {
    (0..s).map(|i| v.slice(64 * i + 63, 64 * i)).collect()
}

/// Concatenates slices given slice 0 first.
fn join(parts: &[Value]) -> Value {
    cat(&parts.iter().rev().collect::<Vec<_>>())
}

/// A bank read queue entry, low field first: both operands, the guard mask, which
/// elements exist, whether operand 2 (store data) and operand 1 (indices) are wanted, and
/// whether the entry is a reduction's or a divide's.
fn brq_fields(p: &HwachaParams) -> [(&'static str, u32); 8] {
    let (w, s) = (p.bank_width, p.slices());
    [
        ("a", w),
        ("b", w),
        ("pred", s),
        ("exists", s),
        ("data_v", 1),
        ("index_v", 1),
        ("red", 1),
        ("div", 1),
    ]
}

fn brq_bits(p: &HwachaParams) -> u32 {
    brq_fields(p).iter().map(|f| f.1).sum()
}

pub fn brq_shape(p: &HwachaParams) -> Shape {
    Shape::bundle(
        brq_fields(p)
            .iter()
            .map(|&(n, w)| Shape::field(n, Shape::UInt(w)))
            .collect(),
    )
}

/// A bank write queue entry's fields, low first: a load's group for `row` (narrowed to
/// `width`, as `write_uop`'s; with mixed precision in subword `sub` of class `cls`).
fn bwq_fields(p: &HwachaParams) -> Vec<(&'static str, u32)> {
    let mut v = vec![
        ("row", addr_width(p.bank_entries as u64)),
        ("data", p.bank_width),
        ("mask", p.slices()),
        ("width", 2),
    ];
    if p.mixed_precision {
        v.extend([("cls", 2), ("sub", 2)]);
    }
    v
}

pub fn bwq_shape(p: &HwachaParams) -> Shape {
    Shape::bundle(
        bwq_fields(p)
            .into_iter()
            .map(|(n, w)| Shape::field(n, Shape::UInt(w)))
            .collect(),
    )
}

/// Bits of a bank write queue's occupancy (`bwq_count`).
pub fn bwq_count_bits(p: &HwachaParams) -> u32 {
    addr_width(p.bwq_entries as u64 + 1)
}

/// The bank's ports (typed bundle of its interface).
struct BankIo {
    bank_id: Value,
    read: Bundle,
    fop: Bundle,
    write: Bundle,
    /// The crossbar ports, VFU0 and VFU1.
    xbar_out: [Bundle; VFUS],
    /// The crossbar units' results (`uop::result_lines`, in its order).
    results: Vec<Bundle>,
    vrf_trace: Bundle,
    brq_out: Bundle,
    bwq_in: Bundle,
    bwq_count: Value,
    bwq_deq: Value,
    prf_trace: Bundle,
}

/// The fop stage's operands and results.
struct FopStage {
    a: Value,
    b: Value,
    c: Value,
    prf: Mem,
    mask: Value,
    present: Value,
    alu_res: Bundle,
    plu_res: Bundle,
}

/// The bank write queue's head, split into its fields.
struct QueuedWrite {
    /// The head is written this cycle (the schedule leaves the port free).
    from_bwq: Value,
    q_row: Value,
    q_data: Value,
    q_mask: Value,
    q_width: Value,
    /// Mixed precision: the class and subword written.
    q_packing: Option<(Value, Value)>,
}

/// One bank: the read, fop and write stages of Figure 8.7 around its SRAM slice. The
/// last bank (`last`, module `BankLast`) passes no micro-op on: it has no `next_*` ports
/// and registers.
pub fn bank(p: &HwachaParams, last: bool) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(if last { "BankLast" } else { "Bank" });
    let io = bank_io(&mut m, p, last);
    let (vrf, opl) = sram_read(&mut m, p, &io);
    let fs = fop_stage(&mut m, p, &io, &opl);
    crossbar_port(&mut m, &io, &fs, p.mixed_precision);
    readout_queue(&mut m, p, &io, &fs, &opl)?;
    let qw = write_queue(&mut m, p, &io)?;
    write_back(&mut m, p, &io, &vrf, &fs, &qw);
    m.finish()
}

/// The bank's ports, and (unless `last`) the micro-op registers passing each stage on to
/// the next bank.
fn bank_io(m: &mut ModuleBuilder, p: &HwachaParams, last: bool) -> BankIo {
    let s = p.slices();
    let id_bits = addr_width(p.banks as u64).max(1);
    let bank_id = m.input("bank_id", id_bits);
    let (read_s, fop_s, write_s) = (read_uop(p), fop_uop(p), write_uop(p));
    let read = m.io("read", Dir::In, &read_s);
    let fop = m.io("fop", Dir::In, &fop_s);
    let write = m.io("write", Dir::In, &write_s);
    let next = [
        ("next_read", &read_s, &read),
        ("next_fop", &fop_s, &fop),
        ("next_write", &write_s, &write),
    ];
    for (name, shape, b) in next.into_iter().filter(|_| !last) {
        let out = m.io(name, Dir::Out, shape);
        let r = uop_regs(m, name, shape);
        m.connect_bundle(&r, b);
        m.connect_bundle(&out, &r);
    }
    let xbar_out = [0, 1].map(|v| m.io(&format!("xbar{v}"), Dir::Out, &xbar(p)));
    let results = result_lines()
        .iter()
        .map(|(name, ..)| m.io(&format!("{name}_result"), Dir::In, &result(p)))
        .collect();
    let row_w = addr_width(p.bank_entries as u64);
    let prow_w = addr_width(p.pred_entries as u64);
    let vrf_trace = m.io("vrf_w", Dir::Out, &write_trace(p, row_w, p.bank_width));
    let brq_out = m.io("brq", Dir::Out, &Shape::decoupled(brq_shape(p)));
    let bwq_in = m.io("bwq", Dir::In, &Shape::decoupled(bwq_shape(p)));
    // The writes queued, and the one leaving for the SRAM this cycle.
    let bwq_count = m.output("bwq_count", bwq_count_bits(p));
    let bwq_deq = m.output("bwq_deq", 1);
    let prf_trace = m.io("prf_w", Dir::Out, &write_trace(p, prow_w, s));
    BankIo {
        bank_id,
        read,
        fop,
        write,
        xbar_out,
        results,
        vrf_trace,
        brq_out,
        bwq_in,
        bwq_count,
        bwq_deq,
        prf_trace,
    }
}

/// The read stage: the SRAM slice and its three operand latches. Returns the SRAM and the
/// latches.
fn sram_read(m: &mut ModuleBuilder, p: &HwachaParams, io: &BankIo) -> (Mem, Vec<Value>) {
    let read = &io.read;
    // sram-read, then opl into latch `idx` the next cycle.
    let vrf = m.mem("vrf", p.bank_entries as u64, p.bank_width, MemStyle::Sram);
    let rdata = m.read_sync(&vrf, read.get("row").value(), read.get("valid").value());
    let latch_valid = m.reg("latch_valid", 1, 0u64);
    // The latches and their index are datapath: a fop reads a latch only after the
    // valid read it scheduled into it.
    let latch_idx = m.reg("latch_idx", 2, ResetValue::None);
    m.connect(&latch_valid, read.get("valid").value());
    m.connect(&latch_idx, read.get("idx").value());
    // Mixed precision: the subword of the read's class, sign-extended (`regmap`), or
    // for a packed operation the row as it is.
    let rdata = if p.mixed_precision {
        let [c, sub, pk] = ["cls", "sub", "pk"].map(|f| {
            let r = m.reg(&format!("latch_{f}"), 2, ResetValue::None);
            m.connect(&r, read.get(f).value());
            r
        });
        is_packed(&pk).mux(&rdata, &unpack(&rdata, &c, &sub))
    } else {
        rdata
    };
    let opl: Vec<Value> = (0..3)
        .map(|i| {
            let r = m.reg(&format!("opl{i}"), p.bank_width, ResetValue::None);
            let this = &latch_valid & &latch_idx.eq(&latch_idx.konst(Bits::from_u64(2, i)));
            m.when(&this, |m| m.connect(&r, &rdata));
            r
        })
        .collect();
    (vrf, opl)
}

/// A scalar operand in every element of a slice: the 64-bit value, or for a packed
/// operation of class `pk` its low 32 or 16 bits in every subword.
fn scalar_slice(x: &Value, pk: Option<&Value>) -> Value {
    match pk {
        None => x.clone(),
        Some(pk) => {
            let w = x.slice(31, 0).repeat(2);
            let h = x.slice(15, 0).repeat(4);
            let c = |v| pk.eq(&pk.konst(Bits::from_u64(cls::WIDTH, v)));
            c(cls::H).mux(&h, &c(cls::W).mux(&w, x))
        }
    }
}

/// The element mask of an operation at this bank (`uop::mask_bits`): elements that
/// exist (below `count`: subword `j`'s element `i` is element `j * strip + first + i`
/// of the operation) and pass the guard (the predicate entry's strip `psub + j`); a
/// packed operation has the subwords of its class, any other only subword 0. Returns
/// (mask, exists of subword 0, the guard entry's subword 0).
fn element_mask(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &BankIo,
    entry: &Value,
) -> (Value, Value, Value) {
    let s = p.slices();
    let f = |n: &str| io.fop.get(n).value().clone();
    let first = io.bank_id.zext(32).shl(s.trailing_zeros());
    let groups = max_group(p) as u32;
    let (mut mask, mut present) = (vec![], vec![]);
    let mut guard0 = None;
    for j in 0..groups {
        let (guard, here) = if p.mixed_precision {
            let psub = &f("psub") + &m.lit(j as u64, 2);
            let pk = f("pk");
            let c = |v| pk.eq(&pk.konst(Bits::from_u64(cls::WIDTH, v)));
            let here = match j {
                0 => m.lit(1, 1),
                1 => is_packed(&pk),
                _ => c(cls::H),
            };
            (pred_unpack(entry, &psub, s), here)
        } else {
            (entry.clone(), m.lit(1, 1))
        };
        for i in 0..s {
            let element = &first + &m.lit((j * p.strip() + i) as u64, 32);
            let exists = &element.lt(&f("count").zext(32)) & &here;
            let guarded = &guard.bit(i) ^ &f("pred_neg");
            mask.push(&exists & &(!&f("pred_on") | &guarded));
            if j == 0 {
                present.push(exists);
            }
        }
        guard0.get_or_insert(guard);
    }
    (join(&mask), join(&present), guard0.expect("a subword"))
}

/// The fop stage: operands, the predicate file's reads, the guard mask, and the local
/// ALU and PLU with their pipeline registers.
fn fop_stage(m: &mut ModuleBuilder, p: &HwachaParams, io: &BankIo, opl: &[Value]) -> FopStage {
    let s = p.slices();
    // fop: operands (latched, or the scalar in every slice: the fop's scalars are packed,
    // `uop::fop_uop`), predicates, mask.
    let f = |n: &str| io.fop.get(n).value().clone();
    let (v1, v2) = (f("rs1_v"), f("rs2_v"));
    let pk = p.mixed_precision.then(|| f("pk"));
    let every = |x: &Value| scalar_slice(x, pk.as_ref()).repeat(s);
    let a = v1.mux(&opl[0], &every(&f("s1")));
    let b = v2.mux(&opl[1], &every(&v1.mux(&f("s1"), &f("s2"))));
    let third = (&v1 & &v2).mux(&f("s1"), &(&v1 | &v2).mux(&f("s2"), &f("s3")));
    let c = f("rs3_v").mux(&opl[2], &every(&third));
    // Three read ports: the guard, which is the PLU's first source (`uop::fop_uop`),
    // and the PLU's other two sources.
    // Mixed precision: four strips per entry, the fop's strip at `psub`.
    let packing = if p.mixed_precision { 4 } else { 1 };
    let prf = m.mem(
        "prf",
        p.pred_entries as u64,
        packing * s,
        MemStyle::Inferred,
    );
    let pread = |m: &mut ModuleBuilder, row: &Value| {
        let entry = m.read(&prf, row);
        if p.mixed_precision {
            pred_unpack(&entry, &f("psub"), s)
        } else {
            entry
        }
    };
    let guard_entry = m.read(&prf, &f("pred"));
    let (mask, present, guard) = element_mask(m, p, io, &guard_entry);
    let ps: Vec<Value> = std::iter::once(guard)
        .chain(["ps2", "ps3"].iter().map(|n| pread(m, &f(n))))
        .collect();
    let first = io.bank_id.zext(32).shl(s.trailing_zeros());
    let (mut alu_out, mut plu_out) = (vec![], vec![]);
    for (i, (ai, bi)) in slices(&a, s).iter().zip(slices(&b, s)).enumerate() {
        let element = &first + &m.lit(i as u64, 32);
        // The global index of an element that exists is below the vector length, so
        // within the fop's `eidx` width (`uop::eidx_bits`).
        let index = &f("eidx") + &element.slice(f("eidx").width() - 1, 0);
        alu_out.push(alu(&f("fn"), &f("word"), ai, &bi, &index));
        let bit = plu(
            &f("table"),
            &ps[0].bit(i as u32),
            &ps[1].bit(i as u32),
            &ps[2].bit(i as u32),
        );
        plu_out.push(bit.zext(64));
    }
    let res_s = result(p);
    let unit_result = |m: &mut ModuleBuilder, name: &str, data: &[Value], stages: u32| {
        let w = m.wire_bundle(name, &res_s);
        m.connect(w.get("data").value(), &join(data));
        m.connect(
            w.get("mask").value(),
            &mask.slice(s - 1, 0).zext(mask.width()),
        );
        delay(m, name, &res_s, &w, stages)
    };
    let alu_res = unit_result(m, "alu", &alu_out, p.stages_alu);
    let plu_res = unit_result(m, "plu", &plu_out, p.stages_plu);
    FopStage {
        a,
        b,
        c,
        prf,
        mask,
        present,
        alu_res,
        plu_res,
    }
}

/// The bank's ports onto the operand crossbar (to the shared functional units): the
/// operation goes out on its unit's VFU port.
fn crossbar_port(m: &mut ModuleBuilder, io: &BankIo, fs: &FopStage, packed: bool) {
    let f = |n: &str| io.fop.get(n).value().clone();
    for (v, port) in io.xbar_out.iter().enumerate() {
        let xb = port.bits();
        let mine = (0..1u64 << unit::WIDTH)
            .filter(|&u| unit::on_crossbar(u) && unit::vfu(u) == v)
            .fold(m.lit(0, 1), |acc, u| &acc | &unit::is(&f("unit"), u));
        m.connect(port.valid(), &(&f("valid") & &mine));
        for (name, value) in [("a", &fs.a), ("b", &fs.b), ("c", &fs.c), ("mask", &fs.mask)] {
            m.connect(xb.get(name).value(), value);
        }
        let packing = packed.then_some("pk");
        for name in ["unit", "fn", "word", "rm", "fmt"]
            .into_iter()
            .chain(packing)
        {
            m.connect(xb.get(name).value(), &f(name));
        }
    }
}

/// The bank read queue (BRQ): fop-stage readouts for the VMU, the divider and the
/// reducer.
fn readout_queue(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &BankIo,
    fs: &FopStage,
    opl: &[Value],
) -> Result<(), HdlErrors> {
    let f = |n: &str| io.fop.get(n).value().clone();
    let (a, b, brq_out) = (&fs.a, &fs.b, &io.brq_out);
    // fop-brq: a readout for the VMU. The sequencer has reserved the entry.
    let brq_q = Fifo::new(m, p, "brq_q", p.brq_entries, brq_bits(p))?;
    m.connect(
        &brq_q.enq_valid(),
        &(&f("valid") & &unit::is(&f("unit"), unit::MEM)),
    );
    // Indices come from operand 1 when it is a register, else they are 0 (the base is
    // the whole address); store and AMO data from operand 2, register or scalar.
    // A divide's dividend (register or scalar) travels as the indices do.
    let zero = m.lit(0, p.bank_width);
    let indices = f("div").mux(a, &f("rs1_v").mux(&opl[0], &zero));
    // A reduction's operand (vfirst's source) travels as the indices do.
    let store_data = f("mem_op").ne(&m.lit(0, 2));
    let indexed = f("mode").eq(&m.lit(2, 2));
    let reduction = f("red").ne(&m.lit(0, 2));
    let entry = cat(&[
        &f("div"),
        &reduction,
        &indexed,
        &store_data,
        &fs.present,
        &fs.mask.slice(p.slices() - 1, 0),
        b,
        &indices,
    ]);
    m.connect(&brq_q.enq_bits(), &entry);
    let head = brq_q.deq_bits();
    let mut at = 0;
    for (name, width) in brq_fields(p) {
        m.connect(
            brq_out.bits().get(name).value(),
            &head.slice(at + width - 1, at),
        );
        at += width;
    }
    m.connect(brq_out.valid(), &brq_q.deq_valid());
    m.connect(&brq_q.deq_ready(), brq_out.ready());
    Ok(())
}

/// The bank write queue (BWQ): load results waiting for a free write port.
fn write_queue(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &BankIo,
) -> Result<QueuedWrite, HdlErrors> {
    let s = p.slices();
    let row_w = addr_width(p.bank_entries as u64);
    let (bwq_in, write) = (&io.bwq_in, &io.write);
    let fields = bwq_fields(p);
    let bits = fields.iter().map(|f| f.1).sum();
    let bwq_q = Fifo::new(m, p, "bwq_q", p.bwq_entries, bits)?;
    m.connect(&bwq_q.enq_valid(), bwq_in.valid());
    m.connect(bwq_in.ready(), &bwq_q.enq_ready());
    let parts: Vec<&Value> = fields
        .iter()
        .rev()
        .map(|(n, _)| bwq_in.bits().get(n).value())
        .collect();
    m.connect(&bwq_q.enq_bits(), &cat(&parts));
    let queued = bwq_q.deq_bits();
    let from_bwq = &bwq_q.deq_valid() & &!write.get("valid").value();
    m.connect(&bwq_q.deq_ready(), &from_bwq);
    m.connect(&io.bwq_count, &bwq_q.count());
    m.connect(&io.bwq_deq, &from_bwq);
    let mut at = 0;
    let mut field = |w: u32| {
        at += w;
        queued.slice(at - 1, at - w)
    };
    let (q_row, q_data, q_mask, q_width) = (field(row_w), field(p.bank_width), field(s), field(2));
    let q_packing = p.mixed_precision.then(|| (field(2), field(2)));
    Ok(QueuedWrite {
        from_bwq,
        q_row,
        q_data,
        q_mask,
        q_width,
        q_packing,
    })
}

/// The write stage (sram-write / pred-write): the write-back mux, narrowing, and the
/// register files' write ports and traces.
fn write_back(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    io: &BankIo,
    vrf: &Mem,
    fs: &FopStage,
    qw: &QueuedWrite,
) {
    let s = p.slices();
    let row_w = addr_width(p.bank_entries as u64);
    let prow_w = addr_width(p.pred_entries as u64);
    let from_bwq = &qw.from_bwq;
    // sram-write / pred-write: the unit's result, or (when the schedule leaves the port
    // free) the bank write queue's head; narrowed to the register's width and
    // sign-extended (narrow registers read back sign-extended).
    let w = |n: &str| io.write.get(n).value().clone();
    let (src, fmt) = (w("src"), w("fmt"));
    // The unit's result: an AND-OR by the one-hot source (the ALU's for any other unit):
    // the crossbar units' lines (an FMA's by format), the PLU's, the ALU's.
    let mut sel: Vec<Value> = result_lines()
        .iter()
        .map(|&(_, u, pipe)| {
            let of_unit = unit::is(&src, u);
            match pipe {
                Some(code) => &of_unit & &fmt.eq(&fmt.konst(Bits::from_u64(2, code))),
                None => of_unit,
            }
        })
        .collect();
    let plu = unit::is(&src, unit::PLU);
    let crossbar = sel.iter().fold(plu.clone(), |acc, s| &acc | s);
    sel.extend([plu, !&crossbar]);
    let from = cat(&sel.iter().rev().collect::<Vec<_>>());
    let pick = |field: &str| {
        let results: Vec<Value> = (io.results.iter().chain([&fs.plu_res, &fs.alu_res]))
            .map(|r| r.get(field).value().clone())
            .collect();
        onehot_mux(&from, &results)
    };
    let (unit_data, unit_mask) = (pick("data"), pick("mask"));
    let (data, wmask) = (
        from_bwq.mux(&qw.q_data, &unit_data),
        from_bwq.mux(&qw.q_mask, &unit_mask.slice(s - 1, 0)),
    );
    let width = from_bwq.mux(&qw.q_width, &w("width"));
    let narrowed: Vec<Value> = slices(&data, s)
        .iter()
        .map(|d| {
            let w32 = d.slice(31, 0).as_signed().sext(64).as_unsigned();
            let w16 = d.slice(15, 0).as_signed().sext(64).as_unsigned();
            width.bit(1).mux(&w16, &width.bit(0).mux(&w32, d))
        })
        .collect();
    let data = join(&narrowed);
    let bits = join(
        &slices(&data, s)
            .iter()
            .map(|d| d.bit(0))
            .collect::<Vec<_>>(),
    );
    let to_vrf = &(&w("valid") & &!&w("pred")) | from_bwq;
    let to_prf = &w("valid") & &w("pred");
    let row = from_bwq.mux(&qw.q_row.zext(w("row").width()), &w("row"));
    // Mixed precision: repacked into the class's subword, under a 16-bit-granule mask;
    // a packed operation's result is already its whole row, packed.
    let packing = qw.q_packing.as_ref().map(|(q_cls, q_sub)| {
        let c = from_bwq.mux(q_cls, &w("cls"));
        let sub = from_bwq.mux(q_sub, &w("sub"));
        let zero = m.lit(cls::D, cls::WIDTH);
        let pk = (&w("valid") & &is_packed(&w("pk"))).mux(&w("pk"), &zero);
        (c, sub, pk)
    });
    let (vrf_data, vrf_mask, prf_bits, prf_mask) = match &packing {
        Some((c, sub, pk)) => {
            let (d, dm) = repack(&data, &wmask, c, sub);
            let packed = is_packed(pk);
            let d = packed.mux(&unit_data, &d);
            let dm = packed.mux(&packed_granules(&unit_mask, pk, s), &dm);
            let all = c.eq(&c.konst(Bits::from_u64(cls::WIDTH, cls::D)));
            let (b, bm) = pred_repack(&bits, &wmask, sub, &all);
            (d, dm, b, bm)
        }
        None => (data.clone(), wmask.clone(), bits.clone(), wmask.clone()),
    };
    m.when(&to_vrf, |m| {
        m.write_masked(vrf, &row.slice(row_w - 1, 0), &vrf_data, &vrf_mask)
    });
    m.when(&to_prf, |m| {
        m.write_masked(&fs.prf, &row.slice(prow_w - 1, 0), &prf_bits, &prf_mask)
    });
    // The traces: a packed write's row as written, with every subword's mask.
    let (vrf_d, vrf_m, vrf_pk) = match &packing {
        Some((_, _, pk)) => {
            let packed = is_packed(pk);
            let d = packed.mux(&unit_data, &data);
            (
                d,
                packed.mux(&unit_mask, &wmask.zext(unit_mask.width())),
                pk.clone(),
            )
        }
        None => (data.clone(), wmask.clone(), m.lit(cls::D, cls::WIDTH)),
    };
    let prf_pk = m.lit(cls::D, cls::WIDTH);
    for (t, en, r, d, mask, pk) in [
        (
            &io.vrf_trace,
            &to_vrf,
            row.slice(row_w - 1, 0),
            &vrf_d,
            vrf_m,
            &vrf_pk,
        ),
        (
            &io.prf_trace,
            &to_prf,
            row.slice(prow_w - 1, 0),
            &bits,
            wmask.zext(unit_mask.width()),
            &prf_pk,
        ),
    ] {
        m.connect(t.valid(), en);
        m.connect(t.bits().get("row").value(), &r);
        m.connect(t.bits().get("data").value(), d);
        m.connect(t.bits().get("mask").value(), &mask);
        if let Some((c, sub, _)) = &packing {
            m.connect(t.bits().get("cls").value(), c);
            m.connect(t.bits().get("sub").value(), sub);
            m.connect(t.bits().get("pk").value(), pk);
        }
    }
}
