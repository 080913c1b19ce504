//! Differential fuzzing of the `hdl` IR: random circuits run in the IR simulator,
//! Verilator and Icarus (and Verilator through the in-process harness,
//! `SimKind::VerilatorLib`) must agree cycle by cycle, and their Verilog must pass
//! `verilator --lint-only -Wall` and Yosys `check -assert`.
//!
//! Circuit `i` of a run is a pure function of (seed, i). Circuits are batched: one
//! testbench and one Verilator build cover many circuits. A mismatch is minimized and
//! printed as a reproducer (Verilog, stimulus, values per simulator).
//!
//! Environment: `ACCELGEN_LONG=1` runs 10,000 circuits; `ACCELGEN_FUZZ_CIRCUITS=N` and
//! `ACCELGEN_FUZZ_SEED=S` override the count and the seed, `ACCELGEN_FUZZ_FIRST=I` starts
//! at circuit I (with `ACCELGEN_FUZZ_CIRCUITS=1`, re-runs just that circuit).

mod elab;
mod gen;
mod minimize;
mod rng;
mod sims;
mod spec;

pub use sims::SimKind;
pub use spec::{Circuit, OpKind};

use sims::{Batch, Dut, Job, Stimulus, Trace};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A deliberate discrepancy, to test the minimizer: `sim` reports bit 0 flipped on every
/// nonzero value of each output whose cone contains an `op` operator.
#[derive(Clone, Copy, Debug)]
pub struct Fault {
    pub sim: SimKind,
    pub op: OpKind,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// Circuits `first..first + circuits` of the seed's sequence.
    pub first: u64,
    pub circuits: u64,
    pub cycles: usize,
    /// Circuits per testbench.
    pub batch: u64,
    pub workers: usize,
    pub sims: Vec<SimKind>,
    pub lint: bool,
    pub fault: Option<Fault>,
    /// How many mismatching circuits get minimized (each may take minutes).
    pub max_repros: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            seed: 0xacce1,
            first: 0,
            circuits: 150,
            cycles: 200,
            batch: 75,
            workers: 2,
            sims: vec![SimKind::Ir, SimKind::Icarus, SimKind::Verilator],
            lint: true,
            fault: None,
            max_repros: 3,
        }
    }
}

impl Config {
    /// The default run, adjusted by `ACCELGEN_LONG`, `ACCELGEN_FUZZ_CIRCUITS` and
    /// `ACCELGEN_FUZZ_SEED`.
    pub fn from_env() -> Config {
        let mut c = Config::default();
        if std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1") {
            c.circuits = 10_000;
            c.batch = 100;
        }
        let num = |name: &str| {
            std::env::var(name).ok().map(|v| {
                let v = v.trim();
                let parsed = match v.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16),
                    None => v.parse(),
                };
                parsed.unwrap_or_else(|_| panic!("{name}={v} is not a number"))
            })
        };
        if let Some(n) = num("ACCELGEN_FUZZ_CIRCUITS") {
            c.circuits = n;
        }
        if let Some(s) = num("ACCELGEN_FUZZ_SEED") {
            c.seed = s;
        }
        if let Some(f) = num("ACCELGEN_FUZZ_FIRST") {
            c.first = f;
        }
        c
    }
}

/// The first disagreement of a circuit, and the two simulators to re-run while shrinking
/// it (the odd one out and the cheapest other).
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub cycle: usize,
    pub output: usize,
    pub pair: (SimKind, SimKind),
}

pub enum Failure {
    Elaborate { index: u64, message: String },
    Lint { index: u64, message: String },
    Run { indices: String, message: String },
    Mismatch(Box<Repro>),
}

pub struct Repro {
    pub seed: u64,
    pub index: u64,
    pub circuit: Circuit,
    pub cycles: usize,
    pub pair: (SimKind, SimKind),
    pub original_size: usize,
    /// Whether the two simulators still disagree on the minimized circuit.
    pub still_fails: bool,
    pub text: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Elaborate { index, message } => {
                write!(f, "circuit {index} does not elaborate: {message}")
            }
            Failure::Lint { index, message } => write!(f, "circuit {index} lint: {message}"),
            Failure::Run { indices, message } => {
                write!(f, "simulating circuits {indices} failed: {message}")
            }
            Failure::Mismatch(r) => f.write_str(&r.text),
        }
    }
}

pub struct Report {
    pub circuits: u64,
    pub cycles: usize,
    pub failures: Vec<Failure>,
}

