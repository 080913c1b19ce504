//! The FG-SIMT engine's execute side (`fgsimt/execute.rs`: the SIU and the lanes) under
//! Verilator against the RV32 ISS run per thread (`Iss::launch_thread`, `step_thread`):
//! random straight-line RV32IMF programs (every integer operation, `tidx`, multiplies,
//! divides by zero and overflowing, dependent chains at every distance, x0 destinations;
//! every RV32F operation at every rounding mode and dyn, on `randgen::SPECIAL_S` values,
//! random bits and converted thread indices, flw and fsw), loads, stores, AMOs, LR/SC
//! against a stand-in SMU (random data delays, each thread's order kept), branches and
//! `jalr`, fed as warp instructions with random masks, gaps and SMU back-pressure. Every
//! SRF write (`wtrace`, f registers as 32-63) must be the thread's next write of that
//! register in the ISS, nothing is written for inactive threads, each branch's taken mask
//! and each jump's target and agreement are the threads' ISS outcomes, and final memory
//! is the ISS's. Also: a misaligned access and an illegal instruction fault with the
//! lowest faulting thread; the back-to-back issue rate of independent ALU instructions
//! (printed); lint at four shapes.

use generators::fgsimt::execute::execute;
use generators::fgsimt::params::FgsimtParams;
use hdl::Design;
use std::collections::{BTreeMap, VecDeque};
use verification::elf::{Program, Segment};
use verification::iss::simt::{Launch, Thread};
use verification::iss::{FpExt, Iss, IssConfig, IssError, Step, Xlen};
use verification::rng::Rng;
use verification::verilator::{Model, Options};

mod lint_rig;

fn shape(lanes: u32, warp_size: u32) -> FgsimtParams {
    FgsimtParams {
        lanes,
        warp_size,
        ..FgsimtParams::default()
    }
}

/// The shape with the SIU's and units' parameters at the ends of their ranges: the
/// shallowest queues and shortest latencies (`fast`: a combinational multiplier, a
/// one-iteration divider, a one-stage FMA), or the deepest and longest.
fn edges(lanes: u32, warp_size: u32, fast: bool) -> FgsimtParams {
    let (depth, mul, div, fma) = if fast { (2, 1, 32, 1) } else { (16, 8, 1, 5) };
    FgsimtParams {
        siq_depth: depth,
        slwq_depth: depth,
        mul_latency: mul,
        div_bits_per_cycle: div,
        fma_stages: fma,
        ..shape(lanes, warp_size)
    }
}

const HOST: u64 = 0x8000_0000;
const CODE: u64 = 0x8000_4000;
const STACK_TOP: u32 = 0x8010_0000;
const STACK_BYTES: u32 = 256;
const GP: u32 = 0x8020_0040;
const TP: u32 = 0x8030_0080;
const NOP: u32 = 0x0000_0013;

// RV32 encodings.
fn r_type(f7: u32, rs2: u32, rs1: u32, f3: u32, rd: u32, op: u32) -> u32 {
    f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}
fn i_type(imm: i32, rs1: u32, f3: u32, rd: u32, op: u32) -> u32 {
    ((imm as u32) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op
}
fn s_type(imm: i32, rs2: u32, rs1: u32, f3: u32) -> u32 {
    let imm = imm as u32;
    (imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (imm & 0x1f) << 7 | 0x23
}
fn b_type(imm: i32, rs2: u32, rs1: u32, f3: u32) -> u32 {
    let imm = imm as u32;
    (imm >> 12 & 1) << 31
        | (imm >> 5 & 0x3f) << 25
        | rs2 << 20
        | rs1 << 15
        | f3 << 12
        | (imm >> 1 & 0xf) << 8
        | (imm >> 11 & 1) << 7
        | 0x63
}
fn u_type(imm20: u32, rd: u32, op: u32) -> u32 {
    (imm20 & 0xfffff) << 12 | rd << 7 | op
}
fn jal(offset: i32, rd: u32) -> u32 {
    let imm = offset as u32;
    (imm >> 20 & 1) << 31
        | (imm >> 1 & 0x3ff) << 21
        | (imm >> 11 & 1) << 20
        | (imm >> 12 & 0xff) << 12
        | rd << 7
        | 0x6f
}
fn addi(rd: u32, rs1: u32, imm: i32) -> u32 {
    i_type(imm, rs1, 0, rd, 0x13)
}
fn li(rd: u32, v: u32) -> [u32; 2] {
    let hi = v.wrapping_add(0x800) >> 12;
    [u_type(hi, rd, 0x37), addi(rd, rd, (v as i32) << 20 >> 20)]
}
fn tidx(rd: u32) -> u32 {
    r_type(0, 0, 0, 4, rd, 0x0b)
}
fn amo(f5: u32, rs2: u32, rs1: u32, rd: u32) -> u32 {
    r_type(f5 << 2, rs2, rs1, 2, rd, 0x2f)
}

/// How the bench follows a warp instruction's threads on the ISS.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Plain,
    /// A branch to pc + 8: taken threads come back to pc + 4 through a `jal`.
    Branch,
    /// A `jalr`: threads come back from their targets to pc + 4 through a `jal`.
    Jalr,
}

#[derive(Clone, Copy, Debug)]
struct WarpInsn {
    insn: u32,
    mask: u32,
    kind: Kind,
}

/// Registers random operations write: not sp (x2, the threads' data regions), nor x29
/// to x31 (addresses of AMOs and jump targets, set right before use).
const FREE: [u32; 27] = [
    0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
    27,
];

/// Often one of the last 8 of `recent` (a chain at distance 1 to 8), else any register.
fn recent_or_any(rng: &mut Rng, recent: &[u32]) -> u32 {
    let n = recent.len();
    if n > 0 && rng.chance(60) {
        let d = 1 + rng.below(8.min(n as u64)) as usize;
        return recent[n - d];
    }
    rng.below(32) as u32
}

struct Gen<'a> {
    rng: &'a mut Rng,
    warp: u32,
    out: Vec<WarpInsn>,
    recent: Vec<u32>,
    /// The f registers written last.
    recent_f: Vec<u32>,
}

