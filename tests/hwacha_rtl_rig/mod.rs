//! Shared by the Hwacha RTL tests: programs (directed and random), the golden model's
//! run of them, the decoded-instruction fields a sequencer stand-in or the RTL's issue
//! port takes, and the comparison of the RTL's register-file writes with the model's.

#![allow(dead_code)] // each test file uses part of the rig

#[path = "../hwacha_model_rig/mod.rs"]
mod hwacha_model_rig;

use generators::hwacha::lane::uop::{alu_fn, imul_fn, unit};
use generators::hwacha::params::HwachaParams;
use generators::rocket::decode::alu_fn as rocket_fn;
use hdl::Bits;
pub use hwacha_model_rig::Rig;
use verification::hwacha::asm::{assemble, Assembled};
use verification::hwacha::model::{
    CmpOp, Effect, Field, HwachaParams as ModelParams, Insn, IntOp, Op, Vcfg,
};
use verification::rng::Rng;
use verification::simulator::Simulator;

pub fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

pub fn model_params(p: &HwachaParams) -> ModelParams {
    ModelParams {
        lanes: p.lanes,
        banks: p.banks,
        bank_entries: p.bank_entries,
        bank_width: p.bank_width,
        pred_entries: p.pred_entries,
        ..ModelParams::default()
    }
}

/// Named field values of a port bundle (unnamed fields are 0).
pub type Fields = Vec<(&'static str, u64)>;

/// The decoded-instruction fields of `insn` (the `vinsn` bundle, register numbers):
/// what the scalar unit's decode hands the master sequencer. `vs` gives the shared
/// registers' values.
pub fn insn_fields(cfg: &Vcfg, insn: &Insn, vs: &dyn Fn(u32) -> u64) -> Fields {
    let mut op: Fields = Vec::new();
    let operand =
        |op: &mut Fields, f: Field, v: &'static str, r: &'static str, sv: &'static str| {
            let reg = insn.get(f);
            if insn.is_vv(f) {
                op.extend([(v, 1), (r, reg as u64)]);
            } else {
                op.push((sv, vs(reg)));
            }
        };
    let width = |reg: u32| match cfg.vv_bits(reg) {
        Some(32) => 1,
        Some(16) => 2,
        _ => 0,
    };
    if insn.has(Field::Vpred) && cfg.vp > 0 {
        op.extend([
            ("pred_on", 1),
            ("pred", insn.get(Field::Vpred) as u64),
            ("pred_neg", insn.get(Field::Vn) as u64),
        ]);
    }
    match insn.op {
        Op::Int(int) => {
            let (u, f) = int_fn(int);
            op.extend([("unit", u), ("fn", f), ("word", int.is_word() as u64)]);
            operand(&mut op, Field::Vrs1, "rs1_v", "rs1", "s1");
            operand(&mut op, Field::Vrs2, "rs2_v", "rs2", "s2");
            op.extend([("rd", insn.rd() as u64), ("rd_width", width(insn.rd()))]);
        }
        Op::Eidx => {
            // The shift amount is the ALU's second operand.
            op.extend([("unit", unit::ALU), ("fn", alu_fn::EIDX)]);
            operand(&mut op, Field::Vrs1, "rs2_v", "rs2", "s2");
            op.extend([("rd", insn.rd() as u64), ("rd_width", width(insn.rd()))]);
        }
        Op::Cmp(c) => {
            let f = match c {
                CmpOp::Eq => alu_fn::EQ,
                CmpOp::Lt => rocket_fn::SLT,
                CmpOp::Ltu => rocket_fn::SLTU,
            };
            op.extend([("unit", unit::ALU), ("fn", f)]);
            operand(&mut op, Field::Vrs1, "rs1_v", "rs1", "s1");
            operand(&mut op, Field::Vrs2, "rs2_v", "rs2", "s2");
            op.extend([("rd_pred", 1), ("prd", insn.get(Field::Vprd) as u64)]);
        }
        Op::PredLogic => {
            op.extend([
                ("unit", unit::PLU),
                ("table", insn.get(Field::Vpfunc) as u64),
                ("ps1", insn.get(Field::Vprs1) as u64),
                ("ps2", insn.get(Field::Vprs2) as u64),
                ("ps3", insn.get(Field::Vprs3) as u64),
                ("rd_pred", 1),
                ("prd", insn.get(Field::Vprd) as u64),
            ]);
        }
        other => panic!("not an integer-datapath instruction: {other:?}"),
    }
    op
}

