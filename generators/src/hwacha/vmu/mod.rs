//! `Vmu`: the vector memory unit of one lane (thesis Figure 8.10), a 128-bit tagged
//! memory port fed by the lane's queues.
//!
//! Blocks, one file each, elaborated into the one `Vmu` module (they share its clock and
//! queues, so they are functions rather than submodules; the queues are instances of the
//! `examples::queue` generator):
//! - `addr.rs` (VGU + VPU): walks a command's lane-local elements, unpacks predicates
//!   and store data from their per-group queue entries, generates each element's address
//!   and checks its alignment; a unit-stride group (or a constant-stride group of no
//!   active element) per cycle into the VPAQ, else one element per cycle.
//! - `vsu.rs`: places an element's store data and byte mask in its 128-bit beat.
//! - `issue.rs`: coalesces unit-stride elements into beats (a beat per cycle), sends
//!   requests (an AMO element as one atomic request the memory performs) and allocates
//!   the vector load table (VLT).
//! - `vlu.rs`: the load-data unit: turns each response in the VLDQ back into per-group
//!   writes of the lane's registers (opportunistic, in response order).
//!
//! # Ordering
//! Commands are processed in order and all requests leave through one port in element
//! order, so a command's stores are all sent before a later command's loads; the VMU
//! relies on the memory performing accesses in acceptance order (as the test memory
//! does). AMOs are performed by the memory (the port's `amo` field), so they are atomic
//! across lanes, as on the thesis's L2. A load or AMO
//! command's requests wait until the previous load or AMO command has written back all
//! its elements, so the `vlu` writes of two commands never interleave.
//!
//! # Completion
//! `done_store` pulses once per store command when its last request is sent; `done_load`
//! once per load or AMO command when its last element is written back (`vlu`), each in
//! command order. `retired` counts the leading lane-local elements of the load or AMO
//! command writing back that are finished (written, or inactive): elements below it may
//! be read from the registers; it returns to 0 with `done_load`, when it has reached the
//! command's `vlen`. Write responses are counted: `busy` stays high until every write is
//! acknowledged and every done has pulsed. A misaligned active element is not sent: `xcpt` pulses with its address
//! (and `store` for stores and AMOs) and the command's later elements are skipped (the
//! earlier ones complete); the command still signals its done.
//!
//! # Ports
//! - `lane_id` (in, `lane_id_bits`): the lane, an input so that all lanes share one
//!   module; lane-local element k is global element
//!   `((k / strip) * lanes + lane_id) * strip + k % strip`.
//! - `cmd` (decoupled in, `cmd_shape`): op (0 load, 1 store, 2 AMO), amo_fn (0-8: swap,
//!   add, xor, and, or, min, max, minu, maxu),
//!   mode (0 unit stride, 1 constant stride, 2 indexed; AMOs are indexed), width (log2
//!   bytes), unsigned (loads), base, stride (bytes; unit stride uses the element size),
//!   vlen (lane-local elements). Op 3, mode 3 and amo_fn 9..15 are reserved.
//! - `vpq` (decoupled in): one S-bit predicate per group of S elements of every command.
//! - `vvaq` (decoupled in): one 64-bit offset per element (active or not) of an indexed or
//!   AMO command.
//! - `vsdq` (decoupled in): one S x 64-bit entry per group of a store or AMO command.
//! - `vlu` (decoupled out): group, data (S x 64), mask (S): load results and AMO old
//!   values, extended to 64 bits; partial groups have partial masks.
//! - `mem_req` / `mem_resp`: the memory model's request and response shapes with 16-byte
//!   data and `tag_bits` of tag.
//! - `busy`, `done_load`, `done_store`, `retired` (32 bits), `xcpt` (valid, addr, store).
//!
//! # Limits
//! Constant-stride and indexed accesses go at one element per cycle, unit stride at a
//! group or a beat per cycle, whichever is less; addresses are physical (no translation) and the port carries their
//! low 32 bits; with several lanes a beat ends at a lane strip's end even if the next
//! strip of the lane shares it; exceptions are not precise: the active elements before
//! the faulting one complete (with unit stride every element of a misaligned command is
//! misaligned, so nothing is sent), where the ISA has the whole instruction do nothing;
//! a load or AMO command's writeback does not overlap the next one's requests; the
//! retired-element window (`vlu::RETIRE_WINDOW`) bounds how far a load runs ahead of its
//! oldest unfinished element.

