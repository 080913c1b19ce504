# RV32 CSRs (on RV32IMAF): misa's MXL is 1, mstatus.SD is bit 31, the counters have
# their high halves (cycleh, instreth, timeh, mcycleh, minstreth, which a write sets
# alone), mstatush reads 0; RV64-only encodings (ld, sd, addw, slli with shamt 32) are
# illegal.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; csrr a4, misa; CHECK(a4, 0x40001121)
li TESTNUM, 2; li t0, 0x6000; csrs mstatus, t0; csrr a4, mstatus; CHECK(a4, -2147452928)
li TESTNUM, 3; csrr a4, mstatush; CHECK(a4, 0)
li TESTNUM, 4; csrr a4, cycleh; CHECK(a4, 0)
csrr a4, instreth; CHECK(a4, 0)
csrr a4, timeh; CHECK(a4, 0)
# mcycle advances from the value written (by the instructions since on Spike, by the
# clock cycles since on a pipeline: a few either way), mcycleh keeps its own.
li TESTNUM, 5; li a1, 0x100; csrw mcycle, a1; csrr a4, mcycle; csrr a5, mcycleh
addi a4, a4, -0x100; li t2, 16; bgeu a4, t2, fail
CHECK(a5, 0)
li TESTNUM, 6; li a1, 7; csrw minstreth, a1; csrr a4, minstreth; CHECK(a4, 7)
csrr a4, instreth; CHECK(a4, 7)
li TESTNUM, 7; csrw mcycleh, zero; csrr a4, mcycleh; CHECK(a4, 0)
TRAP_HANDLER
li s2, -1; li s3, -1; li s4, -1
1: .word 0x0005b703       # ld a4, 0(a1)
TRAP_CHECK(8, 2, 1b, 0x0005b703)
2: .word 0x00e5b023       # sd a4, 0(a1)
TRAP_CHECK(9, 2, 2b, 0x00e5b023)
3: .word 0x00c5873b       # addw a4, a1, a2
TRAP_CHECK(10, 2, 3b, 0x00c5873b)
4: .word 0x02059713       # slli a4, a1, 32
TRAP_CHECK(11, 2, 4b, 0x02059713)
5: .word 0xe2058553       # fmv.x.d a0, f11
TRAP_CHECK(12, 2, 5b, 0xe2058553)

TEST_END
