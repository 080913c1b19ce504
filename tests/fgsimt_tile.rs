//! Design `fgsimt`'s tile and bench (seed 000, Figure 3; docs/fgsimt-engine.md, "System"
//! and "Lockstep"):
//! - host-only RV32IMAF programs (`tests/fgsimt_cases/host.c`: a checksum, a sort, float
//!   arithmetic, stores of every size across D$ lines and banks then loads, amoadd and
//!   LR/SC, exit codes 0 and 3) run by `accelgen sim fgsimt --lockstep` at memory latency
//!   1 and 20 with jitter and stalls: every CP commit matches the ISS, memory after the
//!   D$ flush equals the ISS's, the exit code is `accelgen iss`'s;
//! - the kernel checker (`tb::kernel_check`) without an engine: the SIMT model's own
//!   commits as traces, shuffled in a legal order (AMOs of one warp instruction returned
//!   in another order), pass, also with the warps of several contexts interleaved; each
//!   corruption is caught with a message naming it; with the engine's own groups
//!   (`KernelShape::followed`, for a DWS sequencer) the DWS model's order passes;
//! - `sim fgsimt`'s errors: a bad parameter, an RV64 ELF, a missing file.
//!
//! One Verilator model (2 lanes, warp 8, 8 KiB D$ in 2 banks, 4 KiB I$), shared by the
//! runs through the model cache.

mod cli_run;

use cli_run::{accelgen, explain, s, Run, FGSIMT_TILE};
use std::path::{Path, PathBuf};
use verification::elf::{self, Program};
use verification::fgsimt::affine::asrf::Class;
use verification::fgsimt::affine::Mechanisms;
use verification::fgsimt::program::host;
use verification::fgsimt::warp::{launch_warps, KernelRun, SimtError, WarpCommit};
use verification::iss::commitlog::Commit;
use verification::iss::simt::Launch;
use verification::iss::{Iss, IssConfig, IssError, Step};
use verification::rng::Rng;
use verification::tb::kernel_check::{
    FaultRecord, FetchRecord, KernelChecker, KernelError, KernelShape, WriteRecord,
};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds `source` with `accelgen asm --target simt` and `defines` into `dir`.
fn build(dir: &Path, source: &Path, defines: &[&str]) -> PathBuf {
    let stem = source.file_stem().unwrap().to_string_lossy();
    let elf = dir.join(format!("{stem}{}.elf", defines.join("_")));
    let mut args = vec!["asm", "--target", "simt"];
    for d in defines {
        args.extend(["-D", d]);
    }
    args.extend([s(source), "-o", s(&elf)]);
    let run = accelgen(&args);
    assert_eq!(run.code, 0, "{}", explain("accelgen asm", &run));
    elf
}

fn case(dir: &Path, file: &str, defines: &[&str]) -> PathBuf {
    build(dir, &root().join("tests/fgsimt_cases").join(file), defines)
}

fn sim(elf: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["sim", "fgsimt", "--program", s(elf)];
    for t in FGSIMT_TILE {
        args.extend(["--set", t]);
    }
    args.extend_from_slice(extra);
    accelgen(&args)
}

// ------------------------------------------------------------------ host programs

#[test]
fn host_programs_run_in_lockstep_with_the_iss() {
    let dir = tempfile::tempdir().unwrap();
    for (defines, code) in [(&[][..], 0), (&["EXIT=3"][..], 3)] {
        let elf = case(dir.path(), "host.c", defines);
        assert_eq!(accelgen(&["iss", s(&elf)]).code, code);
        let timings: &[&[&str]] = if code == 0 {
            &[
                &["--latency", "1"],
                &[
                    "--latency",
                    "20",
                    "--jitter",
                    "7",
                    "--stall-percent",
                    "25",
                    "--seed",
                    "3",
                ],
            ]
        } else {
            &[&["--latency", "1"]]
        };
        for timing in timings {
            let mut args = vec!["--lockstep"];
            args.extend_from_slice(timing);
            let run = sim(&elf, &args);
            let what = format!("{defines:?} {timing:?}");
            assert_eq!(run.code, code, "{}", explain(&what, &run));
            assert!(
                run.stderr.contains("CP commits matched the ISS"),
                "{}",
                run.stderr
            );
            assert!(
                run.stderr.contains("Table 3: active threads"),
                "{}",
                run.stderr
            );
        }
    }
}