pub mod addr;
pub mod issue;
pub mod vlu;
pub mod vsu;

use super::params::HwachaParams;
use crate::examples::queue::{queue, QueueParams};
use hdl::ir::addr_width;
use hdl::{Bits, Bundle, Dir, Field, HdlErrors, Inst, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// Bytes of the memory port's data bus.
pub const BEAT_BYTES: u32 = 16;
/// Bits of the memory port's byte address.
pub const ADDR_BITS: u32 = 32;
/// Bits of the request's log2-size field (the memory model's `SIZE_BITS`).
pub const SIZE_BITS: u32 = 3;

/// Command operations (`cmd.op`).
pub const OP_LOAD: u64 = 0;
pub const OP_STORE: u64 = 1;
pub const OP_AMO: u64 = 2;
/// Addressing modes (`cmd.mode`).
pub const MODE_UNIT: u64 = 0;
pub const MODE_STRIDED: u64 = 1;
pub const MODE_INDEXED: u64 = 2;

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// Tag bits: one tag per VLT entry, plus the one all writes share.
pub fn tag_bits(p: &HwachaParams) -> u32 {
    addr_width(p.vlt_entries as u64 + 1)
}

/// Bits of the `lane_id` input (at least 1).
pub fn lane_id_bits(p: &HwachaParams) -> u32 {
    addr_width(p.lanes as u64)
}

/// The command the lane's sequencer issues (decoupled).
pub fn cmd_shape() -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("op", 2),
        uint("amo_fn", 4),
        uint("mode", 2),
        uint("width", 2),
        uint("unsigned", 1),
        uint("base", 64),
        uint("stride", 64),
        uint("vlen", 32),
    ]))
}

/// One predicate entry per group of S lane-local elements.
pub fn vpq_shape(p: &HwachaParams) -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("pred", p.slices())]))
}

/// One address offset per element of an indexed or AMO command.
pub fn vvaq_shape() -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("offset", 64)]))
}

/// One entry of store (or AMO operand) data per group, slot j in bits 64j..64j+63.
pub fn vsdq_shape(p: &HwachaParams) -> Shape {
    Shape::decoupled(Shape::bundle(vec![uint("data", 64 * p.slices())]))
}

/// A register write of load results: the active elements of `mask` in group `group`.
pub fn vlu_shape(p: &HwachaParams) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("group", 32),
        uint("data", 64 * p.slices()),
        uint("mask", p.slices()),
    ]))
}

/// Memory request, as `verification::tb::memory::amo_request_shape(32, 16, tag_bits)`:
/// `amo` is 0, or 1 + an `amo_fn` (`verification::tb::memory::amo`).
pub fn mem_request(tag_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("addr", ADDR_BITS),
        uint("write", 1),
        uint("data", 8 * BEAT_BYTES),
        uint("mask", BEAT_BYTES),
        uint("size", SIZE_BITS),
        uint("tag", tag_bits),
        uint("amo", 4),
    ]))
}

/// Memory response, as `verification::tb::memory::response_shape(16, tag_bits)`.
pub fn mem_response(tag_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("data", 8 * BEAT_BYTES),
        uint("tag", tag_bits),
    ]))
}

/// The `xcpt` output: a misaligned element's address and whether it was a store.
pub fn xcpt_shape() -> Shape {
    Shape::valid(Shape::bundle(vec![uint("addr", 64), uint("store", 1)]))
}

/// Field `name` of a bundle's `bits`.
pub(crate) fn field<'a>(b: &'a Bundle, name: &str) -> &'a Value {
    b.bits().get(name).value()
}

/// A FIFO instance of `depth` entries of `width` bits, from the queue generator.
pub(crate) struct Fifo {
    inst: Inst,
}

impl Fifo {
    /// `p` supplies the memory policy's threshold (`sram_threshold_bits`).
    pub fn new(
        m: &mut ModuleBuilder,
        p: &HwachaParams,
        name: &str,
        depth: u32,
        width: u32,
    ) -> Result<Fifo, HdlErrors> {
        let module = queue(&QueueParams {
            depth,
            width,
            flow: false,
            pipe: false,
            sram_threshold_bits: p.sram_threshold_bits,
        })?;
        Ok(Fifo {
            inst: m.instance(name, &module),
        })
    }

