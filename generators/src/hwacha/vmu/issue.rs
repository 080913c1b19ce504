//! The issue unit: turns the VPAQ's items into memory requests, in element order.
//!
//! Unit-stride elements collect into a beat (byte mask, data, the VLT description of a
//! load) until the element that ends its 16-byte beat, its lane strip or the command:
//! one request per beat touched. All the slots of an item that fall in the beat merge in
//! one cycle; an item running on into the next beat stays at the head for the rest. Other
//! modes send one request per active element, of the element's size. A beat of no active
//! element sends nothing. The next beat starts collecting in the cycle a beat is sent, so
//! a beat can go every cycle. A load request takes a free VLT entry as its tag; all
//! writes share the tag `vlt_entries` and their responses are only counted. An AMO
//! element is one request that memory performs atomically (`amo` = 1 + `amo_fn`, the
//! operand placed as store data, `write` set: the protocol of
//! `verification::tb::memory::amo`, as the thesis's L2 does AMOs); like a load it takes
//! a VLT entry, and its response, the old value, is written back by the VLU.

use super::addr::Element;
use super::vlu::{Retire, VltEntry, K0_BITS};
use super::{field, lit, vsu, Fifo, BEAT_BYTES, OP_AMO, OP_STORE};
use crate::hwacha::params::HwachaParams;
use hdl::helpers::{onehot_decode, popcount, priority_encode};
use hdl::ir::addr_width;
use hdl::{cat, mux, Bundle, Mem, MemStyle, ModuleBuilder, ResetValue, Value};

/// States: collecting elements, sending the beat.
const COLLECT: u64 = 0;
const SEND: u64 = 1;

pub struct Issue {
    /// Driven by the VLU: it releases entry `vlt_free_idx`.
    pub vlt_free_valid: Value,
    pub vlt_free_idx: Value,
    pub busy: Value,
    pub done_load: Value,
    pub done_store: Value,
    /// The element width and signedness of the load or AMO command writing back: its
    /// requests set them (a load command's elements wait for the previous one's
    /// `done_load`, so every outstanding request is this command's).
    pub load_width: Value,
    pub load_unsigned: Value,
    /// The command's element pitch (log2 bytes from one element to the next in a beat).
    pub load_pitch: Value,
}

/// The issue unit's registers: the beat being collected or sent, the command's progress,
/// the writes outstanding and the VLT's valid bits.
struct Regs {
    state: Value,
    open: Value,
    beat: Contents,
    write: Value,
    unit: Value,
    width: Value,
    unsigned: Value,
    op: Value,
    amo_fn: Value,
    last: Value,
    consumed: Value,
    load_pending: Value,
    writes: Value,
    vlt_valid: Value,
    done_store: Value,
    load_width: Value,
    load_unsigned: Value,
    load_pitch: Value,
    pitch: Value,
    carry: Carry,
}

/// The start of the next beat, taken from an item that runs on past the beat it closes
/// (a unit-stride group not aligned to 16 bytes): the next step begins its beat from it,
/// so a straddling item goes in one step and a beat can go every cycle.
struct Carry {
    valid: Value,
    beat: Contents,
}

/// A beat's contents: its first element `k0`, address, first byte, active elements, byte
/// mask and store data (the VLT entry and the request); datapath without reset.
struct Contents {
    k0: Value,
    addr: Value,
    offset: Value,
    active: Value,
    mask: Value,
    data: Value,
}

impl Contents {
    fn new(m: &mut ModuleBuilder, prefix: &str) -> Contents {
        let mut reg = |name: &str, w: u32| m.reg(&format!("{prefix}_{name}"), w, ResetValue::None);
        Contents {
            k0: reg("k0", 32),
            addr: reg("addr", 64),
            offset: reg("offset", 4),
            active: reg("active", BEAT_BYTES),
            mask: reg("mask", BEAT_BYTES),
            data: reg("data", 8 * BEAT_BYTES),
        }
    }
}

