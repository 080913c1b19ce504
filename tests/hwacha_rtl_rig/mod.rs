//! Shared by the Hwacha RTL tests: programs (directed and random), the golden model's
//! run of them, the decoded-instruction fields a sequencer stand-in or the RTL's issue
//! port takes, and the comparison of the RTL's register-file writes with the model's.

#![allow(dead_code)] // each test file uses part of the rig

#[path = "../hwacha_model_rig/mod.rs"]
mod hwacha_model_rig;

use generators::fpu::{compare, convert, fma};
use generators::hwacha::lane::fma::fma_fn;
use generators::hwacha::lane::uop::{alu_fn, fmt, imul_fn, red, unit};
use generators::hwacha::lane::vfu2::fdiv_fn;
use generators::hwacha::params::HwachaParams;
use generators::rocket::decode::alu_fn as rocket_fn;
use hdl::Bits;
pub use hwacha_model_rig::Rig;
use verification::hwacha::asm::{assemble, Assembled};
use verification::hwacha::model::{
    AmoOp, Arith, CmpOp, Effect, FCmp, Field, Fma, Fmt, FpOp, HwachaParams as ModelParams, Insn,
    IntKind, IntOp, Mode, Op, Vcfg, WideningOp, Width,
};
use verification::rng::Rng;
use verification::simulator::Simulator;
use verification::verilator::INIT_SEEDS;

pub fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// Random programs per configuration: `fast`, `long` with `ACCELGEN_LONG`, or the count
/// `HWACHA_RANDOM_PROGRAMS` sets (for a longer campaign on the fast suite's shapes).
pub fn random_programs(fast: usize, long_count: usize) -> usize {
    match std::env::var("HWACHA_RANDOM_PROGRAMS") {
        Ok(n) => n.parse().expect("HWACHA_RANDOM_PROGRAMS: a count"),
        Err(_) if long() => long_count,
        Err(_) => fast,
    }
}

/// Restarts `dut` for test case `case` from a random initial state, the cases
/// alternating the seeds of `INIT_SEEDS` (both covered without extra runs or models),
/// and resets it: the case then proves that nothing unwritten is observed.
pub fn restart(dut: &mut impl Simulator, case: u64) {
    let seed = INIT_SEEDS[(case % INIT_SEEDS.len() as u64) as usize];
    dut.reinit(hdl::sim::Init::Random { seed }).unwrap();
    dut.poke_u64("reset", 1).unwrap();
    dut.step();
    dut.poke_u64("reset", 0).unwrap();
}

pub fn model_params(p: &HwachaParams) -> ModelParams {
    ModelParams::of_rtl(p)
}

/// Named field values of a port bundle (unnamed fields are 0).
pub type Fields = Vec<(&'static str, u64)>;

/// The decoded-instruction fields of `insn` (the `vinsn` bundle, register numbers):
/// what the scalar unit's decode hands the master sequencer; `None` for `vfence`, which
/// the issuer handles by waiting for the unit to be idle. `vs` and `va` give the shared
/// and address registers' values.
pub fn insn_fields(
    cfg: &Vcfg,
    insn: &Insn,
    vs: &dyn Fn(u32) -> u64,
    va: &dyn Fn(u32) -> u64,
) -> Option<Fields> {
    let mut op: Fields = vec![("wr", 1)];
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
            // Divides are read out to the lanes' dividers.
            op.push(("div", (u == unit::MEM) as u64));
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
        Op::Load(m) | Op::Store(m) if m.mode.is_vector() => {
            let load = matches!(insn.op, Op::Load(_));
            op.retain(|f| f.0 != "wr");
            op.extend(mem_fields(m.width, if load { 0 } else { 1 }, 0));
            op.push(("unsigned", m.unsigned as u64));
            match m.mode {
                Mode::Unit => op.push(("s1", va(insn.get(Field::Vars1)))),
                Mode::Strided => op.extend([
                    ("mode", 1),
                    ("s1", va(insn.get(Field::Vars1))),
                    ("s2", va(insn.get(Field::Vars2))),
                ]),
                _ => op.extend([
                    ("mode", 2),
                    ("s1", vs(insn.rs1())),
                    ("rs1_v", 1),
                    ("rs1", insn.rs2() as u64),
                ]),
            }
            if load {
                op.extend([
                    ("wr", 1),
                    ("rd", insn.rd() as u64),
                    ("rd_width", width(insn.rd())),
                ]);
            } else {
                op.extend([("rs2_v", 1), ("rs2", insn.rd() as u64)]);
            }
        }
        Op::Amo(a, w) => {
            op.extend(mem_fields(w, 2, amo_code(a)));
            op.extend([
                ("mode", 2),
                ("rd", insn.rd() as u64),
                ("rd_width", width(insn.rd())),
            ]);
            // Addresses: a vector's elements, or one shared register for every element.
            operand(&mut op, Field::Vrs1, "rs1_v", "rs1", "s1");
            operand(&mut op, Field::Vrs2, "rs2_v", "rs2", "s2");
        }
        Op::First => {
            op.retain(|f| f.0 != "wr");
            op.extend([
                ("unit", unit::MEM),
                ("red", red::FIRST),
                ("rd", insn.rd() as u64),
            ]);
            operand(&mut op, Field::Vrs1, "rs1_v", "rs1", "s1");
        }
        Op::Cjal | Op::Cjalr => {
            op.retain(|f| f.0 != "wr");
            let any = insn.get(Field::Vcond) as u64;
            op.extend([("unit", unit::MEM), ("red", red::ALL + any)]);
        }
        Op::Fp(f) => {
            let (u, fn_, format) = fp_fields(f);
            op.extend([("unit", u), ("fn", fn_), ("fmt", format)]);
            // Divides and square roots are read out to the lanes' VFU2.
            op.push(("div", (u == unit::MEM) as u64));
            if insn.has(Field::Vrm) {
                // The dynamic mode is the unit's frm: round to nearest even.
                let rm = insn.get(Field::Vrm) as u64;
                op.push(("rm", if rm == 7 { 0 } else { rm }));
            }
            for (f, v, r, sv) in [
                (Field::Vrs1, "rs1_v", "rs1", "s1"),
                (Field::Vrs2, "rs2_v", "rs2", "s2"),
                (Field::Vrs3, "rs3_v", "rs3", "s3"),
            ] {
                if insn.has(f) {
                    operand(&mut op, f, v, r, sv);
                }
            }
            if let FpOp::Cmp(..) = f {
                op.extend([("rd_pred", 1), ("prd", insn.get(Field::Vprd) as u64)]);
            } else {
                op.extend([("rd", insn.rd() as u64), ("rd_width", width(insn.rd()))]);
            }
        }
        Op::Fence => return None,
        other => panic!("not a vector-unit instruction: {other:?}"),
    }
    Some(op)
}

