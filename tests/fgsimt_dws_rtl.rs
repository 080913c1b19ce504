//! The DWS sequencer in RTL (`generators::fgsimt::dws`, `DwsSequencer`, on the IR
//! simulator; the kernels on its Verilator model) in lockstep with the golden model's
//! (`verification::tb::dws_seq`): each cycle the same inputs, the same decisions, and
//! after the clock edge the same state (every group, every stack, the round-robin
//! pointer), the model checking I1-I3 every cycle. The RTL starts from random register
//! values (the table's entries and the late-answer registers have no reset). Spec 001
//! section 7 on the RTL:
//! - Fig. 3's stack vector (W = 8, masks 11111001 / 00000110), conventional and with a
//!   branch split merged by pc: the RTL's stack and group every cycle are the model's,
//!   which `tests/fgsimt_dws_model.rs` checks against the figure;
//! - random programs (divergent branches, per-thread loops, every memory mode, AMOs) on
//!   random hit masks under every named configuration but slip (every split policy,
//!   every re-convergence mode), at 2 WST entries (the WST-full fallback) and 16, with
//!   answers in the issue cycle and late (`late_answers`: an engine's pipeline);
//! - bfs and bsearch on the paper's cache hierarchy, answers late;
//! - the parallel syncs' corner (a merge frees WST entries for another warp's retry
//!   from the next cycle), the test answering as the datapath;
//! - a stack too shallow stopping the RTL with its error, and lint at four shapes.
//!
//! `ACCELGEN_LONG=1`: 12 random programs under every configuration but slip at both WST
//! sizes; bfs, bsearch, strsearch and kmeans.

mod lint_rig;
#[path = "vgiw_rig/mod.rs"]
mod rig;

use generators::fgsimt::dws::params::DwsParams;
use generators::fgsimt::dws::sequencer::sequencer;
use hdl::sim::{Init, Sim};
use hdl::Design;
use std::collections::VecDeque;
use std::path::Path;
use verification::elf::Program;
use verification::fgsimt::dws::cfg::BranchInfo;
use verification::fgsimt::dws::control::{Action, DwsControl, Pick};
use verification::fgsimt::dws::memory::{CacheMemory, MemorySystem, RandomMemory};
use verification::fgsimt::dws::reconv::BranchOutcome;
use verification::fgsimt::dws::{CycleLog, DwsConfig, Logged, LoggedOp, Machine, Status, NAMED};
use verification::fgsimt::program::{host, run_host, ProgramError};
use verification::iss::IssConfig;
use verification::simulator::Simulator;
use verification::tb::dws_seq::{params_of, SeqError, SeqLockstep};
use verification::verilator::{Model, Options};

/// Stack entries a warp in the RTL.
const DEPTH: u32 = 16;

/// The IR simulator of the sequencer of `p`, every register and memory at random values
/// from `seed`: the late-answer registers and the table's entries have no reset, and
/// nothing may read them unwritten.
fn ir(p: &DwsParams, seed: u64) -> Sim {
    Sim::with_init(&Design::new(&sequencer(p).unwrap()), Init::Random { seed })
}

/// The Verilator model of the sequencer of `p` (for long runs; a model a shape), at
/// random initial values from `seed` as [`ir`].
fn verilated(p: &DwsParams, seed: u64) -> Model {
    let design = Design::new(&sequencer(p).unwrap());
    let mut model = Model::of_design(&design, &Options::default()).unwrap();
    model.reinit(Init::Random { seed }).unwrap();
    model
}

/// The lockstep of `dut`, the RTL sequencer of `p`, reset.
fn fresh<S: Simulator>(mut dut: S, p: DwsParams) -> SeqLockstep<S> {
    dut.poke_u64("reset", 1).unwrap();
    dut.step();
    dut.poke_u64("reset", 0).unwrap();
    SeqLockstep::new(dut, p)
}

/// A kernel's branches and their post-dominators (`Cfg::branches`).
type Branches = Vec<(u64, BranchInfo)>;

/// The RTL's shape where a test changes it, and the branches its table is loaded with
/// (of the kernel's).
struct Rtl {
    stack_depth: u32,
    branch_entries: u32,
    table: fn(Branches) -> Branches,
}

/// 16 stack entries, 16 table entries, every branch in the table.
const RTL: Rtl = Rtl {
    stack_depth: DEPTH,
    branch_entries: 16,
    table: |b| b,
};

