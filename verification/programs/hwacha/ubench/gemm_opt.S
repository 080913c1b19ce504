/* Worker blocks of gemm_opt.c, one per four k of a strip of rows (K = 8): C's eight
   columns live in vv0-vv7 from gemm_opt_first to gemm_opt_last, B's four columns of the
   block in vv8-vv11, a product in vv12.

   A memory instruction takes three of the sequencer's eight slots (thesis Table 8.4),
   so a run of loads fills the window and the multiply-adds behind it cannot start.
   Each load therefore comes just before its first user: B's column kk before the eight
   multiply-adds with it, C's column j (first block) before its first multiply-add, and
   C's store (last block) right after its last one. Every load then overlaps the
   multiply-adds before it, and its users follow it strip by strip (chaining from
   loads). Each element of C still sees its products in the order of k. */
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
/* The block's 32 values of A, vs(8 kk + 1 + j) = A[k + kk, j], to compute precision. */
#define CVT_A \
  CVT8(vs1, vs2, vs3, vs4, vs5, vs6, vs7, vs8); \
  CVT8(vs9, vs10, vs11, vs12, vs13, vs14, vs15, vs16); \
  CVT8(vs17, vs18, vs19, vs20, vs21, vs22, vs23, vs24); \
  CVT8(vs25, vs26, vs27, vs28, vs29, vs30, vs31, vs32)
#define LOAD(v, va) VLOAD v, va; TO_COMP(, v)
#define STORE(v, va) TO_STORE(, v); VSTORE v, va
/* The block's second and third k, alike in both blocks. */
#define KK_1_2 \
  LOAD(vv9, va1); MAC8(vv9, vs9, vs10, vs11, vs12, vs13, vs14, vs15, vs16); \
  LOAD(vv10, va2); MAC8(vv10, vs17, vs18, vs19, vs20, vs21, vs22, vs23, vs24)

  .text
  .align 3
  .globl gemm_opt_first
# va0-va3: B[i, k..k+3]; va4-va11: C[i, 0..7]; vs1-vs32: A[k..k+3, 0..7] (CVT_A)
gemm_opt_first:
  vpset vp0
  CVT_A
  LOAD(vv8, va0)
  LOAD(vv0, va4)
  MAC(vv0, vv8, vs1)
  LOAD(vv1, va5)
  MAC(vv1, vv8, vs2)
  LOAD(vv2, va6)
  MAC(vv2, vv8, vs3)
  LOAD(vv3, va7)
  MAC(vv3, vv8, vs4)
  LOAD(vv4, va8)
  MAC(vv4, vv8, vs5)
  LOAD(vv5, va9)
  MAC(vv5, vv8, vs6)
  LOAD(vv6, va10)
  MAC(vv6, vv8, vs7)
  LOAD(vv7, va11)
  MAC(vv7, vv8, vs8)
  KK_1_2
  LOAD(vv11, va3)
  MAC8(vv11, vs25, vs26, vs27, vs28, vs29, vs30, vs31, vs32)
  vstop

  .align 3
  .globl gemm_opt_last
# As gemm_opt_first for the last four k, C already in vv0-vv7; stores C.
gemm_opt_last:
  vpset vp0
  CVT_A
  LOAD(vv8, va0)
  MAC8(vv8, vs1, vs2, vs3, vs4, vs5, vs6, vs7, vs8)
  KK_1_2
  LOAD(vv11, va3)
  MAC(vv0, vv11, vs25)
  STORE(vv0, va4)
  MAC(vv1, vv11, vs26)
  STORE(vv1, va5)
  MAC(vv2, vv11, vs27)
  STORE(vv2, va6)
  MAC(vv3, vv11, vs28)
  STORE(vv3, va7)
  MAC(vv4, vv11, vs29)
  STORE(vv4, va8)
  MAC(vv5, vv11, vs30)
  STORE(vv5, va9)
  MAC(vv6, vv11, vs31)
  STORE(vv6, va10)
  MAC(vv7, vv11, vs32)
  STORE(vv7, va11)
  vstop
