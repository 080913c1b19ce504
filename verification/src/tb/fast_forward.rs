//! Fast-forward to a program's kernels: the host's setup (every instruction before its
//! first SIMT instruction, `kernels/runtime/simt.h`) runs on the ISS; the design starts
//! from the ISS's state there and runs until its last launch has committed. The ISS runs
//! the rest: the host's check of the results, on the memory the design left, which the
//! bench compares with the ISS's. A Rodinia program's setup and check are about a
//! million cycles of the control processor, its kernels a fraction of that.
//!
//! The design takes the ISS's state through a *restore stub*, which the reset ROM jumps
//! to instead of the program's entry: it loads the written f registers and `fcsr`, the
//! trap CSRs (`mtvec`, `mscratch`, `mie`, `mcause`, `mtval`), `mstatus`'s FS and MIE,
//! `minstret`, then every x register, and `mret`s to the ISS's pc (through `mepc`, which
//! therefore holds that pc rather than the ISS's value). The stub lies in RAM (the
//! designs' memory map has nothing else writable and executable) just below the host's
//! stack pointer, where the program keeps nothing (the calling convention has no red
//! zone), and it is written into the ISS's memory too, so that the two memories stay
//! equal. Memory is the ISS's over the program's pages. What the stub does not carry
//! over: `mepc`, `mstatus.MPIE` (`mret` sets it) and `mcycle` (the design's own, as
//! lockstep takes it anyway).

use super::lockstep::{GoldenModel, IssGolden, IssGoldenError, TracePort};
use super::memory::{MemError, MemoryModel, SparseMemory};
use super::{SignalError, Simulator};
use crate::elf::Program;
use crate::iss::csr::num;
use crate::iss::mem::{reset_rom, RESET_VECTOR};
use crate::iss::{FpExt, Iss, IssError, Xlen};
use std::collections::BTreeSet;

/// The part of a program the design runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Host instructions the ISS ran before the window (the reset ROM's included).
    pub skipped: u64,
    /// Host instructions in the window: from the first SIMT instruction through the last.
    pub records: u64,
    /// Host instructions the ISS runs after it, to the exit.
    pub after: u64,
    /// The program's exit code on the ISS.
    pub exit_code: u64,
}

