# Illegal instructions: mcause 2, mtval = the instruction bits (only the low 16 bits for
# an encoding whose low bits say "compressed": C is not implemented). F and D are not
# implemented yet, so their loads and arithmetic trap; so do sret (no S-mode), writes
# to read-only CSRs, absent CSRs and reserved funct fields.
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
li s2, -1; li s3, -1; li s4, -1
1: .word 0x00000000
TRAP_CHECK(1, 2, 1b, 0)
2: .word 0x00004501       # c.li a0, 0
TRAP_CHECK(2, 2, 2b, 0x4501)
3: .word 0x40b51533       # sll with funct7 0100000
TRAP_CHECK(3, 2, 3b, 0x40b51533)
4: .word 0x00c58553       # fadd.s fa0, fa1, fa2
TRAP_CHECK(4, 2, 4b, 0x00c58553)
5: .word 0x0005b507       # fld fa0, 0(a1)
TRAP_CHECK(5, 2, 5b, 0x0005b507)
6: .word 0xc0059073       # csrw cycle, a1 (read-only)
TRAP_CHECK(6, 2, 6b, 0xc0059073)
7: .word 0x7c002773       # csrr a4, 0x7c0 (absent)
TRAP_CHECK(7, 2, 7b, 0x7c002773)
8: .word 0x10200073       # sret
TRAP_CHECK(8, 2, 8b, 0x10200073)
9: .word 0x0005f703       # load with funct3 7
TRAP_CHECK(9, 2, 9b, 0x0005f703)
10: .word 0x000595e7      # jalr with funct3 1
TRAP_CHECK(10, 2, 10b, 0x000595e7)
11: .word 0x0000000b      # custom-0 with no accelerator attached
TRAP_CHECK(11, 2, 11b, 0x0000000b)

TEST_END