impl Gen<'_> {
    fn mask(&mut self) -> u32 {
        let full = if self.warp == 32 {
            u32::MAX
        } else {
            (1 << self.warp) - 1
        };
        if self.rng.chance(40) {
            return full;
        }
        loop {
            let m = self.rng.next_u64() as u32 & full;
            if m != 0 {
                return m;
            }
        }
    }

    fn rd(&mut self) -> u32 {
        let rd = *self.rng.pick(&FREE);
        self.recent.push(rd);
        rd
    }

    /// A source: often a recent destination (a chain at distance 1 to 8), else any.
    fn rs(&mut self) -> u32 {
        recent_or_any(self.rng, &self.recent)
    }

    fn push(&mut self, insn: u32, mask: u32, kind: Kind) {
        self.out.push(WarpInsn { insn, mask, kind });
    }

    fn plain(&mut self, insn: u32) {
        let mask = self.mask();
        self.push(insn, mask, Kind::Plain);
    }

    fn alu(&mut self) {
        let (rs1, rs2) = (self.rs(), self.rs());
        let rd = self.rd();
        let insn = match self.rng.below(10) {
            0..=3 => {
                let (f7, f3) = *self.rng.pick(&[
                    (0, 0),
                    (0x20, 0),
                    (0, 1),
                    (0, 2),
                    (0, 3),
                    (0, 4),
                    (0, 5),
                    (0x20, 5),
                    (0, 6),
                    (0, 7),
                ]);
                r_type(f7, rs2, rs1, f3, rd, 0x33)
            }
            4 => r_type(1, rs2, rs1, self.rng.below(8) as u32, rd, 0x33),
            5 => {
                // A divide of the most negative word by -1 (overflow) or by zero.
                let (a, b) = (self.rd(), self.rd());
                self.plain(u_type(0x80000, a, 0x37));
                let by = if self.rng.chance(50) {
                    addi(b, 0, -1)
                } else {
                    addi(b, 0, 0)
                };
                self.plain(by);
                r_type(1, b, a, 4 + self.rng.below(4) as u32, rd, 0x33)
            }
            6 => {
                let f3 = *self.rng.pick(&[0, 2, 3, 4, 6, 7]);
                i_type(self.rng.next_u64() as i32, rs1, f3, rd, 0x13)
            }
            7 => {
                let (f7, f3) = *self.rng.pick(&[(0, 1), (0, 5), (0x20, 5)]);
                r_type(f7, self.rng.below(32) as u32, rs1, f3, rd, 0x13)
            }
            8 => match self.rng.below(5) {
                0 => u_type(0x80000, rd, 0x37),
                1 => addi(rd, 0, -1),
                2 => u_type(self.rng.next_u64() as u32, rd, 0x17),
                3 => tidx(rd),
                _ => u_type(self.rng.next_u64() as u32, rd, 0x37),
            },
            _ => match self.rng.below(3) {
                0 if rd != 0 => jal(4, rd),
                1 => 0x0ff0_000f, // fence
                _ => addi(rd, rs1, self.rng.below(64) as i32 - 32),
            },
        };
        self.plain(insn);
    }

    fn memory(&mut self) {
        let size = self.rng.below(3) as u32;
        let offset = (self.rng.below(256 >> size) as i32 - (128 >> size)) << size;
        if self.rng.chance(50) {
            let f3 = if size < 2 && self.rng.chance(50) {
                size | 4
            } else {
                size
            };
            let rd = self.rd();
            self.plain(i_type(offset, 2, f3, rd, 0x03));
        } else {
            let rs2 = self.rs();
            self.plain(s_type(offset, rs2, 2, size));
        }
    }

    /// `addi x31, sp, off` then an AMO, LR or SC on it, under one mask (sometimes an
    /// LR first, so that the SC may succeed).
    fn atomic(&mut self) {
        let mask = self.mask();
        let offset = (self.rng.below(64) as i32 - 32) * 4;
        self.push(addi(31, 2, offset), mask, Kind::Plain);
        if self.rng.chance(30) {
            let rd = self.rd();
            self.push(amo(0x02, 0, 31, rd), mask, Kind::Plain);
        }
        let f5 = *self.rng.pick(&[
            0x02, 0x03, 0x01, 0x00, 0x04, 0x0c, 0x08, 0x10, 0x14, 0x18, 0x1c,
        ]);
        let rs2 = if f5 == 0x02 { 0 } else { self.rs() };
        let rd = self.rd();
        self.push(amo(f5, rs2, 31, rd), mask, Kind::Plain);
    }

    fn branch(&mut self) {
        let mask = self.mask();
        let f3 = *self.rng.pick(&[0, 1, 4, 5, 6, 7]);
        if self.rng.chance(50) {
            // Operands that differ by thread.
            self.push(tidx(28), mask, Kind::Plain);
            self.push(i_type(3, 28, 7, 28, 0x13), mask, Kind::Plain); // andi x28, x28, 3
            let rs = self.rs();
            self.push(b_type(8, rs, 28, f3), mask, Kind::Branch);
        } else {
            let (rs1, rs2) = (self.rs(), self.rs());
            self.push(b_type(8, rs2, rs1, f3), mask, Kind::Branch);
        }
    }

    /// `auipc x30, 0`, a per-thread offset in x29, `jalr` near the code.
    fn jump(&mut self) {
        let mask = self.mask();
        self.push(u_type(0, 30, 0x17), mask, Kind::Plain);
        self.push(tidx(29), mask, Kind::Plain);
        let bit = self.rng.below(2) as i32;
        self.push(i_type(bit, 29, 7, 29, 0x13), mask, Kind::Plain); // andi
        self.push(i_type(4, 29, 1, 29, 0x13), mask, Kind::Plain); // slli 4
        self.push(r_type(0, 29, 30, 0, 30, 0x33), mask, Kind::Plain);
        let imm = 4 * (self.rng.below(9) as i32 - 4) + self.rng.below(2) as i32;
        let rd = self.rd();
        self.push(i_type(imm, 30, 0, rd, 0x67), mask, Kind::Jalr);
    }

    fn frd(&mut self) -> u32 {
        let rd = self.rng.below(32) as u32;
        self.recent_f.push(rd);
        rd
    }

    /// An f source: often a recent f destination, else any.
    fn frs(&mut self) -> u32 {
        recent_or_any(self.rng, &self.recent_f)
    }

    /// A special single (`randgen::SPECIAL_S`) or random bits into an f register,
    /// through an x register (`li`, fmv.w.x) or a per-thread integer (fcvt.s.w[u]).
    fn fp_value(&mut self) {
        let bits = if self.rng.chance(70) {
            *self.rng.pick(&verification::randgen::SPECIAL_S)
        } else {
            self.rng.next_u64() as u32
        };
        let x = self.rd();
        if self.rng.chance(20) {
            self.plain(tidx(x));
        } else {
            let [hi, lo] = li(x, bits);
            self.plain(hi);
            self.plain(lo);
        }
        let fd = self.frd();
        let insn = if self.rng.chance(75) {
            r_type(0x78, 0, x, 0, fd, 0x53) // fmv.w.x
        } else {
            let rm = self.rm();
            r_type(0x68, self.rng.below(2) as u32, x, rm, fd, 0x53) // fcvt.s.w[u]
        };
        self.plain(insn);
    }

    /// flw or fsw of an f register in the thread's data region.
    fn fp_memory(&mut self) {
        let offset = (self.rng.below(64) as i32 - 32) * 4;
        if self.rng.chance(50) {
            let fd = self.frd();
            self.plain(i_type(offset, 2, 2, fd, 0x07));
        } else {
            let fs = self.frs();
            self.plain(s_type(offset, fs, 2, 2) ^ 0x23 ^ 0x27);
        }
    }

    /// A rounding mode: one of the five, or dyn (frm, 0).
    fn rm(&mut self) -> u32 {
        *self.rng.pick(&[0, 1, 2, 3, 4, 7])
    }

    /// Every other RV32F operation on recent or any f registers.
    fn fp_op(&mut self) {
        let (a, b, c) = (self.frs(), self.frs(), self.frs());
        let rm = self.rm();
        let insn = match self.rng.below(12) {
            0..=2 => {
                let f5 = self.rng.below(4) as u32; // fadd, fsub, fmul, fdiv
                r_type(f5 << 2, b, a, rm, self.frd(), 0x53)
            }
            3..=4 => {
                let op = *self.rng.pick(&[0x43, 0x47, 0x4b, 0x4f]);
                c << 27 | b << 20 | a << 15 | rm << 12 | self.frd() << 7 | op
            }
            5 => r_type(0x2c, 0, a, rm, self.frd(), 0x53), // fsqrt
            6 => {
                let (f5, f3) = *self.rng.pick(&[(4, 0), (4, 1), (4, 2), (5, 0), (5, 1)]);
                r_type(f5 << 2, b, a, f3, self.frd(), 0x53)
            }
            7 => r_type(0x50, b, a, self.rng.below(3) as u32, self.rd(), 0x53), // compares
            8 => r_type(0x60, self.rng.below(2) as u32, a, rm, self.rd(), 0x53), // fcvt.w[u].s
            9 => r_type(0x70, 0, a, self.rng.below(2) as u32, self.rd(), 0x53), // fmv.x.w, fclass
            _ => {
                let x = self.rs();
                r_type(0x78, 0, x, 0, self.frd(), 0x53) // fmv.w.x
            }
        };
        self.plain(insn);
    }
}

