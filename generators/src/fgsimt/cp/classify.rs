//! What the front end does with a warp instruction under +a (seed 000, sections 2.2-2.5;
//! docs/fgsimt-engine.md, "CP engine side"): the classification of the golden model's
//! `verification::fgsimt::affine::asrf::Asrf::classify`, decided at decode from the ASRF
//! entries of the instruction's registers.
//!
//! - **CP alone** (the model's `Cp`, computed here): `tidx`, `lui`, `auipc`, the links
//!   of `jal` and of `jalr` on a uniform target, and the integer ALU operations whose
//!   result the affine ALU (`affine_alu.rs`) gives compact, while the warp is converged;
//!   and the instructions without a destination the CP resolves (`jal x0`, `jalr x0` on
//!   a uniform target, fences). The result goes to the ASRF; the lanes see nothing.
//! - **Uniform branch** (+b, the model's `UniformBranch`): a conditional branch on
//!   compact operands every thread takes the same way; the CP compares the bases.
//! - **Scalar** (also the model's `Cp`): a load on a uniform base (a shared load) or an
//!   FP operation on uniforms, converged, with a destination. The CP has neither a data
//!   port nor an FPU of its own in the engine, so it waits until the lanes are idle,
//!   sends the instruction for the fragment's lowest thread alone, and takes that one
//!   result (`scalar_write`) into the ASRF as a uniform; but an aligned shared load reads
//!   its word through the CP's D$ port (`shared_load.rs`) without waiting for the lanes.
//! - **Lanes**, everything else (the model's `Lanes` and `Expand`: a compact result
//!   while diverged is computed by the lanes from expanded operands, which gives the
//!   same values): the instruction goes to the SIU with its compact sources' (base,
//!   stride) (`lane/lane.rs` expands them instead of reading the SRF), and its
//!   destination becomes generic. When the warp is diverged and the destination was
//!   compact, a **materialisation** goes first: the old value, expanded, written to the
//!   warp's threads outside the fragment (`addi rd, rd, 0` or `fsgnj.s rd, rd, rd` with
//!   the old entry as its source), so they keep it once the ASRF forgets it.

use super::affine_alu::{affine_alu, no_wrap, op};
use super::asrf::asrf;
use crate::fgsimt::bundles::COMPACT_SOURCES;
use crate::rocket::decode::{alu_fn, Ctrl};
use hdl::helpers::priority_mux;
use hdl::{mux, Bits, HdlErrors, Inst, ModuleBuilder, Value};

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

fn opcode_is(insn: &Value, opcodes: &[u64]) -> Value {
    let o = insn.slice(6, 0);
    opcodes
        .iter()
        .fold(lit(insn, 0, 1), |a, &c| &a | &o.eq(&lit(insn, c, 7)))
}

/// A compact value: tag, base, stride (16 bits).
#[derive(Clone)]
pub struct Compact {
    pub ok: Value,
    pub base: Value,
    pub stride: Value,
}

/// The front end's plan for the decoded instruction.
pub struct Plan {
    /// The CP completes it: nothing goes to the SIU.
    pub cp_alone: Value,
    /// One thread on the lanes, its result into the ASRF (once the lanes are idle).
    pub scalar: Value,
    /// A scalar load the CP's port serves (`shared_load.rs`), at `load_addr`.
    pub load_in_cp: Value,
    pub load_addr: Value,
    /// The registers it reads and writes: (used, register as `rd`) for rs1, rs2, rs3,
    /// rd.
    pub touches: Vec<(Value, Value)>,
    /// A materialisation of the destination's old value must go first.
    pub materialize: Value,
    /// The materialisation: instruction, and its source (the old entry).
    pub mat_insn: Value,
    pub old: Compact,
    /// The destination (0-63, after its context's number with contexts) and whether
    /// there is one (not x0).
    pub rd: Value,
    pub writes: Value,
    /// The ASRF entry the destination gets when the instruction leaves decode (with the
    /// CP alone: its compact result; to the lanes: generic).
    pub result: Compact,
    /// +b: a conditional branch the CP resolves, and whether every thread takes it.
    pub branch_in_cp: Value,
    pub branch_taken: Value,
    /// A `jalr` the CP resolves: its target.
    pub jalr_in_cp: Value,
    pub jalr_target: Value,
    /// The sources as the SIU gets them (tag: the lanes expand base and stride).
    pub sources: Vec<Compact>,
    /// The warp's threads outside the fragment (the materialisation's mask).
    pub outside: Value,
    /// The ASRF, whose write port the front end drives.
    pub asrf: Option<Inst>,
}

