//! F and D of the scalar unit (thesis Figure 8.4): the fetch pointer and the
//! outstanding vector I$ request, and the two instruction slots (X's instruction
//! register and the fetch buffer behind it). Fetch runs ahead only in straight-line
//! code (the module comment of `scalar/mod.rs`).

use super::{Consts, RamWindow, Unit, XControl, K};
use hdl::{mux, ModuleBuilder, Value};

/// An instruction slot of F/D: the word, its vpc, and the fetch fault in its place (1
/// misaligned vpc, 2 outside memory).
pub(super) struct Slot {
    pub(super) valid: Value,
    pub(super) bits: Value,
    pub(super) pc: Value,
    pub(super) fault: Value,
}

impl Slot {
    fn load(&self, m: &mut ModuleBuilder, from: &Slot) {
        m.connect(&self.valid, &from.valid);
        m.connect(&self.bits, &from.bits);
        m.connect(&self.pc, &from.pc);
        m.connect(&self.fault, &from.fault);
    }
}

/// The registers of F and D.
pub(super) struct FetchRegs {
    pub(super) pc: Value,
    f_out: Value,
    f_pc: Value,
    f_drop: Value,
    hold: Value,
    /// X's instruction register.
    pub(super) d_slot: Slot,
    /// The fetch buffer behind it.
    pub(super) fb: Slot,
}

/// This cycle's I$ answer and fetch fault, for the slots.
pub(super) struct Fetched {
    arrived: Value,
    resp_data: Value,
    fault_now: Value,
    fetch_pc: Value,
    fetch_fault: Value,
}

/// F and D: the fetch pointer, the outstanding fetch, and two instruction slots: the
/// instruction register X works on and a fetch buffer behind it.
pub(super) fn fetch_regs(m: &mut ModuleBuilder) -> FetchRegs {
    let pc = m.reg("pc", 64, 0u64);
    let f_out = m.reg("f_out", 1, false);
    let f_pc = m.reg("f_pc", 64, 0u64);
    // The outstanding fetch belongs to a block an exception ended: its answer is dropped.
    let f_drop = m.reg("f_drop", 1, false);
    // Fetch waits after a control instruction (jump, vstop) or a fault: the vpc
    // after it is known only when X executes it, so fetch never needs squashing.
    let hold = m.reg("hold", 1, false);
    let slot = |name: &str, m: &mut ModuleBuilder| Slot {
        valid: m.reg(&format!("{name}_valid"), 1, false),
        bits: m.reg(name, 64, 0u64),
        pc: m.reg(&format!("{name}_pc"), 64, 0u64),
        fault: m.reg(&format!("{name}_fault"), 2, 0u64),
    };
    let d_slot = slot("ir", m);
    let fb = slot("fb", m);
    FetchRegs {
        pc,
        f_out,
        f_pc,
        f_drop,
        hold,
        d_slot,
        fb,
    }
}