    pub fn enq_valid(&self) -> Value {
        self.inst.port("enq_valid")
    }
    pub fn enq_ready(&self) -> Value {
        self.inst.port("enq_ready")
    }
    pub fn enq_bits(&self) -> Value {
        self.inst.port("enq_bits")
    }
    pub fn deq_valid(&self) -> Value {
        self.inst.port("deq_valid")
    }
    pub fn deq_ready(&self) -> Value {
        self.inst.port("deq_ready")
    }
    pub fn deq_bits(&self) -> Value {
        self.inst.port("deq_bits")
    }
    /// Entries held.
    pub fn count(&self) -> Value {
        self.inst.port("count")
    }
    /// Whether the queue holds anything.
    pub fn nonempty(&self) -> Value {
        self.count().or_r()
    }
}

/// A constant of `width` bits in the module of `like`.
pub(crate) fn lit(like: &Value, value: u64, width: u32) -> Value {
    like.konst(Bits::from_u64(width, value))
}

/// The VMU of one lane.
pub fn vmu(p: &HwachaParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Vmu");
    let tb = tag_bits(p);
    let s = p.slices();
    let lane_id = m.input("lane_id", lane_id_bits(p));
    let cmd = m.io("cmd", Dir::In, &cmd_shape());
    let vpq = m.io("vpq", Dir::In, &vpq_shape(p));
    let vvaq = m.io("vvaq", Dir::In, &vvaq_shape());
    let vsdq = m.io("vsdq", Dir::In, &vsdq_shape(p));
    let vlu_out = m.io("vlu", Dir::Out, &vlu_shape(p));
    let vlu_next = m.io("vlu_next", Dir::Out, &vlu_shape(p));
    let req = m.io("mem_req", Dir::Out, &mem_request(tb));
    let resp = m.io("mem_resp", Dir::In, &mem_response(tb));
    let busy = m.output("busy", 1);
    let done_load = m.output("done_load", 1);
    let done_store = m.output("done_store", 1);
    let retired = m.output("retired", 32);
    let xcpt = m.io("xcpt", Dir::Out, &xcpt_shape());

    // The lane-side queues (the VPQ has no thesis parameter: it shares the VVAQ's).
    let vpq_q = Fifo::new(&mut m, p, "vpq_q", p.vvaq_entries, s)?;
    let vvaq_q = Fifo::new(&mut m, p, "vvaq_q", p.vvaq_entries, 64)?;
    let vsdq_q = Fifo::new(&mut m, p, "vsdq_q", p.vsdq_entries, 64 * s)?;
    for (q, port, data) in [
        (&vpq_q, &vpq, "pred"),
        (&vvaq_q, &vvaq, "offset"),
        (&vsdq_q, &vsdq, "data"),
    ] {
        m.connect(&q.enq_valid(), port.valid());
        m.connect(&q.enq_bits(), field(port, data));
        m.connect(port.ready(), &q.enq_ready());
    }
    let vpaq_q = Fifo::new(&mut m, p, "vpaq_q", p.vpaq_entries, addr::Element::width(s))?;
    let vldq_q = Fifo::new(
        &mut m,
        p,
        "vldq_q",
        p.vldq_entries,
        vlu::VltEntry::width(32) + 8 * BEAT_BYTES + addr_width(p.vlt_entries as u64),
    )?;

    let seq = addr::build(&mut m, p, &lane_id, &cmd, &vpq_q, &vvaq_q, &vsdq_q, &vpaq_q);
    let retire = vlu::Retire::build(&mut m, p);
    let iss = issue::build(&mut m, p, &vpaq_q, &req, &resp, &vldq_q, &retire);
    let load = (&iss.load_width, &iss.load_unsigned, &iss.load_pitch);
    let vl = vlu::build(&mut m, p, &vldq_q, (&vlu_out, &vlu_next), &retire, load);
    m.connect(&retired, &retire.retired);
    m.connect(&iss.vlt_free_valid, &vl.free_valid);
    m.connect(&iss.vlt_free_idx, &vl.free_idx);

    m.connect(xcpt.valid(), &seq.xcpt_valid);
    m.connect(field(&xcpt, "addr"), &seq.xcpt_addr);
    m.connect(field(&xcpt, "store"), &seq.xcpt_store);
    m.connect(&done_load, &iss.done_load);
    m.connect(&done_store, &iss.done_store);
    let any = [&seq.busy, &vpaq_q.nonempty(), &iss.busy, &vldq_q.nonempty()]
        .into_iter()
        .fold(lit(&lane_id, 0, 1), |a, b| &a | b);
    m.connect(&busy, &any);
    m.finish()
}