/// A random program of about `n` warp instructions for warps of `warp` threads (with RV32F
/// operations when `fp`).
fn program(rng: &mut Rng, warp: u32, n: usize, fp: bool) -> Vec<WarpInsn> {
    let mut g = Gen {
        rng,
        warp,
        out: Vec::new(),
        recent: Vec::new(),
        recent_f: Vec::new(),
    };
    while g.out.len() < n {
        match g.rng.below(20 + if fp { 10 } else { 0 }) {
            0..=10 => g.alu(),
            11..=14 => g.memory(),
            15..=16 => g.atomic(),
            17..=18 => g.branch(),
            19 => g.jump(),
            20..=21 => g.fp_value(),
            22 => g.fp_memory(),
            _ => g.fp_op(),
        }
    }
    // Room after the last instruction for the jumps' targets and their way back.
    g.out.extend((0..24).map(|_| WarpInsn {
        insn: NOP,
        mask: 1,
        kind: Kind::Plain,
    }));
    g.out
}

/// The ISS with the kernel state set by the host (`stack`, `globals`) and `code` at CODE.
fn iss_with(code: &[WarpInsn]) -> Iss {
    let mut host = Vec::new();
    host.extend(li(10, STACK_TOP));
    host.extend(li(11, STACK_BYTES));
    host.push(r_type(2, 11, 10, 3, 0, 0x0b)); // stack a0, a1
    host.extend(li(10, GP));
    host.extend(li(11, TP));
    host.push(r_type(3, 11, 10, 3, 0, 0x0b)); // globals a0, a1
    host.extend(li(10, 0x6000));
    host.push(0x3005_2073); // csrs mstatus, a0: FS on (Dirty)
    let bytes = |words: &[u32]| words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let program = Program {
        xlen: Xlen::Rv32,
        entry: HOST,
        segments: vec![
            Segment {
                addr: HOST,
                data: bytes(&host),
            },
            Segment {
                addr: CODE,
                data: bytes(&code.iter().map(|w| w.insn).collect::<Vec<_>>()),
            },
        ],
        tohost: 0x8000_1000,
        fromhost: None,
        symbols: BTreeMap::new(),
        function_sizes: BTreeMap::new(),
    };
    let config = IssConfig {
        fp: FpExt::F,
        ..IssConfig::default()
    };
    let mut iss = Iss::new(&program, config).unwrap();
    iss.enable_simt();
    while iss.pc != HOST + 4 * host.len() as u64 {
        let step = iss.step_one().unwrap();
        assert!(matches!(step, Step::Retired(_)), "{step:?}");
    }
    let t = iss.launch_thread(Launch { n: 1, entry: CODE }, 1);
    assert_eq!(
        (t.x(2) as u32, t.x(3) as u32, t.x(4) as u32),
        (STACK_TOP - STACK_BYTES, GP, TP)
    );
    iss
}

