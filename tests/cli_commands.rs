//! The `list`, `generate` and `lint` commands end to end: outputs, determinism, and every
//! bad input failing with a clear message, a non-zero exit and no files left behind.

mod cli_run;

use assert_cmd::cargo::cargo_bin_cmd;
use cli_run::{accelgen, s, tree, Run};
use std::fs;
use std::path::Path;

fn ok(args: &[&str]) -> Run {
    let r = accelgen(args);
    assert_eq!(
        r.code, 0,
        "accelgen {args:?}\nstdout: {}\nstderr: {}",
        r.stdout, r.stderr
    );
    r
}

fn manifest(dir: &Path) -> serde_json::Value {
    let text = fs::read_to_string(dir.join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest is JSON")
}

#[test]
fn list_shows_designs_parameters_and_defaults() {
    let r = ok(&["list"]);
    for fragment in [
        "banked_rf: banked register file",
        "queue: ready/valid FIFO",
        "  depth                integer  4        1..=65536          number of entries",
        "  flow                 boolean  false                       an empty queue passes enq",
        "  sram_threshold_bits  integer  4096     0..=1099511627776  arrays of more bits are SRAM",
        "  sram         boolean  true                        banks are SRAM macros",
        "  mask_gran    integer  0        0..=1024           data bits per write-mask bit",
    ] {
        assert!(
            r.stdout.contains(fragment),
            "missing {fragment:?} in:\n{}",
            r.stdout
        );
    }
}

#[test]
fn generate_writes_verilog_macros_and_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("nested/rf");
    let r = ok(&["generate", "banked_rf", "--set", "banks=2", "-o", s(&dir)]);
    assert!(
        r.stdout.contains("top module BankedRegFile"),
        "{}",
        r.stdout
    );
    let files = tree(&dir);
    let filelist = String::from_utf8(files["filelist.f"].clone()).unwrap();
    let listed: Vec<&str> = filelist.lines().collect();
    for f in &listed {
        assert!(files.contains_key(*f), "filelist names missing {f}");
    }
    for module in [
        "BankedRegFile.v",
        "Bank.v",
        "ReadCrossbar.v",
        "WriteCrossbar.v",
    ] {
        assert!(listed.contains(&module), "{module} not in {listed:?}");
    }
    // The default 64 entries over 2 banks: 32-word, 32-bit banks with one port of each kind.
    let macros: serde_json::Value =
        serde_json::from_slice(&files["sram_macros.json"]).expect("macros JSON");
    assert_eq!(macros[0]["depth"], 32);
    assert_eq!(macros[0]["width"], 32);
    assert_eq!(macros.as_array().unwrap().len(), 1);
    assert!(listed.contains(&format!("{}.v", macros[0]["name"].as_str().unwrap()).as_str()));

    let m = manifest(&dir);
    assert_eq!(m["design"], "banked_rf");
    assert_eq!(m["top"], "BankedRegFile");
    assert_eq!(m["parameters"]["banks"], 2);
    assert_eq!(
        m["parameters"]["width"], 32,
        "defaults fill unset parameters"
    );
    let instances: Vec<&str> = m["hierarchy"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["instance"].as_str().unwrap())
        .collect();
    assert_eq!(instances, ["read_xbar", "write_xbar", "bank0", "bank1"]);
    let top = m["modules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "BankedRegFile")
        .expect("top in modules");
    let port = |name: &str| {
        top["ports"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no port {name}"))
            .clone()
    };
    assert_eq!(
        port("read_1_bits")["width"],
        6,
        "64 entries need 6 address bits"
    );
    assert_eq!(port("read_1_bits")["direction"], "input");
    assert_eq!(port("resp_0_bits")["direction"], "output");
    assert_eq!(port("clock")["direction"], "input");
}

#[test]
fn sixteen_banks_share_one_bank_module() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rf16");
    ok(&["generate", "banked_rf", "--set", "banks=16", "-o", s(&dir)]);
    let files = tree(&dir);
    let banks: Vec<&String> = files
        .keys()
        .filter(|f| f.starts_with("Bank") && !f.starts_with("BankedRegFile"))
        .collect();
    assert_eq!(banks, ["Bank.v"]);
    let top = String::from_utf8(files["BankedRegFile.v"].clone()).unwrap();
    assert_eq!(
        top.matches("\n  Bank bank").count(),
        16,
        "16 instances of one definition"
    );
}

#[test]
fn generate_is_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    // Every registered design (`cli_params` pins the list itself).
    for design in generators::designs().iter().map(|d| d.name) {
        let (a, b) = (
            tmp.path().join(format!("{design}_a")),
            tmp.path().join(format!("{design}_b")),
        );
        ok(&["generate", design, "-o", s(&a)]);
        ok(&["generate", design, "-o", s(&b)]);
        assert_eq!(tree(&a), tree(&b), "{design}: two runs differ");
    }
}

