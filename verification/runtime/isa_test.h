// Macros for the project's self-checking ISA tests (verification/isa-tests/*.S).
// A test numbers its cases in TESTNUM (gp); the first failing case exits through HTIF
// with its number as the exit code, success exits with 0, an unexpected trap with 255.
// Sources go in a1/a2, the result in a4, the expected value in t2.

#define TESTNUM gp

// A register-sized store: the exit code goes to the low word of tohost on RV32.
#if __riscv_xlen == 32
#define STORE_XLEN sw
#else
#define STORE_XLEN sd
#endif

#define TEST_BEGIN                                  \
  .section .text.init, "ax", @progbits;             \
  .globl _start;                                    \
_start:                                             \
  la t0, unexpected_trap;                           \
  csrw mtvec, t0;                                   \
  li TESTNUM, 0;

#define TEST_END                                    \
  li a0, 1;                                         \
  j report;                                         \
fail:                                               \
  slli a0, TESTNUM, 1;                              \
  ori a0, a0, 1;                                    \
report:                                             \
  la t0, tohost;                                    \
  STORE_XLEN a0, 0(t0);                             \
1:                                                  \
  j 1b;                                             \
  .align 2;                                         \
unexpected_trap:                                    \
  li a0, (255 << 1) | 1;                            \
  j report;                                         \
  .section .tohost, "aw", @progbits;                \
  .align 6;                                         \
  .globl tohost;                                    \
tohost: .dword 0;                                   \
  .align 6;                                         \
  .globl fromhost;                                  \
fromhost: .dword 0;                                 \
  .data

// Compare register `reg` with `expect`.
#define CHECK(reg, expect) li t2, expect; bne reg, t2, fail;

#define TEST_RR(n, inst, expect, v1, v2)            \
  li TESTNUM, n; li a1, v1; li a2, v2;              \
  inst a4, a1, a2; CHECK(a4, expect)

// Destination equal to the first source (reads before the write).
#define TEST_RR_SAME(n, inst, expect, v1, v2)       \
  li TESTNUM, n; li a1, v1; li a2, v2;              \
  inst a1, a1, a2; CHECK(a1, expect)

#define TEST_RI(n, inst, expect, v1, imm)           \
  li TESTNUM, n; li a1, v1;                         \
  inst a4, a1, imm; CHECK(a4, expect)

#define TEST_LOAD(n, inst, expect, off, label)      \
  li TESTNUM, n; la a1, label;                      \
  inst a4, off(a1); CHECK(a4, expect)

// Store `value`, read it back with `ld_inst` and expect `expect`.
#define TEST_STORE(n, st_inst, ld_inst, value, expect, off, label) \
  li TESTNUM, n; la a1, label; li a2, value;        \
  st_inst a2, off(a1); ld_inst a4, off(a1); CHECK(a4, expect)

// Branch forward; t3 = 1 when taken.
#define TEST_BR(n, inst, taken, v1, v2)             \
  li TESTNUM, n; li a1, v1; li a2, v2; li t3, 0;    \
  inst a1, a2, 1f; j 2f;                            \
1: li t3, 1;                                        \
2: CHECK(t3, taken)

// Branch backward; t3 = 1 when taken.
#define TEST_BR_BACK(n, inst, taken, v1, v2)        \
  li TESTNUM, n; li a1, v1; li a2, v2; li t3, 0;    \
  j 2f;                                             \
1: li t3, 1; j 3f;                                  \
2: inst a1, a2, 1b;                                 \
3: CHECK(t3, taken)

// Trap tests: HANDLER installs a handler recording mcause/mepc/mtval in s2/s3/s4 and
// resuming after the trapping instruction; TRAP_CHECK checks them (`label` marks the
// trapping instruction).
#define TRAP_HANDLER                                \
  la t0, record_trap; csrw mtvec, t0; j 9f;         \
  .align 2;                                         \
record_trap:                                        \
  csrr s2, mcause; csrr s3, mepc; csrr s4, mtval;   \
  addi t0, s3, 4; csrw mepc, t0; mret;              \
9:

#define TRAP_CHECK(n, cause, label, tval)           \
  li TESTNUM, n; CHECK(s2, cause);                  \
  la t2, label; bne s3, t2, fail; CHECK(s4, tval)   \
  li s2, -1; li s3, -1; li s4, -1;

// As TRAP_CHECK, with mtval an address expression (label + offset).
#define TRAP_CHECK_ADDR(n, cause, label, addr)      \
  li TESTNUM, n; CHECK(s2, cause);                  \
  la t2, label; bne s3, t2, fail;                   \
  la t2, addr; bne s4, t2, fail;                    \
  li s2, -1; li s3, -1; li s4, -1;

// Floating point (F, D): FP_ENABLE sets mstatus.FS to Initial. A case loads its operands'
// bits from a1..a3 into f1..f3 (fmv.w.x, or fmv.d.x for D: RV64 only), clears fflags,
// runs the instruction and checks the result's bits (a4: fmv.x.w sign-extends a single,
// SEXT32 of the expected bits) and the flags raised (a5).
#define FP_ENABLE li t0, 0x2000; csrs mstatus, t0;
#define SEXT32(x) ((((x) & 0xffffffff) ^ 0x80000000) - 0x80000000)

#define FP_LOAD3(mv, v1, v2, v3)                    \
  li a1, v1; li a2, v2; li a3, v3;                  \
  mv f1, a1; mv f2, a2; mv f3, a3; fsflags zero;
#define FP_CHECK(mv, sext, expect, flags)           \
  mv a4, f4; frflags a5;                            \
  CHECK(a4, sext(expect)) CHECK(a5, flags)

// fd = op(f1, f2, f3) with the rounding mode `rm`: the fused multiply-adds.
#define FP_RRR(n, mvto, mvfrom, sext, op, rm, flags, expect, v1, v2, v3) \
  li TESTNUM, n; FP_LOAD3(mvto, v1, v2, v3)         \
  op f4, f1, f2, f3, rm; FP_CHECK(mvfrom, sext, expect, flags)
// fd = op(f1, f2) with `rm`: add, sub, mul, div.
#define FP_RR(n, mvto, mvfrom, sext, op, rm, flags, expect, v1, v2) \
  li TESTNUM, n; FP_LOAD3(mvto, v1, v2, 0)          \
  op f4, f1, f2, rm; FP_CHECK(mvfrom, sext, expect, flags)
// fd = op(f1, f2) without a rounding mode: sign injection, min, max.
#define FP_RR_EXACT(n, mvto, mvfrom, sext, op, flags, expect, v1, v2) \
  li TESTNUM, n; FP_LOAD3(mvto, v1, v2, 0)          \
  op f4, f1, f2; FP_CHECK(mvfrom, sext, expect, flags)
// fd = op(f1) with `rm`: square root, conversions between formats (`mvfrom` is the
// result format's move).
#define FP_R(n, mvto, mvfrom, sext, op, rm, flags, expect, v1) \
  li TESTNUM, n; FP_LOAD3(mvto, v1, 0, 0)           \
  op f4, f1, rm; FP_CHECK(mvfrom, sext, expect, flags)
// fd = op(f1) for an always exact operation (no rounding-mode operand in assembly).
#define FP_R_EXACT(n, mvto, mvfrom, sext, op, flags, expect, v1) \
  li TESTNUM, n; FP_LOAD3(mvto, v1, 0, 0)           \
  op f4, f1; FP_CHECK(mvfrom, sext, expect, flags)
// fd = op(x) for an always exact conversion (no rounding-mode operand in assembly).
#define FP_FROMINT_EXACT(n, mvfrom, sext, op, flags, expect, xv) \
  li TESTNUM, n; li a1, xv; fsflags zero;           \
  op f4, a1; FP_CHECK(mvfrom, sext, expect, flags)
// x = op(f1, f2): compares.
#define FP_CMP(n, mvto, op, flags, expect, v1, v2)  \
  li TESTNUM, n; FP_LOAD3(mvto, v1, v2, 0)          \
  op a4, f1, f2; frflags a5;                        \
  CHECK(a4, expect) CHECK(a5, flags)
