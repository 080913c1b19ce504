//! Address generation (the VGU, with the VPU's predicate unpacking): walks a command's
//! lane-local elements k = 0..vlen into the VPAQ, a group of S per cycle for unit stride
//! (a group is contiguous in memory) and for a narrow constant stride (a positive power
//! of two from the element size to 8 bytes: two or more elements share a 16-byte beat,
//! so the issue unit coalesces them as it does unit stride), one per cycle otherwise.
//! Either way the item's `pitch` is the log2 of the bytes from one element to the next.
//!
//! Lane-local element k is global element
//! `e(k) = ((k / strip) * lanes + lane_id) * strip + k % strip`,
//! so a unit-stride or strided address is base + e(k) * stride: the walk
//! starts at base + lane_id * strip * stride and adds the stride within a strip and
//! `((lanes - 1) * strip + 1) * stride` across a lane strip boundary; a whole group that
//! ends a strip adds `((lanes - 1) * strip + S) * stride` (the products taken once per
//! command). Indexed and AMO addresses are base + the element's VVAQ offset.
//!
//! Timing: the walk's next address is one Kogge-Stone sum of `addr` and a step selected
//! from registers, and the comparisons of `left` (the elements not yet walked) with
//! 0..=S are registered beside it (`left_gt`), so no 32-bit compare or subtraction sits
//! on the path from one address to the next.
//!
//! Density-time skipping (thesis 8.6): a constant-stride group whose live predicates are
//! all off goes in one cycle too, as one item of no active element.

use super::{field, lit, Fifo, MODE_INDEXED, MODE_STRIDED, MODE_UNIT, OP_AMO, OP_LOAD};
use crate::arith::adder::Style::Prefix;
use crate::hwacha::params::HwachaParams;
use hdl::helpers::{onehot_encode, priority_encode};
use hdl::{cat, mux, Bundle, ModuleBuilder, ResetValue, Value};

/// Elements `k..k + count` on their way to the issue unit (an entry of the VPAQ): one
/// element in slot 0, or a group of S in slots 0..S.
pub struct Element {
    /// Lane-local index of the first element, relative to the command.
    pub k: Value,
    /// The first element's address; a group's elements follow one another in memory.
    pub addr: Value,
    /// Per slot: predicated on and aligned, the element accesses memory.
    pub active: Value,
    /// Per slot: store data or AMO operand (low `8 << width` bits used).
    pub data: Value,
    /// Holds the command's last element.
    pub last: Value,
    /// Elements (slots) the item stands for, from 1 to S.
    pub count: Value,
    /// Stands for a command of no elements (sent so that the command completes).
    pub empty: Value,
    /// Ends a lane strip, and the next element is not adjacent in memory.
    pub strip_end: Value,
    pub op: Value,
    pub amo_fn: Value,
    pub width: Value,
    /// Unit stride or a narrow constant stride (and not an AMO): elements coalesce
    /// into beats.
    pub unit: Value,
    pub unsigned: Value,
    /// Log2 of the bytes from one element to the next, for `unit` items.
    pub pitch: Value,
}

impl Element {
    /// Bits of an item with `s` slots.
    pub fn width(s: u32) -> u32 {
        32 + 64 + s + 64 * s + 1 + 4 + 1 + 1 + 2 + 4 + 2 + 1 + 1 + 2
    }

    fn fields(&self) -> [&Value; 14] {
        [
            &self.k,
            &self.addr,
            &self.active,
            &self.data,
            &self.last,
            &self.count,
            &self.empty,
            &self.strip_end,
            &self.op,
            &self.amo_fn,
            &self.width,
            &self.unit,
            &self.unsigned,
            &self.pitch,
        ]
    }

    pub fn pack(&self) -> Value {
        cat(&self.fields())
    }

    pub fn unpack(v: &Value, s: u32) -> Element {
        let mut hi = Self::width(s);
        let mut take = |w: u32| {
            hi -= w;
            v.slice(hi + w - 1, hi)
        };
        Element {
            k: take(32),
            addr: take(64),
            active: take(s),
            data: take(64 * s),
            last: take(1),
            count: take(4),
            empty: take(1),
            strip_end: take(1),
            op: take(2),
            amo_fn: take(4),
            width: take(2),
            unit: take(1),
            unsigned: take(1),
            pitch: take(2),
        }
    }
}

pub struct Seq {
    /// A command is accepted and not all its elements are in the VPAQ.
    pub busy: Value,
    pub xcpt_valid: Value,
    pub xcpt_addr: Value,
    pub xcpt_store: Value,
}

/// `1 << width` (the element size in bytes) as 64 bits.
fn elem_bytes(width: &Value) -> Value {
    lit(width, 1, 64).dshl(width)
}