#[test]
fn config_file_then_set_overrides_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("q.toml");
    fs::write(&cfg, "depth = 8\nwidth = 16\n").unwrap();
    let dir = tmp.path().join("q");
    ok(&[
        "generate",
        "queue",
        "--config",
        s(&cfg),
        "--set",
        "depth=2",
        "--set",
        "flow=true",
        "-o",
        s(&dir),
    ]);
    let p = &manifest(&dir)["parameters"];
    assert_eq!(
        (p["depth"].as_i64(), p["width"].as_i64()),
        (Some(2), Some(16))
    );
    assert_eq!(
        (p["flow"].as_bool(), p["pipe"].as_bool()),
        (Some(true), Some(false))
    );
}

#[test]
fn presets_in_configs_generate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        // Sweep specs, not presets: tests/flow_sweep.rs checks them.
        if name.starts_with("sweep-") {
            continue;
        }
        // Presets are named `<design>_<variant>.toml` or `<design>-<variant>.toml`, but
        // rocket-hwacha's after the vector unit alone (`hwacha-<lanes>lane.toml`).
        let design = [
            ("queue", "queue"),
            ("rocket", "rocket"),
            ("banked_rf", "banked_rf"),
            ("hwacha", "rocket-hwacha"),
            ("fgsimt", "fgsimt"),
            ("vgiw", "vgiw"),
            ("avc", "avc"),
        ]
        .into_iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, design)| design)
        .unwrap_or_else(|| panic!("preset {name} names no design"));
        ok(&[
            "generate",
            design,
            "--config",
            s(&path),
            "-o",
            s(&tmp.path().join(&name)),
        ]);
        n += 1;
    }
    assert!(n >= 2, "expected presets in configs/");
}

#[test]
fn single_file_and_all_inferred() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("one");
    ok(&[
        "generate",
        "banked_rf",
        "--single-file",
        "--all-inferred",
        "-o",
        s(&dir),
    ]);
    let names: Vec<String> = tree(&dir).into_keys().collect();
    assert_eq!(
        names,
        [
            "BankedRegFile.sdc",
            "BankedRegFile.v",
            "filelist.f",
            "manifest.json",
            "sram_macros.json"
        ]
    );
    assert_eq!(
        fs::read_to_string(dir.join("filelist.f")).unwrap(),
        "BankedRegFile.v\n"
    );
    assert_eq!(
        fs::read_to_string(dir.join("sram_macros.json"))
            .unwrap()
            .trim(),
        "[]"
    );
    let m = manifest(&dir);
    assert_eq!(m["files"], serde_json::json!(["BankedRegFile.v"]));
    assert_eq!(m["all_inferred"], true);
}

#[test]
fn regenerating_replaces_earlier_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    ok(&["generate", "banked_rf", "-o", s(&dir)]);
    ok(&["generate", "queue", "-o", s(&dir)]);
    let names: Vec<String> = tree(&dir).into_keys().collect();
    assert_eq!(
        names,
        [
            "Queue.sdc",
            "Queue.v",
            "filelist.f",
            "manifest.json",
            "sram_macros.json"
        ]
    );
    let leftovers: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["out"], "no staging directories left behind");
}

