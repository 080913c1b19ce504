//! The per-warp ASRF (seed 000, sections 2.1-2.6) and what each warp instruction does
//! with it, as the CP decides at decode: one entry per x register (a compact value or
//! generic) and per f register (a uniform or generic: affine FP is not allowed).
//!
//! Decisions the paper leaves open, mirrored by the RTL:
//! - At a warp's start every register the ABI gives compact values is compact: x0..x31
//!   are 0 but sp = top - tid * bytes (affine), gp, tp (uniform); f registers +0.0.
//! - Compact sources: `tidx` (base = the warp's first thread, stride 1), loads whose base
//!   register is uniform (shared loads: the CP loads once). The paper's compiler marks
//!   them by base register gp; a uniform base covers that and GCC's pc-relative
//!   (auipc-based) globals alike: every thread loads the same word. Then the affine ALU
//!   (`alu.rs`) on compact operands: add, sub, mul by a uniform, shifts by a uniform,
//!   any other integer ALU operation on uniforms, and (with F) every FP operation on
//!   uniforms. lui, auipc and the link of jal/jalr are uniform.
//! - The ASRF is written only while the warp is converged (its first fragment's threads
//!   all active, nothing pending); otherwise a compact result is expanded by the lanes
//!   for the active threads and its register becomes generic (lazy expansion).
//! - +b: a conditional branch resolves in the CP when every thread takes the same way
//!   by construction: two uniform operands (the paper's uniform branch), or two affine
//!   operands of equal stride (their difference is uniform: beq/bne always, the ordered
//!   compares when neither operand's threads wrap in the compare's signedness; our
//!   extension, for loops that GCC ends on a pointer, as kmeans' and conv's). jal, and
//!   jalr on a uniform target, resolve in the CP in every mode with +a.
//! - +m: a load whose base is affine with stride = its element size (1, 2, 4) goes to the
//!   wide port as the lines that cover the active threads' elements.

use super::alu::{alu, Compact, Op};
use super::operands::{operands, Operands};
use super::Mechanisms;
use crate::iss::commitlog::Commit;
use crate::iss::decode::{self, opcode};
use crate::iss::simt::Thread;

/// What a warp instruction needs of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// The CP alone: affine arithmetic while converged, shared loads, jumps it resolves.
    Cp,
    /// Affine arithmetic (or a shared load) while diverged: the CP computes it, the lanes
    /// write its expansion.
    Expand,
    /// +b: resolved in the CP on uniform operands.
    UniformBranch,
    /// +m: an affine unit-stride load as `requests` wide accesses.
    AffineLoad { requests: u32 },
    /// The lanes; `compact_sources` of its operands come from the ASRF (expanded in the
    /// lanes instead of read from the SRF).
    Lanes { compact_sources: u32 },
}

/// Counts over a launch (seed 000, Table 3's columns that the model can give).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AffineStats {
    pub cp: u64,
    pub expanded: u64,
    pub uniform_branches: u64,
    pub affine_loads: u64,
    pub wide_requests: u64,
    /// Thread operand reads served from the ASRF instead of the SRF.
    pub srf_reads_avoided: u64,
    /// Thread register writes the ASRF took instead of the SRF.
    pub srf_writes_avoided: u64,
}

/// The counts of two runs together (the warps of a launch run one at a time).
impl std::ops::AddAssign for AffineStats {
    fn add_assign(&mut self, o: AffineStats) {
        self.cp += o.cp;
        self.expanded += o.expanded;
        self.uniform_branches += o.uniform_branches;
        self.affine_loads += o.affine_loads;
        self.wide_requests += o.wide_requests;
        self.srf_reads_avoided += o.srf_reads_avoided;
        self.srf_writes_avoided += o.srf_writes_avoided;
    }
}

/// The ASRF of the running warp.
#[derive(Debug, Clone)]
pub struct Asrf {
    x: [Option<Compact>; 32],
    f: [Option<u32>; 32],
    warp_size: u32,
    first_tid: u32,
    /// With private stacks (the engine's `avc`): the launch's stacks `[top - bytes,
    /// top)`, which shared and affine loads leave to the lanes ([`Asrf::private_stacks`]).
    stacks: Option<(u32, u32)>,
}

