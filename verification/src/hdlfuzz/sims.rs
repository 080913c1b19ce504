//! Running circuits: the IR simulator in process, Icarus and Verilator on a batch of many
//! circuits at once (one testbench, one build), plus the lint checks of the batch; or the
//! batch as one in-process Verilator model (`crate::verilator`), the circuits side by side.

use super::rng::{mix, Rng};
use super::spec::ModuleSpec;
use askama::Template;
use hdl::ir::{Module, SigKind};
use hdl::{Bits, Design};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SimKind {
    Ir,
    Icarus,
    Verilator,
    /// Verilator through the in-process harness, `crate::verilator`.
    VerilatorLib,
}

impl fmt::Display for SimKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SimKind::Ir => "hdl-sim",
            SimKind::Icarus => "icarus",
            SimKind::Verilator => "verilator",
            SimKind::VerilatorLib => "verilator-lib",
        })
    }
}

/// Sampled outputs: per cycle, per output.
pub type Trace = Vec<Vec<Bits>>;

/// Per cycle values of `reset` and of the top's inputs (in item order).
#[derive(Clone, Debug)]
pub struct Stimulus {
    pub reset: Vec<bool>,
    pub inputs: Vec<Vec<Bits>>,
}

impl Stimulus {
    pub fn cycles(&self) -> usize {
        self.reset.len()
    }
}

/// Reset is high in cycle 0 and now and then later. Each input's values come from a stream
/// of their own, keyed by the input's id, so they survive minimization unchanged.
pub fn stimulus(seed: u64, index: u64, top: &ModuleSpec, cycles: usize) -> Stimulus {
    let base = mix(seed, index);
    let mut r = Rng::new(mix(base, u64::MAX));
    let reset = (0..cycles).map(|c| c == 0 || r.chance(3)).collect();
    let inputs = top
        .inputs()
        .map(|(_, id, ty)| {
            let mut r = Rng::new(mix(base, id as u64));
            (0..cycles).map(|_| r.bits(ty.width)).collect()
        })
        .collect();
    Stimulus { reset, inputs }
}

/// A circuit ready to run: its Verilog and its top's interface.
pub struct Dut {
    pub verilog: String,
    pub module: String,
    pub clocked: bool,
    pub inputs: Vec<(String, u32)>,
    pub outputs: Vec<(String, u32)>,
    /// Hierarchical names (below the top) of every register, for zero-initialization.
    pub state: Vec<String>,
}

impl Dut {
    pub fn new(design: &Design, top: &ModuleSpec) -> Dut {
        let opts = hdl::emit::EmitOptions {
            sim_mem_init: true,
            ..Default::default()
        };
        let e = hdl::emit::emit(design, &opts);
        let mut state = Vec::new();
        state_paths(design.top(), "", &mut state);
        Dut {
            verilog: e.single_file(),
            module: design.top_name().to_string(),
            clocked: design.top().body.clocked,
            inputs: top
                .inputs()
                .map(|(_, id, t)| (format!("i{id}"), t.width))
                .collect(),
            outputs: top
                .outputs
                .iter()
                .map(|o| (format!("o{}", o.id), o.ty.width))
                .collect(),
            state,
        }
    }
}

fn state_paths(m: &Module, prefix: &str, out: &mut Vec<String>) {
    for s in &m.body.signals {
        if matches!(s.kind, SigKind::Reg { .. } | SigKind::MemData { .. }) {
            out.push(format!("{prefix}{}", s.name));
        }
    }
    for inst in &m.body.instances {
        state_paths(&inst.module, &format!("{prefix}{}.", inst.name), out);
    }
}