#[test]
fn sim_fgsimt_refuses_bad_input_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.elf");
    let run = sim(&missing, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("missing.elf"), "{}", run.stderr);

    let src = dir.path().join("rv64.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let rv64 = dir.path().join("rv64.elf");
    let run = accelgen(&["asm", s(&src), "-o", s(&rv64)]);
    assert_eq!(run.code, 0, "{}", explain("asm rv64", &run));
    let run = sim(&rv64, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let want = "an RV64 program for a design with xlen = 32";
    assert!(run.stderr.contains(want), "{}", run.stderr);

    let elf = case(dir.path(), "host.c", &[]);
    let run = sim(&elf, &["--set", "lanes=3"]);
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("lanes"), "{}", run.stderr);
    for bad in ["dcache_ways=32", "dcache_mshrs=17", "dcache_mshr_targets=0"] {
        let run = sim(&elf, &["--set", bad]);
        assert_ne!(run.code, 0, "{}", run.stderr);
        let name = bad.split('=').next().unwrap();
        assert!(run.stderr.contains(name), "{}", run.stderr);
    }
    let tiny = ["dcache_bytes=1024", "dcache_banks=32", "dcache_ways=2"];
    let run = sim(&elf, &tiny.map(|v| ["--set", v]).concat());
    assert_ne!(run.code, 0, "{}", run.stderr);
    let want = "1 lines a bank, fewer than 2 ways";
    assert!(run.stderr.contains(want), "{}", run.stderr);
    let run = sim(&elf, &["--latency", "x"]);
    assert_eq!(run.code, 2, "{}", explain("bad flag", &run));
}

// ------------------------------------------------------------------ the kernel checker

const SHAPE: KernelShape = KernelShape {
    lanes: 2,
    warp_size: 8,
    mech: Mechanisms {
        arith: false,
        branches: false,
        loads: false,
        private: false,
    },
    contexts: 1,
    followed: false,
};

/// [`SHAPE`] with four warp contexts.
const SHAPE4: KernelShape = KernelShape {
    contexts: 4,
    ..SHAPE
};

/// The host of `elf` on the ISS, run to its first launch.
fn at_launch(program: &Program) -> (Iss, Launch) {
    let config = IssConfig {
        stdout: Box::new(std::io::sink()),
        stderr: Box::new(std::io::sink()),
        ..IssConfig::default()
    };
    let mut iss = host(program, config).unwrap();
    loop {
        if let Step::Launch(l) = iss.step_one().unwrap() {
            return (iss, l);
        }
    }
}

/// What an engine shows the bench: a warp instruction, or an SRF write.
#[derive(Debug, Clone, Copy)]
enum Event {
    Insn(FetchRecord),
    Write(WriteRecord),
}

/// The model's warp instructions of the first launch (on an ISS of its own) and its
/// trap, if it has one.
fn model_commits(program: &Program) -> (Vec<WarpCommit>, Option<FaultRecord>) {
    let (mut iss, launch) = at_launch(program);
    let mut run = KernelRun::new(&iss, launch, SHAPE.warp_size, SHAPE.mech);
    let mut commits = Vec::new();
    loop {
        match run.step(&mut iss) {
            Ok(Some(c)) => commits.push(c),
            Ok(None) => return (commits, None),
            Err(SimtError::Iss(IssError::KernelTrap {
                tid,
                pc,
                cause,
                tval,
                ..
            })) => {
                let f = FaultRecord {
                    cause,
                    pc,
                    thread: tid,
                    tval,
                };
                return (commits, Some(f));
            }
            Err(e) => panic!("{e}"),
        }
    }
}

/// The model's warp instructions of the first launch with `contexts` warps resident,
/// interleaved at random: each warp its own run ([`KernelRun::for_warp`], the source of
/// truth) on one ISS, warps taking the free contexts in index order and a random
/// resident warp stepping next.
fn interleaved_commits(program: &Program, contexts: usize, seed: u64) -> Vec<WarpCommit> {
    let (mut iss, launch) = at_launch(program);
    let warps = launch_warps(launch, SHAPE.warp_size);
    let mut rng = Rng::new(seed);
    let (mut resident, mut next, mut out) = (Vec::new(), 0, Vec::new());
    loop {
        while resident.len() < contexts && next < warps {
            let run = KernelRun::for_warp(&iss, launch, SHAPE.warp_size, SHAPE.mech, next);
            resident.push(run);
            next += 1;
        }
        if resident.is_empty() {
            return out;
        }
        let i = rng.below(resident.len() as u64) as usize;
        match resident[i].step(&mut iss).unwrap() {
            Some(c) => out.push(c),
            None => {
                resident.remove(i);
            }
        }
    }
}

