//! Hwacha golden model, floating point against Berkeley SoftFloat (the `riscv`
//! specialization: canonical NaN, tininess after rounding, RISC-V's saturated results of
//! conversions to integers). Every floating-point instruction of the worker thread, the
//! mixed-precision ones included, runs through the model's instruction execution on
//! vectors of random operands drawn to hit the special classes often, in every rounding
//! mode, given statically in the instruction and dynamically through frm. Every
//! element's result is compared bit for bit; flags twice: the vector instruction's accrued
//! fflags against the OR of its elements' reference flags, and each element's own flags
//! from a one-element run of the same operands (shared registers, so the scalar path is
//! exercised too).
//!
//! SoftFloat has no fmin/fmax, sign injection or fclass: their reference is the RISC-V
//! unprivileged spec's text written out here (-0 below +0, the non-NaN operand, the
//! canonical NaN for two NaNs, NV for any signaling input; the ten fclass bits), with
//! SoftFloat's quiet comparison for the ordering.
//!
//! The mixed-precision forms `vf<op>.<D>.<S>` (our reading, see the model's `fp.rs`):
//! the sources are S values, widened exactly to D, and the operation rounds once in D.
//! Here the widening is SoftFloat's conversion (exact, NV for a signaling NaN).
//!
//! Operands narrower than a register are its low bits (Hwacha has no NaN boxing): the
//! upper bits are drawn at random and must not matter. SoftFloat keeps its rounding mode
//! and flags in C state, so every use holds `SOFTFLOAT`. `ACCELGEN_FP_SEED` replays a
//! seed, `ACCELGEN_FP_ONLY=vfadd.s,vfmadd.d` runs only the instructions named;
//! `ACCELGEN_LONG=1` runs ten times as many operands.

mod fp_rig;
mod hwacha_model_rig;

use fp_rig::*;
use hwacha_model_rig::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;
use verification::hwacha::model::Field::*;
use verification::hwacha::model::HwachaParams;
use verification::rng::{mix, Rng};

/// One instruction: what the test reads its name to mean, independently of the model.
#[derive(Debug, Clone, Copy)]
struct Case {
    name: &'static str,
    op: Op,
    /// Format of the result (of the operation for compares, fclass and conversions to
    /// integers).
    dst: Fmt,
    /// Format of the floating-point sources.
    src: Fmt,
    sources: usize,
    /// Whether the encoding has a rounding-mode field.
    rm: bool,
}

impl Case {
    fn of(name: &'static str) -> Case {
        let parts: Vec<&str> = name.split('.').collect();
        let (op, dst, src) = match parts.as_slice() {
            ["vfcvt", to, from] => match (Fmt::of(to), Fmt::of(from)) {
                (Some(to), Some(from)) => (Op::Convert, to, from),
                (None, Some(from)) => (Op::ToInt(Int::of(to).unwrap()), from, from),
                (Some(to), None) => (Op::FromInt(Int::of(from).unwrap()), to, to),
                (None, None) => panic!("{name}"),
            },
            [op, d, s] => (op_of(op), Fmt::of(d).unwrap(), Fmt::of(s).unwrap()),
            [op, f] => (op_of(op), Fmt::of(f).unwrap(), Fmt::of(f).unwrap()),
            _ => panic!("{name}"),
        };
        let sources = Operation { op, dst, src }.sources();
        // The test's reading of the name agrees with the encoding's operand fields.
        for (k, f) in [Vrs1, Vrs2, Vrs3].into_iter().enumerate() {
            assert_eq!(has_field(name, f), k < sources, "{name} {f:?}");
        }
        Case {
            name,
            op,
            dst,
            src,
            sources,
            rm: has_field(name, Vrm),
        }
    }

    fn is_compare(&self) -> bool {
        matches!(self.op, Op::Eq | Op::Lt | Op::Le)
    }

    fn operation(&self) -> Operation {
        Operation {
            op: self.op,
            dst: self.dst,
            src: self.src,
        }
    }
}

/// SoftFloat's outcomes of `case` as the registers hold them: a floating-point result
/// sign-extended from its format (as the model writes results).
fn expected(case: &Case, rm: u32, tuples: &[[u64; 3]]) -> Vec<Outcome> {
    let o = case.operation();
    let mut out = reference(&o, rm, tuples);
    if o.gives_float() {
        out.iter_mut().for_each(|r| r.0 = o.dst.reg(r.0));
    }
    out
}