/// Runs `program` on the model of `cfg` over `mem` with the RTL (shaped by `rtl`) in
/// lockstep; the cycles compared, or where the two parted.
fn lockstep_at<S: Simulator>(
    program: &Program,
    cfg: DwsConfig,
    mem: Box<dyn MemorySystem>,
    (rtl, simulator): (&Rtl, fn(&DwsParams, u64) -> S),
) -> Result<u64, SeqError> {
    let p = DwsParams {
        branch_entries: rtl.branch_entries,
        ..params_of(&cfg, rtl.stack_depth).expect("a configuration the RTL has")
    };
    // The initial state varies with the configuration.
    let seed = [cfg.warps, cfg.warp_size, cfg.wst_entries, cfg.slots]
        .iter()
        .fold(cfg.answer_delay, |s, &x| s << 8 ^ u64::from(x));
    let mut seq = fresh(simulator(&p, seed), p);
    let mut iss = host(program, IssConfig::default()).unwrap();
    let mut machine = Machine::new(cfg, mem);
    let exit = run_host(&mut iss, rig::MAX_STEPS, |iss, launch| {
        machine.start(iss, launch).unwrap();
        seq.load_table(&(rtl.table)(machine.code().branches()), cfg.short_block)?;
        while !machine.cycle(iss).unwrap() {
            seq.cycle(machine.log(), &machine.snapshot())?;
            assert!(machine.now() < 2_000_000, "the launch does not end");
        }
        Ok::<(), Failed>(())
    });
    match exit {
        Ok(exit) => {
            assert_eq!(exit, 0);
            Ok(seq.cycles)
        }
        Err(Failed::Seq(e)) => Err(e),
        Err(Failed::Program(e)) => panic!("{e}"),
    }
}

/// Why a lockstep run stopped.
#[derive(Debug, thiserror::Error)]
enum Failed {
    #[error(transparent)]
    Seq(#[from] SeqError),
    #[error(transparent)]
    Program(#[from] ProgramError),
}

/// [`lockstep_at`] with 16 stack entries, which must agree to the end.
fn lockstep(program: &Program, cfg: DwsConfig, mem: Box<dyn MemorySystem>) -> u64 {
    lockstep_at(program, cfg, mem, (&RTL, ir)).unwrap_or_else(|e| panic!("{cfg:?}: {e}"))
}

fn checked(warps: u32, warp_size: u32, name: &str) -> DwsConfig {
    DwsConfig {
        warps,
        warp_size,
        check: true,
        ..DwsConfig::default()
    }
    .named(name)
    .unwrap()
}

/// `tests/fgsimt_cases/dws.S`, built.
fn directed(dir: &Path) -> Program {
    let src = rig::root().join("tests/fgsimt_cases/dws.S");
    rig::build(dir, &[src], "dws")
}

#[test]
fn fig3_and_the_directed_cases_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    // (configuration, answer delay, a woken group replays its access)
    for (name, answer_delay, replay) in [
        ("conv", 0, true),
        ("branch-only", 0, true),
        ("branch-only.stack", 0, true),
        ("revive", 0, true),
        ("aggress.bl", 0, true),
        ("conv", 4, true),
        ("branch-only", 1, true),
        ("revive", 3, true),
        ("aggress.bl", 2, true),
        ("conv", 2, false),
        ("revive", 3, false),
        ("aggress.bl", 0, false),
    ] {
        let cfg = DwsConfig {
            answer_delay,
            replay,
            ..checked(1, 8, name)
        };
        let cycles = lockstep(&program, cfg, Box::new(RandomMemory(7)));
        println!(
            "dws.S, {name}, answers {answer_delay} cycles late, replay {replay}: {cycles} \
             cycles in lockstep"
        );
    }
}

/// Fig. 3's push needs three stack entries: with two the RTL raises its error at the
/// push (a clear stop, not a wrong state), as it does for a deadlock or a full group
/// table; so does a branch its re-convergence table lacks. A kernel with more branches
/// than the table's entries is refused by the loader, naming both.
#[test]
fn a_stack_too_shallow_or_a_branch_unknown_raises_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let run = |rtl: &Rtl| {
        lockstep_at(
            &program,
            checked(1, 8, "conv"),
            Box::new(RandomMemory(7)),
            (rtl, ir),
        )
    };
    let shallow = Rtl {
        stack_depth: 2,
        ..RTL
    };
    let err = run(&shallow).expect_err("Fig. 3 pushes a third entry");
    assert!(matches!(err, SeqError::Error { .. }), "{err}");
    let unknown = Rtl {
        table: |b| b[1..].to_vec(),
        ..RTL
    };
    let err = run(&unknown).expect_err("the first branch is not in the table");
    assert!(matches!(err, SeqError::Error { .. }), "{err}");
    let small = Rtl {
        branch_entries: 1,
        ..RTL
    };
    let err = run(&small).expect_err("Fig. 3's kernel has 2 branches");
    assert!(
        err.to_string()
            .contains("re-convergence table holds 1 (branch_entries)"),
        "{err}"
    );
}

