//! RV32IMAF decoding for the kernel compiler: each instruction word of a kernel function
//! as the operation the dataflow graph needs (seed 004 section 3.1: the compiler starts
//! from the kernel's code; ours is the RISC-V ELF the other machines run). Integer ALU,
//! M, F and immediate forms all become [`Insn::Compute`] with an operation of
//! [`CompOp`]; `lui` and `auipc` are moves of a constant.

use std::fmt;

/// An architectural register: x0-x31 are 0-31, f0-f31 are 32-63.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Reg(pub u8);

impl Reg {
    pub const ZERO: Reg = Reg(0);
    pub const RA: Reg = Reg(1);
    pub const SP: Reg = Reg(2);
    pub const GP: Reg = Reg(3);
    pub const TP: Reg = Reg(4);

    pub fn x(n: u32) -> Reg {
        Reg(n as u8 & 31)
    }

    pub fn f(n: u32) -> Reg {
        Reg(32 + (n as u8 & 31))
    }

    /// The register's bit in a 64-bit register set.
    pub fn bit(self) -> u64 {
        1 << self.0
    }

    pub fn is_float(self) -> bool {
        self.0 >= 32
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        const X: [&str; 32] = [
            "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3",
            "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11",
            "t3", "t4", "t5", "t6",
        ];
        if self.is_float() {
            write!(f, "f{}", self.0 - 32)
        } else {
            f.write_str(X[self.0 as usize])
        }
    }
}

/// A static rounding mode (RISC-V `rm` 0-4). A kernel cannot write `frm` and starts with
/// it 0, so the dynamic mode is round to nearest even.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rm(pub u8);

/// A compute or special-compute operation: the result from up to three operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompOp {
    /// The first operand (moves, `lui`, `auipc`, `fmv.x.w`, `fmv.w.x`).
    Mv,
    Add,
    Sub,
    Sll,
    Slt,
    Sltu,
    Xor,
    Srl,
    Sra,
    Or,
    And,
    Mul,
    Mulh,
    Mulhsu,
    Mulhu,
    Div,
    Divu,
    Rem,
    Remu,
    FAdd(Rm),
    FSub(Rm),
    FMul(Rm),
    FDiv(Rm),
    FSqrt(Rm),
    FMin,
    FMax,
    FSgnj,
    FSgnjn,
    FSgnjx,
    FMadd(Rm),
    FMsub(Rm),
    FNmsub(Rm),
    FNmadd(Rm),
    /// fcvt.w.s
    FCvtWS(Rm),
    /// fcvt.wu.s
    FCvtWuS(Rm),
    /// fcvt.s.w
    FCvtSW(Rm),
    /// fcvt.s.wu
    FCvtSWu(Rm),
    FEq,
    FLt,
    FLe,
    FClass,
}

impl CompOp {
    /// Whether the operation is one of the non-pipelined ones the SCUs run (seed 004
    /// section 3.5: divide and square root).
    pub fn special(self) -> bool {
        matches!(
            self,
            CompOp::Div
                | CompOp::Divu
                | CompOp::Rem
                | CompOp::Remu
                | CompOp::FDiv(_)
                | CompOp::FSqrt(_)
        )
    }

    /// The integer result of the operation on constants, if it is an integer operation
    /// the compiler folds (everything but the divides and floating point).
    pub fn fold(self, a: u32, b: u32) -> Option<u32> {
        let sh = b & 31;
        Some(match self {
            CompOp::Mv => a,
            CompOp::Add => a.wrapping_add(b),
            CompOp::Sub => a.wrapping_sub(b),
            CompOp::Sll => a << sh,
            CompOp::Slt => ((a as i32) < (b as i32)) as u32,
            CompOp::Sltu => (a < b) as u32,
            CompOp::Xor => a ^ b,
            CompOp::Srl => a >> sh,
            CompOp::Sra => ((a as i32) >> sh) as u32,
            CompOp::Or => a | b,
            CompOp::And => a & b,
            CompOp::Mul => a.wrapping_mul(b),
            _ => return None,
        })
    }
}

