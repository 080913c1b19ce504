# auipc: pc-relative upper immediate.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
1: auipc a4, 0
la a5, 1b
bne a4, a5, fail
li TESTNUM, 2
2: auipc a4, 0x1
la a5, 2b
sub a4, a4, a5
CHECK(a4, 0x1000)
li TESTNUM, 3
3: auipc a4, 0xfffff
la a5, 3b
sub a4, a4, a5
CHECK(a4, -0x1000)

TEST_END
