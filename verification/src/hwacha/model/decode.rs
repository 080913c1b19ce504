//! Worker-thread decode: a 64-bit word is looked up in the shared encoding table, the
//! matching line's name gives the operation, and its operand fields say which registers
//! the instruction names. The legality rules of thesis 7.2 are checked here against the
//! current configuration, before anything executes.

use super::config::Vcfg;
use super::error::Illegal;
use super::state::NUM_VS;
use crate::fp::FpOp;
use crate::hwacha::encoding::{table, Field, FieldSet, Table, Thread};

/// Register-register integer operations (Table 7.6; RV64IM semantics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp {
    Add,
    /// `vaddu`: an add whose result is zero-extended from XLEN = 64, so the same as `vadd`.
    Addu,
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
    Addw,
    Subw,
    Sllw,
    Srlw,
    Sraw,
    Mulw,
    Divw,
    Divuw,
    Remw,
    Remuw,
}

impl IntOp {
    /// The 32-bit ("w") forms read and write only 32 significant bits.
    pub fn is_word(self) -> bool {
        use IntOp::*;
        matches!(
            self,
            Addw | Subw | Sllw | Srlw | Sraw | Mulw | Divw | Divuw | Remw | Remuw
        )
    }
}

/// Scalar operations with an immediate (Table 7.14).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImmOp {
    Addi,
    Slti,
    Sltiu,
    Andi,
    Ori,
    Xori,
    Slli,
    Srli,
    Srai,
    Addiw,
    Slliw,
    Srliw,
    Sraiw,
    Lui,
    Auipc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Lt,
    Ltu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// Memory access width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    B,
    H,
    W,
    D,
}

impl Width {
    pub fn bytes(self) -> u8 {
        match self {
            Width::B => 1,
            Width::H => 2,
            Width::W => 4,
            Width::D => 8,
        }
    }

    pub fn bits(self) -> u32 {
        self.bytes() as u32 * 8
    }
}

/// Where a memory instruction's addresses come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Vector, unit stride from address register as1.
    Unit,
    /// Vector, stride in address register as2.
    Strided,
    /// Vector, base in shared register ss1 plus offsets in vector register vs2.
    Indexed,
    /// Scalar, address in shared register ss1.
    Shared,
    /// Scalar, address in address register as1.
    Address,
}

