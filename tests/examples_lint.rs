//! Every design is lint clean (Verilator -Wall with zero warnings, Yosys
//! `check -assert`, Icarus Verilog) and has no line longer than `hdl::emit::MAX_LINE`
//! across parameter sweeps; `ACCELGEN_LONG=1` sweeps the full cross product, and every
//! accepted extreme of `rocket-hwacha`'s parameters.

use asic_flow::lint::{run_all, LintTarget};
use generators::hwacha::params::HwachaParams;
use generators::memory::NEVER_SRAM_BITS;
use generators::output::{render, OutputOptions};
use hdl::emit::MAX_LINE;
use std::fs;

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// Generates and lints one configuration; the problems found, if any.
fn lint(design: &str, params: &str, opts: OutputOptions) -> Option<String> {
    let table: toml::Table = params.parse().expect("test parameters are TOML");
    let what = format!("{design} {{{params}}} {opts:?}");
    let out = match render(design, &table, &opts) {
        Ok(out) => out,
        Err(e) => return Some(format!("{what}: {e}")),
    };
    if let Some(long) = longest_line(&out.files).filter(|l| l.0 > MAX_LINE) {
        return Some(format!("{what}: {}: a line of {} bytes", long.1, long.0));
    }
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in &out.files {
        fs::write(dir.path().join(name), text).expect("write output");
    }
    let target = LintTarget::from_dir(dir.path()).expect("manifest");
    let verdicts = run_all(&target).unwrap_or_else(|e| panic!("{e}"));
    let problems: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.clean)
        .map(|v| format!("{what}: {}:\n{}", v.tool, v.output))
        .collect();
    (!problems.is_empty()).then(|| problems.join("\n"))
}

/// Lints all configurations on all cores and reports every failure at once.
fn lint_all(design: &str, configs: &[(String, OutputOptions)]) {
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get());
    let chunk = configs.len().div_ceil(threads).max(1);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = configs
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .filter_map(|(p, o)| lint(design, p, *o))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("lint thread"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} configurations not lint clean:\n{}",
        failures.len(),
        configs.len(),
        failures.join("\n")
    );
}

const MODES: [(bool, bool); 4] = [(false, false), (true, false), (false, true), (true, true)];

#[test]
fn queue_is_lint_clean() {
    let widths: &[u32] = if long() {
        &[1, 2, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128]
    } else {
        &[1, 8, 33, 128]
    };
    let mut configs = Vec::new();
    for (k, depth) in [1, 2, 3, 8].into_iter().enumerate() {
        for (m, (flow, pipe)) in MODES.into_iter().enumerate() {
            // Short runs still cover every width, depth and mode, just not every triple.
            let ws: Vec<u32> = if long() {
                widths.to_vec()
            } else {
                vec![widths[(k + m) % widths.len()]]
            };
            for width in ws {
                // The memory policy's extremes: the entries an SRAM macro, or flops.
                let sram = [0, NEVER_SRAM_BITS][(k + m) % 2];
                let p = format!(
                    "depth = {depth}\nwidth = {width}\nflow = {flow}\npipe = {pipe}\n\
                     sram_threshold_bits = {sram}"
                );
                configs.push((p, OutputOptions::default()));
            }
        }
    }
    // The VPAQ's shape: 24 (not a power of two) x 243 bits, a macro at the default.
    configs.push(("depth = 24\nwidth = 243".into(), OutputOptions::default()));
    lint_all("queue", &configs);
}

#[test]
fn multiplier_is_lint_clean() {
    // The extremes of each parameter, and the shapes the designs use.
    let mut shapes = vec![
        (1, 1, false, false, 0),
        (1, 1, true, true, 16),
        (256, 3, true, false, 16),
        (256, 1, false, true, 0),
        (1, 256, true, true, 5),
        (65, 65, true, true, 3),
        (64, 64, false, false, 1),
        (53, 24, false, true, 2),
    ];
    if long() {
        shapes.push((256, 256, true, false, 16));
        for w in [2, 3, 8, 33, 113, 255] {
            for stages in [0, 1, 4, 8] {
                shapes.push((w, w + 1, w % 2 == 0, w % 3 == 0, stages));
            }
        }
    }
    let configs: Vec<(String, OutputOptions)> = shapes
        .into_iter()
        .map(|(a, b, sa, sb, stages)| {
            let p = format!(
                "a_width = {a}\nb_width = {b}\na_signed = {sa}\nb_signed = {sb}\nstages = {stages}"
            );
            (p, OutputOptions::default())
        })
        .collect();
    lint_all("multiplier", &configs);
}

