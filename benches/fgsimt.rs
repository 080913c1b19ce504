//! The FG-SIMT engine (design `fgsimt`, the paper's preset `configs/fgsimt.toml`: 8 lanes,
//! warps of 32, 16 KiB I$, 128 KiB D$ in 8 banks) on the kernels of `kernels/`, beside
//! seed 000's Table 3: for each kernel the run's cycles, the cycles its launches ran, the
//! active threads per warp instruction and the L1 bytes per kernel cycle, measured on
//! the RTL (Verilator, memory latency 1), next to the paper's execution time (thousands
//! of cycles), active threads and bytes per cycle; then, per affine setting, the SIMT
//! model's share of warp instructions the affine mechanisms take (the paper's "Aff
//! inst"), and the RTL's kernel cycles and speedup over fgsimt on each setting built
//! (one Verilator model each; a setting the RTL refuses prints "not built") beside the
//! paper's speedups. Also each setting's elaboration time, Verilog size and Verilator
//! build, and the model's speed. Prints, asserts nothing but that each run ends as
//! `accelgen iss` does.
//!
//! Then seed 002's AVC: the golden replay's characterization of the kernels' private
//! traffic, and the register-limited kernels on the engine with `avc` off and on.
//!
//! Then seed 001's baseline on the engine: kernel cycles at 1, 2 and 4 warp contexts;
//! and its DWS sequencer in the engine at 4 warps (`reconv`, `dws`): the PWFB contexts,
//! stack re-convergence, BranchBypass with branch splits, and each memory split policy;
//! then the paper's Figs. 16 and 17 on the engine (`fgsimt_dws/engine.rs`: Conv,
//! BranchOnly, ReviveSplit.MemOnly and ReviveSplit at memory latencies 10-300, Conv and
//! ReviveSplit at L1 sizes 8-128 KiB) on the memory-divergent kernels.
//!
//! Last, seed 001's dynamic warp subdivision on the golden model (`fgsimt_dws/`):
//! Table 1's characterization, the named configurations against Conv, and sweeps of the
//! L2 latency, the L1 size and the WST.
//!
//! `FGSIMT_BENCH_KERNELS=conv,sgemm` runs only those kernels; `FGSIMT_BENCH_CONFIG=F`
//! another preset (e.g. a smaller engine whose models build faster); `FGSIMT_BENCH_AVC=1`
//! only the AVC's characterization, `=rtl` it and the AVC on the engine;
//! `FGSIMT_BENCH_DWS=1` only the DWS tables (no RTL); `FGSIMT_BENCH_WARPS=1` only the
//! engine's warp contexts (`warps` 1, 2, 4); `FGSIMT_BENCH_ENGINE_DWS=1` only the DWS
//! sequencer on the engine, `=sweep` only its L2 latency and L1 size sweeps;
//! `FGSIMT_BENCH_AFFINE=abm` (or `a`, `ab`) runs the warp and DWS engine tables and
//! sweeps at that affine setting rather than `none`.

#[path = "fgsimt_dws/mod.rs"]
mod dws;

use generators::fgsimt::params::FgsimtParams;
use generators::output::{render, OutputOptions};
use hdl::Design;
use std::path::Path;
use std::time::Instant;
use verification::elf::{self, Program};
use verification::fgsimt::affine::Mechanisms;
use verification::fgsimt::dws::directory::{directory, DirectoryShape};
use verification::fgsimt::program;
use verification::iss::IssConfig;
use verification::tb::fgsimt::{self as tb, FgsimtConfig};
use verification::tb::kernel_check::KernelShape;
use verification::tb::memory::MemConfig;
use verification::verilator::{Model, Options};

