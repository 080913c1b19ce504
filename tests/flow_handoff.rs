//! The hand-off files of `accelgen generate` checked with the real tools: the fakeram
//! `.lib`/`.lef` views against the macros' emitted Verilog, against each other and against
//! an independent area estimate, read by OpenSTA, Yosys and KLayout; the SDC applied by
//! OpenSTA to a Yosys-mapped netlist; the OpenROAD-flow-scripts `config.mk` evaluated by GNU
//! make against ORFS's documented variables; the FuseSoC core run by the real `fusesoc`.

mod cli_run;

use cli_run::{accelgen, s, tree, Run};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `accelgen generate DESIGN ARGS -o DIR`, which must succeed.
fn generate(design: &str, args: &[&str], dir: &Path) -> Run {
    let mut all = vec!["generate", design];
    all.extend(args);
    all.extend(["-o", s(dir)]);
    let r = accelgen(&all);
    assert_eq!(r.code, 0, "accelgen {all:?}\n{}", r.stderr);
    r
}

/// Runs `cmd`, which must succeed, and returns what it printed (stdout and stderr).
fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

/// The PDK's standard-cell Liberty file, uncompressed into `dir`.
fn pdk_lib(tech: &str, dir: &Path) -> PathBuf {
    let name = match tech {
        "nangate45" => "nangate45_typ.lib",
        _ => "sky130hd_tt.lib",
    };
    let gz = root().join("asic-flow/pdk").join(format!("{name}.gz"));
    let text = run(Command::new("gzip").arg("-dc").arg(&gz));
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

/// A port as (direction, width).
type Ports = BTreeMap<String, (String, u32)>;

/// The ports of module `module` in a Verilog file the emitter wrote (ANSI header, one
/// port per line: `input [7:0] R0_addr,`, `output reg [127:0] R0_data`).
fn verilog_ports(text: &str, module: &str) -> Ports {
    let start = text
        .find(&format!("module {module}("))
        .expect("module header");
    let header = &text[start..start + text[start..].find(");").expect("header end")];
    header
        .lines()
        .skip(1)
        .map(|l| {
            let words: Vec<&str> = l
                .trim()
                .trim_end_matches(',')
                .split_whitespace()
                .filter(|w| *w != "reg" && *w != "wire")
                .collect();
            let width = match words.len() {
                3 => bus_width(words[1]),
                _ => 1,
            };
            (
                words.last().unwrap().to_string(),
                (words[0].to_string(), width),
            )
        })
        .collect()
}

/// The width of a range `[hi:0]`.
fn bus_width(range: &str) -> u32 {
    let hi = range.trim_matches(|c| c == '[' || c == ']');
    hi.split(':').next().unwrap().parse::<u32>().unwrap() + 1
}

/// The pins and buses of the one cell of a fakeram Liberty file, with the cell's area.
fn liberty_pins(text: &str) -> (Ports, f64) {
    let mut widths = BTreeMap::new();
    let mut ports = Ports::new();
    let mut area = None;
    let mut current: Option<(String, u32)> = None;
    let mut ty = None;
    for line in text.lines().map(str::trim) {
        let value = |key: &str| {
            line.strip_prefix(key).map(|v| {
                v.trim_start_matches([' ', ':'])
                    .trim_end_matches(';')
                    .trim()
            })
        };
        if let Some(t) = line.strip_prefix("type (") {
            ty = Some(t.trim_end_matches(") {").to_string());
        } else if let (Some(w), Some(t)) = (value("bit_width"), &ty) {
            widths.insert(t.clone(), w.parse::<u32>().unwrap());
        } else if let Some(a) = value("area") {
            area = Some(a.parse::<f64>().unwrap());
        } else if let Some(p) = line.strip_prefix("pin (") {
            current = Some((p.trim_end_matches(") {").to_string(), 1));
        } else if let Some(p) = line.strip_prefix("bus (") {
            current = Some((p.trim_end_matches(") {").to_string(), 0));
        } else if let (Some(t), Some(c)) = (value("bus_type"), current.as_mut()) {
            c.1 = widths[t];
        } else if let (Some(d), Some((name, w))) = (value("direction"), current.take()) {
            ports.insert(name, (d.to_string(), w));
        }
    }
    (ports, area.expect("cell area"))
}

/// A LEF macro: its size and every pin with its direction, use and layer.
struct Lef {
    width: f64,
    height: f64,
    pins: BTreeMap<String, (String, String, String)>,
    layers: BTreeSet<String>,
}

fn parse_lef(text: &str) -> Lef {
    let (mut width, mut height) = (0.0, 0.0);
    let mut pins = BTreeMap::new();
    let mut layers = BTreeSet::new();
    let mut pin: Option<(String, String, String, String)> = None;
    for line in text.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["SIZE", w, "BY", h, ";"] => (width, height) = (w.parse().unwrap(), h.parse().unwrap()),
            ["PIN", name] => pin = Some((name.to_string(), "".into(), "".into(), "".into())),
            ["DIRECTION", d, ";"] => pin.as_mut().unwrap().1 = d.to_string(),
            ["USE", u, ";"] => pin.as_mut().unwrap().2 = u.to_string(),
            ["LAYER", l, ";"] => {
                layers.insert(l.to_string());
                if let Some(p) = pin.as_mut() {
                    p.3 = l.to_string();
                }
            }
            ["END", name] if pin.as_ref().is_some_and(|p| p.0 == *name) => {
                let (n, d, u, l) = pin.take().unwrap();
                pins.insert(n, (d, u, l));
            }
            _ => {}
        }
    }
    Lef {
        width,
        height,
        pins,
        layers,
    }
}