impl Regs {
    fn new(m: &mut ModuleBuilder, vlt_entries: u32) -> Regs {
        let cw = addr_width(vlt_entries as u64 + 1);
        // The beat's contents are datapath without reset: a fresh beat's first step
        // writes every field it reads (`keep` zeroes the accumulated ones), and a beat
        // is sent, and its fields read, only after a step.
        let none = || ResetValue::None;
        Regs {
            state: m.reg("iss_state", 2, COLLECT),
            open: m.reg("beat_open", 1, false),
            beat: Contents::new(m, "beat"),
            write: m.reg("beat_write", 1, none()),
            unit: m.reg("beat_unit", 1, none()),
            width: m.reg("beat_width", 2, none()),
            unsigned: m.reg("beat_unsigned", 1, none()),
            op: m.reg("beat_op", 2, none()),
            amo_fn: m.reg("beat_amo_fn", 4, none()),
            last: m.reg("beat_last", 1, none()),
            consumed: m.reg("item_consumed", 4, 0u64),
            load_pending: m.reg("load_pending", 1, false),
            writes: m.reg("writes_out", cw, 0u64),
            vlt_valid: m.reg("vlt_valid", vlt_entries, 0u64),
            done_store: m.reg("done_store_r", 1, false),
            load_width: m.reg("load_width", 2, none()),
            load_unsigned: m.reg("load_unsigned", 1, none()),
            load_pitch: m.reg("load_pitch", 2, none()),
            pitch: m.reg("beat_pitch", 2, none()),
            carry: Carry {
                valid: m.reg("carry_valid", 1, false),
                beat: Contents::new(m, "carry"),
            },
        }
    }

    fn in_state(&self, v: u64) -> Value {
        self.state.eq(&lit(&self.state, v, 2))
    }

    /// A command's last beat is done: a store is complete, a load or AMO has to write
    /// back what is still outstanding.
    fn finish(&self, m: &mut ModuleBuilder, last: &Value, op: &Value) {
        m.when(last, |m| {
            m.when(&is_op(op, OP_STORE), |m| {
                m.connect(&self.done_store, &lit(&self.done_store, 1, 1))
            })
            .otherwise(|m| m.connect(&self.load_pending, &lit(&self.load_pending, 1, 1)));
        });
    }
}

fn is_op(o: &Value, v: u64) -> Value {
    o.eq(&lit(o, v, 2))
}

/// The VLT: the description of each outstanding load request, by tag.
struct Vlt {
    n: u32,
    aw: u32,
    mem: Mem,
    valid: Value,
    free_valid: Value,
    free_idx: Value,
}

pub(super) fn build(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    vpaq: &Fifo,
    req: &Bundle,
    resp: &Bundle,
    vldq: &Fifo,
    retire: &Retire,
) -> Issue {
    let n = p.vlt_entries;
    let aw = addr_width(n as u64);
    let tb = field(req, "tag").width();
    let write_tag = lit(field(req, "tag"), n as u64, tb);
    let cw = addr_width(n as u64 + 1);

    let b = Regs::new(m, n);
    let writes = b.writes.clone();
    let done_store = b.done_store.clone();
    let vlt = Vlt {
        n,
        aw,
        mem: m.mem(
            "vlt",
            n as u64,
            VltEntry::width(K0_BITS),
            MemStyle::Inferred,
        ),
        valid: b.vlt_valid.clone(),
        free_valid: m.wire("vlt_free_valid", 1),
        free_idx: m.wire("vlt_free_idx", aw),
    };

    let ack = responses(m, resp, vldq, &vlt, retire, &write_tag);

    // Loads and AMOs retire in command order: one writes back at a time.
    let vlt_empty = !&vlt.valid.or_r();
    let done_load = &(&(&b.load_pending & &vlt_empty) & &!&vldq.nonempty()) & &retire.settled;
    m.connect(&retire.clear, &done_load);
    m.connect(&done_store, &lit(&done_store, 0, 1));
    m.when(&done_load, |m| {
        m.connect(&b.load_pending, &lit(&b.load_pending, 0, 1))
    });

    let (sent, alloc) = send(m, &b, req, &vlt, &writes, &write_tag);
    collect(m, p, &b, vpaq, retire, &sent);

    let wrote = (&sent & &b.write).zext(cw);
    let acked = (&resp.fire() & &ack).zext(cw);
    m.connect(&writes, &(&(&writes + &wrote) - &acked));

    let set = mux(
        &(&sent & &!&b.write),
        &onehot_decode(&alloc, n),
        &lit(&vlt.valid, 0, n),
    );
    let clear = mux(
        &vlt.free_valid,
        &onehot_decode(&vlt.free_idx, n),
        &lit(&vlt.valid, 0, n),
    );
    m.connect(&vlt.valid, &(&(&vlt.valid | &set) & &!&clear));

    // Busy until the last done is signalled (a store of no request ends with its pulse).
    let busy = [
        &b.open,
        &b.carry.valid,
        &!&b.in_state(COLLECT),
        &b.load_pending,
        &!&vlt_empty,
        &done_store,
    ]
    .into_iter()
    .fold(writes.or_r(), |a, b| &a | b);
    Issue {
        vlt_free_valid: vlt.free_valid,
        vlt_free_idx: vlt.free_idx,
        busy,
        done_load,
        done_store,
        load_width: b.load_width.clone(),
        load_unsigned: b.load_unsigned.clone(),
        load_pitch: b.load_pitch.clone(),
    }
}

