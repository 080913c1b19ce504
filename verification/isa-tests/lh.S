# lh: every alignment class, sign/zero extension, negative offset.
#include "isa_test.h"

TEST_BEGIN

TEST_LOAD(1, lh, 0xff, 0, tdat)
TEST_LOAD(2, lh, 0xff, 6, tdat)
TEST_LOAD(3, lh, 0xffffffffffffff00, 12, tdat)
TEST_LOAD(4, lh, 0xffffffffffff89ab, 18, tdat)
TEST_LOAD(5, lh, 0x2010, 24, tdat)
TEST_LOAD(6, lh, 0xffffffffffff8070, 30, tdat)
li TESTNUM, 7; la a1, tdat+24; lh a4, -8(a1); CHECK(a4, 0xffffffffffffcdef)

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
