//! Constrained-random RV64IMA instruction streams for differential testing against Spike.
//!
//! A program initialises every free register with a random or corner-case value, then
//! runs a random mix of ALU, multiply/divide, load/store, AMO, LR/SC, branch, jump, CSR
//! and trap-raising instructions, and exits through HTIF. It always terminates: branches
//! and jumps only go forward, and the only backward edges are counted loops with a
//! reserved counter. Memory accesses stay inside a 4 KiB data block addressed from a
//! reserved base register; traps go to a handler that skips the faulting instruction.

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

/// One straight-line (no control transfer) random instruction; `avoid` is a register
/// it must not write (the address register of a pending LR/SC, if any).
fn straight(rng: &mut Rng, out: &mut String, avoid: Option<&str>) {
    let mut rd = rng.dst();
    while Some(rd) == avoid {
        rd = rng.dst();
    }
    let (rs1, rs2) = (rng.src(), rng.src());
    match rng.below(100) {
        0..=29 => writeln!(out, "  {} {rd}, {rs1}, {rs2}", rng.pick(&RR)),
        30..=44 => {
            let imm = rng.below(4096) as i64 - 2048;
            writeln!(out, "  {} {rd}, {rs1}, {imm}", rng.pick(&RI))
        }
        45..=49 => writeln!(
            out,
            "  {} {rd}, {rs1}, {}",
            rng.pick(&SHIFT64),
            rng.below(64)
        ),
        50..=53 => writeln!(
            out,
            "  {} {rd}, {rs1}, {}",
            rng.pick(&SHIFT32),
            rng.below(32)
        ),
        54..=56 => writeln!(out, "  lui {rd}, {}", rng.below(1 << 20)),
        57..=58 => writeln!(out, "  auipc {rd}, {}", rng.below(1 << 20)),
        59..=61 => writeln!(out, "  li {rd}, {:#x}", rng.value()),
        62..=74 => {
            let (op, size) = *rng.pick(&LOADS);
            writeln!(out, "  {op} {rd}, {}({BASE})", rng.offset(size))
        }
        75..=86 => {
            let (op, size) = *rng.pick(&STORES);
            writeln!(out, "  {op} {rs2}, {}({BASE})", rng.offset(size))
        }
        87..=93 => {
            let csr = rng.pick(&CSR_RW);
            match rng.below(6) {
                0 => writeln!(out, "  csrrw {rd}, {csr}, {rs1}"),
                1 => writeln!(out, "  csrrs {rd}, {csr}, {rs1}"),
                2 => writeln!(out, "  csrrc {rd}, {csr}, {rs1}"),
                3 => writeln!(out, "  csrrwi {rd}, {csr}, {}", rng.below(32)),
                4 => writeln!(out, "  csrrsi {rd}, {csr}, {}", rng.below(32)),
                _ => writeln!(out, "  csrrci {rd}, {csr}, {}", rng.below(32)),
            }
        }
        _ => writeln!(out, "  csrr {rd}, {}", rng.pick(&CSR_RO)),
    }
    .expect("writing to a String cannot fail");
}