/// Seed 000's Table 3 (FG-SIMT rows): name, fgsimt execution time in thousands of
/// cycles, active threads, L1 bytes per cycle, speedups of +a, +ab, +abm (derived:
/// fgsimt Exec / config Exec; `../shared/specs/000-affine-simt-asrf.md`), and the
/// paper's affine instruction shares of +a, +ab, +abm.
const PAPER: [Paper; 13] = [
    ("bfs", 46.0, 17.1, 1.9, [1.00, 1.00, 1.02], [4, 4, 4]),
    ("bilat", 1103.0, 31.3, 3.7, [1.01, 1.01, 1.01], [8, 8, 8]),
    ("bsearch", 22.0, 28.0, 5.9, [1.05, 1.05, 1.05], [10, 10, 10]),
    ("cmult", 2.9, 31.3, 12.5, [1.32, 1.32, 1.32], [55, 55, 55]),
    ("conv", 27.0, 31.0, 9.2, [1.12, 1.29, 1.59], [53, 63, 63]),
    ("dither", 684.0, 28.9, 6.1, [1.13, 1.13, 1.17], [44, 44, 44]),
    ("kmeans", 149.0, 14.0, 4.1, [1.05, 1.43, 1.45], [51, 62, 62]),
    ("mfilt", 54.0, 24.9, 8.2, [1.10, 1.10, 1.20], [44, 44, 44]),
    (
        "rgb2cmyk",
        20.0,
        26.7,
        11.1,
        [1.11, 1.25, 1.25],
        [25, 29, 29],
    ),
    ("rsort", 113.0, 30.9, 3.5, [1.01, 1.05, 1.04], [5, 6, 6]),
    ("sgemm", 38.0, 32.0, 7.5, [1.03, 1.65, 1.65], [14, 26, 26]),
    ("strsearch", 363.0, 13.2, 3.1, [1.00, 1.00, 1.00], [6, 6, 6]),
    (
        "viterbi",
        608.0,
        32.0,
        7.5,
        [1.13, 1.34, 1.46],
        [42, 45, 45],
    ),
];

