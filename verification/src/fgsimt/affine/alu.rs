//! Compact values and the affine ALU (seed 000, sections 0 and 2.2): a register of a warp
//! whose thread i holds `base + i * stride` (mod 2^32) is kept once, as the base and a
//! 16-bit signed stride; the CP's ALU computes bases and the stride unit strides.
//!
//! The rules, exact for every thread (the property `expand(op(x, y))[i] == op(x[i],
//! y[i])` that the tests check on random operands):
//! - add, sub: (b0 ± b1, s0 ± s1); mul with one operand uniform u: (b·u, s·u); shift left
//!   by a uniform k: (b << k, s << k). All mod 2^32, so wrapping does not matter.
//! - shift right by a uniform k (the paper leaves the condition open; ours): if no
//!   thread's value wraps, in the shift's signedness, over the warp's `warp_size` threads,
//!   then (b >> k, s >> k) when the stride's low k bits are zero, or the uniform b >> k
//!   when every thread's value has the same bits above k (e.g. `tidx() / 64` in a
//!   32-thread warp, whose first thread is a multiple of 32).
//! - and with a uniform low mask m = 2^k - 1: (b & m, s) when every thread's value, not
//!   wrapping, lies in one aligned block of 2^k (e.g. `tidx() % 64`); any other and only on
//!   uniforms.
//! - any other integer operation only on uniforms: (op(u0, u1), 0).
//! - a result whose stride does not fit 16 signed bits is not compact (the instruction
//!   goes to the lanes and its destination becomes generic).

/// A warp register held compactly: thread i's value is `base + i * stride` mod 2^32.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compact {
    pub base: u32,
    pub stride: i16,
}

impl Compact {
    /// The uniform value `v`.
    pub fn uniform(v: u32) -> Compact {
        Compact { base: v, stride: 0 }
    }

    pub fn is_uniform(self) -> bool {
        self.stride == 0
    }

    /// Thread `i`'s value.
    pub fn at(self, i: u32) -> u32 {
        self.base
            .wrapping_add(i.wrapping_mul(self.stride as i32 as u32))
    }

    /// (base, stride) with a 32-bit stride, if the stride fits 16 signed bits.
    fn fit(base: u32, stride: u32) -> Option<Compact> {
        let s = stride as i32;
        (s == s as i16 as i32).then_some(Compact {
            base,
            stride: s as i16,
        })
    }

    fn s32(self) -> u32 {
        self.stride as i32 as u32
    }

    /// Whether no thread of a `warp_size` warp wraps (as signed values when `signed`).
    pub fn no_wrap(self, signed: bool, warp_size: u32) -> bool {
        span(self, signed, warp_size).is_some()
    }
}

/// The integer operations the rules distinguish.
#[derive(Debug, Clone, Copy)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Sll,
    Srl,
    Sra,
    And,
    /// Any other operation of two operands: compact only on uniforms.
    Other(fn(u32, u32) -> u32),
}

/// `op(a, b)` on compact operands over warps of `warp_size` threads, if the result is
/// compact.
pub fn alu(op: Op, a: Compact, b: Compact, warp_size: u32) -> Option<Compact> {
    let both_uniform = a.is_uniform() && b.is_uniform();
    match op {
        Op::Add => Compact::fit(a.base.wrapping_add(b.base), a.s32().wrapping_add(b.s32())),
        Op::Sub => Compact::fit(a.base.wrapping_sub(b.base), a.s32().wrapping_sub(b.s32())),
        Op::Mul if b.is_uniform() => {
            Compact::fit(a.base.wrapping_mul(b.base), a.s32().wrapping_mul(b.base))
        }
        Op::Mul if a.is_uniform() => {
            Compact::fit(a.base.wrapping_mul(b.base), b.s32().wrapping_mul(a.base))
        }
        Op::Sll if b.is_uniform() => {
            let k = b.base & 31;
            Compact::fit(a.base << k, a.s32() << k)
        }
        Op::Srl | Op::Sra if b.is_uniform() => {
            shift_right(matches!(op, Op::Sra), a, b.base & 31, warp_size)
        }
        Op::And if both_uniform => Some(Compact::uniform(a.base & b.base)),
        Op::And if b.is_uniform() => and_low_mask(a, b.base, warp_size),
        Op::And if a.is_uniform() => and_low_mask(b, a.base, warp_size),
        Op::Other(f) if both_uniform => Some(Compact::uniform(f(a.base, b.base))),
        _ => None,
    }
}

/// The last thread's value of `a` without wrapping (as signed when `signed`), with the
/// first's, if no thread's value wraps.
fn span(a: Compact, signed: bool, warp_size: u32) -> Option<(i64, i64)> {
    let start = if signed {
        a.base as i32 as i64
    } else {
        a.base as i64
    };
    let end = start + (warp_size as i64 - 1) * a.stride as i64;
    let range = if signed {
        i32::MIN as i64..=i32::MAX as i64
    } else {
        0..=u32::MAX as i64
    };
    range.contains(&end).then_some((start, end))
}