/// Responses: writes are counted, reads go to the VLDQ. Returns whether the response is
/// a write's acknowledgement.
fn responses(
    m: &mut ModuleBuilder,
    resp: &Bundle,
    vldq: &Fifo,
    vlt: &Vlt,
    retire: &Retire,
    write_tag: &Value,
) -> Value {
    let resp_tag = field(resp, "tag");
    let ack = resp_tag.eq(write_tag);
    m.connect(resp.ready(), &(&ack | &vldq.enq_ready()));
    m.connect(&vldq.enq_valid(), &(resp.valid() & &!&ack));
    // Each read response takes its VLT entry along, `k0` made whole, so that the VLU
    // reads everything from the VLDQ's head.
    let mut looked_up = VltEntry::unpack(&m.read(&vlt.mem, &resp_tag.trunc(vlt.aw)), K0_BITS);
    looked_up.k0 = retire.k0(&looked_up.k0);
    m.connect(
        &vldq.enq_bits(),
        &cat(&[
            &looked_up.pack(),
            field(resp, "data"),
            &resp_tag.trunc(vlt.aw),
        ]),
    );
    ack
}

/// Sends the collected beat; a load takes the lowest free VLT entry as its tag. Returns
/// the request's fire and that entry.
fn send(
    m: &mut ModuleBuilder,
    b: &Regs,
    req: &Bundle,
    vlt: &Vlt,
    writes: &Value,
    write_tag: &Value,
) -> (Value, Value) {
    let (n, tb, cw) = (vlt.n, write_tag.width(), writes.width());
    let free = !&vlt.valid;
    let alloc = priority_encode(&free);
    let can = mux(
        &b.write,
        &writes.lt(&lit(writes, n as u64, cw)),
        &free.or_r(),
    );
    m.connect(req.valid(), &(&b.in_state(SEND) & &can));
    let line = &b.beat.addr & &!&lit(&b.beat.addr, (BEAT_BYTES - 1) as u64, 64);
    m.connect(
        field(req, "addr"),
        &mux(&b.unit, &line, &b.beat.addr).trunc(field(req, "addr").width()),
    );
    let is_amo = is_op(&b.op, OP_AMO);
    m.connect(field(req, "write"), &(&b.write | &is_amo));
    // An AMO's beat is its one element, placed at its offset as store data is.
    m.connect(field(req, "data"), &b.beat.data);
    m.connect(field(req, "mask"), &b.beat.mask);
    let amo_code = &b.amo_fn.zext(4) + &lit(&b.amo_fn, 1, 4);
    m.connect(
        field(req, "amo"),
        &mux(&is_amo, &amo_code, &lit(&b.amo_fn, 0, 4)),
    );
    let size_w = field(req, "size").width();
    let beat_size = lit(&b.width, BEAT_BYTES.trailing_zeros() as u64, size_w);
    m.connect(
        field(req, "size"),
        &mux(&b.unit, &beat_size, &b.width.zext(size_w)),
    );
    m.connect(
        field(req, "tag"),
        &mux(&b.write, write_tag, &alloc.zext(tb)),
    );
    let sent = req.fire();
    m.when(&sent, |m| {
        m.when(&b.write, |m| {
            m.connect(&b.state, &lit(&b.state, COLLECT, 2))
        })
        .otherwise(|m| {
            let entry = VltEntry {
                k0: b.beat.k0.trunc(K0_BITS),
                active: b.beat.active.clone(),
                offset: b.beat.offset.clone(),
            };
            m.write(&vlt.mem, &alloc, &entry.pack());
            m.connect(&b.load_width, &b.width);
            m.connect(&b.load_unsigned, &b.unsigned);
            m.connect(&b.load_pitch, &b.pitch);
            m.connect(&b.state, &lit(&b.state, COLLECT, 2));
        });
        b.finish(m, &b.last, &b.op);
    });
    (sent, alloc)
}

