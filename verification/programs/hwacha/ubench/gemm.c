/* {s,d,hs,sd}gemm (thesis Table 9.1, Figure 9.2b): C += A * B as the OpenCL kernel does
   it. Work item (i, k, j) loads C[i, j..j+3] from memory, adds A[kk, jj] * B[i, kk] for
   its four kk (multiply, then add) and stores C back, so C is rounded to the storage
   precision after each block of four k. Matrices are column-major with leading
   dimension ldc = M, as in the figure (A too). Vectorised along i: one vector-fetch
   block (gemm.S) per strip of rows and (k, j) block, the worker loading A's values into
   shared registers with scalar loads. */
#define UBENCH_NAME PREC_NAME "gemm"
#include "ubench.h"

/* The C accumulator, a product, four columns of B. */
const uint64_t ubench_vcfg = VCFG_DATA(6, 1);

#define K 8
#define J 8
/* Rows for up to 8 lanes: maxvl = 2688 there. */
#define CAPACITY 4040
const uint64_t ubench_capacity = CAPACITY;
static store_t a[CAPACITY * J] UBENCH_ARRAY(a), b[CAPACITY * K] UBENCH_ARRAY(b),
    c[UBENCH_COPIES * CAPACITY * J] UBENCH_ARRAY(c),
    c_init[CAPACITY * J] UBENCH_ARRAY(c_init), ref[CAPACITY * J] UBENCH_ARRAY(ref);

int main(void)
{
    unsigned long m = ubench_setup(), ldc = m;
#ifndef UBENCH_HOST_DATA
    for (unsigned long jj = 0; jj < J; jj++)
        fill_random(&a[jj * ldc], K);
    fill_random(b, m * K);
    fill_random(c_init, m * J);
    ubench_copy(ref, c_init, m * J);
    for (unsigned long j = 0; j < J; j++)
        for (unsigned long k = 0; k < K; k += 4)
            for (unsigned long i = 0; i < m; i++) {
                comp_t acc = to_comp(ref[i + j * ldc]);
                for (unsigned long kk = k; kk < k + 4; kk++)
                    acc = acc + to_comp(a[kk + j * ldc]) * to_comp(b[i + kk * ldc]);
                ref[i + j * ldc] = to_store(acc);
            }
#endif

    VMCS(vs2, ldc * sizeof(store_t));
    for (unsigned long r = 0; ubench_run(r); r++) {
        store_t *out = ubench_output(c, c_init, r, m * J);
        unsigned long vl;
        for (unsigned long i = 0; i < m; i += vl) {
            vl = ubench_strip(m - i);
            for (unsigned long j = 0; j < J; j += 4)
                for (unsigned long k = 0; k < K; k += 4) {
                    VMCA(va0, &b[i + k * ldc]);
                    VMCA(va1, &b[i + (k + 1) * ldc]);
                    VMCA(va2, &b[i + (k + 2) * ldc]);
                    VMCA(va3, &b[i + (k + 3) * ldc]);
                    VMCA(va4, &out[i + j * ldc]);
                    VMCA(va5, &out[i + (j + 1) * ldc]);
                    VMCA(va6, &out[i + (j + 2) * ldc]);
                    VMCA(va7, &out[i + (j + 3) * ldc]);
                    VMCS(vs1, &a[k + j * ldc]);
                    VF(gemm_block);
                }
        }
        ubench_check(out, ref, m * J);
    }
    return ubench_finish();
}
