//! One SIMT lane (seed 000, section 1.5 and Figure 3; docs/fgsimt-engine.md, Lanes):
//! its SRF bank (`srf.rs`: 7 read ports, SAU0 3 (rs3 for the fused FP operations),
//! SAU1 2, SGU 1, SSU 1; 3 write ports, SAU0, SAU1, SLU) and its units, thread c * lanes + l in slot c of lane l.
//!
//! Every unit takes a micro-op from the SIU in two stages: in the read cycle of slot c
//! (`*_r`) the lane reads the slot's source registers, each forwarded from a write port
//! writing that register and slot in the same cycle, into the unit's operand registers;
//! in the next (`*_x`) the unit executes and the SAUs' ALU results are written
//! (multiplies `mul_latency` - 1 cycles later, SAU0's FP operations `sfpu::latency`
//! later, divides when their slot's divider answers, fdiv.s/fsqrt.s at their slot's
//! `fpu::divsqrt`'s fixed latency), memory slots go to the SMU, and the SLU writes the load data latched in
//! the read cycle. The lanes are identical modules; `lane` gives the lane's number.
//!
//! The initial sp of slot c (an unwritten x2) is `sp0 - (c * lanes + lane) * sp_bytes`
//! with `sp0 = stack_top - tid_base * stack_bytes` of the warp.

use super::sau::{sau, slot_bits, Write};
use super::sgu::sgu;
use super::slu::slu;
use super::srf::srf;
use super::ssu::ssu;
use super::{sau, sgu as sgu_mod, slu as slu_mod};
use crate::fgsimt::params::FgsimtParams;
use hdl::helpers::priority_mux;
use hdl::ir::addr_width;
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Shape, Value};
use std::rc::Rc;

fn uint(name: &str, width: u32) -> hdl::Field {
    Shape::field(name, Shape::UInt(width))
}

/// Width of the `lane` number input (at least 1).
pub fn lane_bits(p: &FgsimtParams) -> u32 {
    addr_width(p.lanes as u64).max(1)
}

/// A unit's read cycle, SIU to every lane: the `slot` and the source registers
/// (`reg_bits`: the context, then 0-63: x0-x31, f0-f31; the lane reads them every cycle,
/// the SIU knows which cycles count);
/// SAU0's has `rs3`, the fused FP operations' third operand.
/// With +a each source also has its compact value ([`compact_fields`]): the lane
/// expands it for the slot's thread instead of reading the SRF.
pub fn r_uop(p: &FgsimtParams, unit: &str) -> Shape {
    let mut fields = vec![uint("slot", slot_bits(p))];
    for n in source_fields(unit) {
        fields.push(uint(n, p.reg_bits()));
        if p.affine_arith() {
            let [ok, base, stride] = compact_fields(n);
            fields.extend([uint(ok, 1), uint(base, 32), uint(stride, 16)]);
        }
    }
    Shape::bundle(fields)
}

/// A source's compact fields in a read micro-op (+a): `<rs>_ok`, `<rs>_base`,
/// `<rs>_stride`.
pub fn compact_fields(source: &str) -> [&'static str; 3] {
    match source {
        "rs1" => ["rs1_ok", "rs1_base", "rs1_stride"],
        "rs2" => ["rs2_ok", "rs2_base", "rs2_stride"],
        _ => ["rs3_ok", "rs3_base", "rs3_stride"],
    }
}

/// The source registers a unit reads: SAU0 three (its own SRF read port for rs3), the
/// others two.
pub fn source_fields(unit: &str) -> &'static [&'static str] {
    if unit == "sau0" {
        &["rs1", "rs2", "rs3"]
    } else {
        &["rs1", "rs2"]
    }
}

/// The lane's input of context `k`'s warp's thread 0's sp: `sp0`, or `sp0_<k>` with
/// `warps` > 1.
pub fn sp0_port(p: &FgsimtParams, k: u32) -> String {
    match p.warps {
        1 => "sp0".into(),
        _ => format!("sp0_{k}"),
    }
}

/// The SRF's write ports, in port order.
pub const WRITE_PORTS: [&str; 3] = ["sau0", "sau1", "slu"];

