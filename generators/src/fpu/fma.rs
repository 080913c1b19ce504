//! `fpu-fma`: the fused multiply-add of IEEE 754-2008 section 5.4.1 (`fusedMultiplyAdd`:
//! `a * b + c` rounded once) in any binary format, with the RISC-V F/D chapters' four
//! sign variants (`fmadd`, `fmsub`, `fnmsub`, `fnmadd`) and `fadd`, `fsub`, `fmul` as
//! special cases through the same datapath, the five rounding modes per operation and
//! the five flags. It is Berkeley HardFloat's `MulAddRecFN` (with Rocket's `FPUFMAPipe`
//! mapping of add/sub/mul onto it) built on the library's shared unpacking and rounding.
//!
//! Ports: `in_valid`, `rm` (3 bits, RISC-V encoding), `op` (3 bits, [`op`]), `a`, `b`,
//! `c` (the format's width; `c` is read by the fused forms only, `b` is the addend of add
//! and sub), `out_valid`, `result`, `flags` (5 bits, `fflags` order NV DZ OF UF NX).
//! One operation is accepted every cycle and leaves exactly [`latency`] cycles later.
//!
//! Pipeline (`stages` registers, see [`Plan`]), placed by logic depth: the deepest parts
//! are the significand product (after unpacking, whose subnormal normalization is a
//! leading-zero count and shift) and, after it, the sum's carry chain, the normalizing
//! leading-zero count and shift, and the rounder (a shift for subnormal results and an
//! increment). The output is always registered (1 stage: everything in one cycle); 2
//! stages register the product, with the aligned addend and the special cases beside it;
//! 3 also register the normalized sum before rounding; 4 also the sum before
//! normalization; 5 give the product two cycles. The product comes from one function,
//! `significand_product`: the pipelined radix-4 Booth / Wallace multiplier of
//! `arith`, which places its registers inside the tree and the final adder.

mod datapath;
mod special;

use super::format::FloatFormat;
use super::round::round;
use super::stage::Stage;
use crate::arith::{multiply, MulConfig};
use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::{HdlErrors, Module, ModuleBuilder, Value};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// The `op` input's encodings. In the fused forms bit 0 negates the addend and bit 1 the
/// product: `fmadd` `a*b+c`, `fmsub` `a*b-c`, `fnmsub` `-(a*b)+c`, `fnmadd` `-(a*b)-c`
/// (the RISC-V opcodes' order). `add` is `a+b`, `sub` `a-b`, `mul` `a*b`; 7 is `mul` too.
pub mod op {
    pub const FMADD: u64 = 0;
    pub const FMSUB: u64 = 1;
    pub const FNMSUB: u64 = 2;
    pub const FNMADD: u64 = 3;
    pub const ADD: u64 = 4;
    pub const SUB: u64 = 5;
    pub const MUL: u64 = 6;
    pub const MUL_ALT: u64 = 7;
}

/// Accepted pipeline depths.
pub const MIN_STAGES: u32 = 1;
pub const MAX_STAGES: u32 = 5;

/// Cycles from an operation's `in_valid` to its `out_valid`.
pub fn latency(stages: u32) -> u32 {
    stages
}

/// Where a unit of `stages` stages places its registers (the output register is always
/// there): `multiplier` registers in the significand product (its last one at the product
/// itself, the aligned addend and special cases registered beside it), and a register
/// after the addition and after the normalization.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    pub multiplier: u32,
    pub after_add: bool,
    pub after_normalize: bool,
}

impl Plan {
    pub fn of(stages: u32) -> Plan {
        let (multiplier, after_add, after_normalize) = match stages {
            1 => (0, false, false),
            2 => (1, false, false),
            3 => (1, false, true),
            4 => (1, true, true),
            5 => (2, true, true),
            _ => panic!("an FMA has {MIN_STAGES}..={MAX_STAGES} stages, not {stages}"),
        };
        Plan {
            multiplier,
            after_add,
            after_normalize,
        }
    }
}

