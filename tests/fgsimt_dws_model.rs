//! The DWS golden model (`verification::fgsimt::dws`, seed 001) against spec section 7:
//! Fig. 3's stack vector cycle by cycle; injected hit and miss masks for each split
//! policy; PC-based merging after a loop run-ahead; every re-convergence mode; the
//! static selection of branches; the WST-full fallback without deadlock; invariants
//! I1-I3 every cycle under random programs and random memory; and every kernel's
//! memory identical to the ISS running its threads one after another, under every named
//! configuration.

#[path = "vgiw_rig/mod.rs"]
mod rig;

use std::path::Path;
use verification::elf::Program;
use verification::fgsimt::dws::control::DwsControl;
use verification::fgsimt::dws::memory::{
    Answer, CacheMemory, MemoryConfig, MemoryStats, MemorySystem, RandomMemory, ThreadAccess,
};
use verification::fgsimt::dws::program::{run, run_with};
use verification::fgsimt::dws::{
    DwsConfig, Frame, LaunchStats, Machine, Reconv, SplitPolicy, NAMED,
};
use verification::fgsimt::program::{host, run_host, ProgramError};
use verification::iss::{Iss, IssConfig};

/// Cycles a launch may take.
const MAX_CYCLES: u64 = 1 << 32;

/// `tests/fgsimt_cases/dws.S`, built.
fn directed(dir: &Path) -> Program {
    let src = rig::root().join("tests/fgsimt_cases/dws.S");
    rig::build(dir, &[src], "dws")
}

/// A memory whose answers a test scripts: `latency(now, warp, pc, lane)` is `None` for a
/// hit (data 3 cycles later), else the miss's latency.
struct Scripted<F: FnMut(u64, usize, u64, u32) -> Option<u64>>(F);

impl<F: FnMut(u64, usize, u64, u32) -> Option<u64>> MemorySystem for Scripted<F> {
    fn access(&mut self, now: u64, warp: usize, pc: u64, accesses: &[ThreadAccess]) -> Answer {
        let lat: Vec<Option<u64>> = accesses
            .iter()
            .map(|a| (self.0)(now, warp, pc, a.lane))
            .collect();
        Answer {
            arrive: lat.iter().map(|l| now + l.unwrap_or(3)).collect(),
            hit: lat.iter().map(|l| l.is_none()).collect(),
            conflicts: 0,
        }
    }
    fn hit_latency(&self) -> u64 {
        3
    }
    fn stats(&self) -> MemoryStats {
        MemoryStats::default()
    }
}

/// Runs `program` on a machine of `cfg` over `mem`, calling `observe(launch, machine)`
/// after every cycle: the ISS after the run and each launch's counters.
fn drive(
    program: &Program,
    cfg: DwsConfig,
    mem: Box<dyn MemorySystem>,
    mut observe: impl FnMut(usize, &Machine),
) -> (Iss, Vec<LaunchStats>) {
    let mut iss = host(program, IssConfig::default()).unwrap();
    let mut machine = Machine::new(cfg, mem);
    let mut stats = Vec::new();
    let exit = run_host(&mut iss, rig::MAX_STEPS, |iss, launch| {
        machine.start(iss, launch).unwrap();
        while !machine
            .cycle(iss)
            .unwrap_or_else(|e| panic!("launch {}: {e}", stats.len()))
        {
            observe(stats.len(), &machine);
            assert!(
                machine.now() < 1_000_000,
                "launch {} does not end",
                stats.len()
            );
        }
        stats.push(machine.stats());
        Ok::<(), ProgramError>(())
    })
    .unwrap();
    assert_eq!(exit, 0);
    (iss, stats)
}

fn checked(warps: u32, warp_size: u32) -> DwsConfig {
    DwsConfig {
        warps,
        warp_size,
        check: true,
        ..DwsConfig::default()
    }
}

