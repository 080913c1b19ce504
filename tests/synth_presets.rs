//! Issue 17's proof of the memory policy: `accelgen generate` then synthesis
//! (`asic_flow::synth::synth`, Yosys 0.23 onto nangate45) of every preset in `configs/`
//! (the design files, not the sweeps), asserting that
//! - Yosys warns of no signal used but driven by nothing (the emitter leaves nothing
//!   undriven, e.g. a non-power-of-two queue's read mux), and
//! - every array of the design above `sram_threshold_bits` whose ports a macro serves is
//!   a macro: the design's own list of arrays (`manifest.json`, from the IR) against
//!   `sram_macros.json` and the black boxes the synthesized netlist instantiates; arrays
//!   above the threshold that stay flops (combinational or extra read ports) are printed.
//!
//! Fast: the 1-lane Hwacha's VMU (`--top Vmu` of `hwacha-1lane`: the VPAQ, 24 x 243
//! bits, the queue that was undriven; the whole `VectorUnit` takes ~7 min).
//! `ACCELGEN_LONG=1`: every preset, whole (rocket-small among them: the fast suite
//! synthesizes it in `flow_synth`, and lint's `check -assert` finds undriven signals in
//! every design); each Hwacha tile's area is also printed in thesis Figure 9.5's
//! categories (the README's tile table comes from this run).

mod cli_run;

use asic_flow::synth::{split, synth, SynthOptions, HWACHA_CATEGORIES};
use cli_run::{accelgen, s};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

const NANGATE: &str = "asic-flow/pdk/nangate45_typ.lib.gz";

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// The design a preset of `configs/` is for, by its file name; `None` for sweeps.
fn design_of(preset: &str) -> Option<&'static str> {
    [
        ("rocket-", "rocket"),
        ("hwacha-", "rocket-hwacha"),
        ("queue", "queue"),
        ("banked_rf", "banked_rf"),
        ("fgsimt", "fgsimt"),
        ("vgiw", "vgiw"),
    ]
    .into_iter()
    .find(|(prefix, _)| preset.starts_with(prefix))
    .map(|(_, design)| design)
}

/// The thresholds in effect: `sram_threshold_bits` at any level of the parameters (none:
/// the design has no policy, e.g. `banked_rf`, whose `sram` parameter decides).
fn thresholds(params: &Value) -> Vec<u64> {
    let mut out: Vec<u64> = params
        .as_object()
        .into_iter()
        .flat_map(|o| o.iter())
        .flat_map(|(k, v)| match (k.as_str(), v) {
            ("sram_threshold_bits", v) => v.as_u64().into_iter().collect(),
            (_, Value::Object(_)) => thresholds(v),
            _ => vec![],
        })
        .collect();
    out.dedup();
    out
}

/// Instances of each module in the subtree of the instance tree `node`.
fn count_modules(node: &Value, out: &mut BTreeMap<String, usize>) {
    *out.entry(node["module"].as_str().unwrap().to_string())
        .or_default() += 1;
    for c in node["children"].as_array().into_iter().flatten() {
        count_modules(c, out);
    }
}

/// The first instance of `module` under `node`.
fn find<'a>(node: &'a Value, module: &str) -> Option<&'a Value> {
    if node["module"] == module {
        return Some(node);
    }
    node["children"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|c| find(c, module))
}

