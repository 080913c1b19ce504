//! Constrained-random RV64IMA and RV32IMA instruction streams, with F and D as asked
//! (`fp.rs`), for differential testing against Spike.
//!
//! A program initialises every free register with a random or corner-case value (f
//! registers from a table of special values), then runs a random mix of ALU,
//! multiply/divide, load/store, AMO, LR/SC, branch, jump, CSR, floating-point and
//! trap-raising instructions, and exits through HTIF. It always terminates: branches
//! and jumps only go forward, and the only backward edges are counted loops with a
//! reserved counter. Memory accesses stay inside a 4 KiB data block addressed from a
//! reserved base register; traps go to a handler that skips the faulting instruction.

mod fp;
pub mod simt;

pub use fp::{SPECIAL_D, SPECIAL_S};

use crate::iss::{FpExt, Isa, Xlen};
use crate::rng::Rng;
use std::fmt::Write;

/// Reserved registers: the data-block base, the loop counter and the trap handler's
/// scratch register. Random instructions never write them.
const BASE: &str = "s0";
const LOOP: &str = "t5";
const SCRATCH: &str = "t6";
/// Registers random instructions read and write (everything but x0 and the reserved).
const POOL: [&str; 28] = [
    "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
    "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4",
];
/// Values that exercise overflow, sign and division corner cases.
const CORNERS: [u64; 10] = [
    0,
    1,
    u64::MAX,
    0x8000_0000_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_ffff,
    0xffff_ffff_8000_0000,
    2,
];

impl Rng {
    fn reg(&mut self) -> &'static str {
        POOL[self.below(POOL.len() as u64) as usize]
    }

    /// A source register: occasionally x0.
    fn src(&mut self) -> &'static str {
        if self.below(16) == 0 {
            "zero"
        } else {
            self.reg()
        }
    }

    /// A destination: occasionally x0 (the write must be discarded).
    fn dst(&mut self) -> &'static str {
        if self.below(32) == 0 {
            "zero"
        } else {
            self.reg()
        }
    }

    fn value(&mut self) -> u64 {
        if self.below(3) == 0 {
            *self.pick(&CORNERS)
        } else {
            self.next_u64()
        }
    }

    /// Offset from BASE of an aligned access of `size` bytes inside the data block.
    fn offset(&mut self, size: u64) -> i64 {
        (self.below(4096 / size) * size) as i64 - 2048
    }
}

const RR: [&str; 28] = [
    "add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and", "addw", "subw", "sllw",
    "srlw", "sraw", "mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu", "mulw", "divw",
    "divuw", "remw", "remuw",
];
const RI: [&str; 7] = ["addi", "slti", "sltiu", "xori", "ori", "andi", "addiw"];
const SHIFT64: [&str; 3] = ["slli", "srli", "srai"];
const SHIFT32: [&str; 3] = ["slliw", "srliw", "sraiw"];
const LOADS: [(&str, u64); 7] = [
    ("lb", 1),
    ("lh", 2),
    ("lw", 4),
    ("ld", 8),
    ("lbu", 1),
    ("lhu", 2),
    ("lwu", 4),
];
const STORES: [(&str, u64); 4] = [("sb", 1), ("sh", 2), ("sw", 4), ("sd", 8)];
const AMOS: [&str; 9] = [
    "amoswap", "amoadd", "amoxor", "amoand", "amoor", "amomin", "amomax", "amominu", "amomaxu",
];
const BRANCHES: [&str; 6] = ["beq", "bne", "blt", "bge", "bltu", "bgeu"];
/// CSRs random code may write: their full behaviour is architectural on both models.
const CSR_RW: [&str; 5] = ["mscratch", "mepc", "mcause", "mtval", "mstatus"];
/// CSRs random code only reads.
const CSR_RO: [&str; 8] = [
    "misa",
    "mhartid",
    "mcycle",
    "minstret",
    "cycle",
    "instret",
    "time",
    "mvendorid",
];

/// A program's generator: its random stream, the text so far and the ISA it targets.
struct Gen {
    rng: Rng,
    out: String,
    isa: Isa,
}

impl Gen {
    fn rv32(&self) -> bool {
        self.isa.xlen == Xlen::Rv32
    }

    /// A value for `li`: on RV32, its low 32 bits.
    fn value(&mut self) -> u64 {
        let v = self.rng.value();
        if self.rv32() {
            v as u32 as u64
        } else {
            v
        }
    }

    /// A random element of `names` this ISA has (on RV32, none of the names of
    /// 64-bit-only instructions: `*w`, `ld`, `lwu`, `sd`).
    fn pick_op<T: Copy>(&mut self, names: &[T], name: impl Fn(T) -> &'static str) -> T {
        let rv64_only = |n: &str| n.ends_with('w') || n == "ld" || n == "lwu" || n == "sd";
        loop {
            let x = *self.rng.pick(names);
            if !(self.rv32() && rv64_only(name(x))) {
                return x;
            }
        }
    }

