//! Elaboration of a spec through the public `hdl` builder API.

use super::spec::*;
use hdl::helpers;
use hdl::{cat, mux, Design, Inst, Mem, MemStyle, ModuleBuilder, ResetValue, Ty, Value};
use std::rc::Rc;

/// Builds the circuit; module names start with `prefix` so that many circuits can share
/// one Verilog file. An error means the generator (or the builder) is wrong.
pub fn elaborate(c: &Circuit, prefix: &str) -> Result<Design, String> {
    let mut built: Vec<Rc<hdl::Module>> = Vec::new();
    for (j, m) in c.modules.iter().enumerate() {
        let name = if j + 1 == c.modules.len() {
            format!("{prefix}_top")
        } else {
            format!("{prefix}_m{j}")
        };
        let module = module(m, &name, &c.modules, &built)?;
        built.push(module);
    }
    Ok(Design::new(built.last().expect("a circuit has a top")))
}

fn ty(t: FTy) -> Ty {
    if t.signed {
        Ty::S(t.width)
    } else {
        Ty::U(t.width)
    }
}

struct Ctx {
    vals: Vec<Option<Value>>,
    mems: Vec<Mem>,
    outputs: Vec<Value>,
}

impl Ctx {
    fn v(&self, i: usize) -> &Value {
        self.vals[i].as_ref().expect("operands are values")
    }
}

fn module(
    m: &ModuleSpec,
    name: &str,
    specs: &[ModuleSpec],
    built: &[Rc<hdl::Module>],
) -> Result<Rc<hdl::Module>, String> {
    let mut b = ModuleBuilder::new(name);
    let mems = m
        .mems
        .iter()
        .enumerate()
        .map(|(k, ms)| b.mem(&format!("mem{k}"), ms.depth, ms.width, MemStyle::Inferred))
        .collect();
    let mut cx = Ctx {
        vals: Vec::new(),
        mems,
        outputs: Vec::new(),
    };
    let mut insts: Vec<Option<Inst>> = Vec::new();
    for (i, it) in m.items.iter().enumerate() {
        let mut inst = None;
        let v = match &it.kind {
            Kind::Input(id) => Some(b.input(&format!("i{id}"), ty(it.ty))),
            Kind::Const(bits) => Some(konst(&mut b, bits, it.ty)),
            Kind::Op { op, args, imm } => Some(expr(*op, args, imm, &cx)),
            Kind::Reg { reset, enable } => {
                let r = match reset {
                    Reset::Bits(bits) => ResetValue::Bits(bits.clone()),
                    Reset::Int(v) => ResetValue::from(*v),
                };
                let name = format!("r{i}");
                Some(match enable {
                    None => b.reg(&name, ty(it.ty), r),
                    Some(e) => b.reg_en(&name, ty(it.ty), r, cx.v(*e)),
                })
            }
            Kind::Wire => Some(b.wire(&format!("w{i}"), ty(it.ty))),
            Kind::MemRead { mem, addr } => Some(b.read(&cx.mems[*mem], cx.v(*addr))),
            Kind::MemReadSync { mem, addr, en } => {
                Some(b.read_sync(&cx.mems[*mem], cx.v(*addr), cx.v(*en)))
            }
            Kind::Inst { module, args } => {
                let child = &specs[*module];
                let u = b.instance(&format!("u{i}"), &built[*module]);
                for ((_, id, _), a) in child.inputs().zip(args) {
                    b.connect(&u.port(&format!("i{id}")), cx.v(*a));
                }
                inst = Some(u);
                None
            }
            Kind::InstOut { inst, port } => {
                let Kind::Inst { module, .. } = m.items[*inst].kind else {
                    return Err(format!("{name}: item {i} reads a non-instance"));
                };
                let id = specs[module].outputs[*port].id;
                let u = insts[*inst].as_ref().expect("instance item");
                Some(u.port(&format!("o{id}")))
            }
        };
        if let Some(v) = &v {
            if v.width() != it.ty.width || v.is_signed() != it.ty.signed {
                return Err(format!(
                    "{name}: item {i} ({:?}) is {}{} bits, the spec says {:?}",
                    it.kind,
                    if v.is_signed() { "signed " } else { "" },
                    v.width(),
                    it.ty
                ));
            }
        }
        cx.vals.push(v);
        insts.push(inst);
    }
    cx.outputs = m
        .outputs
        .iter()
        .map(|o| b.output(&format!("o{}", o.id), ty(o.ty)))
        .collect();
    stmts(&mut b, &m.stmts, &cx);
    b.finish().map_err(|e| format!("{name}: {e}"))
}

