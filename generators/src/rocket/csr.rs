//! Machine-mode CSRs with the ISS's set, reset values and write masks
//! (`verification/src/iss/csr.rs`): M is the only privilege level, so `mstatus` holds
//! just MIE and MPIE (MPP reads as M) and there are no delegation or counter-enable
//! registers. Accessed from the memory stage, where instructions are no longer
//! speculative; which CSR an instruction accesses is decoded in execute (`CsrAccess`).
//!
//! Counters: `mcycle` counts clock cycles (`cycle` and `time` read it too; a bench that
//! compares with the ISS takes the design's value for them); `minstret` counts retired
//! instructions exactly as the ISS does, counting them as they leave the memory stage.
//!
//! At `xlen` 32 the registers are 32 bits wide, `misa` says MXL = 1, and the 64-bit
//! counters read and write by halves: `mcycleh`/`cycleh`/`timeh` and
//! `minstreth`/`instreth` are their high words (a write sets one half alone), and
//! `mstatush` exists and reads 0 (the ISS's RV32 CSRs, `verification/src/iss/csr.rs`).
//!
//! With the F extension (`fpu`): `misa` has F, `mstatus.FS` (bits 14:13, SD in the top
//! bit when Dirty) is writable, `fflags`, `frm` and `fcsr` exist while FS is not Off
//! (checked in the memory stage, `CsrFile::illegal`); writing them, or an instruction
//! writing an f register or raising flags (`CsrFile::accrue`), makes FS Dirty, as the
//! ISS models Spike.

use hdl::helpers::onehot_mux;
use hdl::{Bits, ModuleBuilder, ResetValue, Value};

mod num {
    pub const FFLAGS: u64 = 0x001;
    pub const FRM: u64 = 0x002;
    pub const FCSR: u64 = 0x003;
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
    pub const MSTATUSH: u64 = 0x310;
    pub const MCYCLEH: u64 = 0xb80;
    pub const MINSTRETH: u64 = 0xb82;
    pub const CYCLEH: u64 = 0xc80;
    pub const TIMEH: u64 = 0xc81;
    pub const INSTRETH: u64 = 0xc82;
    pub const MVENDORID: u64 = 0xf11;
    pub const MARCHID: u64 = 0xf12;
    pub const MIMPID: u64 = 0xf13;
    pub const MHARTID: u64 = 0xf14;
}

/// Extensions A, I, M.
const MISA_EXTENSIONS: u64 = 1 | (1 << 8) | (1 << 12);

/// misa: MXL (1 for 32 bits, 2 for 64 in the top two bits) and the extensions (F with
/// `fpu`).
fn misa(xlen: u32, fpu: bool) -> u64 {
    let mxl = if xlen == 64 { 2 } else { 1 };
    (mxl << (xlen - 2)) | MISA_EXTENSIONS | (fpu as u64) << 5
}

/// The F extension's state: `mstatus.FS`, `fflags`, `frm`.
pub struct FpCsrs {
    fs: Value,
    fflags: Value,
    pub frm: Value,
}
/// MSIE, MTIE, MEIE.
const MIE_MASK: u64 = (1 << 3) | (1 << 7) | (1 << 11);

pub struct CsrFile {
    pub fp: Option<FpCsrs>,
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
/// never write them. RV32 adds `RV32_GROUPS`, the counters' high halves.
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
const RV32_GROUPS: [&[u64]; 2] = [
    &[num::MCYCLEH, num::CYCLEH, num::TIMEH],
    &[num::MINSTRETH, num::INSTRETH],
];
/// The F extension's, after the others.
const FP_GROUPS: [&[u64]; 3] = [&[num::FFLAGS], &[num::FRM], &[num::FCSR]];
/// The CSRs that exist and read as zero (and on RV32 `mstatush` too).
const ZEROS: [u64; 5] = [
    num::MIP,
    num::MVENDORID,
    num::MARCHID,
    num::MIMPID,
    num::MHARTID,
];

/// The selectable groups at `xlen`, with `fpu`.
fn groups(xlen: u32, fpu: bool) -> Vec<&'static [u64]> {
    let rv32: &[&[u64]] = if xlen == 32 { &RV32_GROUPS } else { &[] };
    let fp: &[&[u64]] = if fpu { &FP_GROUPS } else { &[] };
    GROUPS.iter().chain(rv32).chain(fp).copied().collect()
}