/// The sequencer's registers.
struct Regs {
    busy: Value,
    op: Value,
    amo_fn: Value,
    mode: Value,
    width: Value,
    unsigned: Value,
    coalesce: Value,
    pitch: Value,
    base: Value,
    empty: Value,
    k: Value,
    left: Value,
    left_gt: Value,
    addr: Value,
    stride: Value,
    jump: Value,
    group_stride: Value,
    group_hop: Value,
    faulted: Value,
    xcpt_valid: Value,
    xcpt_addr: Value,
    xcpt_store: Value,
}

impl Regs {
    fn new(m: &mut ModuleBuilder, s: u32) -> Regs {
        // The command and walk registers are datapath: loaded when a command is accepted
        // and read only while it is (`busy`); the exception's address and kind only under
        // `xcpt_valid`.
        let none = || ResetValue::None;
        let busy = m.reg("seq_busy", 1, false);
        let op = m.reg("seq_op", 2, none());
        let amo_fn = m.reg("seq_amo_fn", 4, none());
        let mode = m.reg("seq_mode", 2, none());
        let width = m.reg("seq_width", 2, none());
        let unsigned = m.reg("seq_unsigned", 1, none());
        let coalesce = m.reg("seq_coalesce", 1, none());
        let pitch = m.reg("seq_pitch", 2, none());
        let base = m.reg("seq_base", 64, none());
        // The command has no elements; `left` is vlen - k, kept beside k so that no
        // subtraction sits between k and the next address, and `left_gt` its comparisons
        // with 0..=S, registered beside it so that no 32-bit compare sits between `left`
        // and the step to the next address.
        let empty = m.reg("seq_empty", 1, none());
        let k = m.reg("seq_k", 32, none());
        let left = m.reg("seq_left", 32, none());
        let left_gt = m.reg("seq_left_gt", s + 1, none());
        let addr = m.reg("seq_addr", 64, none());
        let stride = m.reg("seq_stride", 64, none());
        let jump = m.reg("seq_jump", 64, none());
        let group_stride = m.reg("seq_group_stride", 64, none());
        let group_hop = m.reg("seq_group_hop", 64, none());
        let faulted = m.reg("seq_faulted", 1, none());
        let xcpt_valid = m.reg("xcpt_valid", 1, false);
        let xcpt_addr = m.reg("xcpt_addr", 64, none());
        let xcpt_store = m.reg("xcpt_store", 1, none());
        Regs {
            busy,
            op,
            amo_fn,
            mode,
            width,
            unsigned,
            coalesce,
            pitch,
            base,
            empty,
            k,
            left,
            left_gt,
            addr,
            stride,
            jump,
            group_stride,
            group_hop,
            faulted,
            xcpt_valid,
            xcpt_addr,
            xcpt_store,
        }
    }
}

/// `v > j` for j = S..=0, MSB first.
fn gt_flags(v: &Value, s: u32) -> Value {
    let flags: Vec<Value> = (0..=s).rev().map(|j| v.gt(&lit(v, j as u64, 32))).collect();
    cat(&flags.iter().collect::<Vec<_>>())
}

#[allow(clippy::too_many_arguments)]
pub(super) fn build(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    lane_id: &Value,
    cmd: &Bundle,
    vpq: &Fifo,
    vvaq: &Fifo,
    vsdq: &Fifo,
    vpaq: &Fifo,
) -> Seq {
    let s = p.slices();
    let r = Regs::new(m, s);
    accept(m, p, lane_id, cmd, &r);
    walk(m, p, &r, vpq, vvaq, vsdq, vpaq);
    Seq {
        busy: r.busy,
        xcpt_valid: r.xcpt_valid,
        xcpt_addr: r.xcpt_addr,
        xcpt_store: r.xcpt_store,
    }
}

