//! `accelgen sweep` run locally: every point's generate metrics equal what `accelgen
//! generate` writes for the same parameters, lint counts agree with `accelgen lint`, a
//! point the design refuses is a failed row while the others run, a rerun takes every
//! step from the cache and writes byte-identical results, a changed axis value recomputes
//! only its points, plots come out as SVG and PNG, and bad specs are errors naming their
//! key before anything is written. A program step's cycles and instructions equal
//! `accelgen sim --program`'s for the same point.

mod cli_run;

use cli_run::{accelgen, s};
use std::fs;
use std::path::{Path, PathBuf};

fn write_spec(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

/// The rows of a results CSV as (header, rows of cells).
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap();
    let mut r = ::csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn cell<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no {name}"));
    &row[i]
}

/// Whether every step of point `i` came from the cache.
fn cached(dir: &Path, i: usize) -> Vec<bool> {
    let text = fs::read_to_string(dir.join(format!("results/{i}.json"))).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["cached"].as_bool().unwrap())
        .collect()
}

const SPEC: &str = r#"
design = "banked_rf"
steps = ["generate", "lint"]
invalid_points = "row"
[axes]
banks = [2, 4]
entries = { from = 2, to = 8, times = 4 }
"#;

#[test]
fn local_sweep_matches_generate_resumes_and_records_failures() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = write_spec(tmp.path(), "rf.toml", SPEC);
    let out = tmp.path().join("out");
    let run = accelgen(&["sweep", s(&spec), "-j", "2", "-o", s(&out)]);
    // Point 2 (4 banks, 2 entries) is refused by the design: exit 1 after every point.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("4 points, 1 failed"), "{}", run.stdout);
    let (header, rows) = csv(&out.join("results.csv"));
    assert_eq!(&header[..3], ["point", "banks", "entries"]);
    assert_eq!(rows.len(), 4);
    let expected = [("2", "2"), ("2", "8"), ("4", "2"), ("4", "8")];
    for (i, (row, (banks, entries))) in rows.iter().zip(expected).enumerate() {
        assert_eq!((&row[1][..], &row[2][..]), (banks, entries), "point order");
        if i == 2 {
            let e = cell(&header, row, "error");
            assert!(e.starts_with("generate: ") && e.contains("entries"), "{e}");
            assert_eq!(cell(&header, row, "lint.warnings"), "");
            continue;
        }
        assert_eq!(cell(&header, row, "error"), "");
        // The same point through `accelgen generate` and `accelgen lint`.
        let g = tmp.path().join(format!("gen{i}"));
        let gen = accelgen(&[
            "generate",
            "banked_rf",
            "--set",
            &format!("banks={banks}"),
            "--set",
            &format!("entries={entries}"),
            "-o",
            s(&g),
        ]);
        assert_eq!(gen.code, 0, "{}", gen.stderr);
        let manifest: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(g.join("manifest.json")).unwrap()).unwrap();
        let bytes: u64 = manifest["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| fs::metadata(g.join(f.as_str().unwrap())).unwrap().len())
            .sum();
        assert_eq!(
            cell(&header, row, "generate.verilog_bytes"),
            bytes.to_string()
        );
        let modules = manifest["modules"].as_array().unwrap().len();
        assert_eq!(cell(&header, row, "generate.modules"), modules.to_string());
        let lint = accelgen(&["lint", s(&g)]);
        let clean = lint.code == 0;
        assert_eq!(
            cell(&header, row, "lint.warnings") == "0",
            clean,
            "{}",
            lint.stdout
        );
    }
    let jsonl = fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(jsonl.lines().count(), 4);
    for ext in ["svg", "png"] {
        let plot = out.join(format!("plots/generate.verilog_bytes-vs-banks.{ext}"));
        let bytes = fs::read(&plot).unwrap();
        match ext {
            "png" => assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n"),
            _ => assert!(String::from_utf8_lossy(&bytes).contains("entries=8")),
        }
    }

    // A rerun: everything from the cache, byte-identical results.
    let first = fs::read(out.join("results.csv")).unwrap();
    let again = accelgen(&["sweep", s(&spec), "-o", s(&out)]);
    assert_eq!(again.code, 1);
    assert_eq!(fs::read(out.join("results.csv")).unwrap(), first);
    for i in [0, 1, 3] {
        assert_eq!(cached(&out, i), [true, true], "point {i}");
    }

    // One axis value changed: only the points with it are recomputed.
    let changed = write_spec(
        tmp.path(),
        "rf.toml",
        &SPEC.replace("to = 8, times = 4", "to = 32, times = 16"),
    );
    let third = accelgen(&["sweep", s(&changed), "-o", s(&out)]);
    assert_eq!(third.code, 1, "{}", third.stderr);
    assert_eq!(cached(&out, 0), [true, true]);
    assert_eq!(cached(&out, 1), [false, false]);
    assert_eq!(cached(&out, 3), [false, false]);
    let (_, rows) = csv(&out.join("results.csv"));
    assert_eq!(rows[1][2], "32");
}