/// `c`'s SRF writes as the engine would show them: thread i of the warp in lane i mod
/// lanes, slot i / lanes. AMO results in `amo_order` (thread order reversed when set).
fn writes_of(c: &WarpCommit, reverse_amos: bool) -> Vec<WriteRecord> {
    let tids: Vec<u32> = (0..32).filter(|i| c.mask >> i & 1 != 0).collect();
    let mut olds: Vec<Option<u64>> = c.threads.iter().map(|t| t.xreg.map(|x| x.1)).collect();
    let amoadd = c.insn & 0x7f == 0x2f && c.insn >> 27 == 0;
    if amoadd && reverse_amos {
        olds = reorder_amoadds(c);
    }
    let mut out = Vec::new();
    for ((&i, t), old) in tids.iter().zip(&c.threads).zip(olds) {
        out.extend(thread_writes(c.warp, i, t, old));
    }
    out
}

/// Thread `i` of warp `warp`'s SRF writes for its commit `t` (its x register's value
/// `old` where given: an AMO's, reordered), in lane i mod lanes, slot i / lanes.
fn thread_writes(warp: u32, i: u32, t: &Commit, old: Option<u64>) -> Vec<WriteRecord> {
    let (lane, slot) = (i % SHAPE.lanes, i / SHAPE.lanes);
    let x = t.xreg.map(|(r, v)| (r, old.unwrap_or(v)));
    let f = t.freg.map(|(r, v)| (r + 32, v));
    (x.into_iter().chain(f))
        .map(|(reg, v)| WriteRecord {
            warp,
            lane,
            port: if reg >= 32 { 1 } else { 0 },
            reg,
            slot,
            data: v as u32,
        })
        .collect()
}

/// The old values of `c`'s amoadds (to any addresses) performed in reverse thread order.
fn reorder_amoadds(c: &WarpCommit) -> Vec<Option<u64>> {
    let mut value: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    for t in &c.threads {
        let addr = t.load.unwrap();
        value.entry(addr).or_insert(t.xreg.map_or(0, |x| x.1));
    }
    let mut olds = vec![None; c.threads.len()];
    for (i, t) in c.threads.iter().enumerate().rev() {
        let addr = t.load.unwrap();
        let src = (t.store.unwrap().1 as u32).wrapping_sub(t.xreg.unwrap().1 as u32);
        let v = value[&addr];
        olds[i] = Some(v);
        value.insert(addr, (v as u32).wrapping_add(src) as u64);
    }
    olds
}

/// `c` as the front end commits it.
fn fetch(c: &WarpCommit) -> FetchRecord {
    FetchRecord {
        warp: c.warp,
        pc: c.pc,
        insn: c.insn,
        mask: c.mask,
        cp: matches!(c.class, Class::Cp | Class::UniformBranch),
    }
}

/// The model's traces in a legal shuffled order: each warp instruction, then random
/// subsets of the writes pending (each drawn with `percent` chance; a thread's writes of
/// one register stay in order), every write pending before a warp's first instruction
/// (a context's next warp starts once the writes of the one before are done). At 100
/// percent each instruction's writes follow it.
fn shuffled(commits: &[WarpCommit], seed: u64, reverse_amos: bool, percent: u64) -> Vec<Event> {
    let mut rng = Rng::new(seed);
    let mut pending: Vec<WriteRecord> = Vec::new();
    let mut started = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    let drain = |pending: &mut Vec<WriteRecord>, out: &mut Vec<Event>, rng: &mut Rng, all| {
        while !pending.is_empty() && (all || rng.chance(percent)) {
            let i = rng.below(pending.len() as u64) as usize;
            let w = pending[i];
            let first = pending
                .iter()
                .position(|p| (p.warp, p.lane, p.slot, p.reg) == (w.warp, w.lane, w.slot, w.reg))
                .unwrap();
            out.push(Event::Write(pending.remove(first)));
        }
    };
    for c in commits {
        if started.insert(c.warp) {
            drain(&mut pending, &mut out, &mut rng, true);
        }
        out.push(Event::Insn(fetch(c)));
        pending.extend(writes_of(c, reverse_amos));
        drain(&mut pending, &mut out, &mut rng, false);
    }
    drain(&mut pending, &mut out, &mut rng, true);
    out
}

/// A checker of `program`'s first launch on an engine of `shape`, with the ISS it steps.
fn checker(program: &Program, shape: KernelShape) -> (Iss, KernelChecker) {
    let (iss, launch) = at_launch(program);
    (iss, KernelChecker::new(launch, shape))
}

/// Feeds `events` to a checker of `program`'s first launch on an engine of `shape`, then
/// ends the launch.
fn check(
    program: &Program,
    shape: KernelShape,
    events: &[Event],
) -> Result<KernelChecker, KernelError> {
    let (mut iss, mut k) = checker(program, shape);
    for e in events {
        match *e {
            Event::Insn(r) => k.insn(&mut iss, r)?,
            Event::Write(w) => k.write(w)?,
        }
    }
    k.finish(&mut iss)?;
    Ok(k)
}