/// The model's sequencer driven by hand, the test answering as the datapath, with the
/// RTL in lockstep: for corners random programs rarely reach.
struct Hand {
    seq: SeqLockstep<Sim>,
    ctl: DwsControl,
    cfg: DwsConfig,
    /// The branches' post-dominators and the length of the block there.
    code: Vec<(u64, BranchInfo)>,
    now: u64,
    /// Late answers: sent branches (answer cycle, group, outcome), oldest first.
    sent: VecDeque<(u64, Pick, BranchOutcome)>,
}

/// The datapath's answer to an issued group.
enum Reply {
    Now(LoggedOp),
    /// A branch answered `answer_delay` cycles later.
    Late(BranchOutcome),
}

impl Hand {
    fn new(cfg: DwsConfig, code: &[(u64, BranchInfo)]) -> Hand {
        let p = params_of(&cfg, DEPTH).unwrap();
        let mut seq = fresh(ir(&p, 1), p);
        seq.load_table(code, cfg.short_block).unwrap();
        Hand {
            seq,
            ctl: DwsControl::new(cfg),
            cfg,
            code: code.to_vec(),
            now: 0,
            sent: VecDeque::new(),
        }
    }

    /// The branch at `pc`'s outcome with `taken` threads jumping to `target`.
    fn branch(&self, pc: u64, taken: u32, target: u64) -> BranchOutcome {
        BranchOutcome {
            taken,
            target,
            info: self.code.iter().find(|b| b.0 == pc).unwrap().1,
        }
    }

    /// A cycle's start: a warp started (one a cycle: the RTL's one `start_pc`), the late
    /// answer due, wakes and merges.
    fn begin(&mut self, start: Option<(usize, u64, u32)>) -> CycleLog {
        let mut log = CycleLog {
            fills: vec![0; self.cfg.warps as usize],
            ..CycleLog::default()
        };
        if let Some((w, pc, mask)) = start {
            self.ctl.start_warp(w, pc, mask);
            log.starts = vec![(w, pc, mask)];
        }
        if self.sent.front().is_some_and(|s| s.0 == self.now) {
            let (_, p, o) = self.sent.pop_front().unwrap();
            let executed = self.ctl.answer_branch(self.now, p.id, o);
            log.answer = Some((p.warp, LoggedOp::Branch(o, executed)));
        }
        self.ctl.begin_cycle(self.now).unwrap();
        log
    }

    /// The cycle's action, an issued group answered by `reply`; the RTL's cycle.
    fn act(&mut self, mut log: CycleLog, reply: impl FnOnce(&mut DwsControl, Pick) -> Reply) {
        log.action = Some(match self.ctl.action() {
            Action::Stall => {
                self.ctl.stall();
                Logged::Stall
            }
            Action::Control => Logged::Control,
            Action::Issue(p) => match reply(&mut self.ctl, p) {
                Reply::Now(op) => Logged::Issue(p, op),
                Reply::Late(o) => {
                    self.ctl.send(p.id);
                    let at = self.now + self.cfg.answer_delay;
                    self.sent.push_back((at, p, o));
                    Logged::Issue(p, LoggedOp::SentBranch)
                }
            },
        });
        (self.seq.cycle(&log, &self.ctl.snapshot())).unwrap_or_else(|e| panic!("{e}"));
        self.now += 1;
    }
}

/// Group `id`'s memory instruction: all threads hit or all miss, the data `latency`
/// cycles away.
fn memory(ctl: &mut DwsControl, id: u64, now: u64, (hit, latency): (bool, u64)) -> Reply {
    let (mask, ready) = ctl.memory_merge(id).unwrap();
    let satisfied = if hit { mask } else { 0 };
    let run = ctl.memory_done(id, satisfied, now + latency);
    Reply::Now(LoggedOp::Memory {
        merged: Some((mask, ready)),
        satisfied,
        hit_delay: latency,
        run,
    })
}

