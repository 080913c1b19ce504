//! Machine-mode CSRs with the ISS's set, reset values and write masks
//! (`verification/src/iss/csr.rs`): M is the only privilege level, so `mstatus` holds
//! just MIE and MPIE (MPP reads as M) and there are no delegation or counter-enable
//! registers. Accessed from the memory stage, where instructions are no longer
//! speculative.
//!
//! Counters: `mcycle` counts clock cycles (`cycle` and `time` read it too; a bench that
//! compares with the ISS takes the design's value for them); `minstret` counts retired
//! instructions exactly as the ISS does.

use hdl::helpers::priority_mux;
use hdl::{Bits, ModuleBuilder, Value};

mod num {
    pub const MSTATUS: u64 = 0x300;
    pub const MISA: u64 = 0x301;
    pub const MIE: u64 = 0x304;
    pub const MTVEC: u64 = 0x305;
    pub const MSCRATCH: u64 = 0x340;
    pub const MEPC: u64 = 0x341;
    pub const MCAUSE: u64 = 0x342;
    pub const MTVAL: u64 = 0x343;
    pub const MIP: u64 = 0x344;
    pub const MCYCLE: u64 = 0xb00;
    pub const MINSTRET: u64 = 0xb02;
    pub const CYCLE: u64 = 0xc00;
    pub const TIME: u64 = 0xc01;
    pub const INSTRET: u64 = 0xc02;
    pub const MVENDORID: u64 = 0xf11;
    pub const MARCHID: u64 = 0xf12;
    pub const MIMPID: u64 = 0xf13;
    pub const MHARTID: u64 = 0xf14;
}

/// MXL = 2 (64-bit), extensions A, I, M.
const MISA_VALUE: u64 = (2 << 62) | 1 | (1 << 8) | (1 << 12);
/// MSIE, MTIE, MEIE.
const MIE_MASK: u64 = (1 << 3) | (1 << 7) | (1 << 11);

pub struct CsrFile {
    mstatus_mie: Value,
    mstatus_mpie: Value,
    mie: Value,
    mtvec: Value,
    mscratch: Value,
    pub mepc: Value,
    mcause: Value,
    mtval: Value,
    mcycle: Value,
    minstret: Value,
}

/// The outcome of reading a CSR number.
pub struct CsrRead {
    pub exists: Value,
    /// Bits 11:10 are 0b11: writes are illegal.
    pub read_only: Value,
    pub value: Value,
}

fn k(m: &mut ModuleBuilder, v: u64, w: u32) -> Value {
    m.lit(v, w)
}

impl CsrFile {
    /// The registers; `retiring` is high in a cycle where an instruction retires (it
    /// advances `minstret`).
    pub fn new(m: &mut ModuleBuilder, retiring: &Value) -> CsrFile {
        let f = CsrFile {
            mstatus_mie: m.reg("csr_mstatus_mie", 1, false),
            mstatus_mpie: m.reg("csr_mstatus_mpie", 1, false),
            mie: m.reg("csr_mie", 64, 0u64),
            mtvec: m.reg("csr_mtvec", 64, 0u64),
            mscratch: m.reg("csr_mscratch", 64, 0u64),
            mepc: m.reg("csr_mepc", 64, 0u64),
            mcause: m.reg("csr_mcause", 64, 0u64),
            mtval: m.reg("csr_mtval", 64, 0u64),
            mcycle: m.reg("csr_mcycle", 64, 0u64),
            minstret: m.reg("csr_minstret", 64, 0u64),
        };
        let one = k(m, 1, 64);
        m.connect(&f.mcycle, &(&f.mcycle + &one));
        m.connect(&f.minstret, &(&f.minstret + &retiring.zext(64)));
        f
    }

    fn mstatus(&self) -> Value {
        let z = |n: u32| self.mie.konst(Bits::zero(n));
        hdl::cat(&[
            &z(51),
            &self.mie.konst(Bits::from_u64(2, 3)),
            &z(3),
            &self.mstatus_mpie,
            &z(3),
            &self.mstatus_mie,
            &z(3),
        ])
    }