fn load(elf: &Path) -> Program {
    elf::load_file(elf).unwrap()
}

/// The checker tests' programs, built in `dir`: diverge.c (divergent branches and loops,
/// 25 warps) and atomics.c (AMOs on shared words, 5 warps).
fn checker_programs(dir: &Path) -> (Program, Program) {
    let diverge = load(&build(dir, &root().join("tests/simt_cases/diverge.c"), &[]));
    (diverge, load(&case(dir, "atomics.c", &[])))
}

#[test]
fn the_checker_passes_the_models_own_traces_in_any_legal_order() {
    let dir = tempfile::tempdir().unwrap();
    let (diverge, atomics) = checker_programs(dir.path());
    for (name, program) in [("diverge", &diverge), ("atomics", &atomics)] {
        let (commits, trap) = model_commits(program);
        assert!(trap.is_none() && commits.len() > 50, "{name}");
        for seed in 0..3 {
            let events = shuffled(&commits, seed, seed == 2, 60);
            let k = check(program, SHAPE, &events)
                .unwrap_or_else(|e| panic!("{name} seed {seed}: {e}"));
            assert_eq!(k.insns, commits.len() as u64);
            assert!(k.writes_checked > 100, "{name}: {}", k.writes_checked);
        }
    }
}

/// Runs `events` changed by `corrupt` through the checker (of an engine of [`SHAPE`]);
/// the error's message.
fn caught(program: &Program, events: &[Event], corrupt: impl Fn(&mut Vec<Event>)) -> String {
    caught_on(program, SHAPE, events, corrupt)
}

/// [`caught`] on an engine of `shape`.
fn caught_on(
    program: &Program,
    shape: KernelShape,
    events: &[Event],
    corrupt: impl Fn(&mut Vec<Event>),
) -> String {
    let mut events = events.to_vec();
    corrupt(&mut events);
    match check(program, shape, &events) {
        Ok(_) => panic!("a corruption passed"),
        Err(e) => e.to_string(),
    }
}

fn nth_insn(events: &[Event], n: usize) -> usize {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Insn(_)))
        .nth(n)
        .unwrap()
        .0
}

fn nth_write(events: &[Event], n: usize, f: impl Fn(&WriteRecord) -> bool) -> usize {
    events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Write(w) if f(w)))
        .nth(n)
        .unwrap()
        .0
}

#[test]
fn the_checker_catches_each_corruption_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let program = load(&case(dir.path(), "atomics.c", &[]));
    let (commits, _) = model_commits(&program);
    let events = shuffled(&commits, 7, true, 60);
    let at = nth_insn(&events, 5);
    let Event::Insn(r) = events[at] else {
        unreachable!()
    };
    let m = caught(&program, &events, |e| {
        e[at] = Event::Insn(FetchRecord {
            mask: r.mask ^ 4,
            ..r
        })
    });
    assert!(
        m.contains("warp instruction 5") && m.contains(&format!("mask {:#x}", r.mask ^ 4)),
        "{m}"
    );
    let m = caught(&program, &events, |e| {
        e[at] = Event::Insn(FetchRecord { pc: r.pc + 4, ..r })
    });
    assert!(m.contains(&format!("pc {:#x}", r.pc + 4)), "{m}");
    let m = caught(&program, &events, |e| {
        e.remove(at);
    });
    assert!(
        m.contains("warp instruction 5") || m.contains("no pending write"),
        "{m}"
    );
    let m = caught(&program, &events, |e| {
        e.push(Event::Insn(r));
    });
    assert!(m.contains("the end of warp 0"), "{m}");

    // The first x write: an instruction's before the kernel's first AMO.
    let w = nth_write(&events, 0, |w| w.reg > 0 && w.reg < 32);
    let Event::Write(wr) = events[w] else {
        unreachable!()
    };
    let m = caught(&program, &events, |e| {
        e[w] = Event::Write(WriteRecord {
            data: wr.data ^ 1,
            ..wr
        })
    });
    assert!(
        m.contains("the model's next write of it is") && m.contains(&format!("x{}", wr.reg)),
        "{m}"
    );
    let m = caught(&program, &events, |e| {
        e.remove(w);
    });
    assert!(
        m.contains("was never seen") || m.contains("next write of it"),
        "{m}"
    );
    let m = caught(&program, &events, |e| {
        e.insert(
            w,
            Event::Write(WriteRecord {
                reg: 63,
                data: 0x1234_5678,
                ..wr
            }),
        )
    });
    assert!(m.contains("no pending write of f31"), "{m}");
    // A write with none pending is refused even when it writes the value the register
    // holds.
    let m = caught(&program, &events, |e| {
        e.insert(
            w,
            Event::Write(WriteRecord {
                reg: 63,
                data: 0,
                ..wr
            }),
        )
    });
    assert!(m.contains("no pending write of f31"), "{m}");
    let f = nth_write(&events, 3, |w| w.reg >= 32);
    let Event::Write(fr) = events[f] else {
        unreachable!()
    };
    let m = caught(&program, &events, |e| {
        e[f] = Event::Write(WriteRecord {
            data: fr.data ^ 0x80,
            ..fr
        })
    });
    assert!(m.contains(&format!("f{}", fr.reg - 32)), "{m}");

    // An AMO's old value that no order of the warp instruction's AMOs gives (writes in
    // order: the first of rd after the AMO is its own).
    let events = shuffled(&commits, 7, true, 100);
    let amo = commits.iter().find(|c| c.insn & 0x7f == 0x2f).unwrap();
    let amo_rd = ((amo.insn >> 7) & 31) as u8;
    let a = events
        .iter()
        .position(|e| matches!(e, Event::Insn(r) if r.pc == amo.pc))
        .unwrap();
    let aw = a + events[a..]
        .iter()
        .position(|e| matches!(e, Event::Write(w) if w.reg == amo_rd))
        .unwrap();
    let Event::Write(ar) = events[aw] else {
        unreachable!()
    };
    let m = caught(&program, &events, |e| {
        e[aw] = Event::Write(WriteRecord {
            data: ar.data + 1000,
            ..ar
        })
    });
    assert!(m.contains("no order of them"), "{m}");
}