/// The width and extension of a load or store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    B,
    H,
    W,
    Bu,
    Hu,
}

impl Width {
    pub fn bytes(self) -> u32 {
        match self {
            Width::B | Width::Bu => 1,
            Width::H | Width::Hu => 2,
            Width::W => 4,
        }
    }
}

/// A word AMO's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AmoOp {
    Swap,
    Add,
    Xor,
    And,
    Or,
    Min,
    Max,
    Minu,
    Maxu,
}

/// A conditional branch's comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cond {
    Eq,
    Ne,
    Lt,
    Ge,
    Ltu,
    Geu,
}

impl Cond {
    pub fn holds(self, a: u32, b: u32) -> bool {
        match self {
            Cond::Eq => a == b,
            Cond::Ne => a != b,
            Cond::Lt => (a as i32) < (b as i32),
            Cond::Ge => (a as i32) >= (b as i32),
            Cond::Ltu => a < b,
            Cond::Geu => a >= b,
        }
    }
}

/// An operand of a decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    Reg(Reg),
    Imm(u32),
}

/// One decoded instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Insn {
    Compute {
        op: CompOp,
        rd: Reg,
        srcs: Vec<Src>,
    },
    Load {
        width: Width,
        rd: Reg,
        base: Reg,
        offset: i32,
    },
    Store {
        width: Width,
        src: Reg,
        base: Reg,
        offset: i32,
    },
    Amo {
        op: AmoOp,
        rd: Reg,
        addr: Reg,
        src: Reg,
    },
    /// The SIMT `tidx rd`.
    Tidx {
        rd: Reg,
    },
    Branch {
        cond: Cond,
        rs1: Reg,
        rs2: Reg,
        target: u32,
    },
    Jal {
        rd: Reg,
        target: u32,
    },
    Jalr {
        rd: Reg,
        rs1: Reg,
        offset: i32,
    },
    /// `fence` and `fence.i`: a thread's own accesses are ordered anyway.
    Fence,
    /// An instruction the fabric cannot run, with what it is.
    Unsupported(&'static str),
}

impl Insn {
    /// Whether the instruction ends a basic block.
    pub fn ends_block(&self) -> bool {
        matches!(
            self,
            Insn::Branch { .. } | Insn::Jal { .. } | Insn::Jalr { .. }
        )
    }

    /// The registers it reads.
    pub fn uses(&self) -> Vec<Reg> {
        match self {
            Insn::Compute { srcs, .. } => srcs
                .iter()
                .filter_map(|s| match s {
                    Src::Reg(r) => Some(*r),
                    Src::Imm(_) => None,
                })
                .collect(),
            Insn::Load { base, .. } => vec![*base],
            Insn::Store { src, base, .. } => vec![*base, *src],
            Insn::Amo { addr, src, .. } => vec![*addr, *src],
            Insn::Branch { rs1, rs2, .. } => vec![*rs1, *rs2],
            Insn::Jalr { rs1, .. } => vec![*rs1],
            Insn::Tidx { .. } | Insn::Jal { .. } | Insn::Fence | Insn::Unsupported(_) => {
                vec![]
            }
        }
    }

    /// The register it writes, if any (never x0).
    pub fn def(&self) -> Option<Reg> {
        let rd = match self {
            Insn::Compute { rd, .. }
            | Insn::Load { rd, .. }
            | Insn::Amo { rd, .. }
            | Insn::Tidx { rd }
            | Insn::Jal { rd, .. }
            | Insn::Jalr { rd, .. } => *rd,
            _ => return None,
        };
        (rd != Reg::ZERO).then_some(rd)
    }
}

fn bits(i: u32, hi: u32, lo: u32) -> u32 {
    (i >> lo) & ((1 << (hi - lo + 1)) - 1)
}

