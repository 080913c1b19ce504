//! The vector load-data unit (VLU): takes responses from the VLDQ in the order memory
//! returned them (opportunistic writeback, no reorder buffer), looks up what each one
//! carries in the vector load table (VLT), and writes its active elements back to the
//! lane up to two groups of S elements per cycle (`vlu` and `vlu_next`, group g and
//! g + 1, which live in different banks), sign- or zero-extended: a beat not aligned to a
//! group touches two, so a unit-stride load of doublewords off a 16-byte boundary
//! writes back at a beat per cycle too. A response finishes (its VLT entry is freed)
//! with its last group.
//!
//! The retired-element bit vector tracks, for the load or AMO command writing back, which
//! of the `RETIRE_WINDOW` elements from `retired` on are finished (written back, or
//! inactive and so never written); `retired` advances over finished elements, up to 2S
//! a cycle, so it counts the command's leading finished elements (what chaining from
//! loads follows: `lane::memory::load_progress`). The issue unit
//! takes no element of the command beyond the window.

use super::vsu::by_width;
use super::{field, lit, Fifo, BEAT_BYTES};
use crate::arith::adder::Style::Prefix;
use crate::hwacha::params::HwachaParams;
use hdl::helpers::priority_encode;
use hdl::ir::addr_width;
use hdl::{cat, mux, Bundle, ModuleBuilder, ResetValue, Value};

/// What an outstanding load request carries: elements `k0 + i` for the set bits `i` of
/// `active`, element `i` at byte `offset + i << pitch`. In the VLT `k0` keeps only its
/// low [`K0_BITS`] bits ([`Retire::k0`] restores it); in the VLDQ, where the issue unit
/// puts it beside the response, it is whole (32 bits). The element width, signedness
/// and pitch are the command's (`issue::Issue::load_width`, `load_pitch`): all
/// outstanding loads belong to the command writing back.
pub struct VltEntry {
    pub k0: Value,
    pub active: Value,
    pub offset: Value,
}

impl VltEntry {
    /// Bits of an entry whose `k0` has `k0_bits` bits.
    pub const fn width(k0_bits: u32) -> u32 {
        k0_bits + BEAT_BYTES + 4
    }

    pub fn pack(&self) -> Value {
        cat(&[&self.k0, &self.active, &self.offset])
    }

    /// The entry packed in `v` with a `k0` of `k0_bits` bits.
    pub fn unpack(v: &Value, k0_bits: u32) -> VltEntry {
        let mut hi = Self::width(k0_bits);
        let mut take = |w: u32| {
            hi -= w;
            v.slice(hi + w - 1, hi)
        };
        VltEntry {
            k0: take(k0_bits),
            active: take(BEAT_BYTES),
            offset: take(4),
        }
    }

    /// The last element's `i`: the highest set bit of `active` (a sent request has one).
    pub fn high(&self) -> Value {
        let w = addr_width(BEAT_BYTES as u64);
        (0..BEAT_BYTES).fold(lit(&self.active, 0, w), |acc, i| {
            mux(&self.active.bit(i), &lit(&acc, i as u64, w), &acc)
        })
    }
}

/// The low `1 << width` bytes of `raw` (64 bits), zero- or sign-extended to 64 bits.
pub fn extend(raw: &Value, width: &Value, unsigned: &Value) -> Value {
    let keep = by_width(width, [0xff, 0xffff, 0xffff_ffff, u64::MAX], 64);
    // The sign bit of the element, copied into every bit above it unless unsigned.
    let sign_at = by_width(width, [7, 15, 31, 63], 6);
    let sign = &raw.dshr(&sign_at).bit(0) & &!unsigned;
    let fill = &sign.repeat(64) & &!&keep;
    &(raw & &keep) | &fill
}

/// Elements the retired-element bit vector covers (at least the 16 of a byte beat, so
/// that the beat holding the oldest unfinished element always fits).
pub const RETIRE_WINDOW: u32 = 64;

/// Low bits of `k0` the VLT keeps. An outstanding load's `k0` lies in `[retired -
/// (BEAT_BYTES - 1), retired + RETIRE_WINDOW)`: the issue unit takes no element beyond
/// the window, and `retired` passes no active element before it is written back, the
/// lowest of which is at most `BEAT_BYTES - 1` after `k0`; all outstanding loads belong
/// to the command `retired` counts (one writes back at a time). Those are fewer than
/// `2^K0_BITS` values, so the low bits and `retired` give `k0` back.
pub const K0_BITS: u32 = (RETIRE_WINDOW + BEAT_BYTES)
    .next_power_of_two()
    .trailing_zeros();