#[test]
fn the_checker_passes_interleaved_warps() {
    let dir = tempfile::tempdir().unwrap();
    let (diverge, atomics) = checker_programs(dir.path());
    for (name, program, warps) in [("diverge", &diverge, 25), ("atomics", &atomics, 5)] {
        for (seed, contexts) in [(0, 2), (1, 4), (2, 4)] {
            let what = format!("{name} seed {seed}, {contexts} contexts");
            let commits = interleaved_commits(program, contexts, seed);
            let back = commits.windows(2).any(|p| p[1].warp < p[0].warp);
            assert!(back, "{what}: the warps interleave");
            let shape = KernelShape {
                contexts: contexts as u32,
                ..SHAPE
            };
            let events = shuffled(&commits, seed, seed == 2, 60);
            let k = check(program, shape, &events).unwrap_or_else(|e| panic!("{what}: {e}"));
            let stats = k.stats();
            assert_eq!(stats.warps, warps, "{what}");
            assert_eq!(stats.warp_instructions, commits.len() as u64, "{what}");
            let threads: usize = commits.iter().map(|c| c.threads.len()).sum();
            assert_eq!(stats.thread_instructions, threads as u64, "{what}");
            assert!(k.writes_checked > 100, "{what}: {}", k.writes_checked);
        }
    }
}

/// The warp an event is of.
fn warp_of(e: &Event) -> u32 {
    match e {
        Event::Insn(r) => r.warp,
        Event::Write(w) => w.warp,
    }
}

#[test]
fn the_checker_catches_interleaved_corruptions() {
    let dir = tempfile::tempdir().unwrap();
    let program = load(&case(dir.path(), "atomics.c", &[]));
    let events = shuffled(&interleaved_commits(&program, 4, 5), 5, false, 60);

    // A write of warp 1 (thread 8 + i: its own index) given to warp 0.
    let own = |w: &WriteRecord| w.warp == 1 && w.data == 8 + w.slot * SHAPE.lanes + w.lane;
    let at = events
        .iter()
        .position(|e| matches!(e, Event::Write(w) if own(w)))
        .unwrap();
    let Event::Write(w) = events[at] else {
        unreachable!()
    };
    let m = caught_on(&program, SHAPE4, &events, |e| {
        e[at] = Event::Write(WriteRecord { warp: 0, ..w })
    });
    let thread = w.slot * SHAPE.lanes + w.lane;
    assert!(
        m.contains(&format!("for thread {thread} (warp 0,"))
            && (m.contains("no pending write") || m.contains("the model's next write of it is")),
        "{m}"
    );

    // An instruction of warp 1 at the pc warp 0 is at, where warp 1 is elsewhere.
    let mut zero = None;
    let at = (0..events.len())
        .find(|&i| match events[i] {
            Event::Insn(r) if r.warp == 0 => {
                zero = Some(r);
                false
            }
            Event::Insn(r) => r.warp == 1 && zero.is_some_and(|z| z.pc != r.pc),
            Event::Write(_) => false,
        })
        .unwrap();
    let z = zero.unwrap();
    let m = caught_on(&program, SHAPE4, &events, |e| {
        e[at] = Event::Insn(FetchRecord { warp: 1, ..z })
    });
    assert!(
        m.contains(&format!("committed warp 1 pc {:#x}", z.pc))
            && m.contains("the model's next is warp 1 pc"),
        "{m}"
    );

    // The last warp never runs.
    let m = caught_on(&program, SHAPE4, &events, |e| e.retain(|e| warp_of(e) != 4));
    assert!(m.contains("warp 4 never ran"), "{m}");

    // A warp beyond the launch's five.
    let Event::Insn(first) = events[0] else {
        unreachable!()
    };
    let m = caught_on(&program, SHAPE4, &events, |e| {
        e.insert(3, Event::Insn(FetchRecord { warp: 5, ..first }))
    });
    assert!(
        m.contains("committed warp 5") && m.contains("has 5 warps"),
        "{m}"
    );

    // More warps resident than the engine has contexts.
    let m = caught_on(
        &program,
        KernelShape {
            contexts: 2,
            ..SHAPE
        },
        &events,
        |_| {},
    );
    assert!(m.contains("while its 2 warp context(s) hold warps"), "{m}");
    // One context: warps run one at a time, in order.
    let one = shuffled(&model_commits(&program).0, 5, false, 60);
    let m = caught(&program, &one, |e| e.retain(|e| warp_of(e) != 0));
    assert!(
        m.contains("started warp 1") && m.contains("hold warps 0 (not started)"),
        "{m}"
    );
}