/// The instruction's registers as the SRF numbers them: rs1, rs2, rs3, rd (0-63).
fn registers(insn: &Value, c: &Ctrl) -> [Value; 4] {
    let fp = c.fp.as_ref().expect("decoded with the F extension");
    [
        fp.f1.cat(&insn.slice(19, 15)),
        fp.f2.cat(&insn.slice(24, 20)),
        lit(insn, 1, 1).cat(&insn.slice(31, 27)),
        fp.wfd.cat(&insn.slice(11, 7)),
    ]
}

/// The affine ALU's operation for an OP or OP-IMM instruction (`alu_fn` of the Rocket
/// decode; `mul` for M's multiply).
fn alu_op(c: &Ctrl, mul: &Value) -> Value {
    let f = &c.alu_fn;
    let o = |v: u64| lit(f, v, op::BITS);
    let is = |v: u64| f.eq(&lit(f, v, f.width()));
    priority_mux(
        &[
            (mul.clone(), o(op::MUL)),
            (is(alu_fn::SUB), o(op::SUB)),
            (is(alu_fn::SLL), o(op::SLL)),
            (is(alu_fn::SLT), o(op::SLT)),
            (is(alu_fn::SLTU), o(op::SLTU)),
            (is(alu_fn::XOR), o(op::XOR)),
            (is(alu_fn::SRL), o(op::SRL)),
            (is(alu_fn::SRA), o(op::SRA)),
            (is(alu_fn::OR), o(op::OR)),
            (is(alu_fn::AND), o(op::AND)),
        ],
        &o(op::ADD),
    )
}

/// +b (the golden model's `branch_agrees`): whether every thread of the warp takes the
/// conditional branch `insn` on compact operands `a` and `b` the same way (equal strides;
/// for the ordered compares, neither operand wraps in the compare's signedness), and
/// whether they take it (the bases compare as every thread's values do).
fn uniform_branch(insn: &Value, a: &Compact, b: &Compact, warp_size: u32) -> (Value, Value) {
    let f3 = insn.slice(14, 12);
    let (ordered, signed) = (f3.bit(2), !&f3.bit(1));
    let wraps_not = &no_wrap(&signed, &a.base, &a.stride, warp_size)
        & &no_wrap(&signed, &b.base, &b.stride, warp_size);
    let agrees = &(&(&a.ok & &b.ok) & &a.stride.eq(&b.stride)) & &(&!&ordered | &wraps_not);
    let lt = mux(
        &signed,
        &a.base.as_signed().lt(&b.base.as_signed()),
        &a.base.lt(&b.base),
    );
    let holds = mux(&ordered, &lt, &a.base.eq(&b.base));
    (agrees, &holds ^ &f3.bit(0))
}

