//! `MulDiv`: the RISC-V M extension's multiply and divide unit.
//!
//! The iterative engine works on magnitudes and fixes the sign once at the end (a negated
//! 128-bit product for MULH*, negated quotient/remainder for DIV/REM), so one unsigned
//! datapath serves every signedness. Two organisations:
//! - iterative (`mul = "iterative"`): one engine for multiply (shift-and-add,
//!   `mul_bits_per_cycle` multiplier bits per cycle) and divide (restoring,
//!   `div_bits_per_cycle` quotient bits per cycle), one operation at a time; *W forms run
//!   half the iterations. With `mul_early_out` a multiply ends once the multiplier's
//!   remaining bits are zero (`early_out`): a product of a small magnitude takes a step
//!   or two (Rocket's `mulEarlyOut`).
//! - pipelined (`mul = "pipelined"`): a multiplier taking one operation per cycle whose
//!   result leaves after `mul_stages` cycles (the first stage's registers hold the
//!   operands, the other stages are pipeline registers inside one 65 x 65 signed
//!   multiplier, `arith::multiply`, that serves every function), beside the
//!   iterative engine used for divides only. A divide waits until the multiplier is
//!   empty and multiplies wait while a divide is in flight, so results leave in order.
//!
//! The engine's sums, differences and negations follow `adders`
//! ([`crate::arith::adder::Style`]): with `prefix` a multiply step's rows go through a
//! Wallace tree ([`crate::arith::wallace`]) and Kogge-Stone adders, for ASICs.
//!
//! With `registered_result` the engine's result is registered in one more cycle after
//! the last iteration, so the response leaves (almost) from a register: a cycle per
//! operation that keeps the sign fix (a negation or increment, the word forms'
//! selection) off the receiver's paths (the Rocket core's bypass and writeback). With
//! `prefix` the fix is split around those registers ([`prefix_result`]): a select, an
//! XOR and the word form's sign extension follow them.
//!
//! `kill` aborts every operation accepted in an earlier cycle (a request firing in the
//! same cycle is accepted): the core raises it when an older instruction traps or
//! redirects. Results wait in place while `resp.ready` is low.

