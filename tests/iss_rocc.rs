//! The RoCC port: custom-opcode instructions reach an attached accelerator model with
//! their rs1/rs2 values, the response lands in rd, the model can access memory, and
//! rejected commands or a missing accelerator raise illegal-instruction traps. The
//! program checks every response against values it computes itself.

use verification::elf;
use verification::iss::mem::Memory;
use verification::iss::rocc::{RoccAccelerator, RoccCommand, RoccError};
use verification::iss::{Iss, IssConfig, Stop};
use verification::toolchain::{build_elf, BuildOptions, Kind};

/// Four accumulators selected by the rs2 field (as Spike's example RoCC accelerator):
/// funct7 0: acc = rs1; 1: read; 2: acc = mem[rs1]; 3: acc += rs1. Responds with the
/// accumulator's previous value.
#[derive(Default)]
struct Accumulator {
    acc: [u64; 4],
    commands: std::rc::Rc<std::cell::Cell<usize>>,
}

impl RoccAccelerator for Accumulator {
    fn execute(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, RoccError> {
        self.commands.set(self.commands.get() + 1);
        let unsupported = RoccError::Unsupported {
            opcode: cmd.opcode,
            funct7: cmd.funct7,
        };
        if cmd.opcode != 0 || cmd.rs2 >= 4 {
            return Err(unsupported);
        }
        let slot = &mut self.acc[cmd.rs2 as usize];
        let prev = *slot;
        match cmd.funct7 {
            0 => *slot = cmd.rs1_value,
            1 => {}
            2 => {
                *slot = mem.read(cmd.rs1_value, 8).ok_or(RoccError::BadAddress {
                    addr: cmd.rs1_value,
                })?
            }
            3 => *slot = slot.wrapping_add(cmd.rs1_value),
            _ => return Err(unsupported),
        }
        Ok(prev)
    }
}

// funct3 of a RoCC instruction is {xd, xs1, xs2}.
const PROGRAM: &str = r#"
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
li a1, 10
.insn r CUSTOM_0, 2, 0, x0, a1, x1        # acc1 = 10
li a1, 32
.insn r CUSTOM_0, 6, 3, a4, a1, x1        # a4 = 10, acc1 = 42
CHECK(a4, 10)
li TESTNUM, 2
.insn r CUSTOM_0, 4, 1, a4, x0, x1        # a4 = 42
CHECK(a4, 42)
li TESTNUM, 3
la a1, word
.insn r CUSTOM_0, 2, 2, x0, a1, x2        # acc2 = mem[word]
.insn r CUSTOM_0, 4, 1, a5, x0, x2
ld a6, 0(a1)
bne a5, a6, fail
li TESTNUM, 4
li a4, 99
.insn r CUSTOM_0, 4, 1, a4, x0, x3        # untouched accumulator reads 0
CHECK(a4, 0)
TRAP_HANDLER
1: .insn r CUSTOM_0, 6, 9, a4, a1, x1     # funct7 9: rejected
TRAP_CHECK(5, 2, 1b, 0x1215e70b)
2: .insn r CUSTOM_1, 6, 0, a4, a1, x1     # custom-1: rejected
TRAP_CHECK(6, 2, 2b, 0x0015e72b)
li a1, 0x10
3: .insn r CUSTOM_0, 2, 2, x0, a1, x2     # load from outside memory: access fault
TRAP_CHECK(7, 5, 3b, 0x10)

TEST_END

  .align 3
word: .dword 0x0123456789abcdef
"#;

fn build(dir: &std::path::Path) -> elf::Program {
    let src = dir.join("rocc.S");
    std::fs::write(&src, PROGRAM).unwrap();
    let elf = build_elf(
        &[src],
        &dir.join("rocc.elf"),
        &BuildOptions::new(Kind::BareAsm),
    )
    .unwrap();
    elf::load_file(&elf).unwrap()
}

#[test]
fn accelerator_commands_and_responses() {
    let dir = tempfile::tempdir().unwrap();
    let program = build(dir.path());
    let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
    let acc = Accumulator::default();
    let commands = acc.commands.clone();
    iss.attach_rocc(Box::new(acc));
    assert_eq!(iss.run(Some(1_000_000), None).unwrap(), Stop::Exit(0));
    // Six accepted commands plus the three rejected ones reached the model.
    assert_eq!(commands.get(), 9);
}

#[test]
fn custom_opcodes_trap_without_an_accelerator() {
    let dir = tempfile::tempdir().unwrap();
    let program = build(dir.path());
    let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
    // The first custom instruction hits the default handler: "unexpected trap" (255).
    assert_eq!(iss.run(Some(1_000_000), None).unwrap(), Stop::Exit(255));
}
