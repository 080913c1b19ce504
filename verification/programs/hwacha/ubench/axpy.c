/* {s,d,hs,sd}axpy (thesis Table 9.1, Figure 9.2a): y = a * x + y, strip-mined over the
   vector with the worker block in axpy.S. The reference multiplies then adds, rounding
   each step in the compute precision, as the block's vfmul + vfadd do. */
#define UBENCH_NAME PREC_NAME "axpy"
#include "ubench.h"

/* Two vector registers: x (then a * x) and y. */
const uint64_t ubench_vcfg = VCFG(2, 1);

/* Problem size for up to 8 lanes: maxvl = 8192 there. */
#define CAPACITY 12300
static store_t x[CAPACITY] UBENCH_ARRAY, y[CAPACITY] UBENCH_ARRAY,
    y_init[CAPACITY] UBENCH_ARRAY, ref[CAPACITY] UBENCH_ARRAY;

int main(void)
{
    unsigned long n = ubench_setup(CAPACITY);
    comp_t a = random_comp();
    fill_random(x, n);
    fill_random(y_init, n);
    for (unsigned long i = 0; i < n; i++)
        ref[i] = to_store(to_comp(y_init[i]) + to_comp(x[i]) * a);

    VMCS(vs1, comp_bits(a));
    for (unsigned long r = 0; ubench_run(r); r++) {
        ubench_copy(y, y_init, n);
        unsigned long vl;
        for (unsigned long i = 0; i < n; i += vl) {
            vl = ubench_strip(n - i);
            VMCA(va0, &x[i]);
            VMCA(va1, &y[i]);
            VF(axpy_block);
        }
        ubench_check(y, ref, n);
    }
    return ubench_finish();
}
