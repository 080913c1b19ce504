//! The lane's control words: the sequencer operation the expander takes (one strip of one
//! vector instruction, thesis Table 8.3) and the bank micro-ops it expands into (Table
//! 8.5), as bundle shapes whose widths follow the parameters.

use crate::fpu;
use crate::hwacha::params::HwachaParams;
use crate::hwacha::rocc::vlen_bits;
use hdl::ir::addr_width;
use hdl::{Bundle, Field, ModuleBuilder, ResetValue, Shape, Value};

/// Functional unit of a sequencer operation (`unit` field).
pub mod unit {
    /// VIU: the bank-local integer ALU.
    pub const ALU: u64 = 0;
    /// VIMU: the integer multiplier on the operand crossbar (VFU0).
    pub const IMUL: u64 = 1;
    /// VIPU: the bank-local predicate logic unit.
    pub const PLU: u64 = 2;
    /// VPU/VSU/VGU/VQU: the bank's readout of predicates, store data, indices,
    /// reduction and divide operands into its bank read queue, for the VMU, the reducer
    /// and the divider.
    pub const MEM: u64 = 3;
    /// VFMU: an FMA. The decode names FMA0 (VFU0); the expander places the operation on
    /// FMA1 (VFU1, [`FMA1`]) when VFU0's crossbar port is taken (Table 8.6).
    pub const FMA: u64 = 4;
    /// VFVU: the conversion unit on VFU0.
    pub const FCONV: u64 = 5;
    /// VFCU: the compare unit on VFU1 (compares, min/max, sign injection, classify).
    pub const FCMP: u64 = 6;
    /// FMA1 on VFU1: only the expander places it.
    pub const FMA1: u64 = 7;
    pub const WIDTH: u32 = 3;

    /// Whether `unit` works on the operand crossbar (IMul and the FP units).
    pub fn on_crossbar(unit: u64) -> bool {
        unit == IMUL || unit >= FMA
    }

    /// The crossbar port (VFU) of a crossbar unit: 0 for IMul, FMA0 and FConv, 1 for
    /// FMA1 and FCmp (Figure 8.6's clusters).
    pub fn vfu(unit: u64) -> usize {
        usize::from(unit == FMA1 || unit == FCMP)
    }

    /// Whether the unit field `u` (a value) names unit `v`.
    pub fn is(u: &hdl::Value, v: u64) -> hdl::Value {
        u.eq(&u.konst(hdl::Bits::from_u64(WIDTH, v)))
    }
}

/// The `fmt` field of FP operations: RISC-V's format codes (`fpu::convert::fmt_code`).
pub mod fmt {
    pub const S: u64 = 0;
    pub const D: u64 = 1;
    pub const H: u64 = 2;
}

/// Bank ALU functions (`fn` of a VIU operation): the Rocket ALU's functions
/// (`rocket::decode::alu_fn`, 0-9) and two of the vector unit's own.
pub mod alu_fn {
    /// `a == b` (vcmpeq).
    pub const EQ: u64 = 10;
    /// The element's index shifted left by `b` (veidx).
    pub const EIDX: u64 = 11;
}

/// IMul functions (`fn` of a VIMU operation): which half, and the operands' signedness.
pub mod imul_fn {
    pub const MUL: u64 = 0;
    pub const MULH: u64 = 1;
    pub const MULHSU: u64 = 2;
    pub const MULHU: u64 = 3;
}

/// Reductions (`red` field): vfirst, and consensual jumps taken when all (or any) of
/// the elements are active.
pub mod red {
    pub const NONE: u64 = 0;
    pub const FIRST: u64 = 1;
    pub const ALL: u64 = 2;
    pub const ANY: u64 = 3;
}

/// Width of the `fn` field: the FConv's operation (`fpu::convert::encode`) is the widest.
pub const FN_BITS: u32 = fpu::convert::OP_BITS;
/// Width of a decoded instruction's vector length (`vinsn`), and of the element counts
/// and indices that leave the lane (the VMU's command, the reducer's index).
pub const EIDX_BITS: u32 = 32;

/// Bits of a global element index or of a lane's vector length inside the lane: both are
/// below the vector length, which is at most the largest maxvl (`rocc::vlen_bits`), so
/// the sequencer's counters, the micro-ops and the lane's command queues keep only these.
pub fn eidx_bits(p: &HwachaParams) -> u32 {
    vlen_bits(p)
}

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// Bits of a vector-register-file row.
pub fn row_bits(p: &HwachaParams) -> u32 {
    addr_width(p.bank_entries as u64)
}