/// What the warp's threads do on the ISS.
#[derive(Default)]
struct Expected {
    /// Per thread of the warp, per register, the values written in order, each with the
    /// index of its instruction.
    writes: Vec<BTreeMap<u32, Vec<(u32, usize)>>>,
    branches: VecDeque<u32>,
    /// (lowest active thread's target, all active agree).
    jumps: VecDeque<(u32, bool)>,
    /// (instruction, thread, rs1's value, rs2's value), for reports.
    operands: Vec<(usize, usize, u32, u32)>,
}

/// Steps `t` once with `word` at `at` in place of what is there.
fn step_with(
    iss: &mut Iss,
    t: &mut Thread,
    at: u64,
    word: u32,
) -> verification::iss::commitlog::Commit {
    let old = iss.mem.read(at, 4).unwrap();
    iss.mem.write(at, 4, word as u64);
    let c = iss.step_thread(t, 1).unwrap();
    iss.mem.write(at, 4, old);
    c
}

/// The launch the warp of threads `tid_base..+warp` belongs to, and its threads.
fn warp_threads(iss: &Iss, tid_base: u32, warp: u32) -> (Launch, Vec<Thread>) {
    let launch = Launch {
        n: tid_base + warp,
        entry: CODE,
    };
    let threads = (0..warp)
        .map(|i| iss.launch_thread(launch, tid_base + i))
        .collect();
    (launch, threads)
}

/// Runs the warp of threads `tid_base..+warp` through `code` on the ISS.
fn expect(iss: &mut Iss, code: &[WarpInsn], tid_base: u32, warp: u32) -> Expected {
    let (launch, mut threads) = warp_threads(iss, tid_base, warp);
    let mut e = Expected {
        writes: vec![BTreeMap::new(); warp as usize],
        ..Expected::default()
    };
    for (k, wi) in code.iter().enumerate() {
        let pc = CODE + 4 * k as u64;
        let (mut taken, mut targets) = (0u32, Vec::new());
        for (i, t) in threads.iter_mut().enumerate() {
            assert_eq!(t.pc(), pc, "thread {i} follows the warp");
            if wi.mask >> i & 1 == 0 {
                step_with(iss, t, pc, NOP);
                continue;
            }
            let (rs1, rs2) = (wi.insn >> 15 & 31, wi.insn >> 20 & 31);
            e.operands
                .push((k, i, t.x(rs1 as usize) as u32, t.x(rs2 as usize) as u32));
            let c = iss.step_thread(t, launch.n).unwrap();
            if let Some((r, v)) = c.xreg {
                e.writes[i].entry(r as u32).or_default().push((v as u32, k));
            }
            // f registers are SRF registers 32-63; a single's NaN-boxed low half.
            if let Some((r, v)) = c.freg {
                let reg = 32 + r as u32;
                e.writes[i].entry(reg).or_default().push((v as u32, k));
            }
            let next = t.pc();
            match wi.kind {
                Kind::Plain => assert_eq!(next, pc + 4),
                Kind::Branch if next == pc + 8 => taken |= 1 << i,
                Kind::Branch => assert_eq!(next, pc + 4),
                Kind::Jalr => targets.push(next as u32),
            }
            if next != pc + 4 {
                step_with(iss, t, next, jal((pc + 4) as i32 - next as i32, 0));
            }
        }
        match wi.kind {
            Kind::Branch => e.branches.push_back(taken),
            Kind::Jalr => e
                .jumps
                .push_back((targets[0], targets.iter().all(|&t| t == targets[0]))),
            Kind::Plain => {}
        }
    }
    e
}