/// What the instruction being classified did, from the threads' commits.
pub struct Executed<'a> {
    pub pc: u64,
    pub insn: u32,
    pub mask: u32,
    pub converged: bool,
    /// Commits of the active threads, in thread order.
    pub commits: &'a [Commit],
}

impl Asrf {
    /// The ASRF at the start of a warp whose threads are `threads` (of `warp_size`).
    pub fn warp_start(threads: &[Thread], warp_size: u32) -> Asrf {
        let compact = |r: usize| {
            let b = threads[0].x(r) as u32;
            let s = threads
                .get(1)
                .map_or(0, |t| (t.x(r) as u32).wrapping_sub(b));
            let c = Compact {
                base: b,
                stride: s as i32 as i16,
            };
            let exact = (c.stride as i32 as u32) == s
                && threads
                    .iter()
                    .zip(0..)
                    .all(|(t, i)| c.at(i) == t.x(r) as u32);
            exact.then_some(c)
        };
        Asrf {
            x: std::array::from_fn(compact),
            f: [Some(0); 32],
            warp_size,
            first_tid: threads[0].tid,
            stacks: None,
        }
    }

    /// Register `r`'s compact value, if it has one.
    pub fn x(&self, r: usize) -> Option<Compact> {
        if r == 0 {
            Some(Compact::uniform(0))
        } else {
            self.x[r]
        }
    }

    /// f register `r`'s uniform single (its 32 bits), if it has one.
    pub fn f(&self, r: usize) -> Option<u32> {
        self.f[r]
    }

    /// The compact result of an x-destination instruction, if the rules give one.
    fn x_result(&self, e: &Executed, ops: &Operands) -> Option<Compact> {
        let insn = e.insn;
        let src = |i: usize| ops.xs[i].map_or(Some(Compact::uniform(0)), |r| self.x(r));
        let imm = Compact::uniform(decode::imm_i(insn) as u32);
        let first = || e.commits[0].xreg.map_or(0, |(_, v)| v as u32);
        match insn & 0x7f {
            opcode::CUSTOM0 => Some(Compact {
                base: self.first_tid,
                stride: 1,
            }),
            opcode::LUI => Some(Compact::uniform(decode::imm_u(insn) as u32)),
            opcode::AUIPC => Some(Compact::uniform(
                e.pc.wrapping_add(decode::imm_u(insn)) as u32
            )),
            opcode::JAL | opcode::JALR => Some(Compact::uniform((e.pc as u32).wrapping_add(4))),
            opcode::OP_IMM => alu(imm_op(insn)?, src(0)?, imm, self.warp_size),
            opcode::OP => alu(reg_op(insn)?, src(0)?, src(1)?, self.warp_size),
            opcode::LOAD if self.shared_load(insn, ops) => Some(Compact::uniform(first())),
            opcode::OP_FP if self.all_uniform(ops) => Some(Compact::uniform(first())),
            _ => None,
        }
    }

    /// With private stacks `[top - bytes, top)`: a load that may touch them is never a
    /// shared or an affine load, but goes to the lanes, whose stack check sends it to the
    /// AVC or faults (the engine's `classify.rs` and `siu.rs` decide the same).
    pub fn private_stacks(&mut self, top: u32, bytes: u32) {
        self.stacks = Some((top, bytes));
    }

    /// Whether byte `addr` is in the private stacks.
    fn in_stacks(&self, addr: u32) -> bool {
        self.stacks
            .is_some_and(|(top, bytes)| top.wrapping_sub(1).wrapping_sub(addr) < bytes)
    }

    /// Whether an affine load from `addr` (thread 0's element) may touch the private
    /// stacks: the engine checks the span `[addr, addr + 4 * warp_size)` (its check of
    /// the uncached region's), in 33 bits, against `[top - bytes, top)`.
    fn span_meets_stacks(&self, addr: u32) -> bool {
        self.stacks.is_some_and(|(top, bytes)| {
            let low = (top.wrapping_sub(bytes) as u64).saturating_sub(4 * self.warp_size as u64);
            (low..top as u64).contains(&(addr as u64))
        })
    }

    /// A load whose base register is uniform (and, with private stacks, whose address
    /// is not in them).
    fn shared_load(&self, insn: u32, ops: &Operands) -> bool {
        self.x(ops.xs[0].unwrap_or(0)).is_some_and(|c| {
            c.is_uniform() && !self.in_stacks(c.base.wrapping_add(decode::imm_i(insn) as u32))
        })
    }

