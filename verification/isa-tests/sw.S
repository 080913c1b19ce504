# sw: stores read back at every alignment class; bytes outside the store keep their values.
#include "isa_test.h"

TEST_BEGIN

TEST_STORE(1, sw, lwu, 0x5d3e547719ead50b, 0x19ead50b, 0, tdat)
TEST_STORE(2, sw, lwu, 0xdeb5a555f6efc7a5, 0xf6efc7a5, 12, tdat)
TEST_STORE(3, sw, lwu, 0xf4c184675f3cc9a1, 0x5f3cc9a1, 24, tdat)
li TESTNUM, 4; la a1, tdat; li a2, 0; sw a2, 8(a1); ld a4, 0(a1); ld a5, 16(a1); or a4, a4, a5; beqz a4, fail

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