/// Fig. 3 with DWS off: A runs with all 8 threads; the branch pushes D's re-convergence
/// entry, C's and B's (B on top); B runs with 0xf9, pops at D; C runs with 0x06, pops;
/// D runs with 0xff. The stack and the group, every cycle. With branch DWS the branch
/// splits instead (the stack untouched) and the two groups merge by pc at D's store.
#[test]
fn fig3_stack_vector_cycle_by_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let sym = |s: &str| program.symbol(s).unwrap();
    let (a, b, c, d) = (sym("fig3"), sym("fig3_b"), sym("fig3_c"), sym("fig3_d"));
    const EXIT: u64 = 0;
    let frame = |pc, rpc, mask| Frame { pc, rpc, mask };
    // The phases: the stack, the group's depth and mask, and its pc range.
    // (A group at its entry's post-dominator D pops at its next pick.)
    let pcs = |from: u64, to: u64, extra: &[u64]| -> Vec<u64> {
        (from..to).step_by(4).chain(extra.iter().copied()).collect()
    };
    let phases = [
        (vec![frame(a, EXIT, 0xff)], 0, 0xff, pcs(a, b, &[])),
        (
            vec![frame(d, EXIT, 0xff), frame(c, d, 0x06), frame(b, d, 0xf9)],
            2,
            0xf9,
            pcs(b, c, &[d]),
        ),
        (
            vec![frame(d, EXIT, 0xff), frame(c, d, 0x06)],
            1,
            0x06,
            pcs(c, d, &[d]),
        ),
        (vec![frame(d, EXIT, 0xff)], 0, 0xff, pcs(d, d + 8, &[])),
    ];
    let mut seen: Vec<usize> = Vec::new();
    let mut cycles = 0;
    let (iss, _) = drive(
        &program,
        checked(1, 8).named("conv").unwrap(),
        Box::new(Scripted(|_, _, _, _| None)),
        |launch, m| {
            if launch != 0 {
                return;
            }
            let (frames, groups) = m.warp_state(0);
            if frames.is_empty() {
                return;
            }
            cycles += 1;
            assert_eq!(groups.len(), 1, "one group without DWS: {groups:?}");
            let g = groups[0];
            let phase = phases
                .iter()
                .position(|(f, depth, mask, pcs)| {
                    *f == frames && g.depth == *depth && g.mask == *mask && pcs.contains(&g.pc)
                })
                .unwrap_or_else(|| {
                    panic!(
                        "cycle {}: stack {frames:x?}, group {g:x?} is no phase of Fig. 3",
                        m.now()
                    )
                });
            if seen.last() != Some(&phase) {
                seen.push(phase);
            }
        },
    );
    assert_eq!(seen, [0, 1, 2, 3], "the phases in Fig. 3's order");
    assert!(cycles > 10);
    let (seq_exit, seq) = rig::iss_run(&program);
    assert_eq!(seq_exit, 0);
    assert!(rig::same_memory(&program, &iss, &seq));

    // Branch DWS (BranchBypass): the same branch splits; the stack keeps one entry.
    let cfg = DwsConfig {
        check: true,
        ..checked(1, 8).named("branch-only").unwrap()
    };
    let mut max_groups = 0;
    let (iss, stats) = drive(
        &program,
        cfg,
        Box::new(Scripted(|now, _, _, _| {
            Some(200u64.saturating_sub(now).max(4))
        })),
        |launch, m| {
            if launch == 0 {
                let (frames, groups) = m.warp_state(0);
                assert!(frames.len() <= 1, "the stack is not pushed: {frames:x?}");
                if groups.len() == 2 {
                    let masks: Vec<u32> = groups.iter().map(|g| g.mask).collect();
                    assert_eq!(masks, [0xf9, 0x06]);
                }
                max_groups = max_groups.max(groups.len());
            }
        },
    );
    assert_eq!(max_groups, 2);
    assert_eq!(
        (stats[0].branch_splits, stats[0].pc_merges),
        (1, 1),
        "{:?}",
        stats[0]
    );
    assert!(rig::same_memory(&program, &iss, &seq));
}

/// An issued warp instruction: cycle, warp, pc, mask.
type Issued = (u64, usize, u64, u32);

/// Each cycle's issued instruction of launch `which`, and the
/// launches' counters, for `cfg` over scripted memory.
fn issues(
    program: &Program,
    cfg: DwsConfig,
    which: usize,
    latency: impl FnMut(u64, usize, u64, u32) -> Option<u64> + 'static,
    mut each: impl FnMut(&Machine),
) -> (Vec<Issued>, Vec<LaunchStats>) {
    let mut log = Vec::new();
    let (_, stats) = drive(program, cfg, Box::new(Scripted(latency)), |launch, m| {
        if launch == which {
            if let Some(i) = m.last_issue() {
                log.push((i.cycle, i.warp, i.pc, i.mask));
            }
            each(m);
        }
    });
    (log, stats)
}

