//! What a program's exit through HTIF means, for the messages of the ISS and the SoC
//! bench: the `tohost` value a self-checking program wrote (riscv-tests: `FAILED test N`)
//! and, for the C runtime's trap exit (128 + mcause), the trap its handler recorded in
//! `__trap_report` (see `runtime/crt0.S`).

use crate::elf::Program;

/// The C runtime's trap record: magic, mcause, mepc, mtval (64-bit words).
pub const TRAP_REPORT_SYMBOL: &str = "__trap_report";
/// Written last by the runtime's trap handler, so a record is never half seen ("TRAPRPT!").
pub const TRAP_REPORT_MAGIC: u64 = 0x5452_4150_5250_5421;

/// A trap the C runtime's handler recorded before exiting with 128 + `cause`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrapReport {
    pub cause: u64,
    pub pc: u64,
    pub tval: u64,
}

/// The trap record of `program`, read through `read_u64` (a 64-bit load from the
/// machine's memory), if the program has the C runtime and its handler ran.
pub fn trap_report(program: &Program, read_u64: impl Fn(u64) -> u64) -> Option<TrapReport> {
    let at = program.symbol(TRAP_REPORT_SYMBOL)?;
    (read_u64(at) == TRAP_REPORT_MAGIC).then(|| TrapReport {
        cause: read_u64(at + 8),
        pc: read_u64(at + 16),
        tval: read_u64(at + 24),
    })
}

/// The standard name of synchronous exception `cause` (privileged spec, Table 3.6).
pub fn cause_name(cause: u64) -> &'static str {
    match cause {
        0 => "instruction address misaligned",
        1 => "instruction access fault",
        2 => "illegal instruction",
        3 => "breakpoint",
        4 => "load address misaligned",
        5 => "load access fault",
        6 => "store/AMO address misaligned",
        7 => "store/AMO access fault",
        8 => "environment call from U-mode",
        9 => "environment call from S-mode",
        11 => "environment call from M-mode",
        12 => "instruction page fault",
        13 => "load page fault",
        15 => "store/AMO page fault",
        // The FG-SIMT engine's own (generators::fgsimt::bundles::cause).
        24 => "divergent jalr targets in a warp",
        25 => "the kernel is not in the DWS sequencer's re-convergence directory, or has more branches than its table",
        26 => "the DWS sequencer's error (deadlock, a re-convergence stack or the WST overflowed, or a branch its table lacks)",
        _ => "unknown cause",
    }
}

/// What exit `code` of `program` means, for a message on stderr; `None` for success.
pub fn explain(program: &Program, code: u64, report: Option<TrapReport>) -> Option<String> {
    if code == 0 {
        return None;
    }
    let tohost = (code << 1) | 1;
    Some(match report {
        Some(t) if code == 128 + t.cause => format!(
            "the program trapped: {} (mcause {}) at pc {:#x}, mtval {:#x}; the C runtime's \
             trap handler exited with 128 + mcause = {code}",
            cause_name(t.cause),
            t.cause,
            t.pc,
            t.tval
        ),
        _ if program.symbol(TRAP_REPORT_SYMBOL).is_some() => {
            format!("the program exited with code {code} (tohost {tohost:#x})")
        }
        // A bare program: riscv-tests' RVTEST_FAIL writes TESTNUM << 1 | 1.
        _ => format!("tohost {tohost:#x}: FAILED test {code} (exit code {code})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn program(with_runtime: bool) -> Program {
        let mut symbols = BTreeMap::new();
        if with_runtime {
            symbols.insert(TRAP_REPORT_SYMBOL.to_string(), 0x8000_1000);
        }
        Program {
            xlen: crate::iss::Xlen::Rv64,
            entry: 0x8000_0000,
            segments: vec![],
            tohost: 0x8000_2000,
            fromhost: None,
            symbols,
            function_sizes: BTreeMap::new(),
        }
    }

    #[test]
    fn a_record_is_read_only_when_its_magic_is_there() {
        let p = program(true);
        let words = |magic: u64| {
            move |a: u64| match a - 0x8000_1000 {
                0 => magic,
                8 => 2,
                16 => 0x8000_0040,
                _ => 0xdead,
            }
        };
        assert_eq!(trap_report(&p, words(0)), None);
        assert_eq!(
            trap_report(&p, words(TRAP_REPORT_MAGIC)),
            Some(TrapReport {
                cause: 2,
                pc: 0x8000_0040,
                tval: 0xdead
            })
        );
        assert_eq!(trap_report(&program(false), words(TRAP_REPORT_MAGIC)), None);
    }

    #[test]
    fn exits_are_explained_by_kind_of_program() {
        let trap = TrapReport {
            cause: 5,
            pc: 0x8000_0100,
            tval: 0x10,
        };
        assert_eq!(explain(&program(true), 0, None), None);
        assert_eq!(
            explain(&program(true), 133, Some(trap)).unwrap(),
            "the program trapped: load access fault (mcause 5) at pc 0x80000100, mtval 0x10; \
             the C runtime's trap handler exited with 128 + mcause = 133"
        );
        assert_eq!(
            explain(&program(true), 3, None).unwrap(),
            "the program exited with code 3 (tohost 0x7)"
        );
        assert_eq!(
            explain(&program(false), 3, None).unwrap(),
            "tohost 0x7: FAILED test 3 (exit code 3)"
        );
    }
}