    /// Every source uniform (FP operations, branches and jumps the CP resolves).
    fn all_uniform(&self, ops: &Operands) -> bool {
        ops.xs
            .iter()
            .flatten()
            .all(|&r| self.x(r).is_some_and(Compact::is_uniform))
            && ops.fs.iter().flatten().all(|&r| self.f[r].is_some())
    }

    /// The uniform result of an f-destination instruction, if the rules give one.
    fn f_result(&self, e: &Executed, ops: &Operands) -> Option<u32> {
        let uniform = match e.insn & 0x7f {
            opcode::LOAD_FP => self.shared_load(e.insn, ops),
            opcode::OP_FP | opcode::MADD | opcode::MSUB | opcode::NMSUB | opcode::NMADD => {
                self.all_uniform(ops)
            }
            _ => false,
        };
        uniform.then(|| e.commits[0].freg.map_or(0, |(_, v)| v as u32))
    }

    /// Whether every thread of the warp takes a conditional branch the same way: compact
    /// operands of equal stride that, for the ordered compares, do not wrap.
    fn branch_agrees(&self, insn: u32, ops: &Operands) -> bool {
        let src = |i: usize| ops.xs[i].map_or(Some(Compact::uniform(0)), |r| self.x(r));
        let (Some(a), Some(b)) = (src(0), src(1)) else {
            return false;
        };
        let w = self.warp_size;
        a.stride == b.stride
            && match decode::funct3(insn) {
                0 | 1 => true,
                4 | 5 => a.no_wrap(true, w) && b.no_wrap(true, w),
                _ => a.no_wrap(false, w) && b.no_wrap(false, w),
            }
    }

    /// Source operands of `ops` that are compact.
    fn compact_sources(&self, ops: &Operands) -> u32 {
        let xs = ops.xs.iter().flatten().filter(|&&r| self.x(r).is_some());
        let fs = ops.fs.iter().flatten().filter(|&&r| self.f[r].is_some());
        (xs.count() + fs.count()) as u32
    }

    /// Classifies the warp instruction `e` under `mech` and updates the ASRF.
    pub fn step(&mut self, e: &Executed, mech: Mechanisms, stats: &mut AffineStats) -> Class {
        let ops = operands(e.insn);
        let active = e.mask.count_ones() as u64;
        let class = self.classify(e, &ops, mech);
        let reads = match class {
            Class::Lanes { compact_sources } => compact_sources,
            Class::AffineLoad { .. } => 1,
            _ => ops.sources(),
        };
        stats.srf_reads_avoided += reads as u64 * active;
        match class {
            Class::Cp => {
                stats.cp += 1;
                let writes = ops.xd.is_some() || ops.fd.is_some();
                stats.srf_writes_avoided += writes as u64 * active;
            }
            Class::Expand => stats.expanded += 1,
            Class::UniformBranch => stats.uniform_branches += 1,
            Class::AffineLoad { requests } => {
                stats.affine_loads += 1;
                stats.wide_requests += requests as u64;
            }
            Class::Lanes { .. } => {}
        }
        class
    }

    fn classify(&mut self, e: &Executed, ops: &Operands, mech: Mechanisms) -> Class {
        if !mech.arith {
            // No ASRF: the model's entries only become generic as registers are written.
            self.write(ops, None, None);
            return match e.insn & 0x7f {
                opcode::JAL | opcode::MISC_MEM if ops.xd.is_none() => Class::Cp,
                _ => Class::Lanes { compact_sources: 0 },
            };
        }
        let op = e.insn & 0x7f;
        if op == opcode::BRANCH && mech.branches && self.branch_agrees(e.insn, ops) {
            return Class::UniformBranch;
        }
        if matches!(op, opcode::LOAD | opcode::LOAD_FP)
            && mech.loads
            && !self.shared_load(e.insn, ops)
        {
            if let Some(requests) = self.affine_load(e, ops) {
                self.write(ops, None, None);
                return Class::AffineLoad { requests };
            }
        }
        let jump_in_cp = op == opcode::JAL
            || (op == opcode::JALR && self.all_uniform(ops))
            || op == opcode::MISC_MEM;
        let (xr, fr) = (self.x_result(e, ops), self.f_result(e, ops));
        let compact = match (ops.xd, ops.fd) {
            (Some(_), _) => xr.is_some(),
            (_, Some(_)) => fr.is_some(),
            (None, None) => jump_in_cp,
        };
        if !compact || (op == opcode::JALR && !jump_in_cp) {
            let compact_sources = self.compact_sources(ops);
            self.write(ops, None, None);
            return Class::Lanes { compact_sources };
        }
        let writes = ops.xd.is_some() || ops.fd.is_some();
        if e.converged || !writes {
            self.write(ops, xr, fr);
            Class::Cp
        } else {
            self.write(ops, None, None);
            Class::Expand
        }
    }