    /// The suffix and size of a random AMO or LR/SC (words only on RV32).
    fn amo_width(&mut self) -> (&'static str, i64) {
        if self.rv32() || self.rng.below(2) == 0 {
            ("w", 4)
        } else {
            ("d", 8)
        }
    }

    /// One straight-line (no control transfer) random instruction; `avoid` is a register
    /// it must not write (the address register of a pending LR/SC, if any).
    fn straight(&mut self, avoid: Option<&str>) {
        let rng = &mut self.rng;
        let mut rd = rng.dst();
        while Some(rd) == avoid {
            rd = rng.dst();
        }
        let (rs1, rs2) = (rng.src(), rng.src());
        if self.isa.fp != FpExt::None && self.rng.below(100) < 45 {
            return self.fp_straight(rd, rs1);
        }
        let shift_bits = self.isa.xlen.bits() as u64;
        let s = match self.rng.below(100) {
            0..=29 => format!("{} {rd}, {rs1}, {rs2}", self.pick_op(&RR, |n| n)),
            30..=44 => {
                let imm = self.rng.below(4096) as i64 - 2048;
                format!("{} {rd}, {rs1}, {imm}", self.pick_op(&RI, |n| n))
            }
            45..=49 => format!(
                "{} {rd}, {rs1}, {}",
                self.rng.pick(&SHIFT64),
                self.rng.below(shift_bits)
            ),
            50..=53 if !self.rv32() => format!(
                "{} {rd}, {rs1}, {}",
                self.rng.pick(&SHIFT32),
                self.rng.below(32)
            ),
            50..=56 => format!("lui {rd}, {}", self.rng.below(1 << 20)),
            57..=58 => format!("auipc {rd}, {}", self.rng.below(1 << 20)),
            59..=61 => format!("li {rd}, {:#x}", self.value()),
            62..=74 => {
                let (op, size) = self.pick_op(&LOADS, |(n, _)| n);
                format!("{op} {rd}, {}({BASE})", self.rng.offset(size))
            }
            75..=86 => {
                let (op, size) = self.pick_op(&STORES, |(n, _)| n);
                format!("{op} {rs2}, {}({BASE})", self.rng.offset(size))
            }
            87..=93 => {
                let csr = self.rng.pick(&CSR_RW);
                let imm = self.rng.below(32);
                match self.rng.below(6) {
                    0 => format!("csrrw {rd}, {csr}, {rs1}"),
                    1 => format!("csrrs {rd}, {csr}, {rs1}"),
                    2 => format!("csrrc {rd}, {csr}, {rs1}"),
                    3 => format!("csrrwi {rd}, {csr}, {imm}"),
                    4 => format!("csrrsi {rd}, {csr}, {imm}"),
                    _ => format!("csrrci {rd}, {csr}, {imm}"),
                }
            }
            _ => format!("csrr {rd}, {}", self.rng.pick(&CSR_RO)),
        };
        writeln!(self.out, "  {s}").expect("writing to a String cannot fail");
    }
}

/// Generates the assembly source of random RV64IMA program `seed` with about `len`
/// slots.
pub fn generate(seed: u64, len: usize) -> String {
    generate_for(seed, len, Isa::default())
}

/// Generates the assembly source of random program `seed` for `isa` with about `len`
/// slots.
pub fn generate_for(seed: u64, len: usize, isa: Isa) -> String {
    let mut g = Gen {
        rng: Rng::new(seed),
        out: String::new(),
        isa,
    };
    g.prologue(seed);
    // labels[i]: forward-branch targets to place before slot i.
    let mut labels: Vec<Vec<usize>> = vec![Vec::new(); len + 1];
    let mut next_label = 0usize;
    for slot in 0..len {
        for l in &labels[slot] {
            writeln!(g.out, "L{l}:").unwrap();
        }
        let mut target = |rng: &mut Rng| {
            let t = (slot + 1 + rng.below(8) as usize).min(len);
            labels[t].push(next_label);
            next_label += 1;
            next_label - 1
        };
        match g.rng.below(100) {
            0..=69 => g.straight(None),
            70..=77 => {
                let l = target(&mut g.rng);
                let (op, a, b) = (g.rng.pick(&BRANCHES), g.rng.src(), g.rng.src());
                writeln!(g.out, "  {op} {a}, {b}, L{l}").unwrap();
            }
            78..=79 => {
                let l = target(&mut g.rng);
                let rd = g.rng.dst();
                writeln!(g.out, "  jal {rd}, L{l}").unwrap();
            }
            80..=81 => {
                // auipc/jalr over one instruction: the target is auipc + 12.
                let (t, rd) = (g.rng.reg(), g.rng.dst());
                writeln!(g.out, "  auipc {t}, 0\n  jalr {rd}, 12({t})").unwrap();
                g.straight(None);
            }
            82..=86 => g.amo(),
            87..=89 => g.lr_sc(),
            90..=93 => {
                // A counted loop of straight-line code.
                let n = 1 + g.rng.below(4);
                writeln!(g.out, "  li {LOOP}, {n}\n1:").unwrap();
                for _ in 0..1 + g.rng.below(4) {
                    g.straight(None);
                }
                writeln!(g.out, "  addi {LOOP}, {LOOP}, -1\n  bnez {LOOP}, 1b").unwrap();
            }
            _ => g.trapping(),
        }
    }
    for l in &labels[len] {
        writeln!(g.out, "L{l}:").unwrap();
    }
    g.epilogue();
    g.out
}

