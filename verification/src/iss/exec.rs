//! The interpreter: fetch, decode and execute one instruction (F and D in `fp.rs`).
//!
//! `step::<LOG>` is monomorphised twice so the commit-log bookkeeping costs nothing when
//! the log is off. Illegal encodings (including every C instruction, and F/D ones on a
//! hart without them) raise an illegal-instruction trap with the instruction bits in
//! mtval, as Spike does. On RV32 the 64-bit-only encodings are illegal, results are
//! sign-extended from 32 bits when written, and addresses are taken modulo 2^32.

use super::commitlog::Commit;
use super::csr::{cause, num, CsrFault};
use super::decode::{self, opcode};
use super::rocc::{self, RoccError};
use super::{Iss, Xlen};

/// Why an instruction did not retire: an exception with its mcause and mtval, or an
/// accelerator model that cannot go on (which stops the simulation; boxed to keep the
/// hot path's result small).
pub enum Event {
    Trap {
        cause: u64,
        tval: u64,
    },
    Abort(Box<RoccError>),
    /// A SIMT `launch` (`simt.rs`): its threads run before it retires.
    Launch(super::simt::Launch),
}

#[inline(always)]
fn trap(cause: u64, tval: u64) -> Event {
    Event::Trap { cause, tval }
}

impl Iss {
    /// Writes `v` to x`rd` (on RV32, its low 32 bits sign-extended).
    #[inline(always)]
    pub(super) fn set_x<const LOG: bool>(&mut self, c: &mut Commit, rd: usize, v: u64) {
        if rd != 0 {
            let v = self.isa.xlen.sext(v);
            self.x[rd] = v;
            if LOG {
                c.xreg = Some((rd as u8, v));
            }
        }
    }

