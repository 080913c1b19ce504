//! The DWS sequencer in RTL (`generators::fgsimt::dws`, `DwsSequencer`, on the IR
//! simulator) in lockstep with the golden model's (`verification::tb::dws_seq`): each
//! cycle the same inputs, the same decisions, and after the clock edge the same state
//! (every group, every stack, the round-robin pointer), the model checking I1-I3 every
//! cycle. Spec 001 section 7 on the RTL:
//! - Fig. 3's stack vector (W = 8, masks 11111001 / 00000110), conventional and with a
//!   branch split merged by pc: the RTL's stack and group every cycle are the model's,
//!   which `tests/fgsimt_dws_model.rs` checks against the figure;
//! - random programs (divergent branches, per-thread loops, every memory mode, AMOs) on
//!   random hit masks under every named configuration but slip (every split policy,
//!   every re-convergence mode), at 2 WST entries (the WST-full fallback) and 16, with
//!   answers in the issue cycle and late (`late_answers`: an engine's pipeline);
//! - bsearch on the paper's cache hierarchy;
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
use hdl::sim::Sim;
use hdl::Design;
use std::path::Path;
use verification::elf::Program;
use verification::fgsimt::dws::cfg::BranchInfo;
use verification::fgsimt::dws::control::{Action, DwsControl};
use verification::fgsimt::dws::memory::{CacheMemory, MemorySystem, RandomMemory};
use verification::fgsimt::dws::reconv::BranchOutcome;
use verification::fgsimt::dws::{CycleLog, DwsConfig, Logged, LoggedOp, Machine, Status, NAMED};
use verification::fgsimt::program::{host, run_host, ProgramError};
use verification::iss::IssConfig;
use verification::tb::dws_seq::{params_of, SeqError, SeqLockstep};

/// Stack entries a warp in the RTL.
const DEPTH: u32 = 16;

/// The lockstep of an RTL sequencer of `p`, just reset.
fn fresh(p: DwsParams) -> SeqLockstep<Sim> {
    let mut dut = Sim::new(&Design::new(&sequencer(&p).unwrap()));
    dut.poke_u64("reset", 1).unwrap();
    dut.step();
    dut.poke_u64("reset", 0).unwrap();
    SeqLockstep::new(dut, p)
}