/// Every bit of the ports: `R0_addr[3]`, or the name alone for one-bit ports.
fn bits(ports: &Ports) -> BTreeSet<String> {
    ports
        .iter()
        .flat_map(|(name, (_, w))| {
            (0..*w).map(move |i| match w {
                1 => name.clone(),
                _ => format!("{name}[{i}]"),
            })
        })
        .collect()
}

/// The SRAM macro names of a generated design.
fn macro_names(dir: &Path) -> Vec<String> {
    let text = fs::read_to_string(dir.join("sram_macros.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect()
}

/// Area of one plain 6T SRAM cell (um^2), from the sources the fakeram model cites but
/// independent of its constants: Intel's 45 nm cell (Mistry et al., IEDM 2007) and
/// SkyWater's `sky130_fd_bd_sram__sram_sp_cell` (1.2 x 1.58 um).
fn bitcell_um2(tech: &str) -> f64 {
    match tech {
        "nangate45" => 0.346,
        _ => 1.2 * 1.58,
    }
}

/// The track pitch (um) of the horizontal routing layer above the cells' own: metal3 of
/// FreePDK45 (0.14 um) and met3 of sky130 (0.68 um), from the technologies' LEFs.
fn pin_track_um(tech: &str) -> f64 {
    match tech {
        "nangate45" => 0.14,
        _ => 0.68,
    }
}

/// Legal routing layer names of each technology's LEF.
fn legal_layer(tech: &str, layer: &str) -> bool {
    match tech {
        "nangate45" => (1..=10).any(|i| layer == format!("metal{i}")),
        _ => layer == "li1" || (1..=5).any(|i| layer == format!("met{i}")),
    }
}

/// Minimum width and spacing (um) of the layers fakeram pins may use, from the
/// technologies' design rules: FreePDK45 metal3 (intermediate) and metal4 (semi-global),
/// sky130 met3 and met4.
const PIN_RULES: &str = r#"{"metal3": [0.07, 0.07], "metal4": [0.14, 0.14],
    "met3": [0.3, 0.3], "met4": [0.3, 0.3]}"#;

/// What KLayout reads from one LEF file.
#[derive(serde::Deserialize)]
struct KlayoutView {
    cell: String,
    width: f64,
    height: f64,
    labels: BTreeSet<String>,
    /// Per pin layer: shapes, shapes after merging, and width and spacing violations.
    pin_layers: Vec<(String, usize, usize, usize, usize)>,
}

/// KLayout's view of LEF files: the cell's name, size and pin labels, and per pin layer a
/// width and spacing check against `PIN_RULES`.
fn klayout_read(lefs: &[PathBuf]) -> Vec<KlayoutView> {
    let script = "import sys, json, klayout.db as db\n\
        rules = json.loads(sys.argv[1]); out = []\n\
        for f in sys.argv[2:]:\n\
        \x20   ly = db.Layout(); ly.read(f)\n\
        \x20   cells = list(ly.each_cell()); assert len(cells) == 1, f\n\
        \x20   c = cells[0]; b = c.dbbox(); layers = []\n\
        \x20   labels = sorted({sh.text.string for li in ly.layer_indexes() \
                 for sh in c.shapes(li).each() if sh.is_text()})\n\
        \x20   for li in ly.layer_indexes():\n\
        \x20       name = ly.get_info(li).name\n\
        \x20       if not name.endswith('.PIN'): continue\n\
        \x20       w, s = rules[name[:-4]]\n\
        \x20       r = db.Region(c.begin_shapes_rec(li))\n\
        \x20       layers.append([name, r.count(), r.merged().count(), \
                 r.width_check(round(w / ly.dbu)).count(), \
                 r.space_check(round(s / ly.dbu)).count()])\n\
        \x20   out.append(dict(cell=c.name, width=b.width(), height=b.height(), \
                 labels=labels, pin_layers=layers))\n\
        print(json.dumps(out))\n";
    let text = run(Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(PIN_RULES)
        .args(lefs));
    serde_json::from_str(text.trim()).expect("KLayout JSON")
}

/// Every fakeram view of a generated design agrees with the macro's Verilog model, the
/// Liberty area with the LEF size, the area with an independent estimate, and KLayout
/// reads every LEF to the same size and pins.
#[test]
fn fakeram_views_match_the_verilog_and_each_other() {
    let tmp = tempfile::tempdir().unwrap();
    let hwacha = root().join("configs/hwacha-1lane.toml");
    let vector_rf = root().join("configs/banked_rf_vector.toml");
    let designs = [
        ("rocket-hwacha", vec!["--config", s(&hwacha)]),
        ("banked_rf", vec![]),
        ("banked_rf", vec!["--config", s(&vector_rf)]),
    ];
    let mut lefs = Vec::new();
    let mut expected = Vec::new();
    for (i, (design, args)) in designs.iter().enumerate() {
        let dir = tmp.path().join(format!("d{i}"));
        generate(design, args, &dir);
        for name in macro_names(&dir) {
            let model = fs::read_to_string(dir.join(format!("{name}.v"))).unwrap();
            let ports = verilog_ports(&model, &name);
            let (depth, width) = shape_of(&name);
            for tech in ["nangate45", "sky130hd"] {
                let view = dir.join("fakeram").join(tech).join(&name);
                let lib = fs::read_to_string(view.with_extension("lib")).unwrap();
                let lef_text = fs::read_to_string(view.with_extension("lef")).unwrap();
                let (lib_ports, area) = liberty_pins(&lib);
                assert_eq!(lib_ports, ports, "{name} {tech}: .lib pins vs Verilog");
                let lef = parse_lef(&lef_text);
                check_lef(&lef, &ports, tech, &name);
                let size = lef.width * lef.height;
                assert!(
                    (size - area).abs() <= 1e-6 * area,
                    "{name} {tech}: LEF {size} um^2, lib {area}"
                );
                // A macro holds its bits in cells at least as big as plain 6T cells; the
                // periphery adds at most 10 times that, or 10 times the smallest square
                // whose side holds every pin at one routing track each (the bound of a
                // wide, shallow macro, whose pins on one edge set its size).
                let cells = (depth * width) as f64 * bitcell_um2(tech);
                let edge = bits(&ports).len() as f64 * pin_track_um(tech);
                assert!(
                    area >= cells && area <= 10.0 * cells.max(edge * edge),
                    "{name} {tech}: {area} um^2 for {cells} um^2 of 6T cells, \
                     {edge} um of pin edge"
                );
                lefs.push(view.with_extension("lef"));
                expected.push((name.clone(), lef.width, lef.height, bits(&ports)));
            }
        }
    }
    assert!(lefs.len() >= 6, "macros in every design: {lefs:?}");
    // KLayout's outline is the union of every shape: equal to SIZE, no pin sticks out.
    for (got, want) in klayout_read(&lefs).into_iter().zip(expected) {
        assert_eq!(got.cell, want.0);
        assert!((got.width - want.1).abs() < 1e-6 && (got.height - want.2).abs() < 1e-6);
        let signal: BTreeSet<String> = got
            .labels
            .into_iter()
            .filter(|l| want.3.contains(l))
            .collect();
        assert_eq!(signal, want.3, "{}: KLayout's pin labels", want.0);
        // Pins and stripes apart (no two merge) and legal in width and spacing.
        for (layer, shapes, merged, width, space) in got.pin_layers {
            assert_eq!(shapes, merged, "{} {layer}: pin shapes touch", want.0);
            assert_eq!((width, space), (0, 0), "{} {layer}: design rules", want.0);
        }
    }
}

/// Depth and width from a macro name `sram_<depth>x<width>_...`.
fn shape_of(name: &str) -> (u64, u64) {
    let dims = name.split('_').nth(1).unwrap();
    let (d, w) = dims.split_once('x').unwrap();
    (d.parse().unwrap(), w.parse().unwrap())
}

/// The LEF's pins are the Verilog ports' bits with their directions, plus one power and
/// one ground pin, all on the technology's layers.
fn check_lef(lef: &Lef, ports: &Ports, tech: &str, name: &str) {
    let signal: BTreeMap<&String, &(String, String, String)> = lef
        .pins
        .iter()
        .filter(|(_, (_, usage, _))| usage == "SIGNAL")
        .collect();
    let names: BTreeSet<String> = signal.keys().map(|n| n.to_string()).collect();
    assert_eq!(names, bits(ports), "{name} {tech}: LEF pins vs Verilog");
    for (bit, (dir, _, _)) in &signal {
        let port = bit.split('[').next().unwrap();
        assert_eq!(
            dir.to_lowercase(),
            ports[port].0,
            "{name} {tech}: direction of {bit}"
        );
    }
    let supplies: BTreeSet<&str> = lef
        .pins
        .values()
        .map(|(_, usage, _)| usage.as_str())
        .filter(|u| *u != "SIGNAL")
        .collect();
    assert_eq!(
        supplies,
        BTreeSet::from(["GROUND", "POWER"]),
        "{name} {tech}"
    );
    for layer in &lef.layers {
        assert!(legal_layer(tech, layer), "{name} {tech}: layer {layer}");
    }
}

/// The first value of the Liberty group `group` (`cell_rise`, `rise_constraint`) after the
/// first `timing_type : kind` in `lib`.
fn lib_value(lib: &str, kind: &str, group: &str) -> f64 {
    let at = lib
        .find(&format!("timing_type : {kind};"))
        .expect("timing arc");
    let rest = &lib[at..];
    let values = &rest[rest.find(group).expect("table")..];
    let v = &values[values.find("values (\"").unwrap() + 9..];
    v[..v.find([',', '"']).unwrap()].trim().parse().unwrap()
}

/// The figure in the first line of an OpenSTA report holding `what` (its "Time" column).
fn report_time(report: &str, what: &str) -> f64 {
    let line = report
        .lines()
        .find(|l| l.contains(what))
        .unwrap_or_else(|| panic!("no {what:?} in:\n{report}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    words[1].parse().unwrap()
}

/// Yosys maps banked_rf to nangate45 with its SRAM banks as fakeram black boxes; OpenSTA
/// applies the generated SDC to the netlist and times paths into and out of the macros
/// with the figures of the macro's Liberty view.
#[test]
fn opensta_times_the_netlist_with_the_sdc_and_the_fakeram_lib() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("rf");
    generate("banked_rf", &["--clock-period", "2.5"], &dir);
    let cells = pdk_lib("nangate45", tmp.path());
    let name = &macro_names(&dir)[0];
    let macro_lib = dir.join(format!("fakeram/nangate45/{name}.lib"));
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let rtl: Vec<&str> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .filter(|f| *f != format!("{name}.v"))
        .collect();
    let netlist = tmp.path().join("net.v");
    let script = format!(
        "read_liberty -lib {}; read_verilog {}; synth -top BankedRegFile -flatten; \
         dfflibmap -liberty {c}; abc -liberty {c}; opt_clean; write_verilog -noattr {}",
        s(&macro_lib),
        rtl.join(" "),
        s(&netlist),
        c = s(&cells),
    );
    run(Command::new("yosys")
        .args(["-q", "-p", &script])
        .current_dir(&dir));
    let sta = format!(
        "read_liberty {}\nread_liberty {}\nread_verilog {}\nlink_design BankedRegFile\n\
         read_sdc {}\n\
         report_checks -through [get_pins -hierarchical */R0_data*] -digits 3\n\
         report_checks -to [get_pins -hierarchical */W0_addr*] -digits 3\nexit\n",
        s(&cells),
        s(&macro_lib),
        s(&netlist),
        s(&dir.join("BankedRegFile.sdc")),
    );
    let tcl = tmp.path().join("sta.tcl");
    fs::write(&tcl, sta).unwrap();
    let report = run(Command::new("sta").args(["-no_splash", "-exit", s(&tcl)]));
    let lib = fs::read_to_string(&macro_lib).unwrap();
    let (read, write) = report.split_at(report.rfind("Startpoint").unwrap());
    // Out of a macro: the clock-to-Q of its Liberty view (between no load and the
    // table's largest), in a 2.5 ns clock.
    assert!(
        read.contains("Startpoint: bank") && read.contains("clocked by clock"),
        "{read}"
    );
    let q = report_time(read, "/R0_data[");
    let cq = lib_value(&lib, "rising_edge", "cell_rise");
    assert!(
        (cq..cq + 0.1).contains(&q),
        "R0_data at {q} ns, clock to Q {cq}"
    );
    assert_eq!(report_time(read, "clock clock (rise edge)"), 0.0);
    assert!(
        read.contains("2.500    2.500   clock clock (rise edge)"),
        "{read}"
    );
    // Into a macro: its setup time, after an input delay of 20 % of the period.
    assert!(write.contains("Endpoint: bank"), "{write}");
    let setup = lib_value(&lib, "setup_rising", "rise_constraint");
    let line = write
        .lines()
        .find(|l| l.contains("library setup time"))
        .unwrap();
    let got: f64 = line.split_whitespace().next().unwrap().parse().unwrap();
    assert!((got + setup).abs() < 1e-3, "{line} vs setup {setup}");
    if write.contains("input external delay") {
        assert!((report_time(write, "input external delay") - 0.5).abs() < 1e-6);
    }
}

/// A top without a clock port (a combinational multiplier): the SDC's virtual clock
/// constrains the input-to-output paths with both external delays.
#[test]
fn opensta_times_a_combinational_top_with_the_virtual_clock() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mul");
    let params = [
        "--set",
        "stages=0",
        "--set",
        "a_width=4",
        "--set",
        "b_width=4",
    ];
    let mut args = params.to_vec();
    args.extend(["--clock-period", "4"]);
    generate("multiplier", &args, &dir);
    let cells = pdk_lib("nangate45", tmp.path());
    let netlist = tmp.path().join("net.v");
    let script = format!(
        "read_verilog Multiplier.v; synth -top Multiplier; abc -liberty {}; opt_clean; \
         write_verilog -noattr {}",
        s(&cells),
        s(&netlist)
    );
    run(Command::new("yosys")
        .args(["-q", "-p", &script])
        .current_dir(&dir));
    let tcl = tmp.path().join("sta.tcl");
    fs::write(
        &tcl,
        format!(
            "read_liberty {}\nread_verilog {}\nlink_design Multiplier\nread_sdc {}\n\
             report_checks -digits 3\nexit\n",
            s(&cells),
            s(&netlist),
            s(&dir.join("Multiplier.sdc"))
        ),
    )
    .unwrap();
    let report = run(Command::new("sta").args(["-no_splash", "-exit", s(&tcl)]));
    assert!(report.contains("(input port clocked by clock)"), "{report}");
    assert!(
        report.contains("(output port clocked by clock)"),
        "{report}"
    );
    // 20 % of the 4 ns period on each side.
    assert!((report_time(&report, "input external delay") - 0.8).abs() < 1e-6);
    assert!(
        report.contains("-0.800    3.200   output external delay"),
        "{report}"
    );
}

/// A netlist with one macro between two standard-cell flops, per technology, for the
/// Hwacha bank macro: OpenSTA links it with the two libraries and reports the
/// flop-to-flop path through the macro.
#[test]
fn opensta_reads_each_fakeram_lib_with_the_technology_cells() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("h1");
    let hwacha = root().join("configs/hwacha-1lane.toml");
    generate("rocket-hwacha", &["--config", s(&hwacha)], &dir);
    let name = &macro_names(&dir)[0];
    let model = fs::read_to_string(dir.join(format!("{name}.v"))).unwrap();
    let ports = verilog_ports(&model, name);
    for (tech, flop, clk) in [
        ("nangate45", "DFF_X1", "CK"),
        ("sky130hd", "sky130_fd_sc_hd__dfxtp_1", "CLK"),
    ] {
        let cells = pdk_lib(tech, tmp.path());
        let pins: Vec<String> = ports
            .iter()
            .map(|(p, (_, w))| match p.as_str() {
                "clock" => ".clock(clock)".to_string(),
                "R0_data" => format!(".R0_data({{nc[{}:0], q}})", w - 2),
                "R0_addr" => format!(".R0_addr({{{}}})", vec!["a"; *w as usize].join(", ")),
                _ => format!(".{p}({w}'b0)"),
            })
            .collect();
        let width = ports["R0_data"].1;
        let netlist = format!(
            "module top(clock, d, out);\n  input clock, d;\n  output out;\n  \
             wire a, q;\n  wire [{}:0] nc;\n  \
             {flop} f0 (.D(d), .{clk}(clock), .Q(a));\n  \
             {name} mem ({});\n  {flop} f1 (.D(q), .{clk}(clock), .Q(out));\nendmodule\n",
            width - 2,
            pins.join(", ")
        );
        let v = tmp.path().join(format!("{tech}.v"));
        fs::write(&v, netlist).unwrap();
        let tcl = tmp.path().join(format!("{tech}.tcl"));
        fs::write(
            &tcl,
            format!(
                "read_liberty {}\nread_liberty {}\nread_verilog {}\nlink_design top\n\
                 create_clock -name clock -period 10 [get_ports clock]\n\
                 report_checks -from [get_pins mem/clock] -to [get_pins f1/D] -digits 3\n\
                 report_checks -from [get_pins f0/{clk}] -to [get_pins mem/R0_addr*] -digits 3\n\
                 exit\n",
                s(&cells),
                s(&dir.join(format!("fakeram/{tech}/{name}.lib"))),
                s(&v)
            ),
        )
        .unwrap();
        let report = run(Command::new("sta").args(["-no_splash", "-exit", s(&tcl)]));
        assert!(
            report.contains("Startpoint: mem") && report.contains("Endpoint: f1"),
            "{tech}: no path out of the macro:\n{report}"
        );
        assert!(
            report.contains("Startpoint: f0") && report.contains("Endpoint: mem"),
            "{tech}: no path into the macro:\n{report}"
        );
        assert!(report.contains("library setup time"), "{report}");
        assert!(!report.contains("Error"), "{report}");
    }
}