/// The compact result of an x-destination instruction in the CP (`tidx`, `lui`, `auipc`,
/// links, and the affine ALU's operations on compact operands, the immediate uniform),
/// and whether the rules give one.
fn x_result(
    m: &mut ModuleBuilder,
    warp_size: u32,
    (insn, pc, tid_base): (&Value, &Value, &Value),
    (c, tidx): (&Ctrl, &Value),
    read: &[Compact],
) -> Result<(Compact, Value), HdlErrors> {
    let alu = m.instance("affine_alu", &affine_alu(warp_size)?);
    let zero16 = lit(insn, 0, 16);
    // The integer ALU operations on compact operands (the immediate is uniform).
    let f3 = insn.slice(14, 12);
    let mul = &c.muldiv & &f3.eq(&lit(&f3, 0, 3));
    let op_imm = opcode_is(insn, &[0x13]);
    let alu_insn = &op_imm | &(&opcode_is(insn, &[0x33]) & &(&!&c.muldiv | &mul));
    m.connect(&alu.port("op"), &alu_op(c, &mul));
    m.connect(&alu.port("a_base"), &read[0].base);
    m.connect(&alu.port("a_stride"), &read[0].stride);
    m.connect(&alu.port("b_base"), &mux(&op_imm, &c.imm, &read[1].base));
    m.connect(
        &alu.port("b_stride"),
        &mux(&op_imm, &zero16, &read[1].stride),
    );
    let b_ok = &op_imm | &read[1].ok;
    let alu_ok = &(&alu_insn & &alu.port("ok")) & &(&read[0].ok & &b_ok);

    let lui = opcode_is(insn, &[0x37]);
    let auipc = opcode_is(insn, &[0x17]);
    let link = &c.jal | &c.jalr;
    let link_value = pc + &lit(pc, 4, 32);
    let result = Compact {
        ok: lit(insn, 1, 1),
        base: priority_mux(
            &[
                (tidx.clone(), tid_base.clone()),
                (lui, c.imm.clone()),
                (auipc, pc + &c.imm),
                (link.clone(), link_value),
            ],
            &alu.port("base"),
        ),
        stride: mux(
            tidx,
            &lit(insn, 1, 16),
            &mux(&alu_ok, &alu.port("stride"), &zero16),
        ),
    };
    let compact_x = any(&[
        tidx.clone(),
        opcode_is(insn, &[0x37, 0x17]),
        c.jal.clone(),
        c.jalr.clone(),
        alu_ok,
    ]);
    Ok((result, compact_x))
}