use super::bus::{muldiv_request, muldiv_response};
use super::params::{MulDivParams, MulKind};
use crate::arith::adder::Style;
use crate::arith::booth::Row;
use crate::arith::wallace;
use crate::arith::{multiply, MulConfig};
use hdl::{cat, mux, Bits, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// funct3 values of the M extension.
const MUL: u64 = 0;

pub fn muldiv(p: &MulDivParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("MulDiv");
    let req = m.io("req", Dir::In, &muldiv_request());
    let resp = m.io("resp", Dir::Out, &muldiv_response());
    let kill = m.input("kill", 1);
    let f3 = req.bits().get("funct3").value().clone();
    let is_mul = !&f3.bit(2);
    let resp_ready = resp.ready().clone();
    let ports = Ports {
        valid: req.valid().clone(),
        funct3: f3.clone(),
        word: req.bits().get("word").value().clone(),
        in1: req.bits().get("in1").value().clone(),
        in2: req.bits().get("in2").value().clone(),
        kill,
    };
    match p.mul {
        MulKind::Iterative => {
            let e = engine(&mut m, p, true, &ports, &resp_ready);
            m.connect(req.ready(), &e.idle);
            m.connect(resp.valid(), &e.done);
            m.connect(resp.bits().get("data").value(), &e.result);
        }
        MulKind::Pipelined => {
            let pipe_ready = m.wire("mul_ready", 1);
            let pipe_busy = m.wire("mul_busy", 1);
            // Multiplies never enter the engine, divides never the pipeline.
            let div_ports = Ports {
                valid: &(&ports.valid & &!&is_mul) & &!&pipe_busy,
                ..ports.clone()
            };
            let e = engine(&mut m, p, false, &div_ports, &resp_ready);
            let mul_ports = Ports {
                valid: &ports.valid & &is_mul,
                ..ports.clone()
            };
            let pipe = pipeline(&mut m, p.mul_stages, &mul_ports, &pipe_ready, &resp_ready);
            m.connect(&pipe_busy, &pipe.busy);
            m.connect(&pipe_ready, &e.idle);
            let div_ready = &e.idle & &!&pipe_busy;
            m.connect(req.ready(), &mux(&is_mul, &pipe.ready, &div_ready));
            m.connect(resp.valid(), &(&e.done | &pipe.valid));
            m.connect(
                resp.bits().get("data").value(),
                &mux(&e.done, &e.result, &pipe.data),
            );
        }
    }
    m.finish()
}

/// The request as the datapaths see it.
#[derive(Clone)]
struct Ports {
    valid: Value,
    funct3: Value,
    word: Value,
    in1: Value,
    in2: Value,
    kill: Value,
}

struct Engine {
    /// Ready for a request.
    idle: Value,
    /// `result` is valid.
    done: Value,
    result: Value,
}

/// `-x` when `c` (one bit), else `x`, built in `style`: with `prefix` by
/// [`select_negated`].
fn cond_negated(style: Style, x: &Value, c: &Value) -> Value {
    match style {
        Style::Prefix => select_negated(x, c),
        Style::Inferred => mux(c, &x.neg(), x),
    }
}

/// Bits per block of [`select_negated`].
const NEG_BLOCK: u32 = 16;

/// `-x` when `c`, else `x`, carry-select over [`NEG_BLOCK`]-bit blocks: bit i of `-x` is
/// `x[i] ^ |x[i-1:0]`; inside a block the OR runs over the block's bits ([`lower_or`]),
/// and whether a lower block has a set bit selects the block's `x ^ c` instead. As one
/// 64-bit prefix OR, abc's area recovery mapped it as a ripple chain of some 40 cells
/// (the operand magnitudes at 2.6 ns on nangate45); carry-select, 2.0 ns.
fn select_negated(x: &Value, c: &Value) -> Value {
    let x = x.as_unsigned();
    let mut blocks = Vec::new();
    // Whether a block below the current one has a set bit.
    let mut below: Option<Value> = None;
    let mut lo = 0;
    while lo < x.width() {
        let hi = (lo + NEG_BLOCK).min(x.width()) - 1;
        let xb = x.slice(hi, lo);
        let cw = c.repeat(xb.width());
        let inside = &xb ^ &(&cw & &lower_or(&xb));
        blocks.push(match &below {
            None => inside,
            Some(b) => mux(b, &(&xb ^ &cw), &inside),
        });
        let any = xb.or_r();
        below = Some(match below {
            None => any,
            Some(b) => &b | &any,
        });
        lo = hi + 1;
    }
    let msb_first: Vec<&Value> = blocks.iter().rev().collect();
    cat(&msb_first)
}

/// For each bit i, the OR of `x`'s bits below it (0 for bit 0): log2(width) levels of a
/// Kogge-Stone prefix OR.
fn lower_or(x: &Value) -> Value {
    let mut o = x.as_unsigned();
    let mut d = 1;
    while d < x.width() {
        o = &o | &o.shl(d);
        d *= 2;
    }
    o.shl(1)
}

/// |x| of a 64-bit operand (the low 32 bits when `word`), and whether x < 0 when `signed`.
/// With `prefix` one conditional negation serves both widths (the low 32 bits of `-x` are
/// those of `-x[31:0]`), its condition selected by `word`.
fn magnitude(style: Style, x: &Value, word: &Value, signed: &Value) -> (Value, Value) {
    let neg64 = signed & &x.bit(63);
    let neg32 = signed & &x.bit(31);
    match style {
        Style::Prefix => {
            let neg = mux(word, &neg32, &neg64);
            let m = cond_negated(style, x, &neg);
            let high = mux(word, &m.konst(Bits::zero(32)), &m.slice(63, 32));
            (cat(&[&high, &m.slice(31, 0)]), neg)
        }
        Style::Inferred => {
            let low = x.slice(31, 0);
            let mag32 = cond_negated(style, &low, &neg32).zext(64);
            let mag64 = cond_negated(style, x, &neg64);
            (mux(word, &mag32, &mag64), mux(word, &neg32, &neg64))
        }
    }
}

/// The low word of a *W product: *W runs 32 bits of multiplier (all of them at
/// `mb` = 64 per cycle), and the product's low word sits where the shifting left it.
fn low_word(a: &Value, mb: u32) -> Value {
    if mb == 64 {
        a.slice(31, 0)
    } else {
        a.slice(63, 32)
    }
}

/// `x`, or its low 32 bits sign-extended when `word`.
fn word_result(x: &Value, word: &Value) -> Value {
    mux(word, &x.slice(31, 0).sext(64).as_unsigned(), x)
}

/// The iterative engine; `with_mul` false leaves out the multiply datapath (the requests
/// it is given are then all divides).
fn engine(
    m: &mut ModuleBuilder,
    p: &MulDivParams,
    with_mul: bool,
    r: &Ports,
    resp_ready: &Value,
) -> Engine {
    let (mb, db) = (p.mul_bits_per_cycle, p.div_bits_per_cycle);
    let (s, idle, fire) = registers(m, p, with_mul, &r.valid);
    let q = decode_request(m, p, with_mul, r);
    let k = |v: u64, w: u32| r.kill.konst(Bits::from_u64(w, v));
    let (one, zero) = (k(1, 1), k(0, 1));
    let iterations = |bits: u32, width: u32| k((width / bits).max(1) as u64, 7);
    let mul_iters = mux(&r.word, &iterations(mb, 32), &iterations(mb, 64));
    let div_iters = mux(&r.word, &iterations(db, 32), &iterations(db, 64));
    let zero64 = k(0, 64);

    let chain = m
        .when(&fire, |m| {
            load(
                m,
                with_mul,
                &s,
                r,
                (&q, &mul_iters, &div_iters),
                (&one, &zero64),
            )
        })
        .elsewhen(&r.kill, |m| {
            m.connect(&s.busy, &zero);
            if let Some(f) = &s.fixing {
                m.connect(f, &zero);
            }
            m.connect(&s.done, &zero);
        })
        .elsewhen(&s.busy, |m| iterate(m, p, with_mul, &s, r, (&one, &zero)));
    let chain = match &s.fixing {
        Some(f) => chain.elsewhen(f, |m| {
            m.connect(f, &zero);
            m.connect(&s.done, &one);
        }),
        None => chain,
    };
    chain.elsewhen(&(&s.done & resp_ready), |m| m.connect(&s.done, &zero));

    let result = engine_result(m, p, with_mul, &s, &zero64);
    Engine {
        idle,
        done: s.done,
        result,
    }
}

/// The engine's registers.
struct Regs {
    busy: Value,
    /// With a registered result: the cycle after the last iteration, when it loads.
    fixing: Option<Value>,
    done: Value,
    /// The latched request (`op.mul` a constant 0 in an engine that does not multiply).
    op: Op,
    count: Value,
    /// A divide that may skip leading zero bytes has not taken its first step (its
    /// divisor is not zero).
    fresh: Option<Value>,
    acc: Value,
    a: Value,
    b: Value,
}

/// The engine's control and datapath registers; also returns whether it is idle (ready
/// for a request) and whether a request (`valid`) fires.
fn registers(
    m: &mut ModuleBuilder,
    p: &MulDivParams,
    with_mul: bool,
    valid: &Value,
) -> (Regs, Value, Value) {
    let busy = m.reg("busy", 1, false);
    let fixing = p.registered_result.then(|| m.reg("fixing", 1, false));
    let done = m.reg("done", 1, false);
    let idle = match &fixing {
        Some(f) => !&(&(&busy | f) | &done),
        None => !&(&busy | &done),
    };
    let fire = valid & &idle;
    // Latched request: multiply or divide, high half / remainder, word, negate result.
    // Only an engine that multiplies needs to remember which it is doing.
    let mul_op = if with_mul {
        m.reg("op_mul", 1, false)
    } else {
        m.lit(0, 1)
    };
    let upper = m.reg("op_upper", 1, false);
    let word = m.reg("op_word", 1, false);
    let negate = m.reg("op_negate", 1, false);
    let count = m.reg("count", 7, 0u64);
    let fresh = p.div_early_out.then(|| m.reg("div_fresh", 1, false));
    // Multiply: {acc, a} is the 128-bit product register (multiplier shifts out of `a`'s
    // bottom as product bits shift in at its top), `b` the multiplicand.
    // Divide: `acc` the partial remainder, `a` the dividend shifting out at the top as
    // quotient bits shift in at the bottom, `b` the divisor.
    // Datapath registers, written at `fire` before any use: no reset.
    let acc = m.reg("acc", 64, ResetValue::None);
    let a = m.reg("a", 64, ResetValue::None);
    let b = m.reg("b", 64, ResetValue::None);
    let op = Op {
        mul: mul_op,
        upper,
        word,
        negate,
    };
    let regs = Regs {
        busy,
        fixing,
        done,
        op,
        count,
        fresh,
        acc,
        a,
        b,
    };
    (regs, idle, fire)
}

/// The request as the engine loads it.
struct Request {
    mul: Value,
    upper: Value,
    /// The result's sign fix, for a multiply and for a divide.
    mul_negate: Value,
    div_negate: Value,
    /// The operands' magnitudes.
    mag1: Value,
    mag2: Value,
    /// The divisor is zero.
    in2_zero: Value,
}

/// Decodes the request: multiply or divide, high half or remainder, the operands'
/// magnitudes and the result's sign.
fn decode_request(m: &mut ModuleBuilder, p: &MulDivParams, with_mul: bool, r: &Ports) -> Request {
    let f3 = &r.funct3;
    let req_mul = if with_mul { !&f3.bit(2) } else { m.lit(0, 1) };
    // Signedness of each operand: MULH (1) both, MULHSU (2) rs1 only, DIV/REM (4, 6) both.
    let f3_is = |v: u64| f3.eq(&f3.konst(Bits::from_u64(3, v)));
    let s1 = &(&f3_is(1) | &f3_is(2)) | &(&f3.bit(2) & &!&f3.bit(0));
    let s2 = &f3_is(1) | &(&f3.bit(2) & &!&f3.bit(0));
    let (mag1, neg1) = magnitude(p.adders, &r.in1, &r.word, &s1);
    let (mag2, neg2) = magnitude(p.adders, &r.in2, &r.word, &s2);
    let in2_zero = mux(
        &r.word,
        &r.in2.slice(31, 0).eq(&m.lit(0, 32)),
        &r.in2.eq(&m.lit(0, 64)),
    );
    let rem_op = f3.bit(1);
    // Quotient sign: operands differ, except x/0 = -1 (all ones, unnegated); remainder
    // sign: the dividend's. Product sign: operands differ (MUL and MULW need none: their
    // low bits do not depend on signedness).
    let div_negate = mux(&rem_op, &neg1, &(&(&neg1 ^ &neg2) & &!&in2_zero));
    let req_upper = mux(&req_mul, &f3.ne(&f3.konst(Bits::from_u64(3, MUL))), &rem_op);
    let mul_negate = &(&neg1 ^ &neg2) & &req_upper;
    Request {
        mul: req_mul,
        upper: req_upper,
        mul_negate,
        div_negate,
        mag1,
        mag2,
        in2_zero,
    }
}

/// Loads an accepted request `q` into the registers, with its iteration count (of a
/// multiply or a divide) and the product register cleared.
fn load(
    m: &mut ModuleBuilder,
    with_mul: bool,
    s: &Regs,
    r: &Ports,
    (q, mul_iters, div_iters): (&Request, &Value, &Value),
    (one, zero64): (&Value, &Value),
) {
    m.connect(&s.busy, one);
    if with_mul {
        m.connect(&s.op.mul, &q.mul);
    }
    m.connect(&s.op.upper, &q.upper);
    m.connect(&s.op.word, &r.word);
    m.connect(&s.op.negate, &mux(&q.mul, &q.mul_negate, &q.div_negate));
    m.connect(&s.acc, zero64);
    // A *W dividend starts in the upper half so its bits leave first.
    let dividend = mux(&r.word, &q.mag1.shl(32), &q.mag1);
    m.connect(&s.count, &mux(&q.mul, mul_iters, div_iters));
    m.connect(&s.a, &mux(&q.mul, &q.mag1, &dividend));
    if let Some(f) = &s.fresh {
        m.connect(f, &(&!&q.mul & &!&q.in2_zero));
    }
    m.connect(&s.b, &q.mag2);
}

/// An iteration of a running operation: a multiply step or divide steps, the count
/// stepping down to the last (then `fixing`, or `done`); a multiply may end early
/// ([`early_out`]) and a divide's first cycle may skip leading zero bytes.
fn iterate(
    m: &mut ModuleBuilder,
    p: &MulDivParams,
    with_mul: bool,
    s: &Regs,
    r: &Ports,
    (one, zero): (&Value, &Value),
) {
    let (mb, db) = (p.mul_bits_per_cycle, p.div_bits_per_cycle);
    let k = |v: u64, w: u32| r.kill.konst(Bits::from_u64(w, v));
    let (acc, a, count) = (&s.acc, &s.a, &s.count);
    let last = count.eq(&k(1, 7));
    m.connect(count, &(count - &k(1, 7)));
    m.when(&last, |m| {
        m.connect(&s.busy, zero);
        m.connect(s.fixing.as_ref().unwrap_or(&s.done), one);
    });
    let (d_acc, d_a) = divide_steps(p.adders, acc, a, &s.b, db);
    if with_mul {
        let (m_acc, m_a) = multiply_step(p.adders, acc, a, &s.b, mb);
        m.connect(acc, &mux(&s.op.mul, &m_acc, &d_acc));
        m.connect(a, &mux(&s.op.mul, &m_a, &d_a));
    } else {
        m.connect(acc, &d_acc);
        m.connect(a, &d_a);
    }
    let early = (with_mul && p.mul_early_out)
        .then(|| early_out(acc, a, count, mb))
        .flatten();
    if let Some((early, e_acc, e_a)) = early {
        m.when(&(&s.op.mul & &early), |m| {
            m.connect(acc, &e_acc);
            m.connect(a, &e_a);
            m.connect(count, &k(0, 7));
            m.connect(&s.busy, zero);
            m.connect(s.fixing.as_ref().unwrap_or(&s.done), one);
        });
    }
    // A divide's first cycle skips the dividend's leading zero bytes instead of
    // a step, when it has some (`skip_zero_bytes`).
    if let Some(f) = &s.fresh {
        m.connect(f, zero);
        let (skip, s_a, s_count) = skip_zero_bytes(a, count, &s.op.word, db);
        m.when(&(f & &skip), |m| {
            m.connect(acc, acc);
            m.connect(a, &s_a);
            m.connect(count, &s_count);
        });
    }
}

/// The engine's result, `acc` and `a` with the sign fix: with `prefix` split around
/// the `fixing` cycle's registers ([`prefix_result`]), else computed whole
/// ([`inferred_result`]) and, with a registered result, loaded in that cycle.
fn engine_result(
    m: &mut ModuleBuilder,
    p: &MulDivParams,
    with_mul: bool,
    s: &Regs,
    zero64: &Value,
) -> Value {
    let mb = p.mul_bits_per_cycle;
    let (acc, a) = (&s.acc, &s.a);
    match p.adders {
        Style::Prefix => {
            let low_word = (with_mul && mb < 64).then(|| low_word(a, mb));
            prefix_result(m, acc, a, &s.op, low_word.as_ref(), s.fixing.is_some())
        }
        Style::Inferred => {
            let result = inferred_result(acc, a, &s.op, with_mul, mb, zero64);
            match &s.fixing {
                Some(f) => {
                    // Loaded in the `fixing` cycle, observed only under `done`: no reset.
                    let q = m.reg("result", 64, ResetValue::None);
                    m.when(f, |m| m.connect(&q, &result));
                    q
                }
                None => result,
            }
        }
    }
}

/// The latched request as the result's sign fix sees it.
struct Op {
    /// A multiply (else a divide).
    mul: Value,
    /// The high half of a product, or a remainder.
    upper: Value,
    word: Value,
    /// The result is negated (a product's high half: `!acc + (a == 0)`).
    negate: Value,
}

/// The result with `prefix`: the value fixed is `src` (the quotient or a product's low
/// half in `a`, the remainder or a product's high half in `acc`, a *W product's
/// `low_word`); bit i of a negated quotient or remainder is `src[i] ^ |src[i-1:0]`, of a
/// negated high half `!acc[i] ^ (a == 0 && acc[i-1:0] == 0)`. The prefix ORs run within
/// each 32-bit half; the high half's, combined with whether the low half has a set bit,
/// completes after the result's registers when `registered`: abc's area recovery maps
/// a 64-bit prefix OR as a ripple chain (some 40 cells, 2.3 ns on nangate45), and a
/// register bounds it to a half, the completion (a select, an XOR and the word form's
/// sign extension) going to the receiver, whose path from the response is short.
/// The registers load every cycle, from `acc`, `a` and the latched request, which hold
/// from the last iteration until the result is taken, and are observed only under
/// `done`: no reset, no enable.
fn prefix_result(
    m: &mut ModuleBuilder,
    acc: &Value,
    a: &Value,
    op: &Op,
    low_word: Option<&Value>,
    registered: bool,
) -> Value {
    let src = mux(&op.upper, acc, a);
    let src = match low_word {
        Some(lw) => mux(&(&op.mul & &op.word), &lw.zext(64), &src),
        None => src,
    };
    // `high_neg`: flip where no bit below is set, in `!acc`; else where one is.
    let high_neg = &op.mul & &op.negate;
    let c = &op.negate & &(&!&op.mul | &a.eq(&a.konst(Bits::zero(64))));
    let flips = |half: &Value| &c.repeat(32) & &(&high_neg.repeat(32) ^ &lower_or(half));
    let mut stage = |name: &str, v: &Value| {
        if !registered {
            return v.clone();
        }
        let q = m.reg(name, v.width(), ResetValue::None);
        m.connect(&q, v);
        q
    };
    let value = stage("fix_value", &(&src ^ &high_neg.repeat(64)));
    let flip_low = stage("fix_flip_low", &flips(&src.slice(31, 0)));
    let flip_high = stage("fix_flip_high", &flips(&src.slice(63, 32)));
    let low_any = stage("fix_low_any", &src.slice(31, 0).or_r());
    let flip_all = stage("fix_flip_all", &(&c & &!&high_neg));
    let flip_high = mux(&low_any, &flip_all.repeat(32), &flip_high);
    word_result(&(&value ^ &cat(&[&flip_high, &flip_low])), &op.word)
}

/// The result with `inferred`: Yosys's negations and increment, each form selected.
fn inferred_result(
    acc: &Value,
    a: &Value,
    op: &Op,
    with_mul: bool,
    mb: u32,
    zero64: &Value,
) -> Value {
    let Op {
        mul: mul_op,
        upper,
        word,
        negate,
    } = op;
    // Divide result: quotient in `a`, remainder in `acc` (the low halves for *W).
    let v = mux(upper, acc, a);
    let (neg64, neg32) = (v.neg(), v.slice(31, 0).neg());
    let div_value = mux(
        word,
        &mux(negate, &neg32, &v.slice(31, 0)).zext(64),
        &mux(negate, &neg64, &v),
    );
    let div_result = word_result(&div_value, word);
    if !with_mul {
        return div_result;
    }
    // High half of the negated product: ~hi plus the carry out of -lo (lo == 0).
    let style = Style::Inferred;
    let hi = mux(negate, &style.add(&!acc, &a.eq(zero64).zext(64)), acc);
    let mul_result = mux(
        word,
        &low_word(a, mb).sext(64).as_unsigned(),
        &mux(upper, &hi, a),
    );
    mux(mul_op, &mul_result, &div_result)
}

/// The multiplier's early out: with `count` steps left and the multiplier bits they
/// would retire (the low `count * bits` of `a`) all zero, those steps only shift the
/// product register `{acc, a}` right by `count * bits`, which is done at once. Offered
/// where `count * bits` is a whole number of bytes (and at least two steps are left),
/// so the shift is an 8-way select per bit whatever `bits` is. Returns `(taken, acc,
/// a)`, or `None` when no step count qualifies.
fn early_out(acc: &Value, a: &Value, count: &Value, bits: u32) -> Option<(Value, Value, Value)> {
    let product = cat(&[acc, a]);
    let options: Vec<(Value, Value)> = (2..=64 / bits)
        .filter(|j| (j * bits).is_multiple_of(8))
        .map(|j| {
            let shift = j * bits;
            let left = count.eq(&count.konst(Bits::from_u64(7, j as u64)));
            let zero = a.slice(shift - 1, 0).eq(&a.konst(Bits::zero(shift)));
            (&left & &zero, product.shr(shift))
        })
        .collect();
    let (first, rest) = options.split_first()?;
    let (taken, shifted) = rest
        .iter()
        .fold(first.clone(), |(t, v), (c, x)| (&t | c, mux(c, x, &v)));
    Some((taken, shifted.slice(127, 64), shifted.slice(63, 0)))
}

/// The divider's early out: a dividend's leading zero bytes would each take `8 / bits`
/// steps that only shift a zero quotient bit in (the remainder stays zero), unless the
/// divisor is zero (every step then fits, and x/0 is all ones: such a divide is never
/// `fresh`). The divide's first cycle skips them instead of taking a step: `a` (the
/// dividend, a *W one in the upper half) shifted up by them and the steps left lowered,
/// at least one left (a *W dividend has 4 bytes, so at most 3 are skipped); a byte
/// granularity keeps the shift an 8-way select, from registers. Returns whether there
/// is a byte to skip, the shifted dividend and the steps left.
fn skip_zero_bytes(a: &Value, count: &Value, word: &Value, bits: u32) -> (Value, Value, Value) {
    let (mut skip, mut shifted, mut steps) = (a.konst(Bits::zero(1)), a.clone(), count.clone());
    for z in 1..8u32 {
        let zero = a.slice(63, 64 - 8 * z).eq(&a.konst(Bits::zero(8 * z)));
        let take = if z > 3 { &zero & &!word } else { zero };
        let fewer = count.konst(Bits::from_u64(7, (8 * z / bits) as u64));
        skip = &skip | &take;
        shifted = mux(&take, &a.shl(8 * z), &shifted);
        steps = mux(&take, &(count - &fewer), &steps);
    }
    (skip, shifted, steps)
}

/// One shift-and-add step retiring `bits` multiplier bits from the bottom of `a`.
fn multiply_step(style: Style, acc: &Value, a: &Value, b: &Value, bits: u32) -> (Value, Value) {
    let chunk = a.slice(bits - 1, 0);
    let w = 64 + bits;
    let sum = match style {
        Style::Inferred => &acc.zext(w) + &b.mul(&chunk),
        Style::Prefix => {
            // acc and one row of b per multiplier bit, carry-save down to two rows.
            let zero = b.konst(Bits::zero(64));
            let mut rows = vec![Row {
                off: 0,
                bits: acc.clone(),
            }];
            rows.extend((0..bits).map(|j| Row {
                off: j,
                bits: mux(&chunk.bit(j), b, &zero),
            }));
            rows.sort_by_key(|r| r.off);
            while rows.len() > 2 {
                rows = wallace::level(rows, w);
            }
            let [x, y] = [&rows[0], &rows[1]].map(|r| wallace::align(r, 0, w));
            style.add(&x, &y)
        }
    };
    let new_a = if bits == 64 {
        sum.slice(63, 0)
    } else {
        cat(&[&sum.slice(bits - 1, 0), &a.slice(63, bits)])
    };
    (sum.slice(63 + bits, bits), new_a)
}

/// `bits` restoring-division steps: shift the next dividend bit into the remainder and
/// subtract the divisor when it fits, shifting the quotient bit into `a`.
fn divide_steps(style: Style, acc: &Value, a: &Value, b: &Value, bits: u32) -> (Value, Value) {
    let (mut acc, mut a) = (acc.clone(), a.clone());
    let divisor = b.zext(65);
    for _ in 0..bits {
        let shifted = cat(&[&acc, &a.bit(63)]);
        let (diff, below) = match style {
            Style::Prefix => style.sub(&shifted, &divisor),
            Style::Inferred => {
                let diff = shifted.subc(&divisor);
                let below = diff.bit(65);
                (diff, below)
            }
        };
        let fits = !&below;
        acc = mux(&fits, &diff.slice(63, 0), &shifted.slice(63, 0));
        a = cat(&[&a.slice(62, 0), &fits]);
    }
    (acc, a)
}

struct Pipe {
    /// Ready for a multiply (the pipeline advances).
    ready: Value,
    /// Some multiply is in flight.
    busy: Value,
    valid: Value,
    data: Value,
}

/// The pipelined multiplier: stage 1 holds the operands, the product is formed from them
/// by `arith::multiply` with its `stages - 1` pipeline registers inside. The whole
/// pipeline stalls while its last stage holds a result that is not taken.
fn pipeline(
    m: &mut ModuleBuilder,
    stages: u32,
    r: &Ports,
    ready_in: &Value,
    resp_ready: &Value,
) -> Pipe {
    let valid: Vec<Value> = (1..=stages)
        .map(|i| m.reg(&format!("mul_valid{i}"), 1, false))
        .collect();
    let last = valid[stages as usize - 1].clone();
    let advance = &!&last | resp_ready;
    let fire = &(&r.valid & ready_in) & &advance;
    let f3 = m.reg_en("mul_funct3", 3, 0u64, &fire);
    let word = m.reg_en("mul_word", 1, false, &fire);
    let in1 = m.reg_en("mul_in1", 64, 0u64, &fire);
    let in2 = m.reg_en("mul_in2", 64, 0u64, &fire);
    for (reg, input) in [
        (&f3, &r.funct3),
        (&word, &r.word),
        (&in1, &r.in1),
        (&in2, &r.in2),
    ] {
        m.connect(reg, input);
    }
    // One 65 x 65 signed product serves every function: MULH (1) and MULHSU (2) extend
    // rs1 by its sign, MULH rs2 too, the others by a zero. It takes the other
    // `stages - 1` cycles, its registers inside the multiplier; funct3 and word follow.
    let f3_is = |v: &Value, f: u64| v.eq(&v.konst(Bits::from_u64(3, f)));
    let ext = |x: &Value, signed: &Value| {
        mux(signed, &x.as_signed().sext(65).as_unsigned(), &x.zext(65)).as_signed()
    };
    let in1_signed = &f3_is(&f3, 1) | &f3_is(&f3, 2);
    let cfg = MulConfig { stages: stages - 1 };
    let product = multiply(
        m,
        &ext(&in1, &in1_signed),
        &ext(&in2, &f3_is(&f3, 1)),
        &cfg,
        &advance,
    );
    let (f3, word) = (1..stages).fold((f3, word), |(f3, word), i| {
        let f3_next = m.reg_en(&format!("mul_funct3_{}", i + 1), 3, 0u64, &advance);
        let word_next = m.reg_en(&format!("mul_word_{}", i + 1), 1, false, &advance);
        m.connect(&f3_next, &f3);
        m.connect(&word_next, &word);
        (f3_next, word_next)
    });
    let low = product.slice(63, 0);
    let full = mux(&f3_is(&f3, MUL), &low, &product.slice(127, 64));
    let data = word_result(&mux(&word, &low, &full), &word);
    let mut prev_valid = valid[0].clone();
    let zero = r.kill.konst(Bits::zero(1));
    m.when(&r.kill, |m| {
        for v in &valid {
            m.connect(v, &zero);
        }
    });
    m.when(&advance, |m| m.connect(&valid[0], &fire));
    for v in valid.iter().skip(1) {
        let kill = r.kill.clone();
        m.when(&advance, |m| m.connect(v, &(&prev_valid & &!&kill)));
        prev_valid = v.clone();
    }
    let busy = valid[1..].iter().fold(valid[0].clone(), |acc, v| &acc | v);
    Pipe {
        ready: &advance & ready_in,
        busy,
        valid: last,
        data,
    }
}