/// Spec 7.4: injected hit masks at `mem`'s load (launch 1: one warp of 16; launch 2:
/// two warps).
#[test]
fn injected_hit_masks_split_as_each_policy_says() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let load = program.symbol("dws_load").unwrap();
    let one = |policy: &str| checked(1, 16).named(policy).unwrap();
    let first =
        |log: &[(u64, usize, u64, u32)], pc: u64| log.iter().position(|e| e.2 == pc).unwrap();

    // M = 0: the next instruction issues 3 cycles after the load.
    let (log, _) = issues(&program, one("aggress"), 1, |_, _, _, _| None, |_| {});
    let i = first(&log, load);
    assert_eq!((log[i + 1].0 - log[i].0, log[i + 1].2), (3, load + 4));

    // H = 0: the whole group waits, then replays the load with every thread.
    let (log, stats) = issues(
        &program,
        one("aggress"),
        1,
        move |_, _, pc, _| (pc == load).then_some(50),
        |_| {},
    );
    let i = first(&log, load);
    assert_eq!(log[i + 1], (log[i].0 + 50, 0, load, 0xffff), "{log:x?}");
    assert_eq!(stats[1].memory_splits, 0);

    // Mixed: Aggress splits (run-ahead at load + 4 after 3 cycles, fall-behind replays
    // at the load when its last thread's data is there: thread 15's, at 60).
    let mixed = move |_: u64, _: usize, pc: u64, lane: u32| {
        (pc == load && lane >= 8).then_some(40 + 20 * u64::from(lane == 15))
    };
    let (log, stats) = issues(&program, one("aggress"), 1, mixed, |_| {});
    let i = first(&log, load);
    let t = log[i].0;
    assert_eq!(log[i + 1], (t + 3, 0, load + 4, 0x00ff), "{log:x?}");
    let replay = log.iter().find(|e| e.0 > t && e.2 == load).unwrap();
    assert_eq!(
        *replay,
        (t + 60, 0, load, 0xff00),
        "the fall-behind replays when its last line is in"
    );
    assert_eq!(stats[1].memory_splits, 1);

    // Lazy and Revive split with no other group ready (one warp)...
    for policy in ["lazy", "revive"] {
        let (_, stats) = issues(&program, one(policy), 1, mixed, |_| {});
        assert_eq!(stats[1].memory_splits, 1, "{policy}");
    }
    // ... but not while another warp's group is ready (launch 2: warp 0's first load
    // issues while warp 1 waits to run); Aggress always.
    let two = |policy: &str| checked(2, 16).named(policy).unwrap();
    let first_load_splits = |policy: &str| {
        let mut groups_after = None;
        let mut seen = false;
        issues(&program, two(policy), 2, mixed, |m| {
            if !seen && m.last_issue().is_some_and(|i| i.pc == load) {
                seen = true;
                groups_after = Some(m.warp_state(m.last_issue().unwrap().warp).1.len());
            }
        });
        groups_after.unwrap() == 2
    };
    assert!(first_load_splits("aggress"));
    assert!(!first_load_splits("lazy"));
    assert!(!first_load_splits("revive"));

    // Revive: suspended groups with threads arrived are split when the pipeline stalls,
    // at most one a cycle.
    let mut per_cycle = Vec::new();
    let mut last = 0;
    let (_, stats) = issues(&program, two("revive"), 2, mixed, |m| {
        per_cycle.push(m.stats().revive_splits - last);
        last = m.stats().revive_splits;
    });
    assert!(stats[2].revive_splits >= 1, "{:?}", stats[2]);
    assert!(per_cycle.iter().all(|&n| n <= 1));
}

