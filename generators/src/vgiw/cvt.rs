//! The control vector table (seed 004 section 3.3; spec 004 section 2.3): per block a
//! bit vector over the tile's threads, 64-bit words in `cvt_banks` banks (word `addr`
//! in bank `addr mod banks`), each bank a one-read, one-write array (an SRAM macro above
//! the threshold, `crate::memory`) and a valid bit per word in flops.
//!
//! - `rd` (decoupled `addr`): read-and-reset. The word's bits come out on `rd_resp`
//!   the next cycle and the word reads as empty from then on: the reset clears its
//!   valid bit, so it costs no write.
//! - `or` (decoupled `addr`, `bits`): a completion packet's bitmap ORed into the word,
//!   a read-modify-write (an empty word's stale contents read as zeros).
//! - A bank takes one operation a cycle: an OR wins its bank, a read of the same bank
//!   waits (`rd_ready` low). Operations on different banks proceed together.
//! - An operation reads its bank in its first cycle and writes in its second. A read
//!   of the row written in the same cycle takes the written word through a forwarding
//!   register, so back-to-back operations on one word see each other in order.
//! - `clear` empties every word at once (a tile's start), with nothing in flight.

use crate::memory::{self, ArrayPorts};
use crate::vgiw::params::VgiwParams;
use crate::vgiw::uint;
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::{cat, Bits, Dir, HdlErrors, Mem, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

/// Bits of a CVT word (a batch packet's bitmap).
pub const WORD: u32 = 64;

/// A bank's operation in this cycle: whether there is one, whether an OR, its row and
/// bits.
struct Op {
    go: Value,
    is_or: Value,
    row: Value,
    bits: Value,
}

/// Bank `b`: the operation's read this cycle, its write and valid-bit update the next;
/// returns whether a read answers this cycle, and its word.
fn bank(
    m: &mut ModuleBuilder,
    b: u32,
    ram: &Mem,
    rows: u32,
    op: &Op,
    clear: &Value,
) -> (Value, Value) {
    let reg = |m: &mut ModuleBuilder, name: &str, v: &Value, reset: bool| {
        let init = if reset {
            ResetValue::Int(0)
        } else {
            ResetValue::None
        };
        let r = m.reg(&format!("b{b}_{name}"), v.width(), init);
        m.connect(&r, v);
        r
    };
    let valid = reg(m, "valid", &op.go, true);
    let (is_or, row, bits) = (
        reg(m, "or", &op.is_or, false),
        reg(m, "row", &op.row, false),
        reg(m, "bits", &op.bits, false),
    );
    let read = m.read_sync(ram, &op.row, &op.go);
    let words = m.reg(&format!("b{b}_words"), rows, 0u64);
    let written = &valid & &is_or;
    // The word written last cycle, for a read of its row issued then.
    let fwd = reg(m, "fwd", &written, true);
    let fwd_row = reg(m, "fwd_row", &row, false);
    let stored_word = m.reg(&format!("b{b}_fwd_word"), WORD, ResetValue::None);
    let stored = (&fwd & &fwd_row.eq(&row)).mux(&stored_word, &read);
    let word = words
        .dshr(&row)
        .bit(0)
        .mux(&stored, &stored.konst(Bits::zero(WORD)));
    let merged = &word | &bits;
    m.when(&written, |m| m.write(ram, &row, &merged));
    m.connect(&stored_word, &merged);
    // A read empties the word, an OR fills it.
    let hit = &onehot_decode(&row, rows) & &valid.repeat(rows);
    let next = is_or.mux(&(&words | &hit), &(&words & &!&hit));
    m.connect(&words, &clear.mux(&words.konst(Bits::zero(rows)), &next));
    (&valid & &!&is_or, word)
}

/// The CVT module of `p`'s `cvt_words` and `cvt_banks`.
pub fn cvt(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("VgiwCvt");
    let aw = p.cvt_words.trailing_zeros();
    let (banks, bw) = (p.cvt_banks, p.cvt_banks.trailing_zeros());
    let rows = p.cvt_words / banks;
    let addr = |fields: Vec<hdl::Field>| Shape::decoupled(Shape::bundle(fields));
    let rd = m.io("rd", Dir::In, &addr(vec![uint("addr", aw)]));
    let or = m.io(
        "or",
        Dir::In,
        &addr(vec![uint("addr", aw), uint("bits", WORD)]),
    );
    let resp_shape = Shape::valid(Shape::bundle(vec![uint("data", WORD)]));
    let resp = m.io("rd_resp", Dir::Out, &resp_shape);
    let clear = m.input("clear", 1);
    let ra = rd.bits().get("addr").value().clone();
    let oa = or.bits().get("addr").value().clone();
    let bank_of = |a: &Value| match bw {
        0 => a.konst(Bits::zero(1)),
        _ => a.slice(bw - 1, 0),
    };
    let row_of = |a: &Value| match rows {
        1 => a.konst(Bits::zero(1)),
        _ => a.slice(aw - 1, bw),
    };
    let (rb, ob) = (bank_of(&ra), bank_of(&oa));
    let or_go = or.valid().clone();
    m.connect(rd.ready(), &!&(&or_go & &rb.eq(&ob)));
    m.connect(or.ready(), &or_go.konst(Bits::from_u64(1, 1)));
    let rd_go = rd.fire();
    let ports = ArrayPorts {
        sync_reads: 1,
        comb_reads: 0,
        writes: 1,
    };
    let style = memory::style(rows as u64, WORD, ports, p.sram_threshold_bits);
    let (mut reading, mut words) = (Vec::new(), Vec::new());
    for b in 0..banks {
        let ram = m.mem(&format!("bank{b}"), rows as u64, WORD, style);
        let here = |v: &Value| v.eq(&v.konst(Bits::from_u64(v.width(), b as u64)));
        let (r_here, o_here) = (&rd_go & &here(&rb), &or_go & &here(&ob));
        let op = Op {
            go: &r_here | &o_here,
            row: o_here.mux(&row_of(&oa), &row_of(&ra)),
            is_or: o_here,
            bits: or.bits().get("bits").value().clone(),
        };
        let (r, word) = bank(&mut m, b, &ram, rows, &op, &clear);
        reading.push(r);
        words.push(word);
    }
    let sel = cat(&reading.iter().rev().collect::<Vec<_>>());
    m.connect(resp.valid(), &sel.or_r());
    m.connect(resp.bits().get("data").value(), &onehot_mux(&sel, &words));
    m.finish()
}
