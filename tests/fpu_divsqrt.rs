//! The iterative divide/square-root unit (`fpu-divsqrt`) against Berkeley SoftFloat (the
//! RISC-V specialization, `fp_rig::reference`): results and flags bit-exact in every
//! format and rounding mode, on pairs of TestFloat-style corner values and on random
//! operands (the rig's, biased to specials and to quotients near overflow and underflow,
//! plus exact quotients and squares and their neighbours, where the sticky bit decides),
//! driven through the valid/ready handshake with random gaps between operations and
//! random back-pressure, the handshake and the latency checked on every operation.
//! In the IR simulator at every `bits_per_cycle`; in Verilator at the default (radix 4)
//! through one wrapper holding the three formats, with every binary16 square root.
//! `ACCELGEN_LONG=1` runs 10^7 random operations per operation and format in Verilator,
//! every corner pair and every binary16 square root in every mode;
//! `ACCELGEN_FPU_VECTORS=N` sets the random operations per operation and format.

mod fp_rig;
use fp_rig::*;

use generators::fpu::divsqrt::{
    divsqrt, latency, DivSqrtOp, MAX_BITS_PER_CYCLE, OP_DIV, OP_SQRT, SPECIAL_LATENCY,
};
use hdl::{Design, Module, ModuleBuilder};
use std::rc::Rc;
use verification::rng::Rng;
use verification::simulator::Simulator;
use verification::verilator::{Model, Options};

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// One operation: divide (a/b) or square root (of a), its rounding mode and operands.
#[derive(Clone, Copy, Debug)]
struct Vector {
    sqrt: bool,
    rm: u32,
    a: u64,
    b: u64,
}

/// A unit in a simulator, its ports named `<prefix>in_valid`, ...
struct Dut<'a, S: Simulator> {
    sim: &'a mut S,
    /// Each port's name in the simulator.
    names: Vec<(&'static str, String)>,
    fmt: Fmt,
    bits_per_cycle: u32,
}

impl<'a, S: Simulator> Dut<'a, S> {
    fn new(sim: &'a mut S, prefix: &str, fmt: Fmt, bits_per_cycle: u32) -> Self {
        let names = PORTS_IN
            .iter()
            .chain(&PORTS_OUT)
            .map(|&p| (p, format!("{prefix}{p}")))
            .collect();
        Dut {
            sim,
            names,
            fmt,
            bits_per_cycle,
        }
    }

    fn poke(&mut self, port: &str, v: u64) {
        self.sim.poke_u64(name(&self.names, port), v).unwrap();
    }

    fn peek(&mut self, port: &str) -> u64 {
        self.sim.peek_u64(name(&self.names, port)).unwrap()
    }

    /// Whether the unit decides `v` from its operands' classes (the early-out).
    fn special(&self, v: &Vector) -> bool {
        let f = self.fmt;
        // Zeros, infinities and NaNs.
        let exceptional = |x: u64| {
            let exp = (x >> f.frac()) & (f.emax() + 1);
            let frac = x & ((1 << f.frac()) - 1);
            (exp == 0 && frac == 0) || exp == f.emax() + 1
        };
        if v.sqrt {
            exceptional(v.a) || v.a & f.sign() != 0
        } else {
            exceptional(v.a) || exceptional(v.b)
        }
    }

    fn expected_latency(&self, v: &Vector) -> u64 {
        let op = if v.sqrt {
            DivSqrtOp::Sqrt
        } else {
            DivSqrtOp::Div
        };
        if self.special(v) {
            SPECIAL_LATENCY as u64
        } else {
            latency(self.fmt.format(), op, self.bits_per_cycle) as u64
        }
    }