    #[inline(always)]
    pub(super) fn load<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        addr: u64,
        size: usize,
    ) -> Result<u64, Event> {
        if addr & (size as u64 - 1) != 0 {
            return Err(trap(cause::LOAD_MISALIGNED, addr));
        }
        let v = self
            .mem
            .read(addr, size)
            .ok_or(trap(cause::LOAD_ACCESS_FAULT, addr))?;
        if LOG {
            c.load = Some(addr);
        }
        Ok(v)
    }

    #[inline(always)]
    pub(super) fn store<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        addr: u64,
        size: usize,
        v: u64,
    ) -> Result<(), Event> {
        if addr & (size as u64 - 1) != 0 {
            return Err(trap(cause::STORE_MISALIGNED, addr));
        }
        if !self.mem.write(addr, size, v) {
            return Err(trap(cause::STORE_ACCESS_FAULT, addr));
        }
        if LOG {
            let mask = if size == 8 {
                u64::MAX
            } else {
                (1u64 << (size * 8)) - 1
            };
            c.store = Some((addr, v & mask, size as u8));
        }
        Ok(())
    }

    /// Executes the instruction at `pc`. On success the instruction has retired and `pc`
    /// points at the next one; on a trap nothing architectural has changed.
    #[inline(always)]
    pub(super) fn step<const LOG: bool>(&mut self, c: &mut Commit) -> Result<(), Event> {
        let pc = self.pc;
        let insn = match self.mem.read_bytes::<4>(pc) {
            Some(b) => u32::from_le_bytes(b),
            None => return Err(trap(cause::INSN_ACCESS_FAULT, pc)),
        };
        if LOG {
            *c = Commit {
                pc,
                insn,
                ..Commit::default()
            };
        }
        let illegal = || {
            // Without C, Spike still sizes an instruction by its low bits: a 16-bit
            // encoding's mtval holds only those 16 bits.
            let bits = if insn & 3 == 3 { insn } else { insn & 0xffff };
            trap(cause::ILLEGAL_INSN, bits as u64)
        };
        let rd = decode::rd(insn);
        let rs1 = self.x[decode::rs1(insn)];
        let rs2 = self.x[decode::rs2(insn)];
        let f3 = decode::funct3(insn);
        let xlen = self.isa.xlen;
        let rv32 = xlen == Xlen::Rv32;
        let mut next = xlen.address(pc.wrapping_add(4));
        match insn & 0x7f {
            opcode::LUI => self.set_x::<LOG>(c, rd, decode::imm_u(insn)),
            opcode::AUIPC => self.set_x::<LOG>(c, rd, pc.wrapping_add(decode::imm_u(insn))),
            opcode::JAL => {
                let target = xlen.address(pc.wrapping_add(decode::imm_j(insn)));
                if target & 3 != 0 {
                    return Err(trap(cause::INSN_MISALIGNED, target));
                }
                self.set_x::<LOG>(c, rd, next);
                next = target;
            }
            opcode::JALR => {
                if f3 != 0 {
                    return Err(illegal());
                }
                let target = xlen.address(rs1.wrapping_add(decode::imm_i(insn)) & !1);
                if target & 3 != 0 {
                    return Err(trap(cause::INSN_MISALIGNED, target));
                }
                self.set_x::<LOG>(c, rd, next);
                next = target;
            }
            opcode::BRANCH => {
                let Some(taken) = decode::branch_taken(f3, rs1, rs2) else {
                    return Err(illegal());
                };
                if taken {
                    let target = xlen.address(pc.wrapping_add(decode::imm_b(insn)));
                    if target & 3 != 0 {
                        return Err(trap(cause::INSN_MISALIGNED, target));
                    }
                    next = target;
                }
            }
            opcode::LOAD => {
                let addr = xlen.address(rs1.wrapping_add(decode::imm_i(insn)));
                let v = match f3 {
                    0 => self.load::<LOG>(c, addr, 1)? as i8 as i64 as u64,
                    1 => self.load::<LOG>(c, addr, 2)? as i16 as i64 as u64,
                    2 => self.load::<LOG>(c, addr, 4)? as i32 as i64 as u64,
                    3 if !rv32 => self.load::<LOG>(c, addr, 8)?,
                    4 => self.load::<LOG>(c, addr, 1)?,
                    5 => self.load::<LOG>(c, addr, 2)?,
                    6 if !rv32 => self.load::<LOG>(c, addr, 4)?,
                    _ => return Err(illegal()),
                };
                self.set_x::<LOG>(c, rd, v);
            }
            opcode::STORE => {
                if f3 > 3 || (rv32 && f3 == 3) {
                    return Err(illegal());
                }
                let addr = xlen.address(rs1.wrapping_add(decode::imm_s(insn)));
                self.store::<LOG>(c, addr, 1 << f3, rs2)?;
            }
            opcode::OP_IMM => {
                let v = op_imm(insn, rs1, xlen).ok_or_else(illegal)?;
                self.set_x::<LOG>(c, rd, v);
            }
            opcode::OP_IMM_32 | opcode::OP_32 if rv32 => return Err(illegal()),
            opcode::OP_IMM_32 => {
                let v = op_imm_32(insn, rs1).ok_or_else(illegal)?;
                self.set_x::<LOG>(c, rd, v as i64 as u64);
            }
            opcode::OP => {
                let v = op(insn, rs1, rs2, xlen).ok_or_else(illegal)?;
                self.set_x::<LOG>(c, rd, v);
            }
            opcode::OP_32 => {
                let v = op_32(insn, rs1, rs2).ok_or_else(illegal)?;
                self.set_x::<LOG>(c, rd, v as i64 as u64);
            }
            opcode::MISC_MEM => {
                // fence and fence.i: memory is coherent and there is no instruction
                // cache, so both are no-ops, except that a fence makes an accelerator's
                // put-off work visible.
                if f3 > 1 {
                    return Err(illegal());
                }
                if let (0, Some(acc)) = (f3, self.rocc.as_mut()) {
                    acc.fence(&mut self.mem).map_err(|e| rocc_event(e, insn))?;
                }
            }
            opcode::AMO => self
                .amo::<LOG>(c, insn, rd, xlen.address(rs1), rs2)
                .map_err(|e| e.unwrap_or_else(illegal))?,
            opcode::LOAD_FP => self
                .fp_load::<LOG>(c, insn, rs1)
                .map_err(|e| e.unwrap_or_else(illegal))?,
            opcode::STORE_FP => self
                .fp_store::<LOG>(c, insn, rs1)
                .map_err(|e| e.unwrap_or_else(illegal))?,
            opcode::OP_FP => self.fp_op::<LOG>(c, insn, rs1).ok_or_else(illegal)?,
            opcode::MADD | opcode::MSUB | opcode::NMSUB | opcode::NMADD => {
                self.fp_fma::<LOG>(c, insn).ok_or_else(illegal)?
            }
            opcode::SYSTEM => {
                if let Some(target) = self
                    .system::<LOG>(c, insn, rd, rs1)
                    .map_err(|e| e.unwrap_or_else(illegal))?
                {
                    next = target;
                }
            }
            opcode::CUSTOM0 | opcode::CUSTOM1 | opcode::CUSTOM2 | opcode::CUSTOM3 => self
                .custom::<LOG>(c, insn, rd, rs1, rs2)
                .map_err(|e| e.unwrap_or_else(illegal))?,
            _ => return Err(illegal()),
        }
        self.pc = next;
        Ok(())
    }

    /// SYSTEM: ecall, ebreak, mret (returning its target), wfi and the Zicsr
    /// instructions. `Err(None)` is an illegal instruction: in a SIMT kernel, all but
    /// ecall and ebreak are (kernels touch no CSR, mret's mstatus included).
    #[inline(always)]
    fn system<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        rd: usize,
        rs1: u64,
    ) -> Result<Option<u64>, Option<Event>> {
        if decode::funct3(insn) != 0 {
            self.csr_op::<LOG>(c, insn, rd, rs1).map_err(|_| None)?;
            return Ok(None);
        }
        if !self.csr_allowed() && !matches!(insn, 0x0000_0073 | 0x0010_0073) {
            return Err(None);
        }
        match insn {
            0x0000_0073 => Err(Some(trap(cause::ECALL_M, 0))),
            0x0010_0073 => Err(Some(trap(cause::BREAKPOINT, self.pc))),
            0x3020_0073 => {
                let next = self.csrs.mret();
                if LOG {
                    c.push_csr(num::MSTATUS, self.csrs.mstatus_value());
                    // Spike's RV32 mstatus is two halves, both logged.
                    if self.isa.xlen == Xlen::Rv32 {
                        c.push_csr(num::MSTATUSH, 0);
                    }
                }
                Ok(Some(next))
            }
            // wfi: with no interrupt sources there is nothing to wait for, and the spec
            // allows a no-op.
            0x1050_0073 => Ok(None),
            _ => Err(None),
        }
    }

    /// A custom-0..3 instruction: a RoCC command to the accelerator. `Err(None)` is an
    /// illegal instruction (no accelerator).
    #[inline(always)]
    fn custom<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        rd: usize,
        rs1: u64,
        rs2: u64,
    ) -> Result<(), Option<Event>> {
        if self.simt.is_some() && super::simt::is_custom0(insn) {
            return self.simt_op::<LOG>(c, insn, rs1, rs2);
        }
        let mut cmd = rocc::decode(insn);
        if cmd.xs1 {
            cmd.rs1_value = rs1;
        }
        if cmd.xs2 {
            cmd.rs2_value = rs2;
        }
        let acc = self.rocc.as_mut().ok_or(None)?;
        match acc.execute(&cmd, &mut self.mem) {
            Ok(v) if cmd.xd => self.set_x::<LOG>(c, rd, v),
            Ok(_) => {}
            Err(e) => return Err(Some(rocc_event(e, insn))),
        }
        Ok(())
    }

    /// Zicsr: csrrw/csrrs/csrrc and their immediate forms. A write happens for csrrw*
    /// always and for csrrs*/csrrc* only when the source is not x0/zero, as the spec says
    /// (so `csrr` of a read-only CSR is legal).
    fn csr_op<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        rd: usize,
        rs1: u64,
    ) -> Result<(), CsrFault> {
        let csr = decode::csr(insn);
        if !self.csr_allowed() {
            return Err(CsrFault::Missing);
        }
        let f3 = decode::funct3(insn);
        let src_field = decode::rs1(insn) as u64;
        let src = if f3 & 4 != 0 { src_field } else { rs1 };
        let old = self.csrs.read(csr, self.retired, self.time)?;
        let new = match f3 & 3 {
            1 => Some(src),
            2 if src_field != 0 => Some(old | src),
            3 if src_field != 0 => Some(old & !src),
            2 | 3 => None,
            _ => return Err(CsrFault::Missing),
        };
        let Some(v) = new else {
            self.set_x::<LOG>(c, rd, old);
            return Ok(());
        };
        self.csrs.write(csr, v, self.retired)?;
        self.set_x::<LOG>(c, rd, old);
        let fp_csr = matches!(csr, num::FFLAGS | num::FRM | num::FCSR);
        if fp_csr && self.csrs.mark_fp_dirty() && LOG {
            c.push_csr(num::MSTATUS, self.csrs.mstatus_value());
        }
        if LOG {
            // The log shows the value as read back after the write (WARL fields
            // legalised); counters read back what the next instruction will see. Spike
            // logs a write of fcsr as writes of its two fields.
            let logged: &[u16] = if csr == num::FCSR {
                &[num::FFLAGS, num::FRM]
            } else {
                &[csr]
            };
            for &n in logged {
                let back = self.csrs.read(n, self.retired + 1, self.time)?;
                c.push_csr(n, back);
            }
        }
        Ok(())
    }

    /// The A extension. `Err(None)` means an illegal encoding.
    #[inline(always)]
    fn amo<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        rd: usize,
        addr: u64,
        rs2: u64,
    ) -> Result<(), Option<Event>> {
        let size = match decode::funct3(insn) {
            2 => 4,
            3 if self.isa.xlen == Xlen::Rv64 => 8,
            _ => return Err(None),
        };
        let sext = |v: u64| if size == 4 { v as i32 as i64 as u64 } else { v };
        let funct5 = insn >> 27;
        match funct5 {
            // lr
            0x02 => {
                if decode::rs2(insn) != 0 {
                    return Err(None);
                }
                let v = self.load::<LOG>(c, addr, size)?;
                self.reservation = Some(addr);
                self.set_x::<LOG>(c, rd, sext(v));
            }
            // sc: succeeds only on the address reserved by the last lr; always clears it.
            0x03 => {
                if addr & (size as u64 - 1) != 0 {
                    return Err(Some(trap(cause::STORE_MISALIGNED, addr)));
                }
                if self.mem.read(addr, size).is_none() {
                    return Err(Some(trap(cause::STORE_ACCESS_FAULT, addr)));
                }
                let ok = self.reservation == Some(addr);
                self.reservation = None;
                if ok {
                    self.store::<LOG>(c, addr, size, rs2)?;
                }
                self.set_x::<LOG>(c, rd, (!ok) as u64);
            }
            0x00 | 0x01 | 0x04 | 0x08 | 0x0c | 0x10 | 0x14 | 0x18 | 0x1c => {
                // AMOs fault as stores, whichever half would fail.
                if addr & (size as u64 - 1) != 0 {
                    return Err(Some(trap(cause::STORE_MISALIGNED, addr)));
                }
                let Some(old) = self.mem.read(addr, size) else {
                    return Err(Some(trap(cause::STORE_ACCESS_FAULT, addr)));
                };
                let (a, b) = (sext(old), sext(rs2));
                let new = match funct5 {
                    0x00 => a.wrapping_add(b),
                    0x01 => b,
                    0x04 => a ^ b,
                    0x08 => a | b,
                    0x0c => a & b,
                    0x10 => (a as i64).min(b as i64) as u64,
                    0x14 => (a as i64).max(b as i64) as u64,
                    0x18 => a.min(b),
                    _ => a.max(b),
                };
                if LOG {
                    c.load = Some(addr);
                }
                self.store::<LOG>(c, addr, size, new)?;
                self.set_x::<LOG>(c, rd, a);
            }
            _ => return Err(None),
        }
        Ok(())
    }
}