/// The stand-in SMU: a word memory serving each memory slot as it leaves the lanes (so
/// each thread's accesses stay in order), a reservation per thread (LR/SC, as the ISS
/// keeps one per thread), and the load data of each load instruction, ready a random
/// delay after its last slot, in order.
struct Smu {
    mem: BTreeMap<u32, u32>,
    reservation: BTreeMap<u32, u32>,
    /// The slots of the load instruction leaving now: per slot, per lane.
    building: Vec<Vec<u32>>,
    ready: VecDeque<(u64, Vec<Vec<u32>>)>,
    popped: usize,
}

impl Smu {
    /// Performs `op` (`l1::op`) of `size` for thread `tid` at `addr`; the load data.
    fn access(&mut self, tid: u32, op: u64, size: u64, addr: u32, (data, mask): (u32, u32)) -> u32 {
        let word = addr & !3;
        let old = *self
            .mem
            .get(&word)
            .expect("an access inside a thread's region");
        let shift = 8 * (addr & 3);
        let bits: u32 = (0..4)
            .filter(|b| mask >> b & 1 == 1)
            .map(|b| 0xff << (8 * b))
            .sum();
        let (a, b) = (old as i32, data as i32);
        let new = match op {
            0 | 2 => None,
            1 => Some(old & !bits | data & bits),
            3 => {
                let ok = self.reservation.get(&tid) == Some(&addr);
                self.reservation.remove(&tid);
                if ok {
                    self.mem.insert(word, data);
                }
                return !ok as u32;
            }
            4 => Some(data),
            5 => Some(old.wrapping_add(data)),
            6 => Some(old ^ data),
            7 => Some(old & data),
            8 => Some(old | data),
            9 => Some(a.min(b) as u32),
            10 => Some(a.max(b) as u32),
            11 => Some(old.min(data)),
            _ => Some(old.max(data)),
        };
        assert!(op < 3 || size == 2, "AMOs are words");
        if op == 2 {
            self.reservation.insert(tid, addr);
        }
        if let Some(v) = new {
            self.mem.insert(word, v);
        }
        old >> shift
    }
}

struct Bench {
    p: FgsimtParams,
    dut: Model,
    smu: Smu,
    rng: Rng,
    /// Percent of cycles without an instruction offered, with `space` low, and the most
    /// cycles of load data delay.
    gaps: u64,
    no_space: u64,
    delay: u64,
    cycle: u64,
}

impl Bench {
    fn new(p: &FgsimtParams, seed: u64) -> Bench {
        let top = execute(p).unwrap();
        let mut dut = Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap();
        dut.restart(seed).unwrap();
        Bench {
            p: p.clone(),
            dut,
            smu: Smu {
                mem: BTreeMap::new(),
                reservation: BTreeMap::new(),
                building: Vec::new(),
                ready: VecDeque::new(),
                popped: 0,
            },
            rng: Rng::new(seed),
            gaps: 20,
            no_space: 15,
            delay: 8,
            cycle: 0,
        }
    }

    fn poke(&mut self, port: &str, v: u64) {
        self.dut.poke_u64(port, v).unwrap();
    }

    fn peek(&mut self, port: &str) -> u64 {
        self.dut.peek_u64(port).unwrap()
    }

    fn warp_start(&mut self, tid_base: u32) {
        for (port, v) in [
            ("warp_start", 1),
            ("stack_top", STACK_TOP as u64),
            ("stack_bytes", STACK_BYTES as u64),
            ("gp", GP as u64),
            ("tp", TP as u64),
            ("tid_base", tid_base as u64),
            ("inst_valid", 0),
        ] {
            self.poke(port, v);
        }
        self.dut.step();
        self.poke("warp_start", 0);
    }

    /// Offers the SMU's load data of this cycle.
    fn offer_load(&mut self) {
        let lanes = self.p.lanes as usize;
        let head = self.smu.ready.front().filter(|(at, _)| *at <= self.cycle);
        let ready = head.is_some();
        let data: Vec<u32> = match head {
            Some((_, slots)) => slots[self.smu.popped].clone(),
            None => vec![0xdead_beef; lanes],
        };
        self.poke("load_ready", ready as u64);
        for (l, d) in data.iter().enumerate() {
            self.poke(&format!("load_data_{l}"), *d as u64);
        }
    }

