//! The fuzzer's own description of a circuit: per module a list of items (values, in
//! creation order, each referring only to earlier items or to state), memories and
//! conditional statements. Circuits are generated as specs and elaborated through the
//! `hdl` builder; keeping the spec separate is what makes minimization possible.

use hdl::Bits;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FTy {
    pub width: u32,
    pub signed: bool,
}

impl FTy {
    pub fn u(width: u32) -> FTy {
        FTy {
            width,
            signed: false,
        }
    }

    pub fn new(width: u32, signed: bool) -> FTy {
        FTy { width, signed }
    }
}

/// Operators; operands are `args`, static parameters `imm` (see `elab::expr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Add,
    Sub,
    Addc,
    Subc,
    Mul,
    Neg,
    Not,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Dshl,
    Dshr,
    AndR,
    OrR,
    XorR,
    Slice,
    Bit,
    Msb,
    Cat,
    Repeat,
    Zext,
    Sext,
    Ext,
    Trunc,
    AsSigned,
    AsUnsigned,
    Mux,
    PriorityEncode,
    /// args: default, then (condition, value) pairs.
    PriorityMux,
    /// args: select, then one value per select bit.
    OnehotMux,
    OnehotDecode,
    OnehotEncode,
    LowestOne,
    Popcount,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reset {
    Bits(Bits),
    /// Given to the builder as an integer (negative for signed registers).
    Int(i64),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Port `i{id}`; ids are stable under minimization so stimulus stays the same.
    Input(u32),
    Const(Bits),
    Op {
        op: OpKind,
        args: Vec<usize>,
        imm: Vec<u32>,
    },
    Reg {
        reset: Reset,
        enable: Option<usize>,
    },
    /// Driven by `Connect` statements whose sources and conditions are all earlier items.
    Wire,
    MemRead {
        mem: usize,
        addr: usize,
    },
    MemReadSync {
        mem: usize,
        addr: usize,
        en: usize,
    },
    /// An instance of an earlier module of the circuit; one argument per child input, in
    /// the child's item order. Not a value itself: its outputs are `InstOut` items.
    Inst {
        module: usize,
        args: Vec<usize>,
    },
    InstOut {
        inst: usize,
        port: usize,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub kind: Kind,
    /// Meaningless for `Inst`.
    pub ty: FTy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Item(usize),
    Output(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Connect {
        target: Target,
        src: usize,
    },
    When {
        cond: usize,
        then: Vec<Stmt>,
        elsewhens: Vec<(usize, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    Write {
        mem: usize,
        addr: usize,
        data: usize,
        mask: Option<usize>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemSpec {
    pub depth: u64,
    pub width: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutSpec {
    /// Port `o{id}`.
    pub id: u32,
    pub ty: FTy,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleSpec {
    pub items: Vec<Item>,
    pub mems: Vec<MemSpec>,
    pub stmts: Vec<Stmt>,
    pub outputs: Vec<OutSpec>,
}

/// Modules in dependency order: children first, the top last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Circuit {
    pub modules: Vec<ModuleSpec>,
}

impl Kind {
    /// Items this one reads.
    pub fn refs(&self) -> Vec<usize> {
        match self {
            Kind::Input(_) | Kind::Const(_) | Kind::Wire => vec![],
            Kind::Op { args, .. } | Kind::Inst { args, .. } => args.clone(),
            Kind::Reg { enable, .. } => enable.iter().copied().collect(),
            Kind::MemRead { addr, .. } => vec![*addr],
            Kind::MemReadSync { addr, en, .. } => vec![*addr, *en],
            Kind::InstOut { inst, .. } => vec![*inst],
        }
    }

    pub fn map_refs(&mut self, f: &dyn Fn(usize) -> usize) {
        match self {
            Kind::Input(_) | Kind::Const(_) | Kind::Wire => {}
            Kind::Op { args, .. } | Kind::Inst { args, .. } => {
                args.iter_mut().for_each(|a| *a = f(*a))
            }
            Kind::Reg { enable, .. } => {
                if let Some(e) = enable {
                    *e = f(*e)
                }
            }
            Kind::MemRead { addr, .. } => *addr = f(*addr),
            Kind::MemReadSync { addr, en, .. } => {
                *addr = f(*addr);
                *en = f(*en);
            }
            Kind::InstOut { inst, .. } => *inst = f(*inst),
        }
    }
}

impl ModuleSpec {
    pub fn is_value(&self, i: usize) -> bool {
        !matches!(self.items[i].kind, Kind::Inst { .. })
    }

    /// The input items, in port order.
    pub fn inputs(&self) -> impl Iterator<Item = (usize, u32, FTy)> + '_ {
        self.items
            .iter()
            .enumerate()
            .filter_map(|(i, it)| match it.kind {
                Kind::Input(id) => Some((i, id, it.ty)),
                _ => None,
            })
    }
}

/// Calls `f` on every statement of a block, with the conditions enclosing it.
pub fn walk(stmts: &[Stmt], conds: &mut Vec<usize>, f: &mut dyn FnMut(&Stmt, &[usize])) {
    for s in stmts {
        f(s, conds);
        if let Stmt::When {
            cond,
            then,
            elsewhens,
            otherwise,
        } = s
        {
            // An `elsewhen` or `otherwise` branch also depends on every earlier condition.
            let mut chain = vec![*cond];
            conds.push(*cond);
            walk(then, conds, f);
            for (c, body) in elsewhens {
                chain.push(*c);
                conds.push(*c);
                walk(body, conds, f);
            }
            if let Some(o) = otherwise {
                walk(o, conds, f);
            }
            conds.truncate(conds.len() - chain.len());
        }
    }
}

impl Stmt {
    pub fn map(&self, item: &dyn Fn(usize) -> usize, mem: &dyn Fn(usize) -> usize) -> Stmt {
        let block = |b: &[Stmt]| b.iter().map(|s| s.map(item, mem)).collect::<Vec<_>>();
        match self {
            Stmt::Connect { target, src } => Stmt::Connect {
                target: match target {
                    Target::Item(i) => Target::Item(item(*i)),
                    Target::Output(o) => Target::Output(*o),
                },
                src: item(*src),
            },
            Stmt::When {
                cond,
                then,
                elsewhens,
                otherwise,
            } => Stmt::When {
                cond: item(*cond),
                then: block(then),
                elsewhens: elsewhens
                    .iter()
                    .map(|(c, b)| (item(*c), block(b)))
                    .collect(),
                otherwise: otherwise.as_ref().map(|o| block(o)),
            },
            Stmt::Write {
                mem: m,
                addr,
                data,
                mask,
            } => Stmt::Write {
                mem: mem(*m),
                addr: item(*addr),
                data: item(*data),
                mask: mask.map(item),
            },
        }
    }

    fn count(&self) -> usize {
        match self {
            Stmt::When {
                then,
                elsewhens,
                otherwise,
                ..
            } => {
                1 + then.iter().map(Stmt::count).sum::<usize>()
                    + elsewhens
                        .iter()
                        .flat_map(|(_, b)| b)
                        .map(Stmt::count)
                        .sum::<usize>()
                    + otherwise.iter().flatten().map(Stmt::count).sum::<usize>()
            }
            _ => 1,
        }
    }
}

impl Circuit {
    pub fn top(&self) -> &ModuleSpec {
        self.modules.last().expect("a circuit has a top")
    }

    /// Items plus statements over all modules: the size the minimizer reduces.
    pub fn size(&self) -> usize {
        self.modules
            .iter()
            .map(|m| m.items.len() + m.stmts.iter().map(Stmt::count).sum::<usize>())
            .sum()
    }

    /// Removes everything that cannot affect an output of the top: dead items, statements
    /// driving dead or no-longer-drivable targets, unread memories, empty `when`s and
    /// uninstantiated modules. Child modules keep their ports (instances connect them).
    pub fn prune(&self) -> Circuit {
        let n = self.modules.len();
        let mut live_mod = vec![false; n];
        live_mod[n - 1] = true;
        let mut pruned: Vec<Option<ModuleSpec>> = vec![None; n];
        for mi in (0..n).rev() {
            if !live_mod[mi] {
                continue;
            }
            let m = prune_module(&self.modules[mi], mi + 1 == n);
            for it in &m.items {
                if let Kind::Inst { module, .. } = it.kind {
                    live_mod[module] = true;
                }
            }
            pruned[mi] = Some(m);
        }
        let mut new_index = vec![usize::MAX; n];
        let mut k = 0;
        for (i, l) in live_mod.iter().enumerate() {
            if *l {
                new_index[i] = k;
                k += 1;
            }
        }
        let modules = pruned
            .into_iter()
            .flatten()
            .map(|mut m| {
                for it in &mut m.items {
                    if let Kind::Inst { module, .. } = &mut it.kind {
                        *module = new_index[*module];
                    }
                }
                m
            })
            .collect();
        Circuit { modules }
    }
}

/// Whether `target` can still be driven by `Connect` (minimization may have replaced it).
fn drivable(m: &ModuleSpec, t: Target) -> bool {
    match t {
        Target::Item(i) => matches!(m.items[i].kind, Kind::Wire | Kind::Reg { .. }),
        Target::Output(o) => o < m.outputs.len(),
    }
}

fn prune_module(m: &ModuleSpec, is_top: bool) -> ModuleSpec {
    let n = m.items.len();
    let mut live = vec![false; n];
    let mut live_mem = vec![false; m.mems.len()];
    let mut stack: Vec<usize> = Vec::new();
    if !is_top {
        stack.extend(m.inputs().map(|(i, ..)| i));
    }
    // Outputs are live; so is whatever drives a live target or a live memory. Liveness
    // of registers and memories feeds back through statements: iterate to a fixpoint.
    loop {
        walk(&m.stmts, &mut vec![], &mut |s, conds| {
            let needed = match s {
                Stmt::Connect { target, src } => {
                    let l = drivable(m, *target)
                        && match target {
                            Target::Output(_) => true,
                            Target::Item(i) => live[*i],
                        };
                    if l {
                        stack.push(*src);
                    }
                    l
                }
                Stmt::Write {
                    mem,
                    addr,
                    data,
                    mask,
                } => {
                    if live_mem[*mem] {
                        stack.extend([*addr, *data]);
                        stack.extend(*mask);
                    }
                    live_mem[*mem]
                }
                Stmt::When { .. } => false,
            };
            if needed {
                stack.extend_from_slice(conds);
            }
        });
        let mut grew = false;
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut live[i], true) {
                continue;
            }
            grew = true;
            let k = &m.items[i].kind;
            stack.extend(k.refs());
            if let Kind::MemRead { mem, .. } | Kind::MemReadSync { mem, .. } = k {
                live_mem[*mem] = true;
            }
        }
        if !grew {
            break;
        }
    }
    let mut new_mem = vec![usize::MAX; m.mems.len()];
    let mut mems = Vec::new();
    for (k, ms) in m.mems.iter().enumerate() {
        if live_mem[k] {
            new_mem[k] = mems.len();
            mems.push(*ms);
        }
    }
    let mut new_item = vec![usize::MAX; n];
    let mut items = Vec::new();
    for i in 0..n {
        if live[i] {
            new_item[i] = items.len();
            let mut it = m.items[i].clone();
            it.kind.map_refs(&|r| new_item[r]);
            if let Kind::MemRead { mem, .. } | Kind::MemReadSync { mem, .. } = &mut it.kind {
                *mem = new_mem[*mem];
            }
            items.push(it);
        }
    }
    let stmts = prune_block(&m.stmts, m, &live, &live_mem);
    let remapped: Vec<Stmt> = stmts
        .iter()
        .map(|s| s.map(&|i| new_item[i], &|k| new_mem[k]))
        .collect();
    ModuleSpec {
        items,
        mems,
        stmts: remapped,
        outputs: m.outputs.clone(),
    }
}

fn prune_block(stmts: &[Stmt], m: &ModuleSpec, live: &[bool], live_mem: &[bool]) -> Vec<Stmt> {
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Connect { target, .. } => {
                let keep = drivable(m, *target)
                    && match target {
                        Target::Item(i) => live[*i],
                        Target::Output(_) => true,
                    };
                if keep {
                    out.push(s.clone());
                }
            }
            Stmt::Write { mem, .. } => {
                if live_mem[*mem] {
                    out.push(s.clone());
                }
            }
            Stmt::When {
                cond,
                then,
                elsewhens,
                otherwise,
            } => {
                let then = prune_block(then, m, live, live_mem);
                let mut elsewhens: Vec<(usize, Vec<Stmt>)> = elsewhens
                    .iter()
                    .map(|(c, b)| (*c, prune_block(b, m, live, live_mem)))
                    .collect();
                let otherwise = otherwise
                    .as_ref()
                    .map(|o| prune_block(o, m, live, live_mem))
                    .filter(|o| !o.is_empty());
                // An empty `elsewhen` matters only to the branches after it (and its
                // condition is dead if there are none).
                if otherwise.is_none() {
                    while elsewhens.last().is_some_and(|(_, b)| b.is_empty()) {
                        elsewhens.pop();
                    }
                }
                let empty = then.is_empty()
                    && elsewhens.iter().all(|(_, b)| b.is_empty())
                    && otherwise.as_ref().is_none_or(|o| o.is_empty());
                if !empty {
                    // The conditions of a kept `when` are live: the statements inside are.
                    out.push(Stmt::When {
                        cond: *cond,
                        then,
                        elsewhens,
                        otherwise,
                    });
                }
            }
        }
    }
    out
}

impl Circuit {
    /// The circuit with only top output `k` (still named by its id), pruned to its cone.
    pub fn only_output(&self, k: usize) -> Circuit {
        let mut c = self.clone();
        let top = c.modules.last_mut().expect("a circuit has a top");
        top.outputs = vec![top.outputs[k]];
        top.stmts = retarget_outputs(&top.stmts, k);
        c.prune()
    }
}

/// Drops connections to outputs other than `k`, which becomes output 0.
fn retarget_outputs(block: &[Stmt], k: usize) -> Vec<Stmt> {
    block
        .iter()
        .filter_map(|s| match s {
            Stmt::Connect {
                target: Target::Output(o),
                src,
            } => (*o == k).then_some(Stmt::Connect {
                target: Target::Output(0),
                src: *src,
            }),
            Stmt::When {
                cond,
                then,
                elsewhens,
                otherwise,
            } => Some(Stmt::When {
                cond: *cond,
                then: retarget_outputs(then, k),
                elsewhens: elsewhens
                    .iter()
                    .map(|(c, b)| (*c, retarget_outputs(b, k)))
                    .collect(),
                otherwise: otherwise.as_ref().map(|o| retarget_outputs(o, k)),
            }),
            other => Some(other.clone()),
        })
        .collect()
}

impl std::fmt::Display for Circuit {
    /// One line per item and statement, for reproducers.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (mi, m) in self.modules.iter().enumerate() {
            writeln!(f, "module {mi}:")?;
            for (k, ms) in m.mems.iter().enumerate() {
                writeln!(f, "  mem{k}: {} x {} bits", ms.depth, ms.width)?;
            }
            for (i, it) in m.items.iter().enumerate() {
                let s = if it.ty.signed { 's' } else { 'u' };
                writeln!(f, "  #{i}: {s}{} = {:?}", it.ty.width, it.kind)?;
            }
            for o in &m.outputs {
                writeln!(f, "  output o{}: {:?}", o.id, o.ty)?;
            }
            for st in &m.stmts {
                writeln!(f, "  {st:?}")?;
            }
        }
        Ok(())
    }
}
