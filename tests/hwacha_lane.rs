//! The Hwacha lane datapath (`hwacha::lane::vxu`: expander, banks, ALU, PLU, IMul on the
//! crossbar) under Verilator, against the Hwacha golden model.
//!
//! Programs of vector integer, compare, element-index and predicate-logic instructions run
//! on the golden model with tracing; the testbench stands in for the lane sequencer
//! (in order, strip by strip, under the VXU's ready) and turns each instruction into the
//! sequencer operations of its strips by the layout contract of `hwacha/mod.rs`. Every
//! register-file write the banks make is mapped back to (register, element, value) and
//! the multiset of writes must equal the model's effects, and the last write of each
//! element the model's final state. Directed programs per class, then random programs
//! (random configuration, vector length, predication and back-to-back dependences).

mod hwacha_model_rig;

use asic_flow::lint::{run_all, LintTarget};
use generators::hwacha::lane::uop::{alu_fn, imul_fn, unit};
use generators::hwacha::lane::vxu::vxu;
use generators::hwacha::params::HwachaParams;
use generators::rocket::decode::alu_fn as rocket_fn;
use hdl::{Bits, Design};
use hwacha_model_rig::Rig;
use verification::hwacha::asm::{assemble, Assembled};
use verification::hwacha::model::{
    CmpOp, Effect, Field, HwachaParams as ModelParams, Insn, IntOp, Op, Vcfg,
};
use verification::rng::Rng;
use verification::verilator::{Model, Options};

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

fn model_params(p: &HwachaParams) -> ModelParams {
    ModelParams {
        lanes: p.lanes,
        banks: p.banks,
        bank_entries: p.bank_entries,
        bank_width: p.bank_width,
        pred_entries: p.pred_entries,
        ..ModelParams::default()
    }
}

/// The shapes under test: the thesis's lane and variations of every latency and size.
fn configs() -> Vec<HwachaParams> {
    let d = HwachaParams::default();
    vec![
        d.clone(),
        HwachaParams {
            stages_alu: 0,
            stages_imul: 1,
            stages_plu: 1,
            ..d.clone()
        },
        HwachaParams {
            stages_alu: 2,
            stages_imul: 5,
            banks: 2,
            bank_entries: 64,
            pred_entries: 64,
            ..d.clone()
        },
        HwachaParams {
            banks: 8,
            bank_width: 64,
            bank_entries: 128,
            pred_entries: 128,
            ..d
        },
    ]
}

