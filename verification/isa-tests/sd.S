# sd: stores read back at every alignment class; bytes outside the store keep their values.
#include "isa_test.h"

TEST_BEGIN

TEST_STORE(1, sd, ld, 0x50f4c185f16b8e01, 0x50f4c185f16b8e01, 0, tdat)
TEST_STORE(2, sd, ld, 0x2d979a7885104cf6, 0x2d979a7885104cf6, 8, tdat)
TEST_STORE(3, sd, ld, 0xd7082c64a93d524b, 0xd7082c64a93d524b, 16, tdat)
TEST_STORE(4, sd, ld, 0x4ba61a66bfe56f44, 0x4ba61a66bfe56f44, 24, tdat)
li TESTNUM, 5; la a1, tdat; li a2, 0; sd a2, 8(a1); ld a4, 0(a1); ld a5, 16(a1); or a4, a4, a5; beqz a4, fail

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