    /// Takes the memory slot leaving the lanes this cycle, if any.
    fn take_slot(&mut self, tid_base: u32) {
        if self.peek("mem_valid") == 0 {
            return;
        }
        let (op, size) = (self.peek("mem_bits_op"), self.peek("mem_bits_size"));
        let active = self.peek("mem_bits_active");
        let slot = self.smu.building.len() as u32;
        let mut data = Vec::new();
        for l in 0..self.p.lanes {
            let f = |n: &str| format!("mem_bits_lane_{l}_{n}");
            let addr = self.peek(&f("addr")) as u32;
            let wdata = (self.peek(&f("data")) as u32, self.peek(&f("mask")) as u32);
            let tid = tid_base + slot * self.p.lanes + l;
            let v = if active >> l & 1 == 1 {
                self.smu.access(tid, op, size, addr, wdata)
            } else {
                self.rng.next_u64() as u32
            };
            data.push(v);
        }
        self.smu.building.push(data);
        if self.peek("mem_bits_last") == 1 {
            let slots = std::mem::take(&mut self.smu.building);
            assert_eq!(slots.len() as u32, self.p.threads_per_lane(), "T slots");
            if op != 1 {
                let last = self.smu.ready.back().map_or(0, |(at, _)| *at);
                let at = (self.cycle + 1 + self.rng.below(self.delay + 1)).max(last);
                self.smu.ready.push_back((at, slots));
            }
        }
    }

    /// Records this cycle's SRF writes: per thread of the warp, per register.
    fn take_writes(&mut self, writes: &mut [BTreeMap<u32, Vec<u32>>]) {
        for l in 0..self.p.lanes {
            for i in 0..3 {
                let f = |n: &str| format!("wtrace_{l}_{i}_{n}");
                if self.peek(&f("valid")) == 0 {
                    continue;
                }
                let reg = self.peek(&f("bits_reg")) as u32;
                let slot = self.peek(&f("bits_slot")) as u32;
                let data = self.peek(&f("bits_data")) as u32;
                assert!(reg > 0 && reg < 64, "a register, not x0: {reg}");
                let thread = (slot * self.p.lanes + l) as usize;
                writes[thread].entry(reg).or_default().push(data);
            }
        }
    }

    /// One cycle of warp `tid_base` running `code`: offers the next instruction (as the
    /// front end: nothing after a branch or jalr until its result is back), serves the
    /// memory slots and load data, records the writes, checks branch and jump results
    /// against `e` and notes a fault. Returns whether the unit was idle.
    fn tick(&mut self, code: &[WarpInsn], tid_base: u32, run: &mut Run, e: &mut Expected) -> bool {
        let offer = run.next < code.len() && !run.unresolved && !self.rng.chance(self.gaps);
        if offer {
            let wi = code[run.next];
            let pc = CODE + 4 * run.next as u64;
            for (port, v) in [
                ("inst_bits_pc", pc),
                ("inst_bits_insn", wi.insn as u64),
                ("inst_bits_mask", wi.mask as u64),
                ("inst_bits_tid_base", tid_base as u64),
            ] {
                self.poke(port, v);
            }
        }
        self.poke("inst_valid", offer as u64);
        let space = !self.rng.chance(self.no_space);
        self.poke("space", space as u64);
        self.offer_load();
        if offer && self.peek("inst_ready") == 1 {
            run.unresolved = code[run.next].kind != Kind::Plain;
            run.next += 1;
        }
        self.take_slot(tid_base);
        if self.peek("load_pop") == 1 {
            self.smu.popped += 1;
            if self.smu.popped == self.p.threads_per_lane() as usize {
                self.smu.ready.pop_front();
                self.smu.popped = 0;
            }
        }
        self.take_writes(&mut run.writes);
        if self.peek("branch_valid") == 1 {
            let want = e.branches.pop_front().expect("a branch");
            assert_eq!(self.peek("branch_bits_taken") as u32, want, "taken mask");
            run.unresolved = false;
        }
        if self.peek("jump_valid") == 1 {
            let want = e.jumps.pop_front().expect("a jump");
            let got = (
                self.peek("jump_bits_target") as u32,
                self.peek("jump_bits_agree") == 1,
            );
            assert_eq!(got, want, "jalr target and agreement");
            run.unresolved = false;
        }
        if self.peek("fault_valid") == 1 {
            let f =
                ["cause", "pc", "thread", "tval"].map(|n| self.peek(&format!("fault_bits_{n}")));
            run.fault = Some(f);
        }
        let idle = self.peek("idle") == 1 && !offer;
        self.dut.step();
        self.cycle += 1;
        idle
    }

    /// Runs `code` as warp `tid_base` and checks it against `e`; returns the cycles from
    /// the warp's start until idle.
    fn run_warp(&mut self, code: &[WarpInsn], tid_base: u32, mut e: Expected) -> u64 {
        self.warp_start(tid_base);
        let mut run = Run::new(self.p.warp_size);
        let start = self.cycle;
        while !self.tick(code, tid_base, &mut run, &mut e) || run.next < code.len() {
            assert_eq!(run.fault, None, "no fault");
            assert!(
                self.cycle - start < 200 * code.len() as u64,
                "the warp ends"
            );
        }
        let writes = run.writes;
        assert!(
            e.branches.is_empty() && e.jumps.is_empty(),
            "every result reported"
        );
        for (i, (got, want)) in writes.iter().zip(&e.writes).enumerate() {
            if let Err(report) = check_writes(code, i, got, want) {
                let ops: Vec<_> = e
                    .operands
                    .iter()
                    .filter(|o| o.1 == i && report.contains(&format!("instruction {}:", o.0)))
                    .collect();
                panic!(
                    "{report}\noperands {ops:x?}\nRTL {:x?}\nISS {:x?}",
                    got, want
                );
            }
        }
        self.cycle - start
    }
}