/// Bits of a predicate-register-file row.
pub fn prow_bits(p: &HwachaParams) -> u32 {
    addr_width(p.pred_entries as u64)
}

/// Strips one operation can cover: 1, or with mixed precision up to 4 (a packed row of
/// halfword registers, `regmap`).
pub fn max_group(p: &HwachaParams) -> u64 {
    if p.mixed_precision {
        4
    } else {
        1
    }
}

/// Bits of a count of a slot's lane-local strips (the sequencer's `issued`, the lane
/// memory's `wb_strips`): at most min(E, P) strips of rows, `max_group` times that
/// packed, and one bit more.
pub fn strip_count_bits(p: &HwachaParams) -> u32 {
    row_bits(p).max(prow_bits(p)) + 1 + max_group(p).trailing_zeros()
}

/// Bits of an operation's element count (0..=strip, or up to four strips' with mixed
/// precision: a packed operation's).
pub fn count_bits(p: &HwachaParams) -> u32 {
    addr_width(max_group(p) * p.strip() as u64 + 1)
}

/// Bits of an element mask on the operand crossbar and the result lines: S, or with
/// mixed precision 4S, element `i` of subword `j` at bit `j * S + i` (the strips of a
/// packed operation, thesis chapter 8's spatial parallelism; an unpacked operation's
/// are subword 0's).
pub fn mask_bits(p: &HwachaParams) -> u32 {
    p.slices() * max_group(p) as u32
}

/// What an operation computes and on which operands, as the scalar unit decoded it.
fn compute_fields() -> Vec<Field> {
    vec![
        uint("unit", unit::WIDTH),
        uint("fn", FN_BITS),
        // The 32-bit ("w") forms.
        uint("word", 1),
        // vpop's truth table.
        uint("table", 8),
        // Operand 1/2/3 is a vector register (read into operand latch 0/1/2), else
        // `s1`/`s2`/`s3` (operand 3: FMAs only).
        uint("rs1_v", 1),
        uint("rs2_v", 1),
        uint("rs3_v", 1),
        uint("s1", 64),
        uint("s2", 64),
        uint("s3", 64),
        // FP operations: the rounding mode (the instruction's; dynamic resolved) and the
        // operands' format (`fmt::*`; FConv's formats are in `fn`).
        uint("rm", 3),
        uint("fmt", 2),
        // Guard: predicate `pred` xor `pred_neg`, or every element when `pred_on` is 0.
        uint("pred_on", 1),
        uint("pred_neg", 1),
        // The operation writes a register: `rd`, or predicate `prd` when `rd_pred`
        // (compares, vpop).
        uint("wr", 1),
        uint("rd_pred", 1),
        // Destination element width: 0 = 64, 1 = 32, 2 = 16 bits (stored sign-extended).
        uint("rd_width", 2),
        // A vector memory instruction: the VMU command's fields (`vmu::cmd_shape`); its
        // base is `s1` and its stride `s2`, its index register `rs1` and its store data
        // `rs2`.
        uint("mem", 1),
        // A reduction read out like a memory operation's operands, to the lanes'
        // reducers: `red::*`.
        uint("red", 2),
        // An integer divide (`fn`: the M extension's funct3) read out like a memory
        // operation's operands, to the lane's divider.
        uint("div", 1),
        uint("mem_op", 2),
        uint("amo_fn", 4),
        uint("mode", 2),
        uint("width", 2),
        uint("unsigned", 1),
    ]
}

/// Register operands, as register numbers (`reg`, `preg` bits) or as rows of one strip.
fn operand_fields(vv: u32, vp: u32) -> Vec<Field> {
    vec![
        uint("rs1", vv),
        uint("rs2", vv),
        uint("rs3", vv),
        uint("rd", vv),
        uint("pred", vp),
        // vpop's source predicates.
        uint("ps1", vp),
        uint("ps2", vp),
        uint("ps3", vp),
        uint("prd", vp),
    ]
}

/// Register-number widths: 256 data and 16 predicate registers (thesis 7.1).
pub const VV_BITS: u32 = 8;
pub const VP_BITS: u32 = 4;

/// A decoded vector instruction on its way to the master sequencer: what to compute,
/// register numbers, and the vector length it runs for.
pub fn vinsn() -> Shape {
    let mut fields = compute_fields();
    fields.extend(operand_fields(VV_BITS, VP_BITS));
    fields.push(uint("vlen", EIDX_BITS));
    Shape::bundle(fields)
}

