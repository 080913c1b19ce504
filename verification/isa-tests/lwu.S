# lwu: every alignment class, sign/zero extension, negative offset.
#include "isa_test.h"

TEST_BEGIN

TEST_LOAD(1, lwu, 0xff00ff, 0, tdat)
TEST_LOAD(2, lwu, 0xff00ff, 4, tdat)
TEST_LOAD(3, lwu, 0xff00ff00, 8, tdat)
TEST_LOAD(4, lwu, 0xff00ff00, 12, tdat)
TEST_LOAD(5, lwu, 0x89abcdef, 16, tdat)
TEST_LOAD(6, lwu, 0x1234567, 20, tdat)
TEST_LOAD(7, lwu, 0x40302010, 24, tdat)
TEST_LOAD(8, lwu, 0x80706050, 28, tdat)
li TESTNUM, 9; la a1, tdat+24; lwu a4, -8(a1); CHECK(a4, 0x89abcdef)

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