/// Group `id`'s other instruction, its threads going on at `next` (or ending).
fn other(ctl: &mut DwsControl, id: u64, next: Option<u64>) -> Reply {
    ctl.advance(id, next);
    Reply::Now(LoggedOp::Other(next))
}

fn info(ipdom: u64, block_after: u32) -> BranchInfo {
    BranchInfo { ipdom, block_after }
}

/// The warps sync in parallel (docs/fgsimt-engine.md, "Merges across warps"): a merge
/// frees WST entries for other warps' retries from the next cycle, not the same one.
/// By hand (random programs rarely reach this corner): 2 warps of 4, 4 WST entries.
/// Warp 1, started a cycle after warp 0, splits at 0x1000 (2 entries); its taken group
/// waits for memory forever, the other hits at 0x1004 (25 cycles) and diverges again
/// at 0x1008. Warp 0, held 20 cycles by a load, pushes at 0x100 and splits at 0x104 (2
/// entries: the WST full), so warp 1's group waits at 0x1008 for an entry. Warp 0's
/// taken group loads at 0x180 (30 cycles); when the two merge at their post-dominator
/// (0x300), warp 1's group still waits in that cycle and retries the next.
#[test]
fn a_merge_frees_wst_entries_for_other_warps_from_the_next_cycle() {
    let cfg = DwsConfig {
        wst_entries: 4,
        ..checked(2, 4, "branch-only")
    };
    let code = [
        (0x100, info(0x300, 100)),
        (0x104, info(0x300, 1)),
        (0x1000, info(0x1200, 1)),
        (0x1008, info(0x1200, 1)),
    ];
    let mut hand = Hand::new(cfg, &code);
    // After each cycle's start: warp 0's groups, and whether warp 1's group waits at
    // 0x1008.
    let mut seen = Vec::new();
    for now in 0..200 {
        let start = [(0, 0xfc, 0xf), (1, 0x1000, 0xf)]
            .get(now as usize)
            .copied();
        let log = hand.begin(start);
        let ctl = &hand.ctl;
        let count0 = ctl.state(0).1.count();
        let waits1 = (ctl.state(1).1).any(|g| g.pc == 0x1008 && g.status == Status::Wait);
        seen.push((count0, waits1));
        let br = |pc, taken, target| hand.branch(pc, taken, target);
        let (b100, b104) = (br(0x100, 0b0011, 0x200), br(0x104, 0b0100, 0x180));
        let (b1000, b1008) = (br(0x1000, 0b0011, 0x1100), br(0x1008, 0b0100, 0x1080));
        hand.act(log, |ctl, p| {
            let mut branch = |o| Reply::Now(LoggedOp::Branch(o, ctl.branch(p.id, o)));
            match (p.warp, p.pc) {
                (0, 0xfc) => memory(ctl, p.id, now, (true, 20)),
                (0, 0x100) => branch(b100),
                (0, 0x104) => branch(b104),
                (0, 0x180) => memory(ctl, p.id, now, (true, 30)),
                (1, 0x1000) => branch(b1000),
                (1, 0x1004) => memory(ctl, p.id, now, (true, 25)),
                (1, 0x1100) => memory(ctl, p.id, now, (false, 3)),
                (1, 0x1008) => branch(b1008),
                (w, pc) => {
                    let ends = !(w == 0 && matches!(pc, 0x108 | 0x184 | 0x200));
                    other(ctl, p.id, (!ends).then_some(0x300))
                }
            }
        });
    }
    // The cycle warp 0's two groups became one.
    let merge = (1..seen.len())
        .find(|&c| seen[c - 1].0 == 2 && seen[c].0 == 1)
        .expect("warp 0's groups merge");
    assert!(
        seen[merge - 1].1 && seen[merge].1,
        "warp 1 waits for an entry before and in the merge's cycle: {seen:?}"
    );
    assert!(!seen[merge + 1].1, "and retries the next: {seen:?}");
}