    /// Runs `vectors` through the handshake: each offered after a random gap (garbage on
    /// the operand ports meanwhile), results taken under random back-pressure. Checks
    /// that `in_ready` is high exactly when nothing is in flight (or its result is taken
    /// this cycle), that each result appears after its latency and holds until taken.
    /// Returns each vector's result and flags.
    fn run(&mut self, vectors: &[Vector], rng: &mut Rng) -> Vec<Outcome> {
        let mut out = Vec::with_capacity(vectors.len());
        // The vector in flight, the cycle it was accepted and its result once valid.
        let mut flight: Option<(usize, u64, Option<Outcome>)> = None;
        let mut next = 0;
        let busy_mask = self.fmt.mask();
        while out.len() < vectors.len() {
            let offer = next < vectors.len() && rng.chance(70);
            let v = if offer {
                vectors[next]
            } else {
                Vector {
                    sqrt: rng.chance(50),
                    rm: rng.below(8) as u32,
                    a: rng.next_u64() & busy_mask,
                    b: rng.next_u64() & busy_mask,
                }
            };
            let take = rng.chance(60);
            self.poke("in_valid", offer as u64);
            self.poke("op", if v.sqrt { OP_SQRT } else { OP_DIV });
            self.poke("rm", v.rm as u64);
            self.poke("a", v.a);
            self.poke("b", v.b);
            self.poke("out_ready", take as u64);
            let cycle = self.sim.cycle();
            if self.peek("out_valid") == 1 {
                let (k, accepted, seen) =
                    flight.as_mut().expect("out_valid with nothing in flight");
                let now = (self.peek("result"), self.peek("flags") as u8);
                match seen {
                    None => {
                        let lat = self.expected_latency(&vectors[*k]);
                        assert_eq!(cycle - *accepted, lat, "latency of {:?}", vectors[*k]);
                        *seen = Some(now);
                    }
                    Some(held) => assert_eq!(*held, now, "result changed while held"),
                }
                if take {
                    out.push(now);
                    flight = None;
                }
            }
            let ready = self.peek("in_ready") == 1;
            assert_eq!(ready, flight.is_none(), "in_ready at cycle {cycle}");
            if offer && ready {
                flight = Some((next, cycle, None));
                next += 1;
            }
            self.sim.step();
        }
        out
    }
}

