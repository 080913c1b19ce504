//! Random SPMD programs for the SIMT machines (issue 18's "random SIMT programs"): one
//! assembly file with a host `main` that launches a random kernel on a random number of
//! threads (partial warps included) twice, and the kernel: every thread derives its
//! registers from `tidx` (uniform, affine and irregular values), then runs a random mix
//! of integer ALU, multiply/divide, optional single-precision FP (every RV32F operation
//! and rounding mode, special values), divergent forward branches, loops with per-thread
//! and uniform trip counts (nested two deep), forward jumps with links, and memory
//! accesses in every mode the engines tell apart: uniform, unit-stride, strided and
//! indexed loads of a read-only input, private stack accesses, stores to the thread's own
//! output slot, and commutative AMOs (discarded results) on shared counters. At the end
//! each thread stores its registers to its slot and returns.
//!
//! Programs are race-free: threads write disjoint words but for the AMOs, whose final
//! values do not depend on the order, so any thread order (the ISS runs threads one
//! after another, the engines interleave them) gives the same memory and the same
//! per-thread register writes. Built with `accelgen asm --target simt`.

use crate::rng::Rng;
use std::fmt::Write;

/// The kernel's reserved registers: its output slot, the input's base, its thread
/// index, a scratch register for addresses, and two loop counters. `ra` (the exit), `sp`
/// (the private stack), `gp` and `tp` are never written.
const OUT: &str = "s0";
const INPUT: &str = "s1";
const TID: &str = "s2";
const SCRATCH: &str = "t6";
const LOOPS: [&str; 2] = ["t5", "t4"];
/// Registers random instructions read and write.
const POOL: [&str; 20] = [
    "t0", "t1", "t2", "t3", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s3", "s4", "s5", "s6",
    "s7", "s8", "s9", "s10",
];
/// Input words (read-only): indexed loads mask their index to this.
const INPUT_WORDS: u64 = 1024;
/// Words of a thread's output slot: its registers (x pool, then f0-f31), then the
/// words random stores write.
const SLOT_WORDS: u64 = 96;
const STORE_WORDS: u64 = SLOT_WORDS - POOL.len() as u64 - 32;
/// Most threads a launch has (the input covers unit-stride loads of all of them).
const MAX_THREADS: u64 = 96;
/// Bytes of the private stack a kernel uses below `sp` (the runtime gives 256).
const STACK_BYTES: u64 = 128;

const RR: [&str; 18] = [
    "add", "sub", "sll", "slt", "sltu", "xor", "srl", "sra", "or", "and", "mul", "mulh", "mulhsu",
    "mulhu", "div", "divu", "rem", "remu",
];
const RI: [&str; 6] = ["addi", "slti", "sltiu", "xori", "ori", "andi"];
const SHIFTS: [&str; 3] = ["slli", "srli", "srai"];
const LOADS: [(&str, u64); 5] = [("lb", 1), ("lh", 2), ("lw", 4), ("lbu", 1), ("lhu", 2)];
const STORES: [(&str, u64); 3] = [("sb", 1), ("sh", 2), ("sw", 4)];
/// AMOs whose final value does not depend on the order of the threads.
const AMOS: [&str; 7] = [
    "amoadd.w",
    "amoxor.w",
    "amoand.w",
    "amoor.w",
    "amomin.w",
    "amomax.w",
    "amomaxu.w",
];
const BRANCHES: [&str; 6] = ["beq", "bne", "blt", "bge", "bltu", "bgeu"];
const FP_RR: [&str; 10] = [
    "fadd.s", "fsub.s", "fmul.s", "fdiv.s", "fmin.s", "fmax.s", "fsgnj.s", "fsgnjn.s", "fsgnjx.s",
    "fsqrt.s",
];
const FP_FMA: [&str; 4] = ["fmadd.s", "fmsub.s", "fnmadd.s", "fnmsub.s"];
const FP_CMP: [&str; 3] = ["feq.s", "flt.s", "fle.s"];
const ROUNDING: [&str; 6] = ["rne", "rtz", "rdn", "rup", "rmm", "dyn"];

/// What a program contains.
#[derive(Clone, Copy, Debug)]
pub struct SimtShape {
    /// Random items in the kernel's body (each an instruction or a small block).
    pub len: usize,
    /// Single-precision FP operations too.
    pub fp: bool,
}

struct Gen {
    rng: Rng,
    out: String,
    shape: SimtShape,
    label: u32,
    /// Loop nesting depth (a loop counter each).
    depth: usize,
}