/// The ASRF (instance `asrf`, of `contexts` banks) and the plan for `insn` at `pc`
/// (decoded as `c`, `tidx` its own flag) for a warp whose first thread is `tid_base`, in
/// context `ctx` (with contexts: its registers are `ctx * 64 + r` in the plan),
/// `converged` or not; with `branches` (+b) uniform branches resolve in the CP.
pub fn classify(
    m: &mut ModuleBuilder,
    (warp_size, branches, contexts): (u32, bool, u32),
    (insn, pc, tid_base, ctx): (&Value, &Value, &Value, Option<&Value>),
    (c, tidx): (&Ctrl, &Value),
    (converged, stacks): (&Value, Option<(&Value, &Value)>),
) -> Result<(Inst, Plan), HdlErrors> {
    let file = m.instance("asrf", &asrf(contexts)?);
    let fp = c.fp.as_ref().expect("decoded with the F extension");
    let local = registers(insn, c);
    let regs = local.clone().map(|r| ctx.map_or(r.clone(), |x| x.cat(&r)));
    let read: Vec<Compact> = regs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            m.connect(&file.port(&format!("r{i}_reg")), r);
            Compact {
                ok: file.port(&format!("r{i}_ok")),
                base: file.port(&format!("r{i}_base")),
                stride: file.port(&format!("r{i}_stride")),
            }
        })
        .collect();
    let uses = [c.uses_rs1.clone(), c.uses_rs2.clone(), fp.uses_rs3.clone()];
    let zero16 = lit(insn, 0, 16);
    let uniform = |s: &Compact| &s.ok & &s.stride.eq(&zero16);
    let all_uniform = uses
        .iter()
        .zip(&read)
        .fold(lit(insn, 1, 1), |a, (u, s)| &a & &(&!u | &uniform(s)));
    let rd = regs[3].clone();
    let writes = &(&c.wxd | tidx) & &!&local[3].eq(&lit(&rd, 0, 6));

    let (result, compact_x) = x_result(m, warp_size, (insn, pc, tid_base), (c, tidx), &read)?;
    let jalr_in_cp = &c.jalr & &uniform(&read[0]);
    let (agrees, branch_taken) = uniform_branch(insn, &read[0], &read[1], warp_size);
    let branch_in_cp = &(&c.branch & &lit(insn, branches as u64, 1)) & &agrees;
    let cp_alone = mux(
        &writes,
        &(&(&compact_x & converged) & &(&!&c.jalr | &jalr_in_cp)),
        &any(&[
            c.jal.clone(),
            c.fence.clone(),
            c.fence_i.clone(),
            jalr_in_cp.clone(),
            branch_in_cp.clone(),
        ]),
    );
    let shared_or_fp = opcode_is(insn, &[0x03, 0x07, 0x53, 0x43, 0x47, 0x4b, 0x4f]);
    let scalar = &(&(&writes & converged) & &all_uniform) & &shared_or_fp;
    let load_addr = &read[0].base + &c.imm;
    // With private stacks (`avc`, `stacks`: their top and bytes), a load there is no
    // shared load: it goes to the lanes, whose stack check sends it to the AVC or faults
    // (the golden model's `Asrf::private_stacks`).
    let scalar = match stacks {
        Some((top, bytes)) => {
            let last = top - &lit(top, 1, 32);
            let in_stacks = (&last - &load_addr).lt(bytes);
            &scalar & &!&(&opcode_is(insn, &[0x03, 0x07]) & &in_stacks)
        }
        None => scalar,
    };
    // A shared load the CP's port serves (a misaligned one goes to the lanes, which
    // fault as the ISS traps).
    let size = insn.slice(13, 12);
    let low = load_addr.slice(1, 0);
    let aligned = any(&[
        size.eq(&lit(&size, 0, 2)),
        &size.eq(&lit(&size, 1, 2)) & &!&low.bit(0),
        low.eq(&lit(&low, 0, 2)),
    ]);
    let load_in_cp = &(&scalar & &opcode_is(insn, &[0x03, 0x07])) & &aligned;
    let to_lanes = &!&cp_alone & &!&scalar;
    let old = read[3].clone();
    let materialize = &(&(&to_lanes & &writes) & &old.ok) & &!converged;
    let r5 = insn.slice(11, 7);
    let mat_x = cat_insn(&[(&r5, 15), (&r5, 7)], 0x13);
    let mat_f = cat_insn(&[(&r5, 20), (&r5, 15), (&r5, 7)], 0x2000_0053);
    let mat_insn = mux(&local[3].bit(5), &mat_f, &mat_x);
    let sources = uses
        .iter()
        .zip(&read)
        .map(|(u, s)| Compact {
            ok: u & &s.ok,
            ..s.clone()
        })
        .collect::<Vec<_>>();
    debug_assert_eq!(sources.len() as u32, COMPACT_SOURCES);
    let jalr_target = &(&read[0].base + &c.imm) & &lit(insn, !1u64 & 0xffff_ffff, 32);
    let result = Compact {
        ok: cp_alone.clone(),
        ..result
    };
    Ok((
        file,
        Plan {
            cp_alone,
            scalar,
            load_in_cp,
            load_addr,
            touches: uses
                .iter()
                .chain([&writes])
                .cloned()
                .zip(regs.iter().cloned())
                .collect(),
            materialize,
            mat_insn,
            old,
            rd,
            writes,
            result,
            branch_in_cp,
            branch_taken,
            jalr_in_cp,
            jalr_target,
            sources,
            outside: lit(insn, 0, warp_size),
            asrf: None,
        },
    ))
}

fn any(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}

/// An instruction word: `base` with each 5-bit register field at its bit position.
fn cat_insn(fields: &[(&Value, u32)], base: u64) -> Value {
    let b = lit(fields[0].0, base, 32);
    fields
        .iter()
        .fold(b, |a, (r, at)| &a | &r.zext(32).shl(*at))
}
