//! Design parameters end to end: the ranges `generate` enforces (flat and nested, with
//! dotted names in errors), and what the manifest records for designs with a fixed
//! accelerator.

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;
use std::fs;
use std::path::Path;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn accelgen(args: &[&str]) -> Run {
    let out = cargo_bin_cmd!("accelgen")
        .args(args)
        .output()
        .expect("run accelgen");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn ok(args: &[&str]) -> Run {
    let r = accelgen(args);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, ""),
        "accelgen {args:?}\nstdout: {}",
        r.stdout
    );
    r
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// `generate <args> -o <tmp>/out` fails with exit code 1, exactly `error: <message>` on
/// stderr, nothing on stdout and nothing written.
fn generate_fails(args: &[&str], message: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let mut all = vec!["generate"];
    all.extend(args);
    all.extend(["-o", s(&dir)]);
    let r = accelgen(&all);
    assert_eq!(
        (r.code, r.stderr.as_str(), r.stdout.as_str()),
        (1, format!("error: {message}\n").as_str(), ""),
        "accelgen {all:?}"
    );
    let left: Vec<_> = fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "accelgen {all:?} left {left:?}");
}

/// The manifest's `parameters` of `generate <args>`.
fn generated_parameters(args: &[&str]) -> serde_json::Map<String, Value> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let mut all = vec!["generate"];
    all.extend(args);
    all.extend(["-o", s(&dir)]);
    ok(&all);
    let text = fs::read_to_string(dir.join("manifest.json")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["parameters"].as_object().unwrap().clone()
}

const HWACHA_PARAMS: &str = "lanes, seq_entries, banks, bank_entries, bank_width, \
    pred_entries, stages_alu, stages_plu, stages_imul, idiv_bits_per_cycle, bwq_entries, \
    brq_entries, vvaq_entries, vpaq_entries, vsdq_entries, vldq_entries, vlt_entries, \
    vcmdq_entries, vrcmdq_entries, icache_sets, icache_ways, icache_line_bytes";

/// The rocket tile's parameters, without `rocc` (the designs built around a fixed
/// accelerator take these).
const TILE_PARAMS: [&str; 18] = [
    "predictor",
    "bht_entries",
    "btb_entries",
    "mul",
    "mul_bits_per_cycle",
    "mul_stages",
    "div_bits_per_cycle",
    "memory",
    "icache_sets",
    "icache_ways",
    "icache_line_bytes",
    "dcache_sets",
    "dcache_ways",
    "dcache_line_bytes",
    "ram_base",
    "ram_size",
    "uncached_base",
    "uncached_size",
];

#[test]
fn nested_parameters_are_range_checked_with_dotted_names() {
    let design = "design `rocket-hwacha`: parameter";
    // Issue 14 item 10: this reached elaboration as "a generator bug".
    generate_fails(
        &["rocket-hwacha", "--set", "hwacha={icache_sets=8192}"],
        &format!("{design} `hwacha.icache_sets` must be in 1..=4096, got 8192"),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "hwacha={lanes=128}"],
        &format!("{design} `hwacha.lanes` must be in 1..=64, got 128"),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "hwacha={bank_width=96}"],
        &format!("{design} `hwacha.bank_width` must be a power of two, got 96"),
    );
    // The tile's table is checked exactly as design `rocket`'s parameters are.
    generate_fails(
        &["rocket", "--set", "icache_sets=3"],
        "design `rocket`: parameter `icache_sets` must be a power of two, got 3",
    );
    generate_fails(
        &["rocket-hwacha", "--set", "rocket={icache_sets=3}"],
        &format!("{design} `rocket.icache_sets` must be a power of two, got 3"),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "rocket={dcache_ways=9}"],
        &format!("{design} `rocket.dcache_ways` must be in 1..=8, got 9"),
    );
    // A rule across parameters names the nested parameter too.
    generate_fails(
        &[
            "rocket-hwacha",
            "--set",
            "rocket={ram_base=0x3000,ram_size=0x2000}",
        ],
        &format!(
            "{design} `rocket.ram_size` must be a power of two dividing ram_base, \
             got 0x2000 at 0x3000"
        ),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "hwacha={lanes=true}"],
        &format!("{design} `hwacha.lanes` must be an integer, got a boolean `true`"),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "rocket={predictor=\"tage\"}"],
        &format!(
            "{design} `rocket.predictor` must be one of \"none\", \"bht\", \"btb\", \
             got \"tage\""
        ),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "hwacha=4"],
        &format!("{design} `hwacha` must be a table, got an integer `4`"),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "hwacha={lane=2}"],
        &format!(
            "design `rocket-hwacha` has no parameter `hwacha.lane` \
             (parameters of `hwacha`: {HWACHA_PARAMS})"
        ),
    );
    // Out-of-range integers are range errors, not deserialization errors.
    generate_fails(
        &["queue", "--set", "depth=-3"],
        "design `queue`: parameter `depth` must be in 1..=65536, got -3",
    );
}

#[test]
fn a_partial_nested_table_takes_the_defaults_for_the_rest() {
    let p = generated_parameters(&["rocket-hwacha", "--set", "hwacha={lanes=2}"]);
    // Thesis Table 8.7's machine apart from the lanes; the rocket-default tile.
    assert_eq!(p["hwacha"]["lanes"], 2);
    assert_eq!(p["hwacha"]["banks"], 4);
    assert_eq!(p["hwacha"]["bank_entries"], 256);
    assert_eq!(p["hwacha"]["icache_sets"], 32);
    assert_eq!(p["rocket"]["icache_sets"], 32);
    assert_eq!(p["rocket"]["predictor"], "btb");
}

#[test]
fn designs_with_a_fixed_accelerator_have_no_rocc_parameter() {
    let known = TILE_PARAMS.join(", ");
    generate_fails(
        &["rocket_accumulator", "--set", "rocc=true"],
        &format!("design `rocket_accumulator` has no parameter `rocc` (parameters: {known})"),
    );
    generate_fails(
        &["rocket-hwacha", "--set", "rocket={rocc=false}"],
        &format!(
            "design `rocket-hwacha` has no parameter `rocket.rocc` \
             (parameters of `rocket`: {known})"
        ),
    );
    // The manifests record the tile's parameters and nothing claiming there is no
    // accelerator.
    let mut tile = TILE_PARAMS;
    tile.sort_unstable();
    let keys = |p: &Value| -> Vec<String> {
        let mut k: Vec<String> = p.as_object().unwrap().keys().cloned().collect();
        k.sort_unstable();
        k
    };
    let p = Value::Object(generated_parameters(&["rocket_accumulator"]));
    assert_eq!(keys(&p), tile);
    let p = Value::Object(generated_parameters(&["rocket-hwacha"]));
    assert_eq!(keys(&p), ["hwacha", "rocket"]);
    assert_eq!(keys(&p["rocket"]), tile);
    // Design `rocket` has a bare RoCC port: whether custom-0..3 use it is a parameter.
    assert_eq!(generated_parameters(&["rocket"])["rocc"], false);
    let p = generated_parameters(&["rocket", "--set", "rocc=true"]);
    assert_eq!(p["rocc"], true);
}