/// The RTL's writes of thread `i` equal the ISS's, register by register, in order.
fn check_writes(
    code: &[WarpInsn],
    i: usize,
    got: &BTreeMap<u32, Vec<u32>>,
    want: &BTreeMap<u32, Vec<(u32, usize)>>,
) -> Result<(), String> {
    let mut bad = Vec::new();
    let regs: std::collections::BTreeSet<&u32> = got.keys().chain(want.keys()).collect();
    for r in regs {
        let (g, w) = (
            got.get(r).cloned().unwrap_or_default(),
            want.get(r).cloned().unwrap_or_default(),
        );
        for n in 0..g.len().max(w.len()) {
            let (gv, wv) = (g.get(n), w.get(n));
            if gv != wv.map(|(v, _)| v) {
                let at = wv.or(w.last()).map_or(0, |(_, k)| *k);
                bad.push(format!(
                    "thread {i} x{r} write {n}: RTL {gv:x?}, ISS {wv:x?} (instruction {at}: {:08x}, before: {:08x?})",
                    code[at].insn,
                    code[at.saturating_sub(4)..at].iter().map(|w| w.insn).collect::<Vec<_>>()
                ));
                break;
            }
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(bad.join("\n"))
    }
}

/// A warp's run on the bench.
struct Run {
    next: usize,
    unresolved: bool,
    /// Per thread of the warp, per register, the values written in order.
    writes: Vec<BTreeMap<u32, Vec<u32>>>,
    /// cause, pc, thread, tval.
    fault: Option<[u64; 4]>,
}

impl Run {
    fn new(warp: u32) -> Run {
        Run {
            next: 0,
            unresolved: false,
            writes: vec![BTreeMap::new(); warp as usize],
            fault: None,
        }
    }
}

/// Fills each thread's data region (sp - 128 .. sp + 128) with random words, in the ISS
/// and the SMU.
fn fill_regions(iss: &mut Iss, smu: &mut Smu, rng: &mut Rng, threads: u32) {
    for tid in 0..threads {
        let sp = STACK_TOP - tid * STACK_BYTES;
        for a in (sp - 128..sp + 128).step_by(4) {
            let v = rng.next_u64() as u32;
            iss.mem.write(a as u64, 4, v as u64);
            smu.mem.insert(a, v);
        }
    }
}

/// Random programs (with RV32F when `fp`) on `warps` warps at shape `p`; returns the
/// cycles per warp.
fn random_programs(p: &FgsimtParams, warps: u32, length: usize, seed: u64, fp: bool) -> Vec<u64> {
    let mut b = Bench::new(p, seed);
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut cycles = Vec::new();
    for w in 0..warps {
        let code = program(&mut rng, p.warp_size, length, fp);
        let mut iss = iss_with(&code);
        let tid_base = w * p.warp_size;
        fill_regions(&mut iss, &mut b.smu, &mut rng, (w + 1) * p.warp_size);
        let e = expect(&mut iss, &code, tid_base, p.warp_size);
        cycles.push(b.run_warp(&code, tid_base, e));
        for tid in tid_base..tid_base + p.warp_size {
            let sp = STACK_TOP - tid * STACK_BYTES;
            for a in (sp - 128..sp + 128).step_by(4) {
                let want = iss.mem.read(a as u64, 4).unwrap() as u32;
                assert_eq!(b.smu.mem[&a], want, "memory at {a:#x} after warp {w}");
            }
        }
        b.smu.reservation.clear();
    }
    cycles
}

/// Set for the long runs (`scripts/test --long`).
fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

#[test]
fn random_programs_match_the_iss() {
    let mut shapes = vec![
        (shape(2, 8), 6, true),
        (edges(1, 1, true), 4, true),
        (edges(2, 4, false), 2, true),
    ];
    if long() {
        shapes.extend([
            (shape(8, 32), 40, true),
            (edges(4, 32, false), 40, true),
            (shape(2, 8), 200, false),
            (shape(2, 8), 200, true),
        ]);
    }
    for (p, warps, fp) in shapes {
        let cycles = random_programs(&p, warps, 300, p.lanes as u64, fp);
        println!(
            "lanes {} warp {} (siq {}, mul {}, div bits {}, fma stages {}, fp {fp}): cycles per warp {cycles:?}",
            p.lanes, p.warp_size, p.siq_depth, p.mul_latency, p.div_bits_per_cycle, p.fma_stages
        );
    }
}

/// The smallest shapes at both parameter edges in the fast suite (one with `avc`'s
/// stack check); the paper's 8 x 32 and
/// 4 x 32 (the largest SRF banks, most of the lint's time) with `ACCELGEN_LONG=1`.
#[test]
fn execute_is_lint_clean() {
    let mut shapes = vec![edges(1, 1, true), edges(2, 8, false)];
    // With the private-stack check (`avc`).
    shapes.push(FgsimtParams {
        avc: true,
        ..edges(2, 8, true)
    });
    if std::env::var_os("ACCELGEN_LONG").is_some() {
        shapes.extend([shape(8, 32), edges(4, 32, true)]);
    }
    let blocks: Vec<_> = shapes.iter().map(|p| execute(p).unwrap()).collect();
    lint_rig::lint_blocks("fgsimt execute", &blocks);
}

/// The first trap of the warp `tid_base` running `code` on the ISS (active threads in
/// order, instruction by instruction): [cause, pc, thread, tval].
fn iss_fault(iss: &mut Iss, code: &[WarpInsn], tid_base: u32, warp: u32) -> [u64; 4] {
    let (launch, mut threads) = warp_threads(iss, tid_base, warp);
    for (k, wi) in code.iter().enumerate() {
        for (i, t) in threads.iter_mut().enumerate() {
            if wi.mask >> i & 1 == 0 {
                step_with(iss, t, CODE + 4 * k as u64, NOP);
                continue;
            }
            match iss.step_thread(t, launch.n) {
                Ok(_) => {}
                Err(IssError::KernelTrap {
                    tid,
                    pc,
                    cause,
                    tval,
                    ..
                }) => return [cause, pc, tid as u64, tval & 0xffff_ffff],
                Err(e) => panic!("{e}"),
            }
        }
    }
    panic!("no trap")
}

/// Threads `first` and above of a warp under `mask` fault at the last instruction: a
/// misaligned load, store or AMO (`sp + 1`), or an illegal instruction (FP, CSR, ecall:
/// every active thread faults). The RTL's fault is the ISS's first trap.
#[test]
fn faults_name_the_lowest_faulting_thread() {
    let p = shape(2, 8);
    let mut b = Bench::new(&p, 7);
    let mut rng = Rng::new(7);
    let faulting = [
        i_type(0, 8, 2, 9, 0x03),    // lw x9, 0(x8)
        s_type(0, 9, 8, 1),          // sh x9, 0(x8)
        amo(0x00, 9, 8, 9),          // amoadd.w x9, x9, (x8)
        amo(0x02, 0, 8, 9),          // lr.w x9, (x8)
        i_type(0, 8, 2, 1, 0x07),    // flw f1, 0(x8)
        0x0031_50d3,                 // fadd.s f1, f2, f3 at the reserved rounding mode 5
        0xb000_2573,                 // csrr a0, mcycle
        0x0000_0073,                 // ecall
        0x0010_0073,                 // ebreak
        r_type(1, 0, 0, 4, 5, 0x0b), // custom-0, not tidx
    ];
    for (n, insn) in faulting.iter().cycle().take(30).enumerate() {
        let first = rng.below(p.warp_size as u64) as u32;
        let mask = (rng.next_u64() as u32 | 1 << first) & ((1 << p.warp_size) - 1);
        let tid_base = p.warp_size * rng.below(4) as u32;
        let body = [
            tidx(5),
            addi(6, 0, (tid_base + first) as i32),
            r_type(0, 6, 5, 3, 7, 0x33), // sltu x7, x5, x6
            i_type(1, 7, 4, 7, 0x13),    // xori x7, x7, 1
            r_type(0, 7, 2, 0, 8, 0x33), // add x8, sp, x7
            *insn,
        ];
        let code: Vec<WarpInsn> = body
            .iter()
            .map(|&insn| WarpInsn {
                insn,
                mask,
                kind: Kind::Plain,
            })
            .collect();
        let mut iss = iss_with(&code);
        fill_regions(&mut iss, &mut b.smu, &mut rng, tid_base + p.warp_size);
        let want = iss_fault(&mut iss, &code, tid_base, p.warp_size);
        b.dut.restart(n as u64).unwrap();
        b.smu.ready.clear();
        b.warp_start(tid_base);
        let mut run = Run::new(p.warp_size);
        let mut e = Expected::default();
        for _ in 0..200 {
            b.tick(&code, tid_base, &mut run, &mut e);
        }
        assert_eq!(run.fault, Some(want), "case {n}: {insn:08x} mask {mask:b}");
    }
}

/// Independent ALU instructions under a full mask, none held back: each unit takes one
/// every T cycles and the two overlap, so at best two warp instructions per T cycles.
#[test]
fn back_to_back_issue_rate() {
    for (lanes, warp) in [(2, 8), (1, 1)] {
        let p = shape(lanes, warp);
        let mut b = Bench::new(&p, 3);
        (b.gaps, b.no_space) = (0, 0);
        let full = if warp == 32 {
            u32::MAX
        } else {
            (1 << warp) - 1
        };
        let n = 200;
        let code: Vec<WarpInsn> = (0..n)
            .map(|i| WarpInsn {
                insn: addi(5 + i % 20, 0, i as i32),
                mask: full,
                kind: Kind::Plain,
            })
            .collect();
        let mut iss = iss_with(&code);
        let e = expect(&mut iss, &code, 0, warp);
        let cycles = b.run_warp(&code, 0, e);
        let t = p.threads_per_lane();
        println!(
            "lanes {lanes} warp {warp}: {n} independent ALU warp instructions in {cycles} cycles: {:.2} per T = {t} cycles (best 2)",
            n as f64 * t as f64 / cycles as f64
        );
    }
}