/// The retired-element bit vector, with the wires that mark its elements.
pub struct Retire {
    /// Leading elements of the command finished.
    pub retired: Value,
    /// Every marked element is counted in `retired` (none waits to be marked).
    pub settled: Value,
    /// The issue unit skips the inactive elements `skip_k + j` for the set bits j of
    /// `skip_mask` (driven by the issue unit).
    pub skip_valid: Value,
    pub skip_k: Value,
    pub skip_mask: Value,
    /// Clears the vector for the next command (driven by the issue unit).
    pub clear: Value,
    /// The VLU writes `written` (one bit per slot) of groups `group` and `group + 1`
    /// (driven by the VLU).
    written: Value,
    group: Value,
}

impl Retire {
    pub fn build(m: &mut ModuleBuilder, p: &HwachaParams) -> Retire {
        let s = p.slices();
        let w = RETIRE_WINDOW;
        let lw = w.trailing_zeros();
        let retired = m.reg("retired", 32, 0u64);
        let done = m.reg("retired_bits", w, 0u64);
        let skip_valid = m.wire("retire_skip_valid", 1);
        let skip_k = m.wire("retire_skip_k", 32);
        let skip_mask = m.wire("retire_skip_mask", s);
        let clear = m.wire("retire_clear", 1);
        let written = m.wire("retire_written", 2 * s);
        let group = m.wire("retire_group", 32);
        // Bits `bits` for elements `k..`, placed at `k - retired` modulo the window: one
        // subtraction and one shift (an element below `retired` is never marked, so
        // what wraps past the window's end belongs at its start).
        let place = |k: &Value, bits: &Value| {
            let span = w + bits.width();
            let at = bits.zext(span).dshl(&(k - &retired).trunc(lw));
            &at.trunc(w) | &at.slice(span - 1, w).zext(w)
        };
        let zero = lit(&done, 0, w);
        let skips = &skip_valid.repeat(s) & &skip_mask;
        // The VLU's writes and the issue unit's skips are marked a cycle later
        // (registered: the paths from the VLDQ's and the VPAQ's heads through the marks
        // into `retired` would not fit a cycle).
        let written_r = m.reg("retire_written_r", 2 * s, 0u64);
        let group_r = m.reg("retire_group_r", 32, ResetValue::None);
        let skips_r = m.reg("retire_skips_r", s, 0u64);
        let skip_k_r = m.reg("retire_skip_k_r", 32, ResetValue::None);
        for (r, v) in [
            (&written_r, &written),
            (&group_r, &group),
            (&skips_r, &skips),
            (&skip_k_r, &skip_k),
        ] {
            m.connect(r, v);
        }
        let at = group_r.shl(s.trailing_zeros());
        let marks = &place(&skip_k_r, &skips_r) | &place(&at, &written_r);
        // Up to two groups' worth of leading finished elements retire per cycle: the
        // rate of the VLU.
        let all = &done | &marks;
        let stop = cat(&[&lit(&done, 1, 1), &!&all.trunc(2 * s)]);
        let step = priority_encode(&stop);
        m.connect(&done, &all.dshr(&step));
        m.connect(&retired, &(&retired + &step.zext(32)));
        m.when(&clear, |m| {
            m.connect(&done, &zero);
            m.connect(&retired, &lit(&retired, 0, 32));
        });
        Retire {
            settled: !&(&(&done.or_r() | &written_r.or_r()) | &skips_r.or_r()),
            retired,
            skip_valid,
            skip_k,
            skip_mask,
            clear,
            written,
            group,
        }
    }

    /// The whole `k0` of an outstanding load whose low [`K0_BITS`] bits are `low`: the
    /// value with those low bits in the range [`K0_BITS`] describes.
    pub fn k0(&self, low: &Value) -> Value {
        let base = &self.retired - &lit(&self.retired, (BEAT_BYTES - 1) as u64, 32);
        let ahead = (low - &base.trunc(K0_BITS)).trunc(K0_BITS);
        &base + &ahead.zext(32)
    }

    /// Whether the `count` elements from `k` on (of the command writing back, not yet
    /// retired) are inside the window.
    pub fn covers(&self, k: &Value, count: &Value) -> Value {
        // Kogge-Stone adders (`adder::Style::Prefix`): `k` and `count` come from the VPAQ's head.
        let end = Prefix.add(&Prefix.sub(k, &self.retired).0, &count.zext(32));
        end.le(&lit(k, RETIRE_WINDOW as u64, 32))
    }
}

