//! Instruction decode: the control signals of one RV64IMA (or RV32IMA) + Zicsr +
//! Zifencei + RoCC instruction, and whether its encoding is legal. The legality rules
//! are the ISS's (`verification/src/iss/exec.rs`), so both raise illegal-instruction
//! traps on exactly the same words (on RV32: OP-32, OP-IMM-32, ld, lwu, sd, the .d AMOs
//! and shift amounts of 32 and more are illegal); CSR numbers are checked later, when the
//! CSR file is accessed.

use super::fpu;
use hdl::{Bits, ModuleBuilder, Value};

/// Opcodes (bits 6:0).
pub mod opcode {
    pub const LOAD: u64 = 0x03;
    pub const LOAD_FP: u64 = 0x07;
    pub const STORE_FP: u64 = 0x27;
    pub const OP_FP: u64 = 0x53;
    pub const CUSTOM0: u64 = 0x0b;
    pub const MISC_MEM: u64 = 0x0f;
    pub const OP_IMM: u64 = 0x13;
    pub const AUIPC: u64 = 0x17;
    pub const OP_IMM_32: u64 = 0x1b;
    pub const STORE: u64 = 0x23;
    pub const CUSTOM1: u64 = 0x2b;
    pub const AMO: u64 = 0x2f;
    pub const OP: u64 = 0x33;
    pub const LUI: u64 = 0x37;
    pub const OP_32: u64 = 0x3b;
    pub const CUSTOM2: u64 = 0x5b;
    pub const BRANCH: u64 = 0x63;
    pub const JALR: u64 = 0x67;
    pub const JAL: u64 = 0x6f;
    pub const SYSTEM: u64 = 0x73;
    pub const CUSTOM3: u64 = 0x7b;
}

/// ALU functions (`Ctrl::alu_fn`).
pub mod alu_fn {
    pub const ADD: u64 = 0;
    pub const SUB: u64 = 1;
    pub const SLL: u64 = 2;
    pub const SLT: u64 = 3;
    pub const SLTU: u64 = 4;
    pub const XOR: u64 = 5;
    pub const SRL: u64 = 6;
    pub const SRA: u64 = 7;
    pub const OR: u64 = 8;
    pub const AND: u64 = 9;
    pub const WIDTH: u32 = 4;
}

/// The F extension's part of an instruction's control (`Ctrl::fp`, with `fpu`): 1-bit
/// flags unless noted.
#[derive(Clone)]
pub struct FpCtrl {
    /// An F instruction (flw, fsw, OP-FP, the fused forms) of a legal encoding: illegal
    /// while `mstatus.FS` is Off.
    pub any: Value,
    /// Executed by the FPU (`fpu.rs`): every F instruction but flw and fsw.
    pub unit_op: Value,
    /// 2 bits, `fpu::unit`; 8 bits, the unit's `op`.
    pub unit: Value,
    pub op: Value,
    /// Has a rounding-mode field (funct3): illegal at 5 or 6, or 7 with `frm` above 4.
    pub rm_used: Value,
    /// `rd` is an f register (with `wxd`).
    pub wfd: Value,
    /// rs1 and rs2 are f registers; rs3 (bits 31:27, an f register) is read.
    pub f1: Value,
    pub f2: Value,
    pub uses_rs3: Value,
    /// rs1 (fmv.x.w) or rs2 (fsw) is read as its bits (zero if never written), not as an
    /// operand (the canonical NaN if never written), as the ISS reads them.
    pub raw1: Value,
    pub raw2: Value,
}

