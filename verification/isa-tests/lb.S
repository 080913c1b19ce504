# lb: every alignment class, sign/zero extension, negative offset.
#include "isa_test.h"

TEST_BEGIN

TEST_LOAD(1, lb, 0xffffffffffffffff, 0, tdat)
TEST_LOAD(2, lb, 0x0, 3, tdat)
TEST_LOAD(3, lb, 0xffffffffffffffff, 6, tdat)
TEST_LOAD(4, lb, 0xffffffffffffffff, 9, tdat)
TEST_LOAD(5, lb, 0x0, 12, tdat)
TEST_LOAD(6, lb, 0xffffffffffffffff, 15, tdat)
TEST_LOAD(7, lb, 0xffffffffffffffab, 18, tdat)
TEST_LOAD(8, lb, 0x45, 21, tdat)
TEST_LOAD(9, lb, 0x10, 24, tdat)
TEST_LOAD(10, lb, 0x40, 27, tdat)
TEST_LOAD(11, lb, 0x70, 30, tdat)
li TESTNUM, 12; la a1, tdat+24; lb a4, -8(a1); CHECK(a4, 0xffffffffffffffef)

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