/// Variables of OpenROAD-flow-scripts' design configs as its documentation lists them
/// (`flow/scripts/variables.yaml`, rendered in docs/user/FlowVariables.md): the subset a
/// generated `config.mk` may set.
const ORFS_VARIABLES: &[&str] = &[
    "DESIGN_NAME",
    "DESIGN_NICKNAME",
    "PLATFORM",
    "VERILOG_FILES",
    "VERILOG_INCLUDE_DIRS",
    "SDC_FILE",
    "CORE_UTILIZATION",
    "CORE_ASPECT_RATIO",
    "CORE_MARGIN",
    "DIE_AREA",
    "CORE_AREA",
    "PLACE_DENSITY",
    "PLACE_DENSITY_LB_ADDON",
    "ADDITIONAL_LEFS",
    "ADDITIONAL_LIBS",
    "ADDITIONAL_GDS",
    "MACRO_PLACE_HALO",
    "MACRO_PLACEMENT",
    "MACRO_PLACEMENT_TCL",
    "GDS_ALLOW_EMPTY",
    "SYNTH_HIERARCHICAL",
    "ABC_AREA",
    "TNS_END_PERCENT",
    "PDN_TCL",
];

/// `config.mk` as GNU make evaluates it when included from another directory (as ORFS's
/// Makefile does): every variable it defines with its value.
fn make_variables(config: &Path, cwd: &Path) -> BTreeMap<String, String> {
    let wrapper = cwd.join("print.mk");
    fs::write(
        &wrapper,
        format!(
            "include {}\n$(foreach v,$(sort $(.VARIABLES)),$(if $(filter file,$(origin $(v))),\
             $(info $(v)=$($(v)))))\nall: ;\n",
            s(config)
        ),
    )
    .unwrap();
    run(Command::new("make")
        .args(["-s", "-f", "print.mk"])
        .current_dir(cwd))
    .lines()
    .filter_map(|l| l.split_once('='))
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// The ORFS design directory: only documented variables exported, every file it names
/// present, the Verilog without the macros' models but complete with the fakeram libs
/// (Yosys elaborates it), the macros' views for the requested platform, and the SDC.
#[test]
fn orfs_config_names_documented_variables_and_existing_files() {
    let tmp = tempfile::tempdir().unwrap();
    let hwacha = root().join("configs/hwacha-1lane.toml");
    let cases = [
        (
            "rocket-hwacha",
            vec!["--config", s(&hwacha)],
            "nangate45",
            "RocketHwacha",
        ),
        ("banked_rf", vec![], "sky130hd", "BankedRegFile"),
        ("queue", vec![], "nangate45", "Queue"),
    ];
    for (i, (design, args, platform, top)) in cases.into_iter().enumerate() {
        let dir = tmp.path().join(format!("d{i}"));
        let mut all = args.clone();
        all.extend(["--orfs", platform]);
        generate(design, &all, &dir);
        let config = dir.join("orfs/config.mk");
        let text = fs::read_to_string(&config).unwrap();
        let exported: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("export "))
            .map(|l| l.split_whitespace().next().unwrap())
            .collect();
        for v in &exported {
            assert!(ORFS_VARIABLES.contains(v), "{v} is not an ORFS variable");
        }
        let cwd = tmp.path().join(format!("flow{i}"));
        fs::create_dir(&cwd).unwrap();
        let vars = make_variables(&config, &cwd);
        assert_eq!(vars["DESIGN_NAME"], top);
        assert_eq!(vars["PLATFORM"], platform);
        let util: f64 = vars["CORE_UTILIZATION"].parse().unwrap();
        let density: f64 = vars["PLACE_DENSITY"].parse().unwrap();
        assert!(util > 0.0 && util < 100.0 && density > util / 100.0 && density <= 1.0);
        assert_eq!(
            fs::read_to_string(&vars["SDC_FILE"]).unwrap(),
            fs::read_to_string(dir.join(format!("{top}.sdc"))).unwrap()
        );
        let list = |v: &str| -> Vec<PathBuf> {
            vars.get(v)
                .map(|x| x.split_whitespace().map(PathBuf::from).collect())
                .unwrap_or_default()
        };
        let verilog = list("VERILOG_FILES");
        let (lefs, libs) = (list("ADDITIONAL_LEFS"), list("ADDITIONAL_LIBS"));
        for f in verilog.iter().chain(&lefs).chain(&libs) {
            assert!(f.is_absolute() && f.is_file(), "{f:?} missing");
        }
        let macros = macro_names(&dir);
        assert_eq!(lefs.len(), macros.len());
        assert_eq!(libs.len(), macros.len());
        for m in &macros {
            assert!(!verilog.iter().any(|f| f.ends_with(format!("{m}.v"))));
            let view = dir.join(format!("fakeram/{platform}/{m}"));
            assert!(lefs.contains(&view.with_extension("lef")), "{lefs:?}");
            assert!(libs.contains(&view.with_extension("lib")), "{libs:?}");
        }
        assert_eq!(macros.is_empty(), !vars.contains_key("MACRO_PLACE_HALO"));
        // The fakeram macros have no GDS: ORFS is to accept them without one.
        if !macros.is_empty() {
            assert_eq!(vars["GDS_ALLOW_EMPTY"], macros.join("|"));
        }
        // What ORFS's synthesis reads: the Verilog and the macros as Liberty black boxes.
        let mut script = String::new();
        for lib in &libs {
            script.push_str(&format!("read_liberty -lib {}; ", s(lib)));
        }
        script.push_str(&format!("hierarchy -check -top {top}"));
        run(Command::new("yosys")
            .args(["-q", "-p", &script])
            .args(&verilog));
    }
}

