/* Worker blocks of gemm_opt.c. C's eight columns live in vv0-vv7 from gemm_opt_load to
   gemm_opt_store. */
#include "prec.h"

/* Column of C in vv(c) += b * the shared register a (multiply, then add). */
#define MAC(c, b, a) FMUL vv12, b, a; FADD c, c, vv12
/* All eight columns for one k: B's column b, A's row in a0-a7. */
#define MAC8(b, a0, a1, a2, a3, a4, a5, a6, a7) \
  MAC(vv0, b, a0); MAC(vv1, b, a1); MAC(vv2, b, a2); MAC(vv3, b, a3); \
  MAC(vv4, b, a4); MAC(vv5, b, a5); MAC(vv6, b, a6); MAC(vv7, b, a7)
#define CVT8(a0, a1, a2, a3, a4, a5, a6, a7) \
  TO_COMP(, a0); TO_COMP(, a1); TO_COMP(, a2); TO_COMP(, a3); \
  TO_COMP(, a4); TO_COMP(, a5); TO_COMP(, a6); TO_COMP(, a7)
#define LOAD(v, va) VLOAD v, va; TO_COMP(, v)
#define STORE(v, va) TO_STORE(, v); VSTORE v, va

  .text
  .align 3
  .globl gemm_opt_load
# va4-va11: C[i, 0..7]
gemm_opt_load:
  vpset vp0
  LOAD(vv0, va4)
  LOAD(vv1, va5)
  LOAD(vv2, va6)
  LOAD(vv3, va7)
  LOAD(vv4, va8)
  LOAD(vv5, va9)
  LOAD(vv6, va10)
  LOAD(vv7, va11)
  vstop

  .align 3
  .globl gemm_opt_madd
# va0-va3: B[i, k..k+3]; vs(8 kk + 1 + j): A[k + kk, j] in storage precision
gemm_opt_madd:
  vpset vp0
  LOAD(vv8, va0)
  LOAD(vv9, va1)
  LOAD(vv10, va2)
  LOAD(vv11, va3)
  CVT8(vs1, vs2, vs3, vs4, vs5, vs6, vs7, vs8)
  CVT8(vs9, vs10, vs11, vs12, vs13, vs14, vs15, vs16)
  CVT8(vs17, vs18, vs19, vs20, vs21, vs22, vs23, vs24)
  CVT8(vs25, vs26, vs27, vs28, vs29, vs30, vs31, vs32)
  MAC8(vv8, vs1, vs2, vs3, vs4, vs5, vs6, vs7, vs8)
  MAC8(vv9, vs9, vs10, vs11, vs12, vs13, vs14, vs15, vs16)
  MAC8(vv10, vs17, vs18, vs19, vs20, vs21, vs22, vs23, vs24)
  MAC8(vv11, vs25, vs26, vs27, vs28, vs29, vs30, vs31, vs32)
  vstop

  .align 3
  .globl gemm_opt_store
# va4-va11: C[i, 0..7]
gemm_opt_store:
  vpset vp0
  STORE(vv0, va4)
  STORE(vv1, va5)
  STORE(vv2, va6)
  STORE(vv3, va7)
  STORE(vv4, va8)
  STORE(vv5, va9)
  STORE(vv6, va10)
  STORE(vv7, va11)
  vstop