/// The VMU command fields of a memory instruction.
fn mem_fields(width: Width, op: u64, amo_fn: u64) -> Fields {
    let log = match width {
        Width::B => 0,
        Width::H => 1,
        Width::W => 2,
        Width::D => 3,
    };
    vec![
        ("unit", unit::MEM),
        ("mem", 1),
        ("mem_op", op),
        ("amo_fn", amo_fn),
        ("width", log),
    ]
}

/// `vmu::amo`'s function codes: the order of the thesis's list.
fn amo_code(op: AmoOp) -> u64 {
    use AmoOp::*;
    [Swap, Add, Xor, And, Or, Min, Max, Minu, Maxu]
        .iter()
        .position(|&o| o == op)
        .unwrap() as u64
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
        // The M extension's funct3 for the divider.
        Div | Divw => (unit::MEM, 4),
        Divu | Divuw => (unit::MEM, 5),
        Rem | Remw => (unit::MEM, 6),
        Remu | Remuw => (unit::MEM, 7),
    }
}

/// Unit, function and format code of an FP operation the vector side runs (the
/// generator's encodings, `fpu::fma::op`, `fpu::compare::op`, `fpu::convert::encode`).
fn fp_fields(op: FpOp) -> (u64, u64, u64) {
    let code = |f: Fmt| match f {
        Fmt::S => fmt::S,
        Fmt::D => fmt::D,
        Fmt::H => fmt::H,
    };
    let int = |k: IntKind| match k {
        IntKind::W => convert::int::W,
        IntKind::Wu => convert::int::WU,
        IntKind::L => convert::int::L,
        IntKind::Lu => convert::int::LU,
    };
    let fma_op = |k: Fma| match k {
        Fma::Madd => fma::op::FMADD,
        Fma::Msub => fma::op::FMSUB,
        Fma::Nmsub => fma::op::FNMSUB,
        Fma::Nmadd => fma::op::FNMADD,
    };
    match op {
        FpOp::Arith(a, f) => {
            let (u, fn_) = match a {
                Arith::Add => (unit::FMA, fma::op::ADD),
                Arith::Sub => (unit::FMA, fma::op::SUB),
                Arith::Mul => (unit::FMA, fma::op::MUL),
                Arith::Min => (unit::FCMP, compare::op::MIN),
                Arith::Max => (unit::FCMP, compare::op::MAX),
                Arith::Sgnj => (unit::FCMP, compare::op::SGNJ),
                Arith::Sgnjn => (unit::FCMP, compare::op::SGNJN),
                Arith::Sgnjx => (unit::FCMP, compare::op::SGNJX),
                Arith::Div => (unit::MEM, fdiv_fn::DIV),
            };
            (u, fn_, code(f))
        }
        FpOp::Fma(k, f) => (unit::FMA, fma_op(k), code(f)),
        FpOp::Sqrt(f) => (unit::MEM, fdiv_fn::SQRT, code(f)),
        FpOp::Class(f) => (unit::FCMP, compare::op::CLASS, code(f)),
        FpOp::Cmp(k, f) => {
            let c = match k {
                FCmp::Eq => compare::op::EQ,
                FCmp::Lt => compare::op::LT,
                FCmp::Le => compare::op::LE,
            };
            (unit::FCMP, c, code(f))
        }
        FpOp::Convert { from, to } => {
            let e = convert::encode(convert::kind::F2F, code(from), code(to), 0);
            (unit::FCONV, e, 0)
        }
        FpOp::ToInt(f, k) => {
            let e = convert::encode(convert::kind::F2I, code(f), 0, int(k));
            (unit::FCONV, e, 0)
        }
        FpOp::FromInt(k, f) => {
            let e = convert::encode(convert::kind::I2F, 0, code(f), int(k));
            (unit::FCONV, e, 0)
        }
        FpOp::Widening { op, to, from } => {
            let k = match op {
                WideningOp::Arith(Arith::Add) => fma::op::ADD,
                WideningOp::Arith(Arith::Sub) => fma::op::SUB,
                WideningOp::Arith(_) => fma::op::MUL,
                WideningOp::Fma(k) => fma_op(k),
            };
            (unit::FMA, fma_fn::widening(k, code(from)), code(to))
        }
    }
}

