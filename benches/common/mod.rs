//! The design and C++ main shared by the simulator benchmarks.

use askama::Template;
use hdl::{Design, MemStyle, ModuleBuilder};
use std::process::Command;
use std::rc::Rc;
use std::time::Instant;
use verification::simulator::Simulator;

/// A lane: a 4-stage pipeline of multiply-add, 128-bit mixing and a register-file read.
fn lane() -> Rc<hdl::Module> {
    let mut m = ModuleBuilder::new("Lane");
    let a = m.input("a", 64);
    let b = m.input("b", 64);
    let addr = m.input("addr", 6);
    let we = m.input("we", 1);
    let y = m.output("y", 64);
    let s1 = m.reg("s1", 128, 0u64);
    m.connect(&s1, &a.mul(&b));
    let s2 = m.reg("s2", 64, 0u64);
    let mixed = &s1.slice(127, 64) ^ &s1.slice(63, 0);
    m.connect(&s2, &(&mixed + &a.dshr(&addr.zext(64))));
    let rf = m.mem("rf", 64, 64, MemStyle::Inferred);
    m.when(&we, |m| m.write(&rf, &addr, &s2));
    let one = m.lit(1, 1);
    let rd = m.read_sync(&rf, &addr, &one);
    let s3 = m.reg("s3", 64, 0u64);
    m.connect(&s3, &(&rd.as_signed().shr(3).as_unsigned() ^ &s2));
    m.connect(&y, &s3);
    m.finish().expect("lane elaborates")
}

pub fn top(lanes: u32) -> Design {
    let lane = lane();
    let mut m = ModuleBuilder::new("BenchTop");
    let a = m.input("a", 64);
    let b = m.input("b", 64);
    let addr = m.input("addr", 6);
    let we = m.input("we", 1);
    let y = m.output("y", 64);
    let mut acc = m.lit(0, 64);
    for i in 0..lanes {
        let u = m.instance(&format!("lane{i}"), &lane);
        let offset = m.lit(i as u64, 64);
        m.connect(&u.port("a"), &(&a + &offset));
        m.connect(&u.port("b"), &b);
        m.connect(&u.port("addr"), &addr);
        m.connect(&u.port("we"), &we);
        acc = &acc ^ &u.port("y");
    }
    m.connect(&y, &acc);
    Design::new(&m.finish().expect("top elaborates"))
}

#[derive(Template)]
#[template(path = "verilator_bench_main.cpp", escape = "none")]
pub struct BenchMain {
    pub top: String,
    pub inputs: Vec<(String, String)>,
    pub output: String,
}

/// The inputs and the masks of their values.
pub const INPUTS: [(&str, u64); 4] = [("a", u64::MAX), ("b", u64::MAX), ("addr", 63), ("we", 1)];

/// A simulator running the bench: reset, then cycles of the stimulus.
pub trait BenchSim {
    fn reset(&mut self);
    /// Pokes `INPUTS` with `values`, returns `y` before the clock edge, then clocks.
    fn cycle(&mut self, values: [u64; 4]) -> u64;
}

/// Any simulator, its ports named in every call.
pub struct ByName<S>(pub S);

impl<S: Simulator> BenchSim for ByName<S> {
    fn reset(&mut self) {
        self.0.poke_u64("reset", 1).expect("reset");
        self.0.step();
        self.0.poke_u64("reset", 0).expect("reset");
    }

    fn cycle(&mut self, values: [u64; 4]) -> u64 {
        for ((name, _), v) in INPUTS.iter().zip(values) {
            self.0.poke_u64(name, v).expect("poke");
        }
        let y = self.0.peek_u64("y").expect("peek");
        self.0.step();
        y
    }
}

/// Cycles per second and output checksum of `cycles` cycles after reset, the stimulus
/// and checksum being those of `templates/verilator_bench_main.cpp`.
pub fn run(sim: &mut impl BenchSim, cycles: u64) -> (f64, u64) {
    sim.reset();
    let (mut x, mut sum) = (1u64, 0u64);
    let t0 = Instant::now();
    for _ in 0..cycles {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut values = [0; 4];
        for (i, (v, (_, mask))) in values.iter_mut().zip(INPUTS).enumerate() {
            *v = (x >> i) & mask;
        }
        sum = sum.wrapping_add(sim.cycle(values));
    }
    (cycles as f64 / t0.elapsed().as_secs_f64(), sum)
}

/// The best of `runs` runs (cycles/s), checking that every run has the same checksum.
pub fn best(runs: usize, mut run: impl FnMut() -> Option<(f64, u64)>) -> Option<(f64, u64)> {
    let mut best: Option<(f64, u64)> = None;
    for _ in 0..runs {
        let (rate, sum) = run()?;
        if let Some((_, s)) = best {
            assert_eq!(s, sum, "runs disagree on the checksum");
        }
        best = Some((best.map_or(rate, |(r, _)| r.max(rate)), sum));
    }
    best
}

/// Cycles per second (best of `runs`) and output checksum of `design` as a plain
/// Verilator C++ main (`templates/verilator_bench_main.cpp`) built with `verilator_args`;
/// `None` (with the reason on stderr) if it cannot be built or run.
pub fn plain_main(
    design: &Design,
    cycles: u64,
    verilator_args: &[&str],
    runs: usize,
) -> Option<(f64, u64)> {
    let dir = tempfile::tempdir().ok()?;
    // Emitted as `verification::verilator::Model::of_design` emits it.
    let emitted = hdl::emit::emit(design, &hdl::emit::EmitOptions::default());
    std::fs::write(dir.path().join("design.v"), emitted.single_file()).ok()?;
    let main = BenchMain {
        top: emitted.top.clone(),
        inputs: INPUTS
            .iter()
            .map(|(n, m)| (n.to_string(), m.to_string()))
            .collect(),
        output: "y".into(),
    };
    std::fs::write(dir.path().join("main.cpp"), main.render().ok()?).ok()?;
    let status = Command::new("verilator")
        .current_dir(dir.path())
        .args(["--cc", "--exe", "--build", "--top-module", &emitted.top])
        .args(verilator_args)
        .args(["design.v", "main.cpp", "-o", "bench"])
        .output()
        .ok()?;
    if !status.status.success() {
        eprintln!(
            "verilator failed:\n{}",
            String::from_utf8_lossy(&status.stderr)
        );
        return None;
    }
    best(runs, || {
        let out = Command::new(dir.path().join("obj_dir/bench"))
            .arg(cycles.to_string())
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut it = text.split_whitespace();
        Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
    })
}
