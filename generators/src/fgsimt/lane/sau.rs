//! A lane's SIMT arithmetic unit, integer baseline (seed 000, section 1.5 and Figure 3:
//! "SAU0", "SAU1"; docs/fgsimt-engine.md, SIU and Lanes). In the execute cycle of thread
//! slot c it computes thread c * lanes + l's result from the operands the lane latched
//! the cycle before: the Rocket core's ALU at 32 bits (`rocket/alu.rs`) for the integer
//! operations, `lui`, `auipc`, the `jal`/`jalr` link (pc + 4) and `tidx` (the warp's
//! `tid_base` plus the thread's index in the warp); the branch compare (the thread's
//! taken bit); a `jalr`'s target (`(rs1 + imm) & !1`). SAU0 adds the pipelined
//! multiplier (one 33 x 33 signed product, `arith::multiply`, `mul_latency` - 1 pipeline
//! registers, serving MUL, MULH, MULHSU and MULHU), SAU1 the dividers: one Rocket
//! `MulDiv` per thread slot (its divide at word width is RV32's DIV[U]/REM[U], by zero
//! and overflow included), so the T threads of a warp instruction divide in parallel.

use super::sfpu::{latency as sfpu_latency, sfpu};
use crate::arith::adder::Style;
use crate::arith::{multiply, MulConfig};
use crate::fgsimt::params::FgsimtParams;
use crate::fgsimt::params::FDIV_BITS_PER_CYCLE;
use crate::fpu::divsqrt::divsqrt;
use crate::fpu::SINGLE;
use crate::rocket::alu::{alu, branch_taken};
use crate::rocket::decode::alu_fn;
use crate::rocket::fpu;
use crate::rocket::muldiv::muldiv;
use crate::rocket::params::{MulDivParams, MulKind};
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::{cat, mux, Bits, Bundle, HdlErrors, ModuleBuilder, ResetValue, Shape, Value};

/// The adders of the lanes' ALUs and branch compares (the Rocket core's default).
pub const ADDERS: Style = Style::Prefix;

/// Operand B's source (`b_sel`).
pub mod b_sel {
    pub const RS2: u64 = 0;
    pub const IMM: u64 = 1;
    /// The thread's index in its warp (`tidx`, added to `tid_base`).
    pub const INDEX: u64 = 2;
    /// 4: the link of `jal` and `jalr` (A is the pc).
    pub const FOUR: u64 = 3;
}

fn uint(name: &str, width: u32) -> hdl::Field {
    Shape::field(name, Shape::UInt(width))
}

/// Width of a thread slot number (at least 1, as `lane/srf.rs` takes it).
pub fn slot_bits(p: &FgsimtParams) -> u32 {
    hdl::ir::addr_width(p.threads_per_lane() as u64).max(1)
}

/// A warp instruction's slot in SAU `unit`'s execute stage, SIU to every lane: `valid`,
/// the `slot` executing, the warp's `mask`, `rd` (`reg_bits`: the context, then 0-63:
/// x0-x31, f0-f31); the ALU's `fn`
/// (`rocket::decode::alu_fn`), operand A `uniform` (pc, 0 or tid_base) instead of rs1
/// when `a_uniform`, operand B from `b_sel`; `wb`: the ALU result is written to `rd`;
/// `branch`, `jalr`, `mul` (SAU0) or `div` (SAU1), and their `funct3`; `fp`: an FP
/// operation (SAU0: the lane FP unit's, `fp_unit` and `fp_op` as `rocket::fpu` encodes
/// them; SAU1: fdiv.s or fsqrt.s, `fp_op`'s bit 0), rounded by `rm` (resolved, 0-4).
pub fn x_uop(p: &FgsimtParams, unit: u32) -> Shape {
    let long_op = if unit == 0 { "mul" } else { "div" };
    Shape::bundle(vec![
        uint("valid", 1),
        uint("slot", slot_bits(p)),
        uint("mask", p.warp_size),
        uint("rd", p.reg_bits()),
        uint("fn", alu_fn::WIDTH),
        uint("a_uniform", 1),
        uint("uniform", 32),
        uint("b_sel", 2),
        uint("imm", 32),
        uint("wb", 1),
        uint("branch", 1),
        uint("jalr", 1),
        uint(long_op, 1),
        uint("funct3", 3),
        uint("fp", 1),
        uint("fp_unit", fpu::unit::BITS),
        uint("fp_op", fpu::OP_BITS),
        uint("rm", 3),
    ])
}

