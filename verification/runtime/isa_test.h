// Macros for the project's self-checking ISA tests (verification/isa-tests/*.S).
// A test numbers its cases in TESTNUM (gp); the first failing case exits through HTIF
// with its number as the exit code, success exits with 0, an unexpected trap with 255.
// Sources go in a1/a2, the result in a4, the expected value in t2.

#define TESTNUM gp

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
  sd a0, 0(t0);                                     \
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