#[test]
fn banked_rf_is_lint_clean() {
    let widths: &[u32] = if long() {
        &[1, 8, 32, 64, 100, 128]
    } else {
        &[1, 16, 64, 128, 3, 32, 100, 8]
    };
    let mut configs = Vec::new();
    let mut k = 0;
    for banks in [1, 2, 4, 16] {
        for sram in [true, false] {
            let ws: Vec<u32> = if long() {
                widths.to_vec()
            } else {
                vec![widths[k % widths.len()]]
            };
            for width in ws {
                let ports = [(1, 1), (2, 1), (3, 2), (4, 4)][k % 4];
                // Unmasked, and a granule of a quarter word where the width allows one.
                let grans = if width % 4 == 0 {
                    vec![0, width / 4]
                } else {
                    vec![0]
                };
                for mask_gran in grans {
                    // One entry per bank, and several.
                    for entries in [banks.max(2), banks * 8] {
                        let p = format!(
                            "banks = {banks}\nentries = {entries}\nwidth = {width}\n\
                             read_ports = {}\nwrite_ports = {}\nmask_gran = {mask_gran}\n\
                             sram = {sram}",
                            ports.0, ports.1
                        );
                        configs.push((p, OutputOptions::default()));
                    }
                }
                k += 1;
            }
        }
    }
    // The output options change the emitted text, so they are linted too.
    for (single_file, all_inferred) in MODES {
        let opts = OutputOptions {
            single_file,
            all_inferred,
        };
        configs.push(("banks = 4\nmask_gran = 8".to_string(), opts));
    }
    lint_all("banked_rf", &configs);
}

#[test]
fn rocket_is_lint_clean() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut configs: Vec<(String, OutputOptions)> = ["rocket-small", "rocket-default"]
        .iter()
        .map(|p| {
            let text = fs::read_to_string(root.join(format!("{p}.toml"))).expect("preset");
            (text, OutputOptions::default())
        })
        .collect();
    let predictors = [
        "predictor = \"none\"",
        "predictor = \"bht\"\nbht_entries = 2",
        "predictor = \"bht\"\nbht_entries = 256",
        "predictor = \"btb\"\nbtb_entries = 1",
        "predictor = \"btb\"\nbtb_entries = 5",
    ];
    let memories = [
        "memory = \"direct\"",
        "icache_sets = 1\nicache_ways = 1\nicache_line_bytes = 8\n\
         dcache_sets = 1\ndcache_ways = 1\ndcache_line_bytes = 8",
        "icache_sets = 16\nicache_ways = 4\nicache_line_bytes = 16\n\
         dcache_sets = 64\ndcache_ways = 2\ndcache_line_bytes = 32\nuncached_size = 0\n\
         sram_threshold_bits = 0",
        "icache_sets = 4\nicache_ways = 8\nicache_line_bytes = 256\n\
         dcache_sets = 256\ndcache_ways = 3\ndcache_line_bytes = 64\n\
         sram_threshold_bits = 1099511627776",
    ];
    let muldivs = [
        "mul = \"iterative\"\nmul_bits_per_cycle = 1\ndiv_bits_per_cycle = 1",
        "mul = \"iterative\"\nmul_bits_per_cycle = 64\ndiv_bits_per_cycle = 4",
        "mul = \"pipelined\"\nmul_stages = 1\ndiv_bits_per_cycle = 2",
        "mul = \"pipelined\"\nmul_stages = 3\nrocc = true",
    ];
    // The third configuration of the lockstep tests (tests/rocket_lockstep.rs).
    let mut third: toml::Table = configs[1].0.parse().expect("preset");
    let overrides = "predictor = \"bht\"\nbht_entries = 32\nmul = \"pipelined\"\n\
                     mul_stages = 2\ndiv_bits_per_cycle = 2\ndcache_ways = 1\n\
                     icache_line_bytes = 16\nadders = \"inferred\"";
    third.extend(overrides.parse::<toml::Table>().expect("overrides"));
    configs.push((third.to_string(), OutputOptions::default()));
    // The presets as `accelgen fpga` builds them: inferred adders and memories.
    let fpga = OutputOptions {
        all_inferred: true,
        ..OutputOptions::default()
    };
    for preset in 0..2 {
        let text = format!("{}\nadders = \"inferred\"", configs[preset].0);
        configs.push((text, fpga));
    }
    // Every predictor, memory shape and multiplier shows up, each predictor with another
    // memory and multiplier; long runs cross them all.
    let combos: Vec<(usize, usize, usize)> = match long() {
        true => (0..predictors.len())
            .flat_map(|p| (0..memories.len()).map(move |m| (p, m)))
            .flat_map(|(p, m)| (0..muldivs.len()).map(move |d| (p, m, d)))
            .collect(),
        false => (0..predictors.len())
            .map(|p| (p, p % memories.len(), (p + 1) % muldivs.len()))
            .collect(),
    };
    for (p, m, d) in combos {
        let text = format!("{}\n{}\n{}", predictors[p], memories[m], muldivs[d]);
        configs.push((text, OutputOptions::default()));
    }
    lint_all("rocket", &configs);
    let presets: Vec<(String, OutputOptions)> = configs.into_iter().take(2).collect();
    lint_all("rocket_accumulator", &presets);
}

