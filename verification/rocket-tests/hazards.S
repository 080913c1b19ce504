# Pipeline hazards of the rocket core, each checked by the program and, in the tests,
# commit by commit against the ISS: every bypass distance, load-use, store-to-load,
# multiply/divide results used at once, CSR read-after-write, taken/not-taken branches in
# both directions, jump chains, a trap behind a long-latency divide and in the shadow of
# younger instructions, self-modifying code, LR/SC.
#include "isa_test.h"

TEST_BEGIN

# Bypass distances 1, 2, 3 (EX, MEM, WB) and none, on both operands.
li TESTNUM, 1
li a1, 5
addi a2, a1, 1        # a1 from WB/regfile
add a3, a2, a2        # a2 from EX, both operands
add a4, a3, a2        # a3 from EX, a2 from MEM
add a5, a4, a3        # a4 EX, a3 MEM
add a6, a5, a2        # a5 EX, a2 WB
CHECK(a6, 36)

# Load-use, then a load feeding a store address and a store feeding a load.
li TESTNUM, 2
la a1, data
ld a2, 0(a1)
addi a2, a2, 1        # load-use
sd a2, 8(a1)
ld a3, 8(a1)          # store-to-load through memory
add a3, a3, a3
CHECK(a3, 0x2468)
ld a4, 16(a1)         # a pointer
ld a5, 0(a4)          # load-use on the address
CHECK(a5, 0x1233)

# Multiply and divide results used immediately, back to back.
li TESTNUM, 3
li a1, 12345
li a2, 678
mul a3, a1, a2
div a4, a3, a2
rem a5, a3, a1
add a6, a4, a5
CHECK(a6, 12345)
mulw a3, a1, a1
divuw a4, a3, a1
CHECK(a4, 12345)

# CSR read-after-write and a CSR value used at once.
li TESTNUM, 4
li a1, 0x1234
csrw mscratch, a1
csrr a2, mscratch
addi a2, a2, 1
csrrw a3, mscratch, a2
add a3, a3, a2
CHECK(a3, 0x2469)

# Branches: taken and not taken, forward and backward, on fresh results.
li TESTNUM, 5
li a1, 0
li a2, 10
1: addi a1, a1, 1
blt a1, a2, 1b        # backward taken 9 times
bne a1, a2, fail      # forward not taken
beq a1, a2, 2f        # forward taken
j fail
2: CHECK(a1, 10)

# Jump chains: jal to jal, jalr through a fresh register.
li TESTNUM, 6
li a3, 0
jal ra, 3f
addi a3, a3, 1
j 4f
3: la t0, 5f
jalr x0, 0(t0)
j fail
5: addi a3, a3, 10
jalr x0, 0(ra)
4: CHECK(a3, 11)
# jalr to the instruction after it (fetch's fall-through was right: no redirect), the
# immediate carrying into the upper bits; the second's sum is odd (bit 0 dropped).
la t0, 8f
addi t0, t0, -2047
jalr t1, 2047(t0)
8: la t0, 9f
addi t0, t0, -2046
jalr t1, 2047(t0)
9: la t3, 9b
bne t1, t3, fail

# A trap behind a long divide: the younger instructions must not retire.
li TESTNUM, 7
TRAP_HANDLER
li a1, 1000
li a2, 7
li a5, 0
div a3, a1, a2
6: ld a4, 0(x0)       # access fault while the younger ones are in flight
addi a5, a5, 1        # runs once, after the handler returns
CHECK(a3, 142)
CHECK(a5, 1)
TRAP_CHECK(8, 5, 6b, 0)
li a5, 0
7: ecall              # a trap in ID's shadow: a divide right behind it
div a5, a1, a2
TRAP_CHECK(9, 11, 7b, 0)
CHECK(a5, 142)

# Self-modifying code, right after the store.
li TESTNUM, 10
la a1, patch
la a2, replacement
lw a3, 0(a2)
sw a3, 0(a1)
fence.i
patch: li a4, 1
CHECK(a4, 2)

# LR/SC: success, failure after another SC, and a failing SC without LR.
li TESTNUM, 11
la a1, data
lr.d a2, (a1)
addi a2, a2, 1
sc.d a3, a2, (a1)
CHECK(a3, 0)
sc.d a3, a2, (a1)
CHECK(a3, 1)
ld a4, 0(a1)
CHECK(a4, 0x1234)
amoadd.d a5, a2, (a1)
ld a6, 0(a1)
sub a6, a6, a5
CHECK(a6, 0x1234)
j done
replacement: li a4, 2
done:

TEST_END

  .data
  .align 3
data: .dword 0x1233, 0, data