/// Why a program cannot be fast-forwarded.
#[derive(Debug, thiserror::Error)]
pub enum FastForwardError {
    #[error(transparent)]
    Iss(#[from] IssError),
    #[error(transparent)]
    Golden(#[from] IssGoldenError),
    #[error("the program runs no SIMT instruction (no kernel launch), so there is nothing to fast-forward to")]
    NoLaunch,
    #[error("the restore stub did not finish within {0} cycles")]
    StubHung(u64),
    #[error(
        "the host's stack pointer {sp:#x} leaves no room in RAM for the restore stub below it"
    )]
    NoRoom { sp: u64 },
    #[error(transparent)]
    Signal(#[from] SignalError),
    #[error(transparent)]
    Mem(#[from] MemError),
}

/// The host on the RV32IMAF ISS, each launch's threads run by it in turn (`vgiw`'s
/// golden model, and what finds the window).
pub fn host_golden(program: &Program, max_steps: u64) -> Result<IssGolden, IssError> {
    let mut g = super::soc::golden_with(program, max_steps, FpExt::F)?;
    g.iss_mut().enable_simt();
    Ok(g)
}

/// A fast-forwarded run's start: the window, and the stub's `mret` to wait for.
pub struct Start {
    pub window: Window,
    mret: u64,
}

/// Finds `program`'s window and prepares `memory` to start a design there
/// ([`install`]); returns the start and the host's golden model standing there.
pub fn prepare(
    program: &Program,
    max_steps: u64,
    memory: &mut SparseMemory,
) -> Result<(Start, IssGolden), FastForwardError> {
    let (window, mut golden) = fast_forward(|| host_golden(program, max_steps))?;
    let mret = install(&mut golden, &super::soc::program_pages(program), memory)?;
    Ok((Start { window, mret }, golden))
}

impl Start {
    /// Runs the design from reset through the stub ([`run_stub`]): the window and the
    /// cycles the stub took.
    pub fn run<S: Simulator>(
        &self,
        dut: &mut S,
        memory: &mut MemoryModel,
    ) -> Result<(Window, u64), FastForwardError> {
        Ok((self.window, run_stub(dut, memory, self.mret)?))
    }
}

/// Where a run ends: at `exit` (the exit code once the design has asked the host to
/// exit), or, fast-forwarded, once the design has committed the window's `instret` host
/// instructions (with the ISS's exit code).
pub fn end(window: Option<&(Window, u64)>, instret: u64, exit: Option<u64>) -> Option<u64> {
    match window {
        Some((w, _)) if exit.is_none() => (instret == w.records).then_some(w.exit_code),
        _ => exit,
    }
}

/// Whether `insn` is a SIMT instruction (custom-0, `kernels/runtime/simt.h`).
fn is_simt(insn: u32) -> bool {
    insn & 0x7f == 0x0b
}

/// The window of the program `make` builds goldens of (each a fresh ISS at reset), and
/// the golden stopped at its start: its next record is the window's first.
fn fast_forward(
    make: impl Fn() -> Result<IssGolden, IssError>,
) -> Result<(Window, IssGolden), FastForwardError> {
    let mut count = make()?;
    let (mut total, mut first, mut last) = (0u64, None, 0u64);
    while let Some(r) = count.next_record()? {
        if is_simt(r.insn) {
            first.get_or_insert(total);
            last = total;
        }
        total += 1;
    }
    let first = first.ok_or(FastForwardError::NoLaunch)?;
    let exit_code = count.exit_code().unwrap_or_default();
    let mut golden = make()?;
    for _ in 0..first {
        golden.next_record()?;
    }
    let window = Window {
        skipped: golden.iss_mut().instret(),
        records: last + 1 - first,
        after: total - last - 1,
        exit_code,
    };
    Ok((window, golden))
}

/// Prepares `memory` to start a design where `golden` stands: puts the restore stub below
/// the host's stack pointer (in the ISS's memory too), copies the ISS's memory over
/// `pages` and writes the reset ROM, jumping to the stub, at [`RESET_VECTOR`]. Returns
/// the address of the stub's `mret`.
fn install(
    golden: &mut IssGolden,
    pages: &BTreeSet<u64>,
    memory: &mut SparseMemory,
) -> Result<u64, FastForwardError> {
    let iss = golden.iss_mut();
    let sp = iss.isa.xlen.address(iss.x[2]);
    let (size, _) = restore_stub(iss, 0);
    let base = sp.wrapping_sub(size.len() as u64) & !0xf;
    let (stub, mret) = restore_stub(iss, base);
    if base > sp || !iss.mem.write_slice(base, &stub) {
        return Err(FastForwardError::NoRoom { sp });
    }
    copy_memory(iss, pages, memory);
    memory.write(RESET_VECTOR, &reset_rom(base, iss.isa.xlen));
    Ok(mret)
}

/// Copies the ISS's memory over `pages` into `memory`: every page holding anything but
/// zeros, or already present there.
fn copy_memory(iss: &Iss, pages: &BTreeSet<u64>, memory: &mut SparseMemory) {
    let present: BTreeSet<u64> = memory.pages().collect();
    for &page in pages {
        let Some(data) = iss.mem.slice(page, 4096) else {
            continue;
        };
        if present.contains(&page) || data.iter().any(|&b| b != 0) {
            memory.write(page, data);
        }
    }
}

/// Where the stub keeps the values it loads (x31 points there), from its start.
const DATA: u64 = 0x400;
/// Offsets in the data: x registers, f registers, CSRs, 8 bytes each.
const X_DATA: i32 = 0;
const F_DATA: i32 = 256;
const CSR_DATA: i32 = 512;

fn i_type(imm: i32, rs1: u32, funct3: u32, rd: u32, opcode: u32) -> u32 {
    ((imm as u32 & 0xfff) << 20) | (rs1 << 15) | (funct3 << 12) | (rd << 7) | opcode
}

/// `csrrw x0, csr, rs1`.
fn csrw(csr: u16, rs1: u32) -> u32 {
    i_type(csr as i32, rs1, 1, 0, 0x73)
}

const MRET: u32 = 0x3020_0073;
const STATUS_MIE: u64 = 1 << 3;
const STATUS_MPIE: u64 = 1 << 7;
const STATUS_FS: u64 = 3 << 13;

/// The restore stub for the state of `iss`, an image for address `base`, and the
/// address of its `mret`, the last instruction before the ISS's pc.
fn restore_stub(iss: &Iss, base: u64) -> (Vec<u8>, u64) {
    let rv32 = iss.isa.xlen == Xlen::Rv32;
    let load = |rd: u32, off: i32| i_type(off, 31, if rv32 { 2 } else { 3 }, rd, 0x03);
    let mut data: Vec<u64> = vec![0; 80];
    let mut code = Vec::new();
    // x31 = the data's address (auipc + addi).
    code.push((31 << 7) | 0x17);
    code.push(i_type(DATA as i32, 31, 0, 31, 0x13));
    let csr = |x: u16| iss.csrs.read(x, iss.instret(), 0).unwrap_or_default();
    let mut set_csr = |code: &mut Vec<u32>, slot: usize, number: u16, value: u64| {
        data[(CSR_DATA / 8) as usize + slot] = value;
        code.push(load(1, CSR_DATA + 8 * slot as i32));
        code.push(csrw(number, 1));
    };
    let fp = iss.isa.fp != FpExt::None;
    let status = csr(num::MSTATUS);
    if fp {
        set_csr(&mut code, 0, num::MSTATUS, STATUS_FS);
        let fload = if iss.isa.fp == FpExt::FD { 3 } else { 2 };
        for r in (0..32).filter(|r| iss.f_written >> r & 1 == 1) {
            code.push(i_type(F_DATA + 8 * r as i32, 31, fload, r, 0x07));
        }
        set_csr(&mut code, 1, num::FCSR, csr(num::FCSR));
    }
    let trap_csrs = [num::MTVEC, num::MSCRATCH, num::MIE, num::MCAUSE, num::MTVAL];
    for (i, &number) in trap_csrs.iter().enumerate() {
        set_csr(&mut code, 2 + i, number, csr(number));
    }
    set_csr(&mut code, 7, num::MEPC, iss.pc);
    let mpie = if status & STATUS_MIE != 0 {
        STATUS_MPIE
    } else {
        0
    };
    set_csr(&mut code, 8, num::MSTATUS, (status & STATUS_FS) | mpie);
    // minstret, so that it counts the ISS's instructions once the stub's last 32 (the
    // x loads and `mret`) have retired; on RV32 the low half is cleared first, so that
    // no carry reaches the high half between the two writes.
    let instret =
        (csr(num::MINSTRET) | (if rv32 { csr(num::MINSTRETH) << 32 } else { 0 })).wrapping_sub(32);
    if rv32 {
        code.push(csrw(num::MINSTRET, 0));
        set_csr(&mut code, 9, num::MINSTRETH, instret >> 32);
        set_csr(&mut code, 10, num::MINSTRET, instret & 0xffff_ffff);
    } else {
        set_csr(&mut code, 9, num::MINSTRET, instret);
    }
    for r in 1..32 {
        code.push(load(r, X_DATA + 8 * r as i32));
    }
    code.push(MRET);
    for r in 0..32 {
        data[(X_DATA / 8) as usize + r] = iss.x[r];
        data[(F_DATA / 8) as usize + r] = iss.f[r];
    }
    assert!(
        4 * code.len() as u64 <= DATA,
        "the stub's code overlaps its data"
    );
    let mret = base + 4 * (code.len() as u64 - 1);
    let mut image: Vec<u8> = code.iter().flat_map(|w| w.to_le_bytes()).collect();
    image.resize(DATA as usize, 0);
    image.extend(data.iter().flat_map(|d| d.to_le_bytes()));
    (image, mret)
}

/// Runs the design from reset through the reset ROM and the restore stub [`install`]ed
/// in `memory`, until its `mret` at `mret_pc` commits; returns the cycles taken. The
/// caller has reset the design and steps on from here.
fn run_stub<S: Simulator>(
    dut: &mut S,
    memory: &mut MemoryModel,
    mret_pc: u64,
) -> Result<u64, FastForwardError> {
    const MAX_CYCLES: u64 = 200_000;
    let trace = TracePort::new("trace");
    for cycle in 0..MAX_CYCLES {
        let done = trace.valid(dut)? && trace.read(dut)?.pc == mret_pc;
        memory.tick(dut)?;
        dut.step();
        if done {
            return Ok(cycle + 1);
        }
    }
    Err(FastForwardError::StubHung(MAX_CYCLES))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elf::Segment;
    use crate::iss::IssConfig;

    const STUB: u64 = 0x8000_1000;
    const TARGET: u64 = 0x8000_3000;

    fn program(xlen: Xlen, stub: Vec<u8>) -> Program {
        Program {
            xlen,
            entry: STUB,
            segments: vec![Segment {
                addr: STUB,
                data: stub,
            }],
            tohost: 0x8000_0000,
            fromhost: None,
            symbols: Default::default(),
            function_sizes: Default::default(),
        }
    }

    fn machine(xlen: Xlen, fp: FpExt, stub: Vec<u8>) -> Iss {
        let config = IssConfig {
            fp,
            ..IssConfig::default()
        };
        Iss::new(&program(xlen, stub), config).unwrap()
    }

    /// A machine in a state unlike reset's: every register and restored CSR set from
    /// `seed`, some f registers never written.
    fn source(xlen: Xlen, fp: FpExt, seed: u64) -> Iss {
        let mut iss = machine(xlen, fp, Vec::new());
        let mut x = seed;
        let mut next = move || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 16
        };
        let word = |v: u64| xlen.sext(v);
        for r in 1..32 {
            iss.x[r] = word(next());
        }
        iss.f_written = (next() as u32) | 1;
        for r in 0..32 {
            iss.f[r] = match fp {
                FpExt::F => 0xffff_ffff_0000_0000 | (next() & 0xffff_ffff),
                _ => next(),
            };
        }
        let c = &mut iss.csrs;
        (c.mtvec, c.mscratch, c.mcause) = (word(next()) & !3, word(next()), word(next()));
        (c.mtval, c.mie) = (word(next()), 1 << 7 | 1 << 11);
        (c.fflags, c.frm) = (0x15, 3);
        c.mstatus |= STATUS_MIE | (2 << 13);
        c.write(num::MINSTRET, 0x1234_5678, 0).unwrap();
        if xlen == Xlen::Rv32 {
            c.write(num::MINSTRETH, 7, 0).unwrap();
        }
        iss.pc = TARGET;
        iss
    }

    /// A program without a SIMT instruction has nothing to fast-forward to.
    #[test]
    fn a_program_without_a_launch_is_refused() {
        // lui x2, 0x80000; addi x1, x0, 1; sw x1, 0(x2) (exit 0 through `tohost`); j .
        let code = [0x8000_0137u32, 0x0010_0093, 0x0011_2023, 0x0000_006f];
        let program = program(
            Xlen::Rv32,
            code.iter().flat_map(|w| w.to_le_bytes()).collect(),
        );
        let make = || {
            let config = IssConfig {
                fp: FpExt::F,
                ..IssConfig::default()
            };
            IssGolden::new(&program, config, 1000)
        };
        let err = fast_forward(make).err().expect("refused");
        assert!(matches!(err, FastForwardError::NoLaunch), "{err}");
    }

    /// The restore stub, run by the ISS, leaves the ISS in the state it was made from
    /// (what the stub carries over: every x register, the written f registers, fcsr,
    /// the trap CSRs, mstatus's FS and MIE, minstret).
    #[test]
    fn the_stub_restores_the_state() {
        for (xlen, fp) in [
            (Xlen::Rv32, FpExt::F),
            (Xlen::Rv32, FpExt::None),
            (Xlen::Rv64, FpExt::FD),
        ] {
            let want = source(xlen, fp, 7);
            let (stub, mret) = restore_stub(&want, STUB);
            let mut got = machine(xlen, fp, stub);
            while got.pc != mret {
                assert!(
                    got.instret() < 1000,
                    "{xlen:?}: the stub does not reach its mret"
                );
                assert!(matches!(
                    got.step_one().unwrap(),
                    crate::iss::Step::Retired(_)
                ));
            }
            got.step_one().unwrap();
            assert_eq!(got.pc, TARGET);
            assert_eq!(got.x, want.x, "{xlen:?}");
            let written = if fp == FpExt::None { 0 } else { want.f_written };
            for r in (0..32).filter(|r| written >> r & 1 == 1) {
                assert_eq!(got.f[r], want.f[r], "{xlen:?} f{r}");
            }
            let csrs = [
                num::MTVEC,
                num::MSCRATCH,
                num::MIE,
                num::MCAUSE,
                num::MTVAL,
                num::MINSTRET,
            ];
            let fcsr = (fp != FpExt::None).then_some(num::FCSR);
            let high = (xlen == Xlen::Rv32).then_some(num::MINSTRETH);
            for csr in csrs.into_iter().chain(fcsr).chain(high) {
                let read = |i: &Iss| i.csrs.read(csr, i.instret(), 0).unwrap();
                assert_eq!(read(&got), read(&want), "{xlen:?} csr {csr:#x}");
            }
            let status = |i: &Iss| i.csrs.mstatus & (STATUS_MIE | STATUS_FS);
            let fs = if fp == FpExt::None { STATUS_MIE } else { !0 };
            assert_eq!(status(&got), status(&want) & fs, "{xlen:?} mstatus");
        }
    }
}