/// The CSRs that read as zero at `xlen`.
fn zeros(xlen: u32) -> Vec<u64> {
    let rv32: &[u64] = if xlen == 32 { &[num::MSTATUSH] } else { &[] };
    ZEROS.iter().chain(rv32).copied().collect()
}

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
    /// Decodes the CSR instruction `insn` (meaningless for other instructions) of an
    /// `xlen`-bit hart, with `fpu`.
    pub fn decode(insn: &Value, xlen: u32, fpu: bool) -> CsrAccess {
        let addr = insn.slice(31, 20);
        let is = |v: u64| addr.eq(&addr.konst(Bits::from_u64(12, v)));
        let any = |nums: &[u64]| nums[1..].iter().fold(is(nums[0]), |acc, n| &acc | &is(*n));
        let bits: Vec<Value> = groups(xlen, fpu).iter().rev().map(|g| any(g)).collect();
        let refs: Vec<&Value> = bits.iter().collect();
        let sel = hdl::cat(&refs);
        let exists = &sel.or_r() | &any(&zeros(xlen));
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

    /// Registers holding an access (`<prefix>_sel`, ...) of an `xlen`-bit hart, loaded
    /// with `load`. Only observed while the stage holds a valid CSR instruction: no reset.
    pub fn registers(m: &mut ModuleBuilder, prefix: &str, xlen: u32, fpu: bool) -> CsrAccess {
        CsrAccess {
            sel: m.reg(
                &format!("{prefix}_sel"),
                groups(xlen, fpu).len() as u32,
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

fn any_of3(a: &Value, b: &Value, c: &Value) -> Value {
    &(a | b) | c
}

impl CsrFile {
    /// The registers (`xlen` bits wide, the counters 64; with `fpu` the F extension's);
    /// `mcycle` counts every cycle.
    pub fn new(m: &mut ModuleBuilder, xlen: u32, fpu: bool) -> CsrFile {
        let f = CsrFile {
            fp: fpu.then(|| FpCsrs {
                fs: m.reg("csr_mstatus_fs", 2, 0u64),
                fflags: m.reg("csr_fflags", 5, 0u64),
                frm: m.reg("csr_frm", 3, 0u64),
            }),
            mstatus_mie: m.reg("csr_mstatus_mie", 1, false),
            mstatus_mpie: m.reg("csr_mstatus_mpie", 1, false),
            mie: m.reg("csr_mie", xlen, 0u64),
            mtvec: m.reg("csr_mtvec", xlen, 0u64),
            mscratch: m.reg("csr_mscratch", xlen, 0u64),
            mepc: m.reg("csr_mepc", xlen, 0u64),
            mcause: m.reg("csr_mcause", xlen, 0u64),
            mtval: m.reg("csr_mtval", xlen, 0u64),
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

    fn xlen(&self) -> u32 {
        self.mie.width()
    }

    fn mstatus(&self) -> Value {
        let z = |n: u32| self.mie.konst(Bits::zero(n));
        let top = match &self.fp {
            // SD (Dirty), then FS at bits 14:13.
            Some(fp) => hdl::cat(&[&fp.fs.and_r(), &z(self.xlen() - 16), &fp.fs]),
            None => z(self.xlen() - 13),
        };
        hdl::cat(&[
            &top,
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
        let xlen = self.xlen();
        let mut values = vec![
            self.mstatus(),
            k(m, misa(xlen, self.fp.is_some()), xlen),
            self.mie.clone(),
            self.mtvec.clone(),
            self.mscratch.clone(),
            self.mepc.clone(),
            self.mcause.clone(),
            self.mtval.clone(),
            self.mcycle.slice(xlen - 1, 0),
            self.minstret.slice(xlen - 1, 0),
        ];
        if xlen == 32 {
            values.extend([self.mcycle.slice(63, 32), self.minstret.slice(63, 32)]);
        }
        if let Some(fp) = &self.fp {
            values.extend([
                fp.fflags.zext(xlen),
                fp.frm.zext(xlen),
                fp.frm.cat(&fp.fflags).zext(xlen),
            ]);
        }
        onehot_mux(&access.sel, &values)
    }

    /// Writes `value` through `access` (call under the condition of a legal write;
    /// writes to `misa` are ignored).
    pub fn write(&self, m: &mut ModuleBuilder, access: &CsrAccess, value: &Value) {
        let masked = |mask: u64| value & &value.konst(Bits::from_u64(value.width(), mask));
        let sel = |i: usize| access.sel.bit(i as u32);
        m.when(&sel(0), |m| {
            m.connect(&self.mstatus_mie, &value.bit(3));
            m.connect(&self.mstatus_mpie, &value.bit(7));
        });
        if let Some(fp) = &self.fp {
            m.when(&sel(0), |m| m.connect(&fp.fs, &value.slice(14, 13)));
            // fflags, frm, fcsr: after the base's 12 groups (RV32).
            let (fflags, frm, fcsr) = (sel(12), sel(13), sel(14));
            m.when(&(&fflags | &fcsr), |m| {
                m.connect(&fp.fflags, &value.slice(4, 0))
            });
            m.when(&frm, |m| m.connect(&fp.frm, &value.slice(2, 0)));
            m.when(&fcsr, |m| m.connect(&fp.frm, &value.slice(7, 5)));
            m.when(&any_of3(&fflags, &frm, &fcsr), |m| {
                m.connect(&fp.fs, &fp.fs.konst(Bits::from_u64(2, 3)))
            });
        }
        m.when(&sel(2), |m| m.connect(&self.mie, &masked(MIE_MASK)));
        m.when(&sel(3), |m| m.connect(&self.mtvec, &masked(!2)));
        m.when(&sel(4), |m| m.connect(&self.mscratch, value));
        m.when(&sel(5), |m| m.connect(&self.mepc, &masked(!3)));
        m.when(&sel(6), |m| m.connect(&self.mcause, value));
        m.when(&sel(7), |m| m.connect(&self.mtval, value));
        if self.xlen() == 64 {
            m.when(&sel(8), |m| m.connect(&self.mcycle, value));
            m.when(&sel(9), |m| m.connect(&self.minstret, value));
            return;
        }
        // RV32: a write sets one half of the 64-bit counter.
        for (counter, low, high) in [(&self.mcycle, 8, 10), (&self.minstret, 9, 11)] {
            let (hi_word, lo_word) = (counter.slice(63, 32), counter.slice(31, 0));
            m.when(&sel(low), |m| m.connect(counter, &hi_word.cat(value)));
            m.when(&sel(high), |m| m.connect(counter, &value.cat(&lo_word)));
        }
    }

    /// Trap entry (call under the trap condition); returns the handler address.
    pub fn trap(&self, m: &mut ModuleBuilder, pc: &Value, cause: &Value, tval: &Value) {
        m.connect(&self.mepc, pc);
        m.connect(&self.mcause, cause);
        m.connect(&self.mtval, tval);
        m.connect(&self.mstatus_mpie, &self.mstatus_mie);
        m.connect(&self.mstatus_mie, &self.mstatus_mie.konst(Bits::zero(1)));
    }

    /// Whether `access` (in the memory stage) is illegal: as decoded, or an F CSR while
    /// `mstatus.FS` is Off.
    pub fn illegal(&self, access: &CsrAccess) -> Value {
        match &self.fp {
            Some(fp) => {
                let fp_csr = access.sel.slice(14, 12).or_r();
                &access.illegal | &(&fp_csr & &!&fp.fs.or_r())
            }
            None => access.illegal.clone(),
        }
    }

    /// F instructions may run: `mstatus.FS` is not Off.
    pub fn fp_enabled(&self) -> Option<Value> {
        self.fp.as_ref().map(|fp| fp.fs.or_r())
    }

    /// An F instruction's completion (under `done`): its `flags` accrue into `fflags`, and
    /// FS becomes Dirty if it raised any or writes an f register (`writes_f`).
    pub fn accrue(&self, m: &mut ModuleBuilder, done: &Value, flags: &Value, writes_f: &Value) {
        let Some(fp) = &self.fp else {
            return;
        };
        m.when(done, |m| {
            m.connect(&fp.fflags, &(&fp.fflags | flags));
            m.when(&(writes_f | &flags.or_r()), |m| {
                m.connect(&fp.fs, &fp.fs.konst(Bits::from_u64(2, 3)))
            });
        });
    }

    /// Exceptions go to the base address, also in vectored mode.
    pub fn trap_vector(&self) -> Value {
        &self.mtvec & &self.mtvec.konst(Bits::from_u64(self.xlen(), !3))
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
