//! Random well-formed circuits. Every value is typed as it is created, so operands are
//! picked (or converted, which exercises the extension and slicing operators) to exactly
//! the types the builder demands, and the builder's own checks never fire. Combinational
//! loops are impossible by construction: items only read earlier items, wires are driven
//! from items created before them, and only state (registers, memories) reads later ones.

use super::rng::{mix, Rng};
use super::spec::*;
use hdl::ir::addr_width;

/// Circuit `index` of the run with `seed`.
/// An operation's arguments, immediates and result type.
type Operands = (Vec<usize>, Vec<u32>, FTy);

pub fn generate(seed: u64, index: u64) -> Circuit {
    let mut rng = Rng::new(mix(seed, index));
    let mut modules: Vec<ModuleSpec> = Vec::new();
    let n_children = if rng.chance(45) { rng.range(1, 2) } else { 0 };
    for _ in 0..n_children {
        let actions = rng.range(4, 16);
        let m = ModGen::new(&mut rng, &modules).run(actions);
        modules.push(m);
    }
    let actions = rng.range(12, 45);
    let top = ModGen::new(&mut rng, &modules).run(actions);
    modules.push(top);
    Circuit { modules }
}

const OPS: &[OpKind] = &[
    OpKind::Add,
    OpKind::Sub,
    OpKind::Addc,
    OpKind::Subc,
    OpKind::Mul,
    OpKind::Neg,
    OpKind::Not,
    OpKind::And,
    OpKind::Or,
    OpKind::Xor,
    OpKind::Eq,
    OpKind::Ne,
    OpKind::Lt,
    OpKind::Le,
    OpKind::Gt,
    OpKind::Ge,
    OpKind::Shl,
    OpKind::Shr,
    OpKind::Dshl,
    OpKind::Dshr,
    OpKind::AndR,
    OpKind::OrR,
    OpKind::XorR,
    OpKind::Slice,
    OpKind::Bit,
    OpKind::Msb,
    OpKind::Cat,
    OpKind::Repeat,
    OpKind::Zext,
    OpKind::Sext,
    OpKind::Ext,
    OpKind::Trunc,
    OpKind::AsSigned,
    OpKind::AsUnsigned,
    OpKind::Mux,
];

/// The helpers of `hdl::helpers`, drawn less often: each expands to many nodes.
const HELPERS: &[OpKind] = &[
    OpKind::PriorityEncode,
    OpKind::PriorityMux,
    OpKind::OnehotMux,
    OpKind::OnehotDecode,
    OpKind::OnehotEncode,
    OpKind::LowestOne,
    OpKind::Popcount,
];

const MAX_W: u32 = 300;

struct ModGen<'a> {
    rng: &'a mut Rng,
    children: &'a [ModuleSpec],
    m: ModuleSpec,
    next_input: u32,
}

