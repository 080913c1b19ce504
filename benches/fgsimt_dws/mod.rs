//! Seed 001's dynamic warp subdivision on the kernels, from the golden model
//! (`verification::fgsimt::dws`): 4 warps of 16 threads and Table 3's memory unless a
//! sweep says otherwise. Table 1, then Figs. 13 (the named configurations), 16 (L2
//! latency), 17 (L1 size), 15 (associativity), 20 (scheduler slots), late answers (not
//! the paper's), 18 (warps x width) and 21 (WST entries). Beside each table, the shape the paper reports (its numbers
//! came from MV5 and Alpha code, other kernels and inputs: compare shapes, not values).
//! Prints; asserts only that every run ends with exit 0.

pub mod engine;

use std::sync::Mutex;
use verification::elf::Program;
use verification::fgsimt::dws::program::{run, DwsRun};
use verification::fgsimt::dws::{DwsConfig, LaunchStats};

/// The configurations compared with Conv (Fig. 13's, and BL).
const CONFIGS: [&str; 9] = [
    "branch-only",
    "revive.mem-only",
    "aggress",
    "lazy",
    "revive",
    "revive.bl",
    "branch-only.stack",
    "slip",
    "slip.bypass",
];

const MAX_STEPS: u64 = 400_000_000;

/// One run's figures.
#[derive(Clone, Copy)]
struct Figures {
    cycles: u64,
    stall: f64,
    width: f64,
    stats: LaunchStats,
}

fn figures(r: &DwsRun) -> Figures {
    let s = r.summed();
    Figures {
        cycles: s.cycles,
        stall: 100.0 * s.memory_stall_cycles as f64 / s.cycles.max(1) as f64,
        width: s.thread_instructions as f64 / s.warp_instructions.max(1) as f64,
        stats: s,
    }
}

/// Runs every (kernel, configuration) job on two threads: figures in job order.
fn run_all(jobs: &[(&Program, DwsConfig)]) -> Vec<Figures> {
    parallel(jobs, |(program, cfg)| {
        let (_, r) = run(program, *cfg, MAX_STEPS, 1 << 34).expect("the DWS model runs");
        assert_eq!(r.exit, 0, "a kernel's self-check failed on the DWS model");
        figures(&r)
    })
}

/// `f` of each job, on two threads: the results in job order.
fn parallel<J: Sync, R: Send>(jobs: &[J], f: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let out = Mutex::new((0..jobs.len()).map(|_| None).collect::<Vec<Option<R>>>());
    let next = Mutex::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(job) = jobs.get(i) else {
                    break;
                };
                let r = f(job);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner()
        .unwrap()
        .into_iter()
        .map(|f| f.unwrap())
        .collect()
}

/// A configuration's column label.
fn label(name: &str) -> &str {
    match name {
        "branch-only" => "br-only",
        "branch-only.stack" => "br.stack",
        "revive.mem-only" => "rev.mem",
        "revive.bl" => "rev.bl",
        "slip.bypass" => "slip.byp",
        other => other,
    }
}

/// Harmonic mean.
fn hmean(v: &[f64]) -> f64 {
    v.len() as f64 / v.iter().map(|x| 1.0 / x).sum::<f64>()
}

/// Speedups over Conv of `names` at each `variants` value (a sweep), a row a kernel,
/// then the harmonic means.
fn sweep(
    kernels: &[(&str, Program)],
    title: &str,
    variants: &[(String, DwsConfig)],
    names: &[&str],
) {
    println!("\n{title}");
    let mut jobs = Vec::new();
    for (_, p) in kernels {
        for (_, base) in variants {
            for n in std::iter::once(&"conv").chain(names) {
                jobs.push((p, base.named(n).expect("a named configuration")));
            }
        }
    }
    let f = run_all(&jobs);
    let rows: Vec<&str> = kernels.iter().map(|(n, _)| *n).collect();
    let columns: Vec<&str> = variants.iter().map(|(v, _)| v.as_str()).collect();
    let cycles: Vec<Option<u64>> = f.iter().map(|r| Some(r.cycles)).collect();
    print_sweep(&rows, &columns, names, &cycles);
}

