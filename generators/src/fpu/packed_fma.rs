//! `fpu-fma` with `packed = true`: a 64-bit FMA computing, per the `fmt` input, one
//! binary64, two binary32 (lanes at bits 0 and 32) or four binary16 (bits 0, 16, 32, 48)
//! operations on 64-bit operands, each lane's result in its position, as Hwacha's FMA per
//! 64-bit slice does (Lee's thesis, section 8 and Table 9.3's MXP configuration). Like
//! Hwacha, it holds a unit per precision (one binary64, two binary32, four binary16 FMAs
//! of [`super::fma`]) and enables the lanes of the selected format; sharing the 53x53
//! significand multiplier between lanes would need its partial-product array split into
//! lanes, which the library's multiplier does not expose. Its cost, measured by
//! `benches/fpu.rs` (Yosys 0.23, nangate45, 3 stages): 65,286 um^2 against 31,724 for
//! the binary64 unit alone (2.06x), close to the sum of its parts (31,724 + 2 x 9,860 +
//! 4 x 3,658 = 66,076).
//!
//! Ports: the scalar unit's (`in_valid`, `rm`, `op`, `a`, `b`, `c`, `out_valid`, `result`,
//! `flags`, operands and result 64 bits) plus `fmt` (2 bits, the RISC-V `fmt` field: 0
//! binary32, 1 binary64, 2 binary16; 3, RISC-V's binary128, computes binary64). `flags`
//! is the OR of the active lanes' flags. Latency: [`super::fma::latency`] of `stages`.

use super::fma::{fma, module_name};
use super::format::{FloatFormat, DOUBLE, HALF, SINGLE};
use hdl::{cat, Bits, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// The `fmt` input's encodings.
pub mod fmt {
    pub const S: u64 = 0;
    pub const D: u64 = 1;
    pub const H: u64 = 2;
    pub const Q: u64 = 3;
}

/// One format's lanes: their valid output, results (lane 0 first) and ORed flags.
struct Lanes {
    valid: Value,
    results: Vec<Value>,
    flags: Value,
}

/// The packed unit with `stages` pipeline stages.
pub fn packed_fma(stages: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("FmaPacked_s{stages}"));
    let in_valid = m.input("in_valid", 1);
    let rm = m.input("rm", 3);
    let op = m.input("op", 3);
    let fmt_sel = m.input("fmt", 2);
    let operands = [m.input("a", 64), m.input("b", 64), m.input("c", 64)];
    let out_valid = m.output("out_valid", 1);
    let result = m.output("result", 64);
    let flags = m.output("flags", 5);

    let is = |code: u64| fmt_sel.eq(&fmt_sel.konst(Bits::from_u64(2, code)));
    let groups = [
        (DOUBLE, &is(fmt::D) | &is(fmt::Q)),
        (SINGLE, is(fmt::S)),
        (HALF, is(fmt::H)),
    ];
    let mut lanes = Vec::new();
    for (f, active) in groups {
        let valid = &in_valid & &active;
        let inputs = [&valid, &rm, &op];
        lanes.push(lanes_of(&mut m, f, stages, inputs, &operands)?);
    }
    let [d, s, h] = [&lanes[0], &lanes[1], &lanes[2]];
    let join = |l: &Lanes| {
        let high_first: Vec<&Value> = l.results.iter().rev().collect();
        cat(&high_first)
    };
    let no_flags = flags.konst(Bits::zero(5));
    m.connect(&out_valid, &(&(&d.valid | &s.valid) | &h.valid));
    m.connect(
        &result,
        &d.valid.mux(&join(d), &s.valid.mux(&join(s), &join(h))),
    );
    m.connect(
        &flags,
        &d.valid.mux(
            &d.flags,
            &s.valid.mux(&s.flags, &h.valid.mux(&h.flags, &no_flags)),
        ),
    );
    m.finish()
}

/// The lanes of format `f` over the 64-bit `operands`, fed `[in_valid, rm, op]`.
fn lanes_of(
    m: &mut ModuleBuilder,
    f: FloatFormat,
    stages: u32,
    [valid, rm, op]: [&Value; 3],
    operands: &[Value; 3],
) -> Result<Lanes, HdlErrors> {
    let unit = fma(f, stages)?;
    let w = f.width();
    let mut results = Vec::new();
    let mut valids = Vec::new();
    let mut flags = Vec::new();
    for lane in 0..64 / w {
        let inst = m.instance(&format!("{}_{lane}", module_name(f, stages)), &unit);
        m.connect(&inst.port("in_valid"), valid);
        m.connect(&inst.port("rm"), rm);
        m.connect(&inst.port("op"), op);
        for (name, x) in ["a", "b", "c"].iter().zip(operands) {
            m.connect(&inst.port(name), &x.slice(lane * w + w - 1, lane * w));
        }
        results.push(inst.port("result"));
        valids.push(inst.port("out_valid"));
        flags.push(inst.port("flags"));
    }
    let or = |v: &[Value]| v.iter().skip(1).fold(v[0].clone(), |acc, f| &acc | f);
    // Every lane of a format is valid together.
    Ok(Lanes {
        valid: or(&valids),
        flags: or(&flags),
        results,
    })
}
