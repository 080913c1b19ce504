//! The lockstep checker against a real program: a small hdl "trace replayer" replays the
//! ISS's own commit records on a trace port in the IR simulator. Replayed faithfully it
//! passes the whole program; with one bit of one record's value flipped it is stopped at
//! exactly that record with the exact report. Also: the ISS's single-step API gives the
//! same commit stream as its `run`, and hangs and extra commits are reported.

use hdl::ir::addr_width;
use hdl::sim::Sim;
use hdl::{Bits, Design, Dir, MemStyle, ModuleBuilder};
use verification::elf::{self, Program};
use verification::iss::{Iss, IssConfig, Step, Stop};
use verification::tb::lockstep::{
    trace_shape, CommitRecord, Field, GoldenModel, IssGolden, Lockstep, LockstepError, Matched,
    Mismatch, TracePort, HISTORY,
};
use verification::tb::Simulator;
use verification::toolchain::{build_elf, BuildOptions, Kind};
use verification::verilator::{Model, Options};

/// Sums i*i for i in 1..=20 with stores of every size and a load-back check, so the
/// trace has register writes, partial-doubleword stores and taken branches.
const PROGRAM: &str = r#"
#include "isa_test.h"

TEST_BEGIN
  la s0, buf
  li s1, 0
  li s2, 1
loop:
  mul t0, s2, s2
  add s1, s1, t0
  sd s1, 0(s0)
  sw s2, 8(s0)
  sh t0, 12(s0)
  sb s2, 14(s0)
  ld t1, 0(s0)
  bne t1, s1, fail
  addi s0, s0, 16
  addi s2, s2, 1
  li t2, 21
  blt s2, t2, loop
  li TESTNUM, 1
  CHECK(s1, 2870)
TEST_END

  .align 4
buf: .zero 512
"#;

/// Bound on ISS steps; the program needs a few hundred.
const MAX_STEPS: u64 = 100_000;

fn build(dir: &std::path::Path, name: &str, source: &str) -> Program {
    let src = dir.join(format!("{name}.S"));
    std::fs::write(&src, source).unwrap();
    let elf = build_elf(
        &[src],
        &dir.join(format!("{name}.elf")),
        &BuildOptions::new(Kind::BareAsm),
    )
    .unwrap();
    elf::load_file(&elf).unwrap()
}

fn golden(program: &Program) -> IssGolden {
    IssGolden::new(program, IssConfig::default(), MAX_STEPS).unwrap()
}

/// The program's whole commit stream, from the ISS.
fn records(program: &Program) -> Vec<CommitRecord> {
    let mut g = golden(program);
    let mut out = Vec::new();
    while let Some(r) = g.next_record().unwrap() {
        out.push(r);
    }
    assert_eq!(g.exit_code(), Some(0), "the program checks itself");
    out
}

/// Record layout in the replayer's memory, least significant field first.
const LAYOUT: [u32; 7] = [8, 64, 64, 64, 5, 32, 64]; // mask, data, addr, value, rd, insn, pc
const RECORD_BITS: u32 = 301;

fn pack(r: &CommitRecord) -> Bits {
    let fields = [
        r.mem_mask as u64,
        r.mem_data,
        r.mem_addr,
        r.value,
        r.rd as u64,
        r.insn as u64,
        r.pc,
    ];
    let mut words = [0u64; 5];
    let mut at = 0;
    for (v, w) in fields.into_iter().zip(LAYOUT) {
        words[at / 64] |= v << (at % 64);
        if at % 64 + w as usize > 64 {
            words[at / 64 + 1] |= v >> (64 - at % 64);
        }
        at += w as usize;
    }
    Bits::from_words(RECORD_BITS, &words)
}

