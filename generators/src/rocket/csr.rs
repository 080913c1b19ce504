//! Machine-mode CSRs with the ISS's set, reset values and write masks
//! (`verification/src/iss/csr.rs`): M is the only privilege level, so `mstatus` holds
//! just MIE and MPIE (MPP reads as M) and there are no delegation or counter-enable
//! registers. Accessed from the memory stage, where instructions are no longer
//! speculative; which CSR an instruction accesses is decoded in execute (`CsrAccess`).
//!
//! Counters: `mcycle` counts clock cycles (`cycle` and `time` read it too; a bench that
//! compares with the ISS takes the design's value for them); `minstret` counts retired
//! instructions exactly as the ISS does, counting them as they leave the memory stage.

use hdl::helpers::onehot_mux;
use hdl::{Bits, ModuleBuilder, ResetValue, Value};

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

/// The CSR numbers of each register an access can select (`CsrAccess::sel`, bit i for
/// entry i): the user counters read their machine counterparts, and (being read-only)
/// never write them.
const GROUPS: [&[u64]; 10] = [
    &[num::MSTATUS],
    &[num::MISA],
    &[num::MIE],
    &[num::MTVEC],
    &[num::MSCRATCH],
    &[num::MEPC],
    &[num::MCAUSE],
    &[num::MTVAL],
    &[num::MCYCLE, num::CYCLE, num::TIME],
    &[num::MINSTRET, num::INSTRET],
];
/// The CSRs that exist and read as zero.
const ZEROS: [u64; 5] = [
    num::MIP,
    num::MVENDORID,
    num::MARCHID,
    num::MIMPID,
    num::MHARTID,
];

/// A CSR instruction's access, decoded from its word: computed in execute and held in
/// registers for the memory stage, which keeps the 12-bit number compares, the write
/// condition and the legality check off the memory stage's paths into the CSRs.
pub struct CsrAccess {
    /// One bit per `GROUPS` entry; zero for a CSR that reads as zero or does not exist.
    pub sel: Value,
    /// No such CSR, or a write to a read-only one (number bits 11:10 are 0b11).
    pub illegal: Value,
    /// The access writes: csrrw(i), or csrrs/c(i) with a nonzero rs1 field.
    pub writes: Value,
}

impl CsrAccess {
    /// Decodes the CSR instruction `insn` (meaningless for other instructions).
    pub fn decode(insn: &Value) -> CsrAccess {
        let addr = insn.slice(31, 20);
        let is = |v: u64| addr.eq(&addr.konst(Bits::from_u64(12, v)));
        let any = |nums: &[u64]| nums[1..].iter().fold(is(nums[0]), |acc, n| &acc | &is(*n));
        let bits: Vec<Value> = GROUPS.iter().rev().map(|g| any(g)).collect();
        let refs: Vec<&Value> = bits.iter().collect();
        let sel = hdl::cat(&refs);
        let exists = &sel.or_r() | &any(&ZEROS);
        let read_only = addr.slice(11, 10).eq(&addr.konst(Bits::from_u64(2, 3)));
        let op = insn.slice(13, 12);
        let rs1 = insn.slice(19, 15);
        let writes = &op.eq(&op.konst(Bits::from_u64(2, 1))) | &!&rs1.eq(&rs1.konst(Bits::zero(5)));
        CsrAccess {
            illegal: &!&exists | &(&writes & &read_only),
            sel,
            writes,
        }
    }

    /// Registers holding an access (`<prefix>_sel`, ...), loaded with `load`. Only
    /// observed while the stage holds a valid CSR instruction: no reset.
    pub fn registers(m: &mut ModuleBuilder, prefix: &str) -> CsrAccess {
        CsrAccess {
            sel: m.reg(
                &format!("{prefix}_sel"),
                GROUPS.len() as u32,
                ResetValue::None,
            ),
            illegal: m.reg(&format!("{prefix}_illegal"), 1, ResetValue::None),
            writes: m.reg(&format!("{prefix}_writes"), 1, ResetValue::None),
        }
    }

    /// Connects these registers to `from` (under the enclosing `when`).
    pub fn load(&self, m: &mut ModuleBuilder, from: &CsrAccess) {
        m.connect(&self.sel, &from.sel);
        m.connect(&self.illegal, &from.illegal);
        m.connect(&self.writes, &from.writes);
    }
}

fn k(m: &mut ModuleBuilder, v: u64, w: u32) -> Value {
    m.lit(v, w)
}

impl CsrFile {
    /// The registers; `mcycle` counts every cycle.
    pub fn new(m: &mut ModuleBuilder) -> CsrFile {
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
        f
    }

    /// Counts in `minstret` an instruction completing the memory stage (`done`: it
    /// retires), before any CSR write of the same cycle (which wins: a write of
    /// `minstret` does not count the writing instruction). A CSR read in the memory stage
    /// so sees every older instruction counted, without an adder.
    pub fn retire(&self, m: &mut ModuleBuilder, done: &Value) {
        let one = self.minstret.konst(Bits::from_u64(64, 1));
        m.when(done, |m| {
            m.connect(&self.minstret, &(&self.minstret + &one))
        });
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

    /// The value `access` reads: an AND-OR of the registers by its one-hot select.
    pub fn read(&self, m: &mut ModuleBuilder, access: &CsrAccess) -> Value {
        let values = [
            self.mstatus(),
            k(m, MISA_VALUE, 64),
            self.mie.clone(),
            self.mtvec.clone(),
            self.mscratch.clone(),
            self.mepc.clone(),
            self.mcause.clone(),
            self.mtval.clone(),
            self.mcycle.clone(),
            self.minstret.clone(),
        ];
        onehot_mux(&access.sel, &values)
    }

    /// Writes `value` through `access` (call under the condition of a legal write;
    /// writes to `misa` are ignored).
    pub fn write(&self, m: &mut ModuleBuilder, access: &CsrAccess, value: &Value) {
        let masked = |mask: u64| value & &value.konst(Bits::from_u64(64, mask));
        let sel = |i: usize| access.sel.bit(i as u32);
        m.when(&sel(0), |m| {
            m.connect(&self.mstatus_mie, &value.bit(3));
            m.connect(&self.mstatus_mpie, &value.bit(7));
        });
        m.when(&sel(2), |m| m.connect(&self.mie, &masked(MIE_MASK)));
        m.when(&sel(3), |m| m.connect(&self.mtvec, &masked(!2)));
        m.when(&sel(4), |m| m.connect(&self.mscratch, value));
        m.when(&sel(5), |m| m.connect(&self.mepc, &masked(!3)));
        m.when(&sel(6), |m| m.connect(&self.mcause, value));
        m.when(&sel(7), |m| m.connect(&self.mtval, value));
        m.when(&sel(8), |m| m.connect(&self.mcycle, value));
        m.when(&sel(9), |m| m.connect(&self.minstret, value));
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
