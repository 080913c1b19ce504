//! The private-stack check of a memory slot (with `avc`; seed 002, section 3.2: "private
//! memory ... accessed through per-thread stacks", and the rule spec 002 leaves open,
//! settled in `verification::fgsimt::avc::private::Stacks::violation`): the launch's
//! stacks `[stack_top - threads * stack_bytes, stack_top)` are private memory. An active
//! thread's access to its own stack is private (the SMU sends it to the AVC,
//! `smu/private.rs`); one to another thread's stack, or an atomic (LR, SC, AMO) to any
//! stack, is an access fault (5 for a load or LR, 7 for a store, SC or AMO; a misaligned
//! access's own fault comes first).
//!
//! Thread `i = slot * lanes + l` of the warp owns `[lo, lo + stack_bytes)` with
//! `lo = sp0 - (i + 1) * stack_bytes` (sp0: the warp's thread 0's sp). Each lane's
//! `sp0 - (l + 1) * stack_bytes` is latched after `warp_start`, per warp context (the
//! slot's context picks its warp's); a slot subtracts `slot * lanes * stack_bytes`. All
//! arithmetic is 32-bit, as the model's.

use super::l1::op;
use super::params::FgsimtParams;
use crate::blocks::{cat_low_first, k};
use hdl::{ModuleBuilder, ResetValue, Value};

/// A slot's classification, one bit a lane.
pub struct StackCheck {
    /// Active threads accessing their own stack (not atomically).
    pub private: Value,
    /// Active threads breaking the rule.
    pub violation: Value,
    /// Each lane's byte offset in its thread's stack.
    pub offsets: Vec<Value>,
}

/// The warps' stack layout: `warp_start` (a bit a context), then each context's warp's
/// thread 0's sp and the bytes a thread as latched by it, and the kernel state's
/// `stack_top` and `stack_region` (the stacks' bytes, registered; both constant while a
/// launch runs).
pub struct WarpStacks<'a> {
    pub start: &'a Value,
    pub sp0: &'a [Value],
    pub bytes: &'a Value,
    pub top: &'a Value,
    pub region: &'a Value,
}

/// The check of the slot whose index is `slot`, op `op`, context `ctx` (with
/// contexts), active lanes `active` and lanes' addresses `addrs`. Each lane's stack base
/// is latched the cycle after its context's `warp_start`, from the warp's registers (no
/// slot arrives sooner).
pub fn stack_check(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    w: &WarpStacks,
    (slot, opv, active, ctx): (&Value, &Value, &Value, Option<&Value>),
    addrs: &[Value],
) -> StackCheck {
    let started = m.reg("stack_latch", w.start.width(), 0u64);
    m.connect(&started, w.start);
    let pick = ctx.map(|c| hdl::helpers::onehot_decode(c, w.sp0.len() as u32));
    let stride = w.bytes.shl(p.lanes.trailing_zeros());
    let slot_off = slot.zext(32).mul(&stride).slice(31, 0);
    let atomic = opv.ge(&k(opv, op::LR, op::BITS));
    let last = w.top - &k(w.top, 1, 32);
    let (mut private, mut violation, mut offsets) = (Vec::new(), Vec::new(), Vec::new());
    for (l, addr) in addrs.iter().enumerate() {
        let below = w.bytes.mul(&k(w.bytes, l as u64 + 1, 32)).slice(31, 0);
        let bases: Vec<Value> = w
            .sp0
            .iter()
            .enumerate()
            .map(|(c, sp0)| {
                let name = match pick {
                    None => format!("stack_lo{l}"),
                    Some(_) => format!("stack_lo{c}_{l}"),
                };
                let base = m.reg_en(&name, 32, ResetValue::None, &started.bit(c as u32));
                m.connect(&base, &(sp0 - &below));
                base
            })
            .collect();
        let base = match &pick {
            None => bases[0].clone(),
            Some(sel) => hdl::helpers::onehot_mux(sel, &bases),
        };
        let off = &(addr - &base) + &slot_off;
        let own = off.lt(w.bytes);
        let in_region = (&last - addr).lt(w.region);
        let on = active.bit(l as u32);
        private.push(&(&on & &own) & &!&atomic);
        violation.push(&(&on & &in_region) & &(&!&own | &atomic));
        offsets.push(off);
    }
    StackCheck {
        private: cat_low_first(&private),
        violation: cat_low_first(&violation),
        offsets,
    }
}
