//! The RoCC port of the `rocket` design with the RTL accumulator attached
//! (`RoccAccumulatorSoc`), in lockstep with the ISS running the accumulator's model:
//! commands with and without a response, back-to-back commands and a response used by
//! the next instruction, the accelerator's memory path after a core store, `fence`
//! waiting for `busy`, on both presets under memory latencies of 1, 10 and 100 cycles;
//! then random C programs of accumulator commands (inline `.insn`) that also check every
//! response against their own C model of the accumulator.

use generators::examples::rocc_accumulator::accumulator_soc;
use generators::rocket::params::RocketParams;
use hdl::Design;
use std::path::{Path, PathBuf};
use verification::elf;
use verification::iss::rocc::Accumulator;
use verification::rng::Rng;
use verification::tb::memory::MemConfig;
use verification::tb::soc::{self, SocConfig};
use verification::toolchain::{build_elf, BuildOptions, Kind};
use verification::verilator::{Model, Options};

// funct3 of a RoCC instruction is {xd, xs1, xs2}; rs2 selects the accumulator.
const PROGRAM: &str = r#"
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
li a1, 10
.insn r CUSTOM_0, 2, 0, x0, a1, x1        # acc1 = 10, no response
li a1, 32
.insn r CUSTOM_0, 6, 3, a4, a1, x1        # a4 = 10, acc1 = 42
CHECK(a4, 10)
li TESTNUM, 2
.insn r CUSTOM_0, 4, 1, a4, x0, x1        # a4 = 42
CHECK(a4, 42)

li TESTNUM, 3                             # a core store, then the accelerator loads it
la a1, buf
li a2, 0x123456789
sd a2, 0(a1)
.insn r CUSTOM_0, 2, 2, x0, a1, x2        # acc2 = mem[buf]: busy while it loads
fence                                     # waits until busy drops
.insn r CUSTOM_0, 4, 1, a5, x0, x2
CHECK(a5, 0x123456789)

li TESTNUM, 4                             # back-to-back commands, response used at once
.insn r CUSTOM_0, 0, 0, x0, x0, x3        # acc3 = 0 (rs1 not sent: reads as 0)
li t1, 1
.insn r CUSTOM_0, 2, 3, x0, t1, x3
.insn r CUSTOM_0, 2, 3, x0, t1, x3
.insn r CUSTOM_0, 6, 3, a4, t1, x3        # a4 = 2, acc3 = 3
addi a4, a4, 1
CHECK(a4, 3)
.insn r CUSTOM_0, 4, 1, a4, x0, x3
CHECK(a4, 3)

li TESTNUM, 5                             # sum an array through accelerator loads
la a1, array
li t2, 8
li s1, 0
1: .insn r CUSTOM_0, 2, 2, x0, a1, x0     # acc0 = array[i]
.insn r CUSTOM_0, 6, 3, a4, x0, x0        # a4 = acc0 (acc0 += 0)
add s1, s1, a4
addi a1, a1, 8
addi t2, t2, -1
bnez t2, 1b
CHECK(s1, 36)

li TESTNUM, 6                             # store to the array, fence, load it back
la a1, array
li a2, 77
sd a2, 16(a1)
addi a3, a1, 16
.insn r CUSTOM_0, 2, 2, x0, a3, x1
fence
ld a6, 16(a1)
.insn r CUSTOM_0, 4, 1, a5, x0, x1
bne a5, a6, fail

TEST_END

  .data
  .align 3
buf: .dword 0
array: .dword 1, 2, 3, 4, 5, 6, 7, 8
"#;

/// Memory timings: (latency, jitter, stall percent).
const TIMINGS: [(u32, u32, u32); 3] = [(1, 0, 0), (10, 3, 20), (100, 10, 30)];

/// The accumulator SoC of each preset.
fn duts() -> Vec<(&'static str, Model)> {
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    ["rocket-small", "rocket-default"]
        .into_iter()
        .map(|preset| {
            let text = std::fs::read_to_string(configs.join(format!("{preset}.toml"))).unwrap();
            let params: RocketParams = toml::from_str(&text).unwrap();
            let top = accumulator_soc(&params).unwrap();
            let dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
            (preset, dut)
        })
        .collect()
}

/// Runs `elf` on `dut` in lockstep with the ISS and its accumulator model; returns the
/// exit code and the commands that reached the model.
fn run(
    dut: &mut Model,
    elf_path: &Path,
    (latency, jitter, stall_percent): (u32, u32, u32),
) -> (u64, u64) {
    let program = elf::load_file(elf_path).unwrap();
    let mut golden = soc::golden(&program, 10_000_000).unwrap();
    let model = Accumulator::default();
    let commands = model.commands.clone();
    golden.iss_mut().attach_rocc(Box::new(model));
    let config = SocConfig {
        mem: MemConfig {
            latency,
            jitter,
            stall_percent,
            seed: latency as u64,
            ..MemConfig::default()
        },
        max_cycles: 10_000_000,
        idle_rocc: false,
        ..SocConfig::default()
    };
    let out = soc::run(
        dut,
        &program,
        &config,
        Box::new(std::io::sink()),
        Box::new(std::io::sink()),
        Some(golden),
    )
    .unwrap_or_else(|e| panic!("{}, latency {latency}: {e}", elf_path.display()));
    (out.exit_code, commands.get() as u64)
}