/// Collect: the slots of the head item that fall in the beat being collected. An item
/// running on into the next beat either goes whole, its rest carried into the next beat
/// (`Carry`: unit stride, the rest within the next beat and not ending it), or stays
/// for the rest (`consumed` slots are done).
fn collect(
    m: &mut ModuleBuilder,
    p: &HwachaParams,
    b: &Regs,
    vpaq: &Fifo,
    retire: &Retire,
    sent: &Value,
) {
    let s = p.slices();
    let consumed = &b.consumed;
    let e = Element::unpack(&vpaq.deq_bits(), s);
    let is_store = is_op(&e.op, OP_STORE);
    // A beat that is not its command's last makes way for the next in the cycle it is
    // sent (after a last one, the two might both complete commands in one cycle).
    let next_beat = sent & &!&b.last;
    let may_step = &(&b.in_state(COLLECT) | &next_beat)
        & &(&is_store | &(&!&b.load_pending & &retire.covers(&e.k, &e.count)));
    let step = &may_step & &vpaq.deq_valid();
    let slots = item_slots(s, &e, consumed);
    let carry = &(&(&slots.beyond & &e.unit) & &slots.rest_fits) & &!&(&e.last | &e.strip_end);
    m.connect(
        &vpaq.deq_ready(),
        &(&may_step & &(&!&slots.beyond | &carry)),
    );
    let item_last = &e.last & &!&slots.beyond;
    // An inactive element of a load is finished as soon as it is seen.
    let taken: Vec<Value> = (0..s as usize)
        .map(|j| &slots.here[j] | &(&carry & &slots.there[j]))
        .collect();
    let skips: Vec<Value> = (0..s)
        .map(|j| &taken[j as usize] & &!&e.active.bit(j))
        .collect();
    let skip_mask = cat(&skips.iter().rev().collect::<Vec<_>>());
    m.connect(&retire.skip_valid, &(&step & &!&(&is_store | &e.empty)));
    m.connect(&retire.skip_k, &e.k);
    m.connect(&retire.skip_mask, &skip_mask);

    // A fresh beat starts from the carry, if there is one.
    let fresh = !&b.open;
    let c = &b.carry;
    let zero = |v: &Value| lit(v, 0, v.width());
    let keep = |v: &Value, carried: &Value| mux(&fresh, &mux(&c.valid, carried, &zero(v)), v);
    let fresh_k0 = mux(&c.valid, &c.beat.k0, &(&e.k + &consumed.zext(32)));
    let first = mux(&fresh, &fresh_k0, &b.beat.k0);
    let here = place_slots(s, &e, &slots, &slots.here, &first);
    let new_active = &keep(&b.beat.active, &c.beat.active) | &here.active;
    let new_mask = &keep(&b.beat.mask, &c.beat.mask) | &here.mask;
    let new_data = &keep(&b.beat.data, &c.beat.data) | &here.data;
    // The beat ends with the item's last slot, a lane strip, the command or a mode of one
    // element per request.
    let close = [&slots.beyond, &!&e.unit, &item_last, &e.strip_end]
        .into_iter()
        .fold(slots.beat_end.clone(), |a, b| &a | b);
    m.when(&step, |m| {
        m.connect(&b.open, &!&close);
        m.connect(&b.beat.k0, &first);
        let consumed_addr = &e.addr + &consumed.zext(64).dshl(&e.pitch);
        let fresh_addr = mux(&c.valid, &c.beat.addr, &consumed_addr);
        m.connect(&b.beat.addr, &mux(&fresh, &fresh_addr, &b.beat.addr));
        let fresh_offset = mux(
            &c.valid,
            &c.beat.offset,
            &at_index(&slots.rel, consumed).trunc(4),
        );
        m.connect(&b.beat.offset, &mux(&fresh, &fresh_offset, &b.beat.offset));
        m.connect(&b.beat.active, &new_active);
        m.connect(&b.beat.mask, &new_mask);
        m.connect(&b.beat.data, &new_data);
        m.connect(&b.write, &is_store);
        m.connect(&b.unit, &e.unit);
        m.connect(&b.width, &e.width);
        m.connect(&b.pitch, &e.pitch);
        m.connect(&b.unsigned, &e.unsigned);
        m.connect(&b.op, &e.op);
        m.connect(&b.amo_fn, &e.amo_fn);
        m.connect(&b.last, &item_last);
        let after = consumed + &slots.count_here.zext(4).trunc(4);
        let stays = &slots.beyond & &!&carry;
        m.connect(consumed, &mux(&stays, &after, &zero(consumed)));
        m.connect(&c.valid, &carry);
        m.when(&carry, |m| {
            // The rest starts the next beat: its first slot is the one after `here`'s.
            let start = &(consumed + &slots.count_here.zext(4).trunc(4)).trunc(4);
            let k0 = &e.k + &start.zext(32);
            let rest = place_slots(s, &e, &slots, &slots.there, &k0);
            m.connect(&c.beat.k0, &k0);
            m.connect(&c.beat.addr, &(&e.addr + &start.zext(64).dshl(&e.pitch)));
            m.connect(&c.beat.offset, &at_index(&slots.rel, start).trunc(4));
            m.connect(&c.beat.active, &rest.active);
            m.connect(&c.beat.mask, &rest.mask);
            m.connect(&c.beat.data, &rest.data);
        });
        m.when(&close, |m| {
            m.when(&new_active.or_r(), |m| {
                m.connect(&b.state, &lit(&b.state, SEND, 2))
            })
            .otherwise(|m| b.finish(m, &item_last, &e.op));
        });
    });
}