/// [`SHAPE`] with the engine's own groups (dynamic warp subdivision).
const FOLLOWED: KernelShape = KernelShape {
    followed: true,
    ..SHAPE
};

/// The groups the DWS golden model (`fgsimt::dws`, ReviveSplit over random hit masks,
/// one warp context of 8 threads) executes for `program`'s first launch, in its order:
/// (launch warp, pc, threads). An order no PWFB would choose: splits on memory
/// divergence, stack re-convergence, threads of a warp instruction executing at
/// different times.
fn dws_groups(program: &Program) -> Vec<(u32, u64, u32)> {
    use verification::fgsimt::dws::memory::RandomMemory;
    use verification::fgsimt::dws::{DwsConfig, Logged, LoggedOp, Machine};
    let (mut iss, launch) = at_launch(program);
    let cfg = DwsConfig {
        warps: 1,
        warp_size: SHAPE.warp_size,
        ..DwsConfig::default().named("revive").unwrap()
    };
    let mut machine = Machine::new(cfg, Box::new(RandomMemory(3)));
    machine.start(&iss, launch).unwrap();
    let (mut warp, mut groups) = (None, Vec::new());
    let mut started = 0;
    while !machine.cycle(&mut iss).unwrap() {
        let log = machine.log();
        if !log.starts.is_empty() {
            warp = Some(started);
            started += 1;
        }
        let Some(Logged::Issue(p, op)) = log.action else {
            continue;
        };
        let ran = match op {
            LoggedOp::Other(_) | LoggedOp::Branch(_, true) => p.mask,
            LoggedOp::Memory { run, .. } => run,
            _ => 0,
        };
        if ran != 0 {
            groups.push((warp.unwrap(), p.pc, ran));
        }
    }
    groups
}

/// The model's per-thread commits (from the PWFB order, `model_commits`, with whether
/// the CP completes the instruction: without affine mechanisms, the instruction's
/// alone) replayed in the order of `groups`: each group's instruction, then its
/// threads' writes.
fn events_of_groups(commits: &[WarpCommit], groups: &[(u32, u64, u32)]) -> Vec<Event> {
    type Queue = std::collections::VecDeque<(Commit, bool)>;
    let mut per_thread: std::collections::HashMap<u32, Queue> = Default::default();
    for c in commits {
        let lanes = (0..32).filter(|i| c.mask >> i & 1 != 0);
        let cp = fetch(c).cp;
        for (i, t) in lanes.zip(&c.threads) {
            let tid = c.warp * SHAPE.warp_size + i;
            per_thread.entry(tid).or_default().push_back((*t, cp));
        }
    }
    let mut out = Vec::new();
    for &(warp, pc, mask) in groups {
        let mut writes = Vec::new();
        let mut insn = None;
        for i in (0..32).filter(|i| mask >> i & 1 != 0) {
            let t = per_thread.get_mut(&(warp * SHAPE.warp_size + i));
            let (t, cp) = (t.and_then(|q| q.pop_front())).expect("the thread's next commit");
            assert_eq!(t.pc, pc, "the two models agree on the thread's path");
            insn = Some((t.insn, cp));
            if !cp {
                writes.extend(thread_writes(warp, i, &t, None));
            }
        }
        let (insn, cp) = insn.unwrap();
        out.push(Event::Insn(FetchRecord {
            warp,
            pc,
            insn,
            mask,
            cp,
        }));
        out.extend(writes.into_iter().map(Event::Write));
    }
    out
}