fn imm_i(i: u32) -> i32 {
    (i as i32) >> 20
}

fn imm_s(i: u32) -> i32 {
    (((i as i32) >> 25) << 5) | bits(i, 11, 7) as i32
}

fn imm_b(i: u32) -> i32 {
    let v = (bits(i, 31, 31) << 12)
        | (bits(i, 7, 7) << 11)
        | (bits(i, 30, 25) << 5)
        | (bits(i, 11, 8) << 1);
    ((v << 19) as i32) >> 19
}

fn imm_j(i: u32) -> i32 {
    let v = (bits(i, 31, 31) << 20)
        | (bits(i, 19, 12) << 12)
        | (bits(i, 20, 20) << 11)
        | (bits(i, 30, 21) << 1);
    ((v << 11) as i32) >> 11
}

/// The rounding mode of an F instruction's `rm` field (dynamic is round to nearest even).
fn rm(i: u32) -> Option<Rm> {
    match bits(i, 14, 12) {
        r @ 0..=4 => Some(Rm(r as u8)),
        7 => Some(Rm(0)),
        _ => None,
    }
}

const ILLEGAL: Insn = Insn::Unsupported("an illegal or reserved encoding");

/// Decodes the instruction `i` at `pc`.
pub fn decode(i: u32, pc: u32) -> Insn {
    if i & 3 != 3 {
        return Insn::Unsupported("a compressed instruction (kernels are RV32IMAF, no C)");
    }
    let (rd, rs1, rs2) = (
        Reg::x(bits(i, 11, 7)),
        Reg::x(bits(i, 19, 15)),
        Reg::x(bits(i, 24, 20)),
    );
    let f3 = bits(i, 14, 12);
    let f7 = bits(i, 31, 25);
    match i & 0x7f {
        0x37 => compute(CompOp::Mv, rd, vec![Src::Imm(i & 0xffff_f000)]),
        0x17 => compute(
            CompOp::Mv,
            rd,
            vec![Src::Imm(pc.wrapping_add(i & 0xffff_f000))],
        ),
        0x6f => Insn::Jal {
            rd,
            target: pc.wrapping_add(imm_j(i) as u32),
        },
        0x67 if f3 == 0 => Insn::Jalr {
            rd,
            rs1,
            offset: imm_i(i),
        },
        0x63 => {
            let cond = match f3 {
                0 => Cond::Eq,
                1 => Cond::Ne,
                4 => Cond::Lt,
                5 => Cond::Ge,
                6 => Cond::Ltu,
                7 => Cond::Geu,
                _ => return ILLEGAL,
            };
            Insn::Branch {
                cond,
                rs1,
                rs2,
                target: pc.wrapping_add(imm_b(i) as u32),
            }
        }
        0x03 => {
            let width = match f3 {
                0 => Width::B,
                1 => Width::H,
                2 => Width::W,
                4 => Width::Bu,
                5 => Width::Hu,
                _ => return ILLEGAL,
            };
            Insn::Load {
                width,
                rd,
                base: rs1,
                offset: imm_i(i),
            }
        }
        0x23 => {
            let width = match f3 {
                0 => Width::B,
                1 => Width::H,
                2 => Width::W,
                _ => return ILLEGAL,
            };
            Insn::Store {
                width,
                src: rs2,
                base: rs1,
                offset: imm_s(i),
            }
        }
        0x07 if f3 == 2 => Insn::Load {
            width: Width::W,
            rd: Reg::f(bits(i, 11, 7)),
            base: rs1,
            offset: imm_i(i),
        },
        0x27 if f3 == 2 => Insn::Store {
            width: Width::W,
            src: Reg::f(bits(i, 24, 20)),
            base: rs1,
            offset: imm_s(i),
        },
        0x13 => op_imm(i, rd, rs1, f3, f7),
        0x33 => op(rd, rs1, rs2, f3, f7),
        0x0f => Insn::Fence,
        0x73 => Insn::Unsupported("a system instruction (CSR, ecall, ebreak)"),
        0x2f if f3 == 2 => amo(i, rd, rs1, rs2),
        0x43 | 0x47 | 0x4b | 0x4f => fma(i),
        0x53 => op_fp(i, f3, f7),
        0x0b if f7 == 0 && f3 == 4 && rs1 == Reg::ZERO && rs2 == Reg::ZERO => Insn::Tidx { rd },
        0x0b => Insn::Unsupported("a SIMT host instruction (launch, stack, globals)"),
        _ => ILLEGAL,
    }
}

