# amoor.d: returns the old value (sign-extended for .w), memory gets the result.
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1; la a1, amo_word; li a2, 0x7fffffff; sd a2, 0(a1); li a3, 0x1
  amoor.d a4, a3, (a1); CHECK(a4, 0x7fffffff) ld a5, 0(a1); CHECK(a5, 0x7fffffff)
li TESTNUM, 2; la a1, amo_word; li a2, 0x80000000; sd a2, 0(a1); li a3, 0x7fffffff
  amoor.d a4, a3, (a1); CHECK(a4, 0x80000000) ld a5, 0(a1); CHECK(a5, 0xffffffff)
li TESTNUM, 3; la a1, amo_word; li a2, 0xffffffffffffffff; sd a2, 0(a1); li a3, 0x1
  amoor.d a4, a3, (a1); CHECK(a4, 0xffffffffffffffff) ld a5, 0(a1); CHECK(a5, 0xffffffffffffffff)
li TESTNUM, 4; la a1, amo_word; li a2, 0x8000000000000000; sd a2, 0(a1); li a3, 0x5
  amoor.d a4, a3, (a1); CHECK(a4, 0x8000000000000000) ld a5, 0(a1); CHECK(a5, 0x8000000000000005)
li TESTNUM, 5; la a1, amo_word; li a2, 0xd9c154fd2620a891; sd a2, 0(a1); li a3, 0xe52c4fc21e578e4f
  amoor.d a4, a3, (a1); CHECK(a4, 0xd9c154fd2620a891) ld a5, 0(a1); CHECK(a5, 0xfded5fff3e77aedf)

TEST_END

  .align 4
amo_word: .dword 0, 0
