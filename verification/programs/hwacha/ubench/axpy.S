/* Worker block of axpy.c: one strip of y = a * x + y. */
#include "prec.h"

  .text
  .align 3
  .globl axpy_block
# va0: x, va1: y, vs1: a (compute precision)
axpy_block:
  vpset vp0
  VLOAD vv0, va0
  VLOAD vv1, va1
  TO_COMP(, vv0)
  TO_COMP(, vv1)
  FMUL vv0, vv0, vs1
  FADD vv1, vv1, vv0
  TO_STORE(, vv1)
  VSTORE vv1, va1
  vstop