/// A sweep's table: a row a kernel, a group of columns a variant (Conv's cycles, then
/// each of `names`' speedup over Conv), then the harmonic means. `cycles` holds each
/// kernel's variants' Conv then `names` runs, `None` for a run that stopped.
fn print_sweep(kernels: &[&str], variants: &[&str], names: &[&str], cycles: &[Option<u64>]) {
    let per = names.len() + 1;
    let head: Vec<String> = variants
        .iter()
        .map(|v| format!("{v:^width$}", width = 9 * per))
        .collect();
    println!("{:9}  {}", "", head.join(" | "));
    let cols: Vec<String> = variants
        .iter()
        .map(|_| {
            std::iter::once(format!("{:>9}", "conv cyc"))
                .chain(names.iter().map(|n| format!("{:>9}", label(n))))
                .collect::<Vec<_>>()
                .join("")
        })
        .collect();
    println!("{:9}  {}", "kernel", cols.join(" | "));
    let mut speedups = vec![Vec::new(); variants.len() * names.len()];
    for (k, name) in kernels.iter().enumerate() {
        let mut cells = Vec::new();
        for v in 0..variants.len() {
            let at = (k * variants.len() + v) * per;
            let mut cell = match cycles[at] {
                Some(conv) => format!("{conv:>9}"),
                None => format!("{:>9}", "stops"),
            };
            for c in 0..names.len() {
                match (cycles[at], cycles[at + 1 + c]) {
                    (Some(conv), Some(x)) => {
                        let s = conv as f64 / x.max(1) as f64;
                        speedups[v * names.len() + c].push(s);
                        cell.push_str(&format!("{s:>9.2}"));
                    }
                    _ => cell.push_str(&format!("{:>9}", "stops")),
                }
            }
            cells.push(cell);
        }
        println!("{name:9}  {}", cells.join(" | "));
    }
    let means: Vec<String> = (0..variants.len())
        .map(|v| {
            std::iter::once(format!("{:>9}", ""))
                .chain(
                    (0..names.len())
                        .map(|c| format!("{:>9.2}", hmean(&speedups[v * names.len() + c]))),
                )
                .collect::<Vec<_>>()
                .join("")
        })
        .collect();
    println!("{:9}  {}", "hmean", means.join(" | "));
}

/// A sweep's points: `base` with `set(value)` for each value, labelled `what value`.
fn points(
    base: DwsConfig,
    what: &str,
    values: &[u64],
    set: impl Fn(&mut DwsConfig, u64),
) -> Vec<(String, DwsConfig)> {
    values
        .iter()
        .map(|&v| {
            let mut c = base;
            set(&mut c, v);
            (format!("{what} {v}"), c)
        })
        .collect()
}

/// Fig. 18: warps x width shapes, Conv and ReviveSplit, each kernel's speedup over a
/// single-threaded Conv core (1 warp of 1 thread) and the harmonic means.
fn shapes(kernels: &[(&str, Program)], base: DwsConfig) {
    const SHAPES: [(u32, u32); 7] = [(1, 1), (4, 4), (8, 4), (4, 8), (2, 16), (4, 16), (2, 32)];
    let mut jobs = Vec::new();
    for (_, p) in kernels {
        for (warps, warp_size) in SHAPES {
            for n in ["conv", "revive"] {
                let c = DwsConfig {
                    warps,
                    warp_size,
                    ..base
                };
                jobs.push((p, c.named(n).unwrap()));
            }
        }
    }
    let f = run_all(&jobs);
    println!(
        "\nFig. 18: speedup over one warp of one thread (Conv), Conv / ReviveSplit for each \
         warps x width (paper, 32 KB 8-way: best DWS 2 x 16 at 1.2 x the best Conv, 4 x 8; \
         DWS wins at widths >= 8)"
    );
    let head: Vec<String> = SHAPES
        .iter()
        .map(|(n, w)| format!("{:>13}", format!("{n} x {w}")))
        .collect();
    println!("{:9}  {}", "kernel", head.join(""));
    let per = 2 * SHAPES.len();
    let mut speed = vec![Vec::new(); per];
    for (k, (name, _)) in kernels.iter().enumerate() {
        let one = f[k * per].cycles as f64;
        let cells: Vec<String> = (0..SHAPES.len())
            .map(|s| {
                let (c, r) = (f[k * per + 2 * s].cycles, f[k * per + 2 * s + 1].cycles);
                speed[2 * s].push(one / c as f64);
                speed[2 * s + 1].push(one / r as f64);
                format!("{:>6.1} /{:>5.1}", one / c as f64, one / r as f64)
            })
            .collect();
        println!("{name:9}  {}", cells.join(""));
    }
    let means: Vec<String> = (0..SHAPES.len())
        .map(|s| {
            format!(
                "{:>6.1} /{:>5.1}",
                hmean(&speed[2 * s]),
                hmean(&speed[2 * s + 1])
            )
        })
        .collect();
    println!("{:9}  {}", "hmean", means.join(""));
}

