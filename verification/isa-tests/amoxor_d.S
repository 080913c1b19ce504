# amoxor.d: returns the old value (sign-extended for .w), memory gets the result.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; la a1, amo_word; li a2, 0x7fffffff; sd a2, 0(a1); li a3, 0x1
  amoxor.d a4, a3, (a1); CHECK(a4, 0x7fffffff) ld a5, 0(a1); CHECK(a5, 0x7ffffffe)
li TESTNUM, 2; la a1, amo_word; li a2, 0x80000000; sd a2, 0(a1); li a3, 0x7fffffff
  amoxor.d a4, a3, (a1); CHECK(a4, 0x80000000) ld a5, 0(a1); CHECK(a5, 0xffffffff)
li TESTNUM, 3; la a1, amo_word; li a2, 0xffffffffffffffff; sd a2, 0(a1); li a3, 0x1
  amoxor.d a4, a3, (a1); CHECK(a4, 0xffffffffffffffff) ld a5, 0(a1); CHECK(a5, 0xfffffffffffffffe)
li TESTNUM, 4; la a1, amo_word; li a2, 0x8000000000000000; sd a2, 0(a1); li a3, 0x5
  amoxor.d a4, a3, (a1); CHECK(a4, 0x8000000000000000) ld a5, 0(a1); CHECK(a5, 0x8000000000000005)
li TESTNUM, 5; la a1, amo_word; li a2, 0xaaaba6cee3eff53b; sd a2, 0(a1); li a3, 0x94b0c25f24938bea
  amoxor.d a4, a3, (a1); CHECK(a4, 0xaaaba6cee3eff53b) ld a5, 0(a1); CHECK(a5, 0x3e1b6491c77c7ed1)

TEST_END

  .align 4
amo_word: .dword 0, 0
