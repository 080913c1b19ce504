//! `Value`: a typed (unsigned/signed) view of an IR node, with hardware operators.
//! Operators record width/type errors in the module instead of panicking, so a generator
//! reports every mistake at `finish`.

use super::{Ctx, State};
use crate::bits::{Bits, MAX_WIDTH};
use crate::error::{ErrorKind, SrcLoc};
use crate::ir::{BinOp, CmpOp, NodeId, Op, RedOp};
use std::fmt;
use std::ops;
use std::panic::Location;
use std::rc::Rc;

#[derive(Clone)]
pub struct Value {
    ctx: Ctx,
    node: NodeId,
    width: u32,
    signed: bool,
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let st = self.ctx.borrow();
        write!(
            f,
            "Value({} {}{})",
            st.describe(self.node),
            if self.signed { "s" } else { "u" },
            self.width
        )
    }
}

impl Value {
    pub(crate) fn new(ctx: &Ctx, node: NodeId, width: u32, signed: bool) -> Value {
        Value {
            ctx: ctx.clone(),
            node,
            width,
            signed,
        }
    }

    pub(crate) fn node(&self) -> NodeId {
        self.node
    }

    /// This value's node, checking that it belongs to the module of `ctx`.
    pub(crate) fn node_in(&self, ctx: &Ctx, loc: SrcLoc) -> NodeId {
        if !Rc::ptr_eq(&self.ctx, ctx) {
            let other = self.ctx.borrow().name.clone();
            ctx.borrow_mut().error(
                ErrorKind::ForeignValue,
                "",
                loc,
                format!("a value of module `{other}` is used here; pass it through a port"),
            );
        }
        self.node
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn is_signed(&self) -> bool {
        self.signed
    }

    /// The same bits viewed as two's complement.
    pub fn as_signed(&self) -> Value {
        Value {
            signed: true,
            ..self.clone()
        }
    }

    pub fn as_unsigned(&self) -> Value {
        Value {
            signed: false,
            ..self.clone()
        }
    }

    fn make(&self, op: Op, width: u32, signed: bool, loc: SrcLoc) -> Value {
        let mut st = self.ctx.borrow_mut();
        let width = if width == 0 || width > MAX_WIDTH {
            st.error(
                ErrorKind::InvalidWidth,
                "",
                loc,
                format!("result width {width} is outside 1..={MAX_WIDTH}"),
            );
            1
        } else {
            width
        };
        let node = st.push_node(op, width, loc);
        Value {
            ctx: self.ctx.clone(),
            node,
            width,
            signed,
        }
    }

    /// A constant in this value's module.
    #[track_caller]
    pub fn konst(&self, value: Bits) -> Value {
        let w = value.width();
        self.make(Op::Const(value), w, false, Location::caller())
    }

    fn error(&self, kind: ErrorKind, loc: SrcLoc, message: String) {
        self.ctx.borrow_mut().error(kind, "", loc, message);
    }

    /// Checks two operands of `what` have one module, width and signedness.
    fn same(&self, other: &Value, what: &str, loc: SrcLoc) -> NodeId {
        let o = other.node_in(&self.ctx, loc);
        let describe = |st: &State| (st.describe(self.node), st.describe(o));
        if self.width != other.width {
            let (a, b) = describe(&self.ctx.borrow());
            self.error(
                ErrorKind::WidthMismatch,
                loc,
                format!(
                    "operands of `{what}` are {a} ({} bits) and {b} ({} bits)",
                    self.width, other.width
                ),
            );
        } else if self.signed != other.signed {
            let (a, b) = describe(&self.ctx.borrow());
            self.error(
                ErrorKind::TypeMismatch,
                loc,
                format!("operands of `{what}` mix signed and unsigned: {a} and {b}"),
            );
        }
        o
    }

    fn bin(&self, op: BinOp, other: &Value, what: &str, loc: SrcLoc) -> Value {
        let o = self.same(other, what, loc);
        self.make(Op::Bin(op, self.node, o), self.width, self.signed, loc)
    }

    pub(crate) fn and_at(&self, other: &Value, loc: SrcLoc) -> Value {
        self.bin(BinOp::And, other, "&", loc)
    }

    pub(crate) fn or_at(&self, other: &Value, loc: SrcLoc) -> Value {
        self.bin(BinOp::Or, other, "|", loc)
    }

    fn cmp(&self, op: CmpOp, other: &Value, what: &str, swap: bool, loc: SrcLoc) -> Value {
        let o = self.same(other, what, loc);
        let (a, b) = if swap { (o, self.node) } else { (self.node, o) };
        self.make(Op::Cmp(op, self.signed, a, b), 1, false, loc)
    }

    /// Sum one bit wider than the operands (the carry out on top).
    #[track_caller]
    pub fn addc(&self, other: &Value) -> Value {
        let loc = Location::caller();
        let w = self.width + 1;
        self.ext_at(w, loc)
            .bin(BinOp::Add, &other.ext_at(w, loc), "addc", loc)
    }

    /// Difference one bit wider than the operands (the borrow, or sign, on top).
    #[track_caller]
    pub fn subc(&self, other: &Value) -> Value {
        let loc = Location::caller();
        let w = self.width + 1;
        self.ext_at(w, loc)
            .bin(BinOp::Sub, &other.ext_at(w, loc), "subc", loc)
    }

    /// Full-width product: `width + other.width` bits, signed if the operands are.
    #[track_caller]
    pub fn mul(&self, other: &Value) -> Value {
        let loc = Location::caller();
        if self.signed != other.signed {
            self.error(
                ErrorKind::TypeMismatch,
                loc,
                "operands of `mul` mix signed and unsigned".into(),
            );
        }
        let w = self.width + other.width;
        self.ext_at(w, loc).bin(
            BinOp::Mul,
            &other.as_type(self.signed).ext_at(w, loc),
            "mul",
            loc,
        )
    }

    fn as_type(&self, signed: bool) -> Value {
        Value {
            signed,
            ..self.clone()
        }
    }

    /// Two's-complement negation, same width.
    #[track_caller]
    pub fn neg(&self) -> Value {
        let loc = Location::caller();
        let zero = self.make(
            Op::Const(Bits::zero(self.width)),
            self.width,
            self.signed,
            loc,
        );
        zero.bin(BinOp::Sub, self, "neg", loc)
    }

    #[track_caller]
    pub fn eq(&self, other: &Value) -> Value {
        self.cmp(CmpOp::Eq, other, "==", false, Location::caller())
    }

    #[track_caller]
    pub fn ne(&self, other: &Value) -> Value {
        self.cmp(CmpOp::Ne, other, "!=", false, Location::caller())
    }

    #[track_caller]
    pub fn lt(&self, other: &Value) -> Value {
        self.cmp(CmpOp::Lt, other, "<", false, Location::caller())
    }

    #[track_caller]
    pub fn le(&self, other: &Value) -> Value {
        self.cmp(CmpOp::Le, other, "<=", false, Location::caller())
    }

    #[track_caller]
    pub fn gt(&self, other: &Value) -> Value {
        self.cmp(CmpOp::Lt, other, ">", true, Location::caller())
    }

    #[track_caller]
    pub fn ge(&self, other: &Value) -> Value {
        self.cmp(CmpOp::Le, other, ">=", true, Location::caller())
    }

    fn reduce(&self, op: RedOp, loc: SrcLoc) -> Value {
        self.make(Op::Reduce(op, self.node), 1, false, loc)
    }

    #[track_caller]
    pub fn and_r(&self) -> Value {
        self.reduce(RedOp::And, Location::caller())
    }

    #[track_caller]
    pub fn or_r(&self) -> Value {
        self.reduce(RedOp::Or, Location::caller())
    }

    #[track_caller]
    pub fn xor_r(&self) -> Value {
        self.reduce(RedOp::Xor, Location::caller())
    }

    /// Bits `hi..=lo`, unsigned.
    #[track_caller]
    pub fn slice(&self, hi: u32, lo: u32) -> Value {
        self.slice_at(hi, lo, Location::caller())
    }

    fn slice_at(&self, hi: u32, lo: u32, loc: SrcLoc) -> Value {
        if hi < lo || hi >= self.width {
            self.error(
                ErrorKind::WidthMismatch,
                loc,
                format!(
                    "slice [{hi}:{lo}] of a {}-bit {}",
                    self.width,
                    self.ctx.borrow().describe(self.node)
                ),
            );
            return self.make(Op::Const(Bits::zero(1)), 1, false, loc);
        }
        if lo == 0 && hi + 1 == self.width {
            return self.as_unsigned();
        }
        self.make(
            Op::Slice {
                value: self.node,
                hi,
                lo,
            },
            hi - lo + 1,
            false,
            loc,
        )
    }

    #[track_caller]
    pub fn bit(&self, i: u32) -> Value {
        self.slice_at(i, i, Location::caller())
    }

    /// The most significant bit.
    #[track_caller]
    pub fn msb(&self) -> Value {
        self.slice_at(self.width - 1, self.width - 1, Location::caller())
    }

    /// `n` copies concatenated.
    #[track_caller]
    pub fn repeat(&self, n: u32) -> Value {
        let loc = Location::caller();
        self.repeat_at(n, loc)
    }

    fn repeat_at(&self, n: u32, loc: SrcLoc) -> Value {
        if n == 1 {
            return self.as_unsigned();
        }
        self.make(
            Op::Repeat(self.node, n),
            self.width.saturating_mul(n),
            false,
            loc,
        )
    }

    /// `self` above `low`.
    #[track_caller]
    pub fn cat(&self, low: &Value) -> Value {
        cat_at(&[self, low], Location::caller())
    }

    /// Zero-extends to `width` (which must not be narrower).
    #[track_caller]
    pub fn zext(&self, width: u32) -> Value {
        self.as_unsigned().ext_at(width, Location::caller())
    }

    /// Sign-extends to `width` (which must not be narrower); the result is signed.
    #[track_caller]
    pub fn sext(&self, width: u32) -> Value {
        self.as_signed().ext_at(width, Location::caller())
    }

    /// Extends to `width` by sign or zero according to the type.
    #[track_caller]
    pub fn ext(&self, width: u32) -> Value {
        self.ext_at(width, Location::caller())
    }

    fn ext_at(&self, width: u32, loc: SrcLoc) -> Value {
        if width < self.width {
            self.error(
                ErrorKind::WidthMismatch,
                loc,
                format!("cannot extend {} bits to {width}", self.width),
            );
            return self.clone();
        }
        if width == self.width {
            return self.clone();
        }
        let pad = width - self.width;
        let fill = if self.signed {
            self.slice_at(self.width - 1, self.width - 1, loc)
                .repeat_at(pad, loc)
        } else {
            self.make(Op::Const(Bits::zero(pad)), pad, false, loc)
        };
        cat_at(&[&fill, self], loc).as_type(self.signed)
    }

    /// The low `width` bits, keeping the type.
    #[track_caller]
    pub fn trunc(&self, width: u32) -> Value {
        let loc = Location::caller();
        if width > self.width {
            self.error(
                ErrorKind::WidthMismatch,
                loc,
                format!("cannot truncate {} bits to {width}", self.width),
            );
            return self.clone();
        }
        self.slice_at(width - 1, 0, loc).as_type(self.signed)
    }

    /// Static left shift, same width (bits shifted out are lost).
    #[track_caller]
    pub fn shl(&self, n: u32) -> Value {
        let loc = Location::caller();
        if n == 0 {
            return self.clone();
        }
        let zeros = self.make(
            Op::Const(Bits::zero(n.min(self.width))),
            n.min(self.width),
            false,
            loc,
        );
        if n >= self.width {
            return zeros.as_type(self.signed);
        }
        cat_at(&[&self.slice_at(self.width - 1 - n, 0, loc), &zeros], loc).as_type(self.signed)
    }

    /// Static right shift, same width; arithmetic for signed values.
    #[track_caller]
    pub fn shr(&self, n: u32) -> Value {
        let loc = Location::caller();
        if n == 0 {
            return self.clone();
        }
        let n = n.min(self.width);
        let fill = if self.signed {
            self.slice_at(self.width - 1, self.width - 1, loc)
                .repeat_at(n, loc)
        } else {
            self.make(Op::Const(Bits::zero(n)), n, false, loc)
        };
        if n == self.width {
            return fill.as_type(self.signed);
        }
        cat_at(&[&fill, &self.slice_at(self.width - 1, n, loc)], loc).as_type(self.signed)
    }

    /// Dynamic left shift by an unsigned amount, same width.
    #[track_caller]
    pub fn dshl(&self, amount: &Value) -> Value {
        let loc = Location::caller();
        let a = self.unsigned_operand(amount, "dshl", loc);
        self.make(Op::Shl(self.node, a), self.width, self.signed, loc)
    }

    /// Dynamic right shift by an unsigned amount; arithmetic for signed values.
    #[track_caller]
    pub fn dshr(&self, amount: &Value) -> Value {
        let loc = Location::caller();
        let a = self.unsigned_operand(amount, "dshr", loc);
        self.make(
            Op::Shr {
                arith: self.signed,
                value: self.node,
                amount: a,
            },
            self.width,
            self.signed,
            loc,
        )
    }

    fn unsigned_operand(&self, v: &Value, what: &str, loc: SrcLoc) -> NodeId {
        let n = v.node_in(&self.ctx, loc);
        if v.signed {
            self.error(
                ErrorKind::TypeMismatch,
                loc,
                format!("the amount of `{what}` must be unsigned"),
            );
        }
        n
    }

    /// `self ? then : otherwise` for a 1-bit `self`.
    #[track_caller]
    pub fn mux(&self, then: &Value, otherwise: &Value) -> Value {
        mux_at(self, then, otherwise, Location::caller())
    }
}

fn mux_at(cond: &Value, then: &Value, otherwise: &Value, loc: SrcLoc) -> Value {
    if cond.width != 1 {
        cond.error(
            ErrorKind::WidthMismatch,
            loc,
            format!("mux condition must be 1 bit, is {}", cond.width),
        );
    }
    let t = then.node_in(&cond.ctx, loc);
    let o = then.same(otherwise, "mux", loc);
    then.make(
        Op::Mux {
            cond: cond.node,
            then: t,
            otherwise: o,
        },
        then.width,
        then.signed,
        loc,
    )
}

/// `cond ? then : otherwise`.
#[track_caller]
pub fn mux(cond: &Value, then: &Value, otherwise: &Value) -> Value {
    mux_at(cond, then, otherwise, Location::caller())
}

/// Concatenation, most significant first; unsigned.
#[track_caller]
pub fn cat(parts: &[&Value]) -> Value {
    cat_at(parts, Location::caller())
}

fn cat_at(parts: &[&Value], loc: SrcLoc) -> Value {
    let first = parts.first().expect("cat of no values");
    if parts.len() == 1 {
        return first.as_unsigned();
    }
    let nodes: Vec<NodeId> = parts.iter().map(|p| p.node_in(&first.ctx, loc)).collect();
    let width = parts
        .iter()
        .map(|p| p.width)
        .fold(0u32, u32::saturating_add);
    first.make(Op::Concat(nodes), width, false, loc)
}

macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr, $sym:expr) => {
        impl ops::$trait<&Value> for &Value {
            type Output = Value;
            #[track_caller]
            fn $method(self, rhs: &Value) -> Value {
                self.bin($op, rhs, $sym, Location::caller())
            }
        }
        impl ops::$trait<Value> for Value {
            type Output = Value;
            #[track_caller]
            fn $method(self, rhs: Value) -> Value {
                self.bin($op, &rhs, $sym, Location::caller())
            }
        }
        impl ops::$trait<&Value> for Value {
            type Output = Value;
            #[track_caller]
            fn $method(self, rhs: &Value) -> Value {
                self.bin($op, rhs, $sym, Location::caller())
            }
        }
        impl ops::$trait<Value> for &Value {
            type Output = Value;
            #[track_caller]
            fn $method(self, rhs: Value) -> Value {
                self.bin($op, &rhs, $sym, Location::caller())
            }
        }
    };
}

binary_operator!(Add, add, BinOp::Add, "+");
binary_operator!(Sub, sub, BinOp::Sub, "-");
binary_operator!(BitAnd, bitand, BinOp::And, "&");
binary_operator!(BitOr, bitor, BinOp::Or, "|");
binary_operator!(BitXor, bitxor, BinOp::Xor, "^");

impl ops::Not for &Value {
    type Output = Value;
    #[track_caller]
    fn not(self) -> Value {
        self.make(
            Op::Not(self.node),
            self.width,
            self.signed,
            Location::caller(),
        )
    }
}

impl ops::Not for Value {
    type Output = Value;
    #[track_caller]
    fn not(self) -> Value {
        self.make(
            Op::Not(self.node),
            self.width,
            self.signed,
            Location::caller(),
        )
    }
}
