/* Worker block of gemm.c: one strip of rows, one block of four k and four j. */
#include "prec.h"

/* c += A[kk, jj] * b for the next kk: A's value is loaded from the address in vs4, which
   then steps to the next row of A. */
#define TERM(b) \
  SLOAD vs3, vs4; TO_COMP(, vs3); FMUL vv1, b, vs3; FADD vv0, vv0, vv1; \
  vaddi vs4, vs4, STORE_BYTES

/* Column jj of C (address register va): load, four terms from A's column at vs1, store. */
#define COLUMN(va) \
  VLOAD vv0, va; TO_COMP(, vv0); vadd vs4, vs1, vs0; \
  TERM(vv2); TERM(vv3); TERM(vv4); TERM(vv5); \
  TO_STORE(, vv0); VSTORE vv0, va

  .text
  .align 3
  .globl gemm_block
# va0-va3: B[i, k..k+3]; va4-va7: C[i, j..j+3]; vs1: &A[k, j]; vs2: ldc in bytes
gemm_block:
  vpset vp0
  VLOAD vv2, va0
  VLOAD vv3, va1
  VLOAD vv4, va2
  VLOAD vv5, va3
  TO_COMP(, vv2)
  TO_COMP(, vv3)
  TO_COMP(, vv4)
  TO_COMP(, vv5)
  COLUMN(va4)
  vadd vs1, vs1, vs2
  COLUMN(va5)
  vadd vs1, vs1, vs2
  COLUMN(va6)
  vadd vs1, vs1, vs2
  COLUMN(va7)
  vstop