pub fn lane(p: &FgsimtParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtLane");
    let lane = m.input("lane", lane_bits(p));
    let bank = m.instance("srf", &srf(p.threads_per_lane(), p.warps, (7, 3))?);
    warp_init(&mut m, p, &lane, &bank);
    let units = ["sau0", "sau1", "mem"];
    let reads: Vec<hdl::Bundle> = units
        .iter()
        .map(|u| m.io(&format!("{u}_r"), Dir::In, &r_uop(p, u)))
        .collect();
    let sau_x: Vec<hdl::Bundle> = (0..2)
        .map(|u| m.io(&format!("sau{u}_x"), Dir::In, &sau::x_uop(p, u)))
        .collect();
    let mem_x = m.io("mem_x", Dir::In, &sgu_mod::x_uop(p));
    let slu_x = m.io("slu_x", Dir::In, &slu_mod::x_uop(p));
    let load_data = m.input("load_data", 32);
    // The write ports' signals, driven once the units are built (forwarding reads them).
    let writes: Vec<Write> = (0..3)
        .map(|i| Write {
            en: m.wire(&format!("w{i}_en"), 1),
            reg: m.wire(&format!("w{i}_reg"), p.reg_bits()),
            slot: m.wire(&format!("w{i}_slot"), slot_bits(p)),
            data: m.wire(&format!("w{i}_data"), 32),
        })
        .collect();
    // Operand registers: the sources of each unit, loaded every cycle.
    let mut operands = Vec::new();
    let mut port = 0;
    for (u, r) in units.iter().zip(&reads) {
        let slot = r.get("slot").value();
        let mut sources = Vec::new();
        for field in source_fields(u) {
            let reg = r.get(field).value();
            m.connect(&bank.port(&format!("r{port}_reg")), reg);
            m.connect(&bank.port(&format!("r{port}_slot")), slot);
            let read = bank.port(&format!("r{port}_data"));
            let mut value = forward(&writes, reg, slot, &read);
            if p.affine_arith() {
                value = expand(p, r, field, (&lane, slot), &value);
            }
            let latch = m.reg(&format!("{u}_{field}"), 32, ResetValue::None);
            m.connect(&latch, &value);
            sources.push(latch);
            port += 1;
        }
        operands.push(sources);
    }
    let mut results = Vec::new();
    for (u, x) in sau_x.iter().enumerate() {
        let o = &operands[u];
        let rs3 = o.get(2).unwrap_or(&o[1]);
        let out = sau(&mut m, p, u as u32, x, &lane, (&o[0], &o[1], rs3))?;
        for (name, v) in [
            ("taken", &out.taken),
            ("jump", &out.jump),
            ("target", &out.target),
        ] {
            let port = m.output(&format!("sau{u}_{name}"), v.width());
            m.connect(&port, v);
        }
        results.push(out.write);
    }
    results.push(slu(&mut m, p, &slu_x, &lane, &load_data));
    memory_slot(&mut m, p, &mem_x, &lane, (&operands[2][0], &operands[2][1]));
    for (i, (w, r)) in writes.iter().zip(&results).enumerate() {
        let t = m.io(
            &format!("w{i}"),
            Dir::Out,
            &crate::fgsimt::bundles::srf_write(p.threads_per_lane(), p.reg_bits()),
        );
        m.connect(t.valid(), &r.en);
        let fields = [
            ("en", &w.en, &r.en),
            ("reg", &w.reg, &r.reg),
            ("slot", &w.slot, &r.slot),
            ("data", &w.data, &r.data),
        ];
        for (field, wire, v) in fields {
            m.connect(wire, v);
            m.connect(&bank.port(&format!("w{i}_{field}")), v);
            if field != "en" {
                m.connect(t.bits().get(field).value(), v);
            }
        }
    }
    m.finish()
}

/// A source's value for the slot's thread: its compact value (`base + i * stride`,
/// thread i = slot * lanes + lane) when the micro-op says so, else `value` (the SRF's).
fn expand(
    p: &FgsimtParams,
    r: &hdl::Bundle,
    source: &str,
    (lane, slot): (&Value, &Value),
    value: &Value,
) -> Value {
    let [ok, base, stride] = compact_fields(source).map(|n| r.get(n).value().clone());
    let index = sau::thread_index(p, slot, lane).slice(5, 0).as_signed();
    let step = stride.as_signed().mul(&index).sext(32).as_unsigned();
    hdl::mux(&ok, &(&base + &step), value)
}

/// `read`, or the value a write port writes to `reg` and `slot` in this cycle.
fn forward(writes: &[Write], reg: &Value, slot: &Value, read: &Value) -> Value {
    let cases: Vec<(Value, Value)> = writes
        .iter()
        .map(|w| (&(&w.en & &w.reg.eq(reg)) & &w.slot.eq(slot), w.data.clone()))
        .collect();
    priority_mux(&cases, read)
}

/// The memory slot of thread `slot * lanes + lane`: `mem_addr`, `mem_data`, `mem_bmask`,
/// `mem_active` (in the mask), `mem_misaligned`.
fn memory_slot(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    x: &hdl::Bundle,
    lane: &Value,
    (rs1, rs2): (&Value, &Value),
) {
    let (addr, misaligned) = sgu(x, rs1);
    let (data, bytes) = ssu(&addr, x.get("size").value(), rs2);
    let active = sau::active(p, x.get("mask").value(), x.get("slot").value(), lane);
    for (name, v) in [
        ("mem_addr", &addr),
        ("mem_data", &data),
        ("mem_bmask", &bytes),
        ("mem_active", &active),
        ("mem_misaligned", &misaligned),
    ] {
        let port = m.output(name, v.width());
        m.connect(&port, v);
    }
}

/// The SRF's initial values: `warp_start` (a bit a context) clears a context's written
/// bits; sp per context and slot from the context's warp's `sp0` (`sp0_<k>` with
/// `warps` > 1) and `sp_bytes`, `gp` and `tp`.
fn warp_init(m: &mut ModuleBuilder, p: &FgsimtParams, lane: &Value, bank: &hdl::Inst) {
    let warp_start = m.input("warp_start", p.warps);
    let sp0: Vec<Value> = (0..p.warps).map(|k| m.input(&sp0_port(p, k), 32)).collect();
    let bytes = m.input("sp_bytes", 32);
    let gp = m.input("gp", 32);
    let tp = m.input("tp", 32);
    m.connect(&bank.port("warp_start"), &warp_start);
    m.connect(&bank.port("init_gp"), &gp);
    m.connect(&bank.port("init_tp"), &tp);
    let lane_off = bytes.mul(lane).slice(31, 0);
    for c in 0..p.threads_per_lane() {
        let k = bytes.konst(Bits::from_u64(32, (c * p.lanes) as u64));
        let off = &lane_off + &bytes.mul(&k).slice(31, 0);
        for (ctx, sp0) in sp0.iter().enumerate() {
            let name = super::srf::init_sp_port(p.warps, ctx as u32, c);
            m.connect(&bank.port(&name), &(sp0 - &off));
        }
    }
}