/// Runs `fusesoc run --target TARGET` on the core in `dir`, in `work`, hermetically.
fn fusesoc(dir: &Path, work: &Path, target: &str, vlnv: &str) -> String {
    let mut cmd = Command::new("fusesoc");
    cmd.args(["--cores-root", s(dir), "run", "--target", target, vlnv])
        .current_dir(work);
    for v in ["XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"] {
        cmd.env(v, work.join(v));
    }
    run(&mut cmd)
}

/// The real FuseSoC (through edalize and Verilator) lints the Hwacha design from its
/// generated core, and builds and runs the generated testbench of the register file.
#[test]
fn fusesoc_lints_and_simulates_the_generated_core() {
    let tmp = tempfile::tempdir().unwrap();
    let hwacha = root().join("configs/hwacha-1lane.toml");
    let h1 = tmp.path().join("h1");
    generate("rocket-hwacha", &["--config", s(&hwacha), "--fusesoc"], &h1);
    let rf = tmp.path().join("rf");
    generate("banked_rf", &["--fusesoc"], &rf);
    for (dir, vlnv, top) in [
        (
            &h1,
            "accelgen:rocket-hwacha:RocketHwacha:0.1.0",
            "RocketHwacha",
        ),
        (
            &rf,
            "accelgen:banked_rf:BankedRegFile:0.1.0",
            "BankedRegFile",
        ),
    ] {
        let core = fs::read_to_string(dir.join(format!("{top}.core"))).unwrap();
        assert!(core.starts_with("CAPI=2:\n"), "{core}");
        let work = tmp.path().join(format!("work-{top}"));
        fs::create_dir(&work).unwrap();
        let lint = fusesoc(dir, &work, "lint", vlnv);
        assert!(
            !lint.contains("%Warning") && !lint.contains("%Error"),
            "{lint}"
        );
        if top == "BankedRegFile" {
            let sim = fusesoc(dir, &work, "sim", vlnv);
            assert!(
                sim.contains("accelgen_tb: BankedRegFile ran 100 cycles"),
                "{sim}"
            );
        }
        assert!(work.join("build").is_dir(), "FuseSoC built in its work dir");
        assert!(
            !dir.join("build").exists(),
            "nothing written into the output"
        );
    }
}

