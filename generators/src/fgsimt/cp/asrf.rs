//! The affine/scalar register file of the running warp (seed 000, section 2.1 and
//! Figure 3: "ASRF"; docs/fgsimt-engine.md, "CP engine side"), as the golden model's
//! `verification::fgsimt::affine::asrf::Asrf` keeps it: one entry per register, indexed
//! as the SRF is (0-31 x, 32-63 f), each a tag `ok` (compact) with a 32-bit `base` and,
//! for x registers, a 16-bit signed `stride` (thread i of the warp holds base + i *
//! stride); f registers hold uniforms only (affine FP is not allowed), so their stride
//! is 0. x0 is always the uniform 0.
//!
//! `start` loads a warp's initial values: every register uniform 0 (x1 too: the ABI's
//! return address is the exit pc 0; f registers +0.0) but sp (`sp_base`, `sp_stride`,
//! compact when `sp_ok`), gp and tp (uniform). Reads are combinational (four ports: the
//! instruction's three sources and its destination's old entry, which the lazy
//! expansion writes back for the threads outside the fragment); one write a cycle.
//!
//! With several warp contexts (`warps` > 1, seed 001's resident warps) the file holds a
//! bank of 64 entries a context, numbered `ctx * 64 + r` as the SRF's registers are;
//! `start` loads context `start_ctx`'s bank.

use hdl::{Bits, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// Entries: x0-x31, f0-f31.
pub const ENTRIES: u32 = 64;
/// Read ports: rs1, rs2, rs3 and rd.
pub const READS: u32 = 4;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// The ASRF (`Asrf`) of `contexts` banks (a power of two). Ports: `start`, `sp_base`,
/// `sp_stride`, `sp_ok`, `gp`, `tp` (and `start_ctx` with contexts); read port i:
/// `r<i>_reg` in, `r<i>_ok`, `r<i>_base`, `r<i>_stride` out; the write port `w_en`,
/// `w_reg`, `w_ok`, `w_base`, `w_stride`. Register numbers are `6 + log2(contexts)`
/// bits wide.
pub fn asrf(contexts: u32) -> Result<Rc<Module>, HdlErrors> {
    assert!(contexts.is_power_of_two(), "ASRF contexts: {contexts}");
    let mut m = ModuleBuilder::new("Asrf");
    let cb = contexts.trailing_zeros();
    let rb = 6 + cb;
    let start_in = m.input("start", 1);
    let starts: Vec<Value> = match cb {
        0 => vec![start_in],
        _ => {
            let at = m.input("start_ctx", cb);
            let sel = hdl::helpers::onehot_decode(&at, contexts);
            (0..contexts).map(|k| &start_in & &sel.bit(k)).collect()
        }
    };
    let sp_base = m.input("sp_base", 32);
    let sp_stride = m.input("sp_stride", 16);
    let sp_ok = m.input("sp_ok", 1);
    let gp = m.input("gp", 32);
    let tp = m.input("tp", 32);
    let (en, reg) = (m.input("w_en", 1), m.input("w_reg", rb));
    let (w_ok, w_base, w_stride) = (
        m.input("w_ok", 1),
        m.input("w_base", 32),
        m.input("w_stride", 16),
    );
    let zero32 = lit(&gp, 0, 32);
    let zero16 = lit(&gp, 0, 16);
    let (mut oks, mut bases, mut strides) = (Vec::new(), Vec::new(), Vec::new());
    for (k, start) in starts.iter().enumerate() {
        oks.push(lit(&gp, 1, 1));
        bases.push(zero32.clone());
        strides.push(zero16.clone());
        for r in 1..ENTRIES as u64 {
            let n = k as u64 * ENTRIES as u64 + r;
            let hit = &en & &reg.eq(&lit(&reg, n, rb));
            let ok = m.reg(&format!("ok{n}"), 1, false);
            let base = m.reg(&format!("base{n}"), 32, ResetValue::None);
            let (init_ok, init_base) = match r {
                2 => (sp_ok.clone(), sp_base.clone()),
                3 => (lit(&gp, 1, 1), gp.clone()),
                4 => (lit(&gp, 1, 1), tp.clone()),
                _ => (lit(&gp, 1, 1), zero32.clone()),
            };
            m.when(start, |m| {
                m.connect(&ok, &init_ok);
                m.connect(&base, &init_base);
            })
            .elsewhen(&hit, |m| {
                m.connect(&ok, &w_ok);
                m.connect(&base, &w_base);
            });
            oks.push(ok);
            bases.push(base);
            if r < 32 {
                let stride = m.reg(&format!("stride{n}"), 16, ResetValue::None);
                let init = if r == 2 { &sp_stride } else { &zero16 };
                m.when(start, |m| m.connect(&stride, init))
                    .elsewhen(&hit, |m| m.connect(&stride, &w_stride));
                strides.push(stride);
            } else {
                strides.push(zero16.clone());
            }
        }
    }
    let regs = hdl::helpers::onehot_decode;
    for i in 0..READS {
        let r = m.input(&format!("r{i}_reg"), rb);
        let sel = regs(&r, ENTRIES * contexts);
        for (name, values) in [("ok", &oks), ("base", &bases), ("stride", &strides)] {
            let v = hdl::helpers::onehot_mux(&sel, values);
            let out = m.output(&format!("r{i}_{name}"), v.width());
            m.connect(&out, &v);
        }
    }
    m.finish()
}
