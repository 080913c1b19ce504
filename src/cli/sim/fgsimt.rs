//! `accelgen sim fgsimt --program K.elf [--lockstep]`: an SPMD program on the FG-SIMT
//! tile (`verification::tb::fgsimt`), with the memory flags of `sim rocket`.

use super::SimArgs;
use crate::cli::iss::process_status;
use anyhow::Context;
use generators::fgsimt::params::FgsimtParams;
use std::path::Path;
use verification::elf::Program;
use verification::exit::explain;
use verification::fgsimt::affine::Mechanisms;
use verification::fgsimt::dws::directory::{self, Directory, DirectoryShape};
use verification::fgsimt::dws::machine::LaunchStats;
use verification::tb::fgsimt::{self, FgsimtConfig, FgsimtOutcome};
use verification::tb::kernel_check::KernelShape;
use verification::verilator::Model;

/// Steps the ISS may take finding the kernels a program launches.
const MAX_STEPS: u64 = 1_000_000_000;

/// With the DWS sequencer (`reconv` other than `pwfb`), the re-convergence directory of
/// the kernels `program` launches (before the model is built: a kernel the table
/// cannot hold is refused at once).
pub fn directory(program: &Program, params: &toml::Table) -> anyhow::Result<Option<Directory>> {
    let p: FgsimtParams = params.clone().try_into()?;
    DirectoryShape::of(&p)
        .map(|shape| directory::directory(program, &shape, MAX_STEPS))
        .transpose()
        .context("laying out the DWS sequencer's re-convergence directory")
}

/// Runs `program` (with its `directory`) on the tile of `params`; prints cycles and the
/// engine's counts to stderr (stdout is the program's) and returns the exit code as
/// `accelgen iss` does.
pub fn run(
    model: &mut Model,
    (program, directory): (&Program, Option<Directory>),
    args: &SimArgs,
    params: &toml::Table,
) -> anyhow::Result<u8> {
    let p: FgsimtParams = params.clone().try_into()?;
    let affine = params.get("affine").and_then(toml::Value::as_str);
    let mech = Mechanisms {
        private: p.avc,
        ..affine.and_then(Mechanisms::parse).unwrap_or_default()
    };
    let shape = KernelShape {
        lanes: p.lanes,
        warp_size: p.warp_size,
        mech,
        contexts: p.warps,
        followed: p.sequencer().is_some(),
    };
    let mem = args.mem_config();
    let config = FgsimtConfig {
        init: super::init(args.init_seed),
        fast_forward: args.fast_forward,
        max_steps: u64::MAX,
        avc: p.avc.then(|| (&p.avc_cache()).into()),
        directory,
        sequencer: p.sequencer(),
        ..FgsimtConfig::new(shape, &p.dcache(), mem, args.max_cycles)
    };
    let path = args.program.as_deref().unwrap_or(Path::new("program"));
    let (out, seconds) = super::running(path, |stdout, stderr| {
        fgsimt::run(model, program, &config, stdout, stderr, args.lockstep)
    });
    let out = out?;
    eprintln!(
        "{}: {}",
        path.display(),
        summary(&out, args.lockstep, seconds)
    );
    eprintln!("{}: {}", path.display(), table3(&out));
    if let Some((_, s)) = &out.sequencer {
        eprintln!("{}: {}", path.display(), dws_counts(s));
    }
    if let Some(m) = &out.private_mem {
        eprintln!(
            "{}: AVC memory (avc_mem, blocks of {} bytes): {} reads, {} writes",
            path.display(),
            4 * p.warp_size,
            m.reads,
            m.writes
        );
    }
    if let Some(why) = explain(program, out.exit_code, out.trap) {
        eprintln!("{}: {why}", path.display());
    }
    Ok(process_status(out.exit_code))
}

/// Exit code, cycles, CP instructions (and what the ISS ran around a fast-forwarded
/// run), the engine's warp instructions, what lockstep checked, simulation speed.
fn summary(out: &FgsimtOutcome, lockstep: bool, seconds: f64) -> String {
    let checked = if lockstep {
        let seq = out.sequencer.map_or(String::new(), |(d, _)| {
            format!(", {d} DWS sequencer decisions matched the golden sequencer")
        });
        format!(
            ", {} CP commits matched the ISS, {} launch(es), {} SRF writes and {} ASRF writes matched the SIMT model{seq}",
            out.matched,
            out.launches.len(),
            out.writes_checked,
            out.asrf_writes
        )
    } else {
        String::new()
    };
    let window = super::fast_forwarded(out.window);
    format!(
        "exit code {}, {} cycles, {} CP instructions{window}, {} warp instructions{checked} ({:.0} cycles/s)",
        out.exit_code,
        out.cycles,
        out.instret,
        out.warp_instructions,
        out.cycles as f64 / seconds.max(1e-9)
    )
}

/// The DWS sequencer's splits, merges and waits, as the golden sequencer following it
/// counted them (spec 001, section 4.3).
fn dws_counts(s: &LaunchStats) -> String {
    format!(
        "DWS (counted by the golden sequencer): {} branches ({} divergent), {} loads with \
         a miss ({} divergent); splits: {} at branches, {} on memory, {} revived; merges: \
         {} by pc, {} at post-dominators, {} at BL barriers; {} waits for a WST entry, {} \
         own frames; at most {} WST entries, {} slots, {} stack entries",
        s.branches,
        s.divergent_branches,
        s.missed,
        s.divergent_memory,
        s.branch_splits,
        s.memory_splits,
        s.revive_splits,
        s.pc_merges,
        s.reconv_merges,
        s.barrier_merges,
        s.wst_waits,
        s.own_frames,
        s.max_wst,
        s.max_slotted,
        s.max_depth
    )
}

/// The paper's Table 3 columns the run measures (seed 000, section 5): active threads per
/// warp instruction and the affine share (warp instructions the CP completed, from
/// `ftrace`: the affine mechanisms' and, in every setting, `jal x0` and fences), from the engine's counters the cycles launches ran and the L1 bytes per such
/// cycle (the bytes the threads' accesses asked for) with the SMU's wide and narrow
/// accesses, and with lockstep the SIMT model's SRF reads and writes avoided (thread
/// operands and results the ASRF served).
fn table3(out: &FgsimtOutcome) -> String {
    let ratio = |a: u64, b: u64, scale: f64| match b {
        0 => "-".to_string(),
        b => format!("{:.2}", a as f64 * scale / b as f64),
    };
    let active = ratio(out.thread_instructions, out.warp_instructions, 1.0);
    let share = ratio(out.cp_instructions, out.warp_instructions, 100.0);
    let e = &out.engine;
    let per_cycle = ratio(e.bytes, e.kernel_cycles, 1.0);
    let avoided = match out.launches.is_empty() {
        true => "SRF reads/writes avoided: with --lockstep".to_string(),
        false => {
            let (r, w, t) = out.launches.iter().fold((0, 0, 0), |(r, w, t), l| {
                let a = &l.affine;
                let n = l.thread_instructions;
                (r + a.srf_reads_avoided, w + a.srf_writes_avoided, t + n)
            });
            format!(
                "SRF reads avoided {} ({} per thread instruction), writes avoided {} ({})",
                r,
                ratio(r, t, 1.0),
                w,
                ratio(w, t, 1.0)
            )
        }
    };
    format!(
        "Table 3: active threads {active}; warp instructions completed in the CP {share} % \
         (the affine share, with jumps and fences); {} kernel cycles, L1 B/cycle {per_cycle} \
         ({} wide, {} narrow accesses); {avoided}",
        e.kernel_cycles, e.wide, e.narrow
    )
}
