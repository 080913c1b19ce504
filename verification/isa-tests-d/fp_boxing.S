# NaN boxing (RV64 with D): a single whose upper 32 bits are not all ones reads as the
# canonical NaN; an f register never written reads as the canonical NaN in either format
# (Spike's registers are 128 bits and reset to zero) while moves and stores see its zero
# bits; single results are written boxed; fmv.x.d and fsd take the bits unchanged.
#include "isa_test.h"

TEST_BEGIN
FP_ENABLE

li TESTNUM, 1; fadd.d f1, f31, f31; fmv.x.d a4, f1; CHECK(a4, 0x7ff8000000000000)
li TESTNUM, 2; fadd.s f1, f30, f30; fmv.x.d a4, f1; CHECK(a4, 0xffffffff7fc00000)
li TESTNUM, 3; fmv.x.d a4, f29; CHECK(a4, 0)
li TESTNUM, 4; fsgnj.s f1, f28, f28; fmv.x.d a4, f1; CHECK(a4, 0xffffffff7fc00000)
li TESTNUM, 5; li a1, 0x000000003f800000; fmv.d.x f2, a1; fadd.s f3, f2, f2
fmv.x.d a4, f3; CHECK(a4, 0xffffffff7fc00000)
li TESTNUM, 6; li a1, 0xffffffff3f800000; fmv.d.x f2, a1; fadd.s f3, f2, f2
fmv.x.d a4, f3; CHECK(a4, 0xffffffff40000000)
li TESTNUM, 7; li a1, 0xfffffffe3f800000; fmv.d.x f2, a1; fsgnjx.s f3, f2, f2
fmv.x.d a4, f3; CHECK(a4, 0xffffffff7fc00000)
li TESTNUM, 8; fmv.x.w a4, f2; CHECK(a4, 0x3f800000)
li TESTNUM, 9; la a2, fp_data; fsd f2, 0(a2); ld a4, 0(a2); CHECK(a4, 0xfffffffe3f800000)
li TESTNUM, 10; flw f4, 0(a2); fmv.x.d a4, f4; CHECK(a4, 0xffffffff3f800000)
li TESTNUM, 11; fld f5, 0(a2); fmv.x.d a4, f5; CHECK(a4, 0xfffffffe3f800000)
li TESTNUM, 12; fcvt.d.s f6, f5; fmv.x.d a4, f6; CHECK(a4, 0x7ff8000000000000)
li TESTNUM, 13; fclass.s a4, f5; CHECK(a4, 0x200)
li TESTNUM, 14; fclass.d a4, f27; CHECK(a4, 0x200)
li TESTNUM, 15; fsd f26, 8(a2); ld a4, 8(a2); CHECK(a4, 0)
li TESTNUM, 16; csrr a4, fflags; CHECK(a4, 0)

TEST_END

  .align 3
fp_data: .dword 0, 0