fn compute(op: CompOp, rd: Reg, srcs: Vec<Src>) -> Insn {
    Insn::Compute { op, rd, srcs }
}

fn op_imm(i: u32, rd: Reg, rs1: Reg, f3: u32, f7: u32) -> Insn {
    let imm = imm_i(i) as u32;
    let shamt = bits(i, 24, 20);
    let op = match (f3, f7) {
        (0, _) => CompOp::Add,
        (2, _) => CompOp::Slt,
        (3, _) => CompOp::Sltu,
        (4, _) => CompOp::Xor,
        (6, _) => CompOp::Or,
        (7, _) => CompOp::And,
        (1, 0) => return compute(CompOp::Sll, rd, vec![Src::Reg(rs1), Src::Imm(shamt)]),
        (5, 0) => return compute(CompOp::Srl, rd, vec![Src::Reg(rs1), Src::Imm(shamt)]),
        (5, 0x20) => return compute(CompOp::Sra, rd, vec![Src::Reg(rs1), Src::Imm(shamt)]),
        _ => return ILLEGAL,
    };
    compute(op, rd, vec![Src::Reg(rs1), Src::Imm(imm)])
}

fn op(rd: Reg, rs1: Reg, rs2: Reg, f3: u32, f7: u32) -> Insn {
    use CompOp::*;
    let op = match (f7, f3) {
        (0, 0) => Add,
        (0x20, 0) => Sub,
        (0, 1) => Sll,
        (0, 2) => Slt,
        (0, 3) => Sltu,
        (0, 4) => Xor,
        (0, 5) => Srl,
        (0x20, 5) => Sra,
        (0, 6) => Or,
        (0, 7) => And,
        (1, f3) => [Mul, Mulh, Mulhsu, Mulhu, Div, Divu, Rem, Remu][f3 as usize],
        _ => return ILLEGAL,
    };
    compute(op, rd, vec![Src::Reg(rs1), Src::Reg(rs2)])
}

fn amo(i: u32, rd: Reg, rs1: Reg, rs2: Reg) -> Insn {
    let op = match bits(i, 31, 27) {
        0x00 => AmoOp::Add,
        0x01 => AmoOp::Swap,
        0x04 => AmoOp::Xor,
        0x08 => AmoOp::Or,
        0x0c => AmoOp::And,
        0x10 => AmoOp::Min,
        0x14 => AmoOp::Max,
        0x18 => AmoOp::Minu,
        0x1c => AmoOp::Maxu,
        0x02 | 0x03 => return Insn::Unsupported("LR/SC (reservations across fabric threads)"),
        _ => return ILLEGAL,
    };
    Insn::Amo {
        op,
        rd,
        addr: rs1,
        src: rs2,
    }
}

fn fma(i: u32) -> Insn {
    let Some(rm) = rm(i) else { return ILLEGAL };
    if bits(i, 26, 25) != 0 {
        return Insn::Unsupported("a floating-point format other than single");
    }
    let op = match i & 0x7f {
        0x43 => CompOp::FMadd(rm),
        0x47 => CompOp::FMsub(rm),
        0x4b => CompOp::FNmsub(rm),
        _ => CompOp::FNmadd(rm),
    };
    let f = |lo| Src::Reg(Reg::f(bits(i, lo + 4, lo)));
    compute(op, Reg::f(bits(i, 11, 7)), vec![f(15), f(20), f(27)])
}