/// The module name of a unit.
pub fn module_name(fmt: FloatFormat, stages: u32) -> String {
    format!("Fma_{}_s{stages}", fmt.name())
}

/// The FMA unit of format `fmt` with `stages` pipeline stages.
pub fn fma(fmt: FloatFormat, stages: u32) -> Result<Rc<Module>, HdlErrors> {
    let plan = Plan::of(stages);
    let w = fmt.width();
    let mut m = ModuleBuilder::new(&module_name(fmt, stages));
    let in_valid = m.input("in_valid", 1);
    let rm = m.input("rm", 3);
    let op_sel = m.input("op", 3);
    let a = m.input("a", w);
    let b = m.input("b", w);
    let c = m.input("c", w);
    let out_valid = m.output("out_valid", 1);
    let result = m.output("result", w);
    let flags = m.output("flags", 5);

    let (bits, fl) = body(&mut m, fmt, plan, [&rm, &op_sel, &a, &b, &c]);
    let valid = delay(&mut m, stages, "valid", &in_valid);
    let [bits, fl] = cut(&mut m, true, "out", [("result", &bits), ("flags", &fl)]);
    m.connect(&out_valid, &valid);
    m.connect(&result, &bits);
    m.connect(&flags, &fl);
    m.finish()
}

/// The datapath from the inputs `[rm, op, a, b, c]` to the result and flags before the
/// output register.
fn body(
    m: &mut ModuleBuilder,
    fmt: FloatFormat,
    plan: Plan,
    [rm, op_sel, a, b, c]: [&Value; 5],
) -> (Value, Value) {
    // Product, alignment and special cases.
    let x = special::decode(fmt, op_sel, a, b, c);
    let sp = special::special(fmt, &x, rm);
    let aligned = datapath::align(fmt, &x.a, &x.b, &x.c);
    let subtract = &x.sign_p ^ &x.sign_c;
    let product = significand_product(m, &x.a.sig, &x.b.sig, plan.multiplier);
    let n = plan.multiplier;
    let beside = Beside {
        rm: rm.clone(),
        special: sp,
    }
    .delay(m, n);
    let [addend, top, subtract, sign_p] = [
        ("addend", &aligned.addend),
        ("top", &aligned.top),
        ("subtract", &subtract),
        ("sign_p", &x.sign_p),
    ]
    .map(|(name, v)| delay(m, n, name, v));

    // Addition.
    let sum = datapath::add(fmt, &product, &addend, &subtract);
    let sign = &sign_p ^ &sum.negative;
    let [magnitude, top, sign] = cut(
        m,
        plan.after_add,
        "sum",
        [
            ("magnitude", &sum.magnitude),
            ("top", &top),
            ("sign", &sign),
        ],
    );
    let beside = beside.cut(m, plan.after_add, "sum");

    // Normalization.
    let (sig, exp) = datapath::normalized(&magnitude, &top);
    let [sig, exp, sign] = cut(
        m,
        plan.after_normalize,
        "norm",
        [("sig", &sig), ("exp", &exp), ("sign", &sign)],
    );
    let Beside { rm, special: sp } = beside.cut(m, plan.after_normalize, "norm");

    // Rounding.
    let sign = special::sum_sign(&sign, &!sig.or_r(), &rm);
    let zero = sig.konst(hdl::Bits::zero(1));
    let rounded = round(
        fmt,
        &super::RoundIn {
            sign,
            exp,
            sig,
            sticky: zero,
        },
        &rm,
    );
    special::select(&sp, &rounded.bits, &rounded.flags)
}

/// The signals carried beside the datapath to the rounder.
struct Beside {
    rm: Value,
    special: special::Special,
}