/// Runs `cfg` and panics with every failure (each with its reproducer) if there is any;
/// `what` names the run in the summary line.
pub fn assert_agree(cfg: &Config, what: &str) {
    let start = std::time::Instant::now();
    let report = run(cfg);
    eprintln!(
        "{what}: {} circuits x {} cycles, seed {:#x}, {:.1?}",
        report.circuits,
        report.cycles,
        cfg.seed,
        start.elapsed()
    );
    for f in &report.failures {
        eprintln!("{f}\n");
    }
    assert!(
        report.failures.is_empty(),
        "{} fuzz failures (above)",
        report.failures.len()
    );
}

/// Runs the configured circuits; failures carry their reproducers.
pub fn run(cfg: &Config) -> Report {
    let next = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    let repros = AtomicU64::new(0);
    let batches = cfg.circuits.div_ceil(cfg.batch);
    std::thread::scope(|s| {
        for _ in 0..cfg.workers {
            s.spawn(|| loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= batches {
                    break;
                }
                let lo = cfg.first + b * cfg.batch;
                let hi = (lo + cfg.batch).min(cfg.first + cfg.circuits);
                let f = run_batch(cfg, lo..hi, &repros);
                failures.lock().expect("no worker panicked").extend(f);
            });
        }
    });
    let mut failures = failures.into_inner().expect("no worker panicked");
    failures.sort_by_key(|f| match f {
        Failure::Elaborate { index, .. } | Failure::Lint { index, .. } => *index,
        Failure::Mismatch(r) => r.index,
        Failure::Run { .. } => 0,
    });
    Report {
        circuits: cfg.circuits,
        cycles: cfg.cycles,
        failures,
    }
}

/// A circuit elaborated, emitted and given its stimulus.
struct Prepared {
    design: hdl::Design,
    dut: Dut,
    stim: Stimulus,
}

fn prepare(
    cfg: &Config,
    index: u64,
    c: &Circuit,
    prefix: &str,
    cycles: usize,
) -> Result<Prepared, String> {
    let design = elab::elaborate(c, prefix)?;
    let dut = Dut::new(&design, c.top());
    let stim = sims::stimulus(cfg.seed, index, c.top(), cycles);
    Ok(Prepared { design, dut, stim })
}

/// Per simulator, a trace or why there is none.
type Traces = BTreeMap<SimKind, Result<Trace, String>>;

/// Traces of each circuit in each of `kinds`, plus lint problems by slot when `lint`.
fn simulate(
    cfg: &Config,
    circuits: &[&Circuit],
    prepared: &[&Prepared],
    kinds: &[SimKind],
    lint: bool,
) -> (Vec<Traces>, Vec<(usize, String)>) {
    let mut out: Vec<Traces> = vec![BTreeMap::new(); prepared.len()];
    let mut lint_problems = Vec::new();
    let jobs: Vec<Job> = prepared
        .iter()
        .map(|p| Job {
            dut: &p.dut,
            stim: &p.stim,
        })
        .collect();
    let external: Vec<SimKind> = kinds
        .iter()
        .copied()
        .filter(|&k| k != SimKind::Ir && k != SimKind::VerilatorLib)
        .collect();
    if !jobs.is_empty() && (lint || !external.is_empty()) {
        let batch = tempfile::tempdir()
            .map_err(|e| format!("temporary directory: {e}"))
            .and_then(|dir| Batch::new(dir.path(), &jobs).map(|b| (dir, b)));
        match batch {
            Ok((_dir, batch)) => {
                if lint {
                    if let Err(p) = batch.lint() {
                        lint_problems = p;
                    }
                }
                for &k in &external {
                    match batch.run(k) {
                        Ok(traces) => {
                            for (o, t) in out.iter_mut().zip(traces) {
                                o.insert(k, t);
                            }
                        }
                        Err(e) => out.iter_mut().for_each(|o| {
                            o.insert(k, Err(e.clone()));
                        }),
                    }
                }
            }
            Err(e) => {
                for o in &mut out {
                    for &k in &external {
                        o.insert(k, Err(e.clone()));
                    }
                }
            }
        }
    }
    if kinds.contains(&SimKind::VerilatorLib) && !jobs.is_empty() {
        match sims::run_in_process(&jobs) {
            Ok(traces) => {
                for (o, t) in out.iter_mut().zip(traces) {
                    o.insert(SimKind::VerilatorLib, t);
                }
            }
            Err(e) => out.iter_mut().for_each(|o| {
                o.insert(SimKind::VerilatorLib, Err(e.clone()));
            }),
        }
    }
    if kinds.contains(&SimKind::Ir) {
        for (o, p) in out.iter_mut().zip(prepared) {
            o.insert(SimKind::Ir, sims::run_ir(&p.design, &p.dut, &p.stim));
        }
    }
    if let Some(fault) = cfg.fault {
        for (o, c) in out.iter_mut().zip(circuits) {
            if let Some(Ok(t)) = o.get_mut(&fault.sim) {
                inject(t, c, fault.op);
            }
        }
    }
    (out, lint_problems)
}

