//! Arithmetic building blocks shared by the designs.
//!
//! The integer multiplier ([`multiply`], and the `multiplier` design): operands of any
//! width, each signed or unsigned, and the full product (`a.width() + b.width()` bits,
//! signed if either operand is) `stages` cycles later, one multiply accepted per cycle.
//! - [`booth`]: radix-4 Booth recoding of the narrower operand, one partial-product row
//!   per two of its bits, rows kept free of sign extension by a single constant;
//! - [`wallace`]: a Wallace tree of carry-save adders taking the rows down to two;
//! - [`adder`]: the final carry-propagate adder, Brent-Kung;
//! - [`kogge_stone`]: the faster, larger prefix adder the Rocket core uses;
//! - [`lzc`]: leading-zero count and normalization (floating-point significands);
//! - [`multiplier`]: the assembly and the pipelining: the path from
//!   operands to product (Booth, each tree level, the adder in chunks) is cut `stages`
//!   times where the logic depth between cuts is smallest, so the registers sit inside
//!   the tree and the adder, not in front of or behind a combinational multiplier.

pub mod adder;
pub mod booth;
pub mod kogge_stone;
pub mod lzc;
pub mod multiplier;
pub mod wallace;

use crate::schema::{self, Param};
use crate::{Generator, ParamError};
use hdl::{HdlErrors, Module, ModuleBuilder, Ty, Value};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// How a multiply is pipelined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MulConfig {
    /// Pipeline registers between operands and product (0: combinational).
    pub stages: u32,
}

/// Cycles from operands to product.
pub fn latency(cfg: &MulConfig) -> u32 {
    cfg.stages
}

/// The full product `a * b` (`a.width() + b.width()` bits; each operand's signedness is
/// its `Value`'s, the product is signed if either is), built in `m`'s module and
/// available `cfg.stages` cycles after the operands. Every pipeline register loads when
/// `advance` is high (pass a constant 1 for a pipeline that never stalls), so a multiply
/// is accepted each cycle `advance` is high and the pipeline holds while it is low. With
/// more stages than the path has steps (narrow operands), the rest register the product.
/// A product wider than the IR's widths is reported by `m` at `finish`.
pub fn multiply(
    m: &mut ModuleBuilder,
    a: &Value,
    b: &Value,
    cfg: &MulConfig,
    advance: &Value,
) -> Value {
    multiplier::build(m, a, b, cfg.stages, advance, "mul")
}

/// The widest operand of the `multiplier` design.
pub const MAX_WIDTH: u32 = 256;
/// The most stages of the `multiplier` design.
pub const MAX_STAGES: u32 = 16;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MultiplierParams {
    pub a_width: u32,
    pub b_width: u32,
    pub a_signed: bool,
    pub b_signed: bool,
    pub stages: u32,
}

impl Default for MultiplierParams {
    fn default() -> Self {
        MultiplierParams {
            a_width: 64,
            b_width: 64,
            a_signed: true,
            b_signed: true,
            stages: 2,
        }
    }
}

pub struct Multiplier;

impl Generator for Multiplier {
    type Params = MultiplierParams;
    const NAME: &'static str = "multiplier";
    const DESCRIPTION: &'static str =
        "pipelined integer multiplier: radix-4 Booth, Wallace tree, cuts balanced by depth";

    fn params() -> Vec<Param> {
        vec![
            Param::int("a_width", 1, MAX_WIDTH.into(), "bits of operand a"),
            Param::int("b_width", 1, MAX_WIDTH.into(), "bits of operand b"),
            Param::boolean("a_signed", "a is two's complement (else unsigned)"),
            Param::boolean("b_signed", "b is two's complement (else unsigned)"),
            Param::int(
                "stages",
                0,
                MAX_STAGES.into(),
                "pipeline registers inside the multiplier (0: combinational)",
            ),
        ]
    }

    fn validate(p: &MultiplierParams) -> Result<(), ParamError> {
        schema::check_fields(&Self::params(), p)
    }

    fn build(p: &MultiplierParams) -> Result<Rc<Module>, HdlErrors> {
        multiplier_module(p)
    }
}

/// The standalone multiplier: inputs `a`, `b` and `advance` (the pipeline registers load
/// when high), output `p` = `a * b` `stages` cycles later.
pub fn multiplier_module(p: &MultiplierParams) -> Result<Rc<Module>, HdlErrors> {
    let ty = |w, signed| if signed { Ty::S(w) } else { Ty::U(w) };
    let signed = p.a_signed || p.b_signed;
    let mut m = ModuleBuilder::new("Multiplier");
    let a = m.input("a", ty(p.a_width, p.a_signed));
    let b = m.input("b", ty(p.b_width, p.b_signed));
    let advance = m.input("advance", 1);
    let out = m.output("p", ty(p.a_width + p.b_width, signed));
    let cfg = MulConfig { stages: p.stages };
    let product = multiply(&mut m, &a, &b, &cfg, &advance);
    m.connect(&out, &product);
    m.finish()
}
