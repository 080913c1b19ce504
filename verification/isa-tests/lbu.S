# lbu: every alignment class, sign/zero extension, negative offset.
#include "isa_test.h"

TEST_BEGIN

TEST_LOAD(1, lbu, 0xff, 0, tdat)
TEST_LOAD(2, lbu, 0x0, 3, tdat)
TEST_LOAD(3, lbu, 0xff, 6, tdat)
TEST_LOAD(4, lbu, 0xff, 9, tdat)
TEST_LOAD(5, lbu, 0x0, 12, tdat)
TEST_LOAD(6, lbu, 0xff, 15, tdat)
TEST_LOAD(7, lbu, 0xab, 18, tdat)
TEST_LOAD(8, lbu, 0x45, 21, tdat)
TEST_LOAD(9, lbu, 0x10, 24, tdat)
TEST_LOAD(10, lbu, 0x40, 27, tdat)
TEST_LOAD(11, lbu, 0x70, 30, tdat)
li TESTNUM, 12; la a1, tdat+24; lbu a4, -8(a1); CHECK(a4, 0xef)

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
