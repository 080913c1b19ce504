//! Design parameters end to end: `accelgen list` (the table, one design, `--json`), the
//! ranges it shows being the ones `generate` enforces (flat and nested, with dotted names
//! in errors), and what the manifest records for designs with a fixed accelerator.

mod cli_run;

use cli_run::{accelgen, s, Run};
use serde_json::Value;
use std::fs;

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
    pred_entries, mixed_precision, stages_alu, stages_plu, stages_imul, stages_dfma, stages_sfma, \
    stages_hfma, \
    stages_fconv, stages_fcmp, idiv_bits_per_cycle, bwq_entries, \
    brq_entries, vvaq_entries, vpaq_entries, vsdq_entries, vldq_entries, vlt_entries, \
    vcmdq_entries, vrcmdq_entries, vru, vru_blocks, vru_throttle_bytes, vru_skip_blocks, \
    icache_sets, icache_ways, icache_line_bytes, \
    sram_threshold_bits";

/// The rocket tile's parameters, without `rocc` (the designs built around a fixed
/// accelerator take these).
const TILE_PARAMS: [&str; 25] = [
    "xlen",
    "fpu",
    "fma_stages",
    "predictor",
    "bht_entries",
    "btb_entries",
    "mul",
    "mul_bits_per_cycle",
    "mul_early_out",
    "mul_stages",
    "div_bits_per_cycle",
    "div_early_out",
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
    "sram_threshold_bits",
    "adders",
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
    assert_eq!(keys(&p), ["hwacha", "l2", "memory", "rocket"]);
    assert_eq!(keys(&p["rocket"]), tile);
    // Design `rocket` has a bare RoCC port: whether custom-0..3 use it is a parameter.
    assert_eq!(generated_parameters(&["rocket"])["rocc"], false);
    let p = generated_parameters(&["rocket", "--set", "rocc=true"]);
    assert_eq!(p["rocc"], true);
}

#[test]
fn list_fits_100_columns() {
    let r = ok(&["list"]);
    let long: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.chars().count() > 100)
        .collect();
    assert!(
        long.is_empty(),
        "lines over 100 columns:\n{}",
        long.join("\n")
    );
}

/// The whitespace-separated cells of `name`'s row in `accelgen list <design>`.
fn row(listing: &str, name: &str) -> Vec<String> {
    let line = listing
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name} in:\n{listing}"));
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn list_of_one_design_is_a_table() {
    let r = ok(&["list", "queue"]);
    assert_eq!(
        r.stdout,
        "\
queue: ready/valid FIFO queue (Chisel Queue semantics) with optional flow and pipe modes
  NAME                 TYPE     DEFAULT  RANGE              DESCRIPTION
  depth                integer  4        1..=65536          number of entries
  width                integer  32       1..=4096           data bits per entry
  flow                 boolean  false                       an empty queue passes enq to deq in the
                                                            same cycle
  pipe                 boolean  false                       a full queue accepts enq in a cycle
                                                            where deq fires
  sram_threshold_bits  integer  4096     0..=1099511627776  arrays of more bits are SRAM macros
                                                            where a 1R1W macro serves their ports

Generate with: accelgen generate <design> [--set name=value ...] -o <dir>
"
    );
    // Nested parameters one per line with their dotted names, each with its range.
    let r = ok(&["list", "rocket-hwacha"]);
    assert!(r.stdout.starts_with("rocket-hwacha: "), "{}", r.stdout);
    assert_eq!(
        row(&r.stdout, "hwacha.icache_sets")[..5],
        ["hwacha.icache_sets", "integer", "32", "1..=4096,", "pow2"]
    );
    assert_eq!(
        row(&r.stdout, "hwacha.lanes")[..5],
        ["hwacha.lanes", "integer", "1", "1..=64,", "pow2"]
    );
    assert_eq!(
        row(&r.stdout, "rocket.predictor")[..4],
        ["rocket.predictor", "string", "\"btb\"", "none|bht|btb"]
    );
    assert_eq!(row(&r.stdout, "hwacha")[..2], ["hwacha", "table"]);
    for name in HWACHA_PARAMS.split(", ") {
        row(&r.stdout, &format!("hwacha.{name}"));
    }
    for name in TILE_PARAMS {
        row(&r.stdout, &format!("rocket.{name}"));
    }
    assert!(!r.stdout.contains("rocket.rocc"), "{}", r.stdout);
    assert!(!r.stdout.contains("\nqueue:"), "one design only");
}

