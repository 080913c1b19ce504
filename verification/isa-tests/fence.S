# fence: orders memory; on a single in-order hart, loads see earlier stores.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
la a1, word
li a2, 0x1234
sd a2, 0(a1)
fence
ld a4, 0(a1)
CHECK(a4, 0x1234)
fence rw, rw
fence iorw, iorw
fence.tso

TEST_END

  .align 3
word: .dword 0
