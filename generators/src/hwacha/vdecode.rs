//! The master sequencer's decode of an issued vector instruction (`vissue`): which
//! sequencer operation it becomes (unit and function, Table 8.4), its register
//! specifiers and the scalar operands that travel with it, as the `vinsn` bundle.
//! Like the scalar unit's decode it is generated from the encoding file: one comparator
//! per line, each output bit the OR of the lines that set it.
//!
//! Floating point goes to the crossbar units: arithmetic and FMAs to an FMA (VFMU),
//! conversions to FConv (VFVU), compares, min/max, sign injection and classify to FCmp
//! (VFCU), divides and square roots read out to the lanes' VFU2 as integer divides are
//! (VQU, VFDU), each with its RISC-V format code in `fmt` and the instruction's rounding
//! mode in `rm` (the dynamic mode, 7, becomes the configuration's `frm`, the unit's
//! input: the control processor has no F extension to hold it, so the system sets it as
//! the host sets the golden model's; with `frm` reserved (5-7) an instruction of the
//! dynamic mode is `unsupported`, RISC-V's illegal instruction); the widening forms
//! (`vfadd.d.s`, ...) go to the FMAs with their sources' format in `fn`
//! (`lane::fma::fma_fn`). A segment access of more than one register, which the scalar
//! unit never issues (it splits them), is flagged `unsupported` and reported as an
//! illegal instruction. FP operations on shared registers only are flagged
//! `scalar_fp`: the scalar FPU runs them.
//! Divides read their operands out to the lanes' dividers. `vfirst` and the consensual
//! jumps are reductions: readouts of the guard (and vfirst's source) to the lanes'
//! reducers.

use super::lane::fma::fma_fn;
use super::lane::uop::{alu_fn, fmt, imul_fn, red, unit, vinsn, FN_BITS};
use super::lane::vfu2::fdiv_fn;
use super::scalar::decode::{parse, Line, WORKER};
use crate::fpu::{compare, convert, fma};
use crate::rocket::decode::alu_fn as rocket_fn;
use hdl::{cat, Bits, Bundle, ModuleBuilder, Value};