#[test]
fn list_of_an_unknown_design_is_an_error() {
    let r = accelgen(&["list", "fifo"]);
    assert_eq!(
        (r.code, r.stderr.as_str(), r.stdout.as_str()),
        (
            1,
            "error: unknown design `fifo` (available: banked_rf, queue, multiplier, rocket, \
             rocket_accumulator, rocket-hwacha, rocket-board, fpu-compare, fpu-convert, fpu-divsqrt, fpu-fma, \
             fgsimt, vgiw, l2, avc, dws)\n",
            ""
        )
    );
    let r = accelgen(&["list", "fifo", "--json"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
}

fn list_json(args: &[&str]) -> Vec<Value> {
    let mut all = vec!["list", "--json"];
    all.extend(args);
    let r = ok(&all);
    let v: Value = serde_json::from_str(&r.stdout).expect("list --json is JSON");
    v["designs"].as_array().expect("designs").clone()
}

#[test]
fn list_json_describes_every_parameter() {
    let designs = list_json(&[]);
    let names: Vec<&str> = designs
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "banked_rf",
            "queue",
            "multiplier",
            "rocket",
            "rocket_accumulator",
            "rocket-hwacha",
            "rocket-board",
            "fpu-compare",
            "fpu-convert",
            "fpu-divsqrt",
            "fpu-fma",
            "fgsimt",
            "vgiw",
            "l2",
            "avc",
            "dws"
        ]
    );
    let one = list_json(&["queue"]);
    assert_eq!(one.len(), 1);
    assert_eq!(one[0], designs[1]);
    assert_eq!(
        one[0]["parameters"][0],
        serde_json::json!({
            "name": "depth", "type": "integer", "default": 4, "min": 1, "max": 65536,
            "power_of_two": false, "description": "number of entries"
        })
    );
    assert_eq!(
        one[0]["parameters"][2],
        serde_json::json!({
            "name": "flow", "type": "boolean", "default": false,
            "description": "an empty queue passes enq to deq in the same cycle"
        })
    );
    let hwacha = &designs[5]["parameters"];
    let param = |name: &str| {
        hwacha
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .clone()
    };
    assert_eq!(param("hwacha")["type"], "table");
    assert_eq!(param("hwacha.icache_sets")["max"], 4096);
    assert_eq!(param("hwacha.lanes")["power_of_two"], true);
    assert_eq!(
        param("rocket.memory")["choices"],
        serde_json::json!(["cache", "direct"])
    );
    for d in &designs {
        for p in d["parameters"].as_array().unwrap() {
            let doc = p["description"].as_str().unwrap_or_default();
            assert!(!doc.is_empty(), "{}: {p} has no description", d["name"]);
        }
    }
}

/// Decimal or `0x..` hexadecimal, either with a `-` sign.
fn number(text: &str) -> i64 {
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, text),
    };
    let magnitude = match digits.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16),
        None => digits.parse(),
    };
    sign * magnitude.unwrap_or_else(|_| panic!("{text:?} is not a number"))
}

/// `--set` of one value: `name=v`, or `table={name=v}` for a nested parameter.
fn set(name: &str, value: i64) -> String {
    match name.split_once('.') {
        Some((table, key)) => format!("{table}={{{key}={value}}}"),
        None => format!("{name}={value}"),
    }
}

#[test]
fn listed_ranges_are_the_enforced_ones() {
    let mut checked = 0;
    for d in list_json(&[]) {
        let design = d["name"].as_str().unwrap();
        for p in d["parameters"].as_array().unwrap() {
            if p["type"] != "integer" {
                continue;
            }
            let name = p["name"].as_str().unwrap();
            let (min, max) = (p["min"].as_i64().unwrap(), p["max"].as_i64().unwrap());
            for bad in [min - 1, max + 1] {
                let tmp = tempfile::tempdir().unwrap();
                let out = tmp.path().join("out");
                let arg = set(name, bad);
                let r = accelgen(&["generate", design, "--set", &arg, "-o", s(&out)]);
                let prefix = format!("error: design `{design}`: parameter `{name}` must be in ");
                let rest = r
                    .stderr
                    .strip_prefix(&prefix)
                    .unwrap_or_else(|| panic!("{design} --set {arg}: {}", r.stderr));
                let (range, got) = rest.trim_end().split_once(", got ").unwrap();
                let (lo, hi) = range.split_once("..=").unwrap();
                assert_eq!(
                    (number(lo), number(hi), number(got), r.code),
                    (min, max, bad, 1),
                    "{design} --set {arg}"
                );
                assert!(!out.exists());
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} checks");
}