fn op_of(op: &str) -> Op {
    match op {
        "vfadd" => Op::Add,
        "vfsub" => Op::Sub,
        "vfmul" => Op::Mul,
        "vfdiv" => Op::Div,
        "vfsqrt" => Op::Sqrt,
        "vfmin" => Op::Min,
        "vfmax" => Op::Max,
        "vfsgnj" => Op::Sgnj,
        "vfsgnjn" => Op::Sgnjn,
        "vfsgnjx" => Op::Sgnjx,
        "vfmadd" | "vfmsub" | "vfnmsub" | "vfnmadd" => Op::Fma {
            negate_product: op.starts_with("vfn"),
            negate_addend: op == "vfmsub" || op == "vfnmadd",
        },
        "vfclass" => Op::Class,
        "vcmpfeq" => Op::Eq,
        "vcmpflt" => Op::Lt,
        "vcmpfle" => Op::Le,
        _ => panic!("unknown floating-point instruction {op}"),
    }
}
/// A register holding `low` in format `f`: its upper bits zeros, ones, the sign
/// extension (as the model writes results) or noise, none of which may matter.
fn register(rng: &mut Rng, f: Fmt, low: u64) -> u64 {
    let upper = !f.mask();
    match rng.below(4) {
        0 => low,
        1 => f.reg(low),
        2 => low | upper,
        _ => low | rng.next_u64() & upper,
    }
}

/// One operand tuple for `case` (register values).
fn tuple(rng: &mut Rng, case: &Case) -> [u64; 3] {
    let x = operands(rng, &case.operation());
    match case.op {
        Op::FromInt(_) => x,
        _ => x.map(|v| register(rng, case.src, v)),
    }
}

// ---------------------------------------------------------------------------------------
// The model.

/// A rounding mode: static (the instruction's rm field) or dynamic (rm = 7, frm).
#[derive(Debug, Clone, Copy)]
struct Mode {
    rm: u32,
    dynamic: bool,
}

/// Source registers: vv0-vv2 or vs1-vs3; the result goes to vv3 (vs4 when scalar) or to
/// vp1 for compares.
fn encode(case: &Case, mode: Mode, shared: [bool; 3], scalar: bool) -> u64 {
    let mut insn = i(case.name);
    if case.is_compare() {
        insn = insn.f(Vprd, 1);
    } else if scalar {
        insn = insn.f(Vrd, 4);
    } else {
        insn = insn.f(Vd, 1).f(Vrd, 3);
    }
    for (k, (flag, field)) in [(Vs1, Vrs1), (Vs2, Vrs2), (Vs3, Vrs3)]
        .into_iter()
        .enumerate()
        .take(case.sources)
    {
        insn = if shared[k] {
            insn.f(flag, 0).f(field, k as u64 + 1)
        } else {
            insn.f(flag, 1).f(field, k as u64)
        };
    }
    if case.rm {
        insn = insn.f(Vrm, if mode.dynamic { 7 } else { mode.rm as u64 });
    }
    insn.enc()
}

struct Model {
    rig: Rig,
    maxvl: u64,
}

impl Model {
    fn new() -> Model {
        let mut rig = Rig::new(HwachaParams::default());
        rig.setcfg(cfg(4, 2, 0, 0));
        let maxvl = rig.setvl(u64::MAX);
        Model { rig, maxvl }
    }

    fn set_mode(&mut self, mode: Mode) {
        // Static modes run under an frm they must ignore.
        let frm = if mode.dynamic {
            mode.rm
        } else {
            (mode.rm + 1) % 5
        };
        self.rig.hw.set_frm(frm).unwrap();
    }

    /// Runs `case` as one vector instruction over the tuples (sources marked `shared`
    /// take tuple 0's value from a shared register): each element's result and the
    /// instruction's accrued flags.
    fn vector(
        &mut self,
        case: &Case,
        mode: Mode,
        tuples: &[[u64; 3]],
        shared: [bool; 3],
    ) -> (Vec<u64>, u8) {
        let n = tuples.len() as u64;
        assert_eq!(self.rig.setvl(n), n);
        for k in 0..case.sources {
            if shared[k] {
                self.rig.vmcs(k as u64 + 1, tuples[0][k]);
            } else {
                let column: Vec<u64> = tuples.iter().map(|t| t[k]).collect();
                self.rig.load_vv(k as u64, &column);
            }
        }
        self.set_mode(mode);
        self.rig.hw.take_fflags();
        let insn = encode(case, mode, shared, false);
        self.rig.run(&[insn, stop()]).unwrap();
        let flags = self.rig.hw.take_fflags();
        let values = if case.is_compare() {
            self.rig.vp(1, n).into_iter().map(u64::from).collect()
        } else {
            self.rig.vv(3, n)
        };
        (values, flags)
    }

