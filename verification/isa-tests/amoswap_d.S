# amoswap.d: returns the old value (sign-extended for .w), memory gets the result.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; la a1, amo_word; li a2, 0x7fffffff; sd a2, 0(a1); li a3, 0x1
  amoswap.d a4, a3, (a1); CHECK(a4, 0x7fffffff) ld a5, 0(a1); CHECK(a5, 0x1)
li TESTNUM, 2; la a1, amo_word; li a2, 0x80000000; sd a2, 0(a1); li a3, 0x7fffffff
  amoswap.d a4, a3, (a1); CHECK(a4, 0x80000000) ld a5, 0(a1); CHECK(a5, 0x7fffffff)
li TESTNUM, 3; la a1, amo_word; li a2, 0xffffffffffffffff; sd a2, 0(a1); li a3, 0x1
  amoswap.d a4, a3, (a1); CHECK(a4, 0xffffffffffffffff) ld a5, 0(a1); CHECK(a5, 0x1)
li TESTNUM, 4; la a1, amo_word; li a2, 0x8000000000000000; sd a2, 0(a1); li a3, 0x5
  amoswap.d a4, a3, (a1); CHECK(a4, 0x8000000000000000) ld a5, 0(a1); CHECK(a5, 0x5)
li TESTNUM, 5; la a1, amo_word; li a2, 0x4078b6f841ee57e3; sd a2, 0(a1); li a3, 0x4b9e8a3f954dee7a
  amoswap.d a4, a3, (a1); CHECK(a4, 0x4078b6f841ee57e3) ld a5, 0(a1); CHECK(a5, 0x4b9e8a3f954dee7a)

TEST_END

  .align 4
amo_word: .dword 0, 0