/// Where an item's slots fall: `rel[j]`, slot j's byte from the start of the first
/// slot's beat; `here`, the unconsumed slots in the beat being collected (`current`);
/// `there`, those in the beat after it; `beyond`, any slot past the current beat;
/// `rest_fits`, the item ends inside the next beat, before its end; `beat_end`, the
/// item reaches the current beat's end.
struct Slots {
    rel: Vec<Value>,
    here: Vec<Value>,
    there: Vec<Value>,
    count_here: Value,
    beyond: Value,
    rest_fits: Value,
    beat_end: Value,
}

fn item_slots(s: u32, e: &Element, consumed: &Value) -> Slots {
    let first_byte = e.addr.trunc(4).zext(7);
    let rel: Vec<Value> = (0..s)
        .map(|j| &first_byte + &lit(&first_byte, j as u64, 7).dshl(&e.pitch))
        .collect();
    let beat_of: Vec<Value> = rel.iter().map(|r| r.slice(6, 4)).collect();
    let current = at_index(&beat_of, consumed);
    let next = &current + &lit(&current, 1, current.width());
    let mut here = Vec::new();
    let mut there = Vec::new();
    let mut beyond = lit(&current, 0, 1);
    for j in 0..s {
        let jv = lit(consumed, j as u64, 4);
        let valid = &e.count.gt(&jv) & &consumed.le(&jv);
        let same = &beat_of[j as usize].eq(&current) | &!&e.unit;
        beyond = &beyond | &(&valid & &!&same);
        there.push(&(&valid & &!&same) & &beat_of[j as usize].eq(&next));
        here.push(&valid & &same);
    }
    let end = &first_byte + &e.count.zext(7).dshl(&e.pitch);
    let count_here = popcount(&cat(&here.iter().rev().collect::<Vec<_>>()));
    Slots {
        beat_end: end.slice(6, 4).gt(&current),
        rest_fits: end.slice(6, 4).eq(&next),
        rel,
        here,
        there,
        count_here,
        beyond,
    }
}

/// `vals[idx]` (the last one for an index past them).
fn at_index(vals: &[Value], idx: &Value) -> Value {
    (1..vals.len()).fold(vals[0].clone(), |acc, j| {
        mux(&idx.eq(&lit(idx, j as u64, idx.width())), &vals[j], &acc)
    })
}

/// The active bits (element index from `k0`), byte mask and store data of the slots
/// `which` of item `e`, placed in their beat.
struct Placed {
    active: Value,
    mask: Value,
    data: Value,
}

fn place_slots(s: u32, e: &Element, slots: &Slots, which: &[Value], k0: &Value) -> Placed {
    let mut out = Placed {
        active: lit(&e.active, 0, BEAT_BYTES),
        mask: lit(&e.active, 0, BEAT_BYTES),
        data: lit(&e.data, 0, 8 * BEAT_BYTES),
    };
    for j in 0..s {
        let act = &which[j as usize] & &e.active.bit(j);
        let idx = (&(&e.k + &lit(&e.k, j as u64, 32)) - k0).trunc(4);
        let slot_data = e.data.slice(64 * j + 63, 64 * j);
        let placed = vsu::place(&slots.rel[j as usize].trunc(4), &e.width, &slot_data);
        let on = |v: &Value| &act.repeat(v.width()) & v;
        out.active = &out.active | &on(&lit(&out.active, 1, BEAT_BYTES).dshl(&idx));
        out.mask = &out.mask | &on(&placed.mask);
        out.data = &out.data | &on(&placed.data);
    }
    out
}