/// A write of an SRF port: enable, register (0-63), slot, data.
#[derive(Clone)]
pub struct Write {
    pub en: Value,
    pub reg: Value,
    pub slot: Value,
    pub data: Value,
}

/// What a SAU produces in a cycle.
pub struct SauOut {
    pub write: Write,
    /// The thread's branch condition holds (an active thread of a branch).
    pub taken: Value,
    /// An active thread of a `jalr`, and its target.
    pub jump: Value,
    pub target: Value,
}

/// Whether thread `slot * lanes + lane` is in `mask`.
pub fn active(p: &FgsimtParams, mask: &Value, slot: &Value, lane: &Value) -> Value {
    let index = thread_index(p, slot, lane);
    mask.dshr(&index).bit(0)
}

/// `slot * lanes + lane`, 32 bits.
pub fn thread_index(p: &FgsimtParams, slot: &Value, lane: &Value) -> Value {
    let lane_bits = p.lanes.trailing_zeros();
    let index = if lane_bits == 0 {
        slot.clone()
    } else {
        cat(&[slot, &lane.slice(lane_bits - 1, 0)])
    };
    index.zext(32)
}

/// The unit `unit` (0 or 1) of lane `lane` executing `x` on the latched operands
/// `rs1`, `rs2` and `rs3` (SAU0's third, the fused FP operations' addend).
pub fn sau(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    unit: u32,
    x: &Bundle,
    lane: &Value,
    (rs1, rs2, rs3): (&Value, &Value, &Value),
) -> Result<SauOut, HdlErrors> {
    let f = |name: &str| x.get(name).value().clone();
    let (valid, slot, rd) = (f("valid"), f("slot"), f("rd"));
    let live = &valid & &active(p, &f("mask"), &slot, lane);
    let b_is = |v: u64| f("b_sel").eq(&m_lit(rs1, v, 2));
    let b = mux(
        &b_is(b_sel::RS2),
        rs2,
        &mux(
            &b_is(b_sel::IMM),
            &f("imm"),
            &mux(
                &b_is(b_sel::INDEX),
                &thread_index(p, &slot, lane),
                &m_lit(rs1, 4, 32),
            ),
        ),
    );
    let a = mux(&f("a_uniform"), &f("uniform"), rs1);
    let result = alu(ADDERS, &f("fn"), &a, &b, &m_lit(rs1, 0, 1));
    let writes_rd = &live & &rd.slice(5, 0).ne(&m_lit(&rd, 0, 6));
    let alu_write = Write {
        en: &writes_rd & &f("wb"),
        reg: rd.clone(),
        slot: slot.clone(),
        data: result,
    };
    let target = ADDERS.add(rs1, &f("imm"));
    let target = &target & &m_lit(rs1, !1u64 & 0xffff_ffff, 32);
    let write = if unit == 0 {
        let product = multiplier(m, p, &f("funct3"), (rs1, rs2));
        let ctrl = Write {
            en: &writes_rd & &f("mul"),
            ..alu_write.clone()
        };
        let n = p.mul_latency - 1;
        let late = delayed(m, "mul", &ctrl, n);
        let high = f("funct3").ne(&m_lit(rs1, 0, 3));
        let high = delay_line(m, "mul_high", &high, n, false);
        let data = mux(&high, &product.slice(63, 32), &product.slice(31, 0));
        let mul_write = Write { data, ..late };
        let fp_ctrl = Write {
            en: &writes_rd & &f("fp"),
            ..alu_write.clone()
        };
        let fp_write = lane_fpu(m, p, x, &fp_ctrl, (rs1, rs2, rs3))?;
        select(&fp_write, &select(&mul_write, &alu_write))
    } else {
        let start = DivStart {
            live: &writes_rd & &f("div"),
            slot: slot.clone(),
            funct3: f("funct3"),
            rd: rd.clone(),
        };
        let div_write = dividers(m, p, &start, (rs1, rs2))?;
        let fp_ctrl = Write {
            en: &writes_rd & &f("fp"),
            ..alu_write.clone()
        };
        let fdiv_write = fp_dividers(m, p, x, &fp_ctrl, (rs1, rs2))?;
        select(&fdiv_write, &select(&div_write, &alu_write))
    };
    Ok(SauOut {
        write,
        taken: &(&live & &f("branch")) & &branch_taken(ADDERS, &f("funct3"), rs1, rs2),
        jump: &live & &f("jalr"),
        target,
    })
}