/// The FG-SIMT engine's shape (8 lanes, warps of 32, so 4 cycles a warp instruction;
/// its 128 KiB direct-mapped D$ of 32-byte lines in 8 banks) with 1, 2 and 4 resident
/// warps: the speedup of each over one warp (today's engine) under Conv, and of the DWS
/// configurations over Conv at the same warps.
fn engine_shape(kernels: &[(&str, Program)], base: DwsConfig) {
    let mut engine = DwsConfig {
        warp_size: 32,
        lanes: 8,
        ..base
    };
    engine.memory.l1_kib = 128;
    engine.memory.l1_ways = 1;
    engine.memory.line_bytes = 32;
    engine.memory.banks = 8;
    let names = ["revive.mem-only", "revive", "revive.bl"];
    let warps = [1, 2, 4];
    let mut jobs = Vec::new();
    for (_, p) in kernels {
        for w in warps {
            for n in std::iter::once(&"conv").chain(&names) {
                let c = DwsConfig { warps: w, ..engine };
                jobs.push((p, c.named(n).unwrap()));
            }
        }
    }
    let f = run_all(&jobs);
    println!(
        "\nThe FG-SIMT engine's shape (8 lanes, warps of 32, 128 KiB direct-mapped D$, 32 B \
         lines, 8 banks): Conv at 1/2/4 warps over 1 warp; then rev.mem, revive, rev.bl over \
         Conv at each"
    );
    let per = names.len() + 1;
    let mut speed = vec![Vec::new(); warps.len() * per];
    for (k, (name, _)) in kernels.iter().enumerate() {
        let at = |w: usize, c: usize| f[(k * warps.len() + w) * per + c].cycles as f64;
        let mut cells = Vec::new();
        for w in 0..warps.len() {
            let conv = at(0, 0) / at(w, 0);
            speed[w * per].push(conv);
            let mut cell = format!("{conv:>6.2}");
            for c in 1..per {
                let s = at(w, 0) / at(w, c);
                speed[w * per + c].push(s);
                cell.push_str(&format!("{s:>6.2}"));
            }
            cells.push(cell);
        }
        println!("{name:9}  {}", cells.join(" | "));
    }
    let means: Vec<String> = (0..warps.len())
        .map(|w| {
            (0..per)
                .map(|c| format!("{:>6.2}", hmean(&speed[w * per + c])))
                .collect()
        })
        .collect();
    println!("{:9}  {}", "hmean", means.join(" | "));
}