#[test]
fn accumulator_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("acc.S");
    std::fs::write(&src, PROGRAM).unwrap();
    let elf_path = dir.path().join("acc.elf");
    build_elf(&[src], &elf_path, &BuildOptions::new(Kind::BareAsm)).unwrap();
    for (preset, mut dut) in duts() {
        for timing in TIMINGS {
            let (code, commands) = run(&mut dut, &elf_path, timing);
            assert_eq!(code, 0, "{preset}, {timing:?}");
            // 2 + 1 + 2 + 5 + 16 + 2 commands reached the model, in step with the design's.
            assert_eq!(commands, 28, "{preset}, {timing:?}");
        }
    }
}

/// A C program of `n` random accumulator commands (every funct7, with and without xd,
/// back to back, accelerator loads of doublewords the core just stored after a `fence`,
/// fences while a load keeps the unit busy), each response checked against the
/// program's own model of the accumulators. Returns the source and its command count.
fn random_program(seed: u64, n: usize) -> (String, u64) {
    let mut rng = Rng::new(seed);
    let mut ops = String::new();
    for _ in 0..n {
        let acc = rng.below(4);
        let xd = rng.chance(60);
        let v = match rng.below(4) {
            0 => rng.below(100),
            1 => u64::MAX - rng.below(4),
            _ => rng.next_u64(),
        };
        // .insn r CUSTOM_0, funct3 = {xd, xs1, xs2}, funct7, rd, rs1, rs2 (the index).
        let (rd, out, check) = if xd {
            ("%0", "\"=r\"(r)", format!("CHECK(r, ref[{acc}]);"))
        } else {
            ("x0", "", String::new())
        };
        let f3 = |xs1: bool| (xd as u32) << 2 | (xs1 as u32) << 1;
        let stmt = match rng.below(4) {
            0 => format!(
                "v = {v:#x}ull; asm volatile(\".insn r CUSTOM_0, {}, 0, {rd}, %{in1}, x{acc}\" : {out} : \"r\"(v)); {check} ref[{acc}] = v;",
                f3(true),
                in1 = xd as u32
            ),
            1 => format!(
                "asm volatile(\".insn r CUSTOM_0, {}, 1, {rd}, x0, x{acc}\" : {out}); {check}",
                f3(false)
            ),
            2 => {
                let j = rng.below(8);
                let store = if rng.chance(50) {
                    format!("buf[{j}] = {v:#x}ull; asm volatile(\"fence\" ::: \"memory\"); ")
                } else {
                    String::new()
                };
                let fence = if rng.chance(30) {
                    " asm volatile(\"fence\" ::: \"memory\");"
                } else {
                    ""
                };
                format!(
                    "{store}p = &buf[{j}]; asm volatile(\".insn r CUSTOM_0, {}, 2, {rd}, %{in1}, x{acc}\" : {out} : \"r\"(p) : \"memory\"); {check} ref[{acc}] = buf[{j}];{fence}",
                    f3(true),
                    in1 = xd as u32
                )
            }
            _ => format!(
                "v = {v:#x}ull; asm volatile(\".insn r CUSTOM_0, {}, 3, {rd}, %{in1}, x{acc}\" : {out} : \"r\"(v)); {check} ref[{acc}] += v;",
                f3(true),
                in1 = xd as u32
            ),
        };
        ops.push_str("    ");
        ops.push_str(&stmt);
        ops.push('\n');
    }
    let src = format!(
        r#"#include <stdint.h>
#include <stdio.h>

static volatile uint64_t buf[8] = {{1, 2, 3, 4, 5, 6, 7, 8}};
static uint64_t ref[4];
static int fails;

#define CHECK(got, want) do {{ if ((got) != (want)) {{ fails++; \
    printf("line %d: got %llx, want %llx\n", __LINE__, (unsigned long long)(got), \
           (unsigned long long)(want)); }} }} while (0)

int main(void) {{
    uint64_t r, v;
    volatile uint64_t *p;
    (void)r; (void)v; (void)p;
{ops}    printf("%d mismatches\n", fails);
    return fails;
}}
"#
    );
    (src, n as u64)
}

fn build_c(dir: &Path, seed: u64, n: usize) -> (PathBuf, u64) {
    let (text, commands) = random_program(seed, n);
    let src = dir.join(format!("acc{seed}.c"));
    std::fs::write(&src, text).unwrap();
    let elf_path = dir.join(format!("acc{seed}.elf"));
    build_elf(&[src], &elf_path, &BuildOptions::new(Kind::C)).unwrap();
    (elf_path, commands)
}

#[test]
fn random_c_programs_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let mut duts = duts();
    for seed in 0..6u64 {
        let (elf_path, want) = build_c(dir.path(), seed, 120);
        let (preset, dut) = &mut duts[seed as usize % 2];
        let timing = TIMINGS[(seed / 2) as usize % 3];
        let (code, commands) = run(dut, &elf_path, timing);
        assert_eq!(code, 0, "seed {seed} on {preset}, {timing:?}: mismatches");
        assert_eq!(commands, want, "seed {seed} on {preset}, {timing:?}");
    }
}