impl Mode {
    pub fn is_vector(self) -> bool {
        matches!(self, Mode::Unit | Mode::Strided | Mode::Indexed)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemOp {
    pub width: Width,
    /// Loads zero-extend instead of sign-extending.
    pub unsigned: bool,
    pub mode: Mode,
}

/// What an instruction does; its operands are the fields of its encoding line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Int(IntOp),
    Imm(ImmOp),
    Eidx,
    First,
    Cmp(CmpOp),
    PredLogic,
    PredLoad,
    PredStore,
    Load(MemOp),
    Store(MemOp),
    Amo(AmoOp, Width),
    Stop,
    Fence,
    Cjal,
    Cjalr,
    Fp(FpOp),
}

/// The operation an encoding-file name stands for; `None` for a name the model does not
/// know.
pub fn op_of(name: &str) -> Option<Op> {
    use IntOp::*;
    let int = |op| Some(Op::Int(op));
    let imm = |op| Some(Op::Imm(op));
    match name {
        "vadd" => int(Add),
        "vaddu" => int(Addu),
        "vsub" => int(Sub),
        "vsll" => int(Sll),
        "vslt" => int(Slt),
        "vsltu" => int(Sltu),
        "vxor" => int(Xor),
        "vsrl" => int(Srl),
        "vsra" => int(Sra),
        "vor" => int(Or),
        "vand" => int(And),
        "vmul" => int(Mul),
        "vmulh" => int(Mulh),
        "vmulhsu" => int(Mulhsu),
        "vmulhu" => int(Mulhu),
        "vdiv" => int(Div),
        "vdivu" => int(Divu),
        "vrem" => int(Rem),
        "vremu" => int(Remu),
        "vaddw" => int(Addw),
        "vsubw" => int(Subw),
        "vsllw" => int(Sllw),
        "vsrlw" => int(Srlw),
        "vsraw" => int(Sraw),
        "vmulw" => int(Mulw),
        "vdivw" => int(Divw),
        "vdivuw" => int(Divuw),
        "vremw" => int(Remw),
        "vremuw" => int(Remuw),
        "vaddi" => imm(ImmOp::Addi),
        "vslti" => imm(ImmOp::Slti),
        "vsltiu" => imm(ImmOp::Sltiu),
        "vandi" => imm(ImmOp::Andi),
        "vori" => imm(ImmOp::Ori),
        "vxori" => imm(ImmOp::Xori),
        "vslli" => imm(ImmOp::Slli),
        "vsrli" => imm(ImmOp::Srli),
        "vsrai" => imm(ImmOp::Srai),
        "vaddiw" => imm(ImmOp::Addiw),
        "vslliw" => imm(ImmOp::Slliw),
        "vsrliw" => imm(ImmOp::Srliw),
        "vsraiw" => imm(ImmOp::Sraiw),
        "vlui" => imm(ImmOp::Lui),
        "vauipc" => imm(ImmOp::Auipc),
        "veidx" => Some(Op::Eidx),
        "vfirst" => Some(Op::First),
        "vcmpeq" => Some(Op::Cmp(CmpOp::Eq)),
        "vcmplt" => Some(Op::Cmp(CmpOp::Lt)),
        "vcmpltu" => Some(Op::Cmp(CmpOp::Ltu)),
        "vpop" => Some(Op::PredLogic),
        "vpl" => Some(Op::PredLoad),
        "vps" => Some(Op::PredStore),
        "vstop" => Some(Op::Stop),
        "vfence" => Some(Op::Fence),
        "vcjal" => Some(Op::Cjal),
        "vcjalr" => Some(Op::Cjalr),
        _ if name.starts_with("vamo") => amo_of(name),
        _ if name.starts_with("vf") || name.starts_with("vcmpf") => FpOp::of(name).map(Op::Fp),
        _ => mem_of(name),
    }
}

/// `vamo<op>.<w|d>`.
fn amo_of(name: &str) -> Option<Op> {
    let (op, width) = name.strip_prefix("vamo")?.split_once('.')?;
    let op = match op {
        "swap" => AmoOp::Swap,
        "add" => AmoOp::Add,
        "xor" => AmoOp::Xor,
        "and" => AmoOp::And,
        "or" => AmoOp::Or,
        "min" => AmoOp::Min,
        "max" => AmoOp::Max,
        "minu" => AmoOp::Minu,
        "maxu" => AmoOp::Maxu,
        _ => return None,
    };
    let width = match width {
        "w" => Width::W,
        "d" => Width::D,
        _ => return None,
    };
    Some(Op::Amo(op, width))
}

/// `vl`/`vs` + `seg` (unit) | `segst` (strided) | `segx` (indexed) | `sseg` (scalar,
/// shared-register address) | `aseg` (scalar, address-register address) + width
/// `d w wu h hu b bu`.
fn mem_of(name: &str) -> Option<Op> {
    let (load, rest) = if let Some(r) = name.strip_prefix("vl") {
        (true, r)
    } else {
        (false, name.strip_prefix("vs")?)
    };
    let (mode, suffix) = if let Some(r) = rest.strip_prefix("sseg") {
        (Mode::Shared, r)
    } else if let Some(r) = rest.strip_prefix("aseg") {
        (Mode::Address, r)
    } else if let Some(r) = rest.strip_prefix("segst") {
        (Mode::Strided, r)
    } else if let Some(r) = rest.strip_prefix("segx") {
        (Mode::Indexed, r)
    } else {
        (Mode::Unit, rest.strip_prefix("seg")?)
    };
    let (width, unsigned) = match suffix {
        "d" => (Width::D, false),
        "w" => (Width::W, false),
        "wu" => (Width::W, true),
        "h" => (Width::H, false),
        "hu" => (Width::H, true),
        "b" => (Width::B, false),
        "bu" => (Width::B, true),
        _ => return None,
    };
    if unsigned && !load {
        return None;
    }
    let m = MemOp {
        width,
        unsigned,
        mode,
    };
    Some(if load { Op::Load(m) } else { Op::Store(m) })
}

/// A decoded worker-thread instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub bits: u64,
    pub name: &'static str,
    pub op: Op,
    /// Which operand fields the encoding line has.
    fields: FieldSet,
}

impl Insn {
    pub fn has(&self, f: Field) -> bool {
        self.fields.contains(f)
    }

    /// Field value (register numbers, flags, unsigned immediates).
    pub fn get(&self, f: Field) -> u32 {
        f.get(self.bits) as u32
    }

    pub fn rd(&self) -> u32 {
        self.get(Field::Vrd)
    }
    pub fn rs1(&self) -> u32 {
        self.get(Field::Vrs1)
    }
    pub fn rs2(&self) -> u32 {
        self.get(Field::Vrs2)
    }

    /// Whether data-register field `f` (vrd/vrs1/vrs2/vrs3) names a vector data register:
    /// the d/1/2/3 flag in bits 63..60, whether an operand or fixed by the encoding (as
    /// for memory instructions, whose mode bits double as flags). In the immediate
    /// formats those bits are the immediate and every register is shared.
    pub fn is_vv(&self, f: Field) -> bool {
        if self.has(Field::Vimm) || self.has(Field::Vcimm) {
            return false;
        }
        f.kind_flag()
            .is_some_and(|flag| self.bits & flag.mask() != 0)
    }

    /// Vector instructions run for `vlen` elements under the predicate; scalar ones run
    /// once. An instruction is a vector one when any operand is a vector register or its
    /// d bit is set (compares, predicate and vector memory instructions).
    pub fn is_vector(&self) -> bool {
        if self.has(Field::Vimm) || self.has(Field::Vcimm) {
            return false;
        }
        self.bits >> 63 & 1 != 0
            || [Field::Vrs1, Field::Vrs2, Field::Vrs3]
                .iter()
                .any(|&f| self.has(f) && self.is_vv(f))
    }

