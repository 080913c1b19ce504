# amoand.d: returns the old value (sign-extended for .w), memory gets the result.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; la a1, amo_word; li a2, 0x7fffffff; sd a2, 0(a1); li a3, 0x1
  amoand.d a4, a3, (a1); CHECK(a4, 0x7fffffff) ld a5, 0(a1); CHECK(a5, 0x1)
li TESTNUM, 2; la a1, amo_word; li a2, 0x80000000; sd a2, 0(a1); li a3, 0x7fffffff
  amoand.d a4, a3, (a1); CHECK(a4, 0x80000000) ld a5, 0(a1); CHECK(a5, 0x0)
li TESTNUM, 3; la a1, amo_word; li a2, 0xffffffffffffffff; sd a2, 0(a1); li a3, 0x1
  amoand.d a4, a3, (a1); CHECK(a4, 0xffffffffffffffff) ld a5, 0(a1); CHECK(a5, 0x1)
li TESTNUM, 4; la a1, amo_word; li a2, 0x8000000000000000; sd a2, 0(a1); li a3, 0x5
  amoand.d a4, a3, (a1); CHECK(a4, 0x8000000000000000) ld a5, 0(a1); CHECK(a5, 0x0)
li TESTNUM, 5; la a1, amo_word; li a2, 0x2da9036f6ba5ba49; sd a2, 0(a1); li a3, 0x489634fa10ba38d2
  amoand.d a4, a3, (a1); CHECK(a4, 0x2da9036f6ba5ba49) ld a5, 0(a1); CHECK(a5, 0x880006a00a03840)

TEST_END

  .align 4
amo_word: .dword 0, 0
