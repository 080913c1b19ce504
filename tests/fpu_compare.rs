//! The compare and sign unit (`generators::fpu::compare`, design `fpu-compare`) against
//! Berkeley SoftFloat and the RISC-V rules of the rig: feq/flt/fle, fmin/fmax, fclass and
//! the sign injections, bit-exact results and flags, in binary16, binary32 and binary64.
//! The IR simulator runs every pipeline depth on corner pairs and random operands, back
//! to back; one Verilator model (the three formats side by side) runs every pair of
//! corner values and more random operands. `ACCELGEN_LONG=1` runs 10^7 random operations
//! per operation and format on Verilator.

mod fp_rig;

use fp_rig::unit::{lint, long, run_mixed, Check, Vector};
use fp_rig::*;
use generators::fpu::compare::{compare, op, CompareParams};
use hdl::{Design, ModuleBuilder};
use std::rc::Rc;
use verification::rng::Rng;
use verification::simulator::Simulator;
use verification::verilator::{Model, Options};

const OPS: [(Op, u64); 9] = [
    (Op::Eq, op::EQ),
    (Op::Lt, op::LT),
    (Op::Le, op::LE),
    (Op::Min, op::MIN),
    (Op::Max, op::MAX),
    (Op::Class, op::CLASS),
    (Op::Sgnj, op::SGNJ),
    (Op::Sgnjn, op::SGNJN),
    (Op::Sgnjx, op::SGNJX),
];

fn params(f: Fmt, stages: u32) -> CompareParams {
    CompareParams {
        format: f.format().name(),
        stages,
    }
}

/// Operand pairs of `f`: corner pairs (every `stride`-th of them) and `random` pairs of
/// the rig's biased operands.
fn pairs(f: Fmt, stride: usize, random: usize, seed: u64) -> Vec<[u64; 3]> {
    let c = corners(f);
    let mut out: Vec<[u64; 3]> = (0..c.len() * c.len())
        .step_by(stride)
        .map(|k| [c[k / c.len()], c[k % c.len()], 0])
        .collect();
    let mut rng = Rng::new(seed);
    let o = Operation::of(Op::Lt, f);
    out.extend((0..random).map(|_| operands(&mut rng, &o)));
    out
}

/// Runs every operation on `tuples`, all mixed in one stream (rounding modes cycling
/// through 0..=7, which these operations ignore), against the reference.
fn check<S: Simulator>(sim: &mut S, prefix: &str, latency: u32, f: Fmt, tuples: &[[u64; 3]]) {
    let mut checks = Vec::new();
    for (group, (o, code)) in OPS.into_iter().enumerate() {
        let want = reference(&Operation::of(o, f), 0, tuples);
        checks.extend(
            tuples
                .iter()
                .zip(want)
                .enumerate()
                .map(|(k, (t, want))| Check {
                    vector: Vector {
                        op: code,
                        rm: k as u64 % 8,
                        operands: *t,
                    },
                    want,
                    group,
                }),
        );
    }
    let describe = |g: usize| format!("{:?} {f:?}", OPS[g].0);
    run_mixed(
        sim,
        prefix,
        &["a", "b"],
        latency,
        checks,
        tuples.len() as u64,
        describe,
    );
}

#[test]
fn every_depth_matches_softfloat_in_the_ir_simulator() {
    for f in Fmt::ALL {
        let tuples = pairs(f, 41, 1500, 0xc0 + f.bits() as u64);
        for stages in 0..=2 {
            let top = compare(&params(f, stages)).expect("elaborates");
            let mut sim = hdl::sim::Sim::new(&Design::new(&top));
            check(&mut sim, "", stages, f, &tuples);
        }
    }
}

/// The three formats' units side by side, ports `<h|s|d>_<port>`.
fn wrapper(stages: u32) -> Rc<hdl::Module> {
    let mut m = ModuleBuilder::new("FCmpAll");
    for f in Fmt::ALL {
        let unit = compare(&params(f, stages)).expect("elaborates");
        let inst = m.instance(&format!("unit_{f:?}"), &unit);
        let tag = format!("{f:?}").to_lowercase();
        for name in ["in_valid", "rm", "op", "a", "b"] {
            let x = inst.port(name);
            let port = m.input(&format!("{tag}_{name}"), x.width());
            m.connect(&x, &port);
        }
        for name in ["out_valid", "result", "flags"] {
            let x = inst.port(name);
            let port = m.output(&format!("{tag}_{name}"), x.width());
            m.connect(&port, &x);
        }
    }
    m.finish().expect("wrapper elaborates")
}

#[test]
fn verilator_matches_softfloat_on_every_corner_pair() {
    let stages = 1;
    let mut model =
        Model::of_design(&Design::new(&wrapper(stages)), &Options::default()).expect("model");
    for f in Fmt::ALL {
        let prefix = format!("{f:?}_").to_lowercase();
        let tuples = pairs(f, 1, 20_000, 0xc1 + f.bits() as u64);
        check(&mut model, &prefix, stages, f, &tuples);
        // 10^7 random operations per operation in chunks.
        for chunk in 0..if long() { 50 } else { 0 } {
            let tuples = pairs(f, usize::MAX, 200_000, chunk << 8 | f.bits() as u64);
            check(&mut model, &prefix, stages, f, &tuples);
        }
    }
}

#[test]
fn lint_clean_at_every_format_and_depth() {
    let problems: Vec<String> = ["binary16", "binary32", "binary64", "bfloat16"]
        .iter()
        .flat_map(|f| (0..=2).map(move |s| format!("format = \"{f}\"\nstages = {s}")))
        .filter_map(|p| lint("fpu-compare", &p))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
