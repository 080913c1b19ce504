//! `accelgen synth` and `accelgen sta` run for real (Yosys 0.23, OpenSTA) on generated
//! designs, checked against independent counts: Yosys's own area of the written netlist,
//! the generic flop count before mapping, the fakeram Liberty's macro area, the fanout of
//! the netlist's nets, and OpenSTA re-run at the reported Fmax. Bad input goes through
//! the CLI. rocket-default and Hwacha's vector unit (`--top VectorUnit`: lanes, banks as
//! fakeram macros, sequencers, VMU) need `ACCELGEN_LONG=1` (many minutes each).

mod cli_run;

use asic_flow::liberty::Library;
use cli_run::{accelgen, s};
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const NANGATE: &str = "asic-flow/pdk/nangate45_typ.lib.gz";

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// A generated and synthesized design (in a temporary directory while it lives).
struct Synthesized {
    _tmp: tempfile::TempDir,
    out: PathBuf,
    report: Value,
}

/// Generates `design` with `args`, then synthesizes it (extra synth arguments `synth`).
fn synthesize(design: &str, args: &[&str], synth: &[&str]) -> Synthesized {
    let tmp = tempfile::tempdir().unwrap();
    let gen = tmp.path().join("gen");
    let out = tmp.path().join("synth");
    let mut g = vec!["generate", design, "-o", s(&gen)];
    g.extend(args);
    let r = accelgen(&g);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut a = vec![
        "synth",
        s(&gen),
        "--liberty",
        NANGATE,
        "-o",
        s(&out),
        "--depth",
        "3",
    ];
    a.extend(synth);
    let r = accelgen(&a);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    Synthesized {
        _tmp: tmp,
        out,
        report,
    }
}

/// rocket-small synthesized once (one test: the test runner may run each test in a
/// process of its own) and checked by [`areas_add_up_and_match_yosys`],
/// [`timing_driven_mapping_buffers_high_fanout_nets`] and [`sta_fmax_is_consistent`].
#[test]
fn rocket_small_synthesizes_and_times_consistently() {
    let x = synthesize(
        "rocket",
        &["--config", "configs/rocket-small.toml"],
        &["--clock-period", "5"],
    );
    areas_add_up_and_match_yosys(&x);
    timing_driven_mapping_buffers_high_fanout_nets(&x);
    sta_fmax_is_consistent(&x);
}

fn f(v: &Value, key: &str) -> f64 {
    v[key].as_f64().unwrap_or_else(|| panic!("{key} in {v}"))
}

/// Yosys's own area of the written netlist (`stat -liberty`), an independent sum.
fn yosys_area(netlist: &Path, top: &str) -> f64 {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("cells.lib");
    std::fs::write(
        &lib,
        asic_flow::liberty::read_text(Path::new(NANGATE)).unwrap(),
    )
    .unwrap();
    let script = format!(
        "read_liberty -lib {l}; read_verilog {n}; hierarchy -top {top}; stat -liberty {l} -top {top}",
        l = lib.display(),
        n = netlist.display()
    );
    let out = Command::new("yosys")
        .args(["-p", &script])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    let line = log
        .lines()
        .rfind(|l| l.contains("Chip area for top module"))
        .unwrap_or_else(|| panic!("no chip area in {log}"));
    line.rsplit(':').next().unwrap().trim().parse().unwrap()
}

/// Checks the area bookkeeping of a report: totals add up, each listed instance's subtree
/// is its own area plus its listed children's, and the top's equals Yosys's own sum.
fn check_areas(x: &Synthesized) {
    let r = &x.report;
    let (total, logic, macros) = (
        f(r, "area_um2"),
        f(r, "logic_area_um2"),
        f(r, "macro_area_um2"),
    );
    assert!(
        (total - logic - macros).abs() < 0.01,
        "{total} != {logic} + {macros}"
    );
    let inst = r["instances"].as_array().unwrap();
    assert!((f(&inst[0], "subtree_area_um2") - total).abs() < 0.01);
    let max_depth = inst
        .iter()
        .map(|i| i["depth"].as_u64().unwrap())
        .max()
        .unwrap();
    for (k, i) in inst.iter().enumerate() {
        let depth = i["depth"].as_u64().unwrap();
        if depth == max_depth {
            continue;
        }
        let path = i["path"].as_str().unwrap();
        let children: f64 = inst[k + 1..]
            .iter()
            .take_while(|c| c["depth"].as_u64().unwrap() > depth)
            .filter(|c| c["depth"].as_u64().unwrap() == depth + 1)
            .map(|c| f(c, "subtree_area_um2"))
            .sum();
        let sum = f(i, "area_um2") + children;
        assert!(
            (sum - f(i, "subtree_area_um2")).abs() < 0.05,
            "{path}: {sum} vs {i}"
        );
    }
    let top = r["top"].as_str().unwrap();
    let yosys = yosys_area(&x.out.join("netlist.v"), top) + macros;
    assert!(
        (yosys - total).abs() < 1e-4 * total + 0.05,
        "Yosys {yosys} vs {total}"
    );
}

