/* {s,d,hs,sd}gemm-opt (thesis Table 9.1 and section 9.2): the hand-optimised C += A * B.
   Per strip of rows, the eight columns of C stay in vector registers, in the compute
   precision, across the two vector-fetch blocks (gemm_opt.S), one per four k, that
   stride through B (four unit-stride columns per block) and A (the block's 32 values in
   shared registers, moved there by the control thread); the first block loads C, the
   last stores it, rounded to storage precision once. Multiply, then add, in the order
   of k. Column-major, leading dimension ldc = M. */
#define UBENCH_NAME PREC_NAME "gemm-opt"
#include "ubench.h"

/* Eight columns of C, four of B, a product. */
const uint64_t ubench_vcfg = VCFG_DATA(13, 1);

/* Two vector-fetch blocks of four k each (gemm_opt.S). */
#define K 8
#define J 8
/* Rows for up to 8 lanes: maxvl = 1216 there. */
#define CAPACITY 1830
const uint64_t ubench_capacity = CAPACITY;
static store_t a[CAPACITY * J] UBENCH_ARRAY(a), b[CAPACITY * K] UBENCH_ARRAY(b),
    c[UBENCH_COPIES * CAPACITY * J] UBENCH_ARRAY(c),
    c_init[CAPACITY * J] UBENCH_ARRAY(c_init), ref[CAPACITY * J] UBENCH_ARRAY(ref);

/* A[k + kk, 0..7] into vs(8 kk + 1) .. vs(8 kk + 8), as gemm_opt.S expects them. */
#define A_ROW(first, s0, s1, s2, s3, s4, s5, s6, s7)                                    \
    do {                                                                                \
        const store_t *row = (first);                                                   \
        VMCS(s0, store_bits(row[0]));                                                   \
        VMCS(s1, store_bits(row[ldc]));                                                 \
        VMCS(s2, store_bits(row[2 * ldc]));                                             \
        VMCS(s3, store_bits(row[3 * ldc]));                                             \
        VMCS(s4, store_bits(row[4 * ldc]));                                             \
        VMCS(s5, store_bits(row[5 * ldc]));                                             \
        VMCS(s6, store_bits(row[6 * ldc]));                                             \
        VMCS(s7, store_bits(row[7 * ldc]));                                             \
    } while (0)

/* B's columns k..k+3 for rows i on (va0-va3) and A's rows k..k+3 (vs1-vs32): the
   operands of the vector-fetch block for those four k. */
static void operands(unsigned long i, unsigned long k, unsigned long ldc)
{
    VMCA(va0, &b[i + k * ldc]);
    VMCA(va1, &b[i + (k + 1) * ldc]);
    VMCA(va2, &b[i + (k + 2) * ldc]);
    VMCA(va3, &b[i + (k + 3) * ldc]);
    A_ROW(&a[k], vs1, vs2, vs3, vs4, vs5, vs6, vs7, vs8);
    A_ROW(&a[k + 1], vs9, vs10, vs11, vs12, vs13, vs14, vs15, vs16);
    A_ROW(&a[k + 2], vs17, vs18, vs19, vs20, vs21, vs22, vs23, vs24);
    A_ROW(&a[k + 3], vs25, vs26, vs27, vs28, vs29, vs30, vs31, vs32);
}

int main(void)
{
    unsigned long m = ubench_setup(), ldc = m;
#ifndef UBENCH_HOST_DATA
    for (unsigned long jj = 0; jj < J; jj++)
        fill_random(&a[jj * ldc], K);
    fill_random(b, m * K);
    fill_random(c_init, m * J);
    for (unsigned long j = 0; j < J; j++)
        for (unsigned long i = 0; i < m; i++) {
            comp_t acc = to_comp(c_init[i + j * ldc]);
            for (unsigned long k = 0; k < K; k++)
                acc = acc + to_comp(a[k + j * ldc]) * to_comp(b[i + k * ldc]);
            ref[i + j * ldc] = to_store(acc);
        }
#endif

    for (unsigned long r = 0; ubench_run(r); r++) {
        store_t *out = ubench_output(c, c_init, r, m * J);
        unsigned long vl;
        for (unsigned long i = 0; i < m; i += vl) {
            vl = ubench_strip(m - i);
            VMCA(va4, &out[i]);
            VMCA(va5, &out[i + ldc]);
            VMCA(va6, &out[i + 2 * ldc]);
            VMCA(va7, &out[i + 3 * ldc]);
            VMCA(va8, &out[i + 4 * ldc]);
            VMCA(va9, &out[i + 5 * ldc]);
            VMCA(va10, &out[i + 6 * ldc]);
            VMCA(va11, &out[i + 7 * ldc]);
            operands(i, 0, ldc);
            VF(gemm_opt_first);
            operands(i, 4, ldc);
            VF(gemm_opt_last);
        }
        ubench_check(out, ref, m * J);
    }
    return ubench_finish();
}