/// Writes the program of `seed` to `dir/r<seed>.S` and builds it (the SIMT target) into
/// `dir/r<seed>.elf`, whose path it returns.
pub fn build_simt(
    seed: u64,
    shape: SimtShape,
    dir: &std::path::Path,
) -> Result<std::path::PathBuf, crate::toolchain::ToolchainError> {
    let src = dir.join(format!("r{seed}.S"));
    std::fs::write(&src, generate_simt(seed, shape)).map_err(|err| {
        crate::toolchain::ToolchainError::Io {
            what: "writing",
            path: src.clone(),
            err,
        }
    })?;
    crate::kernels::build_program(&[src], &dir.join(format!("r{seed}.elf")), &[], &[])
}

/// What a random program computes: the words of its output slots and its shared
/// counters in `iss`'s memory, after a run of `program` (as built by [`build_simt`]).
pub fn results(iss: &crate::iss::Iss, program: &crate::elf::Program) -> Vec<u64> {
    let mut words = Vec::new();
    for (sym, n) in [("output", MAX_THREADS * SLOT_WORDS), ("counters", 7)] {
        let base = program.symbol(sym).expect("a random program's symbol");
        words.extend((0..n).map(|i| iss.mem.read(base + 4 * i, 4).unwrap_or(0)));
    }
    words
}

/// The random SPMD program of `seed` (assembly for `accelgen asm --target simt`).
pub fn generate_simt(seed: u64, shape: SimtShape) -> String {
    let mut g = Gen {
        rng: Rng::new(seed),
        out: String::new(),
        shape,
        label: 0,
        depth: 0,
    };
    g.host(seed);
    g.kernel();
    g.data();
    g.out
}

