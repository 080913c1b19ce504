//! One lane's bank of the SIMT register file (seed 000, section 1.5 and Figure 3: "SRF";
//! docs/fgsimt-engine.md, Lanes): 64 registers (x0-x31, then f0-f31) for each of the
//! lane's `slots` threads of a warp (thread c * lanes + l in slot c of lane l), in flops
//! with `reads` combinational read ports and `writes` write ports (a multi-ported register
//! file, as the paper says; no SRAM macro serves these ports).
//!
//! A "written since the warp started" bit per register and slot spares a warp's start
//! from initialising 256 registers a lane: an unwritten register reads its initial value
//! (the ABI's: `sp` per slot, `gp`, `tp`, zero for the rest; `init_sp<c>` come from the
//! expansion of the warp's sp), so `warp_start` only clears the bits. With `warps` > 1
//! the bank holds every context's registers (register `ctx * 64 + r`), and a context's
//! start clears only its bits (docs/fgsimt-engine.md, "Multithreading"). x0 reads zero
//! whatever is written to it. Two writes to one register and slot in a cycle: the
//! higher-numbered port wins (the SIU never issues them).

use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{cat, mux, Bits, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// Registers of a context in a bank: 32 integer, then 32 floating-point.
pub const REGS: u32 = 64;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// The bank's input of context `ctx`'s slot `slot`'s initial sp: `init_sp<slot>`, or
/// `init_sp<ctx>_<slot>` with several contexts.
pub fn init_sp_port(contexts: u32, ctx: u32, slot: u32) -> String {
    match contexts {
        1 => format!("init_sp{slot}"),
        _ => format!("init_sp{ctx}_{slot}"),
    }
}

/// A bank for `slots` threads of each of `contexts` warp contexts (register `ctx * 64 +
/// r`) with `reads` read and `writes` write ports. Ports: `warp_start` (a bit a
/// context), [`init_sp_port`]s, `init_gp`, `init_tp`; read port i: `r<i>_reg`,
/// `r<i>_slot` in, `r<i>_data` out; write port i: `w<i>_en`, `w<i>_reg`, `w<i>_slot`,
/// `w<i>_data`.
pub fn srf(
    slots: u32,
    contexts: u32,
    (reads, writes): (u32, u32),
) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("SrfBank");
    let regs = REGS * contexts;
    let (rw, sw) = (addr_width(regs as u64), addr_width(slots as u64).max(1));
    let warp_start = m.input("warp_start", contexts);
    let init_sp: Vec<Vec<Value>> = (0..contexts)
        .map(|k| {
            (0..slots)
                .map(|c| m.input(&init_sp_port(contexts, k, c), 32))
                .collect()
        })
        .collect();
    let init_gp = m.input("init_gp", 32);
    let init_tp = m.input("init_tp", 32);
    // data[slot][reg], written[slot] (one bit a register).
    let data: Vec<Vec<Value>> = (0..slots)
        .map(|c| {
            (0..regs)
                .map(|r| m.reg(&format!("s{c}_r{r}"), 32, ResetValue::None))
                .collect()
        })
        .collect();
    let written: Vec<Value> = (0..slots)
        .map(|c| m.reg(&format!("written{c}"), regs, 0u64))
        .collect();
    // Bits each slot's writes set this cycle, over all ports.
    let mut set: Vec<Value> = written.iter().map(|w| lit(w, 0, regs)).collect();
    for i in 0..writes {
        let en = m.input(&format!("w{i}_en"), 1);
        let reg = m.input(&format!("w{i}_reg"), rw);
        let slot = m.input(&format!("w{i}_slot"), sw);
        let wdata = m.input(&format!("w{i}_data"), 32);
        for (c, row) in data.iter().enumerate() {
            let here = &en & &slot.eq(&lit(&slot, c as u64, sw));
            for (r, cell) in row.iter().enumerate() {
                let hit = &here & &reg.eq(&lit(&reg, r as u64, rw));
                m.when(&hit, |m| m.connect(cell, &wdata));
            }
            let bit = lit(&written[c], 1, regs).dshl(&reg);
            set[c] = &set[c] | &mux(&here, &bit, &lit(&bit, 0, regs));
        }
    }
    // A context's start clears its 64 bits.
    let cleared: Vec<Value> = (0..contexts)
        .rev()
        .map(|k| warp_start.bit(k).repeat(REGS))
        .collect();
    let keep = !&cat(&cleared.iter().collect::<Vec<_>>());
    for (w, s) in written.iter().zip(&set) {
        m.connect(w, &(&(w & &keep) | s));
    }
    for i in 0..reads {
        let reg = m.input(&format!("r{i}_reg"), rw);
        let slot = m.input(&format!("r{i}_slot"), sw);
        let out = m.output(&format!("r{i}_data"), 32);
        let value = read(&reg, &slot, &data, &written, (&init_sp, &init_gp, &init_tp));
        m.connect(&out, &value);
    }
    m.finish()
}

/// Register `reg` of slot `slot`: its written value, else its initial one; x0 is zero.
fn read(
    reg: &Value,
    slot: &Value,
    data: &[Vec<Value>],
    written: &[Value],
    (init_sp, gp, tp): (&[Vec<Value>], &Value, &Value),
) -> Value {
    // One-hot selections (AND-OR trees), not chains of multiplexers: the read is on
    // the lanes' critical path (SIU register, this read, forwarding, operand register).
    let slots = onehot_decode(slot, data.len() as u32);
    let pick = |values: Vec<Value>| onehot_mux(&slots, &values);
    let regs = onehot_decode(reg, data[0].len() as u32);
    let row_value = pick(data.iter().map(|row| onehot_mux(&regs, row)).collect());
    let was_written = pick(written.iter().map(|w| w.dshr(reg).bit(0)).collect());
    let r = reg.slice(5, 0);
    let is = |v: u64| r.eq(&lit(&r, v, 6));
    let zero = lit(gp, 0, 32);
    let sp = match init_sp {
        [one] => pick(one.clone()),
        _ => {
            let ctx = onehot_decode(&reg.slice(reg.width() - 1, 6), init_sp.len() as u32);
            let per_ctx: Vec<Value> = init_sp.iter().map(|s| pick(s.clone())).collect();
            onehot_mux(&ctx, &per_ctx)
        }
    };
    let initial = mux(&is(2), &sp, &mux(&is(3), gp, &mux(&is(4), tp, &zero)));
    let value = mux(&was_written, &row_value, &initial);
    mux(&is(0), &zero, &value)
}
