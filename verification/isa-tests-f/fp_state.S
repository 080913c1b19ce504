# Floating-point state (RV64 and RV32): with mstatus.FS Off every F instruction and the
# fcsr CSRs are illegal; fcsr = frm << 5 | fflags; frm and fflags are WARL fields; a
# reserved static rounding mode (5, 6), or the dynamic one while frm holds 5..7, makes
# an instruction illegal; flw/fsw and fmv.w.x/fmv.x.w move bits unchanged.
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
li s2, -1; li s3, -1; li s4, -1
1: fadd.s f1, f2, f3
TRAP_CHECK(1, 2, 1b, 0x003170d3)
2: csrr a4, fcsr
TRAP_CHECK(2, 2, 2b, 0x00302773)
3: flw f1, 0(sp)
TRAP_CHECK(3, 2, 3b, 0x00012087)

FP_ENABLE
li TESTNUM, 4; li a1, 0xff; csrw fcsr, a1; csrr a4, fcsr; CHECK(a4, 0xff)
li TESTNUM, 5; csrr a4, frm; CHECK(a4, 7)
li TESTNUM, 6; csrr a4, fflags; CHECK(a4, 0x1f)
li TESTNUM, 7; li a1, -1; csrw fcsr, a1; csrr a4, fcsr; CHECK(a4, 0xff)
li TESTNUM, 8; csrwi fflags, 0; csrr a4, fcsr; CHECK(a4, 0xe0)
# frm = 7: the dynamic rounding mode is invalid.
4: fadd.s f1, f2, f3
TRAP_CHECK(9, 2, 4b, 0x003170d3)
li TESTNUM, 10; csrwi frm, 5
5: fmul.s f1, f2, f3
TRAP_CHECK(11, 2, 5b, 0x103170d3)
li TESTNUM, 12; li a1, 0x40000000; fmv.w.x f2, a1; fmv.w.x f3, a1
fadd.s f1, f2, f3, rtz; fmv.x.w a4, f1; CHECK(a4, 0x40800000)
# Reserved static rounding modes.
6: .word 0x003150d3       # fadd.s f1, f2, f3 with rm 5
TRAP_CHECK(13, 2, 6b, 0x003150d3)
7: .word 0x003160d3       # rm 6
TRAP_CHECK(14, 2, 7b, 0x003160d3)
# An exact conversion checks its rounding mode too.
8: .word 0xd00570d3       # fcvt.s.w f1, a0, dyn (frm 5)
TRAP_CHECK(15, 2, 8b, 0xd00570d3)
li TESTNUM, 16; csrwi frm, 0; csrr a4, frm; CHECK(a4, 0)
# Half and quad formats and fsqrt with rs2 != 0 are illegal.
9: .word 0x043170d3       # fadd.h
TRAP_CHECK(17, 2, 9b, 0x043170d3)
10: .word 0x583170d3      # fsqrt.s f1, f2 with rs2 = 3
TRAP_CHECK(18, 2, 10b, 0x583170d3)
# Loads and stores move bits; fmv.x.w sign-extends.
li TESTNUM, 19; la a2, fp_data; flw f4, 0(a2); fsw f4, 4(a2); lw a4, 4(a2); CHECK(a4, SEXT32(0xff800001))
li TESTNUM, 20; fmv.x.w a4, f4; CHECK(a4, SEXT32(0xff800001))
li TESTNUM, 21; li a1, 0x7f800001; fmv.w.x f5, a1; fsw f5, 8(a2); lw a4, 8(a2); CHECK(a4, 0x7f800001)
# fsgnj.s and fmin.s do not canonicalise a signaling NaN (fsgnj) / do (fmin of two NaNs).
li TESTNUM, 22; fsgnjn.s f6, f5, f5; fmv.x.w a4, f6; CHECK(a4, SEXT32(0xff800001))
li TESTNUM, 23; fmin.s f6, f5, f5; fmv.x.w a4, f6; CHECK(a4, 0x7fc00000)
li TESTNUM, 24; csrr a4, fflags; CHECK(a4, 0x10)

TEST_END

  .align 3
fp_data: .word 0xff800001, 0, 0, 0