/// `fgsimt`: 2 lanes of 8-thread warps without and with every affine mechanism built (the
/// latter with a 2-way non-blocking D$ of 128-byte lines), 8 warp contexts of one thread
/// with abm and the AVC, 2 warps of one thread on the DWS sequencer (BL, a WST of 2
/// entries, +a +b) and 2 of 4 threads on 2 lanes splitting on memory divergence (hit
/// masks, a window of 0; 64-byte lines), in the fast suite;
/// long runs add the paper's preset, the DWS baseline's and the extremes (1 lane of 1
/// thread, 32 lanes, the smallest caches over 32 banks, the largest I$ without an
/// uncached region, one D$ bank, 2 contexts at 32 lanes, 8 contexts of one thread
/// without affine mechanisms, 2 with +a, 8 at the preset, 4 with abm and the AVC; the
/// sequencer at one thread with a one-branch table and hit masks, and at 8 warps of the preset with
/// ReviveSplit, the largest table, the deepest stacks and the longest hit window), each
/// affine setting on some of them.
#[test]
fn fgsimt_is_lint_clean() {
    let mut configs = vec![
        "lanes = 2\nwarp_size = 8".to_string(),
        "lanes = 2\nwarp_size = 8\naffine = \"abm\"\ndcache_ways = 2\ndcache_mshrs = 2\ndcache_line_bytes = 128"
            .to_string(),
        "lanes = 1\nwarp_size = 1\nwarps = 8\naffine = \"abm\"\navc = true".to_string(),
        // The DWS sequencer in the engine.
        "lanes = 1\nwarp_size = 1\nwarps = 2\nreconv = \"bl\"\nwst_entries = 2\naffine = \"ab\"".to_string(),
        // ... splitting on memory divergence: hit masks and write-back passes.
        "lanes = 2\nwarp_size = 4\nwarps = 2\nreconv = \"stack\"\ndws = \"aggress\"\nhit_window = 0\nwst_entries = 2\ndcache_line_bytes = 64"
            .to_string(),
    ];
    if long() {
        configs.extend(
            [
                "lanes = 1\nwarp_size = 1\naffine = \"ab\"",
                "lanes = 4\nwarp_size = 32\naffine = \"a\"",
                "lanes = 8\nwarp_size = 16\ndcache_banks = 1\naffine = \"abm\"",
                "lanes = 2\nwarp_size = 2\naffine = \"abm\"",
            ]
            .map(String::from),
        );
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
        for preset in ["fgsimt.toml", "fgsimt-dws-baseline.toml"] {
            configs.push(fs::read_to_string(root.join(preset)).expect("preset"));
        }
        configs.extend(
            [
                "lanes = 1\nwarp_size = 1",
                "lanes = 32",
                "dcache_bytes = 1024\ndcache_banks = 32\nicache_bytes = 1024",
                "icache_bytes = 131072\nuncached_size = 0",
                "lanes = 4\nwarp_size = 16\ndcache_banks = 1",
                "lanes = 32\nwarp_size = 32\nwarps = 2",
                "lanes = 1\nwarp_size = 1\nwarps = 8",
                "lanes = 4\nwarp_size = 16\nwarps = 2\naffine = \"a\"",
                "warps = 8",
                "warps = 4\naffine = \"abm\"\navc = true",
                "lanes = 1\nwarp_size = 1\nreconv = \"stack\"\nbranch_entries = 1\ndws = \"lazy\"",
                "warps = 8\nreconv = \"bypass\"\nbranch_dws = true\ndws = \"revive\"\nbranch_entries = 64\nstack_depth = 32\nhit_window = 255",
            ]
            .map(String::from),
        );
    }
    let configs: Vec<(String, OutputOptions)> = configs
        .into_iter()
        .map(|c| (c, OutputOptions::default()))
        .collect();
    lint_all("fgsimt", &configs);
}