/// Late answers (`answer_delay` = 4, an engine's pipeline): Fig. 3's branch is decided
/// 4 cycles after its issue (B runs then, not the next cycle); a load's group waits 4
/// cycles for its answer, then 3 for its hits' data, and splits by the hit mask at the
/// answer; while warp 0 awaits, warp 1 issues and warp 0 does not.
#[test]
fn late_answers_hold_their_warp_until_they_come() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let (load, b) = (
        program.symbol("dws_load").unwrap(),
        program.symbol("fig3_b").unwrap(),
    );
    let late = |warps, size, policy: &str| DwsConfig {
        answer_delay: 4,
        ..checked(warps, size).named(policy).unwrap()
    };
    let first =
        |log: &[(u64, usize, u64, u32)], pc: u64| log.iter().position(|e| e.2 == pc).unwrap();

    // Fig. 3 (launch 0): the branch (just before B) at t, B with 0xf9 at t + 4.
    let (log, _) = issues(&program, late(1, 8, "conv"), 0, |_, _, _, _| None, |_| {});
    let i = first(&log, b - 4);
    assert_eq!(log[i + 1], (log[i].0 + 4, 0, b, 0xf9), "{log:x?}");

    // All hits: the next instruction 4 + 3 cycles after the load.
    let (log, _) = issues(
        &program,
        late(1, 16, "aggress"),
        1,
        |_, _, _, _| None,
        |_| {},
    );
    let i = first(&log, load);
    assert_eq!((log[i + 1].0 - log[i].0, log[i + 1].2), (7, load + 4));

    // Mixed: the split at the answer (t + 4); the run-ahead at t + 7, the fall-behind
    // replays when thread 15's line is in (60 cycles after the access at t + 4).
    let mixed = move |_: u64, _: usize, pc: u64, lane: u32| {
        (pc == load && lane >= 8).then_some(40 + 20 * u64::from(lane == 15))
    };
    let (log, stats) = issues(&program, late(1, 16, "aggress"), 1, mixed, |_| {});
    let i = first(&log, load);
    let t = log[i].0;
    assert_eq!(log[i + 1], (t + 7, 0, load + 4, 0x00ff), "{log:x?}");
    let replay = log.iter().find(|e| e.0 > t && e.2 == load).unwrap();
    assert_eq!(*replay, (t + 64, 0, load, 0xff00), "{log:x?}");
    assert_eq!(stats[1].memory_splits, 1);

    // Two warps (launch 2): warp 0's first load at t; warp 1 issues before t + 4, warp
    // 0 nothing before t + 7.
    let (log, _) = issues(&program, late(2, 16, "aggress"), 2, mixed, |_| {});
    let i = first(&log, load);
    let t = log[i].0;
    let between = |w: usize, end: u64| log.iter().filter(move |e| e.1 == w && e.0 > t && e.0 < end);
    assert_eq!(log[i].1, 0, "{log:x?}");
    assert!(between(1, t + 4).count() > 0, "{log:x?}");
    assert_eq!(between(0, t + 7).count(), 0, "{log:x?}");
}

/// Scripted latencies: thread 0's first access at `pc` misses for `latency` cycles,
/// everything else hits (each copy of the closure starts afresh).
fn first_miss(pc: u64, latency: u64) -> impl FnMut(u64, usize, u64, u32) -> Option<u64> + Copy {
    let mut first = true;
    move |_, _, at, lane| {
        let miss = at == pc && lane == 0 && first;
        if at == pc && lane == 0 {
            first = false;
        }
        miss.then_some(latency)
    }
}

/// Spec 7.5: the loop's first load misses for thread 0 alone (Aggress): the run-ahead
/// runs at least two iterations ahead, and merges with the fall-behind when it reaches
/// the load again while the fall-behind is ready there. With stack re-convergence no
/// merge happens; the results are the ISS's either way.
#[test]
fn a_loop_run_ahead_merges_by_pc() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let load = program.symbol("dws_loop_load").unwrap();
    let (_, seq) = rig::iss_run(&program);
    let miss_once = first_miss(load, 40);
    for (reconv, merges) in [(Reconv::Bypass, 1), (Reconv::Stack, 0)] {
        let cfg = DwsConfig {
            dws: SplitPolicy::Aggress,
            reconv,
            ..checked(1, 16)
        };
        let (log, stats) = issues(&program, cfg, 3, miss_once, |_| {});
        assert_eq!(stats[3].memory_splits, 1);
        assert_eq!(stats[3].pc_merges, merges, "{reconv:?}");
        let ahead = log.iter().filter(|e| e.2 == load && e.3 == 0xfffe).count();
        assert!(
            ahead >= 3,
            "the run-ahead issued the load {ahead} times alone"
        );
        if merges == 1 {
            assert!(
                log.iter().any(|e| e.2 == load + 4 && e.3 == 0xffff),
                "merged after the load"
            );
        }
        let (iss, _) = drive(&program, cfg, Box::new(Scripted(miss_once)), |_, _| {});
        assert!(rig::same_memory(&program, &iss, &seq));
    }
}