/// The per-strip fields: elements of the strip that exist (the rest are masked off) and
/// the global index of its first element.
fn strip_fields(p: &HwachaParams) -> Vec<Field> {
    vec![uint("count", count_bits(p)), uint("eidx", eidx_bits(p))]
}

/// With mixed precision, a sequencer operation's register classes (`regmap::cls`) of
/// its data operands and destination (H for a predicate destination), the low two
/// bits of its lane-local strip number, which pick the subwords (`regmap`), and `pk`:
/// the class of the packed rows a packed operation covers whole (W: two strips, H:
/// four), or D for an operation of one strip (`sequencer::packs`).
pub const MXP_FIELDS: [&str; 6] = ["rs1_c", "rs2_c", "rs3_c", "rd_c", "slo", "pk"];

/// A sequencer operation for one strip, as the lane sequencer hands it to the expander:
/// the instruction's fields with its registers' rows for this strip.
pub fn seq_op(p: &HwachaParams) -> Shape {
    let mut fields = compute_fields();
    fields.extend(operand_fields(row_bits(p), prow_bits(p)));
    fields.extend(strip_fields(p));
    if p.mixed_precision {
        fields.extend(MXP_FIELDS.map(|n| uint(n, 2)));
    }
    Shape::bundle(fields)
}

/// With mixed precision, where in a row a register's strip is: its class
/// (`regmap::cls`) and subword, and whether the access covers the whole packed row
/// (`pk`, as the sequencer operation's: every subword, packed as the row holds them).
fn packing_fields(p: &HwachaParams) -> Vec<Field> {
    if p.mixed_precision {
        vec![uint("cls", 2), uint("sub", 2), uint("pk", 2)]
    } else {
        vec![]
    }
}

/// Bits the lane's queues keep of a destination register number: the row bits, or
/// (mixed precision, which classifies it) the whole number.
pub fn rd_bits(p: &HwachaParams) -> u32 {
    if p.mixed_precision {
        row_bits(p).max(VV_BITS)
    } else {
        row_bits(p)
    }
}

/// sram-read + opl: read `row` and put the data into operand latch `idx` (0-2) a cycle
/// later (with mixed precision, subword `sub` of class `cls`, unpacked).
pub fn read_uop(p: &HwachaParams) -> Shape {
    let mut fields = vec![uint("valid", 1), uint("row", row_bits(p)), uint("idx", 2)];
    fields.extend(packing_fields(p));
    Shape::bundle(fields)
}

/// Fields of [`compute_fields`] that only the expander and the memory side use: the
/// write's destination (the write micro-op carries it) and the VMU command's (the lane's
/// command queue has them). The fop leaves them out, since every bank and every expander
/// slot registers it.
const NOT_IN_FOP: [&str; 7] = [
    "wr", "rd_pred", "rd_width", "mem", "amo_fn", "width", "unsigned",
];

/// The fop micro-op (with pred-read, pdl, sreg and xbar folded in): start the operation
/// on the latched or scalar operands. Its `s1`-`s3` hold the scalar operands packed in
/// operand order, vector operands skipped (operand 2's scalar is `s1` when operand 1 is
/// a vector register): a fop placed at slot `f` has `f - 1` vector operands, so slot
/// `t` of the expander keeps only the `4 - t` scalars a fop there can have.
pub fn fop_uop(p: &HwachaParams) -> Shape {
    let mut fields = vec![uint("valid", 1)];
    fields.extend(
        compute_fields()
            .into_iter()
            .filter(|f| !NOT_IN_FOP.contains(&f.name.as_str())),
    );
    // `pred` is the guard's row, or for the PLU (whose vpop has no guard) its first
    // source's: the predicate file has three read ports.
    let prow = prow_bits(p);
    fields.extend(["pred", "ps2", "ps3"].map(|n| uint(n, prow)));
    fields.extend(strip_fields(p));
    // Mixed precision: the strip's subword of the packed predicate rows, and the
    // packed rows' class of a packed operation (`MXP_FIELDS`).
    if p.mixed_precision {
        fields.extend([uint("psub", 2), uint("pk", 2)]);
    }
    Shape::bundle(fields)
}

