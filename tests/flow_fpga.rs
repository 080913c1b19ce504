//! `accelgen fpga` and `fpga::flow::run` with the real tools: iCE40 (Yosys 0.23,
//! nextpnr-ice40, icepack) on a queue, ECP5 (yowasp nextpnr-ecp5, ecppack) on a queue
//! (and, with `ACCELGEN_LONG=1`, on rocket-small and the ULX3S board top), the
//! does-not-fit error, and bad input. Each report is checked against
//! something the flow did not compute: Yosys's netlist against nextpnr's packing, the
//! block RAMs against the datasheet geometry, the device table against nextpnr's chip
//! database, the bitstream against the unpacker.

mod cli_run;

use cli_run::{accelgen, accelgen_env, s};
use fpga::device::Family;
use fpga::flow::{run, FpgaError, FpgaOptions};
use fpga::report::{FpgaReport, Resource};
use generators::output::{render, OutputOptions};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes design `name` with `params` (every memory inferred) to `dir`.
fn generate(dir: &Path, name: &str, params: &str) {
    let params: toml::Table = params.parse().expect("params");
    let out = render(
        name,
        &params,
        &OutputOptions {
            single_file: false,
            all_inferred: true,
        },
    )
    .expect("render");
    fs::create_dir_all(dir).unwrap();
    for (file, text) in &out.files {
        fs::write(dir.join(file), text).unwrap();
    }
}

fn options(dir: &Path, family: Family, device: &str, freq_mhz: f64) -> FpgaOptions {
    FpgaOptions {
        dir: dir.join("verilog"),
        work_dir: dir.join("work"),
        family,
        device: Some(device.into()),
        package: None,
        freq_mhz,
        constraints: None,
    }
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("read")).expect("json")
}

/// nextpnr's utilization of bel type `bel`: (used, available).
fn bel(report: &Value, bel: &str) -> (u64, u64) {
    let u = &report["utilization"][bel];
    (
        u["used"].as_u64().unwrap(),
        u["available"].as_u64().unwrap(),
    )
}

fn cells(r: &FpgaReport, ty: &str) -> u64 {
    r.synth_cells.get(ty).copied().unwrap_or(0)
}

fn flops(cells: &BTreeMap<String, u64>, prefix: &str) -> u64 {
    cells
        .iter()
        .filter(|(t, _)| t.starts_with(prefix))
        .map(|(_, n)| n)
        .sum()
}

#[test]
fn ice40_queue_packs_yosys_cells_into_logic_cells_and_block_ram() {
    let tmp = tempfile::tempdir().unwrap();
    // 256 x 36: an SB_RAM40_4K is 256 x 16 at most, so the datasheet geometry needs
    // ceil(36 / 16) = 3 blocks.
    generate(
        &tmp.path().join("verilog"),
        "queue",
        "depth = 256\nwidth = 36",
    );
    let r = run(&options(tmp.path(), Family::Ice40, "up5k", 12.0)).expect("ice40 flow");
    let work = tmp.path().join("work");
    let pnr = json(&work.join("nextpnr-report.json"));
    let (lut4, carry) = (cells(&r, "SB_LUT4"), cells(&r, "SB_CARRY"));
    let ff = flops(&r.synth_cells, "SB_DFF");
    // A logic cell holds one LUT4, one flip-flop and one carry: at least as many cells as
    // LUT4s or flip-flops, at most one per LUT4, flip-flop and carry.
    assert!(r.luts.used >= lut4.max(ff), "{r:?}");
    assert!(r.luts.used <= lut4 + ff + carry, "{r:?}");
    assert_eq!(r.flops.used, ff);
    assert_eq!(r.bram.used, 3, "{r:?}");
    assert_eq!(cells(&r, "SB_RAM40_4K"), 3);
    assert_eq!(bel(&pnr, "ICESTORM_RAM").0, 3);
    // The device table against nextpnr's chip database.
    assert_eq!(bel(&pnr, "ICESTORM_LC").1, r.luts.available);
    assert_eq!(bel(&pnr, "ICESTORM_RAM").1, r.bram.available);
    assert_eq!(bel(&pnr, "ICESTORM_DSP").1, r.dsp.available);
    assert_eq!(
        (r.luts.available, r.bram.available, r.io.available),
        (5280, 30, 39)
    );
    // The wrapper: clock, din, dout; the queue's own ports would not fit the sg48.
    assert!(r.wrapped);
    assert_eq!(r.io.used, 3);
    assert!(r.design_io_bits.unwrap() > r.io.available);
    let fmax = r.fmax_mhz.expect("a clocked design has an Fmax");
    assert!(fmax > 0.0);
    assert_eq!(r.timing_met, fmax >= r.freq_mhz);
    // The bitstream unpacks to the placed configuration nextpnr wrote.
    let bin = work.join(&r.bitstream);
    let unpacked = work.join("unpacked.asc");
    let st = Command::new("iceunpack").arg(&bin).arg(&unpacked).status();
    assert!(st.expect("run iceunpack").success());
    let tiles = |p: &Path| -> Vec<String> {
        fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with(".comment"))
            .map(String::from)
            .collect()
    };
    let placed = tiles(&work.join("accelgen_fpga_top.asc"));
    let logic = |t: &[String]| t.iter().filter(|l| l.starts_with(".logic_tile")).count();
    assert!(logic(&placed) > 0);
    assert_eq!(logic(&tiles(&unpacked)), logic(&placed));
}

