# amoxor.w: returns the old value (sign-extended for .w), memory gets the result.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; la a1, amo_word; li a2, 0x7fffffff; sw a2, 0(a1); li a3, 0x1
  amoxor.w a4, a3, (a1); CHECK(a4, 0x7fffffff) lwu a5, 0(a1); CHECK(a5, 0x7ffffffe)
li TESTNUM, 2; la a1, amo_word; li a2, 0x80000000; sw a2, 0(a1); li a3, 0x7fffffff
  amoxor.w a4, a3, (a1); CHECK(a4, 0xffffffff80000000) lwu a5, 0(a1); CHECK(a5, 0xffffffff)
li TESTNUM, 3; la a1, amo_word; li a2, 0xffffffff; sw a2, 0(a1); li a3, 0x1
  amoxor.w a4, a3, (a1); CHECK(a4, 0xffffffffffffffff) lwu a5, 0(a1); CHECK(a5, 0xfffffffe)
li TESTNUM, 4; la a1, amo_word; li a2, 0x0; sw a2, 0(a1); li a3, 0x5
  amoxor.w a4, a3, (a1); CHECK(a4, 0x0) lwu a5, 0(a1); CHECK(a5, 0x5)
li TESTNUM, 5; la a1, amo_word; li a2, 0x3b272f11; sw a2, 0(a1); li a3, 0xbda2b46c3f559ea2
  amoxor.w a4, a3, (a1); CHECK(a4, 0x3b272f11) lwu a5, 0(a1); CHECK(a5, 0x472b1b3)

TEST_END

  .align 4
amo_word: .dword 0, 0