    /// Sets the destination's entry (generic when `None`).
    fn write(&mut self, ops: &Operands, x: Option<Compact>, f: Option<u32>) {
        if let Some(r) = ops.xd {
            self.x[r] = x;
        }
        if let Some(r) = ops.fd {
            self.f[r] = f;
        }
    }

    /// Wide requests of an affine unit-stride load, if `e` is one: the 32-byte lines
    /// covering the active threads' elements.
    fn affine_load(&self, e: &Executed, ops: &Operands) -> Option<u32> {
        let size = match (e.insn & 0x7f, decode::funct3(e.insn)) {
            (opcode::LOAD, 0 | 4) => 1,
            (opcode::LOAD, 1 | 5) => 2,
            (opcode::LOAD, 2) | (opcode::LOAD_FP, 2) => 4,
            _ => return None,
        };
        let base = self.x(ops.xs[0]?)?;
        if base.stride as i64 != size {
            return None;
        }
        let (lo, hi) = (e.mask.trailing_zeros(), 31 - e.mask.leading_zeros());
        let addr = |i: u32| base.at(i).wrapping_add(decode::imm_i(e.insn) as u32) as u64;
        if self.span_meets_stacks(addr(0) as u32) {
            return None;
        }
        let (first, last) = (addr(lo), addr(hi) + size as u64 - 1);
        (last >= first).then(|| (last / 32 - first / 32 + 1) as u32)
    }

    /// Checks that every compact register holds, for each thread of the warp, what the
    /// thread's own register holds: the ASRF's invariant. Returns the first violation.
    pub fn check(&self, threads: &[Thread]) -> Option<String> {
        for r in 1..32 {
            let Some(c) = self.x[r] else { continue };
            for (t, i) in threads.iter().zip(0..) {
                if c.at(i) != t.x(r) as u32 {
                    return Some(format!(
                        "x{r} is {c:?} in the ASRF, so {:#x} for thread {}, which holds {:#x}",
                        c.at(i),
                        t.tid,
                        t.x(r) as u32
                    ));
                }
            }
        }
        for r in 0..32 {
            let Some(v) = self.f[r] else { continue };
            if let Some(t) = threads.iter().find(|t| t.f(r) as u32 != v) {
                return Some(format!(
                    "f{r} is uniform {v:#x} in the ASRF; thread {} holds {:#x}",
                    t.tid,
                    t.f(r) as u32
                ));
            }
        }
        None
    }
}

/// The ALU operation of an OP-IMM instruction.
fn imm_op(insn: u32) -> Option<Op> {
    Some(match decode::funct3(insn) {
        0 => Op::Add,
        1 => Op::Sll,
        2 => Op::Other(|a, b| ((a as i32) < (b as i32)) as u32),
        3 => Op::Other(|a, b| (a < b) as u32),
        4 => Op::Other(|a, b| a ^ b),
        5 if insn >> 30 & 1 == 1 => Op::Sra,
        5 => Op::Srl,
        6 => Op::Other(|a, b| a | b),
        _ => Op::And,
    })
}

/// The ALU operation of an OP instruction (of M, only mul is compact).
fn reg_op(insn: u32) -> Option<Op> {
    match (decode::funct7(insn), decode::funct3(insn)) {
        (0x01, 0) => Some(Op::Mul),
        (0x01, _) => None,
        (0x20, 0) => Some(Op::Sub),
        (0x20, _) => Some(Op::Sra),
        (_, 1) => Some(Op::Sll),
        (_, 5) => Some(Op::Srl),
        (_, f3) => imm_op(f3 << 12),
    }
}