/// Bad hand-off options: a clear message, a non-zero exit, nothing written.
#[test]
fn bad_handoff_options_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    for (args, message) in [
        (vec!["--orfs", "gf180"], "unknown technology \"gf180\""),
        (vec!["--clock-period", "0"], "clock period 0 ns"),
        (vec!["--clock-period=-2"], "clock period -2 ns"),
        (vec!["--clock-period", "NaN"], "clock period NaN ns"),
        (vec!["--clock-period", "fast"], "invalid value 'fast'"),
    ] {
        let mut all = vec!["generate", "banked_rf", "-o", s(&dir)];
        all.extend(&args);
        let r = accelgen(&all);
        assert_ne!(r.code, 0, "{args:?}");
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(!dir.exists(), "{args:?} wrote output");
    }
    // The library's own checks: a missing directory, a corrupt macro list, a bad shape.
    use asic_flow::fakeram::{read_macros, FakeramError};
    let err = read_macros(&tmp.path().join("nowhere")).unwrap_err();
    assert!(matches!(err, FakeramError::Read { .. }), "{err}");
    assert!(err.to_string().contains("sram_macros.json"), "{err}");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("sram_macros.json"), "[{\"name\": 3}]").unwrap();
    assert!(matches!(
        read_macros(&dir).unwrap_err(),
        FakeramError::Parse { .. }
    ));
    let bad = r#"[{"name":"m","depth":8,"width":12,"ports":[{"kind":"write","mask_gran":5}]}]"#;
    fs::write(dir.join("sram_macros.json"), bad).unwrap();
    let err = read_macros(&dir).unwrap_err();
    assert!(
        err.to_string().contains("does not divide the width 12"),
        "{err}"
    );
}