/// A literal of `width` bits in `like`'s module.
fn m_lit(like: &Value, value: u64, width: u32) -> Value {
    like.konst(Bits::from_u64(width, value))
}

/// `a` when it writes, else `b` (the SIU never lets both write in one cycle).
fn select(a: &Write, b: &Write) -> Write {
    Write {
        en: &a.en | &b.en,
        reg: mux(&a.en, &a.reg, &b.reg),
        slot: mux(&a.en, &a.slot, &b.slot),
        data: mux(&a.en, &a.data, &b.data),
    }
}

/// `v` `n` cycles later, in registers named `<name><i>` (reset to 0 when `reset`).
fn delay_line(m: &mut ModuleBuilder, name: &str, v: &Value, n: u32, reset: bool) -> Value {
    (0..n).fold(v.clone(), |prev, i| {
        let r = if reset {
            m.reg(&format!("{name}{i}"), prev.width(), 0u64)
        } else {
            m.reg(&format!("{name}{i}"), prev.width(), ResetValue::None)
        };
        m.connect(&r, &prev);
        r
    })
}

/// A write's control `n` cycles later, in registers named `<name>_*`.
fn delayed(m: &mut ModuleBuilder, name: &str, w: &Write, n: u32) -> Write {
    Write {
        en: delay_line(m, &format!("{name}_en"), &w.en, n, true),
        reg: delay_line(m, &format!("{name}_reg"), &w.reg, n, false),
        slot: delay_line(m, &format!("{name}_slot"), &w.slot, n, false),
        data: w.data.clone(),
    }
}

/// The 64-bit product of the latched operands for `funct3` (MULH and MULHSU take rs1
/// as signed, MULH rs2 too), `mul_latency` - 1 cycles later.
fn multiplier(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    funct3: &Value,
    (a, b): (&Value, &Value),
) -> Value {
    let f3_is = |v: u64| funct3.eq(&m_lit(funct3, v, 3));
    let ext = |x: &Value, signed: &Value| {
        mux(signed, &x.as_signed().sext(33).as_unsigned(), &x.zext(33)).as_signed()
    };
    let a_signed = &f3_is(1) | &f3_is(2);
    let cfg = MulConfig {
        stages: p.mul_latency - 1,
    };
    let one = m_lit(a, 1, 1);
    multiply(m, &ext(a, &a_signed), &ext(b, &f3_is(1)), &cfg, &one)
        .as_unsigned()
        .slice(63, 0)
}

/// A divide's start in this cycle: `live` (an active thread of a divide writing a
/// register), its `slot`, `funct3` and `rd`.
struct DivStart {
    live: Value,
    slot: Value,
    funct3: Value,
    rd: Value,
}