/// sram-write / pred-write: write the result of unit `src` (of its `fmt` pipe, for the
/// FMAs) to `row` of the VRF, or of the PRF when `pred` (with mixed precision, to
/// subword `sub` of class `cls`; a predicate write of class D writes all four strips).
pub fn write_uop(p: &HwachaParams) -> Shape {
    let mut fields = vec![
        uint("valid", 1),
        uint("pred", 1),
        uint("row", row_bits(p).max(prow_bits(p))),
        uint("src", unit::WIDTH),
        uint("fmt", 2),
        uint("width", 2),
    ];
    fields.extend(packing_fields(p));
    Shape::bundle(fields)
}

/// Registers holding a micro-op of `shape` (flat fields, one of them `valid`): `valid`
/// keeps its reset; the other fields are datapath registers without reset, since banks
/// and the expander read them only under `valid`.
pub fn uop_regs(m: &mut ModuleBuilder, name: &str, shape: &Shape) -> Bundle {
    uop_regs_with(m, name, shape, |_, _, _| None)
}

/// As `uop_regs`, but a field for which `given(m, field name, width)` returns a value
/// reads that value instead of a register of its own.
pub fn uop_regs_with(
    m: &mut ModuleBuilder,
    name: &str,
    shape: &Shape,
    mut given: impl FnMut(&mut ModuleBuilder, &str, u32) -> Option<Value>,
) -> Bundle {
    let Shape::Bundle(fields) = shape else {
        unreachable!("micro-ops are flat bundles")
    };
    let leaves = fields
        .iter()
        .map(|f| {
            let Shape::UInt(w) = f.shape else {
                unreachable!("micro-op fields are plain bits")
            };
            let n = format!("{name}_{}", f.name);
            let reg = match given(m, &f.name, w) {
                Some(v) => v,
                None if f.name == "valid" => m.reg(&n, w, 0u64),
                None => m.reg(&n, w, ResetValue::None),
            };
            (f.name.clone(), false, Bundle::Leaf(reg))
        })
        .collect();
    Bundle::Fields(leaves)
}

/// A functional unit's result for one bank entry: S elements and their write mask.
pub fn result(p: &HwachaParams) -> Shape {
    Shape::bundle(vec![uint("data", p.bank_width), uint("mask", mask_bits(p))])
}

/// What a bank drives onto one VFU's operand crossbar port: the three operands, mask,
/// function, rounding mode and format (with mixed precision, and packing).
pub fn xbar(p: &HwachaParams) -> Shape {
    let mut fields = vec![
        uint("a", p.bank_width),
        uint("b", p.bank_width),
        uint("c", p.bank_width),
        uint("mask", mask_bits(p)),
        uint("fn", FN_BITS),
        uint("word", 1),
        uint("unit", unit::WIDTH),
        uint("rm", 3),
        uint("fmt", 2),
    ];
    // Mixed precision: a packed operation's rows' class (`MXP_FIELDS`).
    if p.mixed_precision {
        fields.push(uint("pk", 2));
    }
    Shape::valid(Shape::bundle(fields))
}

/// The crossbar ports: VFU0 (IMul, FMA0, FConv) and VFU1 (FMA1, FCmp).
pub const VFUS: usize = 2;

/// The crossbar units' result lines, fanned out to every bank: (name, unit, format of
/// an FMA pipe). Each FMA has a pipe per format, with latencies of their own, so each
/// pipe has its lines (an FMA's double result and a later single operation's result can
/// leave in the same cycle for different banks).
pub fn result_lines() -> Vec<(&'static str, u64, Option<u64>)> {
    vec![
        ("imul", unit::IMUL, None),
        ("fma0_d", unit::FMA, Some(fmt::D)),
        ("fma0_s", unit::FMA, Some(fmt::S)),
        ("fma0_h", unit::FMA, Some(fmt::H)),
        ("fma1_d", unit::FMA1, Some(fmt::D)),
        ("fma1_s", unit::FMA1, Some(fmt::S)),
        ("fma1_h", unit::FMA1, Some(fmt::H)),
        ("fconv", unit::FCONV, None),
        ("fcmp", unit::FCMP, None),
    ]
}

/// A bank's register-file write, for lockstep checking: row, data (S elements, or S
/// predicate bits, unpacked) and element mask; with mixed precision also the class and
/// subword written (`regmap`), and for a packed write (`pk`) the row's data as written
/// with the element mask of every subword (`mask_bits`).
pub fn write_trace(p: &HwachaParams, row_bits: u32, data_bits: u32) -> Shape {
    let mut fields = vec![
        uint("row", row_bits),
        uint("data", data_bits),
        uint("mask", mask_bits(p)),
    ];
    fields.extend(packing_fields(p));
    Shape::valid(Shape::bundle(fields))
}