/// Accepts a command when the previous one has sent all its elements, taking the
/// per-command products of the stride.
fn accept(m: &mut ModuleBuilder, p: &HwachaParams, lane_id: &Value, cmd: &Bundle, r: &Regs) {
    let s = p.slices();
    let strip = p.strip();
    let log_s = s.trailing_zeros();
    let log_strip = strip.trailing_zeros();
    m.connect(cmd.ready(), &!&r.busy);
    let c_mode = field(cmd, "mode");
    let c_width = field(cmd, "width");
    let c_stride = mux(
        &c_mode.eq(&lit(c_mode, MODE_UNIT, 2)),
        &elem_bytes(c_width),
        field(cmd, "stride"),
    );
    let lane_w = lane_id.width() + log_strip;
    let lane_first = lane_id.zext(lane_w).shl(log_strip);
    let start = Prefix.add(field(cmd, "base"), &c_stride.mul(&lane_first).trunc(64));
    let hop = (p.lanes as u64 - 1) * strip as u64 + 1;
    let hop_w = 64 - hop.leading_zeros();
    let c_jump = c_stride.mul(&lit(&c_stride, hop, hop_w)).trunc(64);
    // A group that ends a lane strip: S - 1 strides and a hop.
    let group_hop_x = hop + s as u64 - 1;
    let c_group_hop = c_stride
        .mul(&lit(
            &c_stride,
            group_hop_x,
            64 - group_hop_x.leading_zeros(),
        ))
        .trunc(64);
    m.when(&cmd.fire(), |m| {
        m.connect(&r.busy, &lit(&r.busy, 1, 1));
        m.connect(&r.op, field(cmd, "op"));
        m.connect(&r.amo_fn, field(cmd, "amo_fn"));
        m.connect(&r.mode, c_mode);
        m.connect(&r.width, c_width);
        m.connect(&r.unsigned, field(cmd, "unsigned"));
        let (coalesce, pitch) = coalescing(cmd);
        m.connect(&r.coalesce, &coalesce);
        m.connect(&r.pitch, &pitch);
        m.connect(&r.base, field(cmd, "base"));
        let c_vlen = field(cmd, "vlen");
        m.connect(&r.empty, &c_vlen.eq(&lit(c_vlen, 0, 32)));
        m.connect(&r.k, &lit(&r.k, 0, 32));
        m.connect(&r.left, c_vlen);
        m.connect(&r.left_gt, &gt_flags(c_vlen, s));
        m.connect(&r.addr, &start);
        m.connect(&r.stride, &c_stride);
        m.connect(&r.jump, &c_jump);
        m.connect(&r.group_stride, &c_stride.shl(log_s));
        m.connect(&r.group_hop, &c_group_hop);
        m.connect(&r.faulted, &lit(&r.faulted, 0, 1));
    });
}

/// Whether command `cmd`'s elements coalesce into beats (not an AMO; unit stride, or a
/// constant stride of 1, 2, 4 or 8 bytes and at least the element size), and the log2
/// of their pitch in bytes.
fn coalescing(cmd: &Bundle) -> (Value, Value) {
    let (mode, width, stride) = (
        field(cmd, "mode"),
        field(cmd, "width"),
        field(cmd, "stride"),
    );
    let not_amo = field(cmd, "op").ne(&lit(width, OP_AMO, 2));
    let unit = mode.eq(&lit(mode, MODE_UNIT, 2));
    let strided = mode.eq(&lit(mode, MODE_STRIDED, 2));
    // A power of two of at most 8 bytes: one of the low four bits, nothing above.
    let low = stride.trunc(4);
    let pow2 =
        &(&low & &(&low - &lit(&low, 1, 4))).eq(&lit(&low, 0, 4)) & &low.ne(&lit(&low, 0, 4));
    let narrow = &(&pow2 & &!&stride.slice(63, 4).or_r()) & &low.ge(&lit(&low, 1, 4).dshl(width));
    // Read only when `narrow` (one-hot).
    let stride_log = onehot_encode(&low);
    let coalesce = &not_amo & &(&unit | &(&strided & &narrow));
    (coalesce, mux(&unit, width, &stride_log))
}