/// Runs `program` on the model of `cfg` over `mem` with the RTL (of `depth` stack
/// entries) in lockstep; the cycles compared, or where the two parted.
fn lockstep_at(
    program: &Program,
    cfg: DwsConfig,
    mem: Box<dyn MemorySystem>,
    depth: u32,
) -> Result<u64, SeqError> {
    let p = params_of(&cfg, depth).expect("a configuration the RTL has");
    let mut seq = fresh(p);
    let mut iss = host(program, IssConfig::default()).unwrap();
    let mut machine = Machine::new(cfg, mem);
    let exit = run_host(&mut iss, rig::MAX_STEPS, |iss, launch| {
        machine.start(iss, launch).unwrap();
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
    lockstep_at(program, cfg, mem, DEPTH).unwrap_or_else(|e| panic!("{cfg:?}: {e}"))
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
    // (configuration, answer delay)
    for (name, answer_delay) in [
        ("conv", 0),
        ("branch-only", 0),
        ("branch-only.stack", 0),
        ("revive", 0),
        ("aggress.bl", 0),
        ("conv", 4),
        ("branch-only", 1),
        ("revive", 3),
        ("aggress.bl", 2),
    ] {
        let cfg = DwsConfig {
            answer_delay,
            ..checked(1, 8, name)
        };
        let cycles = lockstep(&program, cfg, Box::new(RandomMemory(7)));
        println!("dws.S, {name}, answers {answer_delay} cycles late: {cycles} cycles in lockstep");
    }
}

/// Fig. 3's push needs three stack entries: with two the RTL raises its error at the
/// push (a clear stop, not a wrong state), as it does for a deadlock or a full table.
#[test]
fn a_stack_too_shallow_raises_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let err = lockstep_at(
        &program,
        checked(1, 8, "conv"),
        Box::new(RandomMemory(7)),
        2,
    )
    .expect_err("Fig. 3 pushes a third entry");
    assert!(matches!(err, SeqError::Error { .. }), "{err}");
}

/// The warps sync in parallel (docs/fgsimt-engine.md, "Merges across warps"): a merge
/// frees WST entries for other warps' retries from the next cycle, not the same one.
/// The model's sequencer alone, the test answering as the datapath, and the RTL in
/// lockstep with it (random programs rarely reach this corner): 2 warps of 4, 4 WST
/// entries. Warp 1, started a cycle after warp 0, splits at 0x1000 (2 entries); its taken group waits for memory
/// forever, the other hits at 0x1004 (25 cycles) and diverges again at 0x1008. Warp 0,
/// held 20 cycles by a load, pushes at 0x100 and splits at 0x104 (2 entries: the WST
/// full), so warp 1's group waits at 0x1008 for an entry. Warp 0's taken group loads at
/// 0x180 (30 cycles); when the two merge at their post-dominator (0x300), warp 1's group
/// still waits in that cycle and retries the next.
#[test]
fn a_merge_frees_wst_entries_for_other_warps_from_the_next_cycle() {
    let cfg = DwsConfig {
        wst_entries: 4,
        ..checked(2, 4, "branch-only")
    };
    let mut seq = fresh(params_of(&cfg, DEPTH).unwrap());
    let mut ctl = DwsControl::new(cfg);
    let branch = |taken, target, ipdom, block_after| BranchOutcome {
        taken,
        target,
        info: BranchInfo { ipdom, block_after },
    };
    // After each cycle's start: warp 0's groups, and whether warp 1's group waits at
    // 0x1008.
    let mut seen = Vec::new();
    for now in 0..200 {
        let mut log = CycleLog {
            fills: vec![0; 2],
            ..CycleLog::default()
        };
        // One start pc a cycle (the RTL's `start_pc`): warp 1 starts a cycle later.
        if now < 2 {
            let (w, pc) = [(0, 0xfc), (1, 0x1000)][now as usize];
            ctl.start_warp(w, pc, 0xf);
            log.starts = vec![(w, pc, 0xf)];
        }
        ctl.begin_cycle(now).unwrap();
        let count0 = ctl.state(0).1.count();
        let waits1 = (ctl.state(1).1).any(|g| g.pc == 0x1008 && g.status == Status::Wait);
        seen.push((count0, waits1));
        let memory = |ctl: &mut DwsControl, id, hit: bool, latency: u64| {
            let (mask, ready) = ctl.memory_merge(id).unwrap();
            let satisfied = if hit { mask } else { 0 };
            let run = ctl.memory_done(id, satisfied, now + latency);
            LoggedOp::Memory {
                merged: Some((mask, ready)),
                satisfied,
                hit_delay: latency,
                run,
            }
        };
        let branch_op =
            |ctl: &mut DwsControl, id, o: BranchOutcome| LoggedOp::Branch(o, ctl.branch(id, o));
        log.action = Some(match ctl.action() {
            Action::Stall => {
                ctl.stall();
                Logged::Stall
            }
            Action::Control => Logged::Control,
            Action::Issue(p) => {
                let op = match (p.warp, p.pc) {
                    (0, 0xfc) => memory(&mut ctl, p.id, true, 20),
                    (0, 0x100) => branch_op(&mut ctl, p.id, branch(0b0011, 0x200, 0x300, 100)),
                    (0, 0x104) => branch_op(&mut ctl, p.id, branch(0b0100, 0x180, 0x300, 1)),
                    (0, 0x180) => memory(&mut ctl, p.id, true, 30),
                    (1, 0x1000) => branch_op(&mut ctl, p.id, branch(0b0011, 0x1100, 0x1200, 1)),
                    (1, 0x1004) => memory(&mut ctl, p.id, true, 25),
                    (1, 0x1100) => memory(&mut ctl, p.id, false, 3),
                    (1, 0x1008) => branch_op(&mut ctl, p.id, branch(0b0100, 0x1080, 0x1200, 1)),
                    (w, pc) => {
                        let next = (w == 0 && matches!(pc, 0x108 | 0x184 | 0x200)).then_some(0x300);
                        ctl.advance(p.id, next);
                        LoggedOp::Other(next)
                    }
                };
                Logged::Issue(p, op)
            }
        });
        seq.cycle(&log, &ctl.snapshot())
            .unwrap_or_else(|e| panic!("{e}"));
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

/// Random programs on random hit masks, every named configuration but slip (every split
/// policy, every re-convergence mode), WST sizes 2 (the WST-full fallback) and 16, 2-4
/// warps of 4, 16 or 32 threads, 4 slots or 2 N, answers in the issue cycle or 1-4
/// cycles late. The fast suite runs one program under five configurations covering each
/// policy and mode, three of them with late answers (about 2,000 cycles a second on the
/// IR simulator); `ACCELGEN_LONG=1` 12 programs under all of them, at once and late.
#[test]
fn random_programs_in_lockstep() {
    use verification::randgen::simt::{build_simt, SimtShape};
    let count = if rig::long() { 12 } else { 1 };
    // (configuration, WST entries, answer delay)
    let fast = [
        ("conv", 16, 0),
        ("branch-only.stack", 2, 3),
        ("lazy", 2, 1),
        ("revive", 16, 2),
        ("aggress.bl", 16, 0),
    ];
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
                let cfg = DwsConfig {
                    wst_entries: wst,
                    slots: if k % 2 == 0 { 0 } else { 4 },
                    answer_delay,
                    ..checked(2 + (seed % 3) as u32, [4, 16, 32][k % 3], name)
                };
                let mem = Box::new(RandomMemory(seed * 1000 + k as u64));
                let start = std::time::Instant::now();
                let n = lockstep(&program, cfg, mem);
                println!(
                    "program {seed}, {name}, {wst} WST entries, answers {answer_delay} cycles late: \
                     {n} cycles in lockstep ({:.1} s)",
                    start.elapsed().as_secs_f64()
                );
                cycles += n;
            }
        }
    }
    println!("{count} programs: {cycles} cycles in lockstep");
}

