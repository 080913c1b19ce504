# Counters: instret/minstret advance by one per retired instruction, cycle/mcycle by at
# least one (Spike's count instructions, a pipeline's clock cycles, which stalls add
# to), time never goes backwards, and a minstret write sets what the next read sees.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; rdinstret a1; rdinstret a2; sub a4, a2, a1; CHECK(a4, 1)
li TESTNUM, 2; rdcycle a1; nop; rdcycle a2; sub a4, a2, a1; li t2, 2; bltu a4, t2, fail
li TESTNUM, 3; csrr a1, minstret; csrr a2, instret; sub a4, a2, a1; CHECK(a4, 1)
li TESTNUM, 4; csrr a1, mcycle; csrr a2, cycle; sub a4, a2, a1; beqz a4, fail
li TESTNUM, 5; rdtime a1; li t4, 12000
1: addi t4, t4, -1; bnez t4, 1b
rdtime a2; bltu a2, a1, fail; beq a2, a1, fail

TEST_END
