//! Worker-thread execution: the vector-fetch loop, compute, predicate and control-flow
//! instructions. Memory instructions are in `mem.rs`.
//!
//! A vector instruction runs element 0 to vlen-1, each element under its guard
//! (vp[p][i] xor n); masked-off elements keep their old values. The model executes one
//! instruction at a time for all elements, in program order, which is one legal
//! ordering of the machine's decoupled execution (`vfence` therefore has nothing to do).

use super::decode::{CmpOp, Decoder, ImmOp, Insn, IntOp, Op};
use super::error::HwachaError;
use super::state::State;
use super::trace::{Effect, Retired};
use crate::fp::{self, FpOp};
use crate::hwacha::encoding::Field;
use crate::iss::mem::Memory;

/// Where execution goes after an instruction.
pub(super) enum Flow {
    Next,
    Jump(u64),
    Stop,
}

/// One `vf`: the state it works on, memory, and the trace being recorded.
pub(super) struct Worker<'a> {
    pub state: &'a mut State,
    pub mem: &'a mut Memory,
    pub pc: u64,
    /// Effects of the current instruction, kept only when tracing.
    pub effects: Vec<Effect>,
    pub tracing: bool,
    /// Memory-order mode: the order the design's memory performed AMOs in.
    pub amo_order: Option<&'a mut super::mem::AmoOrder>,
}

