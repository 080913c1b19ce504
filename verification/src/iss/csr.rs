//! Machine-mode control and status registers.
//!
//! Only M-mode exists, so the WARL behaviour follows a machine with neither S nor U:
//! `mstatus.MPP` is hard-wired to M, only MIE/MPIE (and FS with the F extension) are
//! writable, and there are no counter-enable, delegation or PMP registers. Write masks
//! were checked against Spike (`--isa=rv64ima_zicsr_zifencei_zicntr --priv=m`, and with
//! `f`/`d`, and `rv32`) by writing all-ones and reading back.
//!
//! With F, `fflags`, `frm` and `fcsr` exist while `mstatus.FS` is not Off, and `FS`
//! becomes Dirty (with `SD` reading 1) when an instruction writes an f register or the
//! floating-point CSRs, as Spike models it. On RV32 the counters have their `h` halves
//! and `mstatush` exists (reading 0).

use super::{FpExt, Isa, Xlen};

/// CSR numbers the model implements.
pub mod num {
    pub const FFLAGS: u16 = 0x001;
    pub const FRM: u16 = 0x002;
    pub const FCSR: u16 = 0x003;
    pub const MSTATUS: u16 = 0x300;
    pub const MISA: u16 = 0x301;
    pub const MIE: u16 = 0x304;
    pub const MTVEC: u16 = 0x305;
    pub const MSCRATCH: u16 = 0x340;
    pub const MEPC: u16 = 0x341;
    pub const MCAUSE: u16 = 0x342;
    pub const MTVAL: u16 = 0x343;
    pub const MIP: u16 = 0x344;
    pub const MSTATUSH: u16 = 0x310;
    pub const MCYCLE: u16 = 0xb00;
    pub const MINSTRET: u16 = 0xb02;
    pub const CYCLE: u16 = 0xc00;
    pub const TIME: u16 = 0xc01;
    pub const INSTRET: u16 = 0xc02;
    pub const MCYCLEH: u16 = 0xb80;
    pub const MINSTRETH: u16 = 0xb82;
    pub const CYCLEH: u16 = 0xc80;
    pub const TIMEH: u16 = 0xc81;
    pub const INSTRETH: u16 = 0xc82;
    pub const MVENDORID: u16 = 0xf11;
    pub const MARCHID: u16 = 0xf12;
    pub const MIMPID: u16 = 0xf13;
    pub const MHARTID: u16 = 0xf14;
}

const MSTATUS_MIE: u64 = 1 << 3;
const MSTATUS_MPIE: u64 = 1 << 7;
/// MPP reads as 3 (M) because M is the only privilege level.
const MSTATUS_MPP_M: u64 = 3 << 11;
/// The floating-point unit's state: Off (0), Initial, Clean, Dirty (3).
const MSTATUS_FS: u64 = 3 << 13;
/// MSIE, MTIE, MEIE: the interrupt enables of an M-only hart.
const MIE_MASK: u64 = (1 << 3) | (1 << 7) | (1 << 11);

/// Exception causes (mcause values) the model raises.
pub mod cause {
    pub const INSN_MISALIGNED: u64 = 0;
    pub const INSN_ACCESS_FAULT: u64 = 1;
    pub const ILLEGAL_INSN: u64 = 2;
    pub const BREAKPOINT: u64 = 3;
    pub const LOAD_MISALIGNED: u64 = 4;
    pub const LOAD_ACCESS_FAULT: u64 = 5;
    pub const STORE_MISALIGNED: u64 = 6;
    pub const STORE_ACCESS_FAULT: u64 = 7;
    pub const ECALL_M: u64 = 11;
}

/// The CSR file. Counters are kept as offsets from the retired-instruction count so
/// that the hot loop only increments one number.
pub struct Csrs {
    isa: Isa,
    /// mstatus without SD, which is computed from FS when read.
    pub mstatus: u64,
    pub mie: u64,
    pub mtvec: u64,
    pub mscratch: u64,
    pub mepc: u64,
    pub mcause: u64,
    pub mtval: u64,
    /// Accrued exception flags (5 bits) and dynamic rounding mode (3 bits).
    pub fflags: u8,
    pub frm: u8,
    cycle_offset: u64,
    instret_offset: u64,
}

/// Why a CSR access is illegal (both raise an illegal-instruction trap).
#[derive(Debug, PartialEq, Eq)]
pub enum CsrFault {
    /// No such CSR on this hart.
    Missing,
    /// A write to a read-only CSR.
    ReadOnly,
}