/// With the engine's own groups ([`KernelShape::followed`]) the checker follows the
/// trace's groups thread by thread: the DWS model's order for diverge.c passes (the
/// threads' results from the PWFB model's run), as does the PWFB's own order; a group
/// holding a thread elsewhere, a missing group, and a wrong write are caught.
#[test]
fn the_checker_follows_the_engines_own_groups() {
    let dir = tempfile::tempdir().unwrap();
    let (diverge, _) = checker_programs(dir.path());
    let (commits, _) = model_commits(&diverge);
    let groups = dws_groups(&diverge);
    let pwfb_order: Vec<_> = commits.iter().map(|c| (c.warp, c.pc, c.mask)).collect();
    assert_ne!(groups, pwfb_order, "the DWS model's order is another");
    let events = events_of_groups(&commits, &groups);
    let k = check(&diverge, FOLLOWED, &events).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(k.insns, groups.len() as u64);
    assert!(k.writes_checked > 100, "{}", k.writes_checked);
    let shuffled_pwfb = shuffled(&commits, 1, false, 60);
    check(&diverge, FOLLOWED, &shuffled_pwfb).unwrap_or_else(|e| panic!("the PWFB's order: {e}"));
    // A group of fewer than all threads of its warp gains a thread that is elsewhere.
    let split = (events.iter())
        .position(|e| matches!(e, Event::Insn(r) if r.mask.count_ones() < SHAPE.warp_size))
        .expect("a split group");
    let err = caught_on(&diverge, FOLLOWED, &events, |ev| {
        if let Event::Insn(r) = &mut ev[split] {
            r.mask |= 1 << (!r.mask).trailing_zeros();
        }
    });
    assert!(err.contains("holds thread"), "{err}");
    let last = nth_insn(&events, groups.len() - 1);
    let err = caught_on(&diverge, FOLLOWED, &events, |ev| {
        ev.truncate(last);
    });
    assert!(err.contains("never ended"), "{err}");
    let write = nth_write(&events, 40, |_| true);
    let err = caught_on(&diverge, FOLLOWED, &events, |ev| {
        if let Event::Write(w) = &mut ev[write] {
            w.data ^= 1;
        }
    });
    assert!(err.contains("the model's next write of it is"), "{err}");
}

#[test]
fn faults_must_be_the_models_trap() {
    let dir = tempfile::tempdir().unwrap();
    let src = root().join("tests/simt_cases/faults.c");
    let program = load(&build(dir.path(), &src, &["CASE=1"]));
    let (commits, trap) = model_commits(&program);
    let trap = trap.expect("thread 5 faults");
    assert_eq!((trap.thread, trap.cause), (5, 5));
    let (mut iss, mut k) = checker(&program, SHAPE);
    for c in &commits[..commits.len() / 2] {
        k.insn(&mut iss, fetch(c)).unwrap();
    }
    let wrong = FaultRecord { thread: 4, ..trap };
    let m = k.fault(&mut iss, wrong).unwrap_err().to_string();
    assert!(
        m.contains("thread 4") && m.contains("the model's thread 5 traps"),
        "{m}"
    );
    let (mut iss, mut k) = checker(&program, SHAPE);
    k.fault(&mut iss, trap).unwrap();
    // A write with none pending is an error until the faulting instruction commits;
    // then the instructions the engine commits past it (another warp's, before the fault
    // stops the engine) are not checked, nor their writes.
    let (mut iss, mut k) = checker(&program, SHAPE);
    for c in &commits {
        k.insn(&mut iss, fetch(c)).unwrap();
    }
    let stray = WriteRecord {
        warp: 0,
        lane: 1,
        port: 0,
        reg: 31,
        slot: 3,
        data: 5,
    };
    let m = k.write(stray).unwrap_err().to_string();
    assert!(m.contains("no pending write of x31"), "{m}");
    let faulting = FetchRecord {
        warp: trap.thread / SHAPE.warp_size,
        pc: trap.pc,
        insn: iss.mem.read(trap.pc, 4).unwrap() as u32,
        mask: 1 << (trap.thread % SHAPE.warp_size),
        cp: false,
    };
    k.insn(&mut iss, faulting).unwrap();
    k.write(stray).unwrap();
    k.fault(&mut iss, trap).unwrap();
    let beyond = FaultRecord { thread: 13, ..trap };
    let (mut iss, mut k) = checker(&program, SHAPE);
    let m = k.fault(&mut iss, beyond).unwrap_err().to_string();
    assert!(m.contains("the launch has 8 threads"), "{m}");
    // The faulting thread's warp runs alone, to its end here.
    let atomics = load(&case(dir.path(), "atomics.c", &[]));
    let (mut iss, mut k) = checker(&atomics, SHAPE);
    let m = k.fault(&mut iss, trap).unwrap_err().to_string();
    assert!(m.contains("runs warp 0 to its end without a trap"), "{m}");
    let (mut iss, mut k) = checker(&atomics, SHAPE4);
    let m = k.fault(&mut iss, beyond).unwrap_err().to_string();
    assert!(m.contains("runs warp 1 to its end without a trap"), "{m}");
    // With the engine's own groups the faulting thread runs alone to its trap.
    for (thread, half) in [(5, true), (5, false), (4, true)] {
        let (mut iss, mut k) = checker(&program, FOLLOWED);
        let n = if half { commits.len() / 2 } else { 0 };
        for c in &commits[..n] {
            k.insn(&mut iss, fetch(c)).unwrap();
        }
        let r = k.fault(&mut iss, FaultRecord { thread, ..trap });
        match thread {
            5 => r.unwrap(),
            _ => {
                let m = r.unwrap_err().to_string();
                assert!(m.contains("runs thread 4 to its end without a trap"), "{m}");
            }
        }
    }
}