pub fn run_ir(design: &Design, dut: &Dut, stim: &Stimulus) -> Result<Trace, String> {
    let mut sim = hdl::sim::Sim::new(design);
    let err = |e: hdl::sim::SimError| format!("hdl-sim: {e}");
    let mut trace = Vec::with_capacity(stim.cycles());
    for cyc in 0..stim.cycles() {
        if dut.clocked {
            sim.poke_u64("reset", stim.reset[cyc] as u64).map_err(err)?;
        }
        for ((name, _), values) in dut.inputs.iter().zip(&stim.inputs) {
            sim.poke(name, &values[cyc]).map_err(err)?;
        }
        let sample = dut
            .outputs
            .iter()
            .map(|(name, _)| sim.peek(name))
            .collect::<Result<Vec<Bits>, _>>()
            .map_err(err)?;
        trace.push(sample);
        sim.step();
    }
    Ok(trace)
}

/// Runs every job in one in-process Verilator model, the circuits side by side (ports of
/// job `s` prefixed `s{s}_`), all clocked together; one trace per job.
pub fn run_in_process(jobs: &[Job]) -> Result<Vec<Result<Trace, String>>, String> {
    use crate::verilator::{Interface, Model, Opt, Options, Part, PortSpec};
    let spec = |dir: hdl::Dir| {
        move |(name, width): &(String, u32)| PortSpec {
            name: name.clone(),
            dir,
            width: *width,
        }
    };
    let parts: Vec<Part> = jobs
        .iter()
        .enumerate()
        .map(|(slot, j)| {
            let reset = ("reset".to_string(), 1);
            let ports = j
                .dut
                .clocked
                .then_some(&reset)
                .into_iter()
                .chain(&j.dut.inputs)
                .map(spec(hdl::Dir::In))
                .chain(j.dut.outputs.iter().map(spec(hdl::Dir::Out)))
                .collect();
            Part {
                verilog: &j.dut.verilog,
                interface: Interface {
                    module: j.dut.module.clone(),
                    clock: j.dut.clocked.then(|| "clock".to_string()),
                    ports,
                },
                prefix: format!("s{slot}_"),
            }
        })
        .collect();
    // Each model runs a few hundred cycles once: compile time matters, not speed. The
    // fuzzer's workers build in parallel, one compiler job each.
    let opts = Options {
        cxx_opt: Opt::O0,
        jobs: 1,
        ..Options::default()
    };
    let err = |e: crate::verilator::Error| format!("verilator-lib: {e}");
    let mut model = Model::build(&parts, &opts).map_err(err)?;
    // The other simulators start from zeros.
    model.reinit(hdl::sim::Init::Zero).map_err(err)?;
    let id = |slot: usize, name: &str| model.port(&format!("s{slot}_{name}"));
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    for (slot, j) in jobs.iter().enumerate() {
        let reset = j.dut.clocked.then(|| id(slot, "reset")).transpose();
        let inputs: Result<Vec<_>, _> = j.dut.inputs.iter().map(|(n, _)| id(slot, n)).collect();
        let outputs: Result<Vec<_>, _> = j.dut.outputs.iter().map(|(n, _)| id(slot, n)).collect();
        ins.push((reset.map_err(err)?, inputs.map_err(err)?));
        outs.push(outputs.map_err(err)?);
    }
    let cycles = jobs.iter().map(|j| j.stim.cycles()).max().unwrap_or(0);
    let mut traces: Vec<Result<Trace, String>> = jobs
        .iter()
        .map(|j| Ok(Vec::with_capacity(j.stim.cycles())))
        .collect();
    for cyc in 0..cycles {
        for (((reset, inputs), j), t) in ins.iter().zip(jobs).zip(&mut traces) {
            if cyc >= j.stim.cycles() || t.is_err() {
                continue;
            }
            let poked = reset
                .iter()
                .try_for_each(|&r| model.poke_id_u64(r, j.stim.reset[cyc] as u64))
                .and_then(|()| {
                    inputs
                        .iter()
                        .zip(&j.stim.inputs)
                        .try_for_each(|(&i, values)| model.poke_id(i, &values[cyc]))
                });
            if let Err(e) = poked {
                *t = Err(err(e));
            }
        }
        for ((outputs, j), t) in outs.iter().zip(jobs).zip(&mut traces) {
            let Ok(trace) = t else { continue };
            if cyc >= j.stim.cycles() {
                continue;
            }
            match outputs.iter().map(|&o| model.peek_id(o)).collect() {
                Ok(sample) => trace.push(sample),
                Err(e) => *t = Err(err(e)),
            }
        }
        model.step();
    }
    Ok(traces)
}