/// Unit and function of a register-register integer operation.
fn int_fn(op: IntOp) -> (u64, u64) {
    use IntOp::*;
    let alu = |f| (unit::ALU, f);
    match op {
        Add | Addu | Addw => alu(rocket_fn::ADD),
        Sub | Subw => alu(rocket_fn::SUB),
        Sll | Sllw => alu(rocket_fn::SLL),
        Slt => alu(rocket_fn::SLT),
        Sltu => alu(rocket_fn::SLTU),
        Xor => alu(rocket_fn::XOR),
        Srl | Srlw => alu(rocket_fn::SRL),
        Sra | Sraw => alu(rocket_fn::SRA),
        Or => alu(rocket_fn::OR),
        And => alu(rocket_fn::AND),
        Mul | Mulw => (unit::IMUL, imul_fn::MUL),
        Mulh => (unit::IMUL, imul_fn::MULH),
        Mulhsu => (unit::IMUL, imul_fn::MULHSU),
        Mulhu => (unit::IMUL, imul_fn::MULHU),
        _ => panic!("{op:?} is not a VIU/VIMU operation"),
    }
}

/// Every field of the decoded-instruction and sequencer-operation bundles.
pub const FIELDS: &[&str] = &[
    "unit", "fn", "word", "table", "rs1_v", "rs2_v", "s1", "s2", "pred_on", "pred_neg", "pred",
    "ps1", "ps2", "ps3", "rd_pred", "rd_width", "rs1", "rs2", "rd", "prd",
];

/// Pokes `fields` (every other field of `FIELDS` 0) on the bundle at `prefix`.
pub fn poke_fields(dut: &mut impl Simulator, prefix: &str, fields: &Fields) {
    for f in FIELDS {
        dut.poke_u64(&format!("{prefix}_{f}"), 0).unwrap();
    }
    for (f, v) in fields {
        dut.poke_u64(&format!("{prefix}_{f}"), *v).unwrap();
    }
}

/// A register-file write, by architectural register and element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Write {
    Vv { reg: u32, elem: u64, value: u64 },
    Vp { reg: u32, elem: u64, value: bool },
}

fn same_place(a: &Write, b: &Write) -> bool {
    match (a, b) {
        (
            Write::Vv {
                reg: r, elem: e, ..
            },
            Write::Vv { reg, elem, .. },
        ) => r == reg && e == elem,
        (
            Write::Vp {
                reg: r, elem: e, ..
            },
            Write::Vp { reg, elem, .. },
        ) => r == reg && e == elem,
        _ => false,
    }
}

