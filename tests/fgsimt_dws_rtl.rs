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
//!   every re-convergence mode), at 2 WST entries (the WST-full fallback) and 16;
//! - kernels on the paper's cache hierarchy.
//!
//! `ACCELGEN_LONG=1`: more random programs, every kernel.

#[path = "vgiw_rig/mod.rs"]
mod rig;

use generators::fgsimt::dws::sequencer::sequencer;
use hdl::sim::Sim;
use hdl::Design;
use std::path::Path;
use verification::elf::Program;
use verification::fgsimt::dws::memory::{CacheMemory, MemorySystem, RandomMemory};
use verification::fgsimt::dws::{DwsConfig, Machine, NAMED};
use verification::fgsimt::program::{host, run_host, ProgramError};
use verification::iss::IssConfig;
use verification::tb::dws_seq::{params_of, SeqLockstep};

/// Stack entries a warp in the RTL.
const DEPTH: u32 = 16;

/// Runs `program` on the model of `cfg` over `mem` with the RTL in lockstep; returns
/// the cycles compared.
fn lockstep(program: &Program, cfg: DwsConfig, mem: Box<dyn MemorySystem>) -> u64 {
    let p = params_of(&cfg, DEPTH).expect("a configuration the RTL has");
    let mut dut = Sim::new(&Design::new(&sequencer(&p).unwrap()));
    dut.poke_u64("reset", 1).unwrap();
    dut.step();
    dut.poke_u64("reset", 0).unwrap();
    let mut seq = SeqLockstep::new(dut, p);
    let mut iss = host(program, IssConfig::default()).unwrap();
    let mut machine = Machine::new(cfg, mem);
    let exit = run_host(&mut iss, rig::MAX_STEPS, |iss, launch| {
        machine.start(iss, launch).unwrap();
        while !machine.cycle(iss).unwrap() {
            seq.cycle(machine.log(), &machine.snapshot())
                .unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            assert!(machine.now() < 2_000_000, "the launch does not end");
        }
        Ok::<(), ProgramError>(())
    })
    .unwrap();
    assert_eq!(exit, 0);
    seq.cycles
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
    for name in [
        "conv",
        "branch-only",
        "branch-only.stack",
        "revive",
        "aggress.bl",
    ] {
        let cycles = lockstep(&program, checked(1, 8, name), Box::new(RandomMemory(7)));
        println!("dws.S, {name}: {cycles} cycles in lockstep");
    }
}

/// Random programs on random hit masks, every named configuration but slip, WST sizes
/// 2 and 16.
#[test]
fn random_programs_in_lockstep() {
    use verification::randgen::simt::{build_simt, SimtShape};
    let count = if rig::long() { 12 } else { 2 };
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
            if name.starts_with("slip") {
                continue;
            }
            for wst in [2, 16] {
                let cfg = DwsConfig {
                    wst_entries: wst,
                    slots: if k % 2 == 0 { 0 } else { 4 },
                    ..checked(2 + (seed % 3) as u32, [4, 16, 32][k % 3], name)
                };
                let mem = Box::new(RandomMemory(seed * 1000 + k as u64));
                cycles += lockstep(&program, cfg, mem);
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