fn inject(trace: &mut Trace, c: &Circuit, op: OpKind) {
    let n_out = c.top().outputs.len();
    for k in 0..n_out {
        let cone = c.only_output(k);
        let has_op = cone
            .modules
            .iter()
            .flat_map(|m| &m.items)
            .any(|it| matches!(&it.kind, spec::Kind::Op { op: o, .. } if *o == op));
        if !has_op {
            continue;
        }
        for sample in trace.iter_mut() {
            let v = &sample[k];
            if !v.is_zero() {
                let mut words = v.words().to_vec();
                words[0] ^= 1;
                sample[k] = hdl::Bits::from_words(v.width(), &words);
            }
        }
    }
}

/// The first cycle and output where the simulators disagree.
fn first_mismatch(traces: &BTreeMap<SimKind, Trace>) -> Option<Mismatch> {
    let kinds: Vec<SimKind> = traces.keys().copied().collect();
    let cycles = traces.values().map(Vec::len).min()?;
    let first = &traces[&kinds[0]];
    for (cycle, _) in first.iter().enumerate().take(cycles) {
        let samples: Vec<&Vec<hdl::Bits>> = kinds.iter().map(|k| &traces[k][cycle]).collect();
        for output in 0..samples[0].len() {
            let vals: Vec<&hdl::Bits> = samples.iter().map(|s| &s[output]).collect();
            if vals.iter().all(|v| *v == vals[0]) {
                continue;
            }
            // The odd one out differs from all others; kinds are ordered cheapest first.
            let odd = (0..kinds.len())
                .find(|&i| {
                    (0..kinds.len())
                        .filter(|&j| j != i)
                        .all(|j| vals[j] != vals[i])
                })
                .unwrap_or(0);
            let other = (0..kinds.len())
                .find(|&j| j != odd)
                .expect("two simulators");
            let (a, b) = (kinds[odd.min(other)], kinds[odd.max(other)]);
            return Some(Mismatch {
                cycle,
                output,
                pair: (a, b),
            });
        }
    }
    None
}

/// For the minimizer: the first mismatch of each candidate between the `pair` simulators
/// over `cycles` cycles (`None` if they agree or the candidate is invalid).
fn evaluate(
    cfg: &Config,
    index: u64,
    cands: &[Circuit],
    cycles: usize,
    pair: &[SimKind],
) -> Vec<Option<Mismatch>> {
    let prepared: Vec<Option<Prepared>> = cands
        .iter()
        .enumerate()
        .map(|(j, c)| prepare(cfg, index, c, &format!("k{j}"), cycles).ok())
        .collect();
    let valid: Vec<usize> = (0..cands.len())
        .filter(|&j| prepared[j].is_some())
        .collect();
    let circuits: Vec<&Circuit> = valid.iter().map(|&j| &cands[j]).collect();
    let preps: Vec<&Prepared> = valid
        .iter()
        .map(|&j| prepared[j].as_ref().expect("valid"))
        .collect();
    let (traces, _) = simulate(cfg, &circuits, &preps, pair, false);
    let mut out: Vec<Option<Mismatch>> = vec![None; cands.len()];
    for (&j, t) in valid.iter().zip(traces) {
        let ok: Option<BTreeMap<SimKind, Trace>> =
            t.into_iter().map(|(k, r)| r.ok().map(|t| (k, t))).collect();
        out[j] = ok.as_ref().and_then(first_mismatch);
    }
    out
}