#[test]
fn bad_specs_are_errors_naming_their_key_before_anything_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "banks_x = [1]",
            "axes.\"banks_x\"",
            "no parameter `banks_x`",
        ),
        ("banks = []", "axes.\"banks\"", "no values"),
        ("banks = [3]", "axes.\"banks\"", "power of two"),
        (
            "banks = [4]\nentries = [2]",
            "`axes`",
            "point 0 (banks=4, entries=2)",
        ),
        (
            "banks = { from = 4, to = 1, step = 1 }",
            "axes.\"banks\"",
            "from <= to",
        ),
    ];
    for (i, (axes, key, why)) in cases.iter().enumerate() {
        let spec = write_spec(
            tmp.path(),
            &format!("bad{i}.toml"),
            &format!("design = \"banked_rf\"\nsteps = [\"generate\"]\n[axes]\n{axes}\n"),
        );
        let out = tmp.path().join(format!("out{i}"));
        let run = accelgen(&["sweep", s(&spec), "-o", s(&out)]);
        assert_eq!(run.code, 1, "{axes}");
        assert!(
            run.stderr.contains(key) && run.stderr.contains(why),
            "{axes}: {}",
            run.stderr
        );
        assert!(!out.exists(), "{axes}: output written for a bad spec");
    }
    let spec = write_spec(
        tmp.path(),
        "steps.toml",
        "design = \"queue\"\nsteps = [\"generate\", \"simulate\"]\n[axes]\ndepth = [2]\n",
    );
    let run = accelgen(&["sweep", s(&spec)]);
    assert!(
        run.stderr.contains("`steps`: unknown step `simulate`"),
        "{}",
        run.stderr
    );
    let spec = write_spec(
        tmp.path(),
        "sta.toml",
        "design = \"queue\"\nsteps = [\"sta\"]\nliberty = \"sta.toml\"\nperiod_ns = 1.0\n\
         [axes]\ndepth = [2]\n",
    );
    let run = accelgen(&["sweep", s(&spec)]);
    let why = "`steps`: step `sta` times the netlist of a `synth` step before it";
    assert!(run.stderr.contains(why), "{}", run.stderr);
    // A directory that is not a sweep's is never written into.
    let spec = write_spec(
        tmp.path(),
        "ok.toml",
        "design = \"queue\"\nsteps = [\"generate\"]\n[axes]\ndepth = [2]\n",
    );
    let mine = tmp.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("notes.txt"), "keep").unwrap();
    let run = accelgen(&["sweep", s(&spec), "-o", s(&mine)]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("not a sweep directory"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_dir(&mine).unwrap().count(), 1);
}

const PROGRAM: &str = r#"
#include <stdio.h>
int data[256];
int main(void) {
    long s = 0;
    for (int i = 0; i < 256; i++) data[i] = i * 3;
    for (int i = 0; i < 256; i++)
        s += (data[i] & 1) ? data[i] : -1;
    printf("sum %ld\n", s);
    return 0;
}
"#;

/// The `N cycles, M instructions` of `accelgen sim --program`'s report line.
fn sim_counts(stderr: &str) -> (String, String) {
    let line = stderr
        .lines()
        .find(|l| l.contains(" cycles, "))
        .expect("a report line");
    let word_before = |what: &str| {
        let i = line.find(what).unwrap();
        line[..i].rsplit(' ').next().unwrap().to_string()
    };
    (word_before(" cycles"), word_before(" instructions"))
}