/// Generates the assembly source of random program `seed` with about `len` slots.
pub fn generate(seed: u64, len: usize) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::new();
    let w = &mut out;
    let emit = |w: &mut String, s: String| w.push_str(&s);
    emit(
        w,
        format!(
            "# random program, seed {seed}\n  .section .text.init, \"ax\", @progbits\n  .globl _start\n_start:\n  la {SCRATCH}, trap_handler\n  csrw mtvec, {SCRATCH}\n  la {BASE}, rand_data + 2048\n"
        ),
    );
    for r in POOL {
        let v = rng.value();
        emit(w, format!("  li {r}, {v:#x}\n"));
    }
    // labels[i]: forward-branch targets to place before slot i.
    let mut labels: Vec<Vec<usize>> = vec![Vec::new(); len + 1];
    let mut next_label = 0usize;
    for slot in 0..len {
        for l in &labels[slot] {
            emit(w, format!("L{l}:\n"));
        }
        let mut target = |rng: &mut Rng| {
            let t = (slot + 1 + rng.below(8) as usize).min(len);
            labels[t].push(next_label);
            next_label += 1;
            next_label - 1
        };
        match rng.below(100) {
            0..=69 => straight(&mut rng, w, None),
            70..=77 => {
                let l = target(&mut rng);
                let (op, a, b) = (rng.pick(&BRANCHES), rng.src(), rng.src());
                emit(w, format!("  {op} {a}, {b}, L{l}\n"));
            }
            78..=79 => {
                let l = target(&mut rng);
                emit(w, format!("  jal {}, L{l}\n", rng.dst()));
            }
            80..=81 => {
                // auipc/jalr over one instruction: the target is auipc + 12.
                let (t, rd) = (rng.reg(), rng.dst());
                emit(w, format!("  auipc {t}, 0\n  jalr {rd}, 12({t})\n"));
                straight(&mut rng, w, None);
            }
            82..=86 => {
                let t = rng.reg();
                let size = if rng.below(2) == 0 { 4 } else { 8 };
                let sfx = if size == 4 { "w" } else { "d" };
                emit(w, format!("  addi {t}, {BASE}, {}\n", rng.offset(size)));
                emit(
                    w,
                    format!(
                        "  {}.{sfx} {}, {}, ({t})\n",
                        rng.pick(&AMOS),
                        rng.dst(),
                        rng.src()
                    ),
                );
            }
            87..=89 => {
                // lr, a few unrelated instructions, sc (which may or may not succeed,
                // e.g. when a host poll between them dropped the reservation).
                let t = rng.reg();
                let size = if rng.below(2) == 0 { 4 } else { 8 };
                let sfx = if size == 4 { "w" } else { "d" };
                emit(w, format!("  addi {t}, {BASE}, {}\n", rng.offset(size)));
                if rng.below(4) != 0 {
                    emit(w, format!("  lr.{sfx} {}, ({t})\n", rng.dst()));
                }
                for _ in 0..rng.below(3) {
                    straight(&mut rng, w, Some(t));
                }
                emit(
                    w,
                    format!("  sc.{sfx} {}, {}, ({t})\n", rng.dst(), rng.src()),
                );
            }
            90..=93 => {
                // A counted loop of straight-line code.
                let n = 1 + rng.below(4);
                emit(w, format!("  li {LOOP}, {n}\n1:\n"));
                for _ in 0..1 + rng.below(4) {
                    straight(&mut rng, w, None);
                }
                emit(w, format!("  addi {LOOP}, {LOOP}, -1\n  bnez {LOOP}, 1b\n"));
            }
            _ => {
                // A trapping instruction; the handler resumes after it.
                let rd = rng.reg();
                let s = match rng.below(6) {
                    0 => "  ecall\n".to_string(),
                    1 => "  ebreak\n".to_string(),
                    2 => "  .word 0\n".to_string(),
                    3 => format!(
                        "  ld {rd}, {}({BASE})\n",
                        rng.offset(8) + 1 + rng.below(7) as i64
                    ),
                    4 => format!(
                        "  sw {rd}, {}({BASE})\n",
                        rng.offset(4) + 1 + rng.below(3) as i64
                    ),
                    _ => format!("  csrw cycle, {rd}\n"),
                };
                emit(w, s);
            }
        }
    }
    for l in &labels[len] {
        emit(w, format!("L{l}:\n"));
    }
    emit(
        w,
        format!(
            "  la {SCRATCH}, tohost\n  li {LOOP}, 1\n  sd {LOOP}, 0({SCRATCH})\n1:\n  j 1b\n\n  .align 2\ntrap_handler:\n  csrr {SCRATCH}, mepc\n  addi {SCRATCH}, {SCRATCH}, 4\n  csrw mepc, {SCRATCH}\n  mret\n\n  .section .tohost, \"aw\", @progbits\n  .align 6\n  .globl tohost\ntohost: .dword 0\n  .align 6\n  .globl fromhost\nfromhost: .dword 0\n\n  .data\n  .align 4\nrand_data:\n"
        ),
    );
    for _ in 0..512 {
        let v = rng.next_u64();
        emit(w, format!("  .dword {v:#018x}\n"));
    }
    out
}