/// `args` (with `-o <tmp>/out` appended) fails with exit code 1, a message containing
/// every fragment, and nothing written.
fn fails(args: &[&str], fragments: &[&str]) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["-o", s(&dir)]);
    let r = accelgen(&all);
    assert_eq!(
        r.code, 1,
        "accelgen {all:?} should fail\nstderr: {}",
        r.stderr
    );
    for f in fragments {
        assert!(
            r.stderr.contains(f),
            "accelgen {args:?}: {f:?} not in stderr:\n{}",
            r.stderr
        );
    }
    assert!(r.stdout.is_empty(), "nothing on stdout: {}", r.stdout);
    let left: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "accelgen {args:?} left {left:?}");
}

#[test]
fn bad_designs_and_parameters_are_clear_errors() {
    fails(
        &["generate", "fifo"],
        &[
            "unknown design `fifo`",
            "available: banked_rf, queue, multiplier, rocket, rocket_accumulator, rocket-hwacha, rocket-board, \
             fpu-compare, fpu-convert, fpu-divsqrt, fpu-fma",
        ],
    );
    fails(
        &["generate", "queue", "--set", "dpeth=4"],
        &[
            "design `queue` has no parameter `dpeth`",
            "parameters: depth, width, flow, pipe",
        ],
    );
    fails(
        &["generate", "queue", "--set", "depth=true"],
        &["parameter `depth` must be an integer, got a boolean `true`"],
    );
    fails(
        &["generate", "queue", "--set", "flow=1"],
        &["parameter `flow` must be a boolean, got an integer `1`"],
    );
    fails(
        &["generate", "queue", "--set", "depth=-3"],
        &["parameter `depth` must be in 1..=65536, got -3"],
    );
    fails(
        &["generate", "queue", "--set", "depth=0"],
        &["parameter `depth` must be in 1..=65536, got 0"],
    );
    fails(
        &["generate", "queue", "--set", "width=0"],
        &["parameter `width` must be in 1..="],
    );
    fails(
        &["generate", "banked_rf", "--set", "banks=3"],
        &["parameter `banks` must be a power of two, got 3"],
    );
    fails(
        &["generate", "banked_rf", "--set", "entries=48"],
        &["parameter `entries` must be a power of two, got 48"],
    );
    fails(
        &[
            "generate",
            "banked_rf",
            "--set",
            "banks=16",
            "--set",
            "entries=8",
        ],
        &["parameter `entries` must be at least banks (16), got 8"],
    );
    fails(
        &["generate", "banked_rf", "--set", "mask_gran=5"],
        &["parameter `mask_gran` must be 0 or divide width (32), got 5"],
    );
    fails(
        &["generate", "banked_rf", "--set", "read_ports=0"],
        &["parameter `read_ports` must be in 1..=16, got 0"],
    );
}

#[test]
fn bad_set_and_config_syntax_are_clear_errors() {
    fails(
        &["generate", "queue", "--set", "depth"],
        &["--set `depth`: expected NAME=VALUE"],
    );
    fails(
        &["generate", "queue", "--set", "=4"],
        &["missing parameter name"],
    );
    fails(
        &["generate", "queue", "--set", "depth=eight"],
        &["`eight` is not a TOML value"],
    );

    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.toml");
    fails(
        &["generate", "queue", "--config", s(&missing)],
        &["cannot read config file", "missing.toml"],
    );
    let bad = tmp.path().join("bad.toml");
    fs::write(&bad, "depth = = 3\n").unwrap();
    fails(
        &["generate", "queue", "--config", s(&bad)],
        &["bad.toml is not valid TOML"],
    );
    let typo = tmp.path().join("typo.toml");
    fs::write(&typo, "depth = 4\nwdith = 8\n").unwrap();
    fails(
        &["generate", "queue", "--config", s(&typo)],
        &["has no parameter `wdith`"],
    );
    let typed = tmp.path().join("typed.toml");
    fs::write(&typed, "depth = \"8\"\n").unwrap();
    fails(
        &["generate", "queue", "--config", s(&typed)],
        &["`depth` must be an integer, got a string"],
    );
}