    /// Registers a segment memory instruction moves: `vseglen` + 1 consecutive ones.
    pub fn segments(&self) -> u32 {
        self.get(Field::Vseglen) + 1
    }

    /// The data-register field that names the first of a segment's registers.
    fn segment_field(&self) -> Option<Field> {
        match self.op {
            Op::Load(_) => Some(Field::Vrd),
            Op::Store(m) if m.mode.is_vector() => Some(Field::Vrd),
            Op::Store(_) => Some(Field::Vrs2),
            _ => None,
        }
    }

    /// Element width, in bits, the instruction needs of the vector data register in `f`.
    fn precision(&self, f: Field) -> u32 {
        match self.op {
            Op::Int(op) if op.is_word() => 32,
            Op::Load(m) | Op::Store(m) if f != Field::Vrs2 => m.width.bits(),
            Op::Amo(_, w) if f != Field::Vrs1 => w.bits(),
            Op::Fp(op) => op.precision(f == Field::Vrd),
            _ => 64,
        }
    }

    /// The legality rules of thesis 7.2 under configuration `cfg`.
    pub fn check(&self, cfg: &Vcfg) -> Result<(), Illegal> {
        if matches!(self.op, Op::Cjal | Op::Cjalr) {
            let cond = self.get(Field::Vcond);
            if cond > 1 {
                return Err(Illegal::ReservedCondition { cond });
            }
        }
        let sources = [Field::Vrs1, Field::Vrs2, Field::Vrs3];
        if self.has(Field::Vrd) && !self.is_vv(Field::Vrd) {
            let vector_source = sources.iter().any(|&f| self.has(f) && self.is_vv(f));
            // vfirst is the one instruction defined to reduce a vector to a shared register;
            // an AMO always returns its old values to a vector register.
            if (vector_source && self.op != Op::First) || matches!(self.op, Op::Amo(..)) {
                return Err(Illegal::SharedDestination);
            }
        }
        if self.has(Field::Vrm) {
            let rm = self.get(Field::Vrm);
            if rm == 5 || rm == 6 {
                return Err(Illegal::ReservedRoundingMode { rm });
            }
        }
        if matches!(self.op, Op::Int(_) | Op::Fp(_)) && !self.is_vector() {
            let (pred, negate) = (self.get(Field::Vpred), self.get(Field::Vn) != 0);
            if pred != 0 || negate {
                return Err(Illegal::PredicatedScalar { pred, negate });
            }
        }
        for f in [Field::Vrd, Field::Vrs1, Field::Vrs2, Field::Vrs3] {
            if !self.has(f) {
                continue;
            }
            let count = if self.segment_field() == Some(f) {
                self.segments()
            } else {
                1
            };
            let first = self.get(f);
            for reg in first..first + count {
                if self.is_vv(f) {
                    let configured = cfg.vv_total();
                    let reg_bits = cfg
                        .vv_bits(reg)
                        .ok_or(Illegal::VvOutOfRange { reg, configured })?;
                    let needed = self.precision(f);
                    if reg_bits < needed {
                        return Err(Illegal::Precision {
                            reg,
                            reg_bits,
                            needed,
                        });
                    }
                } else if reg as usize >= NUM_VS {
                    return Err(Illegal::VsOutOfRange { reg });
                }
            }
        }
        for f in [Field::Vprd, Field::Vprs1, Field::Vprs2, Field::Vprs3] {
            if self.has(f) && self.get(f) >= cfg.vp {
                return Err(Illegal::VpOutOfRange {
                    reg: self.get(f),
                    configured: cfg.vp,
                });
            }
        }
        if self.has(Field::Vpred) {
            let reg = self.get(Field::Vpred);
            // With no predicate registers the unit runs unpredicated under "vp0".
            if reg >= cfg.vp && !(cfg.vp == 0 && reg == 0) {
                return Err(Illegal::VpOutOfRange {
                    reg,
                    configured: cfg.vp,
                });
            }
        }
        Ok(())
    }
}

/// Worker-thread decoding: the shared table's lookup, with the operation of each
/// instruction worked out once.
pub(super) struct Decoder {
    table: &'static Table,
    /// `op_of` of every worker instruction, by table index (`None` for the others,
    /// which the lookup never returns).
    ops: Vec<Option<Op>>,
}

impl Decoder {
    pub fn new() -> Decoder {
        let table = table();
        let ops = table
            .instructions()
            .iter()
            .map(|i| match i.thread {
                Thread::Worker if !i.pseudo => op_of(i.name),
                _ => None,
            })
            .collect();
        Decoder { table, ops }
    }

    /// Decodes `bits`; `Illegal::Unknown` when no line of the file matches.
    pub fn decode(&self, bits: u64) -> Result<Insn, Illegal> {
        let index = self
            .table
            .base_index(Thread::Worker, bits)
            .ok_or(Illegal::Unknown)?;
        let op = self.ops[index].ok_or(Illegal::Unknown)?;
        let instr = &self.table.instructions()[index];
        Ok(Insn {
            bits,
            name: instr.name,
            op,
            fields: instr.field_set,
        })
    }
}
