/* Worker block of filter.c: one strip of two output rows. With MASK, the sums and
   stores run under the row's mask (vp1 set where the mask is zero). */
#include "prec.h"

#ifdef MASK
#define P @!vp1
#define MASK_ROW(va) vlh vv14, va; vcmpeq vp1, vv14, vs0
#else
#define P
#define MASK_ROW(va)
#endif

#define LOAD(v, va) VLOAD v, va; TO_COMP(, v)
/* vv0 += row * weights: three products, added in order. */
#define ADD_ROW(a, b, c, wa, wb, wc) \
  P FMUL vv1, a, wa; P FADD vv0, vv0, vv1; \
  P FMUL vv1, b, wb; P FADD vv0, vv0, vv1; \
  P FMUL vv1, c, wc; P FADD vv0, vv0, vv1
/* An output row from three source rows (three registers each), stored at va. */
#define OUTPUT(a0, a1, a2, b0, b1, b2, c0, c1, c2, va) \
  P FMUL vv0, a0, vs1; \
  P FMUL vv1, a1, vs2; P FADD vv0, vv0, vv1; \
  P FMUL vv1, a2, vs3; P FADD vv0, vv0, vv1; \
  ADD_ROW(b0, b1, b2, vs4, vs5, vs6); \
  ADD_ROW(c0, c1, c2, vs7, vs8, vs9); \
  TO_STORE(P, vv0); P VSTORE vv0, va

  .text
  .align 3
  .globl filter_block
# va(3r)..va(3r+2): source row y-1+r at x-1, x, x+1 (r = 0..3); va12, va13: dst rows y
# and y+1; va14, va15: mask rows y and y+1; vs1-vs9: the weights (compute precision)
filter_block:
  vpset vp0
  LOAD(vv2, va0)
  LOAD(vv3, va1)
  LOAD(vv4, va2)
  LOAD(vv5, va3)
  LOAD(vv6, va4)
  LOAD(vv7, va5)
  LOAD(vv8, va6)
  LOAD(vv9, va7)
  LOAD(vv10, va8)
  LOAD(vv11, va9)
  LOAD(vv12, va10)
  LOAD(vv13, va11)
  MASK_ROW(va14)
  OUTPUT(vv2, vv3, vv4, vv5, vv6, vv7, vv8, vv9, vv10, va12)
  MASK_ROW(va15)
  OUTPUT(vv5, vv6, vv7, vv8, vv9, vv10, vv11, vv12, vv13, va13)
  vstop