impl Gen {
    /// Trap handler set-up, the data-block base and every pool register's (and with F,
    /// every f register's) first value.
    fn prologue(&mut self, seed: u64) {
        write!(
            self.out,
            "# random program, seed {seed}\n  .section .text.init, \"ax\", @progbits\n  .globl _start\n_start:\n  la {SCRATCH}, trap_handler\n  csrw mtvec, {SCRATCH}\n  la {BASE}, rand_data + 2048\n"
        )
        .unwrap();
        for r in POOL {
            let v = self.value();
            writeln!(self.out, "  li {r}, {v:#x}").unwrap();
        }
        if self.isa.fp != FpExt::None {
            self.fp_setup();
        }
    }

    fn amo(&mut self) {
        let t = self.rng.reg();
        let (sfx, size) = self.amo_width();
        let off = self.rng.offset(size as u64);
        let (op, rd, rs) = (self.rng.pick(&AMOS), self.rng.dst(), self.rng.src());
        writeln!(
            self.out,
            "  addi {t}, {BASE}, {off}\n  {op}.{sfx} {rd}, {rs}, ({t})"
        )
        .unwrap();
    }

    /// lr, a few unrelated instructions, sc (which may or may not succeed, e.g. when a
    /// host poll between them dropped the reservation).
    fn lr_sc(&mut self) {
        let t = self.rng.reg();
        let (sfx, size) = self.amo_width();
        let off = self.rng.offset(size as u64);
        writeln!(self.out, "  addi {t}, {BASE}, {off}").unwrap();
        if self.rng.below(4) != 0 {
            let rd = self.rng.dst();
            writeln!(self.out, "  lr.{sfx} {rd}, ({t})").unwrap();
        }
        for _ in 0..self.rng.below(3) {
            self.straight(Some(t));
        }
        let (rd, rs) = (self.rng.dst(), self.rng.src());
        writeln!(self.out, "  sc.{sfx} {rd}, {rs}, ({t})").unwrap();
    }

    /// A trapping instruction; the handler resumes after it.
    fn trapping(&mut self) {
        let rd = self.rng.reg();
        let (load, size) = if self.rv32() { ("lw", 4) } else { ("ld", 8) };
        let s = match self.rng.below(6) {
            0 => "ecall".to_string(),
            1 => "ebreak".to_string(),
            2 => ".word 0".to_string(),
            3 => format!(
                "{load} {rd}, {}({BASE})",
                self.rng.offset(size) + 1 + self.rng.below(size - 1) as i64
            ),
            4 => format!(
                "sw {rd}, {}({BASE})",
                self.rng.offset(4) + 1 + self.rng.below(3) as i64
            ),
            _ => format!("csrw cycle, {rd}"),
        };
        writeln!(self.out, "  {s}").unwrap();
    }

    /// The exit, the trap handler, the HTIF mailbox and the data block (with F, starting
    /// with the special floating-point values).
    fn epilogue(&mut self) {
        let store = if self.rv32() { "sw" } else { "sd" };
        // With F, the handler turns the FPU back on (random mstatus writes turn it off)
        // so that most FP instructions execute.
        let fpu_on = if self.isa.fp == FpExt::None {
            String::new()
        } else {
            format!("  li {SCRATCH}, 0x2000\n  csrs mstatus, {SCRATCH}\n")
        };
        write!(
            self.out,
            "  la {SCRATCH}, tohost\n  li {LOOP}, 1\n  {store} {LOOP}, 0({SCRATCH})\n1:\n  j 1b\n\n  .align 2\ntrap_handler:\n  csrr {SCRATCH}, mepc\n  addi {SCRATCH}, {SCRATCH}, 4\n  csrw mepc, {SCRATCH}\n{fpu_on}  mret\n\n  .section .tohost, \"aw\", @progbits\n  .align 6\n  .globl tohost\ntohost: .dword 0\n  .align 6\n  .globl fromhost\nfromhost: .dword 0\n\n  .data\n  .align 4\nrand_data:\n"
        )
        .unwrap();
        let table = if self.isa.fp == FpExt::None {
            Vec::new()
        } else {
            self.fp_table()
        };
        for i in 0..512 {
            let v = self.rng.next_u64();
            let v = table.get(i).copied().unwrap_or(v);
            writeln!(self.out, "  .dword {v:#018x}").unwrap();
        }
    }
}