/// A Table 3 row: (name, fgsimt kilocycles, active threads, L1 B/cycle, speedups of +a,
/// +ab, +abm, affine instruction shares in percent of +a, +ab, +abm).
type Paper = (&'static str, f64, f64, f64, [f64; 3], [u32; 3]);

const MODES: [&str; 3] = ["a", "ab", "abm"];

/// The preset with `affine` set to `mode`, or `None` when the RTL refuses that setting.
fn preset(table: &toml::Table, mode: &str) -> Option<(toml::Table, FgsimtParams)> {
    let mut t = table.clone();
    t.insert("affine".into(), toml::Value::String(mode.into()));
    let p = checked(&t).ok()?;
    Some((t, p))
}

/// `table`'s parameters, or why the generator refuses them.
fn checked(table: &toml::Table) -> Result<FgsimtParams, String> {
    let valid = generators::design("fgsimt")
        .and_then(|d| d.validate(table))
        .map_err(|e| e.to_string())?;
    Ok(valid.try_into().expect("FgsimtParams"))
}

/// The Verilator model of `table`, with its elaboration and build figures printed.
fn model(table: &toml::Table, mode: &str) -> Model {
    let start = Instant::now();
    let top = generators::elaborate("fgsimt", table).expect("elaborates");
    let elaboration = start.elapsed().as_secs_f64() * 1e3;
    let out = render("fgsimt", table, &OutputOptions::default()).expect("renders");
    let start = Instant::now();
    let dut = Model::of_design(&Design::new(&top), &Options::default()).expect("model");
    println!(
        "affine {mode:4}: elaborated in {elaboration:.1} ms, {} bytes of Verilog in {} files; \
         Verilator model {:.0} s ({})",
        out.verilog_bytes(),
        out.files.len(),
        start.elapsed().as_secs_f64(),
        if dut.build_info().cached {
            "cached"
        } else {
            "built"
        }
    );
    dut
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("temp dir");
    let only: Option<Vec<String>> = std::env::var("FGSIMT_BENCH_KERNELS")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let config = std::env::var("FGSIMT_BENCH_CONFIG").unwrap_or("configs/fgsimt.toml".into());
    let text = std::fs::read_to_string(root.join(&config)).expect("preset");
    let table: toml::Table = text.parse().expect("TOML");
    println!("preset {config}");
    // `FGSIMT_BENCH_AVC=1`: only the affine vector cache's traffic study (no RTL);
    // `FGSIMT_BENCH_AVC=rtl`: it and the AVC on the engine.
    if std::env::var_os("FGSIMT_BENCH_DWS").is_some() {
        dws_tables(root, dir.path(), only.as_deref());
        return;
    }
    if std::env::var_os("FGSIMT_BENCH_WARPS").is_some() {
        warps_engine(root, dir.path(), only.as_deref(), &table);
        return;
    }
    match std::env::var("FGSIMT_BENCH_ENGINE_DWS").as_deref() {
        Ok("sweep") => {
            engine_sweeps(root, dir.path(), only.as_deref(), &table);
            return;
        }
        Ok(_) => {
            dws_engine(root, dir.path(), only.as_deref(), &table);
            return;
        }
        Err(_) => {}
    }
    match std::env::var("FGSIMT_BENCH_AVC").as_deref() {
        Ok("rtl") => {
            avc_traffic(root, dir.path(), only.as_deref());
            avc_engine(root, dir.path(), only.as_deref(), &table);
            return;
        }
        Ok(_) => {
            avc_traffic(root, dir.path(), only.as_deref());
            return;
        }
        Err(_) => {}
    }
    let mut settings: Vec<(&str, Model, FgsimtParams)> = Vec::new();
    for mode in std::iter::once("none").chain(MODES) {
        match preset(&table, mode) {
            Some((t, p)) => settings.push((mode, model(&t, mode), p)),
            None => println!("affine {mode:4}: not built in the RTL yet"),
        }
    }
    println!(
        "\nkernel     cycles     kernel cycles (paper fgsimt)  act thds (paper)  L1 B/cyc (paper)  cycles/s"
    );
    let mut rows = Vec::new();
    for &(name, exec, act, bytes, speedups, aff) in &PAPER {
        if only.as_ref().is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        let program = build(root, dir.path(), name);
        let runs: Vec<Rtl> = settings
            .iter_mut()
            .map(|(_, dut, p)| run_rtl(dut, &program, p))
            .collect();
        let base = &runs[0];
        println!(
            "{name:9} {:>10} {:>10} ({:>7.0} k)  {:>8} ({act:>4.1})  {:>8} ({bytes:>4.1})  {}",
            base.cycles, base.kernel, exec, base.active, base.bytes, base.speed
        );
        let model = model_shares(&program, settings[0].2.warp_size);
        rows.push((name, model, runs, speedups, aff));
    }
    println!(
        "\nkernel     affine share of warp instructions: model (paper)       \
         RTL kernel cycles and speedup over fgsimt (paper)"
    );
    for (name, model, runs, speedups, aff) in rows {
        let cells: Vec<String> = (0..3)
            .map(|i| format!("+{} {:>5.1} % ({:>2} %)", MODES[i], model[i], aff[i]))
            .collect();
        let rtl: Vec<String> = (0..3)
            .map(|i| match (runs.get(i + 1), runs[0].kernel_cycles) {
                (Some(r), Some(base)) if r.kernel_cycles.is_some() => format!(
                    "+{} {} {:.2} ({:.2})",
                    MODES[i],
                    r.kernel,
                    base as f64 / r.kernel_cycles.unwrap_or(1).max(1) as f64,
                    speedups[i]
                ),
                _ => format!("+{} not built ({:.2})", MODES[i], speedups[i]),
            })
            .collect();
        println!("{name:9}  {}   {}", cells.join("  "), rtl.join("  "));
    }
    avc_traffic(root, dir.path(), only.as_deref());
    avc_engine(root, dir.path(), only.as_deref(), &table);
    warps_engine(root, dir.path(), only.as_deref(), &table);
    dws_engine(root, dir.path(), only.as_deref(), &table);
    engine_sweeps(root, dir.path(), only.as_deref(), &table);
    dws_tables(root, dir.path(), only.as_deref());
}

/// Contexts the engine's multithreading table runs.
const WARPS: [u32; 3] = [1, 2, 4];

/// A setting of an engine table: its name and the preset's fields it sets.
type Setting = (String, Vec<(&'static str, toml::Value)>);

/// Seed 001's baseline on the engine: the preset (at [`engine_affine`]'s setting) at 1,
/// 2 and 4 warp contexts (the DWS model's Conv at the engine's shape is the last DWS
/// table's first row).
fn warps_engine(root: &Path, dir: &Path, only: Option<&[String]>, table: &toml::Table) {
    let settings: Vec<Setting> = WARPS
        .iter()
        .map(|&w| {
            (
                format!("warps {w}"),
                vec![("warps", toml::Value::Integer(w as i64))],
            )
        })
        .collect();
    engine_table(
        (root, dir, only),
        table,
        &format!("warp contexts on the engine: warps = {WARPS:?}"),
        &settings,
    );
}

/// Seed 001's DWS sequencer in the engine (`reconv`, `dws`) at 4 warps: the PWFB
/// contexts, the sequencer with stack re-convergence, BranchBypass with branch splits
/// and the conventional answer to loads, and with each memory split policy (hit masks).
fn dws_engine(root: &Path, dir: &Path, only: Option<&[String]>, table: &toml::Table) {
    let v = |s: &str| toml::Value::String(s.into());
    let four = ("warps", toml::Value::Integer(4));
    let bypass = [
        four.clone(),
        ("reconv", v("bypass")),
        ("branch_dws", toml::Value::Boolean(true)),
    ];
    let mut settings: Vec<Setting> = vec![
        ("pwfb".into(), vec![four.clone()]),
        ("stack".into(), vec![four, ("reconv", v("stack"))]),
        ("bypass".into(), bypass.to_vec()),
    ];
    for policy in ["lazy", "revive", "aggress"] {
        let mut fields = bypass.to_vec();
        fields.push(("dws", v(policy)));
        settings.push((format!("bypass {policy}"), fields));
    }
    let names: Vec<&str> = settings.iter().map(|(n, _)| n.as_str()).collect();
    engine_table(
        (root, dir, only),
        table,
        &format!("the DWS sequencer on the engine: {names:?}"),
        &settings,
    );
}

/// The engine tables' `affine` setting: `FGSIMT_BENCH_AFFINE`, by default "none".
fn engine_affine() -> String {
    std::env::var("FGSIMT_BENCH_AFFINE").unwrap_or("none".into())
}

/// The preset at [`engine_affine`]'s setting.
fn engine_preset(table: &toml::Table) -> (toml::Table, FgsimtParams) {
    let affine = engine_affine();
    preset(table, &affine).unwrap_or_else(|| panic!("the preset builds at affine {affine}"))
}

/// `table` with `fields` set: its parameters and its Verilator model (`what` names it),
/// or why the generator refuses them.
fn built(
    table: &toml::Table,
    fields: &[(&str, toml::Value)],
    what: &str,
) -> Result<(Model, FgsimtParams), String> {
    let mut t = table.clone();
    for (k, v) in fields {
        t.insert((*k).into(), v.clone());
    }
    let p = checked(&t)?;
    Ok((model(&t, &format!("{}, {what}", p.affine.name())), p))
}

/// The kernel cycles of `program` on `dut` (`p`'s tile), fast-forwarded, at memory
/// latency `latency`.
fn kernel_cycles(
    dut: &mut Model,
    program: &Program,
    p: &FgsimtParams,
    latency: u32,
) -> Result<u64, String> {
    let mem = MemConfig {
        latency,
        ..MemConfig::default()
    };
    fast_run(dut, program, p, &mem).map(|o| o.engine.kernel_cycles)
}

/// Each kernel's kernel cycles on the engine (the preset at [`engine_affine`],
/// fast-forwarded) at each of `settings` (one Verilator model each), at memory latency
/// 1 and 20, and each setting's speedup over the first.
fn engine_table(
    (root, dir, only): (&Path, &Path, Option<&[String]>),
    table: &toml::Table,
    title: &str,
    settings: &[Setting],
) {
    let (base_t, base) = engine_preset(table);
    let mut duts: Vec<(Model, FgsimtParams)> = settings
        .iter()
        .map(|(name, fields)| {
            built(&base_t, fields, name).unwrap_or_else(|e| panic!("{name}: {e}"))
        })
        .collect();
    println!(
        "\n{title} (affine {}, fast-forwarded): kernel cycles and the speedup over the \
         first, at memory latency 1 and 20",
        base.affine.name()
    );
    for &(name, ..) in &PAPER {
        if only.is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        let program = build(root, dir, name);
        let cells: Vec<String> = [1, 20]
            .iter()
            .map(|&latency| {
                let runs: Vec<Result<u64, String>> = duts
                    .iter_mut()
                    .map(|(dut, p)| kernel_cycles(dut, &program, p, latency))
                    .collect();
                match runs.iter().cloned().collect::<Result<Vec<u64>, String>>() {
                    Ok(c) => {
                        let up: Vec<String> = c[1..]
                            .iter()
                            .map(|k| format!("{:.2}", c[0] as f64 / (*k).max(1) as f64))
                            .collect();
                        format!("lat {latency:>2}: {c:>9?} x{}", up.join(" x"))
                    }
                    Err(e) => format!("lat {latency:>2}: stops: {e}"),
                }
            })
            .collect();
        println!("{name:9}  {}", cells.join("   "));
    }
}

/// Seed 001's tables on the kernels (the DWS golden model).
fn dws_tables(root: &Path, dir: &Path, only: Option<&[String]>) {
    let names: Vec<&str> = PAPER.iter().map(|p| p.0).collect();
    dws::tables(&programs(root, dir, &names, only));
}

/// The memory-divergent kernels (or `FGSIMT_BENCH_KERNELS`) under seed 001's L2 latency
/// and L1 size sweeps on the engine.
fn engine_sweeps(root: &Path, dir: &Path, only: Option<&[String]>, table: &toml::Table) {
    let (t, p) = engine_preset(table);
    let names: Vec<&str> = match only {
        Some(_) => PAPER.iter().map(|p| p.0).collect(),
        None => vec!["bfs", "bsearch", "kmeans", "strsearch"],
    };
    dws::engine::sweeps(&programs(root, dir, &names, only), &t, p.dcache_bytes >> 10);
}

/// Each of `names` (or of `only`, if given, among them), built.
fn programs<'a>(
    root: &Path,
    dir: &Path,
    names: &[&'a str],
    only: Option<&[String]>,
) -> Vec<(&'a str, Program)> {
    names
        .iter()
        .filter(|n| only.is_none_or(|o| o.iter().any(|k| k == *n)))
        .map(|&n| (n, build(root, dir, n)))
        .collect()
}

/// The register-limited kernels (those that spill) on the engine with `avc` off and on
/// (the preset's shape, the AVC at Table 3's configuration 2), fast-forwarded: kernel
/// cycles, and the bytes memory moved (all of the tile's ports; with the AVC its own
/// `avc_mem` too) beside the golden replay's AVC traffic for the same configuration.
fn avc_engine(root: &Path, dir: &Path, only: Option<&[String]>, table: &toml::Table) {
    use verification::fgsimt::avc::controller::AvcParams;
    use verification::fgsimt::avc::private::{register_limit_flags, replay_program};
    let (base_t, base_p) = preset(table, "none").expect("the preset builds");
    let mut avc_t = base_t.clone();
    avc_t.insert("avc".into(), toml::Value::Boolean(true));
    let avc_p: FgsimtParams = generators::design("fgsimt")
        .and_then(|d| d.validate(&avc_t))
        .expect("avc builds")
        .try_into()
        .expect("FgsimtParams");
    let mut off = model(&base_t, "none");
    let mut on = model(&avc_t, "none, avc");
    println!(
        "\nAVC on the engine (kernels with 10 registers, fast-forwarded): kernel cycles, memory \
         bytes (all ports) with avc off and on, of which the AVC's, and the golden replay's AVC bytes"
    );
    println!("kernel        kernel cycles off / on      memory bytes off / on (AVC's)   model's AVC bytes");
    let limited = register_limit_flags();
    let g = AvcParams::table3(2);
    for &(name, ..) in &PAPER {
        if only.is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        let elf = dir.join(format!("{name}-avc.elf"));
        let src = root.join(format!("kernels/{name}.c"));
        verification::kernels::build_program_with(&[src], &elf, (&[], &[]), &limited)
            .expect("kernel builds");
        let program = elf::load_file(&elf).expect("ELF loads");
        let replay = replay_program(&program, base_p.warp_size, &[g]).expect("the model runs");
        let c = &replay.counters()[0];
        if c.classes.iter().sum::<u64>() == 0 {
            println!("{name:12}  (no private accesses)");
            continue;
        }
        let a = traffic_run(&mut off, &program, &base_p);
        let b = traffic_run(&mut on, &program, &avc_p);
        match (a, b) {
            (Ok(a), Ok(b)) => println!(
                "{name:12}  {:>10} / {:>10} {:>5.2}x  {:>10} / {:>10} ({:>8})  {:>8}",
                a.0,
                b.0,
                a.0 as f64 / b.0.max(1) as f64,
                a.1,
                b.1 + b.2,
                b.2,
                c.fill_bytes + c.writeback_bytes
            ),
            (a, b) => println!("{name:12}  stops: {:?} {:?}", a.err(), b.err()),
        }
    }
}

/// A fast-forwarded run of `program` on `p`'s tile: kernel cycles, the bytes the tile's
/// memory ports moved, those of the AVC's.
fn traffic_run(
    dut: &mut Model,
    program: &Program,
    p: &FgsimtParams,
) -> Result<(u64, u64, u64), String> {
    let o = fast_run(dut, program, p, &MemConfig::default())?;
    let bytes = |m: &verification::tb::memory::MemStats| m.read_bytes + m.write_bytes;
    let avc = o.private_mem.as_ref().map_or(0, bytes);
    Ok((o.engine.kernel_cycles, bytes(&o.mem), avc))
}

/// The kernel checker's shape of `p`'s tile: its affine mechanisms and AVC, its
/// contexts, the groups followed with the DWS sequencer.
fn kernel_shape(p: &FgsimtParams) -> KernelShape {
    KernelShape {
        lanes: p.lanes,
        warp_size: p.warp_size,
        mech: Mechanisms {
            private: p.avc,
            ..Mechanisms::parse(p.affine.name()).expect("a setting")
        },
        contexts: p.warps,
        followed: p.sequencer().is_some(),
    }
}

/// A fast-forwarded run of `program` on `p`'s tile with memory `mem`.
fn fast_run(
    dut: &mut Model,
    program: &Program,
    p: &FgsimtParams,
    mem: &MemConfig,
) -> Result<tb::FgsimtOutcome, String> {
    let shape = kernel_shape(p);
    // With the DWS sequencer, the launches read their branches from the directory.
    let directory = DirectoryShape::of(p)
        .map(|d| directory(program, &d, 1_000_000_000))
        .transpose()
        .map_err(|e| e.to_string())?;
    let config = FgsimtConfig {
        fast_forward: true,
        directory,
        ..FgsimtConfig::new(shape, &p.dcache(), mem.clone(), 200_000_000)
    };
    let sink = || Box::new(std::io::sink());
    tb::run(dut, program, &config, sink(), sink(), false).map_err(|e| e.to_string())
}

/// Seed 002's characterization on the kernels (golden models only: the engine has no
/// AVC yet): each kernel's private-memory transactions (warps of 32, stacks interleaved
/// as `verification::fgsimt::avc::private` maps them) by class, and the memory traffic
/// (fills and write-backs; a launch's stacks are dropped at its end, dead) of Table 3's
/// baseline and configurations 1-3.
fn avc_traffic(root: &Path, dir: &Path, only: Option<&[String]>) {
    use verification::fgsimt::avc::controller::AvcParams;
    use verification::fgsimt::avc::private::replay_program;
    println!(
        "\nAVC (seed 002) on the kernels' private memory, golden model: transactions by class \
         (paper, 0.5 r_base: 67 % non-generic on average), memory traffic of Table 3's \
         configurations (bytes), configuration 2 against the baseline"
    );
    println!(
        "kernel        transactions   zero  unif  affine  generic  sub-word  checked  unwritten  \
         traffic B / 1 / 2 / 3                 2 vs B"
    );
    let configs: Vec<AvcParams> = (0..=3).map(AvcParams::table3).collect();
    // As built, and with 18 of the 28 allocatable registers taken from GCC (the paper
    // compiles under register limits down to half the spill-free count): ra, t0, t1,
    // s0 and a0-a5 are left.
    let limited = verification::fgsimt::avc::private::register_limit_flags();
    let runs = PAPER.iter().flat_map(|p| [(p.0, false), (p.0, true)]);
    for (name, limit) in runs {
        if only.is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        let elf = dir.join(format!("{name}-{limit}.elf"));
        let src = root.join(format!("kernels/{name}.c"));
        let flags = if limit { &limited[..] } else { &[] };
        verification::kernels::build_program_with(&[src], &elf, (&[], &[]), flags)
            .expect("kernel builds");
        let program = elf::load_file(&elf).expect("ELF loads");
        let name = if limit {
            format!("{name} r10")
        } else {
            name.to_string()
        };
        let replay = match replay_program(&program, 32, &configs) {
            Ok(r) => r,
            Err(e) => {
                println!("{name:12}  stops: {e}");
                continue;
            }
        };
        let counters = replay.counters();
        let classes = counters[0].classes;
        let total: u64 = classes.iter().sum();
        let pct = |c: u64| 100.0 * c as f64 / total.max(1) as f64;
        let traffic: Vec<u64> = counters
            .iter()
            .map(|c| c.fill_bytes + c.writeback_bytes)
            .collect();
        let ratio = match traffic[0] {
            0 if traffic[2] == 0 => "same".to_string(),
            0 => "more".to_string(),
            b => format!("{:.2}", traffic[2] as f64 / b as f64),
        };
        println!(
            "{name:12}  {total:>12}  {:>5.1} {:>5.1} {:>6.1} {:>7.1}  {:>8}  {:>7}  {:>9}  {:>8} {:>8} {:>8} {:>8}  {ratio:>6}",
            pct(classes[0]),
            pct(classes[1]),
            pct(classes[2]),
            pct(classes[3]),
            replay.sub_word,
            replay.checked,
            replay.unwritten,
            traffic[0],
            traffic[1],
            traffic[2],
            traffic[3],
        );
    }
}

fn build(root: &Path, dir: &Path, name: &str) -> Program {
    let elf = dir.join(format!("{name}.elf"));
    let src = root.join(format!("kernels/{name}.c"));
    verification::kernels::build_program(&[src], &elf, &[], &[]).expect("kernel builds");
    elf::load_file(&elf).expect("ELF loads")
}

/// A kernel's run on the RTL, as text (a fault's message in `cycles` when the engine
/// cannot run it), and its kernel cycles.
struct Rtl {
    cycles: String,
    kernel: String,
    active: String,
    bytes: String,
    speed: String,
    kernel_cycles: Option<u64>,
}

/// The kernel on the RTL: cycles, kernel cycles, active threads, L1 bytes per kernel
/// cycle, the model's speed.
fn run_rtl(dut: &mut Model, program: &Program, p: &FgsimtParams) -> Rtl {
    let config = FgsimtConfig::new(
        kernel_shape(p),
        &p.dcache(),
        MemConfig::default(),
        200_000_000,
    );
    let start = Instant::now();
    let sink = || Box::new(std::io::sink());
    match tb::run(dut, program, &config, sink(), sink(), false) {
        Ok(o) => {
            assert_eq!(o.exit_code, 0, "the kernel's own check");
            let seconds = start.elapsed().as_secs_f64();
            let act = o.thread_instructions as f64 / o.warp_instructions.max(1) as f64;
            let e = o.engine;
            let bpc = e.bytes as f64 / e.kernel_cycles.max(1) as f64;
            Rtl {
                cycles: o.cycles.to_string(),
                kernel: e.kernel_cycles.to_string(),
                active: format!("{act:.1}"),
                bytes: format!("{bpc:.2}"),
                speed: format!("{:.0}", o.cycles as f64 / seconds),
                kernel_cycles: Some(e.kernel_cycles),
            }
        }
        Err(e) => Rtl {
            cycles: format!("stops: {e}"),
            kernel: String::new(),
            active: String::new(),
            bytes: String::new(),
            speed: String::new(),
            kernel_cycles: None,
        },
    }
}

/// The SIMT model's affine share at +a, +ab, +abm, in percent of warp instructions:
/// those the CP takes alone, the uniform branches it resolves and the affine loads
/// (`kernels/README.md`'s definition, the paper's "Aff inst").
fn model_shares(program: &Program, warp: u32) -> [f64; 3] {
    MODES.map(|m| {
        let mech = Mechanisms::parse(m).expect("mode");
        let r = program::run(program, IssConfig::default(), (warp, mech), 1_000_000_000)
            .expect("the model runs the kernel");
        let (cp, all) = r.launches.iter().fold((0, 0), |(c, a), l| {
            let f = &l.affine;
            (
                c + f.cp + f.uniform_branches + f.affine_loads,
                a + l.warp_instructions,
            )
        });
        100.0 * cp as f64 / all.max(1) as f64
    })
}