/// The largest number of cell pins any net drives, from the netlist text.
fn max_fanout(netlist: &str) -> usize {
    let mut loads: HashMap<String, usize> = HashMap::new();
    let mut module = "";
    for line in netlist.lines() {
        let t = line.trim();
        if let Some(m) = t.strip_prefix("module ") {
            module = m;
        }
        // `.PIN(net)`: count every connection; a driver is one of them.
        if let Some(rest) = t.strip_prefix('.') {
            if let Some((_, net)) = rest.split_once('(') {
                let net = net.trim_end_matches([')', ',']);
                *loads.entry(format!("{module}:{net}")).or_default() += 1;
            }
        }
    }
    loads
        .into_iter()
        .filter(|(k, _)| !k.ends_with(":clock") && !k.ends_with(":reset"))
        .map(|(_, n)| n - 1)
        .max()
        .unwrap_or(0)
}

fn areas_add_up_and_match_yosys(x: &Synthesized) {
    check_areas(x);
    let r = &x.report;
    assert_eq!(
        r["macro_area_um2"].as_f64(),
        Some(0.0),
        "rocket-small has no macros"
    );
    assert!(r["flops"].as_u64().unwrap() > 1000);
    // Two counts of the flops: Yosys's generic cells before mapping, Liberty flops after.
    assert_eq!(r["flops"], r["generic_flops"]);
    // The core dominates a cacheless Rocket tile.
    let core = r["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["module"] == "RocketCore");
    assert!(f(core.unwrap(), "subtree_area_um2") > 0.5 * f(r, "area_um2"));
    let txt = std::fs::read_to_string(x.out.join("report.txt")).unwrap();
    assert!(txt.contains("RocketCore"), "{txt}");
}

fn timing_driven_mapping_buffers_high_fanout_nets(x: &Synthesized) {
    let netlist = std::fs::read_to_string(x.out.join("netlist.v")).unwrap();
    // The issue measured 1,141 loads on one unbuffered net of an area-only mapping.
    let fanout = max_fanout(&netlist);
    assert!(fanout > 0 && fanout < 100, "a net drives {fanout} loads");
}

fn sta(out: &Path, period: f64) -> Value {
    let p = format!("{period}");
    let r = accelgen(&[
        "sta",
        s(out),
        "--liberty",
        NANGATE,
        "--period",
        &p,
        "--json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

/// The slack at the reported Fmax's period is about zero, and a critical path is named.
fn check_fmax(out: &Path, period: f64) -> Value {
    let a = sta(out, period);
    let fmax = f(&a, "fmax_mhz");
    assert!(fmax > 10.0 && fmax < 5000.0, "{a}");
    let b = sta(out, 1000.0 / fmax);
    assert!(f(&b, "worst_slack_ns").abs() < 0.005, "at Fmax {fmax}: {b}");
    assert!(!a["startpoint"].as_str().unwrap().is_empty());
    assert!(f(&a, "path_delay_ns") > 0.0 && a["levels"].as_u64().unwrap() > 1);
    a
}

fn sta_fmax_is_consistent(x: &Synthesized) {
    let a = check_fmax(&x.out, 5.0);
    // A tighter clock leaves less slack by the same amount on a register-to-register path
    // and never more.
    let b = sta(&x.out, 4.0);
    assert!(f(&b, "worst_slack_ns") < f(&a, "worst_slack_ns"));
    assert_eq!(a["paths"].as_array().unwrap().len(), 5);
}

#[test]
fn sram_macros_are_black_boxes_with_fakeram_area() {
    let x = synthesize(
        "banked_rf",
        &["--set", "banks=2", "--set", "entries=64"],
        &[],
    );
    check_areas(&x);
    let r = &x.report;
    let macros = r["macros"].as_array().unwrap();
    assert!(!macros.is_empty());
    let mut expected = 0.0;
    for m in macros {
        let name = m["name"].as_str().unwrap();
        // The Liberty written for timing, read independently of synthesis's sum.
        let lib = Library::read(&x.out.join(format!("{name}.lib"))).unwrap();
        let count = m["instances"].as_u64().unwrap() as f64;
        expected += count * lib.cells[name].area;
    }
    assert!(expected > 0.0);
    assert!((f(r, "macro_area_um2") - expected).abs() < 0.01, "{r}");
    // The macros' behavioural models are not synthesized: no flop of theirs is counted.
    assert_eq!(r["flops"], r["generic_flops"]);
    // OpenSTA reads the fakeram models and times the paths through them.
    check_fmax(&x.out, 5.0);
}

#[test]
fn same_input_gives_byte_identical_output() {
    let a = synthesize("queue", &["--set", "depth=8"], &[]);
    let b = synthesize("queue", &["--set", "depth=8"], &[]);
    for f in ["netlist.v", "report.json", "report.txt", "manifest.json"] {
        let read = |x: &Synthesized| std::fs::read(x.out.join(f)).unwrap();
        assert!(read(&a) == read(&b), "{f} differs between two runs");
    }
    // Only the measurements vary; they are in run.json.
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(a.out.join("run.json")).unwrap()).unwrap();
    assert!(f(&run, "wall_s") > 0.0 && f(&run, "peak_rss_mb") > 1.0);
}

#[test]
fn hwacha_unit_and_rocket_default_long() {
    if !long() {
        return;
    }
    let hw = synthesize(
        "rocket-hwacha",
        &["--config", "configs/hwacha-1lane.toml"],
        &["--top", "VectorUnit"],
    );
    check_areas(&hw);
    assert!(f(&hw.report, "macro_area_um2") > 0.0);
    assert_eq!(hw.report["flops"], hw.report["generic_flops"]);
    check_fmax(&hw.out, 5.0);
    let rd = synthesize("rocket", &["--config", "configs/rocket-default.toml"], &[]);
    check_areas(&rd);
    check_fmax(&rd.out, 5.0);
}

#[test]
fn bad_input_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let missing = t.join("nope");
    let r = accelgen(&["synth", s(&missing), "--liberty", NANGATE]);
    assert!(
        r.code != 0 && r.stderr.contains("no such directory"),
        "{}",
        r.stderr
    );
    let plain = t.join("plain");
    std::fs::create_dir(&plain).unwrap();
    let r = accelgen(&["synth", s(&plain), "--liberty", NANGATE]);
    assert!(
        r.code != 0 && r.stderr.contains("not an `accelgen generate` output"),
        "{}",
        r.stderr
    );
    let gen = t.join("q");
    assert_eq!(accelgen(&["generate", "queue", "-o", s(&gen)]).code, 0);
    let junk = t.join("junk.lib");
    std::fs::write(&junk, "module m; endmodule").unwrap();
    let r = accelgen(&["synth", s(&gen), "--liberty", s(&junk)]);
    assert!(
        r.code != 0 && r.stderr.contains("not a Liberty library"),
        "{}",
        r.stderr
    );
    let r = accelgen(&["synth", s(&gen), "--liberty", s(&t.join("none.lib"))]);
    assert!(
        r.code != 0 && r.stderr.contains("cannot read Liberty"),
        "{}",
        r.stderr
    );
    let r = accelgen(&["synth", s(&gen), "--liberty", NANGATE, "--top", "Nope"]);
    assert!(
        r.code != 0 && r.stderr.contains("--top Nope"),
        "{}",
        r.stderr
    );
    let r = accelgen(&["synth", s(&gen), "--liberty", NANGATE, "--clock-period=-1"]);
    assert!(
        r.code != 0 && r.stderr.contains("clock period"),
        "{}",
        r.stderr
    );
    let inside = gen.join("synth");
    let r = accelgen(&["synth", s(&gen), "--liberty", NANGATE, "-o", s(&inside)]);
    assert!(r.code != 0 && r.stderr.contains("inside"), "{}", r.stderr);
    let r = accelgen(&["synth", s(&gen), "--liberty", NANGATE, "-o", s(&gen)]);
    assert!(r.code != 0 && r.stderr.contains("inside"), "{}", r.stderr);
    // No partial output, and the generated directory is untouched.
    assert!(!t.join("q-synth-nangate45_typ").exists() && !inside.exists());
    assert!(gen.join("manifest.json").is_file());
    let r = accelgen(&["sta", s(&gen), "--liberty", NANGATE, "--period", "2"]);
    assert!(
        r.code != 0 && r.stderr.contains("not an `accelgen synth` output"),
        "{}",
        r.stderr
    );
    let r = accelgen(&["sta", s(&gen), "--liberty", NANGATE, "--period", "0"]);
    assert!(
        r.code != 0 && r.stderr.contains("clock period"),
        "{}",
        r.stderr
    );
}