    /// Reads CSR `addr` (12 bits). `retiring`: an older instruction retires this cycle,
    /// which `minstret` has not counted yet.
    pub fn read(&self, m: &mut ModuleBuilder, addr: &Value, retiring: &Value) -> CsrRead {
        let is = |v: u64| addr.eq(&addr.konst(Bits::from_u64(12, v)));
        let zero = k(m, 0, 64);
        let instret = &self.minstret + &retiring.zext(64);
        let table = [
            (num::MSTATUS, self.mstatus()),
            (num::MISA, k(m, MISA_VALUE, 64)),
            (num::MIE, self.mie.clone()),
            (num::MTVEC, self.mtvec.clone()),
            (num::MSCRATCH, self.mscratch.clone()),
            (num::MEPC, self.mepc.clone()),
            (num::MCAUSE, self.mcause.clone()),
            (num::MTVAL, self.mtval.clone()),
            (num::MIP, zero.clone()),
            (num::MCYCLE, self.mcycle.clone()),
            (num::MINSTRET, instret.clone()),
            (num::CYCLE, self.mcycle.clone()),
            (num::TIME, self.mcycle.clone()),
            (num::INSTRET, instret),
            (num::MVENDORID, zero.clone()),
            (num::MARCHID, zero.clone()),
            (num::MIMPID, zero.clone()),
            (num::MHARTID, zero.clone()),
        ];
        let cases: Vec<(Value, Value)> = table.iter().map(|(n, v)| (is(*n), v.clone())).collect();
        let exists = cases[1..]
            .iter()
            .fold(cases[0].0.clone(), |acc, (c, _)| &acc | c);
        CsrRead {
            exists,
            read_only: addr.slice(11, 10).eq(&addr.konst(Bits::from_u64(2, 3))),
            value: priority_mux(&cases, &zero),
        }
    }

    /// Writes `value` to CSR `addr` (call under the condition of a legal write). Counter
    /// writes account for the writing instruction itself, which retires next cycle.
    pub fn write(&self, m: &mut ModuleBuilder, addr: &Value, value: &Value) {
        let is = |v: u64| addr.eq(&addr.konst(Bits::from_u64(12, v)));
        m.when(&is(num::MSTATUS), |m| {
            m.connect(&self.mstatus_mie, &value.bit(3));
            m.connect(&self.mstatus_mpie, &value.bit(7));
        });
        let masked = |mask: u64| value & &value.konst(Bits::from_u64(64, mask));
        m.when(&is(num::MIE), |m| m.connect(&self.mie, &masked(MIE_MASK)));
        m.when(&is(num::MTVEC), |m| m.connect(&self.mtvec, &masked(!2)));
        m.when(&is(num::MSCRATCH), |m| m.connect(&self.mscratch, value));
        m.when(&is(num::MEPC), |m| m.connect(&self.mepc, &masked(!3)));
        m.when(&is(num::MCAUSE), |m| m.connect(&self.mcause, value));
        m.when(&is(num::MTVAL), |m| m.connect(&self.mtval, value));
        m.when(&is(num::MCYCLE), |m| m.connect(&self.mcycle, value));
        let one = value.konst(Bits::from_u64(64, 1));
        m.when(&is(num::MINSTRET), |m| {
            m.connect(&self.minstret, &(value - &one))
        });
    }

    /// Trap entry (call under the trap condition); returns the handler address.
    pub fn trap(&self, m: &mut ModuleBuilder, pc: &Value, cause: &Value, tval: &Value) {
        m.connect(&self.mepc, pc);
        m.connect(&self.mcause, cause);
        m.connect(&self.mtval, tval);
        m.connect(&self.mstatus_mpie, &self.mstatus_mie);
        m.connect(&self.mstatus_mie, &self.mstatus_mie.konst(Bits::zero(1)));
    }

    /// Exceptions go to the base address, also in vectored mode.
    pub fn trap_vector(&self) -> Value {
        &self.mtvec & &self.mtvec.konst(Bits::from_u64(64, !3))
    }

    /// `mret` (call under its condition): MIE from MPIE, MPIE set.
    pub fn mret(&self, m: &mut ModuleBuilder) {
        m.connect(&self.mstatus_mie, &self.mstatus_mpie);
        m.connect(
            &self.mstatus_mpie,
            &self.mstatus_mpie.konst(Bits::from_u64(1, 1)),
        );
    }
}