impl Gen {
    fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "    {s}");
    }

    fn reg(&mut self) -> &'static str {
        POOL[self.rng.below(POOL.len() as u64) as usize]
    }

    /// A source: occasionally x0 or the thread index.
    fn src(&mut self) -> &'static str {
        match self.rng.below(16) {
            0 => "zero",
            1 => TID,
            _ => self.reg(),
        }
    }

    fn freg(&mut self) -> String {
        format!("f{}", self.rng.below(32))
    }

    fn fresh_label(&mut self) -> u32 {
        self.label += 1;
        self.label
    }

    /// `main`: two launches of the kernel with random thread counts, then exit 0 (the
    /// checking is the lockstep's and the memory comparison's).
    fn host(&mut self, seed: u64) {
        let _ = writeln!(self.out, "# random SIMT program, seed {seed}");
        self.out.push_str("    .text\n    .globl main\nmain:\n");
        self.line("addi sp, sp, -16");
        self.line("sw ra, 12(sp)");
        for _ in 0..2 {
            let n = 1 + self.rng.below(MAX_THREADS);
            self.line(&format!("li a0, {n}"));
            self.line("la a1, kernel");
            self.line("call launch_kernel");
        }
        self.line("lw ra, 12(sp)");
        self.line("addi sp, sp, 16");
        self.line("li a0, 0");
        self.line("ret");
    }

    fn kernel(&mut self) {
        self.out.push_str("    .align 2\nkernel:\n");
        self.line(&format!(".insn r 0x0b, 4, 0, {TID}, x0, x0"));
        self.line(&format!("la {INPUT}, input"));
        self.line(&format!("li {SCRATCH}, {}", SLOT_WORDS * 4));
        self.line(&format!("mul {OUT}, {TID}, {SCRATCH}"));
        self.line(&format!("la {SCRATCH}, output"));
        self.line(&format!("add {OUT}, {OUT}, {SCRATCH}"));
        for r in POOL {
            self.init(r);
        }
        if self.shape.fp {
            for f in 0..32 {
                let i = self.rng.below(INPUT_WORDS / 4) * 4;
                self.line(&format!("flw f{f}, {}({INPUT})", i));
            }
        }
        for _ in 0..self.shape.len {
            self.item();
        }
        for (i, r) in POOL.iter().enumerate() {
            self.line(&format!("sw {r}, {}({OUT})", 4 * i));
        }
        if self.shape.fp {
            for f in 0..32 {
                self.line(&format!("fsw f{f}, {}({OUT})", 4 * (POOL.len() + f)));
            }
        }
        self.line("ret");
    }

    /// A pool register's first value: uniform, affine in the thread index, irregular.
    fn init(&mut self, r: &str) {
        let v = self.rng.next_u64() as u32;
        match self.rng.below(4) {
            0 => self.line(&format!("li {r}, {}", v as i32)),
            1 => {
                self.line(&format!("li {r}, {}", (v % 64) as i32 - 32));
                self.line(&format!("mul {r}, {r}, {TID}"));
                self.line(&format!("addi {r}, {r}, {}", (v >> 8) % 2048));
            }
            2 => {
                self.line(&format!("mul {r}, {TID}, {TID}"));
                self.line(&format!("xori {r}, {r}, {}", (v % 2048) as i32 - 1024));
            }
            _ => {
                self.line(&format!("andi {SCRATCH}, {TID}, {}", INPUT_WORDS - 1));
                self.line(&format!("slli {SCRATCH}, {SCRATCH}, 2"));
                self.line(&format!("add {SCRATCH}, {SCRATCH}, {INPUT}"));
                self.line(&format!("lw {r}, 0({SCRATCH})"));
            }
        }
    }

    /// One random item of the body.
    fn item(&mut self) {
        let fp = if self.shape.fp { 3 } else { 0 };
        match self.rng.below(20 + fp) {
            0..=6 => self.alu(),
            7 => {
                let rd = self.reg();
                self.line(&format!(".insn r 0x0b, 4, 0, {rd}, x0, x0"));
            }
            8..=10 => self.load(),
            11 | 12 => self.store(),
            13 => self.amo(),
            14 | 15 => self.branch(),
            16 if self.depth < LOOPS.len() => self.counted_loop(),
            17 => self.jump(),
            18 => self.line("fence"),
            19 => {
                let (rd, imm) = (self.reg(), self.rng.below(1 << 20));
                let op = *self.rng.pick(&["lui", "auipc"]);
                self.line(&format!("{op} {rd}, {imm}"));
            }
            _ if fp > 0 => self.fp_op(),
            _ => self.alu(),
        }
    }

    fn alu(&mut self) {
        let rd = self.reg();
        match self.rng.below(3) {
            0 => {
                let op = *self.rng.pick(&RR);
                let (a, b) = (self.src(), self.src());
                self.line(&format!("{op} {rd}, {a}, {b}"));
            }
            1 => {
                let op = *self.rng.pick(&RI);
                let (a, imm) = (self.src(), self.rng.below(4096) as i64 - 2048);
                self.line(&format!("{op} {rd}, {a}, {imm}"));
            }
            _ => {
                let op = *self.rng.pick(&SHIFTS);
                let (a, sh) = (self.src(), self.rng.below(32));
                self.line(&format!("{op} {rd}, {a}, {sh}"));
            }
        }
    }

    /// Loads of the input (uniform, unit-stride, strided, indexed) and of the thread's
    /// own stack and output slot.
    fn load(&mut self) {
        let (op, size) = *self.rng.pick(&LOADS);
        let op = if self.shape.fp && size == 4 && self.rng.chance(30) {
            "flw"
        } else {
            op
        };
        let rd = if op == "flw" {
            self.freg()
        } else {
            self.reg().to_string()
        };
        let off = self.rng.below(4 / size) * size;
        let mode = self.rng.below(5);
        let base = match mode {
            0 => INPUT.to_string(),
            1 | 2 => {
                // Element tid * stride (1 = unit stride) of words.
                let stride = if mode == 1 { 1 } else { 1 + self.rng.below(8) };
                self.line(&format!("li {SCRATCH}, {}", 4 * stride));
                self.line(&format!("mul {SCRATCH}, {SCRATCH}, {TID}"));
                self.line(&format!("add {SCRATCH}, {SCRATCH}, {INPUT}"));
                SCRATCH.to_string()
            }
            3 => {
                let index = self.src();
                self.line(&format!("andi {SCRATCH}, {index}, {}", INPUT_WORDS - 1));
                self.line(&format!("slli {SCRATCH}, {SCRATCH}, 2"));
                self.line(&format!("add {SCRATCH}, {SCRATCH}, {INPUT}"));
                SCRATCH.to_string()
            }
            _ => {
                let word = self.rng.below(STORE_WORDS);
                let slot = (POOL.len() as u64 + 32 + word) * 4;
                self.line(&format!("{op} {rd}, {}({OUT})", slot + off));
                return;
            }
        };
        let off = if mode == 0 {
            off + self.rng.below(64) * 4
        } else {
            off
        };
        self.line(&format!("{op} {rd}, {off}({base})"));
    }

    /// Stores to the thread's own output words or its private stack.
    fn store(&mut self) {
        let (op, size) = *self.rng.pick(&STORES);
        let (op, src) = if self.shape.fp && size == 4 && self.rng.chance(30) {
            ("fsw", self.freg())
        } else {
            (op, self.src().to_string())
        };
        let off = self.rng.below(4 / size) * size;
        if self.rng.chance(50) {
            let word = self.rng.below(STORE_WORDS);
            let slot = (POOL.len() as u64 + 32 + word) * 4;
            self.line(&format!("{op} {src}, {}({OUT})", slot + off));
        } else {
            let word = 1 + self.rng.below(STACK_BYTES / 4);
            self.line(&format!("{op} {src}, -{}(sp)", word * 4 - off));
        }
    }

    /// A commutative AMO on its shared counter, its old value discarded.
    fn amo(&mut self) {
        // One counter per operation: different AMOs on one word would not commute.
        let i = self.rng.below(AMOS.len() as u64) as usize;
        let (op, counter) = (AMOS[i], 4 * i);
        let src = self.src();
        self.line(&format!("la {SCRATCH}, counters+{counter}"));
        self.line(&format!("{op} zero, {src}, ({SCRATCH})"));
    }

    /// A forward branch (divergent when its operands differ across threads) over a
    /// short random block.
    fn branch(&mut self) {
        let op = *self.rng.pick(&BRANCHES);
        let (a, b) = (self.src(), self.src());
        let l = self.fresh_label();
        self.line(&format!("{op} {a}, {b}, .Lb{l}"));
        for _ in 0..1 + self.rng.below(6) {
            self.item();
        }
        let _ = writeln!(self.out, ".Lb{l}:");
    }

    /// A loop of 1..8 iterations, per thread (from a register) or uniform.
    fn counted_loop(&mut self) {
        let counter = LOOPS[self.depth];
        if self.rng.chance(50) {
            let r = self.src();
            self.line(&format!("andi {counter}, {r}, 7"));
            self.line(&format!("addi {counter}, {counter}, 1"));
        } else {
            let n = 1 + self.rng.below(6);
            self.line(&format!("li {counter}, {n}"));
        }
        let l = self.fresh_label();
        let _ = writeln!(self.out, ".Ll{l}:");
        self.depth += 1;
        for _ in 0..1 + self.rng.below(6) {
            self.item();
        }
        self.depth -= 1;
        self.line(&format!("addi {counter}, {counter}, -1"));
        self.line(&format!("bnez {counter}, .Ll{l}"));
    }

    /// A forward `jal` over dead code, with or without a link.
    fn jump(&mut self) {
        let l = self.fresh_label();
        let link = if self.rng.chance(50) {
            self.reg()
        } else {
            "zero"
        };
        self.line(&format!("jal {link}, .Lj{l}"));
        let dead = self.reg();
        self.line(&format!("li {dead}, 12345"));
        let _ = writeln!(self.out, ".Lj{l}:");
    }

    fn fp_op(&mut self) {
        let rm = *self.rng.pick(&ROUNDING);
        let (d, a, b, c) = (self.freg(), self.freg(), self.freg(), self.freg());
        match self.rng.below(6) {
            0 | 1 => {
                let op = *self.rng.pick(&FP_RR);
                let text = match op {
                    "fsqrt.s" => format!("{op} {d}, {a}, {rm}"),
                    "fadd.s" | "fsub.s" | "fmul.s" | "fdiv.s" => {
                        format!("{op} {d}, {a}, {b}, {rm}")
                    }
                    _ => format!("{op} {d}, {a}, {b}"),
                };
                self.line(&text);
            }
            2 => {
                let op = *self.rng.pick(&FP_FMA);
                self.line(&format!("{op} {d}, {a}, {b}, {c}, {rm}"));
            }
            3 => {
                let op = *self.rng.pick(&FP_CMP);
                let rd = self.reg();
                self.line(&format!("{op} {rd}, {a}, {b}"));
            }
            4 => {
                let rd = self.reg();
                let op = *self.rng.pick(&["fcvt.w.s", "fcvt.wu.s"]);
                match self.rng.below(3) {
                    0 => self.line(&format!("{op} {rd}, {a}, {rm}")),
                    1 => self.line(&format!("fclass.s {rd}, {a}")),
                    _ => self.line(&format!("fmv.x.w {rd}, {a}")),
                }
            }
            _ => {
                let rs = self.src();
                let op = *self.rng.pick(&["fcvt.s.w", "fcvt.s.wu"]);
                if self.rng.chance(50) {
                    self.line(&format!("{op} {d}, {rs}, {rm}"));
                } else {
                    self.line(&format!("fmv.w.x {d}, {rs}"));
                }
            }
        }
    }

    /// The input (random words and FP special values), the shared counters and the
    /// output slots.
    fn data(&mut self) {
        self.out.push_str("    .data\n    .align 6\ninput:\n");
        for _ in 0..INPUT_WORDS {
            let v = if self.rng.chance(25) {
                *self.rng.pick(&super::SPECIAL_S)
            } else {
                self.rng.next_u64() as u32
            };
            self.line(&format!(".word {v:#010x}"));
        }
        self.out.push_str("    .align 6\ncounters:\n");
        self.line(".word 0, 0x5a5a5a5a, -1, 0, 0x7fffffff, 0x80000000, 0");
        self.out.push_str("    .align 6\noutput:\n");
        self.line(&format!(".space {}", MAX_THREADS * SLOT_WORDS * 4));
    }
}