/// The trap an accelerator's error raises on custom instruction `insn` (the causes and
/// values `RoccError` documents).
pub(super) fn rocc_event(e: RoccError, insn: u32) -> Event {
    let (cause, tval) = match e {
        RoccError::Unsupported { .. } | RoccError::Illegal { .. } => {
            (cause::ILLEGAL_INSN, insn as u64)
        }
        RoccError::IllegalFetched { bits, .. } => (cause::ILLEGAL_INSN, bits),
        RoccError::FetchMisaligned { addr } => (cause::INSN_MISALIGNED, addr),
        RoccError::FetchAccessFault { addr } => (cause::INSN_ACCESS_FAULT, addr),
        RoccError::LoadMisaligned { addr } => (cause::LOAD_MISALIGNED, addr),
        RoccError::LoadAccessFault { addr } => (cause::LOAD_ACCESS_FAULT, addr),
        RoccError::StoreMisaligned { addr } => (cause::STORE_MISALIGNED, addr),
        RoccError::StoreAccessFault { addr } => (cause::STORE_ACCESS_FAULT, addr),
        RoccError::Aborted { .. } => return Event::Abort(Box::new(e)),
    };
    trap(cause, tval)
}

/// OP-IMM: addi, slti, sltiu, xori, ori, andi and the shifts; `None` if illegal.
#[inline(always)]
fn op_imm(insn: u32, rs1: u64, xlen: Xlen) -> Option<u64> {
    let imm = decode::imm_i(insn);
    let shamt = (insn >> 20) & 0x3f;
    // RV32's shift amounts have five bits: bit 25 belongs to funct7.
    let shift_ok = |f6: u32| insn >> 26 == f6 && !(xlen == Xlen::Rv32 && shamt >= 32);
    Some(match decode::funct3(insn) {
        0 => rs1.wrapping_add(imm),
        2 => ((rs1 as i64) < (imm as i64)) as u64,
        3 => (rs1 < imm) as u64,
        4 => rs1 ^ imm,
        6 => rs1 | imm,
        7 => rs1 & imm,
        1 if shift_ok(0) => rs1 << shamt,
        5 if shift_ok(0) => xlen.address(rs1) >> shamt,
        5 if shift_ok(0x10) => ((rs1 as i64) >> shamt) as u64,
        _ => return None,
    })
}

