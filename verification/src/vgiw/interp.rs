//! The reference interpreter of a compiled block (seed 004 section 2: one thread through
//! a block's graph): every node fires once its operand and ordering tokens have arrived.
//! Nodes fire in graph order, or in a random order among the ready ones, so that a test
//! sees every order the fabric's dataflow allows, not the program's. Integer semantics
//! are RV32IM's, floating point is `crate::fp` in single precision.

use crate::fp::{self, Arith, FCmp, Fma, FpOp, IntKind};
use crate::rng::Rng;
use generators::vgiw::compiler::decode::{AmoOp, CompOp, Rm, Width};
use generators::vgiw::compiler::{Arg, Block, Next, Op, Succ, ThreadValue};

/// The values the CVU injects for a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadInit {
    pub tid: u32,
    pub gp: u32,
    pub tp: u32,
    /// The initial sp: the stack top less tid times the stack bytes.
    pub sp: u32,
}

/// The data memory a block reads and writes (the L1 and beyond).
pub trait DataMemory {
    /// `width` bytes at `addr`, zero-extended; `None` outside memory.
    fn read(&mut self, addr: u32, bytes: u32) -> Option<u32>;
    /// Writes the low `bytes` bytes of `value`; false outside memory.
    fn write(&mut self, addr: u32, bytes: u32, value: u32) -> bool;
}

/// The live value cache as a thread sees it.
pub trait LiveValues {
    fn load(&mut self, lvid: u16, tid: u32) -> u32;
    fn store(&mut self, lvid: u16, tid: u32, value: u32);
}

/// Why a thread could not run a block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InterpError {
    #[error("thread {tid}: block {block} node n{node} accesses {addr:#x}, outside memory")]
    Fault {
        tid: u32,
        block: u16,
        node: usize,
        addr: u32,
    },
    #[error("thread {tid}: block {block} node n{node} accesses misaligned {addr:#x}")]
    Misaligned {
        tid: u32,
        block: u16,
        node: usize,
        addr: u32,
    },
}

/// In which order ready nodes fire.
pub enum Order<'a> {
    /// Graph order (a topological order).
    Graph,
    /// A random ready node each time.
    Random(&'a mut Rng),
}

/// Runs thread `t` through `block`: its successor.
pub fn run_block(
    block: &Block,
    t: &ThreadInit,
    mem: &mut dyn DataMemory,
    lv: &mut dyn LiveValues,
    order: Order,
) -> Result<Succ, InterpError> {
    let n = block.nodes.len();
    let mut value: Vec<Option<u32>> = vec![None; n];
    let mut fire = |k: usize, value: &mut Vec<Option<u32>>| -> Result<(), InterpError> {
        let node = &block.nodes[k];
        let args: Vec<u32> = (node.args.iter())
            .map(|a| match a {
                Arg::Node(i) => value[*i].expect("operand ready"),
                Arg::Imm(v) => *v,
            })
            .collect();
        let v = eval(node.op, &args, t, mem, lv).map_err(|(addr, misaligned)| {
            let (tid, block, node) = (t.tid, block.id, k);
            if misaligned {
                InterpError::Misaligned {
                    tid,
                    block,
                    node,
                    addr,
                }
            } else {
                InterpError::Fault {
                    tid,
                    block,
                    node,
                    addr,
                }
            }
        })?;
        value[k] = Some(v);
        Ok(())
    };
    match order {
        Order::Graph => {
            for k in 0..n {
                fire(k, &mut value)?;
            }
        }
        Order::Random(rng) => {
            let mut waiting: Vec<usize> = (0..n).collect();
            while !waiting.is_empty() {
                let ready: Vec<usize> = (waiting.iter().enumerate())
                    .filter(|(_, &k)| block.nodes[k].inputs().all(|i| value[i].is_some()))
                    .map(|(w, _)| w)
                    .collect();
                let w = ready[rng.below(ready.len() as u64) as usize];
                fire(waiting.swap_remove(w), &mut value)?;
            }
        }
    }
    let outcome = value[n - 1].unwrap_or(0);
    debug_assert_eq!(block.nodes[n - 1].op, Op::Next);
    Ok(match block.next {
        Next::Goto(s) => s,
        Next::Cond { taken, fall } => {
            if outcome != 0 {
                taken
            } else {
                fall
            }
        }
    })
}

/// A node's value from its operands; a memory access's failure is (address, whether it
/// is misaligned rather than outside memory).
fn eval(
    op: Op,
    args: &[u32],
    t: &ThreadInit,
    mem: &mut dyn DataMemory,
    lv: &mut dyn LiveValues,
) -> Result<u32, (u32, bool)> {
    let check = |addr: u32, bytes: u32| {
        if addr.is_multiple_of(bytes) {
            Ok(addr)
        } else {
            Err((addr, true))
        }
    };
    Ok(match op {
        Op::Thread(v) => match v {
            ThreadValue::Tid => t.tid,
            ThreadValue::Gp => t.gp,
            ThreadValue::Tp => t.tp,
            ThreadValue::Sp => t.sp,
        },
        Op::Compute(op) => compute(op, args),
        Op::Branch(c) => c.holds(args[0], args[1]) as u32,
        Op::Load { width, offset } => {
            let addr = check(args[0].wrapping_add(offset as u32), width.bytes())?;
            extend(mem.read(addr, width.bytes()).ok_or((addr, false))?, width)
        }
        Op::Store { width, offset } => {
            let addr = check(args[0].wrapping_add(offset as u32), width.bytes())?;
            if !mem.write(addr, width.bytes(), args[1]) {
                return Err((addr, false));
            }
            0
        }
        Op::Amo(op) => {
            let addr = check(args[0], 4)?;
            let old = mem.read(addr, 4).ok_or((addr, false))?;
            mem.write(addr, 4, amo(op, old, args[1]));
            old
        }
        Op::LvLoad(l) => lv.load(l, t.tid),
        Op::LvStore(l) => {
            lv.store(l, t.tid, args[0]);
            0
        }
        Op::Split => args[0],
        Op::Join => 0,
        Op::Next => args.first().copied().unwrap_or(0),
    })
}