/// One divider per thread slot (Rocket's `MulDiv` at word width, only divides sent):
/// slot c's starts in its execute cycle, its `rd` kept beside it; returns the write of
/// the divider answering. The slots start in consecutive cycles and take equally long,
/// so at most one answers a cycle.
fn dividers(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    d: &DivStart,
    (a, b): (&Value, &Value),
) -> Result<Write, HdlErrors> {
    let unit = muldiv(&MulDivParams {
        mul: MulKind::Iterative,
        mul_bits_per_cycle: 1,
        mul_early_out: false,
        mul_stages: 1,
        div_bits_per_cycle: p.div_bits_per_cycle,
        div_early_out: false,
        adders: ADDERS,
        registered_result: false,
    })?;
    let sw = d.slot.width();
    let (mut done, mut results, mut rds) = (Vec::new(), Vec::new(), Vec::new());
    for c in 0..p.threads_per_lane() {
        let inst = m.instance(&format!("div{c}"), &unit);
        let start = &d.live & &d.slot.eq(&m_lit(&d.slot, c as u64, sw));
        let rd = m.reg_en(&format!("div{c}_rd"), d.rd.width(), 0u64, &start);
        m.connect(&rd, &d.rd);
        rds.push(rd);
        for (port, v) in [
            ("req_valid", start),
            ("req_bits_funct3", d.funct3.clone()),
            ("req_bits_word", m_lit(a, 1, 1)),
            ("req_bits_in1", a.zext(64)),
            ("req_bits_in2", b.zext(64)),
            ("resp_ready", m_lit(a, 1, 1)),
            ("kill", m_lit(a, 0, 1)),
        ] {
            m.connect(&inst.port(port), &v);
        }
        done.push(inst.port("resp_valid"));
        results.push(inst.port("resp_bits_data").slice(31, 0));
    }
    let any = done[1..].iter().fold(done[0].clone(), |acc, v| &acc | v);
    let onehot = cat(&done.iter().rev().collect::<Vec<_>>());
    let slot = if p.threads_per_lane() == 1 {
        m_lit(a, 0, sw)
    } else {
        hdl::helpers::onehot_encode(&onehot)
    };
    Ok(Write {
        en: any,
        reg: onehot_mux(&onehot, &rds),
        slot,
        data: onehot_mux(&onehot, &results),
    })
}

/// SAU0's lane FP unit (`sfpu.rs`) on the execute stage's operands: `ctrl` (an active
/// thread of an FP operation writing `rd`) enters it, and its write leaves
/// `sfpu::latency` cycles later.
fn lane_fpu(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    x: &Bundle,
    ctrl: &Write,
    (a, b, c): (&Value, &Value, &Value),
) -> Result<Write, HdlErrors> {
    let unit = m.instance("fpu", &sfpu(p.fma_stages)?);
    let f = |name: &str| x.get(name).value().clone();
    for (port, v) in [
        ("in_valid", ctrl.en.clone()),
        ("in_unit", f("fp_unit")),
        ("in_op", f("fp_op")),
        ("in_rm", f("rm")),
        ("in_a", a.clone()),
        ("in_b", b.clone()),
        ("in_c", c.clone()),
    ] {
        m.connect(&unit.port(port), &v);
    }
    let late = delayed(m, "fp", ctrl, sfpu_latency(p.fma_stages));
    Ok(Write {
        data: unit.port("out_data"),
        ..late
    })
}

/// One `fpu::divsqrt` per thread slot (as the integer dividers): slot c's starts in its
/// execute cycle, and its result is taken (`out_ready`) at the fixed latency
/// `fpu::divsqrt::latency` later, a special operand's early result held until then;
/// `ctrl` (an active thread of fdiv.s/fsqrt.s) is delayed to that cycle beside it.
fn fp_dividers(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    x: &Bundle,
    ctrl: &Write,
    (a, b): (&Value, &Value),
) -> Result<Write, HdlErrors> {
    let unit = divsqrt(SINGLE, FDIV_BITS_PER_CYCLE)?;
    let f = |name: &str| x.get(name).value().clone();
    let late = delayed(m, "fdiv", ctrl, p.fdiv_latency() - 1);
    let sw = ctrl.slot.width();
    let mut results = Vec::new();
    for c in 0..p.threads_per_lane() {
        let inst = m.instance(&format!("fdiv{c}"), &unit);
        let here = |w: &Write| &w.en & &w.slot.eq(&m_lit(&w.slot, c as u64, sw));
        for (port, v) in [
            ("in_valid", here(ctrl)),
            ("op", f("fp_op").bit(0)),
            ("rm", f("rm")),
            ("a", a.clone()),
            ("b", b.clone()),
            ("out_ready", here(&late)),
        ] {
            m.connect(&inst.port(port), &v);
        }
        results.push(inst.port("result"));
    }
    let data = if results.len() == 1 {
        results[0].clone()
    } else {
        onehot_mux(&onehot_decode(&late.slot, results.len() as u32), &results)
    };
    Ok(Write { data, ..late })
}