/// Reads bank `bank`'s write ports (`<prefix>vrf_w`, `<prefix>prf_w`) of lane `lane`
/// this cycle and records the writes by the layout contract of `hwacha/mod.rs`.
pub fn record_bank_writes(
    dut: &mut impl Simulator,
    prefix: &str,
    p: &HwachaParams,
    cfg: &Vcfg,
    lane: u64,
    bank: u64,
    writes: &mut Vec<Write>,
) {
    let (n, np) = (cfg.vv_total().max(1) as u64, cfg.vp.max(1) as u64);
    let (strip, s, lanes) = (p.strip() as u64, p.slices() as u64, p.lanes as u64);
    for (file, per_reg) in [("vrf", n), ("prf", np)] {
        let port = format!("{prefix}{file}_w");
        if dut.peek_u64(&format!("{port}_valid")).unwrap() == 0 {
            continue;
        }
        let row = dut.peek_u64(&format!("{port}_bits_row")).unwrap();
        let data: Bits = dut.peek(&format!("{port}_bits_data")).unwrap();
        let mask = dut.peek_u64(&format!("{port}_bits_mask")).unwrap();
        let (local_strip, reg) = (row / per_reg, (row % per_reg) as u32);
        for j in 0..s {
            if mask >> j & 1 == 0 {
                continue;
            }
            let elem = (local_strip * lanes + lane) * strip + bank * s + j;
            writes.push(if file == "vrf" {
                let value = data.slice(64 * j as u32 + 63, 64 * j as u32).to_u64();
                Write::Vv { reg, elem, value }
            } else {
                Write::Vp {
                    reg,
                    elem,
                    value: data.bit(j as u32),
                }
            });
        }
    }
}

pub fn asm(line: &str) -> u64 {
    match assemble(line).unwrap_or_else(|e| panic!("{line}: {e}")) {
        Assembled::Worker(w) => w,
        other => panic!("{line}: {other:?}"),
    }
}

/// A program's setup: configuration, vector length, shared registers.
pub struct Setup {
    pub cfg: Vcfg,
    pub vlen: u64,
    pub vs: Vec<u64>,
}

/// The golden model's run of a program.
pub struct Golden {
    pub rig: Rig,
    pub insns: Vec<Insn>,
    pub writes: Vec<Write>,
}