pub struct Vlu {
    /// A VLT entry is released this cycle.
    pub free_valid: Value,
    pub free_idx: Value,
}

/// The VLU, writing back the VLDQ's head; `load` is the element width and signedness of
/// the command writing back.
pub(super) fn build(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    vldq: &Fifo,
    (out, next): (&Bundle, &Bundle),
    retire: &Retire,
    load: (&Value, &Value, &Value),
) -> Vlu {
    let s = p.slices();
    let log_s = s.trailing_zeros();
    let aw = addr_width(p.vlt_entries as u64);
    let head = vldq.deq_bits();
    let data = head.slice(8 * BEAT_BYTES + aw - 1, aw);
    let tag = head.trunc(aw);
    let e = VltEntry::unpack(&head.slice(head.width() - 1, 8 * BEAT_BYTES + aw), 32);

    // The groups being written, g and g + 1: a response's groups go out in order.
    let started = m.reg("vlu_started", 1, false);
    let next_group = m.reg("vlu_group", 32, 0u64);
    let group = mux(&started, &next_group, &e.k0.shr(log_s));
    let one = lit(&group, 1, 32);
    let group_b = &group + &one;
    let last_group = (&e.k0 + &e.high().zext(32)).shr(log_s);
    let (mask_a, data_a) = group_write(&e, &data, &group, load, s);
    let (mask_b, data_b) = group_write(&e, &data, &group_b, load, s);
    let a_last = group.eq(&last_group);
    // Two groups of one bank cannot go together.
    let b_in = if p.banks > 1 {
        !&a_last
    } else {
        lit(&a_last, 0, 1)
    };
    m.connect(out.valid(), &(&vldq.deq_valid() & &mask_a.or_r()));
    m.connect(field(out, "group"), &group);
    m.connect(field(out, "data"), &data_a);
    m.connect(field(out, "mask"), &mask_a);
    // Groups of no active element are skipped without a write; g + 1 goes only with g.
    let a_done = &vldq.deq_valid() & &(out.ready() | &!&mask_a.or_r());
    m.connect(next.valid(), &(&(&a_done & &b_in) & &mask_b.or_r()));
    m.connect(field(next, "group"), &group_b);
    m.connect(field(next, "data"), &data_b);
    m.connect(field(next, "mask"), &mask_b);
    let b_done = &(&a_done & &b_in) & &(next.ready() | &!&mask_b.or_r());
    let done = &a_done & &(&a_last | &(&b_done & &group_b.eq(&last_group)));
    let written = cat(&[
        &(&next.fire().repeat(s) & &mask_b),
        &(&out.fire().repeat(s) & &mask_a),
    ]);
    m.connect(&retire.written, &written);
    m.connect(&retire.group, &group);
    m.connect(&vldq.deq_ready(), &done);
    m.when(&a_done, |m| {
        m.connect(&started, &!&done);
        // Both sums in parallel: `b_done` comes late (through the lane's `ready`).
        let two = lit(&group, 2, 32);
        m.connect(&next_group, &mux(&b_done, &(&group + &two), &group_b));
    });
    Vlu {
        free_valid: done,
        free_idx: tag,
    }
}

/// The active elements of group `group` in the response (entry `e`, beat `data`): the
/// write mask (one bit per slot) and the slots' values, extended as `load` says.
fn group_write(
    e: &VltEntry,
    data: &Value,
    group: &Value,
    (width, unsigned, pitch): (&Value, &Value, &Value),
    s: u32,
) -> (Value, Value) {
    let log_s = s.trailing_zeros();
    let mut sel = Vec::new();
    let mut vals = Vec::new();
    for j in (0..s).rev() {
        let k = &group.shl(log_s) | &lit(group, j as u64, 32);
        let diff = k.subc(&e.k0);
        let i = diff.trunc(32);
        let in_beat = &!&diff.msb() & &!i.slice(31, 4).or_r();
        let i4 = i.trunc(4);
        sel.push(&in_beat & &e.active.dshr(&i4).bit(0));
        let byte = &e.offset + &i4.dshl(pitch);
        let raw = data.dshr(&byte.zext(7).shl(3)).trunc(64);
        vals.push(extend(&raw, width, unsigned));
    }
    (
        cat(&sel.iter().collect::<Vec<_>>()),
        cat(&vals.iter().collect::<Vec<_>>()),
    )
}