    /// Runs `case` on one tuple from shared registers: a scalar instruction, or for a
    /// compare (always a vector instruction) one of vector length 1.
    fn single(&mut self, case: &Case, mode: Mode, tuple: &[u64; 3]) -> Outcome {
        for (k, &v) in tuple.iter().enumerate().take(case.sources) {
            self.rig.vmcs(k as u64 + 1, v);
        }
        if case.is_compare() {
            self.rig.setvl(1);
        }
        self.set_mode(mode);
        self.rig.hw.take_fflags();
        let insn = encode(case, mode, [true; 3], true);
        self.rig.run(&[insn, stop()]).unwrap();
        let flags = self.rig.hw.take_fflags();
        let value = if case.is_compare() {
            self.rig.vp(1, 1)[0] as u64
        } else {
            self.rig.hw.state().vs(4)
        };
        (value, flags)
    }
}

// ---------------------------------------------------------------------------------------
// The comparison.

/// Collects mismatches (the first few in full) from every thread.
struct Report {
    seed: u64,
    lines: Mutex<Vec<String>>,
    count: AtomicUsize,
}

impl Report {
    fn mismatch(&self, what: String) {
        if self.count.fetch_add(1, Ordering::Relaxed) < 40 {
            self.lines.lock().unwrap().push(what);
        }
    }
}

/// The instruction and its rounding mode, for reports.
fn name(case: &Case, mode: Mode) -> String {
    let rm = ["rne", "rtz", "rdn", "rup", "rmm"][mode.rm as usize];
    let how = if !case.rm {
        "frm, no rm field"
    } else if mode.dynamic {
        "dynamic"
    } else {
        "static"
    };
    format!("{} {rm} ({how})", case.name)
}

/// The instruction, its rounding mode and operands, for reports.
fn describe(case: &Case, mode: Mode, tuple: &[u64; 3]) -> String {
    let operands: Vec<String> = tuple[..case.sources]
        .iter()
        .map(|v| format!("{v:#018x}"))
        .collect();
    format!("{} [{}]", name(case, mode), operands.join(", "))
}

/// sources), each tuple also run alone. Returns how many tuples raised each flag (bit
/// order) in the reference.
fn check(
    model: &mut Model,
    rng: &mut Rng,
    report: &Report,
    case: &Case,
    mode: Mode,
    count: usize,
) -> [usize; 5] {
    let mut raised = [0; 5];
    let mut done = 0;
    while done < count {
        let n = (rng.range(1, model.maxvl as u32) as usize).min(count - done);
        let mut shared = [false; 3];
        if n > 1 && case.sources > 1 {
            // One source from a shared register now and then (vv op vs).
            if rng.chance(20) {
                shared[rng.below(case.sources as u64) as usize] = true;
            }
        }
        let mut tuples: Vec<[u64; 3]> = (0..n).map(|_| tuple(rng, case)).collect();
        for (k, &s) in shared.iter().enumerate() {
            if s {
                let v = tuples[0][k];
                tuples.iter_mut().for_each(|t| t[k] = v);
            }
        }
        let expected = expected(case, mode.rm, &tuples);
        let (values, flags) = model.vector(case, mode, &tuples, shared);
        let mut all = 0;
        for (e, ((want, want_flags), got)) in expected.iter().zip(&values).enumerate() {
            all |= want_flags;
            for (bit, n) in raised.iter_mut().enumerate() {
                *n += (want_flags >> bit & 1) as usize;
            }
            if want != got {
                report.mismatch(format!(
                    "{}: element {e} of {n}: expected {want:#018x}, model {got:#018x}",
                    describe(case, mode, &tuples[e])
                ));
            }
        }
        if all != flags {
            report.mismatch(format!(
                "{} over {n} elements: accrued flags expected {}, model {}",
                name(case, mode),
                flag_names(all),
                flag_names(flags)
            ));
        }
        for (t, want) in tuples.iter().zip(&expected) {
            let got = model.single(case, mode, t);
            if got != *want {
                report.mismatch(format!(
                    "{}: alone: expected {:#018x} {}, model {:#018x} {}",
                    describe(case, mode, t),
                    want.0,
                    flag_names(want.1),
                    got.0,
                    flag_names(got.1)
                ));
            }
        }
        done += n;
    }
    raised
}

