# ld: every alignment class, sign/zero extension, negative offset.
#include "isa_test.h"

TEST_BEGIN

TEST_LOAD(1, ld, 0xff00ff00ff00ff, 0, tdat)
TEST_LOAD(2, ld, 0xff00ff00ff00ff00, 8, tdat)
TEST_LOAD(3, ld, 0x123456789abcdef, 16, tdat)
TEST_LOAD(4, ld, 0x8070605040302010, 24, tdat)
li TESTNUM, 5; la a1, tdat+24; ld a4, -8(a1); CHECK(a4, 0x123456789abcdef)

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