#[test]
fn cli_writes_the_same_bitstream_and_report_twice_and_replaces_its_own_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let args = [
        "fpga",
        "queue",
        "--set",
        "depth=64",
        "--family",
        "ice40",
        "--device",
        "hx1k",
        "-o",
        s(&out),
    ];
    let first = accelgen(&args);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let read = |name: &str| fs::read(out.join(name)).unwrap();
    let (bit, report) = (read("accelgen_fpga_top.bin"), read("report.json"));
    let second = accelgen(&args);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(read("accelgen_fpga_top.bin"), bit);
    assert_eq!(read("report.json"), report);
    assert_eq!(first.stdout, second.stdout);
    let r: FpgaReport = serde_json::from_slice(&report).unwrap();
    assert_eq!(String::from_utf8(read("report.txt")).unwrap(), r.table());
    assert!(first
        .stdout
        .contains("Queue on ice40 hx1k (iCE40HX1K, tq144)"));
    assert_eq!((r.luts.available, r.bram.available), (1280, 16));
}

/// Whether the slow runs are on (`ACCELGEN_LONG=1`).
fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// Checks an ECP5 report against nextpnr's report and Yosys's netlist: each LUT4 takes a
/// `TRELLIS_COMB`, each `CCU2C` two; flip-flops are not repacked; the device table
/// equals nextpnr's chip database; the bitstream is a Lattice one.
fn check_ecp5(r: &FpgaReport, work: &Path) {
    let pnr = json(&work.join("nextpnr-report.json"));
    let (lut4, ccu2c) = (cells(r, "LUT4"), cells(r, "CCU2C"));
    assert!(r.luts.used >= lut4 + 2 * ccu2c, "{r:?}");
    assert_eq!(r.flops.used, cells(r, "TRELLIS_FF"));
    assert_eq!(r.bram.used, cells(r, "DP16KD"));
    for (bel, cap) in [
        ("TRELLIS_COMB", r.luts.available),
        ("TRELLIS_FF", r.flops.available),
        ("DP16KD", r.bram.available),
        ("MULT18X18D", r.dsp.available),
    ] {
        assert_eq!(self::bel(&pnr, bel).1, cap, "{bel}");
    }
    let fmax = r.fmax_mhz.expect("Fmax");
    assert!(fmax > 1.0 && fmax < 500.0, "{fmax}");
    assert_eq!(r.timing_met, fmax >= r.freq_mhz);
    // A Lattice bitstream: the sync word (FPGA-TN-02039, 0xFFFFBDB3) after the header.
    let bit = fs::read(work.join(&r.bitstream)).unwrap();
    assert!(bit.windows(4).any(|w| w == [0xFF, 0xFF, 0xBD, 0xB3]));
}

/// A 1024 x 18 queue is exactly one DP16KD (18 kbit, 1024 x 18 per port).
#[test]
fn ecp5_queue_fills_one_block_ram() {
    let tmp = tempfile::tempdir().unwrap();
    generate(
        &tmp.path().join("verilog"),
        "queue",
        "depth = 1024\nwidth = 18",
    );
    let r = run(&options(tmp.path(), Family::Ecp5, "25k", 25.0)).expect("ecp5 flow");
    check_ecp5(&r, &tmp.path().join("work"));
    assert_eq!(r.bram.used, 1, "{r:?}");
    assert_eq!(
        (r.luts.available, r.bram.available, r.dsp.available),
        (24288, 56, 28)
    );
}