/// The flags `case` can raise: what the operands must make the reference raise, so that
/// the comparison covers them. Sums of halves in double and products of narrower values
/// in the wider format are exact; only conversions to half overflow from integers.
fn reachable(case: &Case) -> u8 {
    use fflags::{DZ, NV, NX, OF, UF};
    let mixed = case.dst != case.src;
    match case.op {
        Op::Add | Op::Sub if mixed && case.src == Fmt::H && case.dst == Fmt::D => NV,
        Op::Add | Op::Sub | Op::Fma { .. } if mixed => NV | NX,
        Op::Mul if mixed => NV,
        Op::Add | Op::Sub => NV | OF | NX,
        Op::Mul | Op::Fma { .. } => NV | OF | UF | NX,
        Op::Div => NV | DZ | OF | UF | NX,
        Op::Sqrt | Op::ToInt(_) => NV | NX,
        Op::Min | Op::Max | Op::Eq | Op::Lt | Op::Le => NV,
        Op::Sgnj | Op::Sgnjn | Op::Sgnjx | Op::Class => 0,
        Op::Convert if case.dst.bits() < case.src.bits() => NV | OF | UF | NX,
        Op::Convert => NV,
        Op::FromInt(_) if case.dst == Fmt::H => OF | NX,
        Op::FromInt(k) if case.dst == Fmt::D && k.bits() == 32 => 0,
        Op::FromInt(_) => NX,
    }
}

fn seed() -> u64 {
    std::env::var("ACCELGEN_FP_SEED")
        .ok()
        .map(|s| {
            let s = s.trim_start_matches("0x");
            u64::from_str_radix(s, 16).expect("ACCELGEN_FP_SEED: hexadecimal")
        })
        .unwrap_or(0x5f10_a7ed)
}

#[test]
fn every_fp_instruction_in_every_rounding_mode_matches_softfloat() {
    let long = std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1");
    let per_mode = if long { 100_000 } else { 10_000 };
    let names: Vec<&'static str> = worker_instructions()
        .map(|i| i.name)
        .filter(|n| {
            (n.starts_with("vf") && !["vfirst", "vfence"].contains(n)) || n.starts_with("vcmpf")
        })
        .collect();
    let cases: Vec<Case> = names.into_iter().map(Case::of).collect();
    // 70 instructions with a rounding mode, 27 without (min/max, sign injection, fclass,
    // compares); 13 of them mixed precision.
    assert_eq!(cases.len(), 97);
    assert_eq!(cases.iter().filter(|c| c.rm).count(), 70);
    assert_eq!(
        cases
            .iter()
            .filter(|c| c.dst != c.src && !matches!(c.op, Op::Convert))
            .count(),
        13
    );
    let only = std::env::var("ACCELGEN_FP_ONLY").ok();
    let cases: Vec<Case> = cases
        .into_iter()
        .filter(|c| {
            only.as_ref()
                .is_none_or(|o| o.split(',').any(|n| n == c.name))
        })
        .collect();
    // Jobs: every rounding mode, static and dynamic, for instructions with an rm field;
    // every frm (which they must ignore) for the others.
    let mut jobs = Vec::new();
    for case in &cases {
        for rm in 0..5 {
            for dynamic in [false, true] {
                if case.rm || dynamic {
                    jobs.push((*case, Mode { rm, dynamic }));
                }
            }
        }
    }
    let seed = seed();
    eprintln!(
        "softfloat comparison: seed {seed:#x} (ACCELGEN_FP_SEED), \
         {per_mode} tuples per instruction and rounding mode"
    );
    let report = Report {
        seed,
        lines: Mutex::new(Vec::new()),
        count: AtomicUsize::new(0),
    };
    let raised = Mutex::new(vec![[0; 5]; jobs.len()]);
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut model = Model::new();
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some((case, mode)) = jobs.get(j) else {
                        break;
                    };
                    let mut rng = Rng::new(mix(seed, j as u64));
                    let r = check(&mut model, &mut rng, &report, case, *mode, per_mode);
                    raised.lock().unwrap()[j] = r;
                }
            });
        }
    });
    eprintln!(
        "{} instructions, {} jobs, {} operand tuples in {:.1} s",
        cases.len(),
        jobs.len(),
        jobs.len() * per_mode,
        start.elapsed().as_secs_f64()
    );
    let lines = report.lines.into_inner().unwrap();
    let count = report.count.into_inner();
    assert!(
        count == 0,
        "seed {:#x}: {count} mismatches with SoftFloat, the first ones:\n{}",
        report.seed,
        lines.join("\n")
    );
    // The operands made the reference raise every flag each instruction can raise, a
    // few times at least, and no other.
    let raised = raised.into_inner().unwrap();
    for case in &cases {
        let mut total = [0; 5];
        for ((c, _), r) in jobs.iter().zip(&raised) {
            if c.name == case.name {
                total.iter_mut().zip(r).for_each(|(t, n)| *t += n);
            }
        }
        let seen = (0..5).filter(|&b| total[b] > 0).fold(0, |m, b| m | 1 << b);
        let want = reachable(case);
        let rare = (0..5).filter(|&b| want >> b & 1 != 0 && total[b] < 10);
        assert!(
            seen == want && rare.count() == 0,
            "{}: operands raised {} (NX UF OF DZ NV: {total:?}); it can raise {}",
            case.name,
            flag_names(seen),
            flag_names(want)
        );
    }
}

