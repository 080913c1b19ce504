//! Hwacha exceptions as traps of the control processor: a program in Hwacha assembly
//! (project assembler) on the ISS raises every exception the model has and checks, in its
//! own trap handler, mcause, mepc (the control-thread instruction) and mtval (the
//! control-thread instruction, the worker instruction's bits, or the faulting address)
//! against values it computes itself. The test follows the run step by step and checks,
//! at each trap, the model's own record of the exception (worker vpc, bits, reason,
//! access) against the program's registers and the unit's address registers. A
//! runaway block stops the simulation with an error instead of trapping. In imprecise
//! mode (the RTL's) a worker exception waits for the bench to deliver it.

mod hwacha_trap_cases;

use std::cell::RefCell;
use std::rc::Rc;
use verification::elf;
use verification::hwacha::encoding::{table, Thread};
use verification::hwacha::model::{Hwacha, HwachaError, HwachaParams, Illegal};
use verification::iss::csr::cause;
use verification::iss::rocc::RoccError;
use verification::iss::{Iss, IssConfig, IssError, Step, Stop};

const DEFS: &str = r#"
// mepc is `label`; mtval the 64-bit worker instruction at `word`.
#define CHECK_WORKER(n, label, word)                \
  li TESTNUM, n; CHECK(s2, 2);                      \
  la t2, label; bne s3, t2, fail;                   \
  la t2, word; ld t2, 0(t2); bne s4, t2, fail;
"#;

const BODY: &str = r#"
  la a0, bad_reg
1:
  vf 0(a0)                      # vv9 with 8 configured
  CHECK_WORKER(5, 1b, bad_reg_insn)
  la a0, stop_block + 4
1:
  vf 0(a0)                      # misaligned vpc
  CHECK_TVAL(6, 0, 1b, a0)
  li a0, 0x10
1:
  vf 0(a0)                      # vpc outside memory
  CHECK_TVAL(7, 1, 1b, a0)

  la a1, data
  vmca va1, a1
  li a2, 12
  vmca va2, a2
  la a0, load_block
1:
  vf 0(a0)                      # element 1 of a stride-12 vlstd: misaligned
  add t3, a1, a2
  CHECK_TVAL(8, 4, 1b, t3)
  # The vaddi before the load retired: store vs5 and look.
  la a3, result
  vmcs vs6, a3
  la a0, report_block
  vf 0(a0)
  ld t3, 0(a3)
  CHECK(t3, 77)
  li a2, 1
  slli a2, a2, 32
  vmca va2, a2
  la a0, load_block
1:
  vf 0(a0)                      # element 1 at data + 4 GiB: outside memory
  add t3, a1, a2
  CHECK_TVAL(9, 5, 1b, t3)

  addi t3, a1, 4
  vmca va1, t3
  la a0, store_block
1:
  vf 0(a0)                      # misaligned vsd
  CHECK_TVAL(10, 6, 1b, t3)
  ld t4, 0(a1)                  # nothing stored
  CHECK(t4, 1)
  ld t4, 8(a1)
  CHECK(t4, 2)
  li t3, 0x10
  vmca va1, t3
1:
  vf 0(a0)                      # vsd outside memory
  CHECK_TVAL(11, 7, 1b, t3)

  addi t3, a1, 4
  vmcs vs2, t3
  la a0, amo_block
1:
  vf 0(a0)                      # misaligned AMO: a store exception
  CHECK_TVAL(12, 6, 1b, t3)
  li t3, 0x10
  vmcs vs2, t3
1:
  vf 0(a0)                      # AMO outside memory
  CHECK_TVAL(13, 7, 1b, t3)
  # Still usable: a good block runs after all of them.
  la a0, report_block
  vf 0(a0)
  ld t3, 0(a3)
  CHECK(t3, 77)
TEST_END
"#;

/// Builds `source` (bare, with `isa_test.h`).
fn build_program(dir: &std::path::Path, source: &str) -> elf::Program {
    elf::load_file(&hwacha_trap_cases::assemble(dir, source)).unwrap()
}

/// One trap as the core took it, with the model's record of the exception and the
/// registers the expectations are computed from.
struct Seen {
    cause: u64,
    tval: u64,
    mepc: u64,
    exception: Option<HwachaError>,
    /// a0: the vf's vpc, in every worker case.
    a0: u64,
    /// The unit's va1 and vs2: the base addresses of the memory cases.
    va1: u64,
    vs2: u64,
}