/// Replays up to `len` records from a memory loaded through `load_*`, starting the cycle
/// after `start`, with a bubble every fourth cycle (so record and cycle numbers differ).
/// `flip` = (record, bit) inverts that bit of that record's value on the way out.
fn replayer(depth: u64, flip: Option<(u64, u32)>) -> Design {
    let mut m = ModuleBuilder::new("TraceReplayer");
    let aw = addr_width(depth);
    let load_en = m.input("load_en", 1);
    let load_addr = m.input("load_addr", aw);
    let load_data = m.input("load_data", RECORD_BITS);
    let len = m.input("len", 32);
    let start = m.input("start", 1);
    let trace = m.io("trace", Dir::Out, &trace_shape());
    let mem = m.mem("records", depth, RECORD_BITS, MemStyle::Inferred);
    m.when(&load_en, |m| m.write(&mem, &load_addr, &load_data));
    let running = m.reg("running", 1, 0u64);
    let idx = m.reg("idx", 32, 0u64);
    let phase = m.reg("phase", 2, 0u64);
    m.when(&start, |m| {
        let one = m.lit(1, 1);
        m.connect(&running, &one);
    });
    let three = m.lit(3, 2);
    let valid = &(&running & &idx.lt(&len)) & &!phase.eq(&three);
    let one2 = m.lit(1, 2);
    m.when(&running, |m| m.connect(&phase, &(&phase + &one2)));
    let one32 = m.lit(1, 32);
    m.when(&valid, |m| m.connect(&idx, &(&idx + &one32)));
    let rec = m.read(&mem, &idx.trunc(aw));
    let mut lo = 0;
    let mut field = |w: u32| {
        let v = rec.slice(lo + w - 1, lo);
        lo += w;
        v
    };
    let [mask, data, addr, value, rd, insn, pc] = LAYOUT.map(&mut field);
    let value = match flip {
        Some((record, bit)) => {
            let at = m.lit(record, 32);
            let bit = m.lit(1 << bit, 64);
            let zero = m.lit(0, 64);
            &value ^ &idx.eq(&at).mux(&bit, &zero)
        }
        None => value,
    };
    let bits = trace.bits();
    m.connect(trace.valid(), &valid);
    for (name, v) in [
        ("pc", pc),
        ("insn", insn),
        ("rd", rd),
        ("value", value),
        ("mem_addr", addr),
        ("mem_data", data),
        ("mem_mask", mask),
    ] {
        m.connect(bits.get(name).value(), &v);
    }
    Design::new(&m.finish().unwrap())
}

/// Resets the replayer, loads `recs`, and starts it playing `len` records; returns the
/// simulator and the cycle in which record 0 appears.
fn start_replay(design: &Design, recs: &[CommitRecord], len: u64) -> (Sim, u64) {
    start_replay_on(Sim::new(design), recs, len)
}

/// `start_replay` on any simulator of the replayer.
fn start_replay_on<S: Simulator>(mut sim: S, recs: &[CommitRecord], len: u64) -> (S, u64) {
    sim.poke_u64("reset", 1).unwrap();
    sim.step();
    sim.poke_u64("reset", 0).unwrap();
    sim.poke_u64("load_en", 1).unwrap();
    for (i, r) in recs.iter().enumerate() {
        sim.poke_u64("load_addr", i as u64).unwrap();
        sim.poke("load_data", &pack(r)).unwrap();
        sim.step();
    }
    sim.poke_u64("load_en", 0).unwrap();
    sim.poke_u64("len", len).unwrap();
    sim.poke_u64("start", 1).unwrap();
    sim.step();
    sim.poke_u64("start", 0).unwrap();
    let first = sim.cycle();
    (sim, first)
}

/// The cycle record `k` appears in: one bubble every fourth cycle.
fn cycle_of(first: u64, k: u64) -> u64 {
    first + k + k / 3
}

/// The record the broken replayer corrupts: the 12th `add s1, s1, t0` (x9), deep
/// enough into the program for a full history.
fn flipped_record(recs: &[CommitRecord]) -> usize {
    recs.iter()
        .enumerate()
        .filter(|(_, r)| r.rd == 9 && r.insn == 0x0054_84b3)
        .nth(11)
        .unwrap()
        .0
}

/// Runs the checker until the golden model's program ends or it reports an error.
fn run<S: Simulator>(
    sim: &mut S,
    checker: &mut Lockstep<IssGolden>,
    max_cycles: u64,
) -> Result<(), LockstepError> {
    for _ in 0..max_cycles {
        if checker.finished()? {
            return Ok(());
        }
        checker.check_cycle(sim)?;
        sim.step();
    }
    panic!("no verdict in {max_cycles} cycles");
}