/// Walks the accepted command's elements into the VPAQ, an item per cycle.
fn walk(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    r: &Regs,
    vpq: &Fifo,
    vvaq: &Fifo,
    vsdq: &Fifo,
    vpaq: &Fifo,
) {
    let s = p.slices();
    let strip = p.strip();
    let log_s = s.trailing_zeros();
    let log_strip = strip.trailing_zeros();
    let is_amo = r.op.eq(&lit(&r.op, OP_AMO, 2));
    let uses_vvaq = &is_amo | &r.mode.eq(&lit(&r.mode, MODE_INDEXED, 2));
    let needs_data = r.op.ne(&lit(&r.op, OP_LOAD, 2));
    // left == 1: left > 0 and not left > 1.
    let last = &r.empty | &(&r.left_gt.bit(0) & &!&r.left_gt.bit(1));
    // The element's slot in its group and whether it ends its group or lane strip.
    let slot = if s == 1 {
        lit(&r.k, 0, 1)
    } else {
        r.k.trunc(log_s)
    };
    let group_end = &last | &slot.eq(&lit(&slot, (s - 1) as u64, slot.width()));
    // With one lane the strips are adjacent in memory: no boundary to break at.
    let ends_strip = |low: u32| {
        if p.lanes == 1 {
            lit(&r.k, 0, 1)
        } else if strip == 1 << low {
            lit(&r.k, 1, 1)
        } else {
            r.k.slice(log_strip - 1, low).and_r()
        }
    };
    let strip_end = ends_strip(0);

    // Slots of the group below vlen; a unit-r.stride group, or a constant-r.stride one of no
    // live active element, goes whole.
    let live = r.left_gt.trunc(s);
    let at_group = slot.eq(&lit(&slot, 0, slot.width()));
    let on_slots = &vpq.deq_bits() & &live;
    let unit = r.coalesce.clone();
    let whole_group = &(&at_group & &(&unit | &!&on_slots.or_r())) & &!&(&uses_vvaq | &r.empty);
    let partial = !&r.left_gt.bit(s - 1);
    let group_count = mux(&partial, &r.left.trunc(4), &lit(&r.k, s as u64, 4));
    let group_strip_end = ends_strip(log_s);

    let inputs_ready =
        &(vpq.deq_valid() & (!&needs_data | vsdq.deq_valid())) & &(!&uses_vvaq | vvaq.deq_valid());
    let fire = &(&r.busy & &vpaq.enq_ready()) & &(&r.empty | &inputs_ready);
    let consume = &fire & &!&r.empty;
    let whole = &consume & &(&group_end | &whole_group);
    m.connect(&vpq.deq_ready(), &whole);
    m.connect(&vsdq.deq_ready(), &(&whole & &needs_data));
    m.connect(&vvaq.deq_ready(), &(&consume & &uses_vvaq));

    let pred = vpq.deq_bits().dshr(&slot).bit(0);
    let data = vsdq.deq_bits().dshr(&slot.zext(log_s + 7).shl(6)).trunc(64);
    let elem_addr = mux(&uses_vvaq, &Prefix.add(&r.base, &vvaq.deq_bits()), &r.addr);
    let align = (elem_bytes(&r.width) - lit(&r.width, 1, 64)).trunc(3);
    // A group's elements share the alignment of its first.
    let misaligned = (elem_addr.trunc(3) & align).or_r();
    let go = &!&r.faulted & &!&r.empty;
    let group_on = mux(&unit, &on_slots, &lit(&on_slots, 0, s));
    let ons = mux(&whole_group, &group_on, &(&pred & &go).zext(s));
    let ons = &ons & &go.repeat(s);
    let fault = &ons.or_r() & &misaligned;
    let fault_addr = Prefix.add(&elem_addr, &priority_encode(&ons).zext(64).dshl(&r.width));

    let e = Element {
        k: r.k.clone(),
        addr: elem_addr.clone(),
        active: &ons & &(!&misaligned).repeat(s),
        data: mux(&whole_group, &vsdq.deq_bits(), &data.zext(64 * s)),
        last: mux(&whole_group, &!&r.left_gt.bit(s), &last),
        count: mux(&whole_group, &group_count, &lit(&r.k, 1, 4)),
        empty: r.empty.clone(),
        strip_end: mux(&whole_group, &group_strip_end, &strip_end),
        op: r.op.clone(),
        amo_fn: r.amo_fn.clone(),
        width: r.width.clone(),
        unit,
        unsigned: r.unsigned.clone(),
        pitch: r.pitch.clone(),
    };
    m.connect(&vpaq.enq_valid(), &fire);
    m.connect(&vpaq.enq_bits(), &e.pack());

    m.connect(&r.xcpt_valid, &(&fire & &fault));
    // Past a whole group: S strides, the last one a lane strip hop if it ends a strip
    // (`r.group_hop`, a product taken with the command); past an element: a r.stride or a
    // hop. No adder sits before the one into `r.addr` (a Kogge-Stone: `whole_group`
    // arrives late).
    let step = mux(
        &whole_group,
        &mux(&group_strip_end, &r.group_hop, &r.group_stride),
        &mux(&strip_end, &r.jump, &r.stride),
    );
    let item_last = e.last.clone();
    // An item counts S elements or 1, unless it is a partial group, the command's last
    // (after it `r.k` and `r.left` are not read): both differences come straight from
    // registers, the item's kind only selects.
    let left_s = Prefix.sub(&r.left, &lit(&r.left, s as u64, 32)).0;
    let left_1 = Prefix.sub(&r.left, &lit(&r.left, 1, 32)).0;
    m.when(&fire, |m| {
        let count = mux(&whole_group, &lit(&r.k, s as u64, 32), &lit(&r.k, 1, 32));
        m.connect(&r.k, &Prefix.add(&r.k, &count));
        m.connect(&r.left, &mux(&whole_group, &left_s, &left_1));
        m.connect(
            &r.left_gt,
            &mux(&whole_group, &gt_flags(&left_s, s), &gt_flags(&left_1, s)),
        );
        m.connect(&r.addr, &Prefix.add(&r.addr, &step));
        m.when(&fault, |m| {
            m.connect(&r.faulted, &lit(&r.faulted, 1, 1));
            m.connect(&r.xcpt_addr, &fault_addr);
            m.connect(&r.xcpt_store, &needs_data);
        });
        m.when(&item_last, |m| m.connect(&r.busy, &lit(&r.busy, 0, 1)));
    });
}