impl<'a> ModGen<'a> {
    fn new(rng: &'a mut Rng, children: &'a [ModuleSpec]) -> ModGen<'a> {
        ModGen {
            rng,
            children,
            m: ModuleSpec::default(),
            next_input: 0,
        }
    }

    fn run(mut self, actions: u32) -> ModuleSpec {
        for _ in 0..self.rng.range(1, 5) {
            let ty = self.random_ty();
            self.input(ty);
        }
        if self.rng.chance(55) {
            for _ in 0..self.rng.range(1, 2) {
                let depth = 1u64 << self.rng.range(1, 5);
                let width = match self.rng.below(10) {
                    0..=2 => self.rng.range(1, 8),
                    3..=7 => self.rng.range(9, 64),
                    _ => self.rng.range(65, 150),
                };
                self.m.mems.push(MemSpec { depth, width });
            }
        }
        for _ in 0..actions {
            match self.rng.below(100) {
                0..=59 => self.expr(),
                60..=67 => self.reg(),
                68..=75 => self.wire(),
                76..=85 if !self.m.mems.is_empty() => self.mem_read(),
                86..=91 if !self.children.is_empty() => self.instance(),
                92..=95 => {
                    let ty = self.random_ty();
                    self.konst(ty);
                }
                _ => {
                    let ty = self.random_ty();
                    self.input(ty);
                }
            }
        }
        self.statements();
        self.m
    }

    fn push(&mut self, kind: Kind, ty: FTy) -> usize {
        self.m.items.push(Item { kind, ty });
        self.m.items.len() - 1
    }

    fn ty(&self, i: usize) -> FTy {
        self.m.items[i].ty
    }

    fn random_width(&mut self) -> u32 {
        match self.rng.below(20) {
            0..=9 => self.rng.range(1, 8),
            10..=14 => self.rng.range(9, 32),
            15..=17 => self.rng.range(33, 80),
            _ => self.rng.range(81, MAX_W),
        }
    }

    fn random_ty(&mut self) -> FTy {
        let w = self.random_width();
        FTy::new(w, self.rng.chance(40))
    }

    fn input(&mut self, ty: FTy) -> usize {
        self.next_input += 1;
        self.push(Kind::Input(self.next_input - 1), ty)
    }

    fn konst(&mut self, ty: FTy) -> usize {
        let b = self.rng.bits(ty.width);
        self.push(Kind::Const(b), ty)
    }

    fn op(&mut self, op: OpKind, args: Vec<usize>, imm: Vec<u32>, ty: FTy) -> usize {
        self.push(Kind::Op { op, args, imm }, ty)
    }

    /// A random existing value, biased towards recent ones so that expressions nest.
    fn any_value(&mut self) -> usize {
        loop {
            let n = self.m.items.len() as u64;
            let i = if self.rng.chance(50) {
                n - 1 - self.rng.below(n.min(8))
            } else {
                self.rng.below(n)
            } as usize;
            if self.m.is_value(i) {
                return i;
            }
        }
    }

    /// A value at most `max` bits wide.
    fn value_upto(&mut self, max: u32) -> usize {
        for _ in 0..4 {
            let v = self.any_value();
            if self.ty(v).width <= max {
                return v;
            }
        }
        let w = self.random_width().min(max);
        let ty = FTy::new(w, self.rng.chance(40));
        self.operand(ty)
    }

    /// A value of exactly `ty`: an existing one, a constant, or a converted value.
    fn operand(&mut self, ty: FTy) -> usize {
        if self.rng.chance(70) {
            let exact: Vec<usize> = (0..self.m.items.len())
                .filter(|&i| self.m.is_value(i) && self.ty(i) == ty)
                .collect();
            if !exact.is_empty() {
                return *self.rng.pick(&exact);
            }
        }
        if self.rng.chance(12) {
            return self.konst(ty);
        }
        let src = self.any_value();
        self.convert(src, ty)
    }

    fn convert(&mut self, src: usize, ty: FTy) -> usize {
        let s = self.ty(src);
        let mut cur = src;
        let mut signed = s.signed;
        if s.width > ty.width {
            if self.rng.chance(50) {
                cur = self.op(
                    OpKind::Trunc,
                    vec![cur],
                    vec![ty.width],
                    FTy::new(ty.width, signed),
                );
            } else {
                let lo = self.rng.below((s.width - ty.width + 1) as u64) as u32;
                let imm = vec![lo + ty.width - 1, lo];
                cur = self.op(OpKind::Slice, vec![cur], imm, FTy::u(ty.width));
                signed = false;
            }
        } else if s.width < ty.width {
            let (op, sg) = match self.rng.below(3) {
                0 => (OpKind::Zext, false),
                1 => (OpKind::Sext, true),
                _ => (OpKind::Ext, signed),
            };
            cur = self.op(op, vec![cur], vec![ty.width], FTy::new(ty.width, sg));
            signed = sg;
        }
        if signed != ty.signed {
            let op = if ty.signed {
                OpKind::AsSigned
            } else {
                OpKind::AsUnsigned
            };
            cur = self.op(op, vec![cur], vec![], ty);
        }
        cur
    }

    fn expr(&mut self) {
        let op = if self.rng.chance(12) {
            *self.rng.pick(HELPERS)
        } else {
            *self.rng.pick(OPS)
        };
        use OpKind::*;
        let operands = match op {
            Add | Sub | And | Or | Xor | Addc | Subc | Mul | Neg | Not | Eq | Ne | Lt | Le | Gt
            | Ge => self.arith_operands(op),
            Shl | Shr | Dshl | Dshr | AndR | OrR | XorR | Msb | Slice | Bit => {
                self.bit_operands(op)
            }
            Cat | Repeat | Zext | Sext | Ext | Trunc | AsSigned | AsUnsigned => {
                self.width_operands(op)
            }
            _ => self.helper_operands(op),
        };
        if let Some((args, imm, ty)) = operands {
            self.op(op, args, imm, ty);
        }
    }

    /// Arithmetic and comparisons.
    fn arith_operands(&mut self, op: OpKind) -> Option<Operands> {
        use OpKind::*;
        Some(match op {
            Add | Sub | And | Or | Xor => {
                let a = self.any_value();
                let t = self.ty(a);
                (vec![a, self.operand(t)], vec![], t)
            }
            Addc | Subc => {
                let a = self.value_upto(MAX_W - 1);
                let t = self.ty(a);
                let b = self.operand(t);
                (vec![a, b], vec![], FTy::new(t.width + 1, t.signed))
            }
            Mul => {
                let a = self.value_upto(150);
                let t = self.ty(a);
                let wb = self.rng.range(1, (MAX_W - t.width).min(150));
                let b = if t.signed && wb > 1 && self.rng.chance(33) {
                    // Signed times unsigned: the unsigned factor zero-extended by a bit.
                    let u = self.operand(FTy::u(wb - 1));
                    let z = self.op(OpKind::Zext, vec![u], vec![wb], FTy::u(wb));
                    self.op(OpKind::AsSigned, vec![z], vec![], FTy::new(wb, true))
                } else {
                    self.operand(FTy::new(wb, t.signed))
                };
                (vec![a, b], vec![], FTy::new(t.width + wb, t.signed))
            }
            Neg | Not => {
                let a = self.any_value();
                (vec![a], vec![], self.ty(a))
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let a = self.any_value();
                let t = self.ty(a);
                (vec![a, self.operand(t)], vec![], FTy::u(1))
            }
            _ => unreachable!("{op:?} is not handled by arith_operands"),
        })
    }

    /// Shifts, reductions and bit selects.
    fn bit_operands(&mut self, op: OpKind) -> Option<Operands> {
        use OpKind::*;
        Some(match op {
            Shl | Shr => {
                let a = self.any_value();
                let t = self.ty(a);
                let n = self.rng.below(t.width as u64 + 2) as u32;
                (vec![a], vec![n], t)
            }
            Dshl | Dshr => {
                let a = self.any_value();
                let t = self.ty(a);
                // Mostly amounts around the width, so both in-range and too-large shifts.
                let aw = match self.rng.below(20) {
                    0..=13 => self.rng.range(1, addr_width(t.width as u64) + 1),
                    14..=18 => self.rng.range(1, 12),
                    _ => self.rng.range(13, MAX_W),
                };
                let amount = self.operand(FTy::u(aw));
                (vec![a, amount], vec![], t)
            }
            AndR | OrR | XorR | Msb => {
                let a = self.any_value();
                (vec![a], vec![], FTy::u(1))
            }
            Slice => {
                let a = self.any_value();
                let w = self.ty(a).width;
                let lo = self.rng.below(w as u64) as u32;
                let hi = self.rng.range(lo, w - 1);
                (vec![a], vec![hi, lo], FTy::u(hi - lo + 1))
            }
            Bit => {
                let a = self.any_value();
                let i = self.rng.below(self.ty(a).width as u64) as u32;
                (vec![a], vec![i], FTy::u(1))
            }
            _ => unreachable!("{op:?} is not handled by bit_operands"),
        })
    }

    /// Concatenation, repetition and width or sign changes.
    fn width_operands(&mut self, op: OpKind) -> Option<Operands> {
        use OpKind::*;
        Some(match op {
            Cat => {
                let mut parts = vec![self.value_upto(MAX_W - 1)];
                let mut total = self.ty(parts[0]).width;
                for _ in 1..self.rng.range(2, 4) {
                    if total >= MAX_W {
                        break;
                    }
                    let p = self.value_upto(MAX_W - total);
                    total += self.ty(p).width;
                    parts.push(p);
                }
                if parts.len() < 2 {
                    return None;
                }
                (parts, vec![], FTy::u(total))
            }
            Repeat => {
                let a = self.value_upto(100);
                let w = self.ty(a).width;
                let n = self.rng.range(1, (MAX_W / w).min(6));
                (vec![a], vec![n], FTy::u(w * n))
            }
            Zext | Sext | Ext => {
                let a = self.value_upto(MAX_W - 1);
                let t = self.ty(a);
                let w = self.rng.range(t.width, (t.width + 40).min(MAX_W));
                let signed = match op {
                    Zext => false,
                    Sext => true,
                    _ => t.signed,
                };
                (vec![a], vec![w], FTy::new(w, signed))
            }
            Trunc => {
                let a = self.any_value();
                let t = self.ty(a);
                let w = self.rng.range(1, t.width);
                (vec![a], vec![w], FTy::new(w, t.signed))
            }
            AsSigned | AsUnsigned => {
                let a = self.any_value();
                (vec![a], vec![], FTy::new(self.ty(a).width, op == AsSigned))
            }
            _ => unreachable!("{op:?} is not handled by width_operands"),
        })
    }

    /// The `hdl::helpers` operations.
    fn helper_operands(&mut self, op: OpKind) -> Option<Operands> {
        use OpKind::*;
        Some(match op {
            Mux => {
                let c = self.operand(FTy::u(1));
                let t = self.any_value();
                let e = self.operand(self.ty(t));
                (vec![c, t, e], vec![], self.ty(t))
            }
            PriorityEncode | OnehotEncode => {
                let a = self.value_upto(64);
                let w = addr_width(self.ty(a).width as u64);
                (vec![a], vec![], FTy::u(w))
            }
            Popcount => {
                let a = self.value_upto(64);
                let w = addr_width(self.ty(a).width as u64 + 1);
                (vec![a], vec![], FTy::u(w))
            }
            LowestOne => {
                let a = self.any_value();
                (vec![a], vec![], FTy::u(self.ty(a).width))
            }
            PriorityMux => {
                let d = self.any_value();
                let t = self.ty(d);
                let mut args = vec![d];
                for _ in 0..self.rng.range(1, 4) {
                    args.push(self.operand(FTy::u(1)));
                    args.push(self.operand(t));
                }
                (args, vec![], t)
            }
            OnehotMux => {
                let k = self.rng.range(1, 6);
                let sel = self.operand(FTy::u(k));
                let first = self.any_value();
                let t = self.ty(first);
                let mut args = vec![sel, first];
                for _ in 1..k {
                    args.push(self.operand(t));
                }
                (args, vec![], FTy::u(t.width))
            }
            OnehotDecode => {
                // `onehot_decode` compares with unsigned constants, so a signed index
                // fails to elaborate (reported); decode an unsigned one.
                let a = self.value_upto(6);
                let w = self.ty(a).width;
                let a = self.convert(a, FTy::u(w));
                let n = self.rng.range(1, (1u32 << w).min(40));
                (vec![a], vec![n], FTy::u(n))
            }

            _ => unreachable!("{op:?} is not handled by helper_operands"),
        })
    }

    fn reg(&mut self) {
        let ty = self.random_ty();
        let w = ty.width;
        let reset = match self.rng.below(10) {
            0..=3 => Reset::Bits(hdl::Bits::zero(w)),
            4..=7 => Reset::Bits(self.rng.bits(w)),
            _ if w <= 63 => {
                let v = self.rng.next_u64() & ((1u64 << w) - 1);
                // Signed registers take a negative integer when the sign bit is set.
                let v = if ty.signed && v >> (w - 1) == 1 {
                    (v | !((1u64 << w) - 1)) as i64
                } else {
                    v as i64
                };
                Reset::Int(v)
            }
            _ => Reset::Bits(self.rng.bits(w)),
        };
        let enable = self.rng.chance(40).then(|| self.operand(FTy::u(1)));
        self.push(Kind::Reg { reset, enable }, ty);
    }

    /// A wire and its drivers: a default, maybe overridden under a `when` chain. Every
    /// source and condition exists before the wire, so no loop can pass through it.
    fn wire(&mut self) {
        let ty = self.random_ty();
        let default = self.operand(ty);
        let when = if self.rng.chance(50) {
            let c = self.operand(FTy::u(1));
            let s = self.operand(ty);
            let elsewhen = self.rng.chance(40).then(|| {
                let c2 = self.operand(FTy::u(1));
                (c2, self.operand(ty))
            });
            let otherwise = self.rng.chance(50).then(|| self.operand(ty));
            Some((c, s, elsewhen, otherwise))
        } else {
            None
        };
        let w = self.push(Kind::Wire, ty);
        let connect = |src| Stmt::Connect {
            target: Target::Item(w),
            src,
        };
        self.m.stmts.push(connect(default));
        if let Some((c, s, elsewhen, otherwise)) = when {
            self.m.stmts.push(Stmt::When {
                cond: c,
                then: vec![connect(s)],
                elsewhens: elsewhen
                    .map(|(c2, s2)| vec![(c2, vec![connect(s2)])])
                    .unwrap_or_default(),
                otherwise: otherwise.map(|o| vec![connect(o)]),
            });
        }
    }

    fn mem_read(&mut self) {
        let mem = self.rng.below(self.m.mems.len() as u64) as usize;
        let ms = self.m.mems[mem];
        let addr = self.operand(FTy::u(addr_width(ms.depth)));
        let kind = if self.rng.chance(50) {
            Kind::MemRead { mem, addr }
        } else {
            let en = self.operand(FTy::u(1));
            Kind::MemReadSync { mem, addr, en }
        };
        self.push(kind, FTy::u(ms.width));
    }

    fn instance(&mut self) {
        let module = self.rng.below(self.children.len() as u64) as usize;
        let child = &self.children[module];
        let in_tys: Vec<FTy> = child.inputs().map(|(_, _, t)| t).collect();
        let out_tys: Vec<FTy> = child.outputs.iter().map(|o| o.ty).collect();
        let args = in_tys.into_iter().map(|t| self.operand(t)).collect();
        let inst = self.push(Kind::Inst { module, args }, FTy::u(1));
        for (port, ty) in out_tys.into_iter().enumerate() {
            self.push(Kind::InstOut { inst, port }, ty);
        }
    }

    /// Outputs, register next states and memory writes, under nested `when`s.
    fn statements(&mut self) {
        for id in 0..self.rng.range(1, 4) {
            let ty = if self.rng.chance(50) {
                let v = self.any_value();
                self.ty(v)
            } else {
                self.random_ty()
            };
            self.m.outputs.push(OutSpec { id, ty });
            let src = self.operand(ty);
            self.m.stmts.push(Stmt::Connect {
                target: Target::Output(id as usize),
                src,
            });
        }
        let regs: Vec<usize> = self.regs();
        for r in regs {
            if self.rng.chance(60) {
                let src = self.next_state(r);
                self.m.stmts.push(Stmt::Connect {
                    target: Target::Item(r),
                    src,
                });
            }
        }
        for mem in 0..self.m.mems.len() {
            for _ in 0..self.rng.below(2) {
                let w = self.write(mem);
                self.m.stmts.push(w);
            }
        }
        for _ in 0..self.rng.range(1, 3) {
            let w = self.when(0, None);
            self.m.stmts.push(w);
        }
        // A memory nothing writes has no defined contents in synthesis (Yosys rejects
        // it): every memory gets a write port.
        for mem in 0..self.m.mems.len() {
            let mut written = false;
            walk(&self.m.stmts, &mut vec![], &mut |s, _| {
                written |= matches!(s, Stmt::Write { mem: m, .. } if *m == mem);
            });
            if !written {
                let w = self.write(mem);
                self.m.stmts.push(w);
            }
        }
        // Occasionally a plain connection after the `when`s overrides them.
        let regs = self.regs();
        if !regs.is_empty() && self.rng.chance(20) {
            let r = *self.rng.pick(&regs);
            let src = self.next_state(r);
            self.m.stmts.push(Stmt::Connect {
                target: Target::Item(r),
                src,
            });
        }
        // A register never written is a constant the checker refuses: such a one gets a
        // next state first. (No register is written with itself: see `next_state`.)
        for r in self.regs() {
            let mut written = false;
            walk(&self.m.stmts, &mut vec![], &mut |s, _| {
                written |= matches!(s, Stmt::Connect { target: Target::Item(t), .. } if *t == r);
            });
            if !written {
                let src = self.next_state(r);
                self.m.stmts.insert(
                    0,
                    Stmt::Connect {
                        target: Target::Item(r),
                        src,
                    },
                );
            }
        }
    }

    /// A value of register `r`'s type other than `r` itself: a register whose every write
    /// is itself never changes, which the checker refuses.
    fn next_state(&mut self, r: usize) -> usize {
        let ty = self.ty(r);
        for _ in 0..8 {
            let v = self.operand(ty);
            if self.same_bits_as(v) != r {
                return v;
            }
        }
        self.konst(ty)
    }

    /// The item `v` is a same-width cast of (a chain of `AsSigned`, `AsUnsigned` and
    /// extensions to the same width), or `v` itself: the same bits under another type.
    fn same_bits_as(&self, mut v: usize) -> usize {
        while let Kind::Op { op, args, .. } = &self.m.items[v].kind {
            let casts = matches!(
                op,
                OpKind::AsSigned | OpKind::AsUnsigned | OpKind::Zext | OpKind::Sext | OpKind::Ext
            );
            if !casts || self.ty(args[0]).width != self.ty(v).width {
                break;
            }
            v = args[0];
        }
        v
    }

    fn regs(&self) -> Vec<usize> {
        (0..self.m.items.len())
            .filter(|&i| matches!(self.m.items[i].kind, Kind::Reg { .. }))
            .collect()
    }

    fn write(&mut self, mem: usize) -> Stmt {
        let ms = self.m.mems[mem];
        let addr = self.operand(FTy::u(addr_width(ms.depth)));
        let data_ty = FTy::new(ms.width, self.rng.chance(30));
        let data = self.operand(data_ty);
        let mask = self.rng.chance(40).then(|| {
            let divisors: Vec<u32> = (1..=ms.width)
                .filter(|&d| ms.width.is_multiple_of(d))
                .collect();
            let g = *self.rng.pick(&divisors);
            self.operand(FTy::u(g))
        });
        Stmt::Write {
            mem,
            addr,
            data,
            mask,
        }
    }

    /// A `when` chain; `floor` is the latest condition enclosing it (wires created before
    /// a condition cannot be driven under it without risking a loop).
    fn when(&mut self, depth: u32, floor: Option<usize>) -> Stmt {
        let cond = self.operand(FTy::u(1));
        let mut chain_floor = floor.max(Some(cond));
        let then = self.block(depth + 1, chain_floor);
        let mut elsewhens = Vec::new();
        while self.rng.chance(30) && elsewhens.len() < 2 {
            let c = self.operand(FTy::u(1));
            chain_floor = chain_floor.max(Some(c));
            elsewhens.push((c, self.block(depth + 1, chain_floor)));
        }
        let otherwise = self
            .rng
            .chance(50)
            .then(|| self.block(depth + 1, chain_floor));
        Stmt::When {
            cond,
            then,
            elsewhens,
            otherwise,
        }
    }

    fn block(&mut self, depth: u32, floor: Option<usize>) -> Vec<Stmt> {
        let mut out = Vec::new();
        for _ in 0..self.rng.range(1, 3) {
            let roll = self.rng.below(100);
            if depth < 3 && roll < 25 {
                out.push(self.when(depth, floor));
                continue;
            }
            let regs = self.regs();
            let stmt = match roll {
                25..=54 => {
                    let o = self.rng.below(self.m.outputs.len() as u64) as usize;
                    let src = self.operand(self.m.outputs[o].ty);
                    Some(Stmt::Connect {
                        target: Target::Output(o),
                        src,
                    })
                }
                55..=74 if !regs.is_empty() => {
                    let r = *self.rng.pick(&regs);
                    let src = self.next_state(r);
                    Some(Stmt::Connect {
                        target: Target::Item(r),
                        src,
                    })
                }
                75..=89 if !self.m.mems.is_empty() => {
                    let mem = self.rng.below(self.m.mems.len() as u64) as usize;
                    Some(self.write(mem))
                }
                _ => self.wire_connect(floor),
            };
            out.extend(stmt);
        }
        out
    }

    /// A connection to a wire created after every enclosing condition, from an existing
    /// value created before the wire.
    fn wire_connect(&mut self, floor: Option<usize>) -> Option<Stmt> {
        let start = floor.map_or(0, |f| f + 1);
        let wires: Vec<usize> = (start..self.m.items.len())
            .filter(|&i| self.m.items[i].kind == Kind::Wire)
            .collect();
        if wires.is_empty() {
            return None;
        }
        let w = *self.rng.pick(&wires);
        let ty = self.ty(w);
        let srcs: Vec<usize> = (0..w)
            .filter(|&i| self.m.is_value(i) && self.ty(i) == ty)
            .collect();
        (!srcs.is_empty()).then(|| Stmt::Connect {
            target: Target::Item(w),
            src: *self.rng.pick(&srcs),
        })
    }
}