/// One sequencer operation, as the testbench pokes it (field name, value).
type SeqOp = Vec<(&'static str, u64)>;

/// The instruction `insn`'s operations for each strip (a lane-sequencer stand-in).
fn strip_ops(
    p: &HwachaParams,
    cfg: &Vcfg,
    vlen: u64,
    insn: &Insn,
    vs: &dyn Fn(u32) -> u64,
) -> Vec<SeqOp> {
    let strip = p.strip() as u64;
    let n = cfg.vv_total().max(1) as u64;
    let np = cfg.vp.max(1) as u64;
    let row = |reg: u32, s: u64| s * n + reg as u64;
    let prow = |reg: u32, s: u64| s * np + reg as u64;
    let width = |reg: u32| match cfg.vv_bits(reg) {
        Some(32) => 1,
        Some(16) => 2,
        _ => 0,
    };
    (0..vlen.div_ceil(strip))
        .map(|s| {
            let mut op: SeqOp = vec![
                ("count", (vlen - s * strip).min(strip)),
                ("eidx", s * strip),
            ];
            let operand =
                |op: &mut SeqOp, f: Field, v: &'static str, r: &'static str, sv: &'static str| {
                    let reg = insn.get(f);
                    if insn.is_vv(f) {
                        op.extend([(v, 1), (r, row(reg, s))]);
                    } else {
                        op.push((sv, vs(reg)));
                    }
                };
            if insn.has(Field::Vpred) {
                op.extend([
                    ("pred_on", 1),
                    ("pred", prow(insn.get(Field::Vpred), s)),
                    ("pred_neg", insn.get(Field::Vn) as u64),
                ]);
            }
            match insn.op {
                Op::Int(int) => {
                    let (u, f) = int_fn(int);
                    op.extend([("unit", u), ("fn", f), ("word", int.is_word() as u64)]);
                    operand(&mut op, Field::Vrs1, "rs1_v", "rs1", "s1");
                    operand(&mut op, Field::Vrs2, "rs2_v", "rs2", "s2");
                    op.extend([("rd", row(insn.rd(), s)), ("rd_width", width(insn.rd()))]);
                }
                Op::Eidx => {
                    // The shift amount is the ALU's second operand.
                    op.extend([("unit", unit::ALU), ("fn", alu_fn::EIDX)]);
                    operand(&mut op, Field::Vrs1, "rs2_v", "rs2", "s2");
                    op.extend([("rd", row(insn.rd(), s)), ("rd_width", width(insn.rd()))]);
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
                    op.extend([("rd_pred", 1), ("prd", prow(insn.get(Field::Vprd), s))]);
                }
                Op::PredLogic => {
                    op.extend([
                        ("unit", unit::PLU),
                        ("table", insn.get(Field::Vpfunc) as u64),
                        ("ps1", prow(insn.get(Field::Vprs1), s)),
                        ("ps2", prow(insn.get(Field::Vprs2), s)),
                        ("ps3", prow(insn.get(Field::Vprs3), s)),
                        ("rd_pred", 1),
                        ("prd", prow(insn.get(Field::Vprd), s)),
                    ]);
                }
                other => panic!("not a lane-datapath instruction: {other:?}"),
            }
            op
        })
        .collect()
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

/// Every field of the sequencer operation port.
const FIELDS: &[&str] = &[
    "unit", "fn", "word", "table", "rs1_v", "rs2_v", "s1", "s2", "pred_on", "pred_neg", "pred",
    "ps1", "ps2", "ps3", "count", "eidx", "rs1", "rs2", "rd", "rd_pred", "prd", "rd_width",
];

struct Bench {
    p: HwachaParams,
    dut: Model,
}

/// A register-file write seen on a bank's trace port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Write {
    Vv { reg: u32, elem: u64, value: u64 },
    Vp { reg: u32, elem: u64, value: bool },
}

impl Bench {
    fn new(p: &HwachaParams) -> Bench {
        let top = vxu(p, 1).unwrap();
        let mut dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
        dut.poke_u64("reset", 1).unwrap();
        dut.step();
        dut.poke_u64("reset", 0).unwrap();
        Bench { p: p.clone(), dut }
    }

