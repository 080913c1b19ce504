//! The extra memory command queue of +m (seed 000, section 2.6: it "orders writeback
//! against narrow and coalesced requests", the protocol left open): the affine loads
//! (`bundles::affine_load`) in program order, each issued as the wide requests of the
//! lines from its lowest active thread's element to its highest's, one a cycle the wide
//! port accepts, in ascending order.
//!
//! Ordering, decided here: every affine load gets the next number of a counter `E`
//! (mod 2^b, 2^b > `sldq_loads`), and every memory instruction is stamped with `E` as its
//! first slot arrives (its SMRQ entries carry the stamp): the instruction is after the
//! affine loads numbered below its stamp and before the others. The queue's head, number
//! `h` (a register counting the loads popped), issues only when no lane's SMRQ head, nor the rest of an instruction
//! still being received, carries stamp `h` (so every earlier slot's requests were
//! accepted); an SMRQ head leaves only when its stamp is `h` or the queue is empty (so
//! every earlier affine load's requests were accepted). Stamps in the SMRQs lie in
//! `[h, E]` and the queue never holds more loads than the SLDQ has entries (each holds
//! one until popped), so equality mod 2^b decides. Each affine load takes its SLDQ entry
//! as it arrives (`sldq.rs`), between the earlier and the later loads' entries.

use super::rotate::{line_of, LINE_INDEX_BITS};
use super::smrq::Smrq;
use super::{all, k, Fifo, Layout, Receive};
use crate::fgsimt::l1::BLOCK_OFFSET_BITS;
use crate::fgsimt::params::FgsimtParams;
use hdl::helpers::{popcount, priority_encode};
use hdl::ir::addr_width;
use hdl::{cat, mux, Bundle, HdlErrors, ModuleBuilder, Value};

/// The stamps of the incoming slots (the counter `E` of the affine loads arrived).
pub struct Stamps {
    /// The stamp of the instruction being received, taken at its first slot.
    held: Value,
    /// The stamp of this cycle's slot.
    pub slot: Value,
}

/// Bits of a stamp: the queue holds at most `sldq_loads` affine loads.
pub fn stamp_bits(p: &FgsimtParams) -> u32 {
    addr_width(p.sldq_loads as u64 + 1)
}

impl Stamps {
    pub fn new(
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        rx: &Receive,
        slot: &Bundle,
        aload: &Bundle,
    ) -> Stamps {
        let b = stamp_bits(p);
        let epoch = m.reg("aq_epoch", b, 0u64);
        m.connect(&epoch, &(&epoch + &aload.valid().zext(b)));
        let held = m.reg("aq_rx_stamp", b, 0u64);
        m.when(&(slot.valid() & &!&rx.partial), |m| {
            m.connect(&held, &epoch)
        });
        Stamps {
            slot: mux(&rx.partial, &held, &epoch),
            held,
        }
    }
}

pub struct AffineQueue {
    fifo: Fifo,
    /// The head's number: the loads popped so far.
    head: Value,
    /// Lines of the head already requested.
    issued: Value,
    /// The head's request is due (valid and ordered), is its last, and its line index.
    pub go: Value,
    pub last: Value,
    pub line: Value,
}

fn layout(p: &FgsimtParams) -> Layout {
    Layout(vec![
        ("line", 32 - BLOCK_OFFSET_BITS),
        ("base", BLOCK_OFFSET_BITS),
        ("size", 2),
        ("ldq", addr_width(p.sldq_loads as u64)),
        ("first", LINE_INDEX_BITS),
        ("last", LINE_INDEX_BITS),
        ("threads", addr_width(p.warp_size as u64 + 1)),
    ])
}

impl AffineQueue {
    /// The queue fed by `aload`, whose SLDQ entry is `ldq`.
    pub fn new(
        m: &mut ModuleBuilder,
        p: &FgsimtParams,
        aload: &Bundle,
        ldq: &Value,
    ) -> Result<AffineQueue, HdlErrors> {
        let fifo = Fifo::new(m, p, "aq", p.sldq_loads, layout(p))?;
        let bits = aload.bits();
        let (addr, size, mask) = (
            bits.get("addr").value(),
            bits.get("size").value(),
            bits.get("mask").value(),
        );
        let base = addr.slice(BLOCK_OFFSET_BITS - 1, 0);
        let w = p.warp_size;
        let reversed: Vec<Value> = (0..w).rev().map(|i| mask.bit(i)).collect();
        let lo = priority_encode(mask);
        let from_top = priority_encode(&super::cat_low_first(&reversed));
        let hi = &k(&from_top, w as u64 - 1, from_top.width()) - &from_top;
        let values = [
            addr.slice(31, BLOCK_OFFSET_BITS),
            base.clone(),
            size.clone(),
            ldq.clone(),
            line_of(&base, size, &lo),
            line_of(&base, size, &hi),
            popcount(mask),
        ];
        fifo.push(m, aload.valid(), &values);
        let head = m.reg("aq_head", stamp_bits(p), 0u64);
        let issued = m.reg("aq_issued", LINE_INDEX_BITS, 0u64);
        let line = &fifo.head("first") + &issued;
        Ok(AffineQueue {
            last: line.eq(&fifo.head("last")),
            go: fifo.valid(),
            line,
            issued,
            head,
            fifo,
        })
    }

    /// An SMRQ head or an instruction of `stamp` may go: no affine load before it waits.
    pub fn allows(&self, stamp: &Value) -> Value {
        &!&self.fifo.valid() | &stamp.eq(&self.head)
    }

    /// Drives `go` (due once nothing before the head waits: no SMRQ head and no rest of
    /// an instruction being received of the head's number) and the wide request `req`;
    /// returns its acceptance.
    pub fn request(
        &mut self,
        m: &mut ModuleBuilder,
        (queues, rx, stamps): (&[Smrq], &Receive, &Stamps),
        req: &Bundle,
    ) -> Value {
        let mut clear: Vec<Value> = queues
            .iter()
            .map(|q| !&(&q.fifo.valid() & &q.fifo.head("stamp").eq(&self.head)))
            .collect();
        clear.push(!&(&rx.partial & &stamps.held.eq(&self.head)));
        self.go = &self.go & &all(&clear);
        let fire = &self.go & req.ready();
        let done = &fire & &self.last;
        let next = &self.issued + &k(&self.issued, 1, LINE_INDEX_BITS);
        m.when(&fire, |m| {
            m.connect(
                &self.issued,
                &mux(&done, &k(&next, 0, LINE_INDEX_BITS), &next),
            )
        });
        let after = &self.head + &k(&self.head, 1, self.head.width());
        m.when(&done, |m| m.connect(&self.head, &after));
        self.fifo.pop(m, &done);
        fire
    }

    /// The current request's line address (32 bits).
    pub fn addr(&self) -> Value {
        let line = &self.fifo.head("line") + &self.line.zext(32 - BLOCK_OFFSET_BITS);
        cat(&[&line, &k(&line, 0, BLOCK_OFFSET_BITS)])
    }

    /// Field `name` of the head.
    pub fn head(&self, name: &str) -> Value {
        self.fifo.head(name)
    }

    pub fn empty(&self) -> Value {
        self.fifo.empty()
    }

    /// The bytes the head's active threads ask for.
    pub fn bytes(&self) -> Value {
        let threads = self.fifo.head("threads").zext(32);
        threads.dshl(&self.fifo.head("size"))
    }
}