/// `vgiw` (the whole tile): the small preset; long runs add a single unit of each type
/// with one channel a link, 2 virtual channels, 1-entry ports and one divider an SCU
/// (the fast suite lints that fabric alone, `tests/vgiw_fabric.rs`), the small preset
/// with those, the paper's preset (`configs/vgiw.toml`), 8 channels with 64 virtual
/// channels, a switch-heavy 8 x 8 grid and a single unit of each type alone.
#[test]
fn vgiw_is_lint_clean() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let small = fs::read_to_string(root.join("vgiw-small.toml")).expect("preset");
    let narrow = "switch_channels = 1\nvcs = 2\nport_outstanding = 1\nscu_instances = 1";
    let one_each = "compute_units = 1\nscus = 1\nldsts = 1\nlvus = 1\nsjus = 1\ncvus = 1";
    let mut configs = vec![small.clone()];
    if long() {
        configs.push(format!("{one_each}\n{narrow}"));
        configs.push(format!("{}\n{narrow}", small.replace("vcs = 8", "")));
        configs.push(fs::read_to_string(root.join("vgiw.toml")).expect("preset"));
        configs.extend(
            [
                "switch_channels = 8\nvcs = 64",
                "rows = 8\ncols = 8\ncompute_units = 4\nscus = 1\nldsts = 4\nlvus = 4\nsjus = 2\ncvus = 2",
                "compute_units = 1\nscus = 1\nldsts = 1\nlvus = 1\nsjus = 1\ncvus = 1",
            ]
            .map(String::from),
        );
        // The other ends of the unit parameters' ranges.
        for extreme in [
            "fma_stages = 1\nport_outstanding = 64\nscu_instances = 16",
            "fma_stages = 5\nport_outstanding = 2\nscu_instances = 2",
        ] {
            configs.push(format!("{small}\n{extreme}"));
        }
    }
    let configs: Vec<(String, OutputOptions)> = configs
        .into_iter()
        .map(|c| (c, OutputOptions::default()))
        .collect();
    lint_all("vgiw", &configs);
}

/// `fpu-divsqrt` in every format at the extremes of `bits_per_cycle` (every value when
/// long).
#[test]
fn fpu_divsqrt_is_lint_clean() {
    let bits: &[u32] = if long() { &[1, 2, 3, 4] } else { &[1, 4] };
    let mut configs = Vec::new();
    for format in ["binary16", "binary32", "binary64", "bfloat16"] {
        for b in bits {
            let p = format!("format = \"{format}\"\nbits_per_cycle = {b}");
            configs.push((p, OutputOptions::default()));
        }
    }
    lint_all("fpu-divsqrt", &configs);
}

/// The length of the longest line of `files` and the file holding it.
fn longest_line(files: &[(String, String)]) -> Option<(usize, &str)> {
    files
        .iter()
        .flat_map(|(name, text)| text.lines().map(move |l| (l.len(), name.as_str())))
        .max()
}

