//! The registers an RV32IMAF instruction reads and writes, for the ASRF's bookkeeping.

use crate::iss::decode::{self, opcode};

/// Register operands of one instruction (x0 as a source or destination left out).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Operands {
    pub xs: [Option<usize>; 2],
    pub fs: [Option<usize>; 3],
    pub xd: Option<usize>,
    pub fd: Option<usize>,
}

fn x(r: usize) -> Option<usize> {
    (r != 0).then_some(r)
}

impl Operands {
    /// Source registers read (x and f).
    pub fn sources(&self) -> u32 {
        (self.xs.iter().flatten().count() + self.fs.iter().flatten().count()) as u32
    }
}

/// The operands of `insn` (an RV32IMAF instruction or the SIMT `tidx`).
pub fn operands(insn: u32) -> Operands {
    let (rd, rs1, rs2) = (decode::rd(insn), decode::rs1(insn), decode::rs2(insn));
    let mut o = Operands::default();
    match insn & 0x7f {
        opcode::LUI | opcode::AUIPC | opcode::JAL | opcode::CUSTOM0 => o.xd = x(rd),
        opcode::JALR | opcode::LOAD | opcode::OP_IMM => {
            o.xs[0] = x(rs1);
            o.xd = x(rd);
        }
        opcode::BRANCH | opcode::STORE => o.xs = [x(rs1), x(rs2)],
        opcode::OP | opcode::AMO => {
            o.xs = [x(rs1), x(rs2)];
            o.xd = x(rd);
        }
        opcode::LOAD_FP => {
            o.xs[0] = x(rs1);
            o.fd = Some(rd);
        }
        opcode::STORE_FP => {
            o.xs[0] = x(rs1);
            o.fs[0] = Some(rs2);
        }
        opcode::MADD | opcode::MSUB | opcode::NMSUB | opcode::NMADD => {
            o.fs = [Some(rs1), Some(rs2), Some(decode::rs3(insn))];
            o.fd = Some(rd);
        }
        opcode::OP_FP => fp_operands(insn, &mut o),
        opcode::SYSTEM if decode::funct3(insn) & 4 == 0 => {
            o.xs[0] = x(rs1);
            o.xd = x(rd);
        }
        opcode::SYSTEM => o.xd = x(rd),
        _ => {}
    }
    if insn & 0x7f == opcode::AMO && insn >> 27 == 2 {
        o.xs[1] = None; // lr.w reads only its address
    }
    o
}

/// OP-FP by funct7: which side of the register files each operand is on.
fn fp_operands(insn: u32, o: &mut Operands) {
    let (rd, rs1, rs2) = (decode::rd(insn), decode::rs1(insn), decode::rs2(insn));
    match decode::funct7(insn) >> 2 {
        // fcvt.w[u].s, fmv.x.w / fclass.s, feq/flt/fle: f in, x out.
        0x18 | 0x1c => {
            o.fs[0] = Some(rs1);
            o.xd = x(rd);
        }
        0x14 => {
            o.fs = [Some(rs1), Some(rs2), None];
            o.xd = x(rd);
        }
        // fcvt.s.w[u], fmv.w.x: x in, f out.
        0x1a | 0x1e => {
            o.xs[0] = x(rs1);
            o.fd = Some(rd);
        }
        // fsqrt.s: one source.
        0x0b => {
            o.fs[0] = Some(rs1);
            o.fd = Some(rd);
        }
        _ => {
            o.fs = [Some(rs1), Some(rs2), None];
            o.fd = Some(rd);
        }
    }
}