/// Spec 7.6: with BL the loop's branch is a barrier: the run-ahead waits there until the
/// fall-behind arrives, they merge, and the branch runs for the whole warp.
#[test]
fn branch_limited_splits_meet_at_the_branch() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let load = program.symbol("dws_loop_load").unwrap();
    let branch = load + 16;
    let cfg = checked(1, 16).named("aggress.bl").unwrap();
    let miss = move |_: u64, _: usize, pc: u64, lane: u32| (pc == load && lane == 0).then_some(40);
    let (log, stats) = issues(&program, cfg, 3, miss, |m| {
        let (_, groups) = m.warp_state(0);
        if groups.len() > 1 {
            assert!(
                groups.iter().all(|g| g.pc <= branch),
                "no group passes the branch while divided: {groups:x?}"
            );
        }
    });
    assert_eq!(stats[3].memory_splits, 8, "one split an iteration");
    assert_eq!(stats[3].barrier_merges, 8);
    assert!(log.iter().filter(|e| e.2 == branch).all(|e| e.3 == 0xffff));
}

/// Spec 7.7: a branch splits an undivided warp only if the block after its post-dominator
/// (Fig. 3's D: a store and the return, 2 instructions) is at most `short_block` long.
#[test]
fn static_selection_by_the_block_after_the_post_dominator() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    for (short_block, splits) in [(1, 0), (2, 1), (50, 1)] {
        let cfg = DwsConfig {
            short_block,
            ..checked(1, 8).named("branch-only").unwrap()
        };
        let (_, stats) = issues(&program, cfg, 0, |_, _, _, _| None, |_| {});
        assert_eq!(stats[0].branch_splits, splits, "short_block {short_block}");
        assert_eq!(stats[0].divergent_branches, 1);
    }
}

/// Spec 7.1, 7.3 and the WST-full fallback: random programs (divergent branches,
/// per-thread loops, every memory mode, AMOs) on random hit masks, under every named
/// configuration at several WST sizes (2 entries: the fallback's own frames; at 5 the
/// answers come 1-4 cycles late), with I1-I3 checked every cycle, end with the ISS's
/// memory. `ACCELGEN_LONG=1`: 60 programs.
#[test]
fn random_programs_keep_the_invariants_and_the_iss_results() {
    use verification::randgen::simt::{build_simt, results, SimtShape};
    let count = if rig::long() { 60 } else { 6 };
    let dir = tempfile::tempdir().unwrap();
    let mut totals = LaunchStats::default();
    for seed in 0..count {
        let elf = build_simt(
            seed,
            SimtShape {
                len: 60,
                fp: seed % 2 == 1,
            },
            dir.path(),
        )
        .unwrap();
        let program = verification::elf::load_file(&elf).unwrap();
        let (exit, seq) = rig::iss_run(&program);
        assert_eq!(exit, 0);
        let expected = results(&seq, &program);
        for (k, (name, ..)) in NAMED.iter().enumerate() {
            for wst in [2, 5, 16] {
                let cfg = DwsConfig {
                    wst_entries: wst,
                    slots: if k % 2 == 0 { 0 } else { 4 },
                    // Late answers at 5 WST entries.
                    answer_delay: if wst == 5 {
                        1 + (seed + k as u64) % 4
                    } else {
                        0
                    },
                    ..checked(2 + (seed % 3) as u32, [4, 16, 32][k % 3])
                        .named(name)
                        .unwrap()
                };
                let mem = Box::new(RandomMemory(seed * 1000 + k as u64));
                let (iss, r) = run_with(&program, cfg, mem, (rig::MAX_STEPS, MAX_CYCLES))
                    .unwrap_or_else(|e| panic!("seed {seed}, {name}, wst {wst}: {e}"));
                assert_eq!(r.exit, 0);
                assert!(
                    results(&iss, &program) == expected,
                    "seed {seed}, {name}, wst {wst}"
                );
                totals += &r.summed();
            }
        }
    }
    println!("{count} programs: {totals:?}");
    let t = totals;
    for (what, n) in [
        ("branch splits", t.branch_splits),
        ("memory splits", t.memory_splits),
        ("revive splits", t.revive_splits),
        ("pc merges", t.pc_merges),
        ("merges at post-dominators", t.reconv_merges),
        ("BL barrier merges", t.barrier_merges),
        ("waits for a WST entry", t.wst_waits),
        ("frames of the fallback", t.own_frames),
        ("slip waits", t.slip_waits),
    ] {
        assert!(n > 0, "no {what} in {count} programs: {t:?}");
    }
}