/// `a & m` for a low mask `m`, if every thread's value lies in one aligned block.
fn and_low_mask(a: Compact, m: u32, warp_size: u32) -> Option<Compact> {
    let (start, end) = span(a, false, warp_size)?;
    let low_mask = m & m.wrapping_add(1) == 0;
    let one_block = (start ^ end) & !(m as i64) == 0;
    (low_mask && one_block).then_some(Compact {
        base: a.base & m,
        stride: a.stride,
    })
}

/// `a >> k` (arithmetic if `arith`) under the safe rule.
fn shift_right(arith: bool, a: Compact, k: u32, warp_size: u32) -> Option<Compact> {
    let (start, end) = span(a, arith, warp_size)?;
    let base = if arith {
        ((a.base as i32) >> k) as u32
    } else {
        a.base >> k
    };
    if a.s32() & ((1u32 << k) - 1) == 0 {
        Some(Compact {
            base,
            stride: (a.stride as i32 >> k) as i16,
        })
    } else {
        (start >> k == end >> k).then_some(Compact::uniform(base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The scalar operation each rule must agree with.
    fn scalar(op: Op, x: u32, y: u32) -> u32 {
        match op {
            Op::Add => x.wrapping_add(y),
            Op::Sub => x.wrapping_sub(y),
            Op::Mul => x.wrapping_mul(y),
            Op::Sll => x << (y & 31),
            Op::Srl => x >> (y & 31),
            Op::Sra => ((x as i32) >> (y & 31)) as u32,
            Op::And => x & y,
            Op::Other(f) => f(x, y),
        }
    }

    fn random_compact(rng: &mut Rng, uniform: bool) -> Compact {
        let base = rng.next_u64() as u32;
        let stride = match rng.below(4) {
            _ if uniform => 0,
            0 => rng.next_u64() as i16,
            1 => 4,
            2 => -256,
            _ => (rng.below(64) as i16) << rng.below(6),
        };
        Compact { base, stride }
    }

    #[test]
    fn every_rule_expands_to_the_per_thread_result() {
        let mut rng = Rng::new(18);
        let ops = [
            Op::Add,
            Op::Sub,
            Op::Mul,
            Op::Sll,
            Op::Srl,
            Op::Sra,
            Op::And,
            Op::Other(|x, y| x ^ y),
            Op::Other(|x, y| ((x as i32) < (y as i32)) as u32),
        ];
        let (mut compact, mut generic) = ([0; 9], 0);
        for n in 0..200_000 {
            let op = ops[n % ops.len()];
            let shift = matches!(op, Op::Sll | Op::Srl | Op::Sra);
            let masking = matches!(op, Op::And) && rng.chance(60);
            let a_uniform = rng.below(4) == 0;
            let a = random_compact(&mut rng, a_uniform);
            let b_uniform = shift || rng.below(2) == 0;
            let mut b = random_compact(&mut rng, b_uniform);
            if shift {
                b.base = rng.below(32) as u32 + if rng.below(8) == 0 { 32 } else { 0 };
            }
            if masking {
                b = Compact::uniform((1u32 << rng.below(32)).wrapping_sub(1));
            }
            let warp = 1 << rng.below(6);
            match alu(op, a, b, warp) {
                Some(r) => {
                    compact[n % ops.len()] += 1;
                    for i in 0..warp {
                        assert_eq!(
                            r.at(i),
                            scalar(op, a.at(i), b.at(i)),
                            "{op:?} {a:?} {b:?} thread {i} of {warp}"
                        );
                    }
                }
                None => generic += 1,
            }
        }
        // Every rule, shifts right included, gives many compact results, and many
        // operands are refused.
        assert!(compact.iter().all(|&c| c > 2_000), "{compact:?}");
        assert!(generic > 10_000, "{generic}");
    }

    #[test]
    fn the_ineligible_cases_are_generic() {
        let a = Compact {
            base: 100,
            stride: 4,
        };
        let b = Compact { base: 7, stride: 1 };
        assert_eq!(alu(Op::Mul, a, b, 32), None, "affine times affine");
        assert_eq!(
            alu(Op::Other(|x, y| x & y), a, b, 32),
            None,
            "and of affines"
        );
        let big = Compact {
            base: 0,
            stride: 0x4000,
        };
        assert_eq!(
            alu(Op::Add, big, big, 32),
            None,
            "stride 0x8000 overflows 16 bits"
        );
        assert_eq!(
            alu(Op::Sll, a, Compact::uniform(13), 32),
            None,
            "4 << 13 overflows"
        );
        assert_eq!(
            alu(Op::Sra, a, Compact::uniform(3), 32),
            None,
            "stride 4 >> 3 inexact"
        );
        let wraps = Compact {
            base: 0xffff_fff0,
            stride: 4,
        };
        assert_eq!(
            alu(Op::Srl, wraps, Compact::uniform(2), 32),
            None,
            "unsigned wrap"
        );
        assert_eq!(
            alu(Op::Sra, wraps, Compact::uniform(2), 32),
            Some(Compact {
                base: 0xffff_fffc,
                stride: 1
            }),
            "no signed wrap: -16 + 4i for i < 32"
        );
        assert_eq!(
            alu(Op::Mul, Compact::uniform(3), b, 32),
            Some(Compact {
                base: 21,
                stride: 3
            })
        );
    }
}