/// Generates `preset`, synthesizes it (or its module `top`) and checks it; returns a
/// one-line summary.
fn check_preset(preset: &str, top: Option<&str>) -> String {
    let design = design_of(preset).expect("a design preset");
    let tmp = tempfile::tempdir().unwrap();
    let gen = tmp.path().join("gen");
    let config = format!("configs/{preset}.toml");
    let r = accelgen(&["generate", design, "--config", &config, "-o", s(&gen)]);
    assert_eq!(r.code, 0, "{preset}: {}", r.stderr);
    let read = |f: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(gen.join(f)).unwrap()).unwrap()
    };
    let (manifest, macros) = (read("manifest.json"), read("sram_macros.json"));
    let listed: Vec<&str> = macros
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();

    let report = synth(&SynthOptions {
        dir: gen.clone(),
        liberty: NANGATE.into(),
        top: top.map(str::to_string),
        // Deep enough for the split to reach a tile's banks (tile/hwacha/vu/lane/vxu/bank).
        depth: if design == "rocket-hwacha" { 5 } else { 1 },
        clock_period_ns: None,
    })
    .unwrap_or_else(|e| panic!("{preset}: {e}"));
    let undriven: Vec<&String> = report
        .yosys_warnings
        .iter()
        .filter(|w| w.contains("no driver") || w.contains("undriven"))
        .collect();
    assert!(
        undriven.is_empty(),
        "{preset}: {} undriven-signal warnings, e.g. {:?}",
        undriven.len(),
        &undriven[..undriven.len().min(5)]
    );

    // Each module's arrays, weighted by its instances under the synthesized top.
    let root = match top {
        Some(t) => find(&manifest["hierarchy"], t).expect("top in the hierarchy"),
        None => &manifest["hierarchy"],
    };
    let mut instances = BTreeMap::new();
    count_modules(root, &mut instances);
    let threshold = thresholds(&manifest["parameters"]);
    assert!(
        threshold.len() <= 1,
        "{preset}: one threshold: {threshold:?}"
    );
    let mut want_macros: BTreeMap<String, usize> = BTreeMap::new();
    let mut flop_arrays = Vec::new();
    for m in manifest["modules"].as_array().unwrap() {
        let n = instances
            .get(m["name"].as_str().unwrap())
            .copied()
            .unwrap_or(0);
        for mem in m["memories"].as_array().into_iter().flatten() {
            let name = format!("{}.{}", m["name"].as_str().unwrap(), mem["name"]);
            let bits = mem["bits"].as_u64().unwrap();
            let macro_ports = mem["comb_reads"] == 0 && mem["sync_reads"].as_u64() <= Some(1);
            let macro_ports = macro_ports && mem["writes"].as_u64() <= Some(1);
            let above = threshold.first().is_some_and(|&t| bits > t);
            match mem["sram_macro"].as_str() {
                Some(mac) => {
                    assert!(listed.contains(&mac), "{preset}: {name}: {mac} not listed");
                    if let Some(&t) = threshold.first() {
                        assert!(bits > t, "{preset}: {name}: {bits} bits, a macro");
                    }
                    *want_macros.entry(mac.to_string()).or_default() += n;
                }
                None if above && macro_ports => {
                    panic!("{preset}: {name}: {bits} bits with macro ports, flops")
                }
                None if above && n > 0 => flop_arrays.push(format!("{n} x {name} ({bits} bits)")),
                None => {}
            }
        }
    }
    want_macros.retain(|_, n| *n > 0);
    // The netlist instantiates exactly those black boxes, as often.
    let got: BTreeMap<String, usize> = report
        .macros
        .iter()
        .map(|m| {
            (
                m.name.clone(),
                netlist_instances(&report.netlist, &report.top, &m.name),
            )
        })
        .collect();
    assert_eq!(got, want_macros, "{preset}: the netlist's macros");
    let summary = format!(
        "{preset}{}: {:.0} um2 (logic {:.0}, macros {:.0}), {} flops; macros {:?}; \
         flop arrays above the threshold {:?}; yosys {:.0} s",
        top.map(|t| format!(" --top {t}")).unwrap_or_default(),
        report.area_um2,
        report.logic_area_um2,
        report.macro_area_um2,
        report.flops,
        want_macros,
        flop_arrays,
        report.wall_s
    );
    println!("{summary}");
    if design == "rocket-hwacha" {
        let parts: Vec<String> = split(&report.instances, HWACHA_CATEGORIES)
            .iter()
            .map(|c| {
                format!(
                    "{} {:.0} (macros {:.0})",
                    c.category.name(),
                    c.area_um2,
                    c.macro_area_um2
                )
            })
            .collect();
        println!("{preset}: thesis Figure 9.5 split: {}", parts.join(", "));
    }
    summary
}

/// Instances of module `name` under module `top` of a structural netlist: instance
/// statements (`<module> <instance> (`) multiplied out along the module hierarchy.
fn netlist_instances(netlist: &str, top: &str, name: &str) -> usize {
    let mut bodies: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut current = None;
    for line in netlist.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("module ") {
            let m = rest.split(['(', ' ', ';']).next().unwrap();
            current = Some(m);
            bodies.entry(m).or_default();
        } else if let Some(m) = current {
            let words: Vec<&str> = t.split_whitespace().collect();
            if words.len() == 3 && words[2] == "(" {
                bodies.get_mut(m).unwrap().push(words[0]);
            }
        }
    }
    fn walk(b: &BTreeMap<&str, Vec<&str>>, m: &str, name: &str) -> usize {
        b.get(m).map_or(0, |cells| {
            cells
                .iter()
                .map(|&c| if c == name { 1 } else { walk(b, c, name) })
                .sum()
        })
    }
    walk(&bodies, top, name)
}

#[test]
fn hwacha_vmu_synthesizes_with_nothing_undriven_and_the_vpaq_a_macro() {
    let summary = check_preset("hwacha-1lane", Some("Vmu"));
    // The VPAQ: 24 entries of an address-generation item of S = 2 slots.
    let width = generators::hwacha::vmu::addr::Element::width(2);
    let vpaq = format!("sram_24x{width}_1r1w");
    assert!(summary.contains(&vpaq), "no {vpaq} in {summary}");
}

/// Every design preset, whole (the Hwacha tiles take many minutes each).
#[test]
fn every_preset_synthesizes_with_nothing_undriven() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to synthesize every preset");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    let mut presets: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|f| f.strip_suffix(".toml").map(str::to_string))
        .filter(|p| design_of(p).is_some())
        .collect();
    presets.sort();
    assert!(presets.len() >= 8, "{presets:?}");
    // Every preset runs (each takes minutes); the failures are listed together.
    let failed: Vec<&String> = presets
        .iter()
        .filter(|p| std::panic::catch_unwind(|| check_preset(p, None)).is_err())
        .collect();
    assert!(failed.is_empty(), "presets failing: {failed:?}");
}