impl Worker<'_> {
    /// Runs the block at `entry` until `vstop`, appending retired instructions to `trace`
    /// when tracing. Gives up after `limit` instructions.
    pub fn run(
        &mut self,
        decoder: &Decoder,
        entry: u64,
        limit: u64,
        trace: &mut Vec<Retired>,
    ) -> Result<(), HwachaError> {
        self.pc = entry;
        for _ in 0..limit {
            let pc = self.pc;
            if pc & 7 != 0 {
                return Err(HwachaError::MisalignedFetch { pc });
            }
            let bits = self.mem.read(pc, 8).ok_or(HwachaError::FetchFault { pc })?;
            let illegal = |reason| HwachaError::IllegalInstruction { pc, bits, reason };
            let insn = decoder.decode(bits).map_err(illegal)?;
            insn.check(&self.state.vcfg).map_err(illegal)?;
            let flow = self.execute(&insn)?;
            if self.tracing {
                trace.push(Retired {
                    pc,
                    bits,
                    effects: std::mem::take(&mut self.effects),
                });
            }
            match flow {
                Flow::Next => self.pc = pc.wrapping_add(8),
                Flow::Jump(target) => self.pc = target,
                Flow::Stop => return Ok(()),
            }
        }
        Err(HwachaError::StepLimit { entry, limit })
    }

    fn execute(&mut self, insn: &Insn) -> Result<Flow, HwachaError> {
        match insn.op {
            Op::Int(op) => {
                if insn.is_vector() {
                    for i in 0..self.state.vlen {
                        if self.active(insn, i) {
                            let v = alu(
                                op,
                                self.read(insn, Field::Vrs1, i),
                                self.read(insn, Field::Vrs2, i),
                            );
                            self.write_rd(insn, i, v);
                        }
                    }
                } else {
                    let v = alu(
                        op,
                        self.read(insn, Field::Vrs1, 0),
                        self.read(insn, Field::Vrs2, 0),
                    );
                    self.write_rd(insn, 0, v);
                }
            }
            Op::Imm(op) => {
                let v = self.immediate(insn, op);
                self.write_rd(insn, 0, v);
            }
            Op::Eidx => {
                for i in 0..self.state.vlen {
                    if self.active(insn, i) {
                        let shift = self.read(insn, Field::Vrs1, i) & 63;
                        self.write_rd(insn, i, i << shift);
                    }
                }
            }
            Op::First => {
                let first = (0..self.state.vlen).find(|&i| self.active(insn, i));
                let v = first.map_or(0, |i| self.read(insn, Field::Vrs1, i));
                self.write_rd(insn, 0, v);
            }
            Op::Cmp(op) => {
                let pd = insn.get(Field::Vprd);
                for i in 0..self.state.vlen {
                    if self.active(insn, i) {
                        let (a, b) = (
                            self.read(insn, Field::Vrs1, i),
                            self.read(insn, Field::Vrs2, i),
                        );
                        let v = match op {
                            CmpOp::Eq => a == b,
                            CmpOp::Lt => (a as i64) < (b as i64),
                            CmpOp::Ltu => a < b,
                        };
                        self.write_vp(pd, i, v);
                    }
                }
            }
            Op::PredLogic => {
                // The truth table's bit 7 - (p1 p2 p3 as a 3-bit number) is the result: the
                // pseudo-instructions' tables (vpandand = 0x01, vporor = 0x7f, ...) fix
                // this order.
                let table = insn.get(Field::Vpfunc);
                let [pd, p1, p2, p3] =
                    [Field::Vprd, Field::Vprs1, Field::Vprs2, Field::Vprs3].map(|f| insn.get(f));
                for i in 0..self.state.vlen {
                    let index = (self.state.vp(p1, i) as u32) << 2
                        | (self.state.vp(p2, i) as u32) << 1
                        | self.state.vp(p3, i) as u32;
                    self.write_vp(pd, i, table >> (7 - index) & 1 != 0);
                }
            }
            Op::Load(m) => self.load_insn(insn, m)?,
            Op::Store(m) => self.store_insn(insn, m)?,
            Op::Amo(op, width) => self.amo_insn(insn, op, width)?,
            Op::PredLoad => self.predicate_insn(insn, false)?,
            Op::PredStore => self.predicate_insn(insn, true)?,
            Op::Fp(op) => self.floating_point(insn, op),
            Op::Stop => return Ok(Flow::Stop),
            Op::Fence => {}
            Op::Cjal | Op::Cjalr => {
                let vlen = self.state.vlen;
                let taken = if insn.get(Field::Vcond) == 0 {
                    (0..vlen).all(|i| self.active(insn, i))
                } else {
                    (0..vlen).any(|i| self.active(insn, i))
                };
                if taken {
                    let base = if insn.op == Op::Cjal {
                        self.pc
                    } else {
                        self.state.vs(insn.rs1())
                    };
                    let offset = (Field::Vcimm.get_signed(insn.bits) << 3) as u64;
                    self.write_rd(insn, 0, self.pc.wrapping_add(8));
                    return Ok(Flow::Jump(base.wrapping_add(offset) & !7));
                }
            }
        }
        Ok(Flow::Next)
    }

    /// A floating-point instruction: per active element (or once, when scalar), flags
    /// accrued into fflags. The rounding mode is the instruction's, or frm for rm = 7.
    fn floating_point(&mut self, insn: &Insn, op: FpOp) {
        let rm = if insn.has(Field::Vrm) {
            insn.get(Field::Vrm)
        } else {
            0
        };
        let round = fp::round_of(if rm == 7 { self.state.frm } else { rm });
        let operand = |w: &Self, f: Field, i: u64| {
            if insn.has(f) {
                w.read(insn, f, i)
            } else {
                0
            }
        };
        let elements = if insn.is_vector() { self.state.vlen } else { 1 };
        for i in 0..elements {
            if insn.is_vector() && !self.active(insn, i) {
                continue;
            }
            let (a, b, c) = (
                operand(self, Field::Vrs1, i),
                operand(self, Field::Vrs2, i),
                operand(self, Field::Vrs3, i),
            );
            let (value, flags) = fp::execute(op, a, b, c, round);
            self.state.fflags |= flags;
            if let FpOp::Cmp(..) = op {
                self.write_vp(insn.get(Field::Vprd), i, value != 0);
            } else {
                self.write_rd(insn, i, value);
            }
        }
    }

    /// Element `i`'s guard: vp[p][i] xor n. Instructions without a predicate field
    /// (predicate logic and spill/fill) run under a full mask.
    pub fn active(&self, insn: &Insn, i: u64) -> bool {
        if !insn.has(Field::Vpred) {
            return true;
        }
        self.state.vp(insn.get(Field::Vpred), i) ^ (insn.get(Field::Vn) != 0)
    }

    /// Operand `f` for element `i`: a vector register's element or a shared register.
    pub fn read(&self, insn: &Insn, f: Field, i: u64) -> u64 {
        let reg = insn.get(f);
        if insn.is_vv(f) {
            self.state.vv(reg, i)
        } else {
            self.state.vs(reg)
        }
    }

    /// Writes the destination (vv element `i` or shared register) `offset` registers past
    /// `rd` (segments use consecutive registers).
    pub fn write_reg(&mut self, insn: &Insn, offset: u32, i: u64, value: u64) {
        let reg = insn.rd() + offset;
        if insn.is_vv(Field::Vrd) {
            self.state.set_vv(reg, i, value);
            if self.tracing {
                let value = self.state.vv(reg, i);
                self.effects.push(Effect::Vv {
                    reg,
                    elem: i,
                    value,
                });
            }
        } else {
            self.state.set_vs(reg, value);
            if self.tracing && reg != 0 {
                self.effects.push(Effect::Vs { reg, value });
            }
        }
    }

    fn write_rd(&mut self, insn: &Insn, i: u64, value: u64) {
        self.write_reg(insn, 0, i, value)
    }

    pub fn write_vp(&mut self, reg: u32, i: u64, value: bool) {
        self.state.set_vp(reg, i, value);
        if self.tracing {
            self.effects.push(Effect::Vp {
                reg,
                elem: i,
                value,
            });
        }
    }

    /// The scalar immediate instructions (Table 7.14). Immediates are the sign-extended
    /// 32-bit field; vlui and vauipc place it in the upper 32 bits (thesis text).
    fn immediate(&self, insn: &Insn, op: ImmOp) -> u64 {
        let a = self.state.vs(insn.rs1());
        let imm = Field::Vimm.get_signed(insn.bits) as u64;
        let shamt = Field::Vshamt.get(insn.bits) as u32;
        let shamtw = Field::Vshamtw.get(insn.bits) as u32;
        match op {
            ImmOp::Addi => a.wrapping_add(imm),
            ImmOp::Slti => ((a as i64) < (imm as i64)) as u64,
            ImmOp::Sltiu => (a < imm) as u64,
            ImmOp::Andi => a & imm,
            ImmOp::Ori => a | imm,
            ImmOp::Xori => a ^ imm,
            ImmOp::Slli => a << shamt,
            ImmOp::Srli => a >> shamt,
            ImmOp::Srai => ((a as i64) >> shamt) as u64,
            ImmOp::Addiw => sext32(a.wrapping_add(imm)),
            ImmOp::Slliw => sext32(a << shamtw),
            ImmOp::Srliw => sext32(((a as u32) >> shamtw) as u64),
            ImmOp::Sraiw => ((a as i32) >> shamtw) as i64 as u64,
            ImmOp::Lui => imm << 32,
            ImmOp::Auipc => (imm << 32).wrapping_add(self.pc),
        }
    }
}