#[test]
fn unwritable_or_occupied_output_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("plain");
    fs::write(&file, "x").unwrap();
    // A regular file where a parent directory should be.
    let r = accelgen(&["generate", "queue", "-o", s(&file.join("out"))]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("cannot create output directory"),
        "{}",
        r.stderr
    );
    // A regular file as the output.
    let r = accelgen(&["generate", "queue", "-o", s(&file)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("exists and is not a directory"),
        "{}",
        r.stderr
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
    // A directory of someone else's files is never overwritten.
    let theirs = tmp.path().join("theirs");
    fs::create_dir(&theirs).unwrap();
    fs::write(theirs.join("notes.txt"), "keep").unwrap();
    let r = accelgen(&["generate", "queue", "-o", s(&theirs)]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("refusing to overwrite"), "{}", r.stderr);
    assert_eq!(tree(&theirs).into_keys().collect::<Vec<_>>(), ["notes.txt"]);
    let names: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "no staging directories left: {names:?}");
}

#[test]
fn missing_output_argument_is_a_usage_error() {
    let r = accelgen(&["generate", "queue"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--output <DIR>"), "{}", r.stderr);
}

#[test]
fn lint_passes_clean_output_and_fails_on_warnings() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rf");
    ok(&["generate", "banked_rf", "-o", s(&dir)]);
    let r = ok(&["lint", s(&dir)]);
    for tool in [
        "verilator: clean",
        "yosys: clean",
        "iverilog: clean",
        "lint clean (top BankedRegFile)",
    ] {
        assert!(r.stdout.contains(tool), "{tool:?} not in:\n{}", r.stdout);
    }
    // An unused signal is a Verilator -Wall warning.
    let bank = dir.join("Bank.v");
    let text = fs::read_to_string(&bank).unwrap();
    fs::write(&bank, text.replace("endmodule", "  wire stray;\nendmodule")).unwrap();
    let r = accelgen(&["lint", s(&dir)]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("verilator: FAILED"), "{}", r.stdout);
    assert!(r.stdout.contains("stray"), "{}", r.stdout);
}

#[test]
fn lint_errors_are_clear() {
    let tmp = tempfile::tempdir().unwrap();
    let r = accelgen(&["lint", s(tmp.path())]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("manifest.json"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("expected the output directory of `accelgen generate`"),
        "{}",
        r.stderr
    );

    let dir = tmp.path().join("q");
    ok(&["generate", "queue", "-o", s(&dir)]);
    let out = cargo_bin_cmd!("accelgen")
        .args(["lint", s(&dir)])
        .env("PATH", tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`verilator` is not installed"), "{stderr}");
}

/// `generate queue -o dir` fails with exactly `message` (the output path substituted
/// for `{}`), and `dir` is left exactly as it was.
fn refuses(dir: &Path, message: &str) {
    let before = tree(dir);
    let r = accelgen(&["generate", "queue", "-o", s(dir)]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (1, message.replace("{}", s(dir)).as_str())
    );
    assert_eq!(tree(dir), before, "{} was changed", dir.display());
}

#[test]
fn only_accelgen_output_is_ever_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    // A folder that looks like output: someone else's manifest (JSON or not), src/, README.
    let look_alike = tmp.path().join("look_alike");
    fs::create_dir_all(look_alike.join("src")).unwrap();
    fs::write(look_alike.join("src/main.c"), "int main;").unwrap();
    fs::write(look_alike.join("README"), "mine").unwrap();
    for manifest in ["not json", "{\"design\": \"queue\", \"files\": []}"] {
        fs::write(look_alike.join("manifest.json"), manifest).unwrap();
        refuses(
            &look_alike,
            "error: output directory {} is not empty and holds a manifest.json that accelgen \
             did not write; refusing to overwrite it\n",
        );
    }
    // Earlier output with the user's own files added.
    let out = tmp.path().join("out");
    ok(&["generate", "queue", "-o", s(&out)]);
    fs::write(out.join("notes.txt"), "mine").unwrap();
    refuses(
        &out,
        "error: output directory {} is not empty and holds notes.txt, which is not part of \
         the accelgen output its manifest lists; refusing to overwrite it\n",
    );
    fs::remove_file(out.join("notes.txt")).unwrap();
    fs::create_dir(out.join("sim")).unwrap();
    refuses(
        &out,
        "error: output directory {} is not empty and holds sim, which is not part of the \
         accelgen output its manifest lists; refusing to overwrite it\n",
    );
    fs::remove_dir(out.join("sim")).unwrap();
    // A directory with files and no manifest names its first file.
    let plain = tmp.path().join("plain");
    fs::create_dir(&plain).unwrap();
    fs::write(plain.join("b.v"), "").unwrap();
    fs::write(plain.join("a.v"), "").unwrap();
    refuses(
        &plain,
        "error: output directory {} is not empty and holds a.v but no manifest.json of \
         accelgen's; refusing to overwrite it\n",
    );
    // Untouched earlier output is replaced.
    ok(&["generate", "banked_rf", "-o", s(&out)]);
    assert!(out.join("BankedRegFile.v").is_file());
    assert!(!out.join("Queue.v").exists());
}

#[cfg(unix)]
#[test]
fn a_symlinked_output_is_followed_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    fs::create_dir(&real).unwrap();
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(&["generate", "queue", "-o", s(&link)]);
    ok(&["generate", "queue", "--set", "depth=8", "-o", s(&link)]);
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(manifest(&real)["parameters"]["depth"], 8);
    let dangling = tmp.path().join("dangling");
    std::os::unix::fs::symlink(tmp.path().join("nowhere"), &dangling).unwrap();
    let r = accelgen(&["generate", "queue", "-o", s(&dangling)]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            format!(
                "error: output {} is a symbolic link to nothing that exists: No such file or \
                 directory (os error 2)\n",
                s(&dangling)
            )
            .as_str()
        )
    );
    assert!(!tmp.path().join("nowhere").exists());
}