/// OP-IMM-32 (RV64): addiw and the word shifts; `None` if illegal.
#[inline(always)]
fn op_imm_32(insn: u32, rs1: u64) -> Option<i32> {
    let shamt = (insn >> 20) & 0x1f;
    let a = rs1 as u32;
    Some(match (decode::funct3(insn), decode::funct7(insn)) {
        (0, _) => a.wrapping_add(decode::imm_i(insn) as u32) as i32,
        (1, 0) => (a << shamt) as i32,
        (5, 0) => (a >> shamt) as i32,
        (5, 0x20) => (a as i32) >> shamt,
        _ => return None,
    })
}

/// OP: the register-register ALU operations and M; `None` if illegal.
#[inline(always)]
fn op(insn: u32, rs1: u64, rs2: u64, xlen: Xlen) -> Option<u64> {
    let shamt = rs2 & (xlen.bits() as u64 - 1);
    Some(match (decode::funct7(insn), decode::funct3(insn)) {
        (0, 0) => rs1.wrapping_add(rs2),
        (0x20, 0) => rs1.wrapping_sub(rs2),
        (0, 1) => rs1 << shamt,
        (0, 2) => ((rs1 as i64) < (rs2 as i64)) as u64,
        (0, 3) => (rs1 < rs2) as u64,
        (0, 4) => rs1 ^ rs2,
        (0, 5) => xlen.address(rs1) >> shamt,
        (0x20, 5) => ((rs1 as i64) >> shamt) as u64,
        (0, 6) => rs1 | rs2,
        (0, 7) => rs1 & rs2,
        (1, f3) if xlen == Xlen::Rv32 => mul_div_32(f3, rs1 as u32, rs2 as u32) as i32 as u64,
        (1, f3) => mul_div(f3, rs1, rs2),
        _ => return None,
    })
}