/// The simulator's name of `port`.
fn name<'a>(names: &'a [(&'static str, String)], port: &str) -> &'a str {
    &names.iter().find(|n| n.0 == port).expect("a port").1
}

/// Checks `vectors` on `dut` against SoftFloat; panics with the first few mismatches.
fn check<S: Simulator>(dut: &mut Dut<S>, vectors: &[Vector], rng: &mut Rng) {
    let got = dut.run(vectors, rng);
    let f = dut.fmt;
    let mut bad = Vec::new();
    for (v, got) in vectors.iter().zip(&got) {
        let op = if v.sqrt { Op::Sqrt } else { Op::Div };
        let want = reference(&Operation::of(op, f), v.rm, &[[v.a, v.b, 0]])[0];
        if *got != want && bad.len() < 10 {
            bad.push(format!(
                "{op:?} {f:?} rm {} a {:#x} b {:#x}: got {:#x} {}, want {:#x} {}",
                v.rm,
                v.a,
                v.b,
                got.0,
                flag_names(got.1),
                want.0,
                flag_names(want.1)
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} (b{}): mismatches:\n{}",
        f.format().name(),
        dut.bits_per_cycle,
        bad.join("\n")
    );
}

// -------------------------------------------------------------------------------------
// Operands.

/// A value with few significant bits and an exponent within `spread` of one's.
fn short(rng: &mut Rng, f: Fmt, spread: u64) -> u64 {
    let keep = rng.below(f.frac() as u64 / 2 + 1) as u32;
    let frac = (rng.next_u64() & ((1 << f.frac()) - 1)) >> (f.frac() - keep) << (f.frac() - keep);
    let exp = f.bias() as u64 + rng.below(2 * spread + 1) - spread;
    f.pack(rng.chance(50), exp.clamp(1, f.emax()), frac)
}

/// `x * y` in `f`, rounded to nearest.
fn product(f: Fmt, x: u64, y: u64) -> u64 {
    reference(&Operation::of(Op::Mul, f), 0, &[[x, y, 0]])[0].0
}

/// A random operation of the rig's kind, or one with an exact (or all but exact)
/// quotient or root: the sticky bit decides its rounding.
fn random_vector(rng: &mut Rng, f: Fmt, sqrt: bool) -> Vector {
    let rm = rng.below(5) as u32;
    let op = Operation::of(if sqrt { Op::Sqrt } else { Op::Div }, f);
    let nudge = |rng: &mut Rng, x: u64| match rng.below(4) {
        0 => x.wrapping_add(1) & f.mask(),
        1 => x.wrapping_sub(1) & f.mask(),
        _ => x,
    };
    let [a, b] = match rng.below(4) {
        0 if sqrt => {
            let root = short(rng, f, f.bias() as u64 / 2) & !f.sign();
            let a = nudge(rng, product(f, root, root));
            [a, 0]
        }
        0 => {
            let spread = f.bias() as u64 - 1;
            let (q, b) = (short(rng, f, spread), short(rng, f, spread));
            [nudge(rng, product(f, q, b)), b]
        }
        _ => {
            let [a, b, _] = operands(rng, &op);
            [a, b]
        }
    };
    // Square roots mostly of positive numbers.
    let a = if sqrt && rng.chance(80) {
        a & !f.sign()
    } else {
        a
    };
    Vector { sqrt, rm, a, b }
}

/// Corner pairs `(i, j)` of `corners(f)` (all of them if `every`, else `count` random
/// ones) in rounding mode `rm` (random if `None`), and each corner's square root.
fn corner_vectors(
    rng: &mut Rng,
    f: Fmt,
    every: bool,
    count: usize,
    rm: Option<u32>,
) -> Vec<Vector> {
    let c = corners(f);
    let rm_of = |rng: &mut Rng| rm.unwrap_or_else(|| rng.below(5) as u32);
    let mut v = Vec::new();
    let pairs: Vec<(usize, usize)> = if every {
        (0..c.len())
            .flat_map(|i| (0..c.len()).map(move |j| (i, j)))
            .collect()
    } else {
        (0..count)
            .map(|_| {
                (
                    rng.below(c.len() as u64) as usize,
                    rng.below(c.len() as u64) as usize,
                )
            })
            .collect()
    };
    for (i, j) in pairs {
        let rm = rm_of(rng);
        v.push(Vector {
            sqrt: false,
            rm,
            a: c[i],
            b: c[j],
        });
    }
    for &a in &c {
        let rm = rm_of(rng);
        v.push(Vector {
            sqrt: true,
            rm,
            a,
            b: 0,
        });
    }
    v
}

// -------------------------------------------------------------------------------------
// The IR simulator: every bits_per_cycle, modest counts.

fn ir_sim(f: Fmt, bits_per_cycle: u32) -> hdl::sim::Sim {
    let top = divsqrt(f.format(), bits_per_cycle).unwrap();
    let mut sim = hdl::sim::Sim::new(&Design::new(&top));
    sim.poke_u64("reset", 1).unwrap();
    sim.step();
    sim.poke_u64("reset", 0).unwrap();
    sim
}

/// Every bits_per_cycle on `f`: corner pairs in each rounding mode, every corner's root,
/// random divisions and square roots.
fn ir_sim_format(f: Fmt, seed: u64) {
    let (pairs, random) = if long() { (4000, 4000) } else { (300, 300) };
    for bits_per_cycle in 1..=MAX_BITS_PER_CYCLE {
        let mut sim = ir_sim(f, bits_per_cycle);
        let mut dut = Dut::new(&mut sim, "", f, bits_per_cycle);
        let mut rng = Rng::new(seed + bits_per_cycle as u64);
        // Radix 2 and 4 in full, the others lighter.
        let scale = if bits_per_cycle <= 2 { 1 } else { 3 };
        for rm in 0..5 {
            let v = corner_vectors(&mut rng, f, false, pairs / scale, Some(rm));
            check(&mut dut, &v, &mut rng);
        }
        let v: Vec<Vector> = (0..random / scale)
            .flat_map(|_| [false, true])
            .map(|sqrt| random_vector(&mut rng, f, sqrt))
            .collect();
        check(&mut dut, &v, &mut rng);
    }
}

#[test]
fn ir_sim_half_every_radix() {
    ir_sim_format(Fmt::H, 0x1600);
}

#[test]
fn ir_sim_single_every_radix() {
    ir_sim_format(Fmt::S, 0x3200);
}

#[test]
fn ir_sim_double_every_radix() {
    ir_sim_format(Fmt::D, 0x6400);
}

// -------------------------------------------------------------------------------------
// Verilator: the three formats at radix 4 in one model.

const BITS_PER_CYCLE: u32 = 2;
const CHUNK: usize = 100_000;
const PORTS_IN: [&str; 6] = ["in_valid", "op", "rm", "a", "b", "out_ready"];
const PORTS_OUT: [&str; 4] = ["in_ready", "out_valid", "result", "flags"];

/// `DivSqrtFormats`: one unit per format, ports prefixed `h_`, `s_`, `d_`.
fn three_formats() -> Rc<Module> {
    let mut m = ModuleBuilder::new("DivSqrtFormats");
    for f in Fmt::ALL {
        let unit = divsqrt(f.format(), BITS_PER_CYCLE).unwrap();
        let inst = m.instance(&format!("{}_unit", prefix(f)), &unit);
        for port in PORTS_IN {
            let width = if port == "a" || port == "b" {
                f.bits()
            } else {
                inst.port(port).width()
            };
            let outer = m.input(&format!("{}{port}", prefix(f)), width);
            m.connect(&inst.port(port), &outer);
        }
        for port in PORTS_OUT {
            let inner = inst.port(port);
            let outer = m.output(&format!("{}{port}", prefix(f)), inner.width());
            m.connect(&outer, &inner);
        }
    }
    m.finish().unwrap()
}

fn prefix(f: Fmt) -> &'static str {
    match f {
        Fmt::H => "h_",
        Fmt::S => "s_",
        Fmt::D => "d_",
    }
}

#[test]
fn verilator_three_formats_radix4() {
    let top = three_formats();
    let mut model = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
    model.poke_u64("reset", 1).unwrap();
    model.step();
    model.poke_u64("reset", 0).unwrap();
    let mut rng = Rng::new(0xd1d1);
    let start = std::time::Instant::now();
    let random: usize = match std::env::var("ACCELGEN_FPU_VECTORS") {
        Ok(n) => n.parse().expect("ACCELGEN_FPU_VECTORS is a count"),
        Err(_) if long() => 10_000_000,
        Err(_) => 10_000,
    };
    for f in Fmt::ALL {
        for other in Fmt::ALL {
            for port in PORTS_IN {
                model
                    .poke_u64(&format!("{}{port}", prefix(other)), 0)
                    .unwrap();
            }
        }
        let mut dut = Dut::new(&mut model, prefix(f), f, BITS_PER_CYCLE);
        // Every corner pair, in a random mode each (in every mode when long).
        if long() {
            for rm in 0..5 {
                let v = corner_vectors(&mut rng, f, true, 0, Some(rm));
                check(&mut dut, &v, &mut rng);
            }
        } else {
            let v = corner_vectors(&mut rng, f, true, 0, None);
            check(&mut dut, &v, &mut rng);
        }
        if f == Fmt::H {
            // Every binary16 square root, in a random mode each (every mode when long).
            for rm in 0..if long() { 5 } else { 1 } {
                let v: Vec<Vector> = (0..1 << 16)
                    .map(|a| Vector {
                        sqrt: true,
                        rm: if long() { rm } else { rng.below(5) as u32 },
                        a,
                        b: 0,
                    })
                    .collect();
                check(&mut dut, &v, &mut rng);
            }
        }
        eprintln!("{f:?}: corners done at {:.0?}", start.elapsed());
        for sqrt in [false, true] {
            // In chunks, so the reference's memory stays small.
            for chunk in 0..random.div_ceil(CHUNK) {
                let n = CHUNK.min(random - chunk * CHUNK);
                let v: Vec<Vector> = (0..n).map(|_| random_vector(&mut rng, f, sqrt)).collect();
                check(&mut dut, &v, &mut rng);
            }
            eprintln!(
                "{f:?} sqrt={sqrt}: {random} random done at {:.0?}",
                start.elapsed()
            );
        }
    }
}