pub struct Job<'a> {
    pub dut: &'a Dut,
    pub stim: &'a Stimulus,
}

struct TbCircuit {
    slot: usize,
    module: String,
    stim_width: u32,
    stim_file: String,
    pins: Vec<String>,
    out_widths: Vec<u32>,
    state: Vec<String>,
}

#[derive(Template)]
#[template(
    path = "tb.v",
    escape = "none",
    config = "src/hdlfuzz/templates/askama.toml"
)]
struct Testbench<'a> {
    circuits: &'a [TbCircuit],
    cycles: usize,
    out_file: &'a str,
}

/// Many circuits in one directory: `circuits.v` holds all their modules (names never
/// collide: each circuit's module names carry its prefix), one stimulus file each.
pub struct Batch<'a> {
    dir: PathBuf,
    jobs: &'a [Job<'a>],
    cycles: usize,
    tb: Vec<TbCircuit>,
    /// First line of each circuit in `circuits.v`, to attribute lint messages.
    first_line: Vec<usize>,
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

impl<'a> Batch<'a> {
    pub fn new(dir: &Path, jobs: &'a [Job<'a>]) -> Result<Batch<'a>, String> {
        let cycles = jobs.iter().map(|j| j.stim.cycles()).max().unwrap_or(1);
        let mut all = String::new();
        let mut first_line = Vec::new();
        let mut tb = Vec::new();
        for (slot, job) in jobs.iter().enumerate() {
            first_line.push(all.lines().count() + 1);
            all.push_str(&job.dut.verilog);
            let (stim_width, pins) = pins(slot, job.dut);
            let stim_file = dir.join(format!("stim_{slot}.hex"));
            write(&stim_file, &stim_hex(job.stim, stim_width, cycles))?;
            tb.push(TbCircuit {
                slot,
                module: job.dut.module.clone(),
                stim_width,
                stim_file: stim_file.display().to_string(),
                pins,
                out_widths: job.dut.outputs.iter().map(|o| o.1).collect(),
                state: job.dut.state.clone(),
            });
        }
        write(&dir.join("circuits.v"), &all)?;
        Ok(Batch {
            dir: dir.to_path_buf(),
            jobs,
            cycles,
            tb,
            first_line,
        })
    }

    /// Which circuit a line of `circuits.v` belongs to.
    fn owner(&self, line: usize) -> usize {
        self.first_line
            .partition_point(|&l| l <= line)
            .saturating_sub(1)
    }

    /// `verilator --lint-only -Wall` and Yosys `check -assert` over all circuits; an error
    /// names the circuits (by slot) and quotes the offending lines.
    pub fn lint(&self) -> Result<(), Vec<(usize, String)>> {
        let file = self.dir.join("circuits.v");
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let mut problems: Vec<(usize, String)> = Vec::new();
        // Several tops in one file are the batching, not the emitter: MULTITOP is off.
        let out = Command::new("verilator")
            .args(["--lint-only", "-Wall", "-Wno-MULTITOP"])
            .arg(&file)
            .output();
        match out {
            Ok(o) => {
                let msg = String::from_utf8_lossy(&o.stderr).to_string();
                // Every message but Verilator's closing count of them.
                let messages = msg
                    .lines()
                    .filter(|l| l.starts_with('%') && !l.starts_with("%Error: Exiting due to"));
                for l in messages {
                    let line = l
                        .split(':')
                        .nth(2)
                        .and_then(|n| n.trim().parse::<usize>().ok());
                    let (slot, quote) = match line {
                        Some(n) => (self.owner(n), lines.get(n - 1).copied().unwrap_or("")),
                        None => (0, ""),
                    };
                    problems.push((slot, format!("{l}\n    | {}", quote.trim())));
                }
                if !o.status.success() && problems.is_empty() {
                    problems.push((0, format!("verilator --lint-only failed:\n{msg}")));
                }
            }
            Err(e) => problems.push((0, format!("cannot run verilator: {e}"))),
        }
        let script = format!(
            "read_verilog {}; hierarchy -check; proc; check -assert",
            file.display()
        );
        match Command::new("yosys").args(["-q", "-p", &script]).output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                let msg = format!(
                    "{}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
                let slot = self.slot_named_in(&msg);
                problems.push((slot, format!("yosys check failed:\n{msg}")));
            }
            Err(e) => problems.push((0, format!("cannot run yosys: {e}"))),
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// The circuit whose top or submodule Yosys names in `msg`, if any.
    fn slot_named_in(&self, msg: &str) -> usize {
        self.jobs
            .iter()
            .position(|j| {
                let prefix = j.dut.module.trim_end_matches("_top");
                msg.contains(&format!("{prefix}_"))
            })
            .unwrap_or(0)
    }

    fn testbench(&self, kind: SimKind) -> Result<(PathBuf, PathBuf), String> {
        let out = self.dir.join(format!("out_{kind}.txt"));
        let tb = Testbench {
            circuits: &self.tb,
            cycles: self.cycles,
            out_file: &out.display().to_string(),
        };
        let path = self.dir.join(format!("tb_{kind}.v"));
        write(&path, &tb.render().map_err(|e| e.to_string())?)?;
        Ok((path, out))
    }

    /// Runs all circuits in Icarus or Verilator; one trace (or error) per job.
    pub fn run(&self, kind: SimKind) -> Result<Vec<Result<Trace, String>>, String> {
        let (tb, out) = self.testbench(kind)?;
        let circuits = self.dir.join("circuits.v");
        match kind {
            SimKind::Icarus => {
                let vvp = self.dir.join("tb.vvp");
                run(Command::new("iverilog")
                    .args(["-g2005", "-s", "fuzz_tb", "-o"])
                    .args([&vvp, &tb, &circuits]))?;
                run(Command::new("vvp").arg("-n").arg(&vvp))?;
            }
            SimKind::Verilator => {
                let mdir = self.dir.join("obj_verilator");
                // The model runs 200 cycles once: compile time matters, not speed.
                run(Command::new("verilator")
                    .args([
                        "--binary",
                        "--timing",
                        "-Wno-fatal",
                        "-Wno-lint",
                        "-Wno-style",
                    ])
                    .args(["--top-module", "fuzz_tb", "-o", "fuzz_tb", "-j", "1"])
                    .args(["-MAKEFLAGS", "OPT_FAST=-O0 OPT_SLOW=-O0 OPT_GLOBAL=-O0"])
                    .arg("-Mdir")
                    .args([&mdir, &tb, &circuits]))?;
                run(&mut Command::new(mdir.join("fuzz_tb")))?;
            }
            SimKind::Ir | SimKind::VerilatorLib => {
                unreachable!("{kind} runs in process, without a testbench")
            }
        }
        let text = std::fs::read_to_string(&out)
            .map_err(|e| format!("{kind}: no output {}: {e}", out.display()))?;
        let traces = parse(&text, self.jobs).map_err(|e| format!("{kind}: {e}"))?;
        Ok(traces
            .into_iter()
            .map(|t| t.map_err(|e| format!("{kind}: {e}")))
            .collect())
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let o = cmd
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if o.status.success() {
        return Ok(());
    }
    let tail = |b: &[u8]| {
        let s = String::from_utf8_lossy(b);
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    };
    Err(format!(
        "{cmd:?} failed ({}):\n{}\n{}",
        o.status,
        tail(&o.stdout),
        tail(&o.stderr)
    ))
}

/// Testbench pins; the stimulus vector has `reset` in bit 0 and the inputs above it.
fn pins(slot: usize, dut: &Dut) -> (u32, Vec<String>) {
    let mut pins = Vec::new();
    if dut.clocked {
        pins.push(".clock(clock)".to_string());
        pins.push(format!(".reset(cur_{slot}[0])"));
    }
    let mut lo = 1;
    for (name, w) in &dut.inputs {
        pins.push(format!(".{name}(cur_{slot}[{}:{lo}])", lo + w - 1));
        lo += w;
    }
    for (k, (name, _)) in dut.outputs.iter().enumerate() {
        pins.push(format!(".{name}(out_{slot}_{k})"));
    }
    (lo, pins)
}

/// One hex line per cycle; cycles past the stimulus (shorter circuits in a batch) are 0.
fn stim_hex(stim: &Stimulus, width: u32, cycles: usize) -> String {
    let mut s = String::new();
    for cyc in 0..cycles {
        let mut words = vec![0u64; hdl::bits::words_for(width)];
        if cyc < stim.cycles() {
            let mut set = |bit: u32| words[(bit / 64) as usize] |= 1 << (bit % 64);
            if stim.reset[cyc] {
                set(0);
            }
            let mut lo = 1;
            for values in &stim.inputs {
                let v = &values[cyc];
                for i in 0..v.width() {
                    if v.bit(i) {
                        set(lo + i);
                    }
                }
                lo += v.width();
            }
        }
        s.push_str(&Bits::from_words(width, &words).to_hex());
        s.push('\n');
    }
    s
}

/// An output with X or Z bits: one bit wider than the port, so that it differs from every
/// value a two-state simulator can produce and shows up (and minimizes) as a mismatch.
pub fn unknown(width: u32) -> Bits {
    Bits::ones(width + 1)
}

/// How a sampled value of a `width`-bit port reads in a reproducer.
pub fn show(v: &Bits, width: u32) -> String {
    if v.width() == width {
        v.to_string()
    } else {
        format!("{width}'hx")
    }
}

/// Per job its trace, or why it has none (garbled output or missing cycles).
fn parse(text: &str, jobs: &[Job]) -> Result<Vec<Result<Trace, String>>, String> {
    let mut traces: Vec<Result<Trace, String>> = vec![Ok(Vec::new()); jobs.len()];
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let slot: usize = fields
            .next()
            .and_then(|f| f.parse().ok())
            .filter(|&s| s < jobs.len())
            .ok_or_else(|| format!("bad output line `{line}`"))?;
        let Ok(trace) = &mut traces[slot] else {
            continue;
        };
        let cycle = trace.len();
        let sample = jobs[slot]
            .dut
            .outputs
            .iter()
            .map(|(name, w)| {
                let f = fields.next().unwrap_or("");
                let four_state =
                    !f.is_empty() && f.chars().all(|c| "0123456789abcdefxzXZ".contains(c));
                match Bits::from_hex(*w, f) {
                    Some(b) => Ok(b),
                    None if four_state => Ok(unknown(*w)),
                    None => Err(format!(
                        "{name} is `{f}` in cycle {cycle} of {}",
                        jobs[slot].dut.module
                    )),
                }
            })
            .collect::<Result<Vec<Bits>, String>>();
        match sample {
            Ok(s) => trace.push(s),
            Err(e) => traces[slot] = Err(e),
        }
    }
    for (t, j) in traces.iter_mut().zip(jobs) {
        if let Ok(tr) = t {
            if tr.len() < j.stim.cycles() {
                *t = Err(format!("only {} of {} cycles", tr.len(), j.stim.cycles()));
            }
        }
    }
    Ok(traces)
}