/// Rewrites `dir`'s manifest.json with `edit` applied.
fn edit_manifest(dir: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut m = manifest(dir);
    edit(&mut m);
    fs::write(dir.join("manifest.json"), m.to_string()).unwrap();
}

#[test]
fn lint_never_runs_a_name_from_the_manifest_as_a_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("q");
    ok(&["generate", "queue", "-o", s(&dir)]);
    let proof = tmp.path().join("pwned.v");
    let injected = format!("Queue; write_verilog {}", s(&proof));
    edit_manifest(&dir, |m| m["top"] = injected.clone().into());
    let r = accelgen(&["lint", s(&dir)]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        format!(
            "error: {}/manifest.json: top module {injected:?} is not a Verilog identifier\n",
            s(&dir)
        )
    );
    assert!(!proof.exists(), "the injected command ran");
    for (file, why) in [
        (
            "../x.v",
            "is not a plain relative path inside the output directory",
        ),
        (
            "/etc/passwd",
            "is not a plain relative path inside the output directory",
        ),
        (
            "-Wno-fatal",
            "is not a plain relative path inside the output directory",
        ),
        (
            "a.v; b.v",
            "is not a plain relative path inside the output directory",
        ),
        ("missing.v", "is not a file in the output directory"),
    ] {
        edit_manifest(&dir, |m| {
            m["top"] = "Queue".into();
            m["files"] = serde_json::json!([file]);
        });
        let r = accelgen(&["lint", s(&dir)]);
        assert_eq!(
            (r.code, r.stderr.as_str()),
            (
                1,
                format!("error: {}/manifest.json: file {file:?} {why}\n", s(&dir)).as_str()
            )
        );
    }
    // A path with spaces is one file, not two.
    fs::create_dir(dir.join("my dir")).unwrap();
    fs::rename(dir.join("Queue.v"), dir.join("my dir/Queue.v")).unwrap();
    edit_manifest(&dir, |m| m["files"] = serde_json::json!(["my dir/Queue.v"]));
    let r = accelgen(&["lint", s(&dir)]);
    // (Verilator reads it too, but names it `my` in a file-name warning.)
    for clean in ["yosys: clean", "iverilog: clean"] {
        assert!(r.stdout.contains(clean), "{}", r.stdout);
    }
}