fn run_batch(cfg: &Config, indices: std::ops::Range<u64>, repros: &AtomicU64) -> Vec<Failure> {
    let mut failures = Vec::new();
    let mut circuits: Vec<(u64, Circuit, Prepared)> = Vec::new();
    for i in indices.clone() {
        let c = gen::generate(cfg.seed, i);
        match prepare(cfg, i, &c, &format!("c{i}"), cfg.cycles) {
            Ok(p) => circuits.push((i, c, p)),
            Err(message) => failures.push(Failure::Elaborate { index: i, message }),
        }
    }
    let specs: Vec<&Circuit> = circuits.iter().map(|(_, c, _)| c).collect();
    let preps: Vec<&Prepared> = circuits.iter().map(|(.., p)| p).collect();
    let (results, lint) = simulate(cfg, &specs, &preps, &cfg.sims, cfg.lint);
    let mut lint_by_circuit: BTreeMap<u64, String> = BTreeMap::new();
    for (slot, msg) in lint {
        let e = lint_by_circuit.entry(circuits[slot].0).or_default();
        let _ = writeln!(e, "{msg}");
    }
    for (index, mut message) in lint_by_circuit {
        let verilog = &circuits
            .iter()
            .find(|c| c.0 == index)
            .expect("linted")
            .2
            .dut
            .verilog;
        let _ = write!(message, "--- the circuit's Verilog ---\n{verilog}");
        failures.push(Failure::Lint { index, message });
    }
    let mut run_errors: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for ((i, c, _), r) in circuits.iter().zip(results) {
        let mut traces = BTreeMap::new();
        for (k, t) in r {
            match t {
                Ok(t) => {
                    traces.insert(k, t);
                }
                Err(e) => run_errors.entry(e).or_default().push(*i),
            }
        }
        let Some(mm) = first_mismatch(&traces) else {
            continue;
        };
        if repros.fetch_add(1, Ordering::Relaxed) >= cfg.max_repros as u64 {
            let text = format!(
                "circuit {i} (seed {:#x}): {} and {} disagree at cycle {} (not minimized)",
                cfg.seed, mm.pair.0, mm.pair.1, mm.cycle
            );
            failures.push(Failure::Mismatch(Box::new(Repro {
                seed: cfg.seed,
                index: *i,
                circuit: c.clone(),
                cycles: mm.cycle + 1,
                pair: mm.pair,
                original_size: c.size(),
                still_fails: true,
                text,
            })));
            continue;
        }
        failures.push(Failure::Mismatch(Box::new(reproducer(cfg, *i, c, &mm))));
    }
    for (mut message, idx) in run_errors {
        // An error of one circuit (say an X in its outputs) comes with its Verilog.
        if let [i] = idx[..] {
            let c = circuits.iter().find(|c| c.0 == i).expect("simulated");
            let _ = write!(
                message,
                "\n--- the circuit's Verilog ---\n{}",
                c.2.dut.verilog
            );
        }
        let indices = format!("{:?}", idx);
        failures.push(Failure::Run { indices, message });
    }
    failures
}

/// Minimizes a mismatching circuit and describes it with every simulator's values.
pub fn reproducer(cfg: &Config, index: u64, c: &Circuit, mm: &Mismatch) -> Repro {
    let min = minimize::minimize(cfg, index, c, mm);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "hdl fuzz mismatch: seed {:#x}, circuit {index} (ACCELGEN_FUZZ_SEED={:#x})",
        cfg.seed, cfg.seed
    );
    let _ = writeln!(
        text,
        "{} and {} disagree; minimized from size {} to {} (items + statements), {} cycles",
        mm.pair.0,
        mm.pair.1,
        min.original_size,
        min.circuit.size(),
        min.cycles
    );
    let mut still_fails = false;
    match prepare(cfg, index, &min.circuit, "repro", min.cycles) {
        Err(e) => {
            let _ = writeln!(text, "the minimized circuit does not elaborate: {e}");
        }
        Ok(p) => {
            let (traces, _) = simulate(cfg, &[&min.circuit], &[&p], &cfg.sims, false);
            let traces = &traces[0];
            if let (Some(Ok(a)), Some(Ok(b))) = (traces.get(&mm.pair.0), traces.get(&mm.pair.1)) {
                still_fails = a != b;
            }
            let _ = writeln!(text, "--- circuit spec ---\n{}", min.circuit);
            let _ = writeln!(text, "--- Verilog ---\n{}", p.dut.verilog);
            let _ = writeln!(text, "--- stimulus and outputs per cycle ---");
            for cyc in 0..p.stim.cycles() {
                let _ = write!(text, "cycle {cyc}: reset={}", p.stim.reset[cyc] as u8);
                for ((name, _), v) in p.dut.inputs.iter().zip(&p.stim.inputs) {
                    let _ = write!(text, " {name}={}", v[cyc]);
                }
                let _ = writeln!(text);
                for (k, t) in traces {
                    let vals = match t {
                        Ok(t) => p
                            .dut
                            .outputs
                            .iter()
                            .zip(&t[cyc])
                            .map(|((n, w), v)| format!("{n}={}", sims::show(v, *w)))
                            .collect::<Vec<_>>()
                            .join(" "),
                        Err(e) => format!("error: {e}"),
                    };
                    let _ = writeln!(text, "    {k:>9}: {vals}");
                }
            }
        }
    }
    Repro {
        seed: cfg.seed,
        index,
        circuit: min.circuit,
        cycles: min.cycles,
        pair: mm.pair,
        original_size: min.original_size,
        still_fails,
        text,
    }
}