/// Late answers keep each warp's sent branch's table entry until its answer: two
/// warps await branches with different post-dominators at once (answers 3 cycles
/// late), warp 0's a short block's (a split), warp 1's not (a push). By hand, 2 warps
/// of 4; each path runs to its post-dominator and the threads end 2 instructions on.
#[test]
fn late_answers_keep_each_warps_branch_entry() {
    let cfg = DwsConfig {
        answer_delay: 3,
        ..checked(2, 4, "branch-only")
    };
    let code = [(0x100, info(0x180, 1)), (0x1000, info(0x1080, 100))];
    let mut hand = Hand::new(cfg, &code);
    let (b100, b1000) = (
        hand.branch(0x100, 0b0011, 0x140),
        hand.branch(0x1000, 0b0101, 0x1040),
    );
    for now in 0..400 {
        if now > 1 && (0..2).all(|w| hand.ctl.idle(w)) {
            break;
        }
        let start = [(0, 0x100, 0xf), (1, 0x1000, 0xf)]
            .get(now as usize)
            .copied();
        let log = hand.begin(start);
        hand.act(log, |ctl, p| match p.pc {
            0x100 => Reply::Late(b100),
            0x1000 => Reply::Late(b1000),
            0x188 | 0x1088 => other(ctl, p.id, None),
            pc => other(ctl, p.id, Some(pc + 4)),
        });
    }
    for w in 0..2 {
        assert!(hand.ctl.idle(w), "warp {w} ended");
    }
    let s = hand.ctl.stats;
    assert_eq!((s.branch_splits, s.divergent_branches), (1, 2));
}

/// Random programs on random hit masks, every named configuration but slip (every split
/// policy, every re-convergence mode), WST sizes 2 (the WST-full fallback) and 16, 2-4
/// warps of 4, 16 or 32 threads, 4 slots or 2 N, answers in the issue cycle or 1-4
/// cycles late, a woken group replaying its access (the paper's) or going on past it
/// (the engine's, `replay` off). The fast suite runs one program under three
/// configurations (BranchBypass and BL; no split, LazySplit and AggressSplit), one with
/// late answers, one without replay (about 2,000 cycles a second on the IR simulator;
/// the stack mode and ReviveSplit run in the directed cases and the kernels);
/// `ACCELGEN_LONG=1` 12 programs under all of them, at once and late, half without
/// replay.
#[test]
fn random_programs_in_lockstep() {
    use verification::randgen::simt::{build_simt, SimtShape};
    let count = if rig::long() { 12 } else { 1 };
    // (configuration, WST entries, answer delay: program 0's are 0 and 1).
    let fast = [("conv", 16, 0), ("lazy", 2, 1), ("aggress.bl", 16, 0)];
    let dir = tempfile::tempdir().unwrap();
    let mut cycles = 0;
    for seed in 0..count {
        let shape = SimtShape {
            len: 60,
            fp: seed % 2 == 1,
        };
        let elf = build_simt(seed, shape, dir.path()).unwrap();
        let program = verification::elf::load_file(&elf).unwrap();
        for (k, (name, ..)) in NAMED.iter().enumerate() {
            for (wst, answer_delay) in [2, 16]
                .into_iter()
                .flat_map(|w| [(w, 0), (w, 1 + seed % 4)])
            {
                let chosen = match rig::long() {
                    true => !name.starts_with("slip"),
                    false => fast.contains(&(*name, wst, answer_delay)),
                };
                if !chosen {
                    continue;
                }
                // The engine's variant (no replay: the arrivals complete the access)
                // on half the long runs, and on conv and revive in the fast suite.
                let replay = match rig::long() {
                    true => (seed + k as u64).is_multiple_of(2),
                    false => !matches!(*name, "conv" | "revive"),
                };
                let cfg = DwsConfig {
                    wst_entries: wst,
                    slots: if k % 2 == 0 { 0 } else { 4 },
                    answer_delay,
                    replay,
                    ..checked(2 + (seed % 3) as u32, [4, 16, 32][k % 3], name)
                };
                let mem = Box::new(RandomMemory(seed * 1000 + k as u64));
                let start = std::time::Instant::now();
                let n = lockstep(&program, cfg, mem);
                println!(
                    "program {seed}, {name}, {wst} WST entries, answers {answer_delay} cycles late, \
                     replay {replay}: {n} cycles in lockstep ({:.1} s)",
                    start.elapsed().as_secs_f64()
                );
                cycles += n;
            }
        }
    }
    println!("{count} programs: {cycles} cycles in lockstep");
}

