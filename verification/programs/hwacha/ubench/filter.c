/* {s,d,hs,sd}filter and, built with -DMASK, mask-{s,d,hs,sd}filter (thesis Table 9.1,
   Figure 9.2c): a 3x3 Gaussian blur of the image's interior, each output the nine
   products src * m summed left to right (multiply, then add, in the compute precision).
   The masked version computes only the points whose mask entry is non-zero; the others,
   like the border, keep dst's old values. Vectorised along x: one vector-fetch block
   (filter.S) per strip and pair of rows, as the kernel's work items take two rows. */
#ifdef MASK
#define UBENCH_NAME "mask-" PREC_NAME "filter"
#else
#define UBENCH_NAME PREC_NAME "filter"
#endif
#include "ubench.h"

/* Twelve source vectors (four rows by three columns), the sum, a product, and the
   mask with its predicate. The masked version keeps 64-bit registers: its mask
   (register 14) takes an integer compare, and 64-bit registers come first. */
#ifdef MASK
const uint64_t ubench_vcfg = VCFG(15, 2);
#else
const uint64_t ubench_vcfg = VCFG_DATA(14, 1);
#endif

/* Two pairs of interior rows. */
#define H 6
/* Interior width for up to 8 lanes: maxvl = 1152 there. */
#define CAPACITY 1740
#define MAX_W (CAPACITY + 2)
const uint64_t ubench_capacity = CAPACITY;
static store_t src[H * MAX_W] UBENCH_ARRAY(src),
    dst[UBENCH_COPIES * H * MAX_W] UBENCH_ARRAY(dst),
    dst_init[H * MAX_W] UBENCH_ARRAY(dst_init), ref[H * MAX_W] UBENCH_ARRAY(ref);
#ifdef MASK
static int16_t mask[H * MAX_W] UBENCH_ARRAY(mask);
#endif
#ifdef UBENCH_HOST_DATA
/* The bits of the nine weights (compute precision), row by row. */
uint64_t ubench_weights[9] UBENCH_HOST_SET;
#endif

/* The normalised Gaussian of standard deviation 1: corners, edges, centre. */
static const double gauss[9] = {
    0.0751136079541115, 0.1238414178400460, 0.0751136079541115,
    0.1238414178400460, 0.2041799555716548, 0.1238414178400460,
    0.0751136079541115, 0.1238414178400460, 0.0751136079541115,
};

/* Rows y - 1 + row of src at x - 1, x and x + 1 into three address registers. */
#define SRC_ROW(row, va_left, va_mid, va_right)                                         \
    do {                                                                                \
        const store_t *p = &src[x + (y - 1 + (row)) * w];                               \
        VMCA(va_left, p - 1);                                                           \
        VMCA(va_mid, p);                                                                \
        VMCA(va_right, p + 1);                                                          \
    } while (0)

int main(void)
{
    unsigned long w = ubench_setup() + 2;
    comp_t m[9];
#ifdef UBENCH_HOST_DATA
    for (int k = 0; k < 9; k++)
        m[k] = comp_of_bits(ubench_weights[k]);
#else
    for (int k = 0; k < 9; k++)
        m[k] = (comp_t)gauss[k];
    fill_random(src, w * H);
    fill_random(dst_init, w * H);
#ifdef MASK
    /* Half the points on; the others' entries are any non-zero short. */
    for (unsigned long i = 0; i < w * H; i++) {
        uint64_t r = random_u64();
        mask[i] = r & 1 ? (int16_t)(r >> 16 | 1) : 0;
    }
#endif
    ubench_copy(ref, dst_init, w * H);
    for (unsigned long y = 1; y < H - 1; y++)
        for (unsigned long x = 1; x < w - 1; x++) {
#ifdef MASK
            if (!mask[x + y * w])
                continue;
#endif
            comp_t acc = 0;
            for (int k = 0; k < 9; k++) {
                comp_t term = to_comp(src[(x - 1 + k % 3) + (y - 1 + k / 3) * w]) * m[k];
                acc = k == 0 ? term : acc + term;
            }
            ref[x + y * w] = to_store(acc);
        }
#endif

    VMCS(vs1, comp_bits(m[0]));
    VMCS(vs2, comp_bits(m[1]));
    VMCS(vs3, comp_bits(m[2]));
    VMCS(vs4, comp_bits(m[3]));
    VMCS(vs5, comp_bits(m[4]));
    VMCS(vs6, comp_bits(m[5]));
    VMCS(vs7, comp_bits(m[6]));
    VMCS(vs8, comp_bits(m[7]));
    VMCS(vs9, comp_bits(m[8]));
    for (unsigned long r = 0; ubench_run(r); r++) {
        store_t *out = ubench_output(dst, dst_init, r, w * H);
        unsigned long vl;
        for (unsigned long x = 1; x < w - 1; x += vl) {
            vl = ubench_strip(w - 1 - x);
            for (unsigned long y = 1; y < H - 1; y += 2) {
                SRC_ROW(0, va0, va1, va2);
                SRC_ROW(1, va3, va4, va5);
                SRC_ROW(2, va6, va7, va8);
                SRC_ROW(3, va9, va10, va11);
                VMCA(va12, &out[x + y * w]);
                VMCA(va13, &out[x + (y + 1) * w]);
#ifdef MASK
                VMCA(va14, &mask[x + y * w]);
                VMCA(va15, &mask[x + (y + 1) * w]);
#endif
                VF(filter_block);
            }
        }
        ubench_check(out, ref, w * H);
    }
    return ubench_finish();
}
