# lr.d/sc.d: success, failure without a reservation, failure on another address.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; la a1, lr_word; lr.d a4, (a1); CHECK(a4, 0x123456789abcdef)
li TESTNUM, 2; li a2, 0x5a5a5a5a; sc.d a5, a2, (a1); CHECK(a5, 0)
li TESTNUM, 3; lwu a4, 0(a1); CHECK(a4, 0x5a5a5a5a)
# sc without a reservation (the last sc consumed it) fails and leaves memory alone
li TESTNUM, 4; li a2, 7; sc.d a5, a2, (a1); CHECK(a5, 1)
li TESTNUM, 5; lwu a4, 0(a1); CHECK(a4, 0x5a5a5a5a)
# sc to another address than the reserved one fails
li TESTNUM, 6; lr.d a4, (a1); addi a3, a1, 8; sc.d a5, a2, (a3); CHECK(a5, 1)
li TESTNUM, 7; ld a4, 8(a1); CHECK(a4, 0)

TEST_END

  .align 4
lr_word: .dword 0x0123456789abcdef, 0