#[test]
fn every_exception_traps_with_its_cause_and_value() {
    let dir = tempfile::tempdir().unwrap();
    let program = build_program(dir.path(), &hwacha_trap_cases::program(DEFS, BODY));
    let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
    let unit = Rc::new(RefCell::new(Hwacha::new(HwachaParams::default()).unwrap()));
    iss.attach_rocc(Box::new(unit.clone()));
    let mut seen = Vec::new();
    let code = loop {
        let pc = iss.pc;
        match iss.step_one().unwrap() {
            Step::Retired(_) => {}
            Step::Trapped { cause, tval } => {
                let unit = unit.borrow();
                seen.push(Seen {
                    cause,
                    tval,
                    mepc: pc,
                    exception: unit.exception().cloned(),
                    a0: iss.x[10],
                    va1: unit.state().va[1],
                    vs2: unit.state().vs(2),
                });
            }
            Step::Exited(code) => break code,
            Step::Launch(_) => unreachable!("RV64 programs launch nothing"),
        }
        assert!(iss.instret() < 100_000, "runaway program");
    };
    // The program's own checks of mcause, mepc and mtval all passed.
    assert_eq!(code, 0, "failing case (255: an unexpected trap)");
    assert_eq!(seen.len(), 13);
    for (n, s) in seen.iter().enumerate() {
        let word = |addr: u64, size: usize| iss.mem.read(addr, size).unwrap();
        let (cause, tval, exception) = match n {
            0 => (
                cause::ILLEGAL_INSN,
                word(s.mepc, 4),
                HwachaError::AcceleratorDisabled { insn: "vsetvl" },
            ),
            1 => (
                cause::ILLEGAL_INSN,
                word(s.mepc, 4),
                HwachaError::IllegalConfig {
                    vcfg: 257,
                    reason: "more than 256 vector data registers",
                },
            ),
            2 => (
                cause::ILLEGAL_INSN,
                word(s.mepc, 4),
                HwachaError::UnsupportedControl {
                    bits: word(s.mepc, 4) as u32,
                },
            ),
            3 => (
                cause::ILLEGAL_INSN,
                word(s.mepc, 4),
                HwachaError::SharedRegisterOutOfRange { index: 64 },
            ),
            4 => (
                cause::ILLEGAL_INSN,
                word(s.a0 + 8, 8),
                HwachaError::IllegalInstruction {
                    pc: s.a0 + 8,
                    bits: word(s.a0 + 8, 8),
                    reason: Illegal::VvOutOfRange {
                        reg: 9,
                        configured: 8,
                    },
                },
            ),
            5 => (
                cause::INSN_MISALIGNED,
                s.a0,
                HwachaError::MisalignedFetch { pc: s.a0 },
            ),
            6 => (
                cause::INSN_ACCESS_FAULT,
                0x10,
                HwachaError::FetchFault { pc: 0x10 },
            ),
            7 | 8 => {
                // vlstd vv1, va1, va2: element 1 is the first bad one.
                let addr = s.va1 + if n == 7 { 12 } else { 1 << 32 };
                let (cause, exception) = if n == 7 {
                    (
                        cause::LOAD_MISALIGNED,
                        HwachaError::MisalignedAccess {
                            pc: s.a0 + 8,
                            addr,
                            size: 8,
                            store: false,
                        },
                    )
                } else {
                    (
                        cause::LOAD_ACCESS_FAULT,
                        HwachaError::AccessFault {
                            pc: s.a0 + 8,
                            addr,
                            size: 8,
                            store: false,
                        },
                    )
                };
                (cause, addr, exception)
            }
            _ => {
                // vsd (va1) and the shared-address AMO (vs2): misaligned, then outside.
                let addr = if n < 11 { s.va1 } else { s.vs2 };
                let exception = if n % 2 == 1 {
                    HwachaError::MisalignedAccess {
                        pc: s.a0,
                        addr,
                        size: 8,
                        store: true,
                    }
                } else {
                    HwachaError::AccessFault {
                        pc: s.a0,
                        addr,
                        size: 8,
                        store: true,
                    }
                };
                let cause = if n % 2 == 1 {
                    cause::STORE_MISALIGNED
                } else {
                    cause::STORE_ACCESS_FAULT
                };
                (cause, addr, exception)
            }
        };
        assert_eq!((s.cause, s.tval), (cause, tval), "trap {n}");
        assert_eq!(s.exception.as_ref(), Some(&exception), "trap {n}");
        // Each trap is on a control-thread instruction (a worker fault on its vf).
        let control = table()
            .decode(Thread::Control, word(s.mepc, 4))
            .map_or("none", |i| i.name);
        let expected = ["vsetvl", "vsetcfg", "vxcptcause", "vmcs"];
        assert_eq!(control, *expected.get(n).unwrap_or(&"vf"), "trap {n}");
    }
    // The misaligned and outside addresses of the memory cases are what they say.
    assert_eq!(seen[9].tval % 8, 4);
    assert_eq!(seen[10].tval, 0x10);
    assert_eq!(seen[11].tval % 8, 4);
    assert_eq!(seen[12].tval, 0x10);
}