/// The accepted minimum and maximum of every `[hwacha]` parameter of `rocket-hwacha`
/// (`HwachaParams::validate`; it bounds `icache_sets` only to powers of two, and 4096 is
/// the tile's caches' limit).
const HWACHA_EXTREMES: [(&str, u32, u32); 27] = [
    ("lanes", 1, 64),
    ("seq_entries", 4, 32),
    ("banks", 1, 16),
    ("bank_entries", 16, 4096),
    ("bank_width", 64, 512),
    ("pred_entries", 16, 4096),
    ("stages_alu", 0, 4),
    ("stages_plu", 0, 4),
    ("stages_imul", 1, 8),
    ("stages_dfma", 1, 5),
    ("stages_sfma", 1, 5),
    ("stages_hfma", 1, 5),
    ("stages_fconv", 1, 2),
    ("stages_fcmp", 1, 2),
    ("idiv_bits_per_cycle", 1, 4),
    ("bwq_entries", 2, 256),
    ("brq_entries", 2, 256),
    ("vvaq_entries", 2, 256),
    ("vpaq_entries", 2, 256),
    ("vsdq_entries", 2, 256),
    ("vldq_entries", 2, 256),
    ("vlt_entries", 2, 256),
    ("vcmdq_entries", 2, 256),
    ("vrcmdq_entries", 2, 256),
    ("icache_sets", 1, 4096),
    ("icache_ways", 1, 8),
    ("icache_line_bytes", 8, 256),
];

/// Settings at the accepted extremes of every `[rocket]` parameter that is not its
/// default (`RocketParams::validate`): a block's size with the block chosen, the RAM at
/// its smallest and lowest. (`rocc` is always on in `rocket-hwacha`.)
const ROCKET_EXTREMES: &[&str] = &[
    "predictor = \"none\"",
    "predictor = \"bht\"\nbht_entries = 2",
    "predictor = \"bht\"\nbht_entries = 4096",
    "btb_entries = 1",
    "btb_entries = 64",
    "mul_bits_per_cycle = 1\nmul_early_out = false",
    "mul_bits_per_cycle = 64",
    "mul = \"pipelined\"\nmul_stages = 1",
    "mul = \"pipelined\"\nmul_stages = 8",
    "div_bits_per_cycle = 4\ndiv_early_out = false",
    "memory = \"direct\"",
    "icache_sets = 1",
    "icache_sets = 4096",
    "icache_ways = 1",
    "icache_ways = 8",
    "icache_line_bytes = 8",
    "icache_line_bytes = 256",
    "dcache_sets = 1",
    "dcache_sets = 4096",
    "dcache_ways = 1",
    "dcache_ways = 8",
    "dcache_line_bytes = 8",
    "dcache_line_bytes = 256",
    "ram_base = 0x2000\nram_size = 0x2000\nuncached_base = 0x2000",
    "uncached_size = 0",
    "uncached_size = 0x80000000",
    "adders = \"inferred\"",
];

/// Mixed precision (its packed layout's row, predicate and vector-length widths) at the
/// defaults and at the smallest and largest register files.
const MIXED_PRECISION_EXTREMES: [&str; 3] = [
    "mixed_precision = true",
    "mixed_precision = true\nbanks = 1\nbank_entries = 16\nbank_width = 64\npred_entries = 16",
    "mixed_precision = true\nbanks = 16\nbank_entries = 4096\nbank_width = 512\npred_entries = 4096",
];

/// Lanes of the all-maximum configuration. With 64 lanes (of 16 banks of 4096 x 512
/// bits) Icarus had not finished after 16 min of CPU and 8 GB of memory (Verilator took
/// 5 min and 7.5 GB, Yosys 9 min and 4.5 GB, both clean); 64 lanes with every other
/// parameter at its default is linted in the sweep of extremes.
const ALL_MAXIMUM_LANES: u32 = 8;

/// Every `[rocket]` and `[hwacha]` number at its maximum but `lanes` (the enumerations
/// at their defaults: the BTB, the iterative multiplier, caches).
fn all_maximum() -> String {
    let hwacha: String = HWACHA_EXTREMES
        .iter()
        .map(|&(name, _, max)| {
            let v = if name == "lanes" {
                ALL_MAXIMUM_LANES
            } else {
                max
            };
            format!("{name} = {v}\n")
        })
        .collect();
    let rocket = "bht_entries = 4096\nbtb_entries = 64\nmul_bits_per_cycle = 64\n\
                  mul_stages = 8\ndiv_bits_per_cycle = 4\nicache_sets = 4096\n\
                  icache_ways = 8\nicache_line_bytes = 256\ndcache_sets = 4096\n\
                  dcache_ways = 8\ndcache_line_bytes = 256";
    format!("[hwacha]\n{hwacha}mixed_precision = true\n[rocket]\n{rocket}")
}

