/* IEEE-754 binary16 (half precision) to and from binary32 in integer arithmetic, for the
   scalar references of the hs benchmarks: the C compiler has no half type here, and the
   reference must not share code with the model it checks. */
#ifndef HALF_H
#define HALF_H

#include <stdint.h>
#include <string.h>

static inline float float_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline uint32_t bits_of_float(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Exact: every half is a float (NaN becomes RISC-V's canonical NaN). */
static inline float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    if (exp == 0x1f)
        return float_of_bits(man ? 0x7fc00000 : sign | 0x7f800000);
    if (exp != 0) /* normal: rebias 15 -> 127 */
        return float_of_bits(sign | (exp + 112) << 23 | man << 13);
    if (man == 0)
        return float_of_bits(sign);
    /* Subnormal man * 2^-24: normalise so that bit 10 is the implicit one. */
    uint32_t e = 113;
    while (!(man & 0x400)) {
        man <<= 1;
        e--;
    }
    return float_of_bits(sign | e << 23 | (man & 0x3ff) << 13);
}

/* q, plus one when the dropped bits `rem` (out of 2^shift) are above half, or exactly
   half and q is odd: round to nearest, ties to even. */
static inline uint32_t round_nearest_even(uint32_t q, uint32_t rem, unsigned shift)
{
    uint32_t half = 1u << (shift - 1);
    return q + (rem > half || (rem == half && (q & 1)));
}

/* Rounded to nearest even, overflowing to infinity and underflowing through the
   subnormals to zero; NaN becomes RISC-V's canonical NaN. */
static inline uint16_t float_to_half(float f)
{
    uint32_t x = bits_of_float(f);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t exp = (x >> 23) & 0xff;
    uint32_t man = x & 0x7fffff;
    if (exp == 0xff)
        return man ? 0x7e00 : sign | 0x7c00;
    int e = (int)exp - 112; /* the half's biased exponent */
    if (e >= 31)
        return sign | 0x7c00;
    if (e >= 1) {
        /* A carry out of the mantissa moves to the next binade, or to infinity. */
        uint32_t h = (uint32_t)e << 10 | man >> 13;
        return sign | round_nearest_even(h, man & 0x1fff, 13);
    }
    /* Half subnormal (or zero): the 24-bit significand in units of 2^-24 is
       sig * 2^(e - 14); rounding up from the largest subnormal gives the smallest
       normal, whose bits follow on. Float subnormals are far below half's range. */
    if (exp == 0)
        return sign;
    uint32_t sig = man | 0x800000;
    unsigned shift = 14 - e;
    if (shift > 24)
        return sign;
    return sign | round_nearest_even(sig >> shift, sig & ((1u << shift) - 1), shift);
}

#endif /* HALF_H */