const RUNAWAY: &str = r#"
#include "isa_test.h"
TEST_BEGIN
  vsetcfg 8, 1
  li a0, 4
  vsetvl t1, a0
  la a0, spin
  vf 0(a0)
TEST_END

  .text
  .align 3
spin:
  vcjal.all vs1, spin
"#;

#[test]
fn a_runaway_block_stops_the_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let program = build_program(dir.path(), RUNAWAY);
    let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
    let params = HwachaParams {
        max_worker_steps: 100,
        ..HwachaParams::default()
    };
    let unit = Rc::new(RefCell::new(Hwacha::new(params).unwrap()));
    iss.attach_rocc(Box::new(unit.clone()));
    let e = iss.run(Some(100_000), None).unwrap_err();
    let limit = HwachaError::StepLimit {
        entry: iss.x[10],
        limit: 100,
    };
    assert_eq!(unit.borrow().exception(), Some(&limit));
    let IssError::Accelerator { pc, source } = e else {
        panic!("{e}")
    };
    // Stopped at the vf, which neither retired nor trapped.
    assert_eq!(pc, iss.pc);
    let vf = iss.mem.read(pc, 4).unwrap();
    assert_eq!(
        table().decode(Thread::Control, vf).map(|i| i.name),
        Some("vf")
    );
    assert_eq!(
        source,
        RoccError::Aborted {
            reason: limit.to_string()
        }
    );
    assert_eq!(iss.csrs.mcause, 0);
}

const DEFERRED: &str = r#"
#include "isa_test.h"
TEST_BEGIN
TRAP_HANDLER
  vsetcfg 8, 1
  li a0, 4
  vsetvl t1, a0
  la a0, bad_block
  vf 0(a0)                      # raises, but retires
  li a2, 42
  vmcs vs5, a2                  # dropped: an exception waits
  la a0, bad_block
  vf 0(a0)                      # dropped too
  li a0, 3
  vsetvl t1, a0                 # answered: t1 = 3
  .globl deliver
deliver:
  nop                           # the bench delivers the exception here
  CHECK(s2, 2)
  la t2, deliver
  bne s3, t2, fail
TEST_END

  .text
  .align 3
bad_block:
  vaddi vs5, vs5, 9
  .globl bad_insn
bad_insn:
  vadd vv9, vv1, vv2
  vstop
"#;

#[test]
fn imprecise_mode_defers_worker_exceptions_until_the_core_takes_them() {
    let dir = tempfile::tempdir().unwrap();
    let program = build_program(dir.path(), DEFERRED);
    let deliver = program.symbol("deliver").unwrap();
    let bad_insn = program.symbol("bad_insn").unwrap();
    let mut iss = Iss::new(&program, IssConfig::default()).unwrap();
    let unit = Rc::new(RefCell::new(Hwacha::new(HwachaParams::default()).unwrap()));
    unit.borrow_mut().set_imprecise(true);
    iss.attach_rocc(Box::new(unit.clone()));
    while iss.pc != deliver {
        assert!(
            matches!(iss.step_one().unwrap(), Step::Retired(_)),
            "no trap before the delivery"
        );
        assert!(iss.instret() < 10_000, "runaway program");
    }
    assert!(unit.borrow().halted());
    // The first block's vaddi ran; the vmcs and the second block were dropped.
    assert_eq!(unit.borrow().state().vs(5), 9);
    assert_eq!(iss.x[6], 3, "vsetvl is answered while halted");
    let bits = iss.mem.read(bad_insn, 8).unwrap();
    assert_eq!(
        iss.take_deferred_trap().unwrap(),
        Some((cause::ILLEGAL_INSN, bits))
    );
    assert_eq!((iss.csrs.mepc, iss.csrs.mtval), (deliver, bits));
    assert!(!unit.borrow().halted());
    assert_eq!(iss.take_deferred_trap().unwrap(), None);
    assert_eq!(iss.run(Some(100_000), None).unwrap(), Stop::Exit(0));
}