#[test]
fn config_files_must_be_small_regular_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("q");
    let r = accelgen(&["generate", "queue", "--config", "/dev/zero", "-o", s(&dir)]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "error: config file /dev/zero is not a regular file (a device, pipe or socket)\n"
        )
    );
    let r = accelgen(&[
        "generate",
        "queue",
        "--config",
        s(tmp.path()),
        "-o",
        s(&dir),
    ]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            format!("error: config file {} is a directory\n", s(tmp.path())).as_str()
        )
    );
    let big = tmp.path().join("big.toml");
    fs::write(&big, "# padding\n".repeat(200_000)).unwrap();
    let r = accelgen(&["generate", "queue", "--config", s(&big), "-o", s(&dir)]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            format!(
                "error: config file {} is larger than 1024 KiB; it cannot be a parameter file\n",
                s(&big)
            )
            .as_str()
        )
    );
    assert!(!dir.exists());
}

#[test]
fn set_merges_into_tables_and_accepts_dotted_names() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("h.toml");
    fs::write(&cfg, "[hwacha]\nseq_entries = 12\nbanks = 2\n").unwrap();
    for set in [
        &["--set", "hwacha.lanes=2"][..],
        &["--set", "hwacha={lanes=2}"][..],
        &["--set", "hwacha.lanes=4", "--set", "hwacha={lanes=2}"][..],
    ] {
        let dir = tmp.path().join("h");
        let mut args = vec!["generate", "rocket-hwacha", "--config", s(&cfg)];
        args.extend(set);
        args.extend(["-o", s(&dir)]);
        ok(&args);
        let h = &manifest(&dir)["parameters"]["hwacha"];
        assert_eq!(
            (
                h["lanes"].as_i64(),
                h["seq_entries"].as_i64(),
                h["banks"].as_i64()
            ),
            (Some(2), Some(12), Some(2)),
            "{set:?}"
        );
    }
}

#[test]
fn filelists_work_from_anywhere_with_dash_f() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, extra) in [("multi", None), ("single", Some("--single-file"))] {
        let dir = tmp.path().join(name);
        let mut args = vec!["generate", "banked_rf", "-o", s(&dir)];
        args.extend(extra);
        ok(&args);
        // Verilator's -F reads the list's paths relative to the list itself.
        let out = std::process::Command::new("verilator")
            .args([
                "--lint-only",
                "-Wall",
                "--top-module",
                "BankedRegFile",
                "-F",
            ])
            .arg(dir.join("filelist.f"))
            .current_dir("/")
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
    }
}

#[test]
fn generate_reports_what_it_wrote_and_can_lint_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rf");
    let r = ok(&["generate", "banked_rf", "--lint", "-o", s(&dir)]);
    // The default register file: 4 banks, each one 16 x 32 macro; 4 distinct modules.
    assert_eq!(
        r.stdout,
        format!(
            "banked_rf: wrote 13 files to {0}\n  top module BankedRegFile (4 modules, Verilog \
             files in filelist.f)\n  SRAM macros: 4 x sram_16x32_1r1w (sram_macros.json)\n  \
             timing constraints: BankedRegFile.sdc (clock period 5 ns)\n  fakeram macro views \
             (.lib, .lef): fakeram/nangate45/, fakeram/sky130hd/\n  \
             parameters and hierarchy: manifest.json\nverilator: clean\nyosys: clean\n\
             iverilog: clean\n{0}: lint clean (top BankedRegFile)\n",
            s(&dir)
        )
    );
}

/// A reader that goes away (`accelgen list | head -1`) ends the command quietly, as it
/// ends other Unix tools: no panic on the broken pipe.
#[test]
fn a_closed_stdout_ends_the_command_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    const SIGPIPE: i32 = 13;
    let mut child = Command::new(env!("CARGO_BIN_EXE_accelgen"))
        .arg("list")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        out.status.success() || out.status.signal() == Some(SIGPIPE),
        "{:?}",
        out.status
    );
}