// ------------------------------------------------------------------ the fetch arbiter

/// The I$'s 2:1 arbiter on the IR simulator, with random requests from both sides and a
/// blocking I$ stand-in (a request is answered 1 or 2 cycles after it is accepted, with
/// its address as data, and the next is accepted in the answer's cycle at the earliest):
/// each requester gets its own answers in order, and the warp fetch is never refused
/// while the I$ is ready.
#[test]
fn the_fetch_arbiter_routes_answers_and_prefers_the_warp_fetch() {
    use generators::fgsimt::fetch_arbiter::fetch_arbiter;
    let mut sim = hdl::sim::Sim::new(&hdl::Design::new(&fetch_arbiter().unwrap()));
    let mut rng = Rng::new(11);
    let sides = ["cp", "warp"];
    let mut next_addr = [0x1000u64, 0x8000];
    let mut expect: [std::collections::VecDeque<u64>; 2] = Default::default();
    let mut answered = [0u64; 2];
    let mut busy: Option<(u64, u64)> = None; // (address, cycles left)
    let mut valid = [false; 2];
    sim.poke_u64("reset", 1).unwrap();
    sim.step();
    sim.poke_u64("reset", 0).unwrap();
    for _ in 0..3000 {
        for (i, side) in sides.iter().enumerate() {
            valid[i] = valid[i] || rng.chance(50);
            sim.poke_u64(&format!("{side}_req_valid"), valid[i] as u64)
                .unwrap();
            sim.poke_u64(&format!("{side}_req_bits_addr"), next_addr[i])
                .unwrap();
        }
        let answer = matches!(busy, Some((_, 0)));
        sim.poke_u64("icache_resp_valid", answer as u64).unwrap();
        sim.poke_u64("icache_resp_bits_data", busy.map_or(0, |b| b.0))
            .unwrap();
        let ready = busy.is_none() || answer;
        sim.poke_u64("icache_req_ready", ready as u64).unwrap();
        for (i, side) in sides.iter().enumerate() {
            if sim.peek_u64(&format!("{side}_resp_valid")).unwrap() == 1 {
                let want = expect[i].pop_front().expect("an answer to a request");
                assert_eq!(
                    sim.peek_u64(&format!("{side}_resp_bits_data")).unwrap(),
                    want
                );
                answered[i] += 1;
            }
        }
        if answer {
            busy = None;
        }
        if ready && valid[1] {
            assert_eq!(sim.peek_u64("warp_req_ready").unwrap(), 1);
        }
        if ready && sim.peek_u64("icache_req_valid").unwrap() == 1 {
            let addr = sim.peek_u64("icache_req_bits_addr").unwrap();
            let i = (0..2)
                .find(|&i| {
                    valid[i] && sim.peek_u64(&format!("{}_req_ready", sides[i])).unwrap() == 1
                })
                .expect("one side accepted");
            assert_eq!(addr, next_addr[i]);
            expect[i].push_back(addr);
            next_addr[i] += 4;
            valid[i] = false;
            busy = Some((addr, rng.below(3)));
        }
        if let Some((_, left)) = busy.as_mut() {
            *left = left.saturating_sub(1);
        }
        sim.step();
    }
    assert!(answered.iter().all(|&n| n > 200), "{answered:?}");
}