/// What one encoding line becomes.
#[derive(Default, Clone, Copy)]
struct Info {
    supported: bool,
    unit: u64,
    fn_: u64,
    word: bool,
    /// The line has a guard predicate field.
    pred: bool,
    /// Writes rd (a vector register) or, with `rd_pred`, prd.
    wr: bool,
    rd_pred: bool,
    /// Operand 1 / 2 come from the rs1 / rs2 slots (else the shift of veidx: rs1 as 2).
    ops: Operands,
    mem: Option<Mem>,
    /// vfirst (`red::FIRST`) or a consensual jump (`red::ALL`, its `any` condition
    /// bit added from the instruction).
    red: u64,
    /// An integer divide or remainder (`fn_`: its M-extension funct3).
    div: bool,
    /// A floating-point operation: its format (`uop::fmt`), whether it has a third
    /// operand (FMAs) and a rounding-mode field.
    fp: bool,
    fmt: u64,
    three: bool,
    rm: bool,
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Operands {
    #[default]
    Both,
    /// veidx: the rs1 slot is the ALU's second operand.
    ShiftOnly,
    None,
}

#[derive(Clone, Copy)]
struct Mem {
    op: u64,
    amo_fn: u64,
    mode: u64,
    width: u64,
    unsigned: bool,
}

fn int_op(name: &str) -> Option<(u64, u64, bool)> {
    let word = name.ends_with('w');
    let base = if word { &name[..name.len() - 1] } else { name };
    let alu = |f| Some((unit::ALU, f, word));
    let mul = |f| Some((unit::IMUL, f, word));
    let div = |f| Some((unit::MEM, f, word));
    match base {
        "vadd" | "vaddu" => alu(rocket_fn::ADD),
        "vsub" => alu(rocket_fn::SUB),
        "vsll" => alu(rocket_fn::SLL),
        "vslt" => alu(rocket_fn::SLT),
        "vsltu" => alu(rocket_fn::SLTU),
        "vxor" => alu(rocket_fn::XOR),
        "vsrl" => alu(rocket_fn::SRL),
        "vsra" => alu(rocket_fn::SRA),
        "vor" => alu(rocket_fn::OR),
        "vand" => alu(rocket_fn::AND),
        "vmul" => mul(imul_fn::MUL),
        "vmulh" => mul(imul_fn::MULH),
        "vmulhsu" => mul(imul_fn::MULHSU),
        "vmulhu" => mul(imul_fn::MULHU),
        "vdiv" => div(DIV),
        "vdivu" => div(DIV + 1),
        "vrem" => div(DIV + 2),
        "vremu" => div(DIV + 3),
        _ => None,
    }
}

/// funct3 of the M extension's DIV (DIVU, REM, REMU follow).
const DIV: u64 = 4;

/// `vl`/`vs` + `seg` | `segst` | `segx` + width: vector loads and stores.
fn mem_op(name: &str) -> Option<Mem> {
    let (load, rest) = match (name.strip_prefix("vl"), name.strip_prefix("vs")) {
        (Some(r), _) => (true, r),
        (_, Some(r)) => (false, r),
        _ => return None,
    };
    let (mode, suffix) = if let Some(r) = rest.strip_prefix("segst") {
        (1, r)
    } else if let Some(r) = rest.strip_prefix("segx") {
        (2, r)
    } else {
        (0, rest.strip_prefix("seg")?)
    };
    let (width, unsigned) = match suffix {
        "d" => (3, false),
        "w" => (2, false),
        "wu" => (2, true),
        "h" => (1, false),
        "hu" => (1, true),
        "b" => (0, false),
        "bu" => (0, true),
        _ => return None,
    };
    Some(Mem {
        op: if load { 0 } else { 1 },
        amo_fn: 0,
        mode,
        width,
        unsigned,
    })
}

/// `vamo<op>.<w|d>`, in `vmu::amo`'s function order.
fn amo_op(name: &str) -> Option<Mem> {
    let (op, w) = name.strip_prefix("vamo")?.split_once('.')?;
    let ops = [
        "swap", "add", "xor", "and", "or", "min", "max", "minu", "maxu",
    ];
    let amo_fn = ops.iter().position(|&o| o == op)? as u64;
    let width = match w {
        "w" => 2,
        "d" => 3,
        _ => return None,
    };
    Some(Mem {
        op: 2,
        amo_fn,
        mode: 2,
        width,
        unsigned: false,
    })
}

fn info(line: &Line) -> Info {
    Info {
        pred: line.has("vpred"),
        rm: line.has("vrm"),
        ..fp_op(line.name).unwrap_or_else(|| operation(line.name))
    }
}

/// The `uop::fmt` code of a format letter.
fn fmt_code(f: &str) -> Option<u64> {
    Some(match f {
        "s" => fmt::S,
        "d" => fmt::D,
        "h" => fmt::H,
        _ => return None,
    })
}

/// `fpu::convert::int`'s code of an integer type.
fn int_code(t: &str) -> Option<u64> {
    Some(match t {
        "w" => convert::int::W,
        "wu" => convert::int::WU,
        "l" => convert::int::L,
        "lu" => convert::int::LU,
        _ => return None,
    })
}

/// A floating-point instruction (`vf<op>.<fmt>`, `vfcvt.<to>.<from>`, `vcmpf<op>.<fmt>`,
/// the widening `vf<op>.<to>.<from>`).
fn fp_op(name: &str) -> Option<Info> {
    let parts: Vec<&str> = name.split('.').collect();
    let fp = |unit, fn_, f| Info {
        supported: true,
        unit,
        fn_,
        wr: true,
        fp: true,
        fmt: f,
        ..Info::default()
    };
    match parts.as_slice() {
        ["vfcvt", to, from] => {
            let (kind, src, dst, int) = match (fmt_code(to), fmt_code(from)) {
                (Some(d), Some(s)) => (convert::kind::F2F, s, d, 0),
                (None, Some(s)) => (convert::kind::F2I, s, 0, int_code(to)?),
                (Some(d), None) => (convert::kind::I2F, 0, d, int_code(from)?),
                (None, None) => return None,
            };
            Some(fp(unit::FCONV, convert::encode(kind, src, dst, int), 0))
        }
        [op, to, from] => {
            // The widening forms: sources of the narrower format `from`.
            let (to, from) = (fmt_code(to)?, fmt_code(from)?);
            let fma = |fn_| Info {
                three: matches!(*op, "vfmadd" | "vfmsub" | "vfnmsub" | "vfnmadd"),
                ..fp(unit::FMA, fma_fn::widening(fn_, from), to)
            };
            Some(fma(match *op {
                "vfadd" => fma::op::ADD,
                "vfsub" => fma::op::SUB,
                "vfmul" => fma::op::MUL,
                "vfmadd" => fma::op::FMADD,
                "vfmsub" => fma::op::FMSUB,
                "vfnmsub" => fma::op::FNMSUB,
                "vfnmadd" => fma::op::FNMADD,
                _ => return None,
            }))
        }
        [op, f] => {
            let f = fmt_code(f)?;
            let fma = |fn_| fp(unit::FMA, fn_, f);
            let cmp = |fn_| fp(unit::FCMP, fn_, f);
            Some(match *op {
                "vfadd" => fma(fma::op::ADD),
                "vfsub" => fma(fma::op::SUB),
                "vfmul" => fma(fma::op::MUL),
                "vfmadd" | "vfmsub" | "vfnmsub" | "vfnmadd" => Info {
                    three: true,
                    ..fma(match *op {
                        "vfmadd" => fma::op::FMADD,
                        "vfmsub" => fma::op::FMSUB,
                        "vfnmsub" => fma::op::FNMSUB,
                        _ => fma::op::FNMADD,
                    })
                },
                "vfsgnj" => cmp(compare::op::SGNJ),
                "vfsgnjn" => cmp(compare::op::SGNJN),
                "vfsgnjx" => cmp(compare::op::SGNJX),
                "vfmin" => cmp(compare::op::MIN),
                "vfmax" => cmp(compare::op::MAX),
                "vfclass" => cmp(compare::op::CLASS),
                "vcmpfeq" | "vcmpflt" | "vcmpfle" => Info {
                    rd_pred: true,
                    ..cmp(match *op {
                        "vcmpfeq" => compare::op::EQ,
                        "vcmpflt" => compare::op::LT,
                        _ => compare::op::LE,
                    })
                },
                // Read out to the lanes' VFU2, as integer divides.
                "vfdiv" | "vfsqrt" => Info {
                    div: true,
                    ..fp(
                        unit::MEM,
                        if *op == "vfdiv" {
                            fdiv_fn::DIV
                        } else {
                            fdiv_fn::SQRT
                        },
                        f,
                    )
                },
                _ => return None,
            })
        }
        _ => None,
    }
}

fn operation(name: &str) -> Info {
    let compute = |unit, fn_, word| Info {
        supported: true,
        unit,
        fn_,
        word,
        wr: true,
        ..Info::default()
    };
    if let Some((u, f, word)) = int_op(name) {
        return Info {
            div: u == unit::MEM,
            ..compute(u, f, word)
        };
    }
    match name {
        "veidx" => Info {
            ops: Operands::ShiftOnly,
            ..compute(unit::ALU, alu_fn::EIDX, false)
        },
        "vcmpeq" | "vcmplt" | "vcmpltu" => {
            let f = [alu_fn::EQ, rocket_fn::SLT, rocket_fn::SLTU][match name {
                "vcmpeq" => 0,
                "vcmplt" => 1,
                _ => 2,
            }];
            Info {
                rd_pred: true,
                ..compute(unit::ALU, f, false)
            }
        }
        "vpop" => Info {
            rd_pred: true,
            ops: Operands::None,
            ..compute(unit::PLU, 0, false)
        },
        "vfirst" => Info {
            supported: true,
            unit: unit::MEM,
            red: red::FIRST,
            ..Info::default()
        },
        "vcjal" | "vcjalr" => Info {
            supported: true,
            unit: unit::MEM,
            ops: Operands::None,
            red: red::ALL,
            ..Info::default()
        },
        _ => {
            let mem = mem_op(name).or_else(|| amo_op(name));
            match mem {
                Some(m) => Info {
                    supported: true,
                    unit: unit::MEM,
                    wr: m.op != 1,
                    mem: Some(m),
                    ..Info::default()
                },
                None => Info::default(),
            }
        }
    }
}

/// The configuration the decode needs: register counts (for destination widths and
/// whether predicates exist) and the dynamic rounding mode `frm` (3 bits).
pub struct Config {
    pub vv64: Value,
    pub vv32: Value,
    pub vp: Value,
    pub frm: Value,
}

/// An issued instruction, decoded.
pub struct Decoded {
    pub vinsn: Bundle,
    /// The vector side cannot run it (an illegal-instruction exception).
    pub unsupported: Value,
    /// FP on shared registers only: the scalar FPU's (`scalar::fpu`).
    pub scalar_fp: Value,
}

/// Decodes `issue` (the scalar unit's `vissue` bits) into a `vinsn` wire bundle named
/// `name`, with the `unsupported` and `scalar_fp` flags.
pub fn vdecode(m: &mut ModuleBuilder, name: &str, issue: &Bundle, cfg: &Config) -> Decoded {
    let g = |f: &str| issue.get(f).value().clone();
    let bits = g("bits");
    let lines = parse(WORKER);
    let infos: Vec<Info> = lines.iter().map(info).collect();
    let k = |v: u64, w: u32| bits.konst(Bits::from_u64(w, v));
    let hits: Vec<Value> = lines
        .iter()
        .map(|l| (&bits & &k(l.mask, 64)).eq(&k(l.bits, 64)))
        .collect();
    let when = |p: &dyn Fn(&Info) -> bool| {
        infos
            .iter()
            .zip(&hits)
            .filter(|(i, _)| p(i))
            .fold(k(0, 1), |a, (_, h)| &a | h)
    };
    let encode = |width: u32, v: &dyn Fn(&Info) -> u64| {
        let bits: Vec<Value> = (0..width)
            .rev()
            .map(|b| when(&|i: &Info| v(i) >> b & 1 == 1))
            .collect();
        cat(&bits.iter().collect::<Vec<_>>())
    };
    let mem_field =
        |width: u32, f: &dyn Fn(&Mem) -> u64| encode(width, &|i: &Info| i.mem.map_or(0, |m| f(&m)));
    let field = |hi: u32, lo: u32| bits.slice(hi, lo);
    let (rd, rs1, rs2) = (field(23, 16), field(31, 24), field(40, 33));
    let (flag1, flag2) = (bits.bit(62), bits.bit(61));
    let is_mem = when(&|i: &Info| i.mem.is_some());
    let mode = mem_field(2, &|m: &Mem| m.mode);
    let mem_op = mem_field(2, &|m: &Mem| m.op);
    let (is_amo, indexed) = (mem_op.eq(&k(2, 2)), mode.eq(&k(2, 2)));
    let is_store = mem_op.eq(&k(1, 2));
    let both = when(&|i: &Info| i.mem.is_none() && i.ops == Operands::Both);
    let three = when(&|i: &Info| i.three);
    let first = when(&|i: &Info| i.red == red::FIRST);
    let consensual = when(&|i: &Info| i.red == red::ALL);
    // vcond: 0 all, 1 any (2 and 3 are illegal: the scalar unit's decode).
    let red_code = first.mux(
        &k(red::FIRST, 2),
        &consensual.mux(&cat(&[&k(1, 1), &bits.bit(33)]), &k(red::NONE, 2)),
    );
    let shift = when(&|i: &Info| i.ops == Operands::ShiftOnly);
    // The scalar unit issues a segment access as one access per register (`scalar/`).
    let segmented = &is_mem & &field(47, 45).ne(&k(0, 3));
    // FP on shared registers only (a shared destination: the scalar FPU's).
    let fp = when(&|i: &Info| i.fp);
    let scalar_fp = &(&fp & &!&when(&|i: &Info| i.rd_pred)) & &!&bits.bit(63);
    // The rounding mode: the instruction's, or for the dynamic one (7) frm, reserved
    // (5-7) making the instruction illegal.
    let rm = &when(&|i: &Info| i.rm).repeat(3) & &field(52, 50);
    let dynamic = rm.eq(&k(7, 3));
    let frm_reserved = cfg.frm.ge(&k(5, 3));
    let unsupported =
        &(&!&when(&|i: &Info| i.supported) | &segmented) | &(&dynamic & &frm_reserved);

    let out = m.wire_bundle(name, &vinsn());
    let set = |m: &mut ModuleBuilder, f: &str, v: &Value| m.connect(out.get(f).value(), v);
    set(m, "unit", &encode(unit::WIDTH, &|i: &Info| i.unit));
    set(m, "fn", &encode(FN_BITS, &|i: &Info| i.fn_));
    set(m, "word", &when(&|i: &Info| i.word));
    set(m, "table", &field(57, 50));
    // Operand 1: rs1 (compute, AMO addresses) or the index register (rs2 slot) of an
    // indexed load or store; operand 2: rs2 (compute, AMO data), veidx's shift (rs1
    // slot) or a store's data (rd slot).
    let mem_index = &(&is_mem & &indexed) & &!&is_amo;
    let rs1_v = &(&(&both | &is_amo) & &flag1) | &mem_index;
    set(m, "rs1_v", &rs1_v);
    set(m, "rs1", &mem_index.mux(&rs2, &rs1));
    let rs2_v = &(&(&(&both | &is_amo) & &flag2) | &(&shift & &flag1)) | &(&is_store & &is_mem);
    set(m, "rs2_v", &rs2_v);
    let store_data = &is_store & &is_mem;
    set(m, "rs2", &store_data.mux(&rd, &shift.mux(&rs1, &rs2)));
    // Operand 3 (FMAs): vs3's flag, register and shared value.
    set(m, "rs3_v", &(&three & &bits.bit(60)));
    set(m, "rs3", &field(48, 41));
    set(m, "s3", &three.mux(&g("s3"), &k(0, 64)));
    set(m, "rm", &dynamic.mux(&cfg.frm, &rm));
    set(m, "fmt", &encode(2, &|i: &Info| i.fmt));
    // Scalars: s1/s2 of the shared slots; bases and strides of memory accesses.
    let unit_or_strided = &is_mem & &!&indexed;
    set(m, "s1", &unit_or_strided.mux(&g("a1"), &g("s1")));
    let s2 = unit_or_strided.mux(&g("a2"), &shift.mux(&g("s1"), &g("s2")));
    set(m, "s2", &s2);
    let has_pred = when(&|i: &Info| i.pred);
    let no_preds = cfg.vp.eq(&cfg.vp.konst(Bits::zero(cfg.vp.width())));
    set(m, "pred_on", &(&has_pred & &!&no_preds));
    set(m, "pred_neg", &bits.bit(32));
    set(m, "pred", &field(15, 12));
    set(m, "wr", &when(&|i: &Info| i.wr));
    set(m, "rd_pred", &when(&|i: &Info| i.rd_pred));
    set(m, "rd", &rd);
    // Narrow destinations keep their width's bits (registers: 64-bit, 32-bit, 16-bit).
    let reg = rd.zext(cfg.vv64.width().max(8));
    let vv64 = cfg.vv64.zext(reg.width());
    let vv32 = &vv64 + &cfg.vv32.zext(reg.width());
    let narrow = reg.ge(&vv64);
    let width = narrow.mux(&reg.ge(&vv32).mux(&k(2, 2), &k(1, 2)), &k(0, 2));
    set(m, "rd_width", &width);
    set(m, "mem", &is_mem);
    set(m, "red", &red_code);
    set(m, "div", &when(&|i: &Info| i.div));
    set(m, "mem_op", &mem_op);
    set(m, "amo_fn", &mem_field(4, &|m: &Mem| m.amo_fn));
    set(m, "mode", &mode);
    set(m, "width", &mem_field(2, &|m: &Mem| m.width));
    set(
        m,
        "unsigned",
        &when(&|i: &Info| i.mem.is_some_and(|m| m.unsigned)),
    );
    set(m, "prd", &field(19, 16));
    set(m, "ps1", &field(27, 24));
    set(m, "ps2", &field(36, 33));
    set(m, "ps3", &field(44, 41));
    set(
        m,
        "vlen",
        &g("vlen").zext(32.max(g("vlen").width())).slice(31, 0),
    );
    Decoded {
        vinsn: out,
        unsupported,
        scalar_fp,
    }
}