fn konst(b: &mut ModuleBuilder, bits: &hdl::Bits, t: FTy) -> Value {
    // Exercise the three ways of writing a constant.
    let v = if t.width <= 64 && !t.signed {
        b.lit(bits.to_u64(), t.width)
    } else if t.width <= 64 {
        let shift = 64 - t.width;
        b.slit(((bits.to_u64() << shift) as i64) >> shift, t.width)
    } else {
        b.lit_bits(bits.clone())
    };
    if t.signed {
        v.as_signed()
    } else {
        v
    }
}

fn expr(op: OpKind, args: &[usize], imm: &[u32], cx: &Ctx) -> Value {
    let a = |k: usize| cx.v(args[k]);
    use OpKind::*;
    match op {
        Add => a(0) + a(1),
        Sub => a(0) - a(1),
        Addc => a(0).addc(a(1)),
        Subc => a(0).subc(a(1)),
        Mul => a(0).mul(a(1)),
        Neg => a(0).neg(),
        Not => !a(0),
        And => a(0) & a(1),
        Or => a(0) | a(1),
        Xor => a(0) ^ a(1),
        Eq => a(0).eq(a(1)),
        Ne => a(0).ne(a(1)),
        Lt => a(0).lt(a(1)),
        Le => a(0).le(a(1)),
        Gt => a(0).gt(a(1)),
        Ge => a(0).ge(a(1)),
        Shl => a(0).shl(imm[0]),
        Shr => a(0).shr(imm[0]),
        Dshl => a(0).dshl(a(1)),
        Dshr => a(0).dshr(a(1)),
        AndR => a(0).and_r(),
        OrR => a(0).or_r(),
        XorR => a(0).xor_r(),
        Slice => a(0).slice(imm[0], imm[1]),
        Bit => a(0).bit(imm[0]),
        Msb => a(0).msb(),
        Cat if args.len() == 2 => a(0).cat(a(1)),
        Cat => cat(&args.iter().map(|&i| cx.v(i)).collect::<Vec<_>>()),
        Repeat => a(0).repeat(imm[0]),
        Zext => a(0).zext(imm[0]),
        Sext => a(0).sext(imm[0]),
        Ext => a(0).ext(imm[0]),
        Trunc => a(0).trunc(imm[0]),
        AsSigned => a(0).as_signed(),
        AsUnsigned => a(0).as_unsigned(),
        Mux => mux(a(0), a(1), a(2)),
        PriorityEncode => helpers::priority_encode(a(0)),
        PriorityMux => {
            let cases: Vec<(Value, Value)> = args[1..]
                .chunks(2)
                .map(|p| (cx.v(p[0]).clone(), cx.v(p[1]).clone()))
                .collect();
            helpers::priority_mux(&cases, a(0))
        }
        OnehotMux => {
            let values: Vec<Value> = args[1..].iter().map(|&i| cx.v(i).clone()).collect();
            helpers::onehot_mux(a(0), &values)
        }
        OnehotDecode => helpers::onehot_decode(a(0), imm[0]),
        OnehotEncode => helpers::onehot_encode(a(0)),
        LowestOne => helpers::lowest_one(a(0)),
        Popcount => helpers::popcount(a(0)),
    }
}

fn target(t: Target, cx: &Ctx) -> &Value {
    match t {
        Target::Item(i) => cx.v(i),
        Target::Output(o) => &cx.outputs[o],
    }
}

fn stmts(b: &mut ModuleBuilder, block: &[Stmt], cx: &Ctx) {
    for s in block {
        match s {
            Stmt::Connect { target: t, src } => b.connect(target(*t, cx), cx.v(*src)),
            Stmt::Write {
                mem,
                addr,
                data,
                mask,
            } => match mask {
                None => b.write(&cx.mems[*mem], cx.v(*addr), cx.v(*data)),
                Some(k) => b.write_masked(&cx.mems[*mem], cx.v(*addr), cx.v(*data), cx.v(*k)),
            },
            Stmt::When {
                cond,
                then,
                elsewhens,
                otherwise,
            } => {
                let mut w = b.when(cx.v(*cond), |b| stmts(b, then, cx));
                for (c, body) in elsewhens {
                    w = w.elsewhen(cx.v(*c), |b| stmts(b, body, cx));
                }
                if let Some(o) = otherwise {
                    w.otherwise(|b| stmts(b, o, cx));
                }
            }
        }
    }
}