fn op_fp(i: u32, f3: u32, f7: u32) -> Insn {
    use CompOp::*;
    let (fd, xd) = (Reg::f(bits(i, 11, 7)), Reg::x(bits(i, 11, 7)));
    let (fs1, fs2) = (
        Src::Reg(Reg::f(bits(i, 19, 15))),
        Src::Reg(Reg::f(bits(i, 24, 20))),
    );
    let xs1 = Src::Reg(Reg::x(bits(i, 19, 15)));
    let rs2 = bits(i, 24, 20);
    let rm = rm(i);
    let rounded = |op: fn(Rm) -> CompOp| rm.map(op);
    let (op, rd, srcs) = match (f7, f3, rs2) {
        (0x00, _, _) => (rounded(FAdd), fd, vec![fs1, fs2]),
        (0x04, _, _) => (rounded(FSub), fd, vec![fs1, fs2]),
        (0x08, _, _) => (rounded(FMul), fd, vec![fs1, fs2]),
        (0x0c, _, _) => (rounded(FDiv), fd, vec![fs1, fs2]),
        (0x2c, _, 0) => (rounded(FSqrt), fd, vec![fs1]),
        (0x10, 0..=2, _) => (
            Some([FSgnj, FSgnjn, FSgnjx][f3 as usize]),
            fd,
            vec![fs1, fs2],
        ),
        (0x14, 0, _) => (Some(FMin), fd, vec![fs1, fs2]),
        (0x14, 1, _) => (Some(FMax), fd, vec![fs1, fs2]),
        (0x60, _, 0) => (rounded(FCvtWS), xd, vec![fs1]),
        (0x60, _, 1) => (rounded(FCvtWuS), xd, vec![fs1]),
        (0x68, _, 0) => (rounded(FCvtSW), fd, vec![xs1]),
        (0x68, _, 1) => (rounded(FCvtSWu), fd, vec![xs1]),
        (0x70, 0, 0) => (Some(Mv), xd, vec![fs1]),
        (0x70, 1, 0) => (Some(FClass), xd, vec![fs1]),
        (0x78, 0, 0) => (Some(Mv), fd, vec![xs1]),
        (0x50, 2, _) => (Some(FEq), xd, vec![fs1, fs2]),
        (0x50, 1, _) => (Some(FLt), xd, vec![fs1, fs2]),
        (0x50, 0, _) => (Some(FLe), xd, vec![fs1, fs2]),
        (f7, _, _) if f7 & 3 != 0 => {
            return Insn::Unsupported("a floating-point format other than single")
        }
        _ => (None, fd, vec![]),
    };
    match op {
        Some(op) => compute(op, rd, srcs),
        None => ILLEGAL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn immediates_and_targets() {
        // addi a0, a0, -1
        assert_eq!(
            decode(0xfff5_0513, 0),
            compute(
                CompOp::Add,
                Reg(10),
                vec![Src::Reg(Reg(10)), Src::Imm(u32::MAX)]
            )
        );
        // beq a0, a1, -8 at 0x100
        assert_eq!(
            decode(0xfeb5_0ce3, 0x100),
            Insn::Branch {
                cond: Cond::Eq,
                rs1: Reg(10),
                rs2: Reg(11),
                target: 0xf8
            }
        );
        // jal ra, +0x800 at 0x1000
        assert_eq!(
            decode(0x0010_00ef, 0x1000),
            Insn::Jal {
                rd: Reg::RA,
                target: 0x1800
            }
        );
        // sw a1, -4(sp)
        assert_eq!(
            decode(0xfeb1_2e23, 0),
            Insn::Store {
                width: Width::W,
                src: Reg(11),
                base: Reg::SP,
                offset: -4
            }
        );
        // ret
        assert_eq!(
            decode(0x0000_8067, 0),
            Insn::Jalr {
                rd: Reg::ZERO,
                rs1: Reg::RA,
                offset: 0
            }
        );
    }
}