/// Spec 7.1: every kernel of `kernels/` ends with the ISS's memory under the named
/// configurations on the paper's cache hierarchy (4 warps of 16, 32 KB L1), with the
/// invariants checked every cycle, answers in the issue cycle and late (3 and 5 cycles).
/// `ACCELGEN_LONG=1`: all twelve configurations, answers at once and 4 cycles late, and
/// the Rodinia kernels.
#[test]
fn every_kernel_matches_the_iss_under_dws() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = verification::kernels::programs("");
    // (configuration, answer delay)
    let configs: Vec<(&str, u64)> = if rig::long() {
        names.extend(verification::kernels::programs("rodinia"));
        NAMED.iter().flat_map(|c| [(c.0, 0), (c.0, 4)]).collect()
    } else {
        vec![
            ("conv", 0),
            ("revive", 0),
            ("revive", 5),
            ("lazy.bl", 3),
            ("branch-only.stack", 0),
        ]
    };
    for name in &names {
        let program = rig::build_kernel(dir.path(), name);
        let (exit, seq) = rig::iss_run(&program);
        assert_eq!(exit, 0);
        for &(c, answer_delay) in &configs {
            let cfg = DwsConfig {
                answer_delay,
                ..checked(4, 16).named(c).unwrap()
            };
            let (iss, r) = run(&program, cfg, rig::MAX_STEPS, MAX_CYCLES)
                .unwrap_or_else(|e| panic!("{name}, {c}, answer delay {answer_delay}: {e}"));
            assert_eq!(r.exit, 0, "{name}, {c}");
            assert!(rig::same_memory(&program, &iss, &seq), "{name}, {c}");
        }
    }
}

fn access(lane: u32, addr: u64, write: bool) -> ThreadAccess {
    ThreadAccess { lane, addr, write }
}

/// The cache hierarchy's timing (Table 3's shape, small): a cold miss costs the L2's
/// and the memory's latency, a secondary miss joins the line's MSHR, a hit 3 cycles plus
/// one a bank conflict, an L1 miss that hits the L2 the L2's latency; misses go to the
/// L2 one line a cycle and wait for a free MSHR; LRU eviction writes dirty lines back.
#[test]
fn the_cache_hierarchy_times_hits_misses_and_mshrs() {
    let cfg = MemoryConfig {
        l1_kib: 1,
        l1_ways: 2,
        mshrs: 2,
        mshr_requests: 2,
        l2_kib: 64,
        l2_ways: 4,
        ..MemoryConfig::default()
    };
    let mut m = CacheMemory::new(cfg, 4);
    let a = m.access(0, 0, 0, &[access(0, 0x1000, false)]);
    assert_eq!(
        (a.arrive, a.hit),
        (vec![130], vec![false]),
        "cold: 30 + 100"
    );
    let a = m.access(
        5,
        0,
        0,
        &[
            access(1, 0x1004, false),
            access(2, 0x1008, false),
            access(3, 0x100c, false),
        ],
    );
    assert_eq!(
        a.arrive,
        [130, 133, 133],
        "two requests an MSHR, then after the fill"
    );
    let a = m.access(
        200,
        0,
        0,
        &[access(0, 0x1000, true), access(1, 0x1010, false)],
    );
    assert_eq!(
        (a.arrive, a.hit, a.conflicts),
        (vec![204, 204], vec![true, true], 1),
        "bank 0 twice"
    );
    // Two more lines of the same set (4 sets of 128 B): the LRU (0x1000, dirty) goes.
    let a = m.access(
        300,
        0,
        0,
        &[
            access(0, 0x1200, false),
            access(1, 0x1400, false),
            access(2, 0x1800, false),
        ],
    );
    assert_eq!(
        a.arrive,
        [430, 431, 430 + 130],
        "one a cycle; the third waits for an MSHR"
    );
    let a = m.access(1000, 0, 0, &[access(0, 0x1000, false)]);
    assert_eq!(a.arrive, [1030], "an L2 hit");
    let s = m.stats();
    assert_eq!(
        (s.l2_requests, s.l2_misses, s.writebacks),
        (5, 4, 1),
        "{s:?}"
    );
}