/// The fused multiply-adds' overflow corner, directed: products at the overflow boundary
/// (the largest finite number times one), just below it and beyond it (times one plus an
/// ulp, times two), of either sign, with an addend far below an ulp of the product (the
/// smallest subnormal or normal number, of either sign), in every rounding mode, static
/// and dynamic. The addend decides only the rounding direction of an exact product, and
/// overflow must be decided on the exact sum rounded with an unbounded exponent.
#[test]
fn fma_overflow_with_a_tiny_addend_matches_softfloat() {
    let report = Report {
        seed: 0,
        lines: Mutex::new(Vec::new()),
        count: AtomicUsize::new(0),
    };
    let mut model = Model::new();
    let mut cases = 0;
    for f in ["h", "s", "d"] {
        let fmt = Fmt::of(f).unwrap();
        let all = (1 << fmt.frac()) - 1;
        let bias = fmt.bias() as u64;
        let products: Vec<u64> = [false, true]
            .into_iter()
            .flat_map(|neg| {
                [
                    fmt.pack(neg, fmt.emax(), all),
                    fmt.pack(neg, fmt.emax(), all - 1),
                ]
            })
            .collect();
        let factors = [
            fmt.pack(false, bias, 0),
            fmt.pack(false, bias, 1),
            fmt.pack(false, bias + 1, 0),
            fmt.pack(false, bias - 1, all),
        ];
        let addends: Vec<u64> = [false, true]
            .into_iter()
            .flat_map(|neg| [fmt.pack(neg, 0, 1), fmt.pack(neg, 1, 0)])
            .collect();
        let mut tuples = Vec::new();
        for &a in &products {
            for &b in &factors {
                for &c in &addends {
                    tuples.push([a, b, c]);
                }
            }
        }
        for op in ["vfmadd", "vfmsub", "vfnmsub", "vfnmadd"] {
            let name: &'static str = format!("{op}.{f}").leak();
            let case = Case::of(name);
            for rm in 0..5 {
                let expected = expected(&case, rm, &tuples);
                for dynamic in [false, true] {
                    let mode = Mode { rm, dynamic };
                    for (t, want) in tuples.iter().zip(&expected) {
                        cases += 1;
                        let got = model.single(&case, mode, t);
                        if got != *want {
                            report.mismatch(format!(
                                "{}: expected {:#018x} {}, model {:#018x} {}",
                                describe(&case, mode, t),
                                want.0,
                                flag_names(want.1),
                                got.0,
                                flag_names(got.1)
                            ));
                        }
                    }
                }
            }
        }
    }
    let count = report.count.into_inner();
    assert!(
        count == 0,
        "{count} of {cases} mismatches with SoftFloat:\n{}",
        report.lines.into_inner().unwrap().join("\n")
    );
    assert_eq!(cases, 3 * 4 * 5 * 2 * 64);
}
