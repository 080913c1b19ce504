//! The Hwacha names of the floating-point operations (`vf<op>.<fmt>`, `vcmpf<op>.<fmt>`,
//! `vfcvt.<to>.<from>`) and the element widths they need of their registers.

use crate::fp::{Arith, FCmp, Fma, Fmt, FpOp, IntKind, WideningOp};

impl FpOp {
    /// The operation a `vf...`/`vcmpf...` name stands for.
    pub fn of(name: &str) -> Option<FpOp> {
        let parts: Vec<&str> = name.split('.').collect();
        match parts.as_slice() {
            [op, f] => FpOp::single(op, Fmt::of(f)?),
            ["vfcvt", to, from] => match (Fmt::of(to), Fmt::of(from)) {
                (Some(to), Some(from)) => Some(FpOp::Convert { from, to }),
                (None, Some(from)) => Some(FpOp::ToInt(from, IntKind::of(to)?)),
                (Some(to), None) => Some(FpOp::FromInt(IntKind::of(from)?, to)),
                (None, None) => None,
            },
            [op, to, from] => {
                let (to, from) = (Fmt::of(to)?, Fmt::of(from)?);
                let op = match FpOp::single(op, to)? {
                    FpOp::Arith(k @ (Arith::Add | Arith::Sub | Arith::Mul), _) => {
                        WideningOp::Arith(k)
                    }
                    FpOp::Fma(k, _) => WideningOp::Fma(k),
                    _ => return None,
                };
                (from.bits() < to.bits()).then_some(FpOp::Widening { op, to, from })
            }
            _ => None,
        }
    }

    /// `vf<op>.<f>` and `vcmpf<op>.<f>`.
    fn single(op: &str, f: Fmt) -> Option<FpOp> {
        Some(match op {
            "vfadd" => FpOp::Arith(Arith::Add, f),
            "vfsub" => FpOp::Arith(Arith::Sub, f),
            "vfmul" => FpOp::Arith(Arith::Mul, f),
            "vfdiv" => FpOp::Arith(Arith::Div, f),
            "vfmin" => FpOp::Arith(Arith::Min, f),
            "vfmax" => FpOp::Arith(Arith::Max, f),
            "vfsgnj" => FpOp::Arith(Arith::Sgnj, f),
            "vfsgnjn" => FpOp::Arith(Arith::Sgnjn, f),
            "vfsgnjx" => FpOp::Arith(Arith::Sgnjx, f),
            "vfsqrt" => FpOp::Sqrt(f),
            "vfclass" => FpOp::Class(f),
            "vfmadd" => FpOp::Fma(Fma::Madd, f),
            "vfmsub" => FpOp::Fma(Fma::Msub, f),
            "vfnmsub" => FpOp::Fma(Fma::Nmsub, f),
            "vfnmadd" => FpOp::Fma(Fma::Nmadd, f),
            "vcmpfeq" => FpOp::Cmp(FCmp::Eq, f),
            "vcmpflt" => FpOp::Cmp(FCmp::Lt, f),
            "vcmpfle" => FpOp::Cmp(FCmp::Le, f),
            _ => return None,
        })
    }

    /// Element width the operation needs of source (`dest` false) or destination
    /// registers.
    pub fn precision(self, dest: bool) -> u32 {
        match self {
            FpOp::Arith(_, f) | FpOp::Sqrt(f) | FpOp::Fma(_, f) => f.bits(),
            FpOp::Class(f) | FpOp::Cmp(_, f) => {
                if dest {
                    64
                } else {
                    f.bits()
                }
            }
            FpOp::ToInt(f, i) => {
                if dest {
                    i.bits()
                } else {
                    f.bits()
                }
            }
            FpOp::FromInt(i, f) => {
                if dest {
                    f.bits()
                } else {
                    i.bits()
                }
            }
            FpOp::Convert { from, to } | FpOp::Widening { to, from, .. } => {
                if dest {
                    to.bits()
                } else {
                    from.bits()
                }
            }
        }
    }
}