/// The clock runs on across launches (the memory's fills and sends are absolute), and a
/// launch's single cold miss costs what the paper's latencies say.
#[test]
fn launches_share_the_memory_clock() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let cfg = checked(4, 16);
    let mut spans: Vec<(u64, u64)> = Vec::new();
    let mem = Box::new(CacheMemory::new(cfg.memory, 16));
    let (_, stats) = drive(&program, cfg, mem, |launch, m| {
        if spans.len() == launch {
            spans.push((m.now(), m.now()));
        }
        spans[launch].1 = m.now();
    });
    assert!(spans.windows(2).all(|w| w[1].0 > w[0].1), "{spans:?}");
    // mem, one warp: 4 instructions, the load's miss (130) and replay, 2 adds, the
    // store (a hit on the same line), the return.
    assert!((140..160).contains(&stats[1].cycles), "{stats:?}");
}

/// A divergent branch that re-converges where its entry already does (a loop's exit
/// branch, again each iteration) replaces the entry: the stack grows with the nesting
/// of divergent code, not with trip counts (`diverge.c`: per-thread loops inside
/// divergent ifs, at most 5 entries).
#[test]
fn loops_do_not_grow_the_stack() {
    let dir = tempfile::tempdir().unwrap();
    let src = rig::root().join("tests/simt_cases/diverge.c");
    let program = rig::build(dir.path(), &[src], "diverge");
    let (_, seq) = rig::iss_run(&program);
    let (iss, r) = run(&program, checked(4, 16), rig::MAX_STEPS, MAX_CYCLES).unwrap();
    assert!(rig::same_memory(&program, &iss, &seq));
    let s = r.summed();
    assert!(s.divergent_branches > 100, "{s:?}");
    assert!(s.max_depth <= 5, "{s:?}");
}

/// Spec 7.3 and 7.6 on `nest` (launch 4, W = 8, branch DWS at `short_block` 2): the outer
/// branch (6 instructions after its post-dominator) pushes the stack; the inner one (2)
/// splits the even threads. An undivided warp holds no WST entry, the split takes 2, the
/// merge frees them. With stack re-convergence the two groups merge only when both wait
/// at the top of stack's post-dominator (`nest_join`), the stack untouched until then;
/// BranchBypass merges the same way here (no memory instruction between).
#[test]
fn splits_merge_at_the_top_of_stack_post_dominator() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let join = program.symbol("nest_join").unwrap();
    let (_, seq) = rig::iss_run(&program);
    for reconv in [Reconv::Stack, Reconv::Bypass] {
        let cfg = DwsConfig {
            branch_dws: true,
            short_block: 2,
            reconv,
            ..checked(1, 8)
        };
        let mut before: Option<Vec<u64>> = None;
        let mut wst = Vec::new();
        let mut merged_at = Vec::new();
        let (iss, stats) = drive(
            &program,
            cfg,
            Box::new(Scripted(|_, _, _, _| None)),
            |launch, m| {
                if launch != 4 {
                    return;
                }
                let (frames, groups) = m.warp_state(0);
                if wst.last() != Some(&m.wst_used()) {
                    wst.push(m.wst_used());
                }
                if groups.len() == 2 {
                    assert_eq!(
                        frames.len(),
                        3,
                        "the split leaves the stack alone: {frames:x?}"
                    );
                    assert!(
                        groups.iter().all(|g| g.mask & 0xaa == 0),
                        "even threads split: {groups:x?}"
                    );
                }
                let pcs: Vec<u64> = groups.iter().map(|g| g.pc).collect();
                if let Some(prev) = before.take() {
                    if prev.len() == 2 && groups.len() == 1 {
                        merged_at = prev;
                    }
                }
                before = Some(pcs);
            },
        );
        let s = stats[4];
        assert_eq!(
            (s.divergent_branches, s.branch_splits, s.reconv_merges),
            (2, 1, 1),
            "{reconv:?}: {s:?}"
        );
        assert_eq!(
            merged_at,
            [join, join],
            "{reconv:?}: both wait at the post-dominator"
        );
        assert_eq!(wst, [0, 2, 0], "{reconv:?}: WST entries in use");
        assert!(rig::same_memory(&program, &iss, &seq));
    }
}

