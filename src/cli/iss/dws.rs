//! `--dws NAME`: the program's launches on the DWS model (seed 001;
//! `verification::fgsimt::dws`), with the machine and memory of `--dws-config`.

use super::{exit_status, IssArgs};
use anyhow::{bail, Context};
use serde::Deserialize;
use verification::fgsimt::dws::program::{run, DwsProgramError, DwsRun};
use verification::fgsimt::dws::{DwsConfig, LaunchStats, NAMED};
use verification::fgsimt::program::ProgramError;
use verification::iss::Xlen;

/// The configuration: `--dws-config`'s fields, then each `--dws-set` (default: 4 warps
/// of 16, Table 3's memory), then the named configuration's policy, branch splits and
/// re-convergence.
fn config(args: &IssArgs, name: &str) -> anyhow::Result<DwsConfig> {
    let table = crate::cli::params::parameters(args.dws_config.as_deref(), &args.dws_set)
        .map_err(|e| anyhow::anyhow!(e.to_string().replacen("--set ", "--dws-set ", 1)))?;
    let base = DwsConfig::deserialize(toml::Value::Table(table))
        .context("the DWS configuration (--dws-config, --dws-set)")?;
    let Some(cfg) = base.named(name) else {
        let names: Vec<&str> = NAMED.iter().map(|c| c.0).collect();
        bail!("--dws must be one of {}, got `{name}`", names.join(", "));
    };
    if let Err(why) = cfg.check() {
        bail!("the DWS configuration: {why}");
    }
    Ok(cfg)
}

pub fn run_dws(args: &IssArgs, name: &str) -> anyhow::Result<u8> {
    let cfg = config(args, name)?;
    let program = verification::elf::load_file(&args.program)
        .with_context(|| format!("loading {}", args.program.display()))?;
    if program.xlen != Xlen::Rv32 {
        bail!(
            "--dws runs SPMD kernels: {} is not an RV32 program",
            args.program.display()
        );
    }
    let (iss, r) = match run(&program, cfg, args.max_instret, args.max_instret) {
        Ok(done) => done,
        Err(DwsProgramError::Program(ProgramError::StepLimit(n))) => bail!(
            "step limit reached: the program did not exit within {n} host and kernel \
             instructions (--max-instret)"
        ),
        Err(e) => return Err(e.into()),
    };
    eprintln!(
        "dws model: {name}, {} warps of {} threads, {} slots, {} WST entries; L1 {} KB \
         {}-way, L2 {} cycles, memory +{}",
        cfg.warps,
        cfg.warp_size,
        cfg.slot_count(),
        cfg.wst_entries,
        cfg.memory.l1_kib,
        cfg.memory.l1_ways,
        cfg.memory.l2_latency,
        cfg.memory.memory_latency
    );
    for (i, l) in r.launches.iter().enumerate() {
        eprintln!("{}", describe(i + 1, l));
    }
    eprintln!("{}", memory(&r));
    Ok(exit_status(&args.program, &program, &iss, r.exit))
}

/// One launch's counters (spec section 4.3).
fn describe(n: usize, l: &LaunchStats) -> String {
    let pct = |a: u64| 100.0 * a as f64 / l.cycles.max(1) as f64;
    format!(
        "launch {n}: {} cycles ({:.1} % stalled, {:.1} % with a group waiting for memory), \
         {} warp instructions ({:.1} threads each), {} branches ({} divergent), {} memory \
         instructions ({} missed, {} divergent)\n  splits: {} at branches, {} on memory, {} \
         revived; merges: {} by pc, {} at post-dominators, {} at BL barriers; {} waits for \
         a WST entry, {} own frames, {} slip waits; at most {} WST entries, {} slots, {} \
         stack entries",
        l.cycles,
        pct(l.stall_cycles),
        pct(l.memory_stall_cycles),
        l.warp_instructions,
        l.thread_instructions as f64 / l.warp_instructions.max(1) as f64,
        l.branches,
        l.divergent_branches,
        l.memory_instructions,
        l.missed,
        l.divergent_memory,
        l.branch_splits,
        l.memory_splits,
        l.revive_splits,
        l.pc_merges,
        l.reconv_merges,
        l.barrier_merges,
        l.wst_waits,
        l.own_frames,
        l.slip_waits,
        l.max_wst,
        l.max_slotted,
        l.max_depth
    )
}

/// The cache hierarchy's counters.
fn memory(r: &DwsRun) -> String {
    let m = &r.memory;
    format!(
        "memory: {} L1 accesses, {} missed, {} lines from the L2 ({} missed there), {} \
         write-backs, {} bank-conflict cycles",
        m.accesses, m.misses, m.l2_requests, m.l2_misses, m.writebacks, m.conflict_cycles
    )
}
