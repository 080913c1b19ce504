//! The F and D extensions: loads and stores, arithmetic, fused multiply-adds,
//! conversions, moves, compares and classification, computed by the shared
//! floating-point library ([`crate::fp`]), with RISC-V's NaN boxing and rounding-mode
//! rules and Spike's model of `mstatus.FS`.
//!
//! - Every F/D instruction is illegal while FS is Off, and D ones on a hart without D.
//! - A single is NaN-boxed in its 64-bit register (upper 32 bits all ones). An operand
//!   read as a single that is not properly boxed, or any operand of a register never
//!   written (see [`Iss::f_written`]), is the canonical NaN. Moves to integer registers
//!   and stores take the register's bits unchanged.
//! - An instruction with a rounding-mode field is illegal when the field is 5 or 6, or 7
//!   (dynamic) with `frm` above 4, including conversions that are always exact.
//! - Writing an f register, or raising flags (accrued into `fflags`), makes FS Dirty; the
//!   commit log shows `fflags` only when flags were raised and `mstatus` only when FS
//!   changed, as Spike's does.
//!
//! A decoder returns `None` (or `Err(None)` for memory instructions, whose traps are
//! `Err(Some(..))`) for an illegal instruction.

use super::commitlog::Commit;
use super::csr::num;
use super::decode;
use super::exec::Event;
use super::{FpExt, Iss, Xlen};
use crate::fp::{self, Arith, FCmp, Fma, Fmt, FpOp, IntKind};

/// The canonical NaNs.
const CANONICAL_S: u64 = 0x7fc0_0000;
const CANONICAL_D: u64 = 0x7ff8_0000_0000_0000;
/// The upper half of a NaN-boxed single.
const BOX: u64 = 0xffff_ffff_0000_0000;

/// Where an operation's result goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dest {
    /// An f register of this format.
    F(Fmt),
    /// An integer register.
    X,
}

impl Iss {
    /// The format a `fmt` field (2 bits) names, if this hart has it.
    fn fmt(&self, field: u32) -> Option<Fmt> {
        match (field & 3, self.isa.fp) {
            (_, FpExt::None) => None,
            (0, _) => Some(Fmt::S),
            (1, FpExt::FD) => Some(Fmt::D),
            _ => None,
        }
    }

    /// f`r` read as a `fmt` operand (unboxed; the canonical NaN when not a value of it).
    fn f_operand(&self, r: usize, fmt: Fmt) -> u64 {
        let v = self.f[r];
        let written = self.f_written >> r & 1 != 0;
        match fmt {
            Fmt::D if written => v,
            Fmt::D => CANONICAL_D,
            _ if written && v & BOX == BOX => v & !BOX,
            _ => CANONICAL_S,
        }
    }

    /// Makes FS Dirty, logging mstatus if that changed it.
    fn fp_dirty<const LOG: bool>(&mut self, c: &mut Commit) {
        if self.csrs.mark_fp_dirty() && LOG {
            c.push_csr(num::MSTATUS, self.csrs.mstatus_value());
        }
    }

    /// Writes a `fmt` result (a single is NaN-boxed) to f`rd`.
    fn set_f<const LOG: bool>(&mut self, c: &mut Commit, rd: usize, fmt: Fmt, v: u64) {
        let v = if fmt == Fmt::D { v } else { v | BOX };
        self.f[rd] = v;
        self.f_written |= 1 << rd;
        self.fp_dirty::<LOG>(c);
        if LOG {
            c.freg = Some((rd as u8, v));
        }
    }

    /// Accrues exception `flags` into fflags.
    fn raise<const LOG: bool>(&mut self, c: &mut Commit, flags: u8) {
        if flags == 0 {
            return;
        }
        self.csrs.fflags |= flags;
        self.fp_dirty::<LOG>(c);
        if LOG {
            c.push_csr(num::FFLAGS, self.csrs.fflags as u64);
        }
    }

