//! Instruction evaluation over a flat array of 64-bit words. Values up to 128 bits (the
//! common case: scalars, 128-bit banks) are computed in `u128` registers; wider values
//! take a limb-by-limb path.

use crate::bits::{top_mask, words_for};
use crate::ir::{BinOp, CmpOp, RedOp};

/// A value's place in the word array and its width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    pub off: u32,
    pub w: u32,
}

impl Slot {
    fn words(self) -> usize {
        words_for(self.w)
    }

    fn range(self) -> std::ops::Range<usize> {
        self.off as usize..self.off as usize + self.words()
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Instr {
    Copy {
        dst: Slot,
        src: Slot,
    },
    Not {
        dst: Slot,
        a: Slot,
    },
    Reduce {
        op: RedOp,
        dst: Slot,
        a: Slot,
    },
    Bin {
        op: BinOp,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    Cmp {
        op: CmpOp,
        signed: bool,
        dst: Slot,
        a: Slot,
        b: Slot,
    },
    Shl {
        dst: Slot,
        a: Slot,
        amount: Slot,
    },
    Shr {
        arith: bool,
        dst: Slot,
        a: Slot,
        amount: Slot,
    },
    Slice {
        dst: Slot,
        a: Slot,
        lo: u32,
    },
    Concat {
        dst: Slot,
        parts: Vec<Slot>,
    },
    Repeat {
        dst: Slot,
        a: Slot,
        n: u32,
    },
    Mux {
        dst: Slot,
        c: Slot,
        a: Slot,
        b: Slot,
    },
    MemRead {
        dst: Slot,
        mem: usize,
        addr: Slot,
    },
}

impl Instr {
    pub fn dst(&self) -> Slot {
        match self {
            Instr::Copy { dst, .. }
            | Instr::Not { dst, .. }
            | Instr::Reduce { dst, .. }
            | Instr::Bin { dst, .. }
            | Instr::Cmp { dst, .. }
            | Instr::Shl { dst, .. }
            | Instr::Shr { dst, .. }
            | Instr::Slice { dst, .. }
            | Instr::Concat { dst, .. }
            | Instr::Repeat { dst, .. }
            | Instr::Mux { dst, .. }
            | Instr::MemRead { dst, .. } => *dst,
        }
    }

    pub fn operands(&self, out: &mut Vec<Slot>) {
        out.clear();
        match self {
            Instr::Copy { src: a, .. }
            | Instr::Not { a, .. }
            | Instr::Reduce { a, .. }
            | Instr::Slice { a, .. }
            | Instr::Repeat { a, .. }
            | Instr::MemRead { addr: a, .. } => out.push(*a),
            Instr::Bin { a, b, .. } | Instr::Cmp { a, b, .. } => out.extend([*a, *b]),
            Instr::Shl { a, amount, .. } | Instr::Shr { a, amount, .. } => {
                out.extend([*a, *amount])
            }
            Instr::Concat { parts, .. } => out.extend_from_slice(parts),
            Instr::Mux { c, a, b, .. } => out.extend([*c, *a, *b]),
        }
    }
}

fn mask128(w: u32) -> u128 {
    if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }
}

/// The word array plus memories.
pub(crate) struct Machine {
    pub vals: Vec<u64>,
    pub mems: Vec<Vec<u64>>,
    /// Words per entry of each memory.
    pub mem_words: Vec<usize>,
    pub mem_depth: Vec<u64>,
}

impl Machine {
    #[inline]
    pub fn load(&self, s: Slot) -> u128 {
        let lo = self.vals[s.off as usize] as u128;
        if s.w > 64 {
            lo | (self.vals[s.off as usize + 1] as u128) << 64
        } else {
            lo
        }
    }

    #[inline]
    pub fn store(&mut self, s: Slot, v: u128) {
        let v = v & mask128(s.w);
        self.vals[s.off as usize] = v as u64;
        if s.w > 64 {
            self.vals[s.off as usize + 1] = (v >> 64) as u64;
        }
    }

    pub fn words(&self, s: Slot) -> Vec<u64> {
        self.vals[s.range()].to_vec()
    }

    pub fn store_words(&mut self, s: Slot, v: &[u64]) {
        let r = s.range();
        let n = r.len();
        self.vals[r.clone()].copy_from_slice(&v[..n]);
        self.vals[r.end - 1] &= top_mask(s.w);
    }

    /// A (possibly wide) value as an index, saturating to `u64::MAX`.
    fn index(&self, s: Slot) -> u64 {
        let r = s.range();
        if self.vals[r.start + 1..r.end].iter().any(|&w| w != 0) {
            u64::MAX
        } else {
            self.vals[r.start]
        }
    }

    pub fn is_true(&self, s: Slot) -> bool {
        self.vals[s.off as usize] & 1 == 1
    }

    pub fn exec(&mut self, ins: &Instr) {
        match ins {
            Instr::Copy { dst, src } => {
                if dst.w <= 128 {
                    let v = self.load(*src);
                    self.store(*dst, v);
                } else {
                    let v = self.words(*src);
                    self.store_words(*dst, &v);
                }
            }
            Instr::Not { dst, a } => {
                if dst.w <= 128 {
                    let v = !self.load(*a);
                    self.store(*dst, v);
                } else {
                    let v: Vec<u64> = self.words(*a).iter().map(|x| !x).collect();
                    self.store_words(*dst, &v);
                }
            }
            Instr::Reduce { op, dst, a } => {
                let r = self.reduce(*op, *a);
                self.store(*dst, r as u128);
            }
            Instr::Bin { op, dst, a, b } => self.bin(*op, *dst, *a, *b),
            Instr::Cmp {
                op,
                signed,
                dst,
                a,
                b,
            } => {
                let ord = if a.w <= 128 {
                    let (x, y) = (self.load(*a), self.load(*b));
                    if *signed {
                        let sh = 128 - a.w;
                        ((x << sh) as i128).cmp(&((y << sh) as i128))
                    } else {
                        x.cmp(&y)
                    }
                } else {
                    wide::cmp(&self.words(*a), &self.words(*b), a.w, *signed)
                };
                let r = match op {
                    CmpOp::Eq => ord.is_eq(),
                    CmpOp::Ne => ord.is_ne(),
                    CmpOp::Lt => ord.is_lt(),
                    CmpOp::Le => ord.is_le(),
                };
                self.store(*dst, r as u128);
            }
            Instr::Shl { dst, a, amount } => self.shl(*dst, *a, *amount),
            Instr::Shr {
                arith,
                dst,
                a,
                amount,
            } => self.shr(*arith, *dst, *a, *amount),
            Instr::Slice { dst, a, lo } => {
                if a.w <= 128 {
                    let v = self.load(*a) >> lo;
                    self.store(*dst, v);
                } else {
                    let v = wide::shr(&self.words(*a), *lo);
                    self.store_words(*dst, &v);
                }
            }
            Instr::Concat { dst, parts } => self.concat(*dst, parts),
            Instr::Repeat { dst, a, n } => self.repeat(*dst, *a, *n),
            Instr::Mux { dst, c, a, b } => {
                let src = if self.is_true(*c) { *a } else { *b };
                self.exec(&Instr::Copy { dst: *dst, src });
            }
            Instr::MemRead { dst, mem, addr } => {
                let i = self.index(*addr);
                let v = self.mem_word(*mem, i);
                self.store_words(*dst, &v);
            }
        }
    }

    #[inline]
    fn reduce(&self, op: RedOp, a: Slot) -> bool {
        if a.w <= 128 {
            let x = self.load(a);
            return match op {
                RedOp::Or => x != 0,
                RedOp::Xor => x.count_ones() % 2 == 1,
                RedOp::And => x == mask128(a.w),
            };
        }
        let words = self.words(a);
        match op {
            RedOp::Or => words.iter().any(|&w| w != 0),
            RedOp::Xor => words.iter().map(|w| w.count_ones()).sum::<u32>() % 2 == 1,
            RedOp::And => {
                let n = words.len();
                words[..n - 1].iter().all(|&w| w == u64::MAX) && words[n - 1] == top_mask(a.w)
            }
        }
    }

    #[inline]
    fn bin(&mut self, op: BinOp, dst: Slot, a: Slot, b: Slot) {
        if dst.w <= 128 {
            let (x, y) = (self.load(a), self.load(b));
            let v = match op {
                BinOp::Add => x.wrapping_add(y),
                BinOp::Sub => x.wrapping_sub(y),
                BinOp::Mul => x.wrapping_mul(y),
                BinOp::And => x & y,
                BinOp::Or => x | y,
                BinOp::Xor => x ^ y,
            };
            self.store(dst, v);
        } else {
            let (x, y) = (self.words(a), self.words(b));
            let v = match op {
                BinOp::Add => wide::add(&x, &y),
                BinOp::Sub => wide::sub(&x, &y),
                BinOp::Mul => wide::mul(&x, &y),
                BinOp::And => x.iter().zip(&y).map(|(p, q)| p & q).collect(),
                BinOp::Or => x.iter().zip(&y).map(|(p, q)| p | q).collect(),
                BinOp::Xor => x.iter().zip(&y).map(|(p, q)| p ^ q).collect(),
            };
            self.store_words(dst, &v);
        }
    }

    #[inline]
    fn shl(&mut self, dst: Slot, a: Slot, amount: Slot) {
        let n = self.index(amount);
        if dst.w <= 128 {
            let v = if n >= dst.w as u64 {
                0
            } else {
                self.load(a) << n
            };
            self.store(dst, v);
        } else {
            let v = wide::shl(&self.words(a), n.min(dst.w as u64) as u32);
            self.store_words(dst, &v);
        }
    }

    #[inline]
    fn shr(&mut self, arith: bool, dst: Slot, a: Slot, amount: Slot) {
        let n = self.index(amount).min(dst.w as u64) as u32;
        let negative = arith && self.bit(a, a.w - 1);
        if dst.w <= 128 {
            let x = self.load(a);
            let mut v = if n >= 128 { 0 } else { x >> n };
            if negative && n > 0 {
                v |= mask128(dst.w) & !mask128(dst.w - n);
            }
            self.store(dst, v);
        } else {
            let mut v = wide::shr(&self.words(a), n);
            if negative {
                for i in dst.w - n..dst.w {
                    v[(i / 64) as usize] |= 1 << (i % 64);
                }
            }
            self.store_words(dst, &v);
        }
    }

    #[inline]
    fn concat(&mut self, dst: Slot, parts: &[Slot]) {
        if dst.w <= 128 {
            let mut v = 0u128;
            for p in parts {
                v = if p.w >= 128 { 0 } else { v << p.w } | self.load(*p);
            }
            self.store(dst, v);
        } else {
            let mut out = vec![0u64; dst.words()];
            let mut at = 0;
            for p in parts.iter().rev() {
                wide::insert(&mut out, at, &self.words(*p), p.w);
                at += p.w;
            }
            self.store_words(dst, &out);
        }
    }

    #[inline]
    fn repeat(&mut self, dst: Slot, a: Slot, n: u32) {
        if dst.w <= 128 {
            let x = self.load(a);
            let v = (0..n).fold(0u128, |acc, _| if a.w >= 128 { x } else { acc << a.w | x });
            self.store(dst, v);
        } else {
            let words = self.words(a);
            let mut out = vec![0u64; dst.words()];
            for i in 0..n {
                wide::insert(&mut out, i * a.w, &words, a.w);
            }
            self.store_words(dst, &out);
        }
    }

    pub fn bit(&self, s: Slot, i: u32) -> bool {
        (self.vals[s.off as usize + (i / 64) as usize] >> (i % 64)) & 1 == 1
    }

    /// Word `i` of memory `m`; reads past the end give zero.
    pub fn mem_word(&self, m: usize, i: u64) -> Vec<u64> {
        let n = self.mem_words[m];
        if i >= self.mem_depth[m] {
            return vec![0; n];
        }
        let at = i as usize * n;
        self.mems[m][at..at + n].to_vec()
    }
}

/// Limb arithmetic on little-endian words of equal length; callers mask the top limb.
pub(crate) mod wide {
    use std::cmp::Ordering;

    pub fn add(x: &[u64], y: &[u64]) -> Vec<u64> {
        let mut carry = false;
        x.iter()
            .zip(y)
            .map(|(a, b)| {
                let (s1, c1) = a.overflowing_add(*b);
                let (s2, c2) = s1.overflowing_add(carry as u64);
                carry = c1 || c2;
                s2
            })
            .collect()
    }

    pub fn sub(x: &[u64], y: &[u64]) -> Vec<u64> {
        let mut borrow = false;
        x.iter()
            .zip(y)
            .map(|(a, b)| {
                let (d1, b1) = a.overflowing_sub(*b);
                let (d2, b2) = d1.overflowing_sub(borrow as u64);
                borrow = b1 || b2;
                d2
            })
            .collect()
    }

    /// Low `x.len()` limbs of the product.
    pub fn mul(x: &[u64], y: &[u64]) -> Vec<u64> {
        let n = x.len();
        let mut out = vec![0u64; n];
        for i in 0..n {
            let mut carry = 0u128;
            for j in 0..n - i {
                let t = out[i + j] as u128 + x[i] as u128 * y[j] as u128 + carry;
                out[i + j] = t as u64;
                carry = t >> 64;
            }
        }
        out
    }

    /// Compares `w`-bit values, two's complement when `signed`.
    pub fn cmp(x: &[u64], y: &[u64], w: u32, signed: bool) -> Ordering {
        if signed {
            let top = (w - 1) as usize;
            let sx = (x[top / 64] >> (top % 64)) & 1;
            let sy = (y[top / 64] >> (top % 64)) & 1;
            if sx != sy {
                return sy.cmp(&sx);
            }
        }
        x.iter().rev().cmp(y.iter().rev())
    }

    pub fn shl(x: &[u64], n: u32) -> Vec<u64> {
        let (ws, bs) = ((n / 64) as usize, n % 64);
        let mut out = vec![0u64; x.len()];
        for i in ws..x.len() {
            let lo = x[i - ws];
            out[i] = lo << bs;
            if bs > 0 && i > ws {
                out[i] |= x[i - ws - 1] >> (64 - bs);
            }
        }
        out
    }

    pub fn shr(x: &[u64], n: u32) -> Vec<u64> {
        let (ws, bs) = ((n / 64) as usize, n % 64);
        let mut out = vec![0u64; x.len()];
        for i in 0..x.len().saturating_sub(ws) {
            out[i] = x[i + ws] >> bs;
            if bs > 0 && i + ws + 1 < x.len() {
                out[i] |= x[i + ws + 1] << (64 - bs);
            }
        }
        out
    }

    /// ORs the `w`-bit value `v` into `out` at bit `at` (bits past `out` are dropped).
    pub fn insert(out: &mut [u64], at: u32, v: &[u64], w: u32) {
        for i in 0..w {
            if (v[(i / 64) as usize] >> (i % 64)) & 1 == 1 {
                let b = at + i;
                if let Some(word) = out.get_mut((b / 64) as usize) {
                    *word |= 1 << (b % 64);
                }
            }
        }
    }
}