impl FpCtrl {
    fn fields(&self) -> [(&'static str, &Value); 11] {
        [
            ("fp_any", &self.any),
            ("fp_unit_op", &self.unit_op),
            ("fp_unit", &self.unit),
            ("fp_op", &self.op),
            ("fp_rm_used", &self.rm_used),
            ("fp_wfd", &self.wfd),
            ("fp_f1", &self.f1),
            ("fp_f2", &self.f2),
            ("fp_uses_rs3", &self.uses_rs3),
            ("fp_raw1", &self.raw1),
            ("fp_raw2", &self.raw2),
        ]
    }

    fn registers(&self, m: &mut ModuleBuilder, prefix: &str) -> FpCtrl {
        let mut regs = self
            .fields()
            .map(|(name, v)| m.reg(&format!("{prefix}_{name}"), v.width(), 0u64))
            .into_iter();
        let mut next = || regs.next().expect("one register per field");
        FpCtrl {
            any: next(),
            unit_op: next(),
            unit: next(),
            op: next(),
            rm_used: next(),
            wfd: next(),
            f1: next(),
            f2: next(),
            uses_rs3: next(),
            raw1: next(),
            raw2: next(),
        }
    }
}

/// Decoded control of one instruction; every field is a 1-bit flag unless noted.
#[derive(Clone)]
pub struct Ctrl {
    pub legal: Value,
    /// Writes `rd` (an f register when `fp.wfd`; writes to x0 are dropped later).
    pub wxd: Value,
    pub uses_rs1: Value,
    pub uses_rs2: Value,
    /// 4 bits, `alu_fn::*`.
    pub alu_fn: Value,
    /// Operand A is the pc (auipc) rather than rs1; `a_zero`: zero (lui).
    pub a_pc: Value,
    pub a_zero: Value,
    /// Operand B is the immediate rather than rs2.
    pub b_imm: Value,
    /// The immediate of the instruction's format, sign-extended to XLEN.
    pub imm: Value,
    /// 32-bit operation, result sign-extended (the *W forms).
    pub word: Value,
    pub branch: Value,
    pub jal: Value,
    pub jalr: Value,
    pub load: Value,
    pub store: Value,
    /// AMO read-modify-write (not lr/sc).
    pub amo: Value,
    pub lr: Value,
    pub sc: Value,
    pub muldiv: Value,
    /// csrrw/s/c and immediate forms.
    pub csr: Value,
    pub ecall: Value,
    pub ebreak: Value,
    pub mret: Value,
    pub fence: Value,
    pub fence_i: Value,
    pub rocc: Value,
    /// The F extension's control (with `fpu`).
    pub fp: Option<FpCtrl>,
}

impl Ctrl {
    /// Produces its result in execute (ALU, jumps, muldiv), as opposed to memory.
    pub fn result_in_execute(&self) -> Value {
        let late =
            &(&(&self.load | &self.amo) | &(&self.lr | &self.sc)) | &(&self.csr | &self.rocc);
        !&late
    }