/// nextpnr-ecp5 (WebAssembly) places and routes rocket-small in about 6 minutes on an
/// idle core: with `ACCELGEN_LONG=1` only. The fast suite runs the same ECP5 flow and
/// report checks (`check_ecp5`) on the queue above, and Yosys on rocket-small in the
/// does-not-fit test below.
#[test]
fn ecp5_rocket_small_places_with_a_bitstream_and_the_report_matches_the_netlist() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to place rocket-small on the ECP5");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let config = fs::read_to_string("configs/rocket-small.toml").unwrap();
    generate(&tmp.path().join("verilog"), "rocket", &config);
    let r = run(&options(tmp.path(), Family::Ecp5, "85k", 25.0)).expect("ecp5 flow");
    check_ecp5(&r, &tmp.path().join("work"));
    // rocket-small has no memory (no caches; the register file is 31 registers).
    assert!(cells(&r, "LUT4") > 5000 && r.flops.used > 2000, "{r:?}");
    assert_eq!(r.bram.used, 0);
    assert!(r.luts.used < r.luts.available);
}

#[test]
fn rocket_small_does_not_fit_the_up5k_and_the_error_names_the_luts() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let r = accelgen(&[
        "fpga",
        "rocket",
        "--config",
        "configs/rocket-small.toml",
        "--family",
        "ice40",
        "--device",
        "up5k",
        "-o",
        s(&out),
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("the design does not fit the up5k: needs ")
            && r.stderr.contains(" LUT4 logic cells, the up5k has 5,280"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
}

/// A queue of 2 x 314 bits: Yosys's LUT4s and flip-flops each fit the hx1k's 1,280 logic
/// cells (the flip-flops: 628 of storage, the wrapper's 317 input and 318 output bits
/// and a few more), but a flip-flop fed straight from another (the storage, the input
/// shift register) takes a cell of its own, so nextpnr's packing needs more: its failure
/// is the same error.
#[test]
fn nextpnr_running_out_of_logic_cells_is_the_does_not_fit_error() {
    let tmp = tempfile::tempdir().unwrap();
    generate(
        &tmp.path().join("verilog"),
        "queue",
        "depth = 2\nwidth = 314",
    );
    let e = run(&options(tmp.path(), Family::Ice40, "hx1k", 12.0)).unwrap_err();
    let FpgaError::DoesNotFit {
        resource,
        need,
        have,
        ..
    } = e
    else {
        panic!("{e:?}");
    };
    let netlist = json(&tmp.path().join("work/synth.json"));
    let mut counts = BTreeMap::new();
    for cell in netlist["modules"]["accelgen_fpga_top"]["cells"]
        .as_object()
        .unwrap()
        .values()
    {
        *counts
            .entry(cell["type"].as_str().unwrap().to_string())
            .or_insert(0) += 1;
    }
    let lut4 = counts.get("SB_LUT4").copied().unwrap_or(0);
    let carry = counts.get("SB_CARRY").copied().unwrap_or(0);
    let ff = flops(&counts, "SB_DFF");
    assert_eq!((resource, have), (Resource::Lut, 1280));
    assert!(lut4 <= have && ff <= have, "{counts:?}");
    assert!(
        need > have && need <= lut4 + ff + carry,
        "{need} {counts:?}"
    );
}

#[test]
fn bad_input_is_refused_before_any_tool_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let fpga = |extra: &[&str]| {
        let mut args = vec!["fpga", "queue"];
        args.extend_from_slice(extra);
        accelgen(&args)
    };
    let cases: [(&[&str], &str); 6] = [
        (
            &["--family", "xc7"],
            "unknown FPGA family `xc7` (known: ice40, ecp5)",
        ),
        (
            &["--family", "ice40", "--device", "85k"],
            "unknown device `85k` for ice40 (known: hx1k, up5k, hx8k)",
        ),
        (
            &["--family", "ecp5", "--device", "25k", "--package", "sg48"],
            "unknown package `sg48` for ecp5",
        ),
        (
            &["--family", "ice40", "--freq=-3"],
            "clock frequency -3 MHz: expected a positive number",
        ),
        (
            &["--family", "ice40", "--constraints", "pins.lpf"],
            "a constraints file for ice40 must be a .pcf file",
        ),
        (
            &["--family", "ice40", "--constraints", "missing.pcf"],
            "constraints file not found",
        ),
    ];
    for (args, message) in cases {
        let r = fpga(args);
        assert_ne!(r.code, 0, "{args:?}");
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
    }
    // Board builds: the board gives family, device and package; a program is needed.
    let board_cases: [(&[&str], &str); 4] = [
        (&["--board", "ulx3s"], "--program <ELF>"),
        (
            &[
                "--board",
                "ulx3s",
                "--program",
                "p.elf",
                "--family",
                "ice40",
            ],
            "cannot be used with",
        ),
        (
            &["--board", "de0", "--program", "p.elf"],
            "unknown board `de0`",
        ),
        (
            &["--board", "ulx3s", "--program", "missing.elf"],
            "design `queue` has no board top",
        ),
    ];
    for (args, message) in board_cases {
        let r = fpga(args);
        assert_ne!(r.code, 0, "{args:?}");
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
    }
    let r = accelgen(&[
        "fpga",
        "rocket",
        "--board",
        "ulx3s",
        "--program",
        "missing.elf",
    ]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("program missing.elf"), "{}", r.stderr);
    // A directory of the user's is never overwritten.
    let mine = tmp.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("notes.txt"), "mine").unwrap();
    let r = fpga(&["--family", "ice40", "--device", "hx1k", "-o", s(&mine)]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("refusing to overwrite"), "{}", r.stderr);
    assert_eq!(fs::read_to_string(mine.join("notes.txt")).unwrap(), "mine");
    // A missing tool is named.
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let r = accelgen_env(
        &["fpga", "queue", "--family", "ice40"],
        &[("PATH", s(&empty))],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("`yosys` is not installed or not on PATH"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_directory_that_is_not_generated_output_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = FpgaOptions {
        dir: PathBuf::from(tmp.path()),
        ..options(tmp.path(), Family::Ice40, "hx1k", 12.0)
    };
    let e = run(&opts).unwrap_err();
    assert!(matches!(e, FpgaError::Input { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("expected an output directory of `accelgen generate --all-inferred`"),
        "{e}"
    );
}

/// `ACCELGEN_LONG=1` only (Yosys and the WebAssembly nextpnr-ecp5 on the whole board
/// top: 20 to 40 minutes here): the ULX3S board build of rocket-small with a C
/// program in its 32 KiB of RAM, through `accelgen fpga --board`. The RAM (4,096 64-bit
/// words) takes ceil(4096 / 1024) x ceil(64 / 18) = 16 DP16KD (1024 x 18 each); the
/// pins are the LPF's 18.
#[test]
fn ulx3s_board_top_with_a_program_places_its_ram_in_block_ram() {
    if !long() {
        eprintln!("skipped: set ACCELGEN_LONG=1 to place the ULX3S board top");
        return;
    }
    use verification::toolchain::{build_elf, BuildOptions, Kind};
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("hello.c");
    fs::write(
        &src,
        "#include <stdio.h>\nint main(void) { printf(\"hello\\n\"); return 3; }\n",
    )
    .unwrap();
    let elf = build_elf(
        &[src],
        &tmp.path().join("hello.elf"),
        &BuildOptions::new(Kind::C),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let r = accelgen(&[
        "fpga",
        "rocket",
        "--config",
        "configs/rocket-small.toml",
        "--set",
        "ram_kib=32",
        "--board",
        "ulx3s",
        "--program",
        s(&elf),
        "-o",
        s(&out),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report: FpgaReport =
        serde_json::from_str(&fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        (report.family, report.device.as_str()),
        (Family::Ecp5, "85k")
    );
    assert_eq!(report.package, "CABGA381");
    assert!(!report.wrapped);
    assert_eq!(report.bram.used, 16, "{report:?}");
    assert_eq!(report.io.used, 18, "{report:?}");
    assert_eq!(report.freq_mhz, 25.0);
    let bit = fs::read(out.join(&report.bitstream)).unwrap();
    assert!(bit.windows(4).any(|w| w == [0xFF, 0xFF, 0xBD, 0xB3]));
}