/// The DWS tables.
pub fn tables(kernels: &[(&str, Program)]) {
    let base = DwsConfig::default();
    println!(
        "\nDWS (seed 001; golden model): {} warps x {} threads, {} scheduler slots, {} WST \
         entries ({} bits: entries x (W + log2 N + 32-bit pc + 2)), L1 {} KB {}-way {} B \
         lines, {} MSHRs, L2 {} cycles, memory +{}",
        base.warps,
        base.warp_size,
        base.slot_count(),
        base.wst_entries,
        base.wst_bits(),
        base.memory.l1_kib,
        base.memory.l1_ways,
        base.memory.line_bytes,
        base.memory.mshrs,
        base.memory.l2_latency,
        base.memory.memory_latency
    );
    // Table 1 and Fig. 13's stall and width, Conv and ReviveSplit.
    let mut jobs = Vec::new();
    for (_, p) in kernels {
        for n in ["conv", "revive"] {
            jobs.push((p, base.named(n).unwrap()));
        }
    }
    let f = run_all(&jobs);
    println!(
        "\nTable 1 (Conv) and Fig. 13's memory stall and SIMD width, Conv -> ReviveSplit \
         (paper, its suite: 9-59 instructions between branches, 0-22 % divergent, 5-47 \
         between misses, 60-88 % of misses divergent; stall 76 % -> 36 %, width 14 -> 4)"
    );
    println!(
        "kernel     inst/branch  div br %  inst/miss  inst/div miss  div miss %   stall % conv -> revive   width conv -> revive  stack"
    );
    for (k, (name, _)) in kernels.iter().enumerate() {
        let (c, r) = (f[2 * k], f[2 * k + 1]);
        let s = c.stats;
        let per = |n: u64| s.warp_instructions as f64 / n.max(1) as f64;
        println!(
            "{name:9}  {:>11.1}  {:>8.1}  {:>9.1}  {:>13.1}  {:>10.1}   {:>7.1} -> {:>6.1}        {:>5.1} -> {:>5.1}  {:>5}",
            per(s.branches),
            100.0 * s.divergent_branches as f64 / s.branches.max(1) as f64,
            per(s.missed),
            per(s.divergent_memory),
            100.0 * s.divergent_memory as f64 / s.missed.max(1) as f64,
            c.stall,
            r.stall,
            c.width,
            r.width,
            s.max_depth
        );
    }
    let named: Vec<(String, DwsConfig)> = vec![("L2 30".into(), base)];
    sweep(
        kernels,
        "Fig. 7/11/13: speedup over Conv (paper: BranchOnly 1.13, ReviveSplit.MemOnly 1.20, \
         AggressSplit and LazySplit slower, ReviveSplit 1.71 and never slower; BL little gain)",
        &named,
        &CONFIGS,
    );
    let main = ["branch-only", "revive.mem-only", "revive"];
    let latencies = points(base, "L2", &[10, 30, 100, 300], |c, l| {
        c.memory.l2_latency = l
    });
    sweep(
        kernels,
        "Fig. 16: speedup over Conv at each L2 latency (paper: the gain grows with latency)",
        &latencies,
        &main,
    );
    let sizes = points(base, "L1 KB", &[8, 16, 32, 64, 128], |c, k| {
        c.memory.l1_kib = k as u32
    });
    sweep(
        kernels,
        "Fig. 17: speedup over Conv at each L1 size, 8-way (paper: DWS ~ Conv at 128 KB; \
         worth about doubling the L1)",
        &sizes,
        &main,
    );
    let ways = points(base, "ways", &[4, 8, 16, 256], |c, w| {
        c.memory.l1_ways = w as u32
    });
    sweep(
        kernels,
        "Fig. 15: speedup over Conv at each L1 associativity, 32 KB (256 ways: fully \
         associative; paper: more associativity, less benefit)",
        &ways,
        &main,
    );
    let slots = points(base, "slots", &[4, 6, 8, 12, 16], |c, n| c.slots = n as u32);
    sweep(
        kernels,
        "Fig. 20: ReviveSplit's speedup over Conv at each scheduler slot count, 4 warps \
         (paper: a moderate count is best)",
        &slots,
        &["revive"],
    );
    let delays = points(base, "answer", &[0, 2, 5, 10], |c, d| c.answer_delay = d);
    sweep(
        kernels,
        "Late answers (an engine's pipeline; not in the paper): speedup over Conv when a \
         branch's or memory instruction's answer comes 0/2/5/10 cycles after its issue (a \
         warp awaits one answer at a time)",
        &delays,
        &main,
    );
    shapes(kernels, base);
    engine_shape(kernels, base);
    let wst = points(base, "WST", &[4, 8, 16, 32, 64], |c, n| {
        c.wst_entries = n as u32
    });
    sweep(
        kernels,
        "Fig. 21: ReviveSplit's speedup over Conv at each WST size, 8 slots (paper: \
         saturates at entries >= 2 x slots = 16)",
        &wst,
        &["revive"],
    );
}
