//! The RoCC port: custom-opcode instructions reach an attached accelerator model with
//! their rs1/rs2 values, the response lands in rd, the model can access memory, and
//! rejected commands or a missing accelerator raise illegal-instruction traps. The
//! program checks every response against values it computes itself. Every kind of
//! accelerator error becomes its RISC-V trap (mcause, mtval, mepc as a trap handler
//! sees them), or stops the simulation when the model gives up.

use verification::elf;
use verification::iss::mem::Memory;
use verification::iss::rocc::{self, Accumulator, RoccAccelerator, RoccCommand, RoccError};
use verification::iss::{Iss, IssConfig, IssError, Stop};
use verification::toolchain::{build_elf, BuildOptions, Kind};

/// Four accumulators selected by the rs2 field (as Spike's example RoCC accelerator):
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

fn build(dir: &std::path::Path, program: &str) -> elf::Program {
    let src = dir.join("rocc.S");
    std::fs::write(&src, program).unwrap();
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
    let program = build(dir.path(), PROGRAM);
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
    let program = build(dir.path(), PROGRAM);
    let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
    // The first custom instruction hits the default handler: "unexpected trap" (255).
    assert_eq!(iss.run(Some(1_000_000), None).unwrap(), Stop::Exit(255));
}

/// Refuses every command with the error its funct7 selects, carrying rs1's value as the
/// address or instruction bits.
struct Refuser;

impl RoccAccelerator for Refuser {
    fn execute(&mut self, cmd: &RoccCommand, _: &mut Memory) -> Result<u64, RoccError> {
        let value = cmd.rs1_value;
        Err(match cmd.funct7 {
            0 => RoccError::Unsupported {
                opcode: cmd.opcode,
                funct7: cmd.funct7,
            },
            1 => RoccError::Illegal {
                reason: "refused".into(),
            },
            2 => RoccError::IllegalFetched {
                bits: value,
                reason: "refused".into(),
            },
            3 => RoccError::FetchMisaligned { addr: value },
            4 => RoccError::FetchAccessFault { addr: value },
            5 => RoccError::LoadMisaligned { addr: value },
            6 => RoccError::LoadAccessFault { addr: value },
            7 => RoccError::StoreMisaligned { addr: value },
            8 => RoccError::StoreAccessFault { addr: value },
            _ => RoccError::Aborted {
                reason: "refused".into(),
            },
        })
    }
}

// Each refused command (custom-2, xd with rd = a4) must trap with the documented mcause
// and mtval at its own pc, and leave a4 unwritten.
const REFUSED: &str = r#"
#include "isa_test.h"

// mtval holds the trapping instruction's own bits.
#define TRAP_CHECK_INSN(n, cause, label)            \
  li TESTNUM, n; CHECK(s2, cause);                  \
  la t2, label; bne s3, t2, fail;                   \
  lwu t2, 0(t2); bne s4, t2, fail;                  \
  li s2, -1; li s3, -1; li s4, -1;

#define REFUSE(n, funct7, value, cause, tval)       \
  li a1, value; li a4, 99;                          \
1: .insn r CUSTOM_2, 6, funct7, a4, a1, x0;         \
  TRAP_CHECK(n, cause, 1b, tval) CHECK(a4, 99)

TEST_BEGIN
TRAP_HANDLER
li a4, 99
1: .insn r CUSTOM_2, 6, 0, a4, a1, x0       # unsupported
TRAP_CHECK_INSN(1, 2, 1b)
CHECK(a4, 99)
1: .insn r CUSTOM_2, 6, 1, a4, a1, x0       # illegal in the accelerator's state
TRAP_CHECK_INSN(2, 2, 1b)
CHECK(a4, 99)
REFUSE(3, 2, 0x123456789abcdef, 2, 0x123456789abcdef)
REFUSE(4, 3, 0x80001004, 0, 0x80001004)
REFUSE(5, 4, 0x10, 1, 0x10)
REFUSE(6, 5, 0x80002002, 4, 0x80002002)
REFUSE(7, 6, 0x20, 5, 0x20)
REFUSE(8, 7, 0x80003001, 6, 0x80003001)
REFUSE(9, 8, 0x30, 7, 0x30)
li a1, 0
li TESTNUM, 10
.insn r CUSTOM_2, 6, 9, a4, a1, x0          # the model gives up
TEST_END
"#;

#[test]
fn accelerator_errors_become_their_traps() {
    let dir = tempfile::tempdir().unwrap();
    let program = build(dir.path(), REFUSED);
    let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
    iss.attach_rocc(Box::new(Refuser));
    // Cases 1-9 pass their checks in the program; the tenth stops the simulation at
    // its instruction, which does not retire.
    let e = iss.run(Some(1_000_000), None).unwrap_err();
    let IssError::Accelerator { pc, source } = e else {
        panic!("{e}")
    };
    assert_eq!(pc, iss.pc);
    assert_eq!(
        iss.x[3], 10,
        "TESTNUM: the program's trap checks all passed"
    );
    let cmd = rocc::decode(iss.mem.read(pc, 4).unwrap() as u32);
    assert_eq!((cmd.opcode, cmd.funct7), (2, 9));
    assert_eq!(
        source,
        RoccError::Aborted {
            reason: "refused".into()
        }
    );
    let retired = iss.instret();
    assert!(iss.run(Some(1_000_000), None).is_err());
    assert_eq!(iss.instret(), retired);
}
