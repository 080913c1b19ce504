# sb: stores read back at every alignment class; bytes outside the store keep their values.
#include "isa_test.h"

TEST_BEGIN

TEST_STORE(1, sb, lbu, 0x20bd81bec2108926, 0x26, 0, tdat)
TEST_STORE(2, sb, lbu, 0xdd8bfe4620c7038e, 0x8e, 3, tdat)
TEST_STORE(3, sb, lbu, 0xebd5f759a529170e, 0xe, 6, tdat)
TEST_STORE(4, sb, lbu, 0x7f52d25d60a1ff13, 0x13, 9, tdat)
TEST_STORE(5, sb, lbu, 0x842fbfa6134b8c07, 0x7, 12, tdat)
TEST_STORE(6, sb, lbu, 0xe174bfad6faf0efa, 0xfa, 15, tdat)
TEST_STORE(7, sb, lbu, 0x76139cad9b1112f6, 0xf6, 18, tdat)
TEST_STORE(8, sb, lbu, 0x73538ebfb02b2103, 0x3, 21, tdat)
TEST_STORE(9, sb, lbu, 0x6ed235de24283d5d, 0x5d, 24, tdat)
TEST_STORE(10, sb, lbu, 0x3e1daad386c40864, 0x64, 27, tdat)
TEST_STORE(11, sb, lbu, 0x464e8eff33e0dc4d, 0x4d, 30, tdat)
li TESTNUM, 12; la a1, tdat; li a2, 0; sb a2, 8(a1); ld a4, 0(a1); ld a5, 16(a1); or a4, a4, a5; beqz a4, fail

TEST_END

  .align 4
tdat:
  .dword 0x00ff00ff00ff00ff
  .dword 0xff00ff00ff00ff00
  .dword 0x0123456789abcdef
  .dword 0x8070605040302010