/// With fewer lanes than threads a warp instruction holds the issue stage for
/// warp_size / lanes cycles (the FG-SIMT engine's shape): Fig. 3's launch issues every 4
/// cycles at 2 lanes for 8 threads, with the same instructions; a lane count that does
/// not divide the warp is refused.
#[test]
fn fewer_lanes_than_threads_issue_every_warp_size_over_lanes_cycles() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let run_at = |lanes| {
        let cfg = DwsConfig {
            lanes,
            ..checked(1, 8)
        };
        issues(&program, cfg, 0, |_, _, _, _| None, |_| {})
    };
    let (one, s1) = run_at(0);
    let (four, s4) = run_at(2);
    assert_eq!(s1[0].warp_instructions, s4[0].warp_instructions);
    let pcs = |log: &[Issued]| log.iter().map(|e| e.2).collect::<Vec<_>>();
    assert_eq!(pcs(&one), pcs(&four));
    assert!(four.windows(2).all(|w| w[1].0 - w[0].0 >= 4), "{four:?}");
    assert!(
        s4[0].cycles > 4 * (s4[0].warp_instructions - 1),
        "{:?}",
        s4[0]
    );
    let bad = DwsConfig {
        lanes: 3,
        ..checked(1, 8)
    };
    assert_eq!(
        bad.check(),
        Err("lanes 3 does not divide warp_size 8".into())
    );
}

/// Spec 2.8's adaptive slip: the loop's first load misses for thread 0 (200 cycles).
/// Slip (branches as barriers) stops the run-ahead at the loop's branch; Slip.BranchBypass
/// lets it complete at most the limit of memory instructions, then it waits at the next,
/// where the fall-behind merges it (a limit of 3: the load issued alone at most twice);
/// the ISS's results. The limit moves by the paper's thresholds each
/// interval, never below 0.
#[test]
fn slip_bounds_the_run_ahead_and_adapts() {
    let dir = tempfile::tempdir().unwrap();
    let program = directed(dir.path());
    let load = program.symbol("dws_loop_load").unwrap();
    let (_, seq) = rig::iss_run(&program);
    let miss_once = first_miss(load, 200);
    for (name, limit) in [("slip", 3), ("slip.bypass", 1), ("slip.bypass", 3)] {
        let cfg = DwsConfig {
            slip_start: limit,
            ..checked(1, 16).named(name).unwrap()
        };
        let (log, stats) = issues(&program, cfg, 3, miss_once, |_| {});
        let s = stats[3];
        let alone = log.iter().filter(|e| e.2 == load && e.3 == 0xfffe).count();
        assert_eq!(s.memory_splits, 1, "{name}: {s:?}");
        if name == "slip" {
            // Without predication the run-ahead stalls at the loop's branch.
            assert_eq!((alone, s.barrier_merges, s.slip_waits), (0, 1, 0), "{s:?}");
        } else {
            assert!(
                alone < limit as usize,
                "{name} {limit}: {alone} loads ahead"
            );
            // Each wait ends in a merge (a second one at the store after the loop,
            // where the run-ahead, a trip ahead, arrives first).
            assert!(s.slip_waits >= 1, "{name} {limit}: {s:?}");
            assert_eq!(s.pc_merges, s.slip_waits, "{name} {limit}: {s:?}");
        }
        let (iss, _) = drive(&program, cfg, Box::new(Scripted(miss_once)), |_, _| {});
        assert!(rig::same_memory(&program, &iss, &seq));
    }
    let mut ctl = DwsControl::new(DwsConfig {
        slip_interval: 10,
        ..DwsConfig::default().named("slip").unwrap()
    });
    // Intervals of 10 cycles: (cycles stalled on memory, cycles issuing). Over 70 %
    // stalled raises the limit, else over 50 % issuing lowers it; exactly 70 % and
    // 50 % do neither.
    let mut limits = Vec::new();
    for (stalled, issuing) in [
        (10, 0),
        (7, 0),
        (8, 0),
        (0, 5),
        (0, 6),
        (0, 10),
        (0, 10),
        (0, 10),
    ] {
        for c in 0..10 {
            ctl.end_cycle(c < issuing, c >= 10 - stalled);
        }
        limits.push(ctl.slip_limit());
    }
    assert_eq!(limits, [2, 2, 3, 3, 2, 1, 0, 0]);
}