pub fn golden(p: &HwachaParams, setup: &Setup, lines: &[String]) -> Golden {
    let mut rig = Rig::new(model_params(p));
    rig.setcfg(setup.cfg);
    assert_eq!(rig.setvl(setup.vlen), setup.vlen, "vlen within maxvl");
    for (r, v) in setup.vs.iter().enumerate().skip(1) {
        rig.vmcs(r as u64, *v);
    }
    let words: Vec<u64> = lines.iter().map(|l| asm(l)).collect();
    let insns: Vec<Insn> = words
        .iter()
        .zip(lines)
        .map(|(w, l)| rig.hw.decode(*w).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    rig.hw.set_tracing(true);
    let mut code = words.clone();
    code.push(hwacha_model_rig::stop());
    rig.run(&code).unwrap();
    let writes = rig
        .hw
        .take_trace()
        .iter()
        .flat_map(|r| r.effects.clone())
        .filter_map(|e| match e {
            Effect::Vv { reg, elem, value } => Some(Write::Vv { reg, elem, value }),
            Effect::Vp { reg, elem, value } => Some(Write::Vp { reg, elem, value }),
            _ => None,
        })
        .collect();
    Golden { rig, insns, writes }
}

/// The DUT's writes (in cycle order) against the model's: the same multiset, and the
/// last write of each element is the model's final value.
pub fn compare(golden: &Golden, writes: &[Write], setup: &Setup, lines: &[String]) {
    let state = golden.rig.hw.state();
    for w in writes {
        let last = writes.iter().rev().find(|x| same_place(x, w)).unwrap();
        let model = match *last {
            Write::Vv { reg, elem, .. } => Write::Vv {
                reg,
                elem,
                value: state.vv(reg, elem),
            },
            Write::Vp { reg, elem, .. } => Write::Vp {
                reg,
                elem,
                value: state.vp(reg, elem),
            },
        };
        assert_eq!(
            *last,
            model,
            "final state differs\nprogram:\n{}",
            lines.join("\n")
        );
    }
    let mut got = writes.to_vec();
    let mut expected = golden.writes.clone();
    got.sort();
    expected.sort();
    if got != expected {
        let missing: Vec<_> = expected
            .iter()
            .filter(|e| !got.contains(e))
            .take(8)
            .collect();
        let extra: Vec<_> = got
            .iter()
            .filter(|g| !expected.contains(g))
            .take(8)
            .collect();
        panic!(
            "{} writes, model {}; model only: {missing:?}; DUT only: {extra:?}\nconfig {:?} vlen {}\nprogram:\n{}",
            got.len(),
            expected.len(),
            setup.cfg,
            setup.vlen,
            lines.join("\n")
        );
    }
}

/// Directed programs per instruction class, with the configuration they need.
pub fn directed_programs() -> (Vcfg, Vec<Vec<String>>) {
    let cfg = Vcfg {
        vv64: 6,
        vp: 3,
        vv32: 2,
        vv16: 0,
    };
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let programs = [
        // Every ALU function, vector and scalar operands, then chained dependences.
        lines(&[
            "veidx vv0, vs0",
            "vadd vv1, vv0, vs5",
            "vsub vv2, vv1, vv0",
            "vsll vv3, vv1, vs1",
            "vslt vv4, vv2, vv1",
            "vsltu vv5, vv1, vs7",
            "vxor vv0, vv1, vv2",
            "vsrl vv3, vv3, vs2",
            "vsra vv4, vv0, vs3",
            "vor vv5, vv5, vv4",
            "vand vv2, vv5, vs9",
            "vaddw vv6, vv1, vv2",
            "vsubw vv7, vv6, vs4",
            "vsllw vv6, vv6, vs2",
            "vsrlw vv7, vv0, vs3",
            "vsraw vv6, vv7, vs1",
        ]),
        // The multiplier: every function, back to back and chained into the ALU.
        lines(&[
            "veidx vv0, vs0",
            "vmul vv1, vv0, vs11",
            "vmulh vv2, vv1, vv1",
            "vmulhsu vv3, vv1, vs12",
            "vmulhu vv4, vv3, vv2",
            "vmulw vv6, vv4, vv1",
            "vaddw vv7, vv4, vv6",
            "vmul vv5, vv5, vv4",
        ]),
        // Compares into predicates, predicated and negated execution, predicate logic.
        lines(&[
            "veidx vv0, vs0",
            "vcmplt vp1, vv0, vs8",
            "vcmpeq vp2, vv0, vs6",
            "@vp1 vadd vv1, vv0, vs13",
            "@!vp1 vmul vv1, vv0, vs13",
            "vpop vp2, vp1, vp2, vp0, 0x96",
            "@vp2 vsub vv2, vv1, vv0",
            "@!vp2 veidx vv3, vs2",
            "vcmpltu vp1, vv3, vv1",
            "vpop vp0, vp1, vp1, vp2, 0x0f",
            "vadd vv4, vv3, vs1",
        ]),
    ];
    (cfg, programs.to_vec())
}

/// Shared registers for the directed programs: small numbers, then random values.
pub fn directed_vs() -> Vec<u64> {
    let mut vs = random_vs(&mut Rng::new(1));
    for (r, v) in vs.iter_mut().enumerate().take(8) {
        *v = r as u64;
    }
    vs
}

const ALU_OPS: &[&str] = &[
    "vadd", "vaddu", "vsub", "vsll", "vslt", "vsltu", "vxor", "vsrl", "vsra", "vor", "vand",
    "vaddw", "vsubw", "vsllw", "vsrlw", "vsraw",
];
const MUL_OPS: &[&str] = &["vmul", "vmulh", "vmulhsu", "vmulhu", "vmulw"];
const CMP_OPS: &[&str] = &["vcmpeq", "vcmplt", "vcmpltu"];

pub fn random_vs(rng: &mut Rng) -> Vec<u64> {
    (0..64)
        .map(|r| match (r, rng.below(4)) {
            (0, _) => 0,
            (_, 0) => rng.below(70),
            (_, 1) => (rng.next_u64() as i64 >> rng.below(64)) as u64,
            _ => rng.next_u64(),
        })
        .collect()
}

/// A random program: registers filled with varied values first, then random operations
/// with random operand kinds, destinations (also narrow ones) and predicates.
pub fn random_program(rng: &mut Rng, p: &HwachaParams, len: usize) -> (Setup, Vec<String>) {
    let vv64 = rng.range(2, 9);
    let (vv32, vv16) = (rng.range(0, 3), rng.range(0, 3));
    let vp = rng.range(1, 5);
    let cfg = Vcfg {
        vv64,
        vp,
        vv32,
        vv16,
    };
    let maxvl = model_params(p).maxvl(&cfg);
    let vlen = match rng.below(4) {
        0 => maxvl,
        1 => 1 + rng.below(p.strip() as u64 + 2).min(maxvl - 1),
        _ => 1 + rng.below(maxvl),
    };
    // The *W forms take 32-bit registers too (16-bit ones only hold FP and loads).
    let vv = |rng: &mut Rng| format!("vv{}", rng.below((vv64 + vv32) as u64));
    let vv64r = |rng: &mut Rng| format!("vv{}", rng.below(vv64 as u64));
    let vsr = |rng: &mut Rng| format!("vs{}", rng.below(64));
    let vpr = |rng: &mut Rng| format!("vp{}", rng.below(vp as u64));
    let mut lines = Vec::new();
    for r in 0..vv64 {
        lines.push(format!("veidx vv{r}, vs{}", rng.below(8)));
        lines.push(format!("vmul vv{r}, vv{r}, vs{}", rng.range(1, 63)));
        lines.push(format!("vxor vv{r}, vv{r}, vs{}", rng.range(1, 63)));
    }
    for r in vv64..vv64 + vv32 {
        lines.push(format!(
            "vmulw vv{r}, vv{}, vs{}",
            rng.below(vv64 as u64),
            rng.range(1, 63)
        ));
    }
    for r in 1..vp {
        lines.push(format!(
            "vcmplt vp{r}, vv{}, vs{}",
            rng.below(vv64 as u64),
            rng.range(1, 63)
        ));
    }
    while lines.len() < len {
        let pred = match rng.below(4) {
            0 => format!("@!{} ", vpr(rng)),
            1 => format!("@{} ", vpr(rng)),
            _ => String::new(),
        };
        let src = |rng: &mut Rng, vv: &dyn Fn(&mut Rng) -> String| {
            if rng.chance(70) {
                vv(rng)
            } else {
                vsr(rng)
            }
        };
        let line = match rng.below(10) {
            0..=4 => {
                let op = rng.pick(ALU_OPS);
                let word = op.ends_with('w');
                let d = if word { vv(rng) } else { vv64r(rng) };
                let a = src(rng, if word { &vv } else { &vv64r });
                let b = src(rng, if word { &vv } else { &vv64r });
                format!("{pred}{op} {d}, {a}, {b}")
            }
            5 | 6 => {
                let op = rng.pick(MUL_OPS);
                let word = *op == "vmulw";
                let d = if word { vv(rng) } else { vv64r(rng) };
                let a = src(rng, if word { &vv } else { &vv64r });
                let b = src(rng, if word { &vv } else { &vv64r });
                format!("{pred}{op} {d}, {a}, {b}")
            }
            7 => format!("{pred}veidx {}, {}", vv64r(rng), src(rng, &vv64r)),
            8 => format!(
                "{pred}{} {}, {}, {}",
                rng.pick(CMP_OPS),
                vpr(rng),
                vv64r(rng),
                src(rng, &vv64r)
            ),
            _ => format!(
                "vpop {}, {}, {}, {}, {:#x}",
                vpr(rng),
                vpr(rng),
                vpr(rng),
                vpr(rng),
                rng.below(256)
            ),
        };
        lines.push(line);
    }
    (
        Setup {
            cfg,
            vlen,
            vs: random_vs(rng),
        },
        lines,
    )
}
