# sh: stores read back at every alignment class; bytes outside the store keep their values.
#include "isa_test.h"

TEST_BEGIN

TEST_STORE(1, sh, lhu, 0x5ddea59814286fb2, 0x6fb2, 0, tdat)
TEST_STORE(2, sh, lhu, 0x10db1e84acfc2c3e, 0x2c3e, 6, tdat)
TEST_STORE(3, sh, lhu, 0x769c5269d7ff3776, 0x3776, 12, tdat)
TEST_STORE(4, sh, lhu, 0xc79dc9322fa12c6a, 0x2c6a, 18, tdat)
TEST_STORE(5, sh, lhu, 0xdefc1cb78502ab31, 0xab31, 24, tdat)
TEST_STORE(6, sh, lhu, 0x203e05118436ba3d, 0xba3d, 30, tdat)
li TESTNUM, 7; la a1, tdat; li a2, 0; sh a2, 8(a1); ld a4, 0(a1); ld a5, 16(a1); or a4, a4, a5; beqz a4, fail

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