impl Csrs {
    /// The CSRs of a hart of `isa`, as at reset (FS Off).
    pub fn new(isa: Isa) -> Csrs {
        Csrs {
            isa,
            mstatus: MSTATUS_MPP_M,
            mie: 0,
            mtvec: 0,
            mscratch: 0,
            mepc: 0,
            mcause: 0,
            mtval: 0,
            fflags: 0,
            frm: 0,
            cycle_offset: 0,
            instret_offset: 0,
        }
    }

    /// misa: MXL and the extensions A, I, M and, as configured, F and D.
    pub fn misa(&self) -> u64 {
        let ext = |c: u8| 1u64 << (c - b'a');
        let mut v = ext(b'a') | ext(b'i') | ext(b'm');
        if self.isa.fp != FpExt::None {
            v |= ext(b'f');
        }
        if self.isa.fp == FpExt::FD {
            v |= ext(b'd');
        }
        match self.isa.xlen {
            Xlen::Rv32 => v | 1 << 30,
            Xlen::Rv64 => v | 2 << 62,
        }
    }

    /// mstatus as read: SD (the top bit) set when FS is Dirty.
    pub fn mstatus_value(&self) -> u64 {
        let sd = match self.isa.xlen {
            Xlen::Rv32 => 1 << 31,
            Xlen::Rv64 => 1 << 63,
        };
        if self.mstatus & MSTATUS_FS == MSTATUS_FS {
            self.mstatus | sd
        } else {
            self.mstatus
        }
    }

    /// Whether floating-point instructions and CSRs may be used (F present, FS not Off).
    pub fn fp_enabled(&self) -> bool {
        self.mstatus & MSTATUS_FS != 0
    }

    /// Sets FS to Dirty; true if it was not (mstatus changed, which Spike logs).
    pub fn mark_fp_dirty(&mut self) -> bool {
        let was = self.mstatus & MSTATUS_FS == MSTATUS_FS;
        self.mstatus |= MSTATUS_FS;
        !was
    }

    /// Reads `csr`; `retired` is the number of instructions retired so far and `time` the
    /// timer value.
    pub fn read(&self, csr: u16, retired: u64, time: u64) -> Result<u64, CsrFault> {
        use num::*;
        let rv32 = self.isa.xlen == Xlen::Rv32;
        let cycle = retired.wrapping_add(self.cycle_offset);
        let instret = retired.wrapping_add(self.instret_offset);
        Ok(match csr {
            FFLAGS | FRM | FCSR if !self.fp_enabled() => return Err(CsrFault::Missing),
            FFLAGS => self.fflags as u64,
            FRM => self.frm as u64,
            FCSR => (self.frm as u64) << 5 | self.fflags as u64,
            MSTATUS => self.mstatus_value(),
            MISA => self.misa(),
            MIE => self.mie,
            MTVEC => self.mtvec,
            MSCRATCH => self.mscratch,
            MEPC => self.mepc,
            MCAUSE => self.mcause,
            MTVAL => self.mtval,
            // No interrupt sources are modelled, so nothing is ever pending.
            MIP => 0,
            MCYCLE | CYCLE => cycle,
            MINSTRET | INSTRET => instret,
            TIME => time,
            MSTATUSH if rv32 => 0,
            MCYCLEH | CYCLEH if rv32 => cycle >> 32,
            MINSTRETH | INSTRETH if rv32 => instret >> 32,
            TIMEH if rv32 => time >> 32,
            MVENDORID | MARCHID | MIMPID | MHARTID => 0,
            _ => return Err(CsrFault::Missing),
        })
    }