#[test]
fn faithful_replay_passes_and_a_flipped_bit_is_caught_at_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let program = build(dir.path(), "squares", PROGRAM);
    let recs = records(&program);
    let n = recs.len() as u64;
    assert!((250..400).contains(&n), "{n} records");
    let last = recs.last().unwrap();
    assert_eq!(
        (last.mem_addr, last.mem_data, last.mem_mask),
        (program.tohost, 1, 0xff),
        "the stream ends with the exit request"
    );
    let depth = n.next_power_of_two();
    let port = TracePort::new("trace");

    let (mut sim, first) = start_replay(&replayer(depth, None), &recs, n);
    let mut checker = Lockstep::new(golden(&program), port.clone()).unwrap();
    run(&mut sim, &mut checker, 2 * n).unwrap();
    assert_eq!(checker.matched(), n);
    assert_eq!(checker.golden().exit_code(), Some(0));
    assert_eq!(sim.cycle(), cycle_of(first, n - 1) + 1);

    // Break the design: bit 3 of one record's value.
    let k = flipped_record(&recs);
    assert!(k > HISTORY);
    let (mut sim, first) = start_replay(&replayer(depth, Some((k as u64, 3))), &recs, n);
    let mut checker = Lockstep::new(golden(&program), port).unwrap();
    let Err(LockstepError::Divergence(d)) = run(&mut sim, &mut checker, 2 * n) else {
        panic!("the flipped bit went unnoticed");
    };
    let expected = recs[k];
    let actual = CommitRecord {
        value: expected.value ^ 8,
        ..expected
    };
    assert_eq!(d.index, k as u64);
    assert_eq!(d.cycle, cycle_of(first, k as u64));
    assert_eq!((d.expected, d.actual), (expected, actual));
    assert_eq!(
        d.mismatches,
        vec![Mismatch {
            field: Field::Value,
            expected: expected.value,
            actual: expected.value ^ 8,
        }]
    );
    let history: Vec<Matched> = (k - HISTORY..k)
        .map(|i| Matched {
            index: i as u64,
            cycle: cycle_of(first, i as u64),
            record: recs[i],
        })
        .collect();
    assert_eq!(d.history, history);
    assert_eq!(checker.matched(), k as u64);

    // The report, as printed.
    let text = LockstepError::Divergence(d.clone()).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "lockstep divergence at cycle {}, record {k}: pc {:#018x} insn 0x005484b3",
            d.cycle, expected.pc
        )
    );
    assert_eq!(
        lines[2],
        format!(
            "  value     {:<#20x} {:#x}",
            expected.value,
            expected.value ^ 8
        )
    );
    assert_eq!(
        lines[4],
        format!(
            "  actual:   pc {:#018x} insn 0x005484b3 x9={:#x}",
            expected.pc,
            expected.value ^ 8
        )
    );
    assert_eq!(lines[5], "last 32 matching records (oldest first):");
    assert_eq!(
        lines[6],
        format!(
            "  #{} cycle {}: {}",
            k - HISTORY,
            history[0].cycle,
            recs[k - HISTORY]
        )
    );
    assert_eq!(lines.len(), 6 + HISTORY);
}

#[test]
fn a_stalled_design_and_an_extra_commit_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let program = build(dir.path(), "squares", PROGRAM);
    let recs = records(&program);
    let n = recs.len() as u64;
    let design = replayer((n + 1).next_power_of_two(), None);
    let port = TracePort::new("trace");

    // One record short: the design goes quiet while the golden model waits for the last.
    let (mut sim, first) = start_replay(&design, &recs, n - 1);
    let mut checker = Lockstep::new(golden(&program), port.clone())
        .unwrap()
        .with_max_idle(20);
    let err = run(&mut sim, &mut checker, 2 * n).unwrap_err();
    let LockstepError::Hang {
        cycle,
        idle,
        index,
        expected,
    } = err
    else {
        panic!("expected a hang, got {err}");
    };
    assert_eq!((idle, index, expected), (21, n - 1, recs[n as usize - 1]));
    assert_eq!(cycle, cycle_of(first, n - 2) + 21);

    // One record too many: a copy of the last one.
    let mut more = recs.clone();
    more.push(*recs.last().unwrap());
    let (mut sim, first) = start_replay(&design, &more, n + 1);
    let mut checker = Lockstep::new(golden(&program), port).unwrap();
    run(&mut sim, &mut checker, 2 * n).unwrap();
    // The program has ended; the design's next commit is one too many.
    while sim.peek_u64("trace_valid").unwrap() == 0 {
        checker.check_cycle(&mut sim).unwrap();
        sim.step();
    }
    let err = checker.check_cycle(&mut sim).unwrap_err();
    assert!(
        matches!(err, LockstepError::Extra { cycle, index, actual }
            if cycle == cycle_of(first, n) && index == n && actual == more[n as usize]),
        "{err}"
    );
}

#[test]
fn a_misdeclared_trace_port_is_reported_by_name() {
    let mut m = ModuleBuilder::new("Narrow");
    let valid = m.output("trace_valid", 1);
    let zero = m.lit(0, 1);
    m.connect(&valid, &zero);
    for (name, w) in [
        ("pc", 32),
        ("insn", 32),
        ("rd", 5),
        ("value", 64),
        ("mem_addr", 64),
        ("mem_data", 64),
        ("mem_mask", 8),
    ] {
        let out = m.output(&format!("trace_bits_{name}"), w);
        let z = m.lit(0, w);
        m.connect(&out, &z);
    }
    let mut sim = Sim::new(&Design::new(&m.finish().unwrap()));
    let dir = tempfile::tempdir().unwrap();
    let program = build(dir.path(), "squares", PROGRAM);
    let mut checker = Lockstep::new(golden(&program), TracePort::new("trace")).unwrap();
    let err = checker.check_cycle(&mut sim).unwrap_err();
    assert_eq!(
        err.to_string(),
        "trace port `trace_bits_pc` is 32 bits, expected 64"
    );
}

