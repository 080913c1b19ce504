//! The CP's affine functional units (seed 000, section 2.2 and Figure 4): the base ALU
//! and the stride unit, computing an operation on two compact operands (32-bit base,
//! 16-bit signed stride; thread i's value is base + i * stride mod 2^32) and whether the
//! result is compact, by the rules of the golden model (`verification::fgsimt::affine::
//! alu`): add, sub, mul by a uniform, shifts by a uniform (right shifts only when no
//! thread of the `warp_size` wraps, and then exact: the stride's low bits zero, or every
//! thread's value the same above the shift), and with a uniform low mask when every
//! thread's value lies in one aligned block, any other operation on two uniforms, and a
//! result stride that fits 16 signed bits.
//!
//! Combinational; the CP registers around it.

use hdl::{mux, Bits, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// Operation codes of the `op` input.
pub mod op {
    pub const ADD: u64 = 0;
    pub const SUB: u64 = 1;
    pub const MUL: u64 = 2;
    pub const SLL: u64 = 3;
    pub const SRL: u64 = 4;
    pub const SRA: u64 = 5;
    pub const SLT: u64 = 6;
    pub const SLTU: u64 = 7;
    pub const XOR: u64 = 8;
    pub const OR: u64 = 9;
    pub const AND: u64 = 10;
    pub const BITS: u32 = 4;
}

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// Whether a 32-bit stride is a sign-extended 16-bit one.
fn fits16(s: &Value) -> Value {
    let top = s.slice(31, 15);
    &top.eq(&lit(s, 0, 17)) | &top.eq(&lit(s, 0x1_ffff, 17))
}

/// The first and last threads' values of (`base`, `stride`) without wrapping, in 34-bit
/// two's complement (`signed`: the base as signed), and whether the last is in range.
struct Span {
    start: Value,
    end: Value,
    in_range: Value,
}

fn span(signed: &Value, base: &Value, stride: &Value, warp: u32) -> Span {
    let start = mux(signed, &base.sext(34).as_unsigned(), &base.zext(34));
    let steps = stride
        .as_signed()
        .mul(&lit(stride, (warp - 1) as u64, 6).as_signed());
    let end = &start + &steps.sext(34).as_unsigned();
    let top = end.slice(33, 31);
    let in_signed = &top.eq(&lit(&end, 0, 3)) | &top.eq(&lit(&end, 7, 3));
    let in_unsigned = end.slice(33, 32).eq(&lit(&end, 0, 2));
    Span {
        start,
        end,
        in_range: mux(signed, &in_signed, &in_unsigned),
    }
}

/// Whether no thread of a `warp`-thread warp wraps (base, stride) (as signed values when
/// `signed`): the golden model's `Compact::no_wrap`.
pub fn no_wrap(signed: &Value, base: &Value, stride: &Value, warp: u32) -> Value {
    span(signed, base, stride, warp).in_range
}

/// Whether a right shift by `k` gives a compact result: the stride's low `k` bits are
/// zero (then affine), or every value has the same bits above `k` (then uniform).
fn shift_right_exact(stride: &Value, sp: &Span, k: &Value) -> (Value, Value) {
    let ones = lit(stride, 0xffff, 16);
    let low_bits = !&ones.dshl(k);
    let exact = (stride & &low_bits).eq(&lit(stride, 0, 16));
    let same = sp.start.as_signed().dshr(k).eq(&sp.end.as_signed().dshr(k));
    (exact, same)
}

/// The affine ALU for warps of `warp_size` threads: inputs `op`, `a_base`, `a_stride`,
/// `b_base`, `b_stride`; outputs `ok` (the result is compact), `base`, `stride`.
pub fn affine_alu(warp_size: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("AffineAlu");
    let opc = m.input("op", op::BITS);
    let (ab, as16) = (m.input("a_base", 32), m.input("a_stride", 16));
    let (bb, bs16) = (m.input("b_base", 32), m.input("b_stride", 16));
    let is = |c: u64| opc.eq(&lit(&opc, c, op::BITS));
    let (a_s, b_s) = (as16.sext(32).as_unsigned(), bs16.sext(32).as_unsigned());
    let a_uni = as16.eq(&lit(&as16, 0, 16));
    let b_uni = bs16.eq(&lit(&bs16, 0, 16));
    let both_uni = &a_uni & &b_uni;
    let k = bb.slice(4, 0);

    // Strides (32 bits, checked to fit 16) and bases of the affine rules.
    let add_s = &a_s + &b_s;
    let sub_s = &a_s - &b_s;
    let mul_src = mux(&b_uni, &a_s, &b_s);
    let uni_base = mux(&b_uni, &bb, &ab);
    let mul_s = mul_src.mul(&uni_base).slice(31, 0);
    let sll_s = a_s.dshl(&k);
    let arith = is(op::SRA);
    // The operand whose threads' values are checked: `a`, or for and with `a` the mask,
    // `b`.
    let (x_base, x_stride) = (mux(&b_uni, &ab, &bb), mux(&b_uni, &as16, &bs16));
    let sp = span(&arith, &x_base, &x_stride, warp_size);
    let sr_base = mux(&arith, &ab.as_signed().dshr(&k).as_unsigned(), &ab.dshr(&k));
    let (exact, same) = shift_right_exact(&as16, &sp, &k);
    let sr_s = mux(
        &exact,
        &as16
            .as_signed()
            .dshr(&k)
            .as_unsigned()
            .sext(32)
            .as_unsigned(),
        &lit(&ab, 0, 32),
    );
    let sr_ok = &(&b_uni & &sp.in_range) & &(&exact | &same);
    // And with a low mask: the mask plus one is a power of two, and all values lie in
    // one aligned block.
    let mask = mux(&b_uni, &bb, &ab);
    let low_mask = (&mask & &(&mask + &lit(&mask, 1, 32))).eq(&lit(&mask, 0, 32));
    let diff = (&sp.start ^ &sp.end).slice(31, 0);
    let one_block = (&diff & &!&mask).eq(&lit(&mask, 0, 32));
    let masked = &(&(&a_uni | &b_uni) & &low_mask) & &(&one_block & &sp.in_range);
    let and_ok = &both_uni | &masked;

    let lt = ab.as_signed().lt(&bb.as_signed()).zext(32);
    let ltu = ab.lt(&bb).zext(32);
    let rows: [(u64, Value, Value, Value); 11] = [
        (op::ADD, &ab + &bb, add_s.clone(), fits16(&add_s)),
        (op::SUB, &ab - &bb, sub_s.clone(), fits16(&sub_s)),
        (
            op::MUL,
            ab.mul(&bb).slice(31, 0),
            mul_s.clone(),
            &(&a_uni | &b_uni) & &fits16(&mul_s),
        ),
        (
            op::SLL,
            ab.dshl(&k),
            sll_s.clone(),
            &b_uni & &fits16(&sll_s),
        ),
        (op::SRL, sr_base.clone(), sr_s.clone(), sr_ok.clone()),
        (op::SRA, sr_base, sr_s, sr_ok),
        (op::SLT, lt, lit(&ab, 0, 32), both_uni.clone()),
        (op::SLTU, ltu, lit(&ab, 0, 32), both_uni.clone()),
        (op::XOR, &ab ^ &bb, lit(&ab, 0, 32), both_uni.clone()),
        (op::OR, &ab | &bb, lit(&ab, 0, 32), both_uni.clone()),
        (op::AND, &ab & &bb, mux(&b_uni, &a_s, &b_s), and_ok),
    ];
    let zero = lit(&ab, 0, 32);
    let (mut base, mut stride, mut ok) = (zero.clone(), zero, lit(&ab, 0, 1));
    for (code, b, s, o) in rows {
        let sel = is(code);
        base = mux(&sel, &b, &base);
        stride = mux(&sel, &s, &stride);
        ok = mux(&sel, &o, &ok);
    }
    let (ok_out, base_out, stride_out) = (
        m.output("ok", 1),
        m.output("base", 32),
        m.output("stride", 16),
    );
    m.connect(&ok_out, &ok);
    m.connect(&base_out, &base);
    m.connect(&stride_out, &stride.slice(15, 0));
    m.finish()
}
