//! Seed 001's Figs. 16 and 17 on the engine (design `fgsimt` with the DWS sequencer,
//! docs/fgsimt-engine.md "DWS in the engine"): the model's main configurations (its
//! `NAMED` fields as the engine's `dws`, `branch_dws` and `reconv`) at 4 warps against
//! Conv, at memory latencies 10/30/100/300 (the memory model stands for the L2) and at
//! L1 sizes 8-128 KiB (latency 30; the preset's banks and ways). One Verilator model a
//! configuration and L1 size, built and run on two threads; kernel cycles,
//! fast-forwarded, each run ending as `accelgen iss` does (each run is printed as it
//! ends, with its time; one that stops prints "stops" and its error).

use super::{parallel, print_sweep};
use std::time::Instant;
use verification::elf::Program;
use verification::fgsimt::dws::NAMED;

/// The configurations compared with Conv (the model's Figs. 16 and 17 columns).
const NAMES: [&str; 3] = ["branch-only", "revive.mem-only", "revive"];
/// Fig. 16's memory latencies.
const LATENCIES: [u32; 4] = [10, 30, 100, 300];
/// Fig. 17's L1 sizes (KiB), at [`L1_LATENCY`], Conv and ReviveSplit only.
const L1_KIB: [u32; 5] = [8, 16, 32, 64, 128];
const L1_LATENCY: u32 = 30;

/// One model's runs: its configuration (an index into Conv then [`NAMES`]), its L1
/// size, the latencies each kernel runs at.
struct Group {
    config: usize,
    l1_kib: u32,
    latencies: Vec<u32>,
}

/// The engine's fields for the model's named configuration `name`, at 4 warps.
fn fields(name: &str) -> Vec<(&'static str, toml::Value)> {
    let &(_, dws, branch_dws, reconv) = NAMED
        .iter()
        .find(|c| c.0 == name)
        .expect("a named configuration");
    vec![
        ("warps", toml::Value::Integer(4)),
        ("dws", toml::Value::try_from(dws).expect("a policy's name")),
        ("branch_dws", toml::Value::Boolean(branch_dws)),
        (
            "reconv",
            toml::Value::try_from(reconv).expect("a mode's name"),
        ),
    ]
}

/// Every kernel's kernel cycles on `group`'s model at its latencies, kernel-major.
fn run_group(
    group: &Group,
    kernels: &[(&str, Program)],
    table: &toml::Table,
) -> Vec<Result<u64, String>> {
    let name = std::iter::once("conv")
        .chain(NAMES)
        .nth(group.config)
        .unwrap();
    let mut f = fields(name);
    f.push((
        "dcache_bytes",
        toml::Value::Integer(i64::from(group.l1_kib) << 10),
    ));
    let what = format!("{name}, L1 {} KiB", group.l1_kib);
    let (mut dut, p) = match crate::built(table, &f, &what) {
        Ok(built) => built,
        Err(e) => {
            println!("{what}: not built: {e}");
            return vec![Err(e); kernels.len() * group.latencies.len()];
        }
    };
    let mut out = Vec::new();
    for (kernel, program) in kernels {
        for &latency in &group.latencies {
            let start = Instant::now();
            let r = crate::kernel_cycles(&mut dut, program, &p, latency);
            let took = start.elapsed().as_secs_f64();
            match &r {
                Ok(c) => {
                    println!("{kernel} on {what}, latency {latency}: {c} cycles ({took:.0} s)")
                }
                Err(e) => {
                    println!("{kernel} on {what}, latency {latency}: stops ({took:.0} s): {e}")
                }
            }
            out.push(r);
        }
    }
    out
}

/// Figs. 16 and 17 on the engine at `table`'s preset (its `affine`), whose D$ holds
/// `preset_kib` KiB (the preset may leave `dcache_bytes` at its default).
pub fn sweeps(kernels: &[(&str, Program)], table: &toml::Table, preset_kib: u32) {
    let mut groups: Vec<Group> = (0..=NAMES.len())
        .map(|config| Group {
            config,
            l1_kib: preset_kib,
            latencies: LATENCIES.to_vec(),
        })
        .collect();
    for l1_kib in L1_KIB.into_iter().filter(|&k| k != preset_kib) {
        for config in [0, NAMES.len()] {
            groups.push(Group {
                config,
                l1_kib,
                latencies: vec![L1_LATENCY],
            });
        }
    }
    println!(
        "\nThe DWS sequencer on the engine (4 warps): Figs. 16 and 17, {} models on two \
         threads",
        groups.len()
    );
    let runs = parallel(&groups, |g| run_group(g, kernels, table));
    // Kernel cycles of configuration `config` at `l1_kib` and `latency`, kernel `k`.
    let cycles = |config: usize, l1_kib: u32, latency: u32, k: usize| {
        let g = groups
            .iter()
            .position(|g| g.config == config && g.l1_kib == l1_kib)?;
        let at = groups[g].latencies.iter().position(|&l| l == latency)?;
        runs[g][k * groups[g].latencies.len() + at].clone().ok()
    };
    let rows: Vec<&str> = kernels.iter().map(|(n, _)| *n).collect();
    let mut table16 = Vec::new();
    for k in 0..kernels.len() {
        for latency in LATENCIES {
            for config in 0..=NAMES.len() {
                table16.push(cycles(config, preset_kib, latency, k));
            }
        }
    }
    println!(
        "\nFig. 16 on the engine: speedup over Conv at each memory latency, L1 {preset_kib} \
         KiB (paper: the gain grows with latency)"
    );
    let columns: Vec<String> = LATENCIES.iter().map(|l| format!("latency {l}")).collect();
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    print_sweep(&rows, &columns, &NAMES, &table16);
    let mut table17 = Vec::new();
    for k in 0..kernels.len() {
        for kib in L1_KIB {
            for config in [0, NAMES.len()] {
                table17.push(cycles(config, kib, L1_LATENCY, k));
            }
        }
    }
    println!(
        "\nFig. 17 on the engine: ReviveSplit's speedup over Conv at each L1 size, latency \
         {L1_LATENCY} (paper: DWS ~ Conv at 128 KB)"
    );
    let columns: Vec<String> = L1_KIB.iter().map(|k| format!("L1 {k} KiB")).collect();
    let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
    print_sweep(&rows, &columns, &["revive"], &table17);
}