/// The expander's hazard checks grow with the sequencer slots (once one line of 66 KB
/// at the default 8 and 250 KB at 32, which Verilator refused from 11 slots on).
#[test]
fn rocket_hwacha_lines_are_bounded() {
    for seq_entries in [4, 11, 12, 32] {
        let table = format!("[hwacha]\nseq_entries = {seq_entries}")
            .parse()
            .expect("TOML");
        let out = render("rocket-hwacha", &table, &OutputOptions::default()).expect("renders");
        let (len, file) = longest_line(&out.files).expect("some output");
        assert!(
            len <= MAX_LINE,
            "{seq_entries} slots: {file}: a line of {len} bytes"
        );
    }
}

/// `ACCELGEN_LONG=1` only (a lint of `rocket-hwacha` takes 10 to 20 s of CPU, over a
/// minute at 32 slots, 64 lanes or 4096-set caches; about half an hour in all): every
/// accepted extreme of every parameter, one at a time at the others' defaults, and the
/// sequencer sizes whose expander Verilator once refused (11 and 12 slots). The default
/// run lints the expander alone at those sizes (`rocket_lint.rs`).
#[test]
fn rocket_hwacha_extremes_are_lint_clean() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to lint rocket-hwacha at its extremes");
        return;
    }
    let mut configs: Vec<String> = [11, 12]
        .iter()
        .map(|s| format!("[hwacha]\nseq_entries = {s}"))
        .collect();
    let defaults = toml::Table::try_from(HwachaParams::default()).expect("a table");
    for (name, min, max) in HWACHA_EXTREMES {
        for v in [min, max] {
            if defaults.get(name).and_then(toml::Value::as_integer) != Some(i64::from(v)) {
                configs.push(format!("[hwacha]\n{name} = {v}"));
            }
        }
    }
    configs.extend(ROCKET_EXTREMES.iter().map(|r| format!("[rocket]\n{r}")));
    configs.extend(
        MIXED_PRECISION_EXTREMES
            .iter()
            .map(|h| format!("[hwacha]\n{h}")),
    );
    // The memory policy's extremes (beyond `HWACHA_EXTREMES`' u32 range).
    for t in [0, NEVER_SRAM_BITS] {
        configs.push(format!("[hwacha]\nsram_threshold_bits = {t}"));
        configs.push(format!("[rocket]\nsram_threshold_bits = {t}"));
    }
    let configs: Vec<(String, OutputOptions)> = configs
        .into_iter()
        .map(|c| (c, OutputOptions::default()))
        .collect();
    lint_all("rocket-hwacha", &configs);
}

/// `ACCELGEN_LONG=1` only: every number at its maximum (and mixed precision) but the
/// lanes, 8 (16 banks of
/// 4096 x 512 bits, 32 slots, 256-entry queues, 4096-set 8-way caches of 256-byte
/// lines: 14 MB of Verilog). Its lint takes about 11 min of CPU, all clean: Verilator
/// 70 s and 1.7 GB, Yosys 7 min and 4 GB (most of it the caches), Icarus 2 min, 2.3 GB.
#[test]
fn rocket_hwacha_all_maximum_is_lint_clean() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to lint rocket-hwacha at its maximum");
        return;
    }
    lint_all(
        "rocket-hwacha",
        &[(all_maximum(), OutputOptions::default())],
    );
}

#[test]
fn fpu_fma_is_lint_clean() {
    // Every format at the stage extremes, and the packed unit; ACCELGEN_LONG every depth.
    let stages: &[u32] = if long() { &[1, 2, 3, 4, 5] } else { &[1, 5] };
    let mut configs = Vec::new();
    for s in stages {
        for format in ["binary16", "binary32", "binary64", "bfloat16"] {
            let p = format!("format = \"{format}\"\nstages = {s}");
            configs.push((p, OutputOptions::default()));
        }
        let p = format!("packed = true\nstages = {s}");
        configs.push((p, OutputOptions::default()));
    }
    lint_all("fpu-fma", &configs);
}
