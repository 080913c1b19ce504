# jal: link register gets pc+4, forward and backward targets, rd = x0.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
li t3, 0
1: jal a4, 2f
li t3, 1
2: bnez t3, fail
la a5, 1b
addi a5, a5, 4
bne a4, a5, fail
li TESTNUM, 2
j 4f
3: li t3, 2
j 5f
4: jal x0, 3b
5: CHECK(t3, 2)

TEST_END