/// Constrained-random programs (traps, LR/SC, timer reads) across several chunks: the
/// single-step API must reproduce `run`'s commit log and exit code exactly, and the
/// golden model's stream is that log up to the exit request.
#[test]
fn single_stepping_matches_run() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..4 {
        let program = build(
            dir.path(),
            &format!("random{seed}"),
            &verification::randgen::generate(seed, 8000),
        );
        let quiet = || IssConfig {
            stdout: Box::new(std::io::sink()),
            stderr: Box::new(std::io::sink()),
            ..IssConfig::default()
        };
        let mut log = Vec::new();
        let mut iss = Iss::new(&program, quiet()).unwrap();
        let Stop::Exit(code) = iss.run(Some(MAX_STEPS), Some(&mut log)).unwrap() else {
            panic!("seed {seed}: no exit");
        };

        let mut stepped = Vec::new();
        let mut commits = Vec::new();
        let mut iss = Iss::new(&program, quiet()).unwrap();
        let widths = iss.log_widths();
        let mut traps = 0;
        let stepped_code = loop {
            match iss.step_one().unwrap() {
                Step::Retired(c) => {
                    c.write_line(&mut stepped, widths).unwrap();
                    commits.push(c);
                }
                Step::Trapped { .. } => traps += 1,
                Step::Exited(code) => break code,
                Step::Launch(_) => unreachable!("RV64 programs launch nothing"),
            }
        };
        assert_eq!(stepped_code, code, "seed {seed}");
        assert!(stepped == log, "seed {seed}: commit logs differ");
        assert!(
            commits.len() > 5000 && traps > 0,
            "seed {seed}: covers chunks and traps"
        );

        let recs = {
            let mut g = IssGolden::new(&program, quiet(), MAX_STEPS).unwrap();
            let mut v = Vec::new();
            while let Some(r) = g.next_record().unwrap() {
                v.push(r);
            }
            assert_eq!(g.exit_code(), Some(code), "seed {seed}");
            v
        };
        let prefix: Vec<CommitRecord> = commits[..recs.len()]
            .iter()
            .map(CommitRecord::from_commit)
            .collect();
        assert_eq!(recs, prefix, "seed {seed}");
        assert_eq!(recs.last().unwrap().mem_addr, program.tohost & !7);
    }
}

#[test]
fn a_program_that_never_exits_hits_the_step_limit() {
    let dir = tempfile::tempdir().unwrap();
    let program = build(
        dir.path(),
        "spin",
        ".globl _start\n_start: j _start\n.section .tohost, \"aw\"\n.globl tohost\ntohost: .dword 0\n",
    );
    let mut g = IssGolden::new(&program, IssConfig::default(), 1000).unwrap();
    let err = (0..2000)
        .find_map(|_| g.next_record().err())
        .expect("the step limit");
    assert_eq!(err.to_string(), "the program did not end within 1000 steps");
}

/// The broken replayer's Verilog in a Verilator model: the checker stops it at the same
/// record, in the same cycle, with the same report as in the IR simulator.
#[test]
fn a_verilator_model_of_the_broken_replayer_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let program = build(dir.path(), "squares", PROGRAM);
    let recs = records(&program);
    let n = recs.len() as u64;
    let k = flipped_record(&recs);
    let design = replayer(n.next_power_of_two(), Some((k as u64, 63)));
    let divergence = |result: Result<(), LockstepError>| match result {
        Err(LockstepError::Divergence(d)) => d,
        other => panic!("expected a divergence, got {other:?}"),
    };
    let port = TracePort::new("trace");

    let (mut sim, _) = start_replay(&design, &recs, n);
    let mut checker = Lockstep::new(golden(&program), port.clone()).unwrap();
    let expected = divergence(run(&mut sim, &mut checker, 2 * n));
    assert_eq!((expected.index, expected.mismatches.len()), (k as u64, 1));

    let model = Model::of_design(&design, &Options::default()).expect("model builds");
    let (mut model, _) = start_replay_on(model, &recs, n);
    let mut checker = Lockstep::new(golden(&program), port).unwrap();
    let got = divergence(run(&mut model, &mut checker, 2 * n));
    assert_eq!(got, expected);
}