#[test]
fn a_program_step_counts_what_sim_counts() {
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("sum.c"), PROGRAM).unwrap();
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rocket-small.toml");
    // One point: rocket-small itself, whose Verilator model the CLI tests build too.
    let spec = write_spec(
        tmp.path(),
        "p.toml",
        &format!(
            "design = \"rocket\"\nconfig = {:?}\nsteps = [\"sum\"]\n[axes]\npredictor = [\"none\"]\n\
             [[programs]]\nname = \"sum\"\nsources = [\"sum.c\"]\nelements = 256\n",
            s(&config)
        ),
    );
    let out = tmp.path().join("out");
    let run = accelgen(&["sweep", s(&spec), "-o", s(&out)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (header, rows) = csv(&out.join("results.csv"));
    let elf = out.join("points/0/sum.elf");
    let sim = accelgen(&[
        "sim",
        "rocket",
        "--config",
        s(&config),
        "--program",
        s(&elf),
    ]);
    assert_eq!(sim.code, 0, "{}", sim.stderr);
    let (cycles, instructions) = sim_counts(&sim.stderr);
    assert_eq!(cell(&header, &rows[0], "sum.cycles"), cycles);
    assert_eq!(cell(&header, &rows[0], "sum.instructions"), instructions);
    let cpi: f64 = cell(&header, &rows[0], "sum.cpi").parse().unwrap();
    let c: f64 = cycles.parse().unwrap();
    let n: f64 = instructions.parse().unwrap();
    assert!((cpi - c / n).abs() < 1e-5, "{cpi} vs {c}/{n}");
    let epc: f64 = cell(&header, &rows[0], "sum.elements_per_cycle")
        .parse()
        .unwrap();
    assert!((epc - 256.0 / c).abs() < 1e-5);
}

#[test]
fn synth_and_sta_steps_report_what_the_commands_report() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = Path::new(env!("CARGO_MANIFEST_DIR")).join("asic-flow/pdk/nangate45_typ.lib.gz");
    let spec = write_spec(
        tmp.path(),
        "syn.toml",
        &format!(
            "design = \"banked_rf\"\nsteps = [\"synth\", \"sta\"]\nliberty = {:?}\n\
             period_ns = 2.0\n[axes]\nbanks = [1, 2]\nwidth = [16]\n",
            s(&lib)
        ),
    );
    let out = tmp.path().join("out");
    let run = accelgen(&["sweep", s(&spec), "-j", "2", "-o", s(&out)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (header, rows) = csv(&out.join("results.csv"));
    for (row, banks) in rows.iter().zip(["1", "2"]) {
        let num = |name: &str| -> f64 { cell(&header, row, name).parse().unwrap() };
        let total = num("synth.area_um2");
        let parts = num("synth.logic_area_um2") + num("synth.macro_area_um2");
        assert!((total - parts).abs() < 0.2, "{total} vs {parts}");
        // The same point through `accelgen generate`, `synth` and `sta`.
        let g = tmp.path().join(format!("gen{banks}"));
        let gen = accelgen(&[
            "generate",
            "banked_rf",
            "--set",
            &format!("banks={banks}"),
            "--set",
            "width=16",
            "-o",
            s(&g),
        ]);
        assert_eq!(gen.code, 0, "{}", gen.stderr);
        let syn = tmp.path().join(format!("syn{banks}"));
        let r = accelgen(&[
            "synth",
            s(&g),
            "--liberty",
            s(&lib),
            "--clock-period",
            "2",
            "-o",
            s(&syn),
            "--json",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let report: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert!((report["area_um2"].as_f64().unwrap() - total).abs() < 0.1);
        assert_eq!(
            report["flops"].to_string(),
            cell(&header, row, "synth.flops")
        );
        let t = accelgen(&[
            "sta",
            s(&syn),
            "--liberty",
            s(&lib),
            "--period",
            "2",
            "--json",
        ]);
        assert_eq!(t.code, 0, "{}", t.stderr);
        let timing: serde_json::Value = serde_json::from_str(&t.stdout).unwrap();
        let slack = timing["worst_slack_ns"].as_f64().unwrap();
        assert!((slack - num("sta.worst_slack_ns")).abs() < 1e-3, "{slack}");
        assert_eq!(
            timing["endpoint"].as_str().unwrap(),
            cell(&header, row, "sta.endpoint")
        );
    }
}

#[test]
fn the_example_specs_are_valid() {
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut n = 0;
    for entry in fs::read_dir(&configs).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("sweep-") {
            continue;
        }
        let run = accelgen(&["sweep", s(&path), "--dry-run"]);
        assert_eq!(run.code, 0, "{name}: {}", run.stderr);
        assert!(
            run.stdout.contains(" points, steps "),
            "{name}: {}",
            run.stdout
        );
        n += 1;
    }
    assert!(n >= 2, "expected sweep specs in configs/");
}
