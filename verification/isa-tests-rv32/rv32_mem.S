# RV32 memory and control transfer: addresses in the upper half of the 32-bit space
# (sign-extended in a 64-bit model), word AMOs and LR/SC, jumps through registers.
#include "isa_test.h"

TEST_BEGIN

TEST_LOAD(1, lw, -1, 0, data)
TEST_LOAD(2, lh, 0x1234, 4, data)
TEST_LOAD(3, lbu, 0x80, 7, data)
TEST_STORE(4, sw, lw, 0x80000001, 0x80000001, 8, data)
li TESTNUM, 5; la a1, data; li a2, 5; amoadd.w a4, a2, (a1); CHECK(a4, -1)
lw a4, 0(a1); CHECK(a4, 4)
li TESTNUM, 6; lr.w a4, (a1); li a2, 9; sc.w a5, a2, (a1); CHECK(a5, 0)
lw a4, 0(a1); CHECK(a4, 9)
li TESTNUM, 7; li a2, -3; amomaxu.w a4, a2, (a1); lw a4, 0(a1); CHECK(a4, -3)
li TESTNUM, 8; la t0, 1f; li t3, 0; jalr ra, 0(t0)
3: j 2f
1: li t3, 1; ret
2: CHECK(t3, 1)
la t2, 3b; bne ra, t2, fail

TEST_END

  .align 3
data: .word 0xffffffff, 0x80001234, 0, 0