/// Sign-extends the low 32 bits.
pub(super) fn sext32(x: u64) -> u64 {
    x as u32 as i32 as i64 as u64
}

/// RV64IM register-register arithmetic (division by zero and overflow as RISC-V defines).
pub fn alu(op: IntOp, a: u64, b: u64) -> u64 {
    use IntOp::*;
    let sh = (b & 63) as u32;
    let shw = (b & 31) as u32;
    let (aw, bw) = (a as u32, b as u32);
    match op {
        Add | Addu => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Sll => a << sh,
        Slt => ((a as i64) < (b as i64)) as u64,
        Sltu => (a < b) as u64,
        Xor => a ^ b,
        Srl => a >> sh,
        Sra => ((a as i64) >> sh) as u64,
        Or => a | b,
        And => a & b,
        Mul => a.wrapping_mul(b),
        Mulh => ((a as i64 as i128 * b as i64 as i128) >> 64) as u64,
        Mulhsu => ((a as i64 as i128 * b as i128) >> 64) as u64,
        Mulhu => ((a as u128 * b as u128) >> 64) as u64,
        Div if b == 0 => u64::MAX,
        Div => (a as i64).wrapping_div(b as i64) as u64,
        Divu if b == 0 => u64::MAX,
        Divu => a / b,
        Rem if b == 0 => a,
        Rem => (a as i64).wrapping_rem(b as i64) as u64,
        Remu if b == 0 => a,
        Remu => a % b,
        Addw => sext32(a.wrapping_add(b)),
        Subw => sext32(a.wrapping_sub(b)),
        Sllw => sext32((aw << shw) as u64),
        Srlw => sext32((aw >> shw) as u64),
        Sraw => ((aw as i32) >> shw) as i64 as u64,
        Mulw => sext32(a.wrapping_mul(b)),
        Divw if bw == 0 => u64::MAX,
        Divw => (aw as i32).wrapping_div(bw as i32) as i64 as u64,
        Divuw if bw == 0 => u64::MAX,
        Divuw => sext32((aw / bw) as u64),
        Remw if bw == 0 => sext32(a),
        Remw => (aw as i32).wrapping_rem(bw as i32) as i64 as u64,
        Remuw if bw == 0 => sext32(a),
        Remuw => sext32((aw % bw) as u64),
    }
}