/// OP-32 (RV64): the word ALU operations and M's word forms; `None` if illegal.
#[inline(always)]
fn op_32(insn: u32, rs1: u64, rs2: u64) -> Option<i32> {
    let (a, b) = (rs1 as u32, rs2 as u32);
    Some(match (decode::funct7(insn), decode::funct3(insn)) {
        (0, 0) => a.wrapping_add(b) as i32,
        (0x20, 0) => a.wrapping_sub(b) as i32,
        (0, 1) => (a << (b & 31)) as i32,
        (0, 5) => (a >> (b & 31)) as i32,
        (0x20, 5) => (a as i32) >> (b & 31),
        (1, 0) => a.wrapping_mul(b) as i32,
        (1, 4) => div32(a as i32, b as i32),
        (1, 5) => divu32(a, b) as i32,
        (1, 6) => rem32(a as i32, b as i32),
        (1, 7) => remu32(a, b) as i32,
        _ => return None,
    })
}

/// RV64M register-register operations (funct7 = 1 on OP). Division by zero and
/// overflow give the results the spec defines instead of trapping.
#[inline(always)]
fn mul_div(f3: u32, a: u64, b: u64) -> u64 {
    let (sa, sb) = (a as i64, b as i64);
    match f3 {
        0 => a.wrapping_mul(b),
        1 => ((sa as i128 * sb as i128) >> 64) as u64,
        2 => ((sa as i128 * b as u128 as i128) >> 64) as u64,
        3 => ((a as u128 * b as u128) >> 64) as u64,
        4 => {
            if b == 0 {
                u64::MAX
            } else {
                sa.wrapping_div(sb) as u64
            }
        }
        5 => a.checked_div(b).unwrap_or(u64::MAX),
        6 => {
            if b == 0 {
                a
            } else {
                sa.wrapping_rem(sb) as u64
            }
        }
        _ => a.checked_rem(b).unwrap_or(a),
    }
}

/// RV32M register-register operations: as [`mul_div`] at 32 bits.
#[inline(always)]
fn mul_div_32(f3: u32, a: u32, b: u32) -> u32 {
    let (sa, sb) = (a as i32 as i64, b as i32 as i64);
    match f3 {
        0 => a.wrapping_mul(b),
        1 => ((sa * sb) >> 32) as u32,
        2 => ((sa * b as i64) >> 32) as u32,
        3 => ((a as u64 * b as u64) >> 32) as u32,
        4 => div32(a as i32, b as i32) as u32,
        5 => divu32(a, b),
        6 => rem32(a as i32, b as i32) as u32,
        _ => remu32(a, b),
    }
}

#[inline(always)]
fn div32(a: i32, b: i32) -> i32 {
    if b == 0 {
        -1
    } else {
        a.wrapping_div(b)
    }
}

#[inline(always)]
fn divu32(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

#[inline(always)]
fn rem32(a: i32, b: i32) -> i32 {
    if b == 0 {
        a
    } else {
        a.wrapping_rem(b)
    }
}

#[inline(always)]
fn remu32(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(a)
}