    /// Runs `ops` in order; returns the writes in cycle order and the cycles taken.
    fn run(&mut self, cfg: &Vcfg, ops: &[SeqOp]) -> (Vec<Write>, u64) {
        let (n, np) = (cfg.vv_total().max(1) as u64, cfg.vp.max(1) as u64);
        let (strip, s) = (self.p.strip() as u64, self.p.slices() as u64);
        let mut writes = Vec::new();
        let start = self.dut.cycle();
        let mut next = 0;
        loop {
            if next < ops.len() {
                for f in FIELDS {
                    self.dut.poke_u64(&format!("cand_0_bits_{f}"), 0).unwrap();
                }
                for (f, v) in &ops[next] {
                    self.dut.poke_u64(&format!("cand_0_bits_{f}"), *v).unwrap();
                }
                self.dut.poke_u64("cand_0_valid", 1).unwrap();
                let ok = self.dut.peek_u64("ok").unwrap();
                self.dut.poke_u64("pick", ok).unwrap();
                next += ok as usize;
            } else {
                self.dut.poke_u64("cand_0_valid", 0).unwrap();
                self.dut.poke_u64("pick", 0).unwrap();
                if self.dut.peek_u64("busy").unwrap() == 0 {
                    break;
                }
            }
            for b in 0..self.p.banks as u64 {
                for (file, per_reg) in [("vrf", n), ("prf", np)] {
                    let port = format!("b{b}_{file}_w");
                    if self.dut.peek_u64(&format!("{port}_valid")).unwrap() == 0 {
                        continue;
                    }
                    let row = self.dut.peek_u64(&format!("{port}_bits_row")).unwrap();
                    let data: Bits = self.dut.peek(&format!("{port}_bits_data")).unwrap();
                    let mask = self.dut.peek_u64(&format!("{port}_bits_mask")).unwrap();
                    let (strip_no, reg) = (row / per_reg, (row % per_reg) as u32);
                    for j in 0..s {
                        if mask >> j & 1 == 0 {
                            continue;
                        }
                        let elem = strip_no * strip + b * s + j;
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
            self.dut.step();
            assert!(self.dut.cycle() - start < 1_000_000, "the VXU hangs");
        }
        (writes, self.dut.cycle() - start)
    }
}

fn asm(line: &str) -> u64 {
    match assemble(line).unwrap_or_else(|e| panic!("{line}: {e}")) {
        Assembled::Worker(w) => w,
        other => panic!("{line}: {other:?}"),
    }
}

/// A program's setup: configuration, vector length, shared registers.
struct Setup {
    cfg: Vcfg,
    vlen: u64,
    vs: Vec<u64>,
}

/// Runs `lines` on the model and the DUT from the state `setup` gives; panics with the
/// first difference.
fn check(bench: &mut Bench, setup: &Setup, lines: &[String]) -> u64 {
    let p = bench.p.clone();
    let mut rig = Rig::new(model_params(&p));
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
    let trace = rig.hw.take_trace();
    let mut expected: Vec<Write> = trace
        .iter()
        .flat_map(|r| r.effects.iter())
        .filter_map(|e| match *e {
            Effect::Vv { reg, elem, value } => Some(Write::Vv { reg, elem, value }),
            Effect::Vp { reg, elem, value } => Some(Write::Vp { reg, elem, value }),
            _ => None,
        })
        .collect();

    // The reset state vsetcfg gives (zeroes, vp0 set), through the datapath itself.
    let cfg = setup.cfg;
    let strip = p.strip() as u64;
    let strips = (p.bank_entries as u64 / cfg.vv_total().max(1) as u64)
        .min(p.pred_entries as u64 / cfg.vp.max(1) as u64);
    let mut init: Vec<SeqOp> = Vec::new();
    for s in 0..strips {
        for r in 0..cfg.vv_total() {
            let row = s * cfg.vv_total() as u64 + r as u64;
            init.push(vec![("unit", unit::ALU), ("count", strip), ("rd", row)]);
        }
        for r in 0..cfg.vp {
            let row = s * cfg.vp as u64 + r as u64;
            let table = if r == 0 { 0xff } else { 0 };
            init.push(vec![
                ("unit", unit::PLU),
                ("count", strip),
                ("table", table),
                ("rd_pred", 1),
                ("prd", row),
            ]);
        }
    }
    bench.run(&cfg, &init);

    let vs = |r: u32| setup.vs[r as usize];
    let ops: Vec<SeqOp> = insns
        .iter()
        .flat_map(|i| strip_ops(&p, &cfg, setup.vlen, i, &vs))
        .collect();
    let (writes, cycles) = bench.run(&cfg, &ops);
    // Last write per element, in cycle order, against the model's final state.
    for w in &writes {
        let last = writes.iter().rev().find(|x| same_place(x, w)).unwrap();
        let state = rig.hw.state();
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
    let mut got = writes;
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
    cycles
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

const ALU_OPS: &[&str] = &[
    "vadd", "vaddu", "vsub", "vsll", "vslt", "vsltu", "vxor", "vsrl", "vsra", "vor", "vand",
    "vaddw", "vsubw", "vsllw", "vsrlw", "vsraw",
];
const MUL_OPS: &[&str] = &["vmul", "vmulh", "vmulhsu", "vmulhu", "vmulw"];
const CMP_OPS: &[&str] = &["vcmpeq", "vcmplt", "vcmpltu"];

fn random_vs(rng: &mut Rng) -> Vec<u64> {
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
fn random_program(rng: &mut Rng, p: &HwachaParams, len: usize) -> (Setup, Vec<String>) {
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

#[test]
fn directed_programs_match_the_golden_model() {
    let p = HwachaParams::default();
    let mut bench = Bench::new(&p);
    let mut rng = Rng::new(1);
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
    let mut vs = random_vs(&mut rng);
    for (r, v) in vs.iter_mut().enumerate().take(8) {
        *v = r as u64;
    }
    let maxvl = model_params(&p).maxvl(&cfg);
    for lines in &programs {
        for vlen in [1, 7, 8, 9, 30, maxvl] {
            check(
                &mut bench,
                &Setup {
                    cfg,
                    vlen,
                    vs: vs.clone(),
                },
                lines,
            );
        }
    }
}

#[test]
fn random_programs_match_the_golden_model() {
    let programs = if long() { 2000 } else { 60 };
    for (k, p) in configs().iter().enumerate() {
        let mut bench = Bench::new(p);
        let mut rng = Rng::new(0x1a_e0 + k as u64);
        for _ in 0..programs / configs().len().max(1) * if k == 0 { 2 } else { 1 } {
            let (setup, lines) = random_program(&mut rng, p, 40);
            check(&mut bench, &setup, &lines);
        }
    }
}

/// The systolic schedule's throughput: after the start-up latency, independent operations
/// with r vector operands stream one strip every r cycles (every cycle with none), and
/// the multiplier takes a strip every B cycles (one bank entry per cycle).
#[test]
fn independent_strips_stream_at_the_bank_schedule_rate() {
    for p in configs() {
        let mut bench = Bench::new(&p);
        let cfg = Vcfg {
            vv64: 4,
            vp: 1,
            vv32: 0,
            vv16: 0,
        };
        let strips = 40u64;
        for (rows_read, unit_, min_gap) in [
            (0u64, unit::ALU, 1u64),
            (1, unit::ALU, 1),
            (2, unit::ALU, 2),
            (2, unit::IMUL, p.banks as u64),
        ] {
            let ops: Vec<SeqOp> = (0..strips)
                .map(|s| {
                    let mut op = vec![
                        ("unit", unit_),
                        ("count", p.strip() as u64),
                        ("rd", (s % 8) * 4 + 3),
                    ];
                    if rows_read > 0 {
                        op.extend([("rs1_v", 1), ("rs1", (s % 8) * 4)]);
                    }
                    if rows_read > 1 {
                        op.extend([("rs2_v", 1), ("rs2", (s % 8) * 4 + 1)]);
                    }
                    op
                })
                .collect();
            let (_, cycles) = bench.run(&cfg, &ops);
            let gap = min_gap.max(rows_read);
            let drain = 2 * (8 + p.banks as u64 + p.stages_imul as u64);
            assert!(
                cycles <= strips * gap + drain,
                "{p:?}: {strips} strips with {rows_read} reads on unit {unit_}: {cycles} cycles, more than {} + {drain}",
                strips * gap
            );
            assert!(
                cycles >= strips * gap,
                "faster than the bank schedule allows: {cycles}"
            );
        }
    }
}

#[test]
fn every_tested_shape_is_lint_clean() {
    for p in configs() {
        let design = Design::new(&vxu(&p, 2).unwrap());
        let verilog = hdl::emit::emit(&design, &Default::default()).single_file();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("vxu.v"), verilog).unwrap();
        let target = LintTarget {
            dir: dir.path().to_path_buf(),
            files: vec!["vxu.v".into()],
            top: design.top_name().to_string(),
        };
        let verdicts = run_all(&target).unwrap_or_else(|e| panic!("{e}"));
        for v in verdicts {
            assert!(v.clean, "{p:?}: {}:\n{}", v.tool, v.output);
        }
    }
}
