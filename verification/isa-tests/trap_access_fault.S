# Accesses outside memory: load access fault (5), store/AMO access fault (7),
# instruction access fault (1, mepc = mtval = the target).
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
li a1, 0x10000
1: ld a4, 0(a1)
TRAP_CHECK(1, 5, 1b, 0x10000)
2: sw a4, 8(a1)
TRAP_CHECK(2, 7, 2b, 0x10008)
3: amoor.d a4, a4, (a1)
TRAP_CHECK(3, 7, 3b, 0x10000)
# Fetch fault: the handler resumes at mepc + 4, so point ra at a landing pad first.
la t0, fetch_handler; csrw mtvec, t0
li a1, 0x20000
jalr ra, 0(a1)
li TESTNUM, 4; CHECK(s2, 1); CHECK(s3, 0x20000); CHECK(s4, 0x20000)
j 5f
  .align 2
fetch_handler:
  csrr s2, mcause; csrr s3, mepc; csrr s4, mtval
  csrw mepc, ra
  mret
5:

TEST_END