    /// The rounding mode of an instruction's `rm` field (funct3), `None` when illegal.
    fn rounding(&self, insn: u32) -> Option<rustc_apfloat::Round> {
        let rm = match decode::funct3(insn) {
            7 => self.csrs.frm as u32,
            rm => rm,
        };
        (rm <= 4).then(|| fp::round_of(rm))
    }

    /// flw/fld: funct3 2 or 3.
    pub(super) fn fp_load<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        rs1: u64,
    ) -> Result<(), Option<Event>> {
        let (fmt, size) = self.fp_access(insn).ok_or(None)?;
        let addr = self.isa.xlen.address(rs1.wrapping_add(decode::imm_i(insn)));
        let v = self.load::<LOG>(c, addr, size)?;
        self.set_f::<LOG>(c, decode::rd(insn), fmt, v);
        Ok(())
    }

    /// fsw/fsd: the register's low 32 or all 64 bits, unchanged.
    pub(super) fn fp_store<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        rs1: u64,
    ) -> Result<(), Option<Event>> {
        let (_, size) = self.fp_access(insn).ok_or(None)?;
        let addr = self.isa.xlen.address(rs1.wrapping_add(decode::imm_s(insn)));
        self.store::<LOG>(c, addr, size, self.f[decode::rs2(insn)])?;
        Ok(())
    }

    /// The format and size in bytes of an FP load or store (funct3 2 or 3).
    fn fp_access(&self, insn: u32) -> Option<(Fmt, usize)> {
        if !self.csrs.fp_enabled() {
            return None;
        }
        match decode::funct3(insn) {
            2 => self.fmt(0).map(|f| (f, 4)),
            3 => self.fmt(1).map(|f| (f, 8)),
            _ => None,
        }
    }

    /// fmadd, fmsub, fnmsub, fnmadd.
    pub(super) fn fp_fma<const LOG: bool>(&mut self, c: &mut Commit, insn: u32) -> Option<()> {
        if !self.csrs.fp_enabled() {
            return None;
        }
        let fmt = self.fmt(insn >> 25)?;
        let round = self.rounding(insn)?;
        let kind = match insn & 0x7f {
            decode::opcode::MADD => Fma::Madd,
            decode::opcode::MSUB => Fma::Msub,
            decode::opcode::NMSUB => Fma::Nmsub,
            _ => Fma::Nmadd,
        };
        let a = self.f_operand(decode::rs1(insn), fmt);
        let b = self.f_operand(decode::rs2(insn), fmt);
        let d = self.f_operand(decode::rs3(insn), fmt);
        let (v, flags) = fp::execute(FpOp::Fma(kind, fmt), a, b, d, round);
        self.set_f::<LOG>(c, decode::rd(insn), fmt, v);
        self.raise::<LOG>(c, flags);
        Some(())
    }

    /// The OP-FP major opcode; `xs1` is the integer register rs1 names.
    pub(super) fn fp_op<const LOG: bool>(
        &mut self,
        c: &mut Commit,
        insn: u32,
        xs1: u64,
    ) -> Option<()> {
        if !self.csrs.fp_enabled() {
            return None;
        }
        let fmt = self.fmt(decode::funct7(insn))?;
        let (rd, r1, r2) = (decode::rd(insn), decode::rs1(insn), decode::rs2(insn));
        let funct5 = decode::funct7(insn) >> 2;
        let f3 = decode::funct3(insn);
        // Bit moves between register files: no rounding, no flags.
        match (funct5, f3, r2) {
            (0x1c, 0, 0) => {
                let bits = self.f[r1] & self.fp_move_width(fmt)?;
                // fmv.x.w sign-extends the single's bits.
                let v = if fmt == Fmt::S {
                    bits as u32 as i32 as u64
                } else {
                    bits
                };
                self.set_x::<LOG>(c, rd, v);
                return Some(());
            }
            (0x1e, 0, 0) => {
                let v = self.fp_move_width(fmt)?;
                self.set_f::<LOG>(c, rd, fmt, xs1 & v);
                return Some(());
            }
            _ => {}
        }
        let (op, dest, rm) = self.decode_op(fmt, funct5, f3, r2)?;
        let round = if rm {
            self.rounding(insn)?
        } else {
            rustc_apfloat::Round::NearestTiesToEven
        };
        let (a, b) = match op {
            FpOp::FromInt(..) => (xs1, 0),
            FpOp::Convert { from, .. } => (self.f_operand(r1, from), 0),
            _ => (self.f_operand(r1, fmt), self.f_operand(r2, fmt)),
        };
        let (v, flags) = fp::execute(op, a, b, 0, round);
        match dest {
            Dest::F(f) => self.set_f::<LOG>(c, rd, f, v),
            Dest::X => self.set_x::<LOG>(c, rd, v),
        }
        self.raise::<LOG>(c, flags);
        Some(())
    }

    /// The bits fmv.x.<fmt>/fmv.<fmt>.x move (all ones for the format's width); `None`
    /// for the 64-bit moves on RV32.
    fn fp_move_width(&self, fmt: Fmt) -> Option<u64> {
        match (fmt, self.isa.xlen) {
            (Fmt::D, Xlen::Rv32) => None,
            (Fmt::D, Xlen::Rv64) => Some(u64::MAX),
            _ => Some(0xffff_ffff),
        }
    }

    /// An OP-FP instruction other than the moves: the operation, where its result goes
    /// and whether it has a rounding-mode field.
    fn decode_op(&self, fmt: Fmt, funct5: u32, f3: u32, r2: usize) -> Option<(FpOp, Dest, bool)> {
        let arith = |k| Some((FpOp::Arith(k, fmt), Dest::F(fmt), true));
        let exact = |k| Some((FpOp::Arith(k, fmt), Dest::F(fmt), false));
        let int = |field: usize| match (field, self.isa.xlen) {
            (0, _) => Some(IntKind::W),
            (1, _) => Some(IntKind::Wu),
            (2, Xlen::Rv64) => Some(IntKind::L),
            (3, Xlen::Rv64) => Some(IntKind::Lu),
            _ => None,
        };
        match (funct5, f3, r2) {
            (0x00, ..) => arith(Arith::Add),
            (0x01, ..) => arith(Arith::Sub),
            (0x02, ..) => arith(Arith::Mul),
            (0x03, ..) => arith(Arith::Div),
            (0x0b, _, 0) => Some((FpOp::Sqrt(fmt), Dest::F(fmt), true)),
            (0x04, 0, _) => exact(Arith::Sgnj),
            (0x04, 1, _) => exact(Arith::Sgnjn),
            (0x04, 2, _) => exact(Arith::Sgnjx),
            (0x05, 0, _) => exact(Arith::Min),
            (0x05, 1, _) => exact(Arith::Max),
            (0x08, _, from @ 0..=1) => {
                let from = self.fmt(from as u32).filter(|&f| f != fmt)?;
                Some((FpOp::Convert { from, to: fmt }, Dest::F(fmt), true))
            }
            (0x14, 2, _) => Some((FpOp::Cmp(FCmp::Eq, fmt), Dest::X, false)),
            (0x14, 1, _) => Some((FpOp::Cmp(FCmp::Lt, fmt), Dest::X, false)),
            (0x14, 0, _) => Some((FpOp::Cmp(FCmp::Le, fmt), Dest::X, false)),
            (0x18, _, i) => Some((FpOp::ToInt(fmt, int(i)?), Dest::X, true)),
            (0x1a, _, i) => Some((FpOp::FromInt(int(i)?, fmt), Dest::F(fmt), true)),
            (0x1c, 1, 0) => Some((FpOp::Class(fmt), Dest::X, false)),
            _ => None,
        }
    }
}
