//! The RoCC port of the `rocket` design with the RTL accumulator attached
//! (`RoccAccumulatorSoc`), in lockstep with the ISS running the accumulator's model:
//! commands with and without a response, back-to-back commands and a response used by
//! the next instruction, the accelerator's memory path after a core store, `fence`
//! waiting for `busy`, on both presets under memory latencies of 1, 10 and 100 cycles.

use generators::examples::rocc_accumulator::accumulator_soc;
use generators::rocket::params::RocketParams;
use hdl::Design;
use std::path::Path;
use verification::elf;
use verification::iss::rocc::Accumulator;
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

#[test]
fn accumulator_in_lockstep() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("acc.S");
    std::fs::write(&src, PROGRAM).unwrap();
    let elf_path = dir.path().join("acc.elf");
    build_elf(&[src], &elf_path, &BuildOptions::new(Kind::BareAsm)).unwrap();
    let program = elf::load_file(&elf_path).unwrap();
    let configs = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    for preset in ["rocket-small", "rocket-default"] {
        let text = std::fs::read_to_string(configs.join(format!("{preset}.toml"))).unwrap();
        let params: RocketParams = toml::from_str(&text).unwrap();
        let top = accumulator_soc(&params).unwrap();
        let mut dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
        for (latency, jitter, stall_percent) in [(1, 0, 0), (10, 3, 20), (100, 10, 30)] {
            let mut golden = soc::golden(&program, 1_000_000).unwrap();
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
                max_cycles: 1_000_000,
                idle_rocc: false,
            };
            let out = soc::run(
                &mut dut,
                &program,
                &config,
                Box::new(std::io::sink()),
                Box::new(std::io::sink()),
                Some(golden),
            )
            .unwrap_or_else(|e| panic!("{preset}, latency {latency}: {e}"));
            assert_eq!(out.exit_code, 0, "{preset}, latency {latency}");
            // 2 + 1 + 2 + 5 + 16 + 2 commands reached the model, in step with the design's.
            assert_eq!(commands.get(), 28, "{preset}, latency {latency}");
        }
    }
}