/// Every field of the decoded-instruction and sequencer-operation bundles.
pub const FIELDS: &[&str] = &[
    "unit", "fn", "word", "table", "rs1_v", "rs2_v", "rs3_v", "s1", "s2", "s3", "rm", "fmt",
    "pred_on", "pred_neg", "pred", "ps1", "ps2", "ps3", "wr", "rd_pred", "rd_width", "mem", "red",
    "div", "mem_op", "amo_fn", "mode", "width", "unsigned", "rs1", "rs2", "rs3", "rd", "prd",
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

/// The configuration fields the lanes lay registers out by (`regmap::layout_fields`),
/// as `hwacha/mod.rs` and the thesis's Register Mapping define them, from the golden
/// model's elements per bank: `nvv`, `nvp`, and with mixed precision the counts per
/// width and the first rows of the word and halfword regions.
pub fn layout_values(p: &HwachaParams, cfg: &Vcfg) -> Vec<(&'static str, u64)> {
    let mut v = vec![("nvv", cfg.vv_total() as u64), ("nvp", cfg.vp as u64)];
    if p.mixed_precision {
        let rows = p.bank_entries as u64;
        let (bw, bh) = regions(p, cfg);
        v.extend([
            ("nd", cfg.vv64 as u64),
            ("nw", cfg.vv32 as u64),
            ("nh", cfg.vv16 as u64),
            ("bw", bw % rows),
            ("bh", bh % rows),
        ]);
    }
    v
}

/// The first rows of the word and halfword regions (mixed precision): the doubleword
/// region takes e rows per 64-bit register, the word region ceil(e / 2) per 32-bit one,
/// for the golden model's elements per bank e.
fn regions(p: &HwachaParams, cfg: &Vcfg) -> (u64, u64) {
    let e = model_params(p).elements_per_bank(cfg);
    let bw = e * cfg.vv64 as u64;
    (bw, bw + e.div_ceil(2) * cfg.vv32 as u64)
}

/// The register and lane-local strip that row `row` (subword `sub`) of a bank holds,
/// by the layout contract (`hwacha/mod.rs`; with mixed precision, `lane/regmap.rs`'s
/// regions): data registers when `file` is "vrf", else predicate registers.
fn place_of(p: &HwachaParams, cfg: &Vcfg, file: &str, row: u64, cls: u64, sub: u64) -> (u32, u64) {
    let np = cfg.vp.max(1) as u64;
    if !p.mixed_precision {
        let n = if file == "vrf" {
            cfg.vv_total().max(1) as u64
        } else {
            np
        };
        return ((row % n) as u32, row / n);
    }
    if file == "prf" {
        return ((row % np) as u32, row / np * 4 + sub);
    }
    let (nd, nw, nh) = (cfg.vv64 as u64, cfg.vv32 as u64, cfg.vv16 as u64);
    let (bw, bh) = regions(p, cfg);
    let (base, first, n, k) = match cls {
        0 => (0, 0, nd, 1),
        1 => (bw, nd, nw, 2),
        _ => (bh, nd + nw, nh, 4),
    };
    assert!(
        row >= base && n > 0,
        "row {row} of class {cls} is outside its region"
    );
    let r = row - base;
    ((first + r % n) as u32, r / n * k + sub)
}

/// Reads bank `bank`'s write ports (`<prefix>vrf_w`, `<prefix>prf_w`) of lane `lane`
/// this cycle and records the writes by the layout contract (`place_of`). Returns how
/// many of them were packed (mixed precision's whole-row writes).
pub fn record_bank_writes(
    dut: &mut impl Simulator,
    prefix: &str,
    p: &HwachaParams,
    cfg: &Vcfg,
    lane: u64,
    bank: u64,
    writes: &mut Vec<Write>,
) -> u64 {
    let mut packed = 0;
    let (strip, s, lanes) = (p.strip() as u64, p.slices() as u64, p.lanes as u64);
    for file in ["vrf", "prf"] {
        let port = format!("{prefix}{file}_w");
        if dut.peek_u64(&format!("{port}_valid")).unwrap() == 0 {
            continue;
        }
        let row = dut.peek_u64(&format!("{port}_bits_row")).unwrap();
        let data: Bits = dut.peek(&format!("{port}_bits_data")).unwrap();
        let mask = dut.peek_u64(&format!("{port}_bits_mask")).unwrap();
        let [cls, sub, pk] = if p.mixed_precision {
            ["cls", "sub", "pk"].map(|f| dut.peek_u64(&format!("{port}_bits_{f}")).unwrap())
        } else {
            [0; 3]
        };
        // A packed write (`pk`: the class of the packed row it covers) holds the row
        // as written, subword k's element j at mask bit k * S + j.
        let subwords = if pk == 0 { 1 } else { 1 << cls };
        packed += u64::from(pk != 0);
        for k in 0..subwords {
            let (reg, local_strip) = place_of(p, cfg, file, row, cls, sub + k);
            for j in 0..s {
                if mask >> (k * s + j) & 1 == 0 {
                    continue;
                }
                let elem = (local_strip * lanes + lane) * strip + bank * s + j;
                writes.push(if file == "vrf" {
                    let slice = data.slice(64 * j as u32 + 63, 64 * j as u32).to_u64();
                    let value = if pk == 0 {
                        slice
                    } else {
                        let w = 64 >> cls;
                        let v = slice >> (w * k) & ((1 << w) - 1);
                        (((v << (64 - w)) as i64) >> (64 - w)) as u64
                    };
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
    packed
}

pub fn asm(line: &str) -> u64 {
    match assemble(line).unwrap_or_else(|e| panic!("{line}: {e}")) {
        Assembled::Worker(w) => w,
        other => panic!("{line}: {other:?}"),
    }
}

/// A program's setup: configuration, vector length, shared and address registers (the
/// data window's initial contents come from `DATA_SEED`).
pub struct Setup {
    pub cfg: Vcfg,
    pub vlen: u64,
    pub vs: Vec<u64>,
    pub va: Vec<u64>,
}

/// The data window vector memory instructions use, and its initial contents.
pub const DATA: u64 = hwacha_model_rig::DATA;
pub const DATA_SIZE: u64 = 0x8_0000;
const DATA_SEED: u64 = 0xda7a;

pub fn data_image() -> Vec<u64> {
    let mut rng = Rng::new(DATA_SEED);
    (0..DATA_SIZE / 8).map(|_| rng.next_u64()).collect()
}

/// The golden model's run of a program.
pub struct Golden {
    pub rig: Rig,
    pub insns: Vec<Insn>,
    pub writes: Vec<Write>,
    /// The reductions' answers to the scalar unit, in program order.
    pub answers: Vec<Answer>,
    /// The FP exception flags the program accrued.
    pub fflags: u8,
}

/// What the vector side tells the scalar unit: vfirst's value for a shared register, or
/// whether a consensual jump is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    First { rd: u32, value: u64 },
    Jump { taken: bool },
}

pub fn golden(p: &HwachaParams, setup: &Setup, lines: &[String]) -> Golden {
    let mut rig = Rig::new(model_params(p));
    rig.setcfg(setup.cfg);
    assert_eq!(rig.setvl(setup.vlen), setup.vlen, "vlen within maxvl");
    for (r, v) in setup.vs.iter().enumerate().skip(1) {
        rig.vmcs(r as u64, *v);
    }
    for (r, v) in setup.va.iter().enumerate() {
        rig.vmca(r as u64, *v);
    }
    rig.write_u64s(DATA, &data_image());
    let words: Vec<u64> = lines.iter().map(|l| asm(l)).collect();
    let insns: Vec<Insn> = words
        .iter()
        .zip(lines)
        .map(|(w, l)| rig.hw.decode(*w).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    rig.hw.set_tracing(true);
    let mut code = words.clone();
    code.push(hwacha_model_rig::stop());
    rig.hw.take_fflags();
    rig.run(&code)
        .unwrap_or_else(|e| panic!("{e:?}\nprogram:\n{}", lines.join("\n")));
    let fflags = rig.hw.take_fflags();
    let trace = rig.hw.take_trace();
    // The programs' reductions write a nonzero vs (vfirst's destination, a jump's link):
    // a jump is taken exactly when its link is written.
    let answers = trace
        .iter()
        .filter_map(|r| {
            let insn = rig.hw.decode(r.bits).unwrap();
            let vs = r.effects.iter().find_map(|e| match *e {
                Effect::Vs { reg, value } => Some((reg, value)),
                _ => None,
            });
            match insn.op {
                Op::First => {
                    let (rd, value) = vs.expect("vfirst writes a nonzero vs");
                    Some(Answer::First { rd, value })
                }
                Op::Cjal | Op::Cjalr => Some(Answer::Jump {
                    taken: vs.is_some(),
                }),
                _ => None,
            }
        })
        .collect();
    let writes = trace
        .iter()
        .flat_map(|r| r.effects.clone())
        .filter_map(|e| match e {
            Effect::Vv { reg, elem, value } => Some(Write::Vv { reg, elem, value }),
            Effect::Vp { reg, elem, value } => Some(Write::Vp { reg, elem, value }),
            _ => None,
        })
        .collect();
    Golden {
        rig,
        insns,
        writes,
        answers,
        fflags,
    }
}

impl Golden {
    /// The data window after the program, 8 bytes a word.
    pub fn data(&self) -> Vec<u64> {
        (0..DATA_SIZE / 8)
            .map(|k| self.rig.read(DATA + 8 * k, 8))
            .collect()
    }
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

/// A program's lines.
fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Directed programs per instruction class, with the configuration they need.
pub fn directed_programs() -> (Vcfg, Vec<Vec<String>>) {
    let cfg = Vcfg {
        vv64: 6,
        vp: 3,
        vv32: 2,
        vv16: 0,
    };
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
pub const DIV_OPS: &[&str] = &[
    "vdiv", "vdivu", "vrem", "vremu", "vdivw", "vdivuw", "vremw", "vremuw",
];

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

/// A random configuration (`vv64` 64-bit registers, up to two 32-bit and two 16-bit
/// ones, `vp_min` to 4 predicate registers) and vector length (maxvl, about a strip, or
/// any).
fn random_shape(
    rng: &mut Rng,
    p: &HwachaParams,
    vv64: std::ops::Range<u32>,
    vp_min: u32,
) -> (Vcfg, u64) {
    let vv64 = rng.range(vv64.start, vv64.end);
    let (vv32, vv16) = (rng.range(0, 3), rng.range(0, 3));
    let vp = rng.range(vp_min, 5);
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
    (cfg, vlen)
}

/// A random program: registers filled with varied values first, then random operations
/// with random operand kinds, destinations (also narrow ones) and predicates; with
/// `memory`, also vector loads, stores and AMOs of every mode and width (stores and AMOs
/// fenced on both sides: the worker thread's memory order is relaxed, thesis 7.x
/// `vfence`, and the golden model's is sequential), reductions and divides.
pub fn random_program(
    rng: &mut Rng,
    p: &HwachaParams,
    len: usize,
    memory: bool,
) -> (Setup, Vec<String>) {
    let (cfg, vlen) = random_shape(rng, p, 2..9, 1 + memory as u32);
    let Vcfg { vv64, vp, vv32, .. } = cfg;
    // The *W forms take 32-bit registers too (16-bit ones only hold FP and loads).
    let vv = |rng: &mut Rng| format!("vv{}", rng.below((vv64 + vv32) as u64));
    let vv64r = |rng: &mut Rng| format!("vv{}", rng.below(vv64 as u64));
    // vs56-vs59 take reductions' results, which the issuer does not track: no operand
    // reads them after the set-up.
    let vsr = |rng: &mut Rng| format!("vs{}", rng.below(56));
    let vpr = |rng: &mut Rng| format!("vp{}", rng.below(vp as u64));
    // Memory programs keep vp0 all ones: their index set-up runs unpredicated (vp0).
    let first_dest = memory as u64;
    let vpd = |rng: &mut Rng| format!("vp{}", first_dest + rng.below(vp as u64 - first_dest));
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
        if memory && rng.chance(35) {
            lines.extend(memory_lines(rng, &pred, vv64, vv32));
            continue;
        }
        if memory && rng.chance(8) {
            // Reductions: vfirst of a vector, and consensual jumps to the next
            // instruction (so that both outcomes continue alike, with the link telling).
            lines.push(match rng.below(3) {
                0 => format!("{pred}vfirst vs{}, {}", rng.range(56, 59), vv64r(rng)),
                1 => format!("{pred}vcjal.all vs{}, 8", rng.range(56, 59)),
                _ => format!("{pred}vcjal.any vs{}, 8", rng.range(56, 59)),
            });
            continue;
        }
        if memory && rng.chance(6) {
            // Divides (the lanes' dividers, beside the memory side): zero divisors come
            // from veidx's element 0 and the small shared values.
            let op = rng.pick(DIV_OPS);
            let word = op.ends_with('w');
            let r = if word {
                &vv as &dyn Fn(&mut Rng) -> String
            } else {
                &vv64r
            };
            let (d, a, b) = (r(rng), src(rng, r), src(rng, r));
            lines.push(format!("{pred}{op} {d}, {a}, {b}"));
            continue;
        }
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
                vpd(rng),
                vv64r(rng),
                src(rng, &vv64r)
            ),
            _ => format!(
                "vpop {}, {}, {}, {}, {:#x}",
                vpd(rng),
                vpr(rng),
                vpr(rng),
                vpr(rng),
                rng.below(256)
            ),
        };
        lines.push(line);
    }
    let mut vs = random_vs(rng);
    // Shared registers 60-63: bases of indexed accesses and AMOs, index scales.
    vs[60] = DATA + DATA_SIZE / 2;
    vs[61] = 8;
    vs[62] = 24;
    vs[63] = (-16i64) as u64;
    // Address registers: bases inside the data window (8-byte aligned, so half of them
    // not 16-byte aligned), and strides (va28-va31: forward, backward, zero for loads).
    let mut va: Vec<u64> = (0..32)
        .map(|_| DATA + 0x1_0000 + rng.below(0x6000) * 8)
        .collect();
    va[28..].copy_from_slice(&[8, (-16i64) as u64, 0, 24]);
    (Setup { cfg, vlen, vs, va }, lines)
}

/// A random vector memory instruction (with the fences and index set-up it needs).
fn memory_lines(rng: &mut Rng, pred: &str, vv64: u32, vv32: u32) -> Vec<String> {
    let (w, bytes, unsigned_ok) = *rng.pick(&[
        ("d", 8u64, false),
        ("w", 4, true),
        ("h", 2, true),
        ("b", 1, true),
    ]);
    let u = if unsigned_ok && rng.chance(50) {
        "u"
    } else {
        ""
    };
    // Narrow registers take accesses of at most their width.
    let data_reg = |rng: &mut Rng| {
        if bytes <= 4 && vv32 > 0 && rng.chance(30) {
            vv64 + rng.below(vv32 as u64) as u32
        } else {
            rng.below(vv64 as u64) as u32
        }
    };
    // va0-va27 hold bases, va28-va31 strides (`random_program`).
    let va = |rng: &mut Rng| rng.below(28);
    let index = rng.below(vv64 as u64);
    let scale = *rng.pick(&[61u64, 62, 63]);
    let make_index = vec![
        format!("veidx vv{index}, vs0"),
        format!("vmul vv{index}, vv{index}, vs{scale}"),
    ];
    let d = data_reg(rng);
    let mut out = Vec::new();
    match rng.below(7) {
        0 | 1 => out.push(format!("{pred}vl{w}{u} vv{d}, va{}", va(rng))),
        2 => out.push(format!(
            "{pred}vlst{w}{u} vv{d}, va{}, va{}",
            va(rng),
            28 + rng.below(4)
        )),
        3 => {
            out.extend(make_index);
            out.push(format!("{pred}vlx{w}{u} vv{d}, vs60, vv{index}"));
        }
        4 => {
            out.push("vfence".into());
            out.push(format!("{pred}vs{w} vv{d}, va{}", va(rng)));
            out.push("vfence".into());
        }
        5 => {
            out.extend(make_index);
            out.push("vfence".into());
            out.push(format!("{pred}vsx{w} vv{d}, vs60, vv{index}"));
            out.push("vfence".into());
        }
        _ => {
            // Distinct element addresses, so that the old values do not depend on order.
            let aw = if bytes == 8 { "d" } else { "w" };
            let dest = if aw == "w" {
                data_reg(rng)
            } else {
                rng.below(vv64 as u64) as u32
            };
            let op = rng.pick(&[
                "swap", "add", "xor", "and", "or", "min", "max", "minu", "maxu",
            ]);
            out.push(format!("veidx vv{index}, vs0"));
            out.push(format!("vmul vv{index}, vv{index}, vs61"));
            out.push(format!("vadd vv{index}, vv{index}, vs60"));
            out.push("vfence".into());
            out.push(format!(
                "{pred}vamo{op}.{aw} vv{dest}, 0(vv{index}), vs{}",
                rng.range(1, 55)
            ));
            out.push("vfence".into());
        }
    }
    out
}

/// FP values of format `bits` (16, 32, 64) that exercise the special cases: zeros,
/// infinities, quiet and signaling NaNs, the smallest and largest subnormals, the
/// smallest normal, the largest finite number, ones, a half-way rounding case; as the
/// register holds them (sign-extended).
pub fn fp_specials(bits: u32) -> Vec<u64> {
    let (e, m) = match bits {
        16 => (5, 10),
        32 => (8, 23),
        _ => (11, 52),
    };
    let sign = 1u64 << (bits - 1);
    let inf = ((1u64 << e) - 1) << m;
    let one = ((1u64 << (e - 1)) - 1) << m;
    let raw = [
        0,
        sign,
        inf,
        sign | inf,
        inf | 1 << (m - 1),
        inf | 1,
        1,
        (1 << m) - 1,
        1 << m,
        (inf - 1) | sign,
        inf - 1,
        one,
        one | sign,
        one | 1,
        one | ((1 << m) - 1),
    ];
    raw.iter()
        .map(|&v| {
            let shift = 64 - bits;
            (((v << shift) as i64) >> shift) as u64
        })
        .collect()
}

/// The FP formats by suffix and element width.
const FP_FORMATS: [(&str, u32); 3] = [("d", 64), ("s", 32), ("h", 16)];
const ROUNDING: &[&str] = &["", ", rne", ", rtz", ", rdn", ", rup", ", rmm", ", dyn"];

/// A random FP program for the vector side: registers of every width filled with
/// random bit patterns, integers converted to floats and special values (shared
/// registers vs40-vs54, each format's `fp_specials`, copied into some elements by
/// predicated sign injections); then random FMA-unit arithmetic and fused forms,
/// sign injections, min/max, classify, compares into predicates, divides and square
/// roots (VFU2), the widening forms and conversions among
/// the formats and to and from integers, every rounding mode, vector and shared
/// operands, predicated, with integer operations mixed in, in registers of exactly or
/// more than the precision they need.
pub fn random_fp_program(rng: &mut Rng, p: &HwachaParams, len: usize) -> (Setup, Vec<String>) {
    let (cfg, vlen) = random_shape(rng, p, 3..8, 2);
    let regs = FpRegs(cfg);
    let mut lines = fp_setup(rng, &regs);
    while lines.len() < len {
        lines.extend(fp_operation(rng, &regs));
    }
    let mut vs = random_vs(rng);
    for (k, v) in vs[40..55].iter_mut().enumerate() {
        let bits = FP_FORMATS[k % 3].1;
        let specials = fp_specials(bits);
        *v = specials[rng.below(specials.len() as u64) as usize];
    }
    (
        Setup {
            cfg,
            vlen,
            vs,
            va: vec![0; 32],
        },
        lines,
    )
}

/// The registers of a random FP program's configuration.
struct FpRegs(Vcfg);

impl FpRegs {
    /// A register of at least `bits` bits: the 64-bit ones, then 32-bit, then 16-bit;
    /// half the time (when there is one) one of exactly `bits` bits, so that with
    /// mixed precision whole operations pack (`lane/sequencer.rs`'s `packs`).
    fn reg(&self, rng: &mut Rng, bits: u32) -> String {
        let c = &self.0;
        let (lo, hi) = match bits {
            64 => (0, c.vv64),
            32 => (c.vv64, c.vv64 + c.vv32),
            _ => (c.vv64 + c.vv32, c.vv64 + c.vv32 + c.vv16),
        };
        if hi > lo && rng.chance(50) {
            return format!("vv{}", rng.range(lo, hi - 1));
        }
        format!("vv{}", rng.range(0, hi - 1))
    }

    /// A source of at least `bits` bits: mostly a vector register, else a shared one.
    fn src(&self, rng: &mut Rng, bits: u32) -> String {
        if rng.chance(75) {
            self.reg(rng, bits)
        } else {
            format!("vs{}", rng.range(1, 54))
        }
    }

    fn vpr(&self, rng: &mut Rng) -> String {
        format!("vp{}", rng.below(self.0.vp as u64))
    }
}

/// A random FP program's set-up: random patterns and converted integers in the 64-bit
/// registers, conversions and copies into the narrow ones, predicates, special values.
fn fp_setup(rng: &mut Rng, regs: &FpRegs) -> Vec<String> {
    let Vcfg {
        vv64,
        vp,
        vv32,
        vv16,
    } = regs.0;
    let mut lines = Vec::new();
    for r in 0..vv64 {
        lines.push(format!("veidx vv{r}, vs{}", rng.below(8)));
        lines.push(format!("vmul vv{r}, vv{r}, vs{}", rng.range(1, 39)));
        match rng.below(3) {
            0 => lines.push(format!("vxor vv{r}, vv{r}, vs{}", rng.range(1, 39))),
            1 => lines.push(format!("vfcvt.d.l vv{r}, vv{r}")),
            _ => {}
        }
    }
    for r in vv64..vv64 + vv32 + vv16 {
        let to = if r < vv64 + vv32 { "s" } else { "h" };
        let src = rng.below(vv64 as u64);
        lines.push(match rng.below(3) {
            0 => format!("vfcvt.{to}.w vv{r}, vv{src}"),
            1 => format!("vfcvt.{to}.d vv{r}, vv{src}"),
            _ => format!("vfsgnj.{to} vv{r}, vv{src}, vv{src}"),
        });
    }
    for r in 1..vp {
        lines.push(format!(
            "vcmplt vp{r}, vv{}, vs{}",
            rng.below(vv64 as u64),
            rng.range(1, 39)
        ));
    }
    for _ in 0..rng.range(2, 6) {
        let (f, bits) = *rng.pick(&FP_FORMATS);
        let v = rng.range(40, 54);
        let d = regs.reg(rng, bits);
        lines.push(format!("@{} vfsgnj.{f} {d}, vs{v}, vs{v}", regs.vpr(rng)));
    }
    lines
}

/// Bits of the format named `f`.
fn fp_bits(f: &str) -> u32 {
    FP_FORMATS.iter().find(|x| x.0 == f).expect("a format").1
}

/// One random operation of a random FP program (none when the pick was a conversion to
/// its own format).
fn fp_operation(rng: &mut Rng, regs: &FpRegs) -> Option<String> {
    let pred = match rng.below(4) {
        0 => format!("@!{} ", regs.vpr(rng)),
        1 => format!("@{} ", regs.vpr(rng)),
        _ => String::new(),
    };
    let rm = *rng.pick(ROUNDING);
    let (f, bits) = *rng.pick(&FP_FORMATS);
    let (reg, src) = (
        |rng: &mut Rng, b: u32| regs.reg(rng, b),
        |rng: &mut Rng, b: u32| regs.src(rng, b),
    );
    Some(match rng.below(14) {
        0..=2 => {
            let op = rng.pick(&["vfadd", "vfsub", "vfmul"]);
            let (d, a, b) = (reg(rng, bits), src(rng, bits), src(rng, bits));
            format!("{pred}{op}.{f} {d}, {a}, {b}{rm}")
        }
        3 | 4 => {
            let op = rng.pick(&["vfmadd", "vfmsub", "vfnmsub", "vfnmadd"]);
            let d = reg(rng, bits);
            let (a, b, c) = (src(rng, bits), src(rng, bits), src(rng, bits));
            format!("{pred}{op}.{f} {d}, {a}, {b}, {c}{rm}")
        }
        5 => {
            let op = rng.pick(&["vfsgnj", "vfsgnjn", "vfsgnjx", "vfmin", "vfmax"]);
            let (d, a, b) = (reg(rng, bits), src(rng, bits), src(rng, bits));
            format!("{pred}{op}.{f} {d}, {a}, {b}")
        }
        6 => format!("{pred}vfclass.{f} {}, {}", reg(rng, 64), src(rng, bits)),
        7 => {
            let op = rng.pick(&["vcmpfeq", "vcmpflt", "vcmpfle"]);
            let (a, b) = (src(rng, bits), src(rng, bits));
            format!("{pred}{op}.{f} {}, {a}, {b}", regs.vpr(rng))
        }
        8 => {
            let (to, to_bits) = *rng.pick(&FP_FORMATS);
            if to == f {
                return None;
            }
            let (d, a) = (reg(rng, to_bits), src(rng, bits));
            format!("{pred}vfcvt.{to}.{f} {d}, {a}{rm}")
        }
        9 => {
            let (int, int_bits) = *rng.pick(&[("w", 32), ("wu", 32), ("l", 64), ("lu", 64)]);
            if rng.chance(50) {
                let (d, a) = (reg(rng, int_bits), src(rng, bits));
                format!("{pred}vfcvt.{int}.{f} {d}, {a}{rm}")
            } else {
                let (d, a) = (reg(rng, bits), src(rng, int_bits));
                format!("{pred}vfcvt.{f}.{int} {d}, {a}{rm}")
            }
        }
        10 => {
            let (d, a) = (reg(rng, bits), src(rng, bits));
            if rng.chance(50) {
                format!("{pred}vfdiv.{f} {d}, {a}, {}{rm}", src(rng, bits))
            } else {
                format!("{pred}vfsqrt.{f} {d}, {a}{rm}")
            }
        }
        11 => {
            // The widening forms (s.h, d.h, d.s; fused ones d.h only).
            let (to, from) = *rng.pick(&[("s", "h"), ("d", "h"), ("d", "s")]);
            let (tb, fb) = (fp_bits(to), fp_bits(from));
            let d = reg(rng, tb);
            if (to, from) == ("d", "h") && rng.chance(50) {
                let op = rng.pick(&["vfmadd", "vfmsub", "vfnmsub", "vfnmadd"]);
                let (a, b, c) = (src(rng, fb), src(rng, fb), src(rng, fb));
                format!("{pred}{op}.{to}.{from} {d}, {a}, {b}, {c}{rm}")
            } else {
                let op = rng.pick(&["vfadd", "vfsub", "vfmul"]);
                let (a, b) = (src(rng, fb), src(rng, fb));
                format!("{pred}{op}.{to}.{from} {d}, {a}, {b}{rm}")
            }
        }
        _ => {
            let op = rng.pick(&["vadd", "vxor", "vmul", "vsra"]);
            let (d, a, b) = (reg(rng, 64), src(rng, 64), src(rng, 64));
            format!("{pred}{op} {d}, {a}, {b}")
        }
    })
}

/// Directed FP programs: each unit and format, back-to-back FMAs (the second on FMA1),
/// chains between units of different latencies (double FMA 4 cycles, single 3, FConv 2,
/// FCmp 1) and precisions, three-operand FMAs with vector and shared operands in each
/// position, divides and square roots, the widening forms, and the flags.
pub fn directed_fp_programs() -> (Vcfg, Vec<Vec<String>>) {
    let cfg = Vcfg {
        vv64: 6,
        vp: 3,
        vv32: 2,
        vv16: 2,
    };
    let programs = [
        lines(&[
            "veidx vv0, vs0",
            "vfcvt.d.l vv1, vv0",
            "vfadd.d vv2, vv1, vs16",
            "vfmul.d vv3, vv2, vv2",
            "vfmul.d vv4, vv2, vv1",
            "vfmadd.d vv5, vv3, vv4, vv2",
            "vfmsub.d vv0, vv5, vs16, vv3",
            "vfnmadd.d vv1, vs16, vv5, vs17",
            "vfnmsub.d vv2, vs16, vs17, vv0",
            "vfsub.d vv3, vv2, vv1, rtz",
            "vfcvt.s.d vv6, vv3, rup",
            "vfmul.s vv7, vv6, vv6",
            "vfcvt.h.s vv8, vv7",
            "vfadd.h vv9, vv8, vv8",
            "vcmpflt.h vp1, vv9, vv8",
            "@vp1 vfcvt.d.h vv4, vv9",
            "vfclass.s vv5, vv7",
            "vfmax.d vv0, vv4, vv3",
            "vfsgnjn.s vv6, vv7, vv6",
            "vcmpfeq.d vp2, vv0, vv4",
            "@!vp2 vfcvt.l.d vv1, vv0, rdn",
            "vfcvt.wu.s vv2, vv6",
            "vfdiv.d vv3, vv4, vv0",
            "vfsqrt.s vv7, vv6, rdn",
            "vfadd.d vv4, vv3, vv3",
            "vfdiv.h vv9, vv8, vs20",
            "@vp1 vfsqrt.d vv5, vv3",
            "vfmul.d vv0, vv5, vv4",
            "vfmadd.d.h vv1, vv9, vv8, vv9",
            "vfmul.d.s vv2, vv6, vv7, rtz",
            "vfsub.s.h vv6, vv9, vs21",
        ]),
        // Back-to-back FMAs of one format (FMA0, FMA1 alternating) and of mixed formats,
        // whose results leave in the same cycles for different banks.
        lines(&[
            "veidx vv0, vs0",
            "vfcvt.d.l vv1, vv0",
            "vfcvt.s.l vv6, vv0",
            "vfmul.d vv2, vv1, vs16",
            "vfmul.d vv3, vv1, vs17",
            "vfmul.s vv7, vv6, vs18",
            "vfadd.d vv4, vv2, vv3",
            "vfadd.s vv6, vv7, vv6",
            "vfmadd.h vv9, vv6, vv7, vv6",
            "vfmul.d vv5, vv4, vv4",
            "vfcvt.d.s vv0, vv6",
            "vfsub.d vv1, vv5, vv0",
        ]),
        // Packed operations (mixed precision: single FMAs and half-single conversions on
        // 32-bit registers, half FMAs on 16-bit ones, two and four strips an operation)
        // with shared operands, under
        // predicates written one strip at a time, and each hazard between packed and
        // one-strip operations of the same rows: RAW both ways, WAR, WAW.
        lines(&[
            "veidx vv0, vs0",
            "vfcvt.s.l vv6, vv0",
            "vfcvt.h.l vv8, vv0",
            "vfmul.s vv7, vv6, vs18",
            "vfadd.s vv6, vv7, vv6",
            "vfmadd.s vv7, vv6, vv7, vv6",
            "vfmul.h vv9, vv8, vv8",
            "vfmadd.h vv8, vv9, vs19, vv8",
            "vcmpflt.h vp1, vv9, vv8",
            "@vp1 vfsub.h vv9, vv8, vv9, rtz",
            "@!vp1 vfadd.s vv6, vv7, vs18",
            "vfcvt.h.s vv8, vv6",
            "vfadd.h vv9, vv8, vv9",
            "vfcvt.d.s vv1, vv7",
            "vfmul.s vv7, vv6, vv6",
            "vfcvt.d.h vv2, vv9",
            "vfcvt.s.d vv6, vv1",
            "vfnmsub.s vv7, vs17, vv6, vv7",
            "@vp1 vfcvt.h.s vv7, vv7, rdn",
            "vfcvt.s.h vv6, vv7",
            "vfcvt.h.s vv6, vv6",
            "vfadd.s vv7, vv6, vv7",
        ]),
    ];
    (cfg, programs.to_vec())
}