    /// Writes `csr`. Counter writes take effect for the next instruction: the writing
    /// instruction itself is not counted (the caller counts it after this call, hence -1).
    /// On RV32 a counter write sets one half of the 64-bit counter. Writing a
    /// floating-point CSR does not dirty FS here: the caller does, to log it.
    pub fn write(&mut self, csr: u16, value: u64, retired: u64) -> Result<(), CsrFault> {
        use num::*;
        let rv32 = self.isa.xlen == Xlen::Rv32;
        // The counter's new value: on RV32, `value` replaces the low or (`high`) the high
        // half of the value the writing instruction read.
        let counter = |offset: u64, high: bool| {
            let old = retired.wrapping_add(offset);
            let v = match (rv32, high) {
                (false, _) => value,
                (true, false) => (old & !0xffff_ffff) | (value & 0xffff_ffff),
                (true, true) => (old & 0xffff_ffff) | (value << 32),
            };
            v.wrapping_sub(retired).wrapping_sub(1)
        };
        // CSRs whose bits 11:10 are 0b11 are read-only by the privileged spec's convention.
        if csr >> 10 == 3 {
            return if self.exists(csr) {
                Err(CsrFault::ReadOnly)
            } else {
                Err(CsrFault::Missing)
            };
        }
        let fs = if self.isa.fp == FpExt::None {
            0
        } else {
            MSTATUS_FS
        };
        match csr {
            FFLAGS | FRM | FCSR if !self.fp_enabled() => return Err(CsrFault::Missing),
            FFLAGS => self.fflags = value as u8 & 0x1f,
            FRM => self.frm = value as u8 & 7,
            FCSR => {
                self.fflags = value as u8 & 0x1f;
                self.frm = (value >> 5) as u8 & 7;
            }
            MSTATUS => self.mstatus = MSTATUS_MPP_M | (value & (MSTATUS_MIE | MSTATUS_MPIE | fs)),
            MSTATUSH if rv32 => {}
            // misa is WARL; this model does not let software switch extensions off.
            MISA => {}
            MIE => self.mie = value & MIE_MASK,
            // Mode 2 and 3 are reserved: bit 1 reads as zero.
            MTVEC => self.mtvec = value & !2,
            MSCRATCH => self.mscratch = value,
            // Without the C extension, mepc[1:0] are zero.
            MEPC => self.mepc = value & !3,
            MCAUSE => self.mcause = value,
            MTVAL => self.mtval = value,
            MIP => {}
            MCYCLE => self.cycle_offset = counter(self.cycle_offset, false),
            MINSTRET => self.instret_offset = counter(self.instret_offset, false),
            MCYCLEH if rv32 => self.cycle_offset = counter(self.cycle_offset, true),
            MINSTRETH if rv32 => self.instret_offset = counter(self.instret_offset, true),
            _ => return Err(CsrFault::Missing),
        }
        Ok(())
    }

    fn exists(&self, csr: u16) -> bool {
        self.read(csr, 0, 0).is_ok()
    }

    /// Trap entry: save the interrupt-enable stack and return the handler address.
    /// Exceptions always go to the base address, also in vectored mode.
    pub fn enter_trap(&mut self, pc: u64, cause: u64, tval: u64) -> u64 {
        self.mepc = pc;
        self.mcause = cause;
        self.mtval = tval;
        let mie = (self.mstatus & MSTATUS_MIE) != 0;
        self.mstatus =
            MSTATUS_MPP_M | (self.mstatus & MSTATUS_FS) | if mie { MSTATUS_MPIE } else { 0 };
        self.isa.xlen.address(self.mtvec & !3)
    }

    /// `mret`: restore MIE from MPIE, set MPIE, and return the resume address.
    pub fn mret(&mut self) -> u64 {
        let mpie = (self.mstatus & MSTATUS_MPIE) != 0;
        self.mstatus = MSTATUS_MPP_M
            | MSTATUS_MPIE
            | (self.mstatus & MSTATUS_FS)
            | if mpie { MSTATUS_MIE } else { 0 };
        self.isa.xlen.address(self.mepc)
    }
}

/// The name Spike prints after `c<number>_` in its commit log.
pub fn name(csr: u16) -> &'static str {
    use num::*;
    match csr {
        FFLAGS => "fflags",
        FRM => "frm",
        FCSR => "fcsr",
        MSTATUS => "mstatus",
        MSTATUSH => "mstatush",
        MISA => "misa",
        MIE => "mie",
        MTVEC => "mtvec",
        MSCRATCH => "mscratch",
        MEPC => "mepc",
        MCAUSE => "mcause",
        MTVAL => "mtval",
        MIP => "mip",
        MCYCLE => "mcycle",
        MINSTRET => "minstret",
        CYCLE => "cycle",
        TIME => "time",
        INSTRET => "instret",
        MCYCLEH => "mcycleh",
        MINSTRETH => "minstreth",
        CYCLEH => "cycleh",
        TIMEH => "timeh",
        INSTRETH => "instreth",
        MVENDORID => "mvendorid",
        MARCHID => "marchid",
        MIMPID => "mimpid",
        MHARTID => "mhartid",
        _ => "unknown",
    }
}
