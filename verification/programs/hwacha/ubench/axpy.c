/* {s,d,hs,sd}axpy (thesis Table 9.1, Figure 9.2a): y = a * x + y, strip-mined over the
   vector with the worker block in axpy.S. The reference multiplies then adds, rounding
   each step in the compute precision, as the block's vfmul + vfadd do. */
#define UBENCH_NAME PREC_NAME "axpy"
#include "ubench.h"

/* Two vector registers: x (then a * x) and y. */
const uint64_t ubench_vcfg = VCFG_DATA(2, 1);

/* Problem size for up to 8 lanes: maxvl = 8192 there. */
#define CAPACITY 12300
const uint64_t ubench_capacity = CAPACITY;
static store_t x[CAPACITY] UBENCH_ARRAY(x), y[UBENCH_COPIES * CAPACITY] UBENCH_ARRAY(y),
    y_init[CAPACITY] UBENCH_ARRAY(y_init), ref[CAPACITY] UBENCH_ARRAY(ref);
#ifdef UBENCH_HOST_DATA
/* The bits of a (compute precision). */
uint64_t ubench_a UBENCH_HOST_SET;
#endif

int main(void)
{
    unsigned long n = ubench_setup();
#ifdef UBENCH_HOST_DATA
    comp_t a = comp_of_bits(ubench_a);
#else
    comp_t a = random_comp();
    fill_random(x, n);
    fill_random(y_init, n);
    for (unsigned long i = 0; i < n; i++)
        ref[i] = to_store(to_comp(y_init[i]) + to_comp(x[i]) * a);
#endif

    VMCS(vs1, comp_bits(a));
    for (unsigned long r = 0; ubench_run(r); r++) {
        store_t *out = ubench_output(y, y_init, r, n);
        unsigned long vl;
        for (unsigned long i = 0; i < n; i += vl) {
            vl = ubench_strip(n - i);
            VMCA(va0, &x[i]);
            VMCA(va1, &out[i]);
            VF(axpy_block);
        }
        ubench_check(out, ref, n);
    }
    return ubench_finish();
}