/// The technology of each PDK Liberty file, from its own `library (...)` name.
#[test]
fn liberty_names_map_to_technologies() {
    use asic_flow::fakeram::Tech;
    let tmp = tempfile::tempdir().unwrap();
    for (tech, want) in [("nangate45", Tech::Nangate45), ("sky130hd", Tech::Sky130hd)] {
        let lib = fs::read_to_string(pdk_lib(tech, tmp.path())).unwrap();
        let line = lib
            .lines()
            .find(|l| l.trim_start().starts_with("library"))
            .unwrap();
        let name = line[line.find('(').unwrap() + 1..line.find(')').unwrap()].trim();
        assert_eq!(Tech::from_liberty_name(name), Some(want), "{name}");
        assert_eq!(tech.parse::<Tech>().unwrap(), want);
        assert_eq!(want.to_string(), tech);
    }
    assert_eq!(Tech::from_liberty_name("gscl45nm"), None);
}

/// The hand-off files are byte-identical across runs, replace their own earlier output
/// (subdirectories included), and never a user's file put among them.
#[test]
fn handoffs_are_deterministic_and_only_replace_their_own_files() {
    let tmp = tempfile::tempdir().unwrap();
    let args = ["--orfs", "nangate45", "--fusesoc"];
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    generate("banked_rf", &args, &a);
    generate("banked_rf", &args, &b);
    assert_eq!(tree(&a), tree(&b));
    generate("banked_rf", &args, &a);
    generate("queue", &[], &a);
    assert!(!a.join("fakeram").exists() && !a.join("orfs").exists());
    generate("banked_rf", &args, &a);
    let mine = a.join("fakeram/nangate45/notes.txt");
    fs::write(&mine, "mine").unwrap();
    let r = accelgen(&["generate", "queue", "-o", s(&a)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("fakeram/nangate45/notes.txt"),
        "{}",
        r.stderr
    );
    assert_eq!(fs::read_to_string(&mine).unwrap(), "mine");
}

/// A read-write port (which no design emits yet) gets Chisel's pin names in both views,
/// and OpenSTA and KLayout read them.
#[test]
fn read_write_ports_have_chisel_pin_names_in_both_views() {
    use asic_flow::fakeram::{lef, liberty, MacroShape, Tech};
    let tmp = tempfile::tempdir().unwrap();
    let shape: MacroShape = serde_json::from_str(
        r#"{"name":"sram_1024x32_1rw_m8","depth":1024,"width":32,
            "ports":[{"kind":"readwrite","mask_gran":8}]}"#,
    )
    .unwrap();
    let port = |n: &str, d: &str, w| (n.to_string(), (d.to_string(), w));
    let want: Ports = [
        port("clock", "input", 1),
        port("RW0_en", "input", 1),
        port("RW0_wmode", "input", 1),
        port("RW0_addr", "input", 10),
        port("RW0_wdata", "input", 32),
        port("RW0_rdata", "output", 32),
        port("RW0_wmask", "input", 4),
    ]
    .into_iter()
    .collect();
    for tech in Tech::ALL {
        let lib_text = liberty(&shape, tech);
        assert_eq!(liberty_pins(&lib_text).0, want, "{tech}");
        check_lef(
            &parse_lef(&lef(&shape, tech)),
            &want,
            &tech.to_string(),
            "rw",
        );
        let (lib, lef_path) = (tmp.path().join("rw.lib"), tmp.path().join("rw.lef"));
        fs::write(&lib, &lib_text).unwrap();
        fs::write(&lef_path, lef(&shape, tech)).unwrap();
        let tcl = tmp.path().join("rw.tcl");
        fs::write(
            &tcl,
            format!(
                "read_liberty {}\nreport_lib_cell {}\nexit\n",
                s(&lib),
                shape.name
            ),
        )
        .unwrap();
        let report = run(Command::new("sta").args(["-no_splash", "-exit", s(&tcl)]));
        assert!(report.contains("RW0_rdata[31:0] output"), "{report}");
        let got = klayout_read(&[lef_path]);
        assert!(
            got[0].labels.is_superset(&bits(&want)),
            "{tech}: KLayout pins"
        );
    }
}