    /// Every signal with its name, in declaration order.
    fn fields(&self) -> [(&'static str, &Value); 26] {
        [
            ("legal", &self.legal),
            ("wxd", &self.wxd),
            ("uses_rs1", &self.uses_rs1),
            ("uses_rs2", &self.uses_rs2),
            ("alu_fn", &self.alu_fn),
            ("a_pc", &self.a_pc),
            ("a_zero", &self.a_zero),
            ("b_imm", &self.b_imm),
            ("imm", &self.imm),
            ("word", &self.word),
            ("branch", &self.branch),
            ("jal", &self.jal),
            ("jalr", &self.jalr),
            ("load", &self.load),
            ("store", &self.store),
            ("amo", &self.amo),
            ("lr", &self.lr),
            ("sc", &self.sc),
            ("muldiv", &self.muldiv),
            ("csr", &self.csr),
            ("ecall", &self.ecall),
            ("ebreak", &self.ebreak),
            ("mret", &self.mret),
            ("fence", &self.fence),
            ("fence_i", &self.fence_i),
            ("rocc", &self.rocc),
        ]
    }

    /// A pipeline register per signal (`<prefix>_<signal>`), reset to 0 (no instruction:
    /// every flag clear); load it with `load`. A stage holding its decoded control
    /// instead of re-decoding its instruction word keeps the decoder off its paths.
    pub fn registers(&self, m: &mut ModuleBuilder, prefix: &str) -> Ctrl {
        let mut regs = self
            .fields()
            .map(|(name, v)| m.reg(&format!("{prefix}_{name}"), v.width(), 0u64))
            .into_iter();
        let mut next = || regs.next().expect("one register per field");
        Ctrl {
            legal: next(),
            wxd: next(),
            uses_rs1: next(),
            uses_rs2: next(),
            alu_fn: next(),
            a_pc: next(),
            a_zero: next(),
            b_imm: next(),
            imm: next(),
            word: next(),
            branch: next(),
            jal: next(),
            jalr: next(),
            load: next(),
            store: next(),
            amo: next(),
            lr: next(),
            sc: next(),
            muldiv: next(),
            csr: next(),
            ecall: next(),
            ebreak: next(),
            mret: next(),
            fence: next(),
            fence_i: next(),
            rocc: next(),
            fp: self.fp.as_ref().map(|f| f.registers(m, prefix)),
        }
    }

    /// Connects every signal of these registers to `from`'s (under the enclosing `when`).
    pub fn load(&self, m: &mut ModuleBuilder, from: &Ctrl) {
        for ((_, r), (_, v)) in self.fields().iter().zip(from.fields().iter()) {
            m.connect(r, v);
        }
        if let (Some(r), Some(v)) = (&self.fp, &from.fp) {
            for ((_, r), (_, v)) in r.fields().iter().zip(v.fields().iter()) {
                m.connect(r, v);
            }
        }
    }

    /// Accesses data memory.
    pub fn memory(&self) -> Value {
        &(&self.load | &self.store) | &(&(&self.amo | &self.lr) | &self.sc)
    }
}

fn k(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

fn is(v: &Value, value: u64) -> Value {
    v.eq(&k(v, value, v.width()))
}

fn any(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}

/// Sign-extends a value to `xlen` bits.
fn sext_x(v: &Value, xlen: u32) -> Value {
    v.as_signed().sext(xlen).as_unsigned()
}

/// The instruction classes decode tells apart (RV64I, M, A, Zicsr, Zifencei, the
/// system instructions and custom-0..3), each for its legal encodings only.
struct Classes {
    f3: Value,
    f7_20: Value,
    lui: Value,
    auipc: Value,
    jal: Value,
    jalr: Value,
    branch: Value,
    load: Value,
    store: Value,
    op_imm: Value,
    op_imm_32: Value,
    op_is_op: Value,
    op_reg: Value,
    op_mul: Value,
    op_is_op32: Value,
    op_reg32: Value,
    op_mul32: Value,
    fence: Value,
    fence_i: Value,
    lr: Value,
    sc: Value,
    amo_rmw: Value,
    ecall: Value,
    ebreak: Value,
    mret: Value,
    wfi: Value,
    csr: Value,
    rocc: Value,
}

/// Classifies `insn` by its opcode and function fields; RV64's own encodings are legal
/// at `xlen` 64 only; with `fpu` flw and fsw are loads and stores.
fn classify(insn: &Value, rocc: bool, xlen: u32, fpu: bool) -> Classes {
    let rv64 = xlen == 64;
    let op = insn.slice(6, 0);
    let f3 = insn.slice(14, 12);
    let f7 = insn.slice(31, 25);
    let f3_is = |v: u64| is(&f3, v);
    let f3_in = |vs: &[u64]| any(&vs.iter().map(|&v| f3_is(v)).collect::<Vec<_>>());
    let op_is = |v: u64| is(&op, v);

    let lui = op_is(opcode::LUI);
    let auipc = op_is(opcode::AUIPC);
    let jal = op_is(opcode::JAL);
    let jalr = &op_is(opcode::JALR) & &f3_is(0);
    let branch = &op_is(opcode::BRANCH) & &f3_in(&[0, 1, 4, 5, 6, 7]);
    let (load, store) = if rv64 {
        (
            &op_is(opcode::LOAD) & &!&f3_is(7),
            &op_is(opcode::STORE) & &!&insn.bit(14),
        )
    } else {
        let (load, store) = (
            &op_is(opcode::LOAD) & &f3_in(&[0, 1, 2, 4, 5]),
            &op_is(opcode::STORE) & &f3_in(&[0, 1, 2]),
        );
        if fpu {
            (
                &load | &(&op_is(opcode::LOAD_FP) & &f3_is(2)),
                &store | &(&op_is(opcode::STORE_FP) & &f3_is(2)),
            )
        } else {
            (load, store)
        }
    };

    // Shifts by an immediate: funct6 with RV64's 6-bit amount, funct7 with RV32's.
    let (top, srai) = if rv64 {
        (insn.slice(31, 26), 0x10)
    } else {
        (insn.slice(31, 25), 0x20)
    };
    let op_imm = op_is(opcode::OP_IMM);
    let op_imm_ok = any(&[
        f3_in(&[0, 2, 3, 4, 6, 7]),
        &f3_is(1) & &is(&top, 0),
        &f3_is(5) & &(&is(&top, 0) | &is(&top, srai)),
    ]);
    let op_imm = &op_imm & &op_imm_ok;
    let f7_0 = is(&f7, 0);
    let f7_20 = is(&f7, 0x20);
    let f7_1 = is(&f7, 1);
    let rv64_only = |v: Value| if rv64 { v } else { k(insn, 0, 1) };
    let op_imm_32 = rv64_only(
        &op_is(opcode::OP_IMM_32)
            & &any(&[f3_is(0), &f3_is(1) & &f7_0, &f3_is(5) & &(&f7_0 | &f7_20)]),
    );
    let op_is_op = op_is(opcode::OP);
    let op_reg = &op_is_op & &(&f7_0 | &(&f7_20 & &f3_in(&[0, 5])));
    let op_mul = &op_is_op & &f7_1;
    let op_is_op32 = op_is(opcode::OP_32);
    let op_reg32 =
        rv64_only(&op_is_op32 & &(&(&f7_0 & &f3_in(&[0, 1, 5])) | &(&f7_20 & &f3_in(&[0, 5]))));
    let op_mul32 = rv64_only(&op_is_op32 & &(&f7_1 & &f3_in(&[0, 4, 5, 6, 7])));

    let misc = op_is(opcode::MISC_MEM);
    let fence = &misc & &f3_is(0);
    let fence_i = &misc & &f3_is(1);

    let amo_op = &op_is(opcode::AMO) & &f3_in(if rv64 { &[2, 3] } else { &[2] });
    let funct5 = insn.slice(31, 27);
    let lr = &(&amo_op & &is(&funct5, 0x02)) & &is(&insn.slice(24, 20), 0);
    let sc = &amo_op & &is(&funct5, 0x03);
    let amo_rmw = &amo_op
        & &any(&[0x00, 0x01, 0x04, 0x08, 0x0c, 0x10, 0x14, 0x18, 0x1c]
            .iter()
            .map(|&v| is(&funct5, v))
            .collect::<Vec<_>>());

    let system = op_is(opcode::SYSTEM);
    let ecall = is(insn, 0x0000_0073);
    let ebreak = is(insn, 0x0010_0073);
    let mret = is(insn, 0x3020_0073);
    let wfi = is(insn, 0x1050_0073);
    let csr = &system & &!&is(&insn.slice(13, 12), 0);
    let custom = any(&[
        op_is(opcode::CUSTOM0),
        op_is(opcode::CUSTOM1),
        op_is(opcode::CUSTOM2),
        op_is(opcode::CUSTOM3),
    ]);
    let rocc = &custom & &k(insn, rocc as u64, 1);

    Classes {
        f3,
        f7_20,
        lui,
        auipc,
        jal,
        jalr,
        branch,
        load,
        store,
        op_imm,
        op_imm_32,
        op_is_op,
        op_reg,
        op_mul,
        op_is_op32,
        op_reg32,
        op_mul32,
        fence,
        fence_i,
        lr,
        sc,
        amo_rmw,
        ecall,
        ebreak,
        mret,
        wfi,
        csr,
        rocc,
    }
}

/// Any legal instruction.
fn legal(c: &Classes) -> Value {
    let Classes {
        lui,
        auipc,
        jal,
        jalr,
        branch,
        load,
        store,
        op_imm,
        op_imm_32,
        op_reg,
        op_mul,
        op_reg32,
        op_mul32,
        fence,
        fence_i,
        lr,
        sc,
        amo_rmw,
        ecall,
        ebreak,
        mret,
        wfi,
        csr,
        rocc,
        ..
    } = c;
    any(&[
        lui.clone(),
        auipc.clone(),
        jal.clone(),
        jalr.clone(),
        branch.clone(),
        load.clone(),
        store.clone(),
        op_imm.clone(),
        op_imm_32.clone(),
        op_reg.clone(),
        op_mul.clone(),
        op_reg32.clone(),
        op_mul32.clone(),
        fence.clone(),
        fence_i.clone(),
        lr.clone(),
        sc.clone(),
        amo_rmw.clone(),
        ecall.clone(),
        ebreak.clone(),
        mret.clone(),
        wfi.clone(),
        csr.clone(),
        rocc.clone(),
    ])
}

/// The immediate of `insn`'s format (I, S, B, U or J).
fn immediate(insn: &Value, c: &Classes, xlen: u32) -> Value {
    let sext = |v: &Value| sext_x(v, xlen);
    let Classes {
        store,
        branch,
        lui,
        auipc,
        jal,
        ..
    } = c;
    // Immediates of the formats.
    let imm_i = sext(&insn.slice(31, 20));
    let imm_s = sext(&hdl::cat(&[&insn.slice(31, 25), &insn.slice(11, 7)]));
    let zero1 = k(insn, 0, 1);
    let imm_b = sext(&hdl::cat(&[
        &insn.bit(31),
        &insn.bit(7),
        &insn.slice(30, 25),
        &insn.slice(11, 8),
        &zero1,
    ]));
    let imm_u = sext(&hdl::cat(&[&insn.slice(31, 12), &k(insn, 0, 12)]));
    let imm_j = sext(&hdl::cat(&[
        &insn.bit(31),
        &insn.slice(19, 12),
        &insn.bit(20),
        &insn.slice(30, 21),
        &zero1,
    ]));
    let s_type = &store.clone();
    hdl::helpers::priority_mux(
        &[
            (s_type.clone(), imm_s),
            (branch.clone(), imm_b),
            (lui | auipc, imm_u),
            (jal.clone(), imm_j),
        ],
        &imm_i,
    )
}

/// The ALU function of a register-register or immediate ALU instruction (ADD
/// otherwise). Returns `(alu_reg, alu_any, alu_fn)`.
fn alu_function(insn: &Value, c: &Classes) -> (Value, Value, Value) {
    let (f3, f7_20) = (&c.f3, &c.f7_20);
    let f3_is = |v: u64| is(f3, v);
    // ALU function: register-register and immediate forms share funct3.
    let alu_reg = any(&[c.op_reg.clone(), c.op_reg32.clone()]);
    let alu_imm = any(&[c.op_imm.clone(), c.op_imm_32.clone()]);
    let alu_any = &alu_reg | &alu_imm;
    let sub = &alu_reg & f7_20 & f3_is(0);
    let sra = &f3_is(5) & &insn.bit(30);
    let f = |v: u64| k(insn, v, alu_fn::WIDTH);
    let by_f3 = hdl::helpers::priority_mux(
        &[
            (sub, f(alu_fn::SUB)),
            (f3_is(1), f(alu_fn::SLL)),
            (f3_is(2), f(alu_fn::SLT)),
            (f3_is(3), f(alu_fn::SLTU)),
            (f3_is(4), f(alu_fn::XOR)),
            (sra, f(alu_fn::SRA)),
            (f3_is(5), f(alu_fn::SRL)),
            (f3_is(6), f(alu_fn::OR)),
            (f3_is(7), f(alu_fn::AND)),
        ],
        &f(alu_fn::ADD),
    );
    let alu_fn = alu_any.mux(&by_f3, &f(alu_fn::ADD));

    (alu_reg, alu_any, alu_fn)
}

/// `rocc`: an accelerator is attached (else custom opcodes are illegal); `xlen`: 32 or
/// 64; `fpu`: the F extension.
pub fn decode(insn: &Value, rocc: bool, xlen: u32, fpu: bool) -> Ctrl {
    let c = classify(insn, rocc, xlen, fpu);
    let legal = legal(&c);
    let imm = immediate(insn, &c, xlen);
    let (alu_reg, alu_any, alu_fn) = alu_function(insn, &c);
    let Classes {
        lui,
        auipc,
        jal,
        jalr,
        branch,
        load,
        store,
        op_imm_32,
        op_is_op,
        op_mul,
        op_is_op32,
        op_reg32,
        op_mul32,
        fence,
        fence_i,
        lr,
        sc,
        amo_rmw,
        ecall,
        ebreak,
        mret,
        csr,
        rocc,
        ..
    } = c;
    let muldiv = &op_mul | &op_mul32;
    let word = any(&[op_imm_32.clone(), op_reg32.clone(), op_mul32.clone()]);
    let amo_like = any(&[amo_rmw.clone(), lr.clone(), sc.clone()]);
    let xs1 = insn.bit(13);
    let xs2 = insn.bit(12);
    let xd = insn.bit(14);
    let csr_reg = &csr & &!&insn.bit(14);
    let ctrl = Ctrl {
        legal,
        wxd: any(&[
            lui.clone(),
            auipc.clone(),
            jal.clone(),
            jalr.clone(),
            load.clone(),
            alu_any.clone(),
            muldiv.clone(),
            amo_like.clone(),
            csr.clone(),
            &rocc & &xd,
        ]),
        uses_rs1: any(&[
            jalr.clone(),
            branch.clone(),
            load.clone(),
            store.clone(),
            alu_any.clone(),
            muldiv.clone(),
            amo_like.clone(),
            csr_reg,
            &rocc & &xs1,
        ]),
        uses_rs2: any(&[
            branch.clone(),
            store.clone(),
            alu_reg,
            muldiv.clone(),
            amo_like,
            &rocc & &xs2,
        ]),
        alu_fn,
        a_pc: auipc,
        a_zero: lui,
        b_imm: !&any(&[op_is_op, op_is_op32]),
        imm,
        word,
        branch,
        jal,
        jalr,
        load,
        store,
        amo: amo_rmw,
        lr,
        sc,
        muldiv,
        csr,
        ecall,
        ebreak,
        mret,
        fence,
        fence_i,
        rocc,
        fp: None,
    };
    if fpu {
        with_fp(ctrl, insn)
    } else {
        ctrl
    }
}

/// `ctrl` with the F extension's instructions (single precision, RV32F: flw and fsw are
/// already its loads and stores): legal, writing `rd` (an f register or, for compares,
/// fclass, fcvt.w[u].s and fmv.x.w, an x register), reading rs1 and rs2, and `fp`.
fn with_fp(ctrl: Ctrl, insn: &Value) -> Ctrl {
    let (fp, reads_rs2) = fp_decode(insn);
    let writes = &fp.unit_op | &fp.wfd;
    Ctrl {
        legal: &ctrl.legal | &fp.any,
        wxd: &ctrl.wxd | &writes,
        uses_rs1: &ctrl.uses_rs1 | &fp.unit_op,
        uses_rs2: &ctrl.uses_rs2 | &reads_rs2,
        fp: Some(fp),
        ..ctrl
    }
}

/// The F extension's control and whether rs2 is read (an FPU operation's second operand).
/// Encodings: the RISC-V unprivileged spec's "F" chapter (fmt 0 only), legal as the ISS
/// decodes them (`verification/src/iss/fp.rs`, `decode_op`).
fn fp_decode(insn: &Value) -> (FpCtrl, Value) {
    let (op, f3, funct5, rs2) = (
        insn.slice(6, 0),
        insn.slice(14, 12),
        insn.slice(31, 27),
        insn.slice(24, 20),
    );
    let f3_in = |vs: &[u64]| any(&vs.iter().map(|&v| is(&f3, v)).collect::<Vec<_>>());
    let rs2_in = |vs: &[u64]| any(&vs.iter().map(|&v| is(&rs2, v)).collect::<Vec<_>>());
    let single = is(&insn.slice(26, 25), 0);
    let flw = &is(&op, opcode::LOAD_FP) & &is(&f3, 2);
    let fsw = &is(&op, opcode::STORE_FP) & &is(&f3, 2);
    // MADD, MSUB, NMSUB, NMADD: opcode 0b100xx11, the variant in bits 3:2.
    let fused = &(&is(&insn.slice(6, 4), 4) & &is(&insn.slice(1, 0), 3)) & &single;
    let opfp = &is(&op, opcode::OP_FP) & &single;
    let f5 = |v: u64| &opfp & &is(&funct5, v);
    let add_sub_mul = any(&[f5(0x00), f5(0x01), f5(0x02)]);
    let div = f5(0x03);
    let sqrt = &f5(0x0b) & &rs2_in(&[0]);
    let sgnj = &f5(0x04) & &f3_in(&[0, 1, 2]);
    let minmax = &f5(0x05) & &f3_in(&[0, 1]);
    let cmp = &f5(0x14) & &f3_in(&[0, 1, 2]);
    let to_int = &f5(0x18) & &rs2_in(&[0, 1]);
    let from_int = &f5(0x1a) & &rs2_in(&[0, 1]);
    let mv_x = &(&f5(0x1c) & &f3_in(&[0])) & &rs2_in(&[0]);
    let class = &(&f5(0x1c) & &f3_in(&[1])) & &rs2_in(&[0]);
    let mv_f = &(&f5(0x1e) & &f3_in(&[0])) & &rs2_in(&[0]);
    let compares = any(&[sgnj.clone(), minmax.clone(), cmp.clone(), class.clone()]);
    let moves = &mv_x | &mv_f;
    let unit_op = any(&[
        fused.clone(),
        add_sub_mul.clone(),
        div.clone(),
        sqrt.clone(),
        compares.clone(),
        to_int.clone(),
        from_int.clone(),
        moves.clone(),
    ]);
    let (unit, fpu_op) = fpu::decode_op(
        insn,
        (&fused, &add_sub_mul),
        (&div, &sqrt),
        &(&to_int | &from_int),
        (&sgnj, &minmax, &cmp, &class),
    );
    let two_operands = any(&[
        fused.clone(),
        add_sub_mul.clone(),
        div.clone(),
        sgnj,
        minmax,
    ]);
    let reads_rs2 = any(&[two_operands.clone(), cmp.clone(), fsw.clone()]);
    let fp = FpCtrl {
        any: any(&[flw.clone(), fsw.clone(), unit_op.clone()]),
        rm_used: any(&[
            fused.clone(),
            add_sub_mul,
            div,
            sqrt.clone(),
            to_int.clone(),
            from_int.clone(),
        ]),
        wfd: any(&[
            flw,
            two_operands.clone(),
            sqrt,
            from_int.clone(),
            mv_f.clone(),
        ]),
        f1: &unit_op & &!&(&from_int | &mv_f),
        f2: &(&two_operands | &cmp) | &fsw,
        uses_rs3: fused,
        raw1: mv_x,
        raw2: fsw,
        unit_op,
        unit,
        op: fpu_op,
    };
    (fp, reads_rs2)
}