/// Kernels on the paper's cache hierarchy (4 warps of 16, 32 KB L1) under ReviveSplit.
#[test]
fn kernels_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let kernels: &[&str] = if rig::long() {
        &["bfs", "bsearch", "strsearch", "kmeans"]
    } else {
        &["bsearch"]
    };
    for name in kernels {
        let program = rig::build_kernel(dir.path(), name);
        let cfg = checked(4, 16, "revive");
        let mem = Box::new(CacheMemory::new(cfg.memory, cfg.warp_size));
        let cycles = lockstep(&program, cfg, mem);
        println!("{name}: {cycles} cycles in lockstep");
    }
}

/// The sequencer lints clean (Verilator, Yosys, Icarus) at the paper's shape, at the
/// extremes (one warp of one thread with 2 WST entries and 2 stack entries; 8 warps of
/// 32 with 32 WST entries, 16 slots, 32 stack entries) and at a shape with nothing a
/// power of two; every split policy and every re-convergence mode among them, the last
/// two with late answers.
#[test]
fn the_sequencer_is_lint_clean() {
    use generators::fgsimt::dws::params::{DwsParams, Reconv, SplitPolicy};
    let shapes = [
        DwsParams::default(),
        DwsParams {
            warps: 1,
            warp_size: 1,
            wst_entries: 2,
            stack_depth: 2,
            dws: SplitPolicy::Off,
            reconv: Reconv::Stack,
            ..DwsParams::default()
        },
        DwsParams {
            warps: 8,
            warp_size: 32,
            wst_entries: 32,
            slots: 16,
            stack_depth: 32,
            dws: SplitPolicy::Lazy,
            reconv: Reconv::Bl,
            branch_dws: false,
            late_answers: true,
            ..DwsParams::default()
        },
        // Nothing a power of two: 3 warps of 7, 5 slots (the round robin's wrap), 5
        // WST and 5 stack entries; AggressSplit, stack re-convergence.
        DwsParams {
            warps: 3,
            warp_size: 7,
            wst_entries: 5,
            slots: 5,
            stack_depth: 5,
            dws: SplitPolicy::Aggress,
            reconv: Reconv::Stack,
            branch_dws: false,
            late_answers: true,
            ..DwsParams::default()
        },
    ];
    let blocks: Vec<_> = shapes
        .iter()
        .map(|p| {
            p.validate().unwrap();
            sequencer(p).unwrap()
        })
        .collect();
    lint_rig::lint_blocks("dws sequencer", &blocks);
}