impl Beside {
    /// Registered at a cut of `stage` when `on`.
    fn cut(&self, m: &mut ModuleBuilder, on: bool, stage: &str) -> Beside {
        let s = &self.special;
        let [rm, hit, bits, flags] = cut(
            m,
            on,
            stage,
            [
                ("rm", &self.rm),
                ("hit", &s.hit),
                ("special", &s.bits),
                ("special_flags", &s.flags),
            ],
        );
        Beside {
            rm,
            special: special::Special { hit, bits, flags },
        }
    }

    fn delay(self, m: &mut ModuleBuilder, cycles: u32) -> Beside {
        (0..cycles).fold(self, |b, k| b.cut(m, true, &format!("d{k}")))
    }
}

/// The full product of the significands, `stages` cycles later: the pipelined radix-4
/// Booth / Wallace multiplier of `arith`, its registers inside the tree and final adder.
fn significand_product(m: &mut ModuleBuilder, a: &Value, b: &Value, stages: u32) -> Value {
    let always = a.konst(hdl::Bits::from_u64(1, 1));
    multiply(m, a, b, &MulConfig { stages }, &always)
}

/// Registers `vals` (named `stage_name`) when `on`.
fn cut<const N: usize>(
    m: &mut ModuleBuilder,
    on: bool,
    stage: &str,
    vals: [(&str, &Value); N],
) -> [Value; N] {
    let mut s = Stage::new(m, stage, on);
    vals.map(|(name, v)| s.pass_as(name, v))
}

/// `v` delayed by `cycles` registers.
fn delay(m: &mut ModuleBuilder, cycles: u32, name: &str, v: &Value) -> Value {
    (0..cycles).fold(v.clone(), |v, k| {
        let [r] = cut(m, true, &format!("d{k}"), [(name, &v)]);
        r
    })
}

/// Parameters of `fpu-fma`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FmaParams {
    /// `binary16`, `binary32`, `binary64` or `bfloat16` (or `h`, `s`, `d`, `bf16`).
    pub format: String,
    pub stages: u32,
    /// The 64-bit packed unit (one binary64, two binary32 or four binary16 operations);
    /// `format` must then be `binary64`.
    pub packed: bool,
}

impl Default for FmaParams {
    fn default() -> Self {
        FmaParams {
            format: "binary64".into(),
            stages: 3,
            packed: false,
        }
    }
}

impl FmaParams {
    pub fn format(&self) -> FloatFormat {
        FloatFormat::by_name(&self.format).expect("validated format")
    }

    pub fn latency(&self) -> u32 {
        latency(self.stages)
    }
}

const FORMATS: &[&str] = &[
    "binary16", "binary32", "binary64", "bfloat16", "h", "s", "d", "bf16",
];

pub struct FmaDesign;

impl Generator for FmaDesign {
    type Params = FmaParams;
    const NAME: &'static str = "fpu-fma";
    const DESCRIPTION: &'static str =
        "IEEE 754 fused multiply-add (fmadd/fmsub/fnmsub/fnmadd, add, sub, mul), pipelined, \
         with a packed 64-bit mode (1 x binary64, 2 x binary32, 4 x binary16)";

    fn params() -> Vec<Param> {
        vec![
            Param::choice("format", FORMATS, "the floating-point format"),
            Param::int(
                "stages",
                MIN_STAGES.into(),
                MAX_STAGES.into(),
                "pipeline stages (the latency in cycles)",
            ),
            Param::boolean(
                "packed",
                "64-bit packed unit: one binary64, two binary32 or four binary16 lanes",
            ),
        ]
    }

    fn validate(p: &FmaParams) -> Result<(), ParamError> {
        schema::check_fields(&Self::params(), p)?;
        if p.packed && p.format() != super::DOUBLE {
            return Err(ParamError::new(
                "packed",
                format!(
                    "the packed unit is 64 bits wide: format must be binary64, is {}",
                    p.format
                ),
            ));
        }
        Ok(())
    }

    fn build(p: &FmaParams) -> Result<Rc<Module>, HdlErrors> {
        if p.packed {
            super::packed_fma::packed_fma(p.stages)
        } else {
            fma(p.format(), p.stages)
        }
    }
}