fn extend(v: u32, width: Width) -> u32 {
    match width {
        Width::B => v as u8 as i8 as i32 as u32,
        Width::H => v as u16 as i16 as i32 as u32,
        Width::W | Width::Bu | Width::Hu => v,
    }
}

fn amo(op: AmoOp, old: u32, src: u32) -> u32 {
    match op {
        AmoOp::Swap => src,
        AmoOp::Add => old.wrapping_add(src),
        AmoOp::Xor => old ^ src,
        AmoOp::And => old & src,
        AmoOp::Or => old | src,
        AmoOp::Min => (old as i32).min(src as i32) as u32,
        AmoOp::Max => (old as i32).max(src as i32) as u32,
        AmoOp::Minu => old.min(src),
        AmoOp::Maxu => old.max(src),
    }
}

/// An integer or single-precision operation on its operands.
pub fn compute(op: CompOp, a: &[u32]) -> u32 {
    let (x, y) = (a[0], a.get(1).copied().unwrap_or(0));
    if let Some(v) = op.fold(x, y) {
        return v;
    }
    let (sx, sy) = (x as i32 as i64, y as i32 as i64);
    let fp = |op: FpOp, rm: Rm| {
        let c = a.get(2).copied().unwrap_or(0) as u64;
        fp::execute(op, x as u64, y as u64, c, fp::round_of(rm.0 as u32)).0 as u32
    };
    let s = fp::Fmt::S;
    let rne = Rm(0);
    match op {
        CompOp::Mulh => ((sx * sy) >> 32) as u32,
        CompOp::Mulhsu => ((sx * y as i64) >> 32) as u32,
        CompOp::Mulhu => ((x as u64 * y as u64) >> 32) as u32,
        CompOp::Div => match (x as i32, y as i32) {
            (_, 0) => u32::MAX,
            (i32::MIN, -1) => x,
            (p, q) => (p / q) as u32,
        },
        CompOp::Divu => x.checked_div(y).unwrap_or(u32::MAX),
        CompOp::Rem => match (x as i32, y as i32) {
            (_, 0) => x,
            (i32::MIN, -1) => 0,
            (p, q) => (p % q) as u32,
        },
        CompOp::Remu => x.checked_rem(y).unwrap_or(x),
        CompOp::FAdd(rm) => fp(FpOp::Arith(Arith::Add, s), rm),
        CompOp::FSub(rm) => fp(FpOp::Arith(Arith::Sub, s), rm),
        CompOp::FMul(rm) => fp(FpOp::Arith(Arith::Mul, s), rm),
        CompOp::FDiv(rm) => fp(FpOp::Arith(Arith::Div, s), rm),
        CompOp::FSqrt(rm) => fp(FpOp::Sqrt(s), rm),
        CompOp::FMin => fp(FpOp::Arith(Arith::Min, s), rne),
        CompOp::FMax => fp(FpOp::Arith(Arith::Max, s), rne),
        CompOp::FSgnj => fp(FpOp::Arith(Arith::Sgnj, s), rne),
        CompOp::FSgnjn => fp(FpOp::Arith(Arith::Sgnjn, s), rne),
        CompOp::FSgnjx => fp(FpOp::Arith(Arith::Sgnjx, s), rne),
        CompOp::FMadd(rm) => fp(FpOp::Fma(Fma::Madd, s), rm),
        CompOp::FMsub(rm) => fp(FpOp::Fma(Fma::Msub, s), rm),
        CompOp::FNmsub(rm) => fp(FpOp::Fma(Fma::Nmsub, s), rm),
        CompOp::FNmadd(rm) => fp(FpOp::Fma(Fma::Nmadd, s), rm),
        CompOp::FCvtWS(rm) => fp(FpOp::ToInt(s, IntKind::W), rm),
        CompOp::FCvtWuS(rm) => fp(FpOp::ToInt(s, IntKind::Wu), rm),
        CompOp::FCvtSW(rm) => fp(FpOp::FromInt(IntKind::W, s), rm),
        CompOp::FCvtSWu(rm) => fp(FpOp::FromInt(IntKind::Wu, s), rm),
        CompOp::FEq => fp(FpOp::Cmp(FCmp::Eq, s), rne),
        CompOp::FLt => fp(FpOp::Cmp(FCmp::Lt, s), rne),
        CompOp::FLe => fp(FpOp::Cmp(FCmp::Le, s), rne),
        CompOp::FClass => fp(FpOp::Class(s), rne),
        _ => unreachable!("{op:?} folds"),
    }
}