/// Kernels on the paper's cache hierarchy (4 warps of 16, 32 KB L1) under ReviveSplit, on
/// the sequencer's Verilator model (a hundred times the IR simulator's speed, for the
/// cost of one build): bfs and bsearch with answers 2-3 cycles late (four warps'
/// branches in flight at once); `ACCELGEN_LONG=1` four kernels, answered at once and
/// late.
#[test]
fn kernels_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let runs: &[(&str, u64)] = if rig::long() {
        &[
            ("bfs", 0),
            ("bsearch", 0),
            ("strsearch", 0),
            ("kmeans", 0),
            ("bfs", 3),
            ("bsearch", 2),
            ("strsearch", 1),
            ("kmeans", 2),
        ]
    } else {
        &[("bfs", 3), ("bsearch", 2)]
    };
    for &(name, answer_delay) in runs {
        let program = rig::build_kernel(dir.path(), name);
        let cfg = DwsConfig {
            answer_delay,
            ..checked(4, 16, "revive")
        };
        let mem = Box::new(CacheMemory::new(cfg.memory, cfg.warp_size));
        let cycles = lockstep_at(&program, cfg, mem, (&RTL, verilated))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        println!("{name}, answers {answer_delay} cycles late: {cycles} cycles in lockstep");
    }
}

/// Every kernel's launched kernels fit the re-convergence table's default size (the
/// loader refuses a kernel with more branches than `branch_entries`); `ACCELGEN_LONG=1`
/// the Rodinia kernels too.
#[test]
fn every_kernel_fits_the_default_reconvergence_table() {
    use verification::fgsimt::dws::cfg::Cfg;
    use verification::vgiw::kernels::launched;
    let dir = tempfile::tempdir().unwrap();
    let mut names = verification::kernels::programs("");
    if rig::long() {
        names.extend(verification::kernels::programs("rodinia"));
    }
    let entries = DwsParams::default().branch_entries as usize;
    let mut most = (0, String::new());
    for name in &names {
        let program = rig::build_kernel(dir.path(), name);
        let iss = host(&program, IssConfig::default()).unwrap();
        for entry in launched(&program, rig::MAX_STEPS).unwrap() {
            let branches = Cfg::of_kernel(&iss, entry).unwrap().branches().len();
            assert!(
                branches <= entries,
                "{name}'s kernel at {entry:#x} has {branches} branches"
            );
            if branches > most.0 {
                most = (branches, format!("{name} at {entry:#x}"));
            }
        }
    }
    println!("at most {} branches a kernel ({})", most.0, most.1);
}

/// The sequencer lints clean (Verilator, Yosys, Icarus) at the paper's shape, at the
/// extremes (one warp of one thread with 2 WST entries, 2 stack entries and a table of
/// one branch; with `ACCELGEN_LONG=1` also 8 warps of 32 with 32 WST entries, 16 slots,
/// 32 stack entries and 64 table entries, about half the test's time) and at a shape
/// with nothing a power of two; every split policy and every re-convergence mode among
/// them, the last two with late answers, the last without replay (the engine's).
#[test]
fn the_sequencer_is_lint_clean() {
    use generators::fgsimt::dws::params::{DwsParams, Reconv, SplitPolicy};
    let mut shapes = vec![
        DwsParams::default(),
        DwsParams {
            warps: 1,
            warp_size: 1,
            wst_entries: 2,
            stack_depth: 2,
            branch_entries: 1,
            dws: SplitPolicy::Off,
            reconv: Reconv::Stack,
            ..DwsParams::default()
        },
        // Nothing a power of two: 3 warps of 7, 5 slots (the round robin's wrap), 5
        // WST, 5 stack and 5 table entries; AggressSplit, stack re-convergence.
        DwsParams {
            warps: 3,
            warp_size: 7,
            wst_entries: 5,
            slots: 5,
            stack_depth: 5,
            branch_entries: 5,
            dws: SplitPolicy::Aggress,
            reconv: Reconv::Stack,
            branch_dws: false,
            late_answers: true,
            replay: false,
            ..DwsParams::default()
        },
    ];
    if rig::long() {
        shapes.push(DwsParams {
            warps: 8,
            warp_size: 32,
            wst_entries: 32,
            slots: 16,
            stack_depth: 32,
            branch_entries: 64,
            dws: SplitPolicy::Lazy,
            reconv: Reconv::Bl,
            branch_dws: false,
            late_answers: true,
            ..DwsParams::default()
        });
    }
    let blocks: Vec<_> = shapes
        .iter()
        .map(|p| {
            p.validate().unwrap();
            sequencer(p).unwrap()
        })
        .collect();
    lint_rig::lint_blocks("dws sequencer", &blocks);
}
