//! Machine-mode control and status registers.
//!
//! Only M-mode exists, so the WARL behaviour follows a machine with neither S nor U:
//! `mstatus.MPP` is hard-wired to M, only MIE/MPIE are writable, and there are no
//! counter-enable, delegation or PMP registers. Write masks were checked against Spike
//! (`--isa=rv64ima_zicsr_zifencei_zicntr --priv=m`) by writing all-ones and reading back.

/// CSR numbers the model implements.
pub mod num {
    pub const MSTATUS: u16 = 0x300;
    pub const MISA: u16 = 0x301;
    pub const MIE: u16 = 0x304;
    pub const MTVEC: u16 = 0x305;
    pub const MSCRATCH: u16 = 0x340;
    pub const MEPC: u16 = 0x341;
    pub const MCAUSE: u16 = 0x342;
    pub const MTVAL: u16 = 0x343;
    pub const MIP: u16 = 0x344;
    pub const MCYCLE: u16 = 0xb00;
    pub const MINSTRET: u16 = 0xb02;
    pub const CYCLE: u16 = 0xc00;
    pub const TIME: u16 = 0xc01;
    pub const INSTRET: u16 = 0xc02;
    pub const MVENDORID: u16 = 0xf11;
    pub const MARCHID: u16 = 0xf12;
    pub const MIMPID: u16 = 0xf13;
    pub const MHARTID: u16 = 0xf14;
}

const MSTATUS_MIE: u64 = 1 << 3;
const MSTATUS_MPIE: u64 = 1 << 7;
/// MPP reads as 3 (M) because M is the only privilege level.
const MSTATUS_MPP_M: u64 = 3 << 11;
/// MXL=2 (64-bit), extensions A, I, M.
pub const MISA_VALUE: u64 = (2 << 62) | (1 << 0) | (1 << 8) | (1 << 12);
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
#[derive(Default)]
pub struct Csrs {
    pub mstatus: u64,
    pub mie: u64,
    pub mtvec: u64,
    pub mscratch: u64,
    pub mepc: u64,
    pub mcause: u64,
    pub mtval: u64,
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
    pub fn new() -> Csrs {
        Csrs {
            mstatus: MSTATUS_MPP_M,
            ..Csrs::default()
        }
    }

    /// Reads `csr`; `retired` is the number of instructions retired so far and `time` the
    /// timer value.
    pub fn read(&self, csr: u16, retired: u64, time: u64) -> Result<u64, CsrFault> {
        use num::*;
        Ok(match csr {
            MSTATUS => self.mstatus,
            MISA => MISA_VALUE,
            MIE => self.mie,
            MTVEC => self.mtvec,
            MSCRATCH => self.mscratch,
            MEPC => self.mepc,
            MCAUSE => self.mcause,
            MTVAL => self.mtval,
            // No interrupt sources are modelled, so nothing is ever pending.
            MIP => 0,
            MCYCLE | CYCLE => retired.wrapping_add(self.cycle_offset),
            MINSTRET | INSTRET => retired.wrapping_add(self.instret_offset),
            TIME => time,
            MVENDORID | MARCHID | MIMPID | MHARTID => 0,
            _ => return Err(CsrFault::Missing),
        })
    }

    /// Writes `csr`. Counter writes take effect for the next instruction: the writing
    /// instruction itself is not counted (the caller counts it after this call, hence -1).
    pub fn write(&mut self, csr: u16, value: u64, retired: u64) -> Result<(), CsrFault> {
        use num::*;
        // CSRs whose bits 11:10 are 0b11 are read-only by the privileged spec's convention.
        if csr >> 10 == 3 {
            return if self.exists(csr) {
                Err(CsrFault::ReadOnly)
            } else {
                Err(CsrFault::Missing)
            };
        }
        match csr {
            MSTATUS => self.mstatus = MSTATUS_MPP_M | (value & (MSTATUS_MIE | MSTATUS_MPIE)),
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
            MCYCLE => self.cycle_offset = value.wrapping_sub(retired).wrapping_sub(1),
            MINSTRET => self.instret_offset = value.wrapping_sub(retired).wrapping_sub(1),
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
        self.mstatus = MSTATUS_MPP_M | if mie { MSTATUS_MPIE } else { 0 };
        self.mtvec & !3
    }

    /// `mret`: restore MIE from MPIE, set MPIE, and return the resume address.
    pub fn mret(&mut self) -> u64 {
        let mpie = (self.mstatus & MSTATUS_MPIE) != 0;
        self.mstatus = MSTATUS_MPP_M | MSTATUS_MPIE | if mpie { MSTATUS_MIE } else { 0 };
        self.mepc
    }
}

/// The name Spike prints after `c<number>_` in its commit log.
pub fn name(csr: u16) -> &'static str {
    use num::*;
    match csr {
        MSTATUS => "mstatus",
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
        MVENDORID => "mvendorid",
        MARCHID => "marchid",
        MIMPID => "mimpid",
        MHARTID => "mhartid",
        _ => "unknown",
    }
}