// x = op(f1) with `rm`: conversions to integers (expect as the register holds it).
#define FP_TOINT(n, mvto, op, rm, flags, expect, v1) \
  li TESTNUM, n; FP_LOAD3(mvto, v1, 0, 0)           \
  op a4, f1, rm; frflags a5;                        \
  CHECK(a4, expect) CHECK(a5, flags)
// x = fclass(f1).
#define FP_CLASS(n, mvto, op, expect, v1)           \
  li TESTNUM, n; FP_LOAD3(mvto, v1, 0, 0)           \
  op a4, f1; CHECK(a4, expect)
// fd = op(x) with `rm`: conversions from integers.
#define FP_FROMINT(n, mvfrom, sext, op, rm, flags, expect, xv) \
  li TESTNUM, n; li a1, xv; fsflags zero;           \
  op f4, a1, rm; FP_CHECK(mvfrom, sext, expect, flags)

#define TEST_F_RRR(n, op, rm, flags, expect, v1, v2, v3) FP_RRR(n, fmv.w.x, fmv.x.w, SEXT32, op, rm, flags, expect, v1, v2, v3)
#define TEST_F_RR(n, op, rm, flags, expect, v1, v2) FP_RR(n, fmv.w.x, fmv.x.w, SEXT32, op, rm, flags, expect, v1, v2)
#define TEST_F_RR_EXACT(n, op, flags, expect, v1, v2) FP_RR_EXACT(n, fmv.w.x, fmv.x.w, SEXT32, op, flags, expect, v1, v2)
#define TEST_F_R(n, op, rm, flags, expect, v1) FP_R(n, fmv.w.x, fmv.x.w, SEXT32, op, rm, flags, expect, v1)
#define TEST_F_CMP(n, op, flags, expect, v1, v2) FP_CMP(n, fmv.w.x, op, flags, expect, v1, v2)
#define TEST_F_TOINT(n, op, rm, flags, expect, v1) FP_TOINT(n, fmv.w.x, op, rm, flags, expect, v1)
#define TEST_F_CLASS(n, op, expect, v1) FP_CLASS(n, fmv.w.x, op, expect, v1)
#define TEST_F_FROMINT(n, op, rm, flags, expect, xv) FP_FROMINT(n, fmv.x.w, SEXT32, op, rm, flags, expect, xv)

#define TEST_D_RRR(n, op, rm, flags, expect, v1, v2, v3) FP_RRR(n, fmv.d.x, fmv.x.d, , op, rm, flags, expect, v1, v2, v3)
#define TEST_D_RR(n, op, rm, flags, expect, v1, v2) FP_RR(n, fmv.d.x, fmv.x.d, , op, rm, flags, expect, v1, v2)
#define TEST_D_RR_EXACT(n, op, flags, expect, v1, v2) FP_RR_EXACT(n, fmv.d.x, fmv.x.d, , op, flags, expect, v1, v2)
#define TEST_D_R(n, op, rm, flags, expect, v1) FP_R(n, fmv.d.x, fmv.x.d, , op, rm, flags, expect, v1)
#define TEST_D_CMP(n, op, flags, expect, v1, v2) FP_CMP(n, fmv.d.x, op, flags, expect, v1, v2)
#define TEST_D_TOINT(n, op, rm, flags, expect, v1) FP_TOINT(n, fmv.d.x, op, rm, flags, expect, v1)
#define TEST_D_CLASS(n, op, expect, v1) FP_CLASS(n, fmv.d.x, op, expect, v1)
#define TEST_D_FROMINT(n, op, rm, flags, expect, xv) FP_FROMINT(n, fmv.x.d, , op, rm, flags, expect, xv)
#define TEST_D_FROMINT_EXACT(n, op, flags, expect, xv) FP_FROMINT_EXACT(n, fmv.x.d, , op, flags, expect, xv)
// Conversions between formats: a double source to a single result and back.
#define TEST_S_FROM_D(n, rm, flags, expect, v1) FP_R(n, fmv.d.x, fmv.x.w, SEXT32, fcvt.s.d, rm, flags, expect, v1)
#define TEST_D_FROM_S(n, flags, expect, v1) FP_R_EXACT(n, fmv.w.x, fmv.x.d, , fcvt.d.s, flags, expect, v1)