/// Fetch: sequential from `pc`, or X's jump target as it executes the jump. A request
/// needs room for its answer in the two slots once X has taken its instruction.
pub(super) fn fetch(
    m: &mut ModuleBuilder,
    c: &Consts,
    ram: RamWindow,
    u: &Unit,
    ctl: &XControl,
    next_pc: &Value,
    vf: &Value,
) -> Fetched {
    let (k, one, zero) = (c.k, &c.one, &c.zero);
    let (f, abort, x_fire) = (&u.f, &ctl.abort, &ctl.x_fire);
    let (pc, f_out, hold) = (&f.pc, &f.f_out, &f.hold);
    let ic_req = u.blocks.icache.io("cpu_req");
    let ic_resp = u.blocks.icache.io("cpu_resp");
    let resp_now = ic_resp.valid().clone();
    let resp_data = ic_resp.bits().get("data").value().clone();
    let arrived = &(&resp_now & &!&f.f_drop) & &!abort;
    let ctl_op = resp_data.slice(11, 7);
    // vcjalr 0x19, vcjal 0x1b, vstop 0x18 (vfence, also 0x18, has bit 53 set).
    let stop_like = &ctl_op.eq(&k(0x18, 5)) & &!&resp_data.bit(53);
    let resp_ctl = &resp_data.slice(6, 0).eq(&k(0x3f, 7))
        & &(&(&ctl_op.eq(&k(0x19, 5)) | &ctl_op.eq(&k(0x1b, 5))) | &stop_like);
    let redirect = x_fire & &ctl.cj;
    let holding = &(hold & &!&redirect) | &(&arrived & &resp_ctl);
    let queued = &(&f.d_slot.valid.zext(2) + &f.fb.valid.zext(2)) + &f_out.zext(2);
    let room = (&queued - &x_fire.zext(2)).lt(&k(2, 2));
    let fetching = &(&(&u.arch.running & &!&holding) & &room) & &(&(&!f_out | &resp_now) & &!abort);
    let fetch_pc = mux(&redirect, next_pc, pc);
    let fetch_off = &fetch_pc - &k(ram.base, 64);
    let fetch_ok_addr = fetch_off.lt(&k(ram.size & !7, 64));
    let fetch_fault = mux(
        &fetch_pc.slice(2, 0).or_r(),
        &k(1, 2),
        &mux(&fetch_ok_addr, &k(0, 2), &k(2, 2)),
    );
    let bad = fetch_fault.ne(&k(0, 2));
    // A fault takes a slot in place of an answer, so only while none can arrive.
    let fault_now = &(&fetching & &bad) & &!f_out;
    let icq = ic_req.bits();
    m.connect(ic_req.valid(), &(&fetching & &!&bad));
    m.connect(icq.get("addr").value(), &fetch_pc.slice(31, 0));
    m.connect(icq.get("write").value(), zero);
    m.connect(icq.get("data").value(), &k(0, 64));
    m.connect(icq.get("mask").value(), &k(0xff, 8));
    m.connect(icq.get("size").value(), &k(3, 3));
    m.when(&redirect, |m| m.connect(pc, next_pc));
    m.when(&resp_now, |m| {
        m.connect(f_out, zero);
        m.connect(&f.f_drop, zero);
    });
    m.when(&ic_req.fire(), |m| {
        m.connect(f_out, one);
        m.connect(&f.f_pc, &fetch_pc);
        m.connect(pc, &(&fetch_pc + &k(8, 64)));
    });
    m.when(&(abort & &(f_out & &!&resp_now)), |m| {
        m.connect(&f.f_drop, one)
    });
    m.connect(hold, &holding);
    m.when(&fault_now, |m| m.connect(hold, one));
    m.when(&(vf | abort), |m| m.connect(hold, zero));
    Fetched {
        arrived,
        resp_data,
        fault_now,
        fetch_pc,
        fetch_fault,
    }
}

/// The slots: what arrives goes to the first free one; X's slot refills from the buffer.
pub(super) fn refill_slots(m: &mut ModuleBuilder, k: K, u: &Unit, fo: &Fetched, x_fire: &Value) {
    let (d_slot, fb) = (&u.f.d_slot, &u.f.fb);
    let arrival = Slot {
        valid: &fo.arrived | &fo.fault_now,
        bits: fo.resp_data.clone(),
        pc: mux(&fo.arrived, &u.f.f_pc, &fo.fetch_pc),
        fault: mux(&fo.arrived, &k(0, 2), &fo.fetch_fault),
    };
    let ir_free = &!&d_slot.valid | x_fire;
    m.when(&ir_free, |m| {
        m.when(&fb.valid, |m| {
            d_slot.load(m, fb);
            fb.load(m, &arrival);
        })
        .otherwise(|m| d_slot.load(m, &arrival));
    })
    .otherwise(|m| {
        m.when(&arrival.valid, |m| fb.load(m, &arrival));
    });
}
