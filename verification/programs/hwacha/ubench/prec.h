/* The precision of a microbenchmark build (thesis Table 9.1 prefixes), chosen with
   exactly one of -DPREC_S, -DPREC_D, -DPREC_H (storage and arithmetic in single, double
   or half: the h variants the mixed-precision extension adds, thesis Figure 9.8),
   -DPREC_HS (half storage, single arithmetic) or -DPREC_SD (single storage, double
   arithmetic), or the integer forms -DPREC_I (64-bit integers, vmul + vadd: for vector
   units without floating point). The h builds run in host-data mode only: C has no
   half arithmetic here, and the host's model (checked against SoftFloat) is their
   reference. Gives the C side its storage and compute types with
   their conversions, and the worker side (.S files) the matching instructions. */
#ifndef UBENCH_PREC_H
#define UBENCH_PREC_H

#if defined(PREC_S) + defined(PREC_D) + defined(PREC_H) + defined(PREC_HS) + defined(PREC_SD) + defined(PREC_I) != 1
#error "define exactly one of PREC_S, PREC_D, PREC_H, PREC_HS, PREC_SD, PREC_I"
#endif
#if defined(PREC_H) && !defined(UBENCH_HOST_DATA) && !defined(__ASSEMBLER__)
#error "PREC_H builds are host-data builds (UBENCH_HOST_DATA): no C half arithmetic"
#endif

#if defined(PREC_S)
#define PREC_NAME "s"
#define STORE_BYTES 4
#define COMP_BYTES 4
#elif defined(PREC_D)
#define PREC_NAME "d"
#define STORE_BYTES 8
#define COMP_BYTES 8
#elif defined(PREC_H)
#define PREC_NAME "h"
#define STORE_BYTES 2
#define COMP_BYTES 2
#elif defined(PREC_I)
#define PREC_NAME "i"
#define STORE_BYTES 8
#define COMP_BYTES 8
#define PREC_INTEGER 1
#elif defined(PREC_HS)
#define PREC_NAME "hs"
#define STORE_BYTES 2
#define COMP_BYTES 4
#else
#define PREC_NAME "sd"
#define STORE_BYTES 4
#define COMP_BYTES 8
#endif

#ifdef __ASSEMBLER__

/* Storage-width memory accesses: unit-stride vector load/store and scalar load from an
   address in a shared register. */
#if STORE_BYTES == 2
#define VLOAD vlh
#define VSTORE vsh
#define SLOAD vlsh
#elif STORE_BYTES == 4
#define VLOAD vlw
#define VSTORE vsw
#define SLOAD vlsw
#else
#define VLOAD vld
#define VSTORE vsd
#define SLOAD vlsd
#endif

/* Arithmetic in the compute precision. */
#if defined(PREC_INTEGER)
#define FMUL vmul
#define FADD vadd
#elif COMP_BYTES == 2
#define FMUL vfmul.h
#define FADD vfadd.h
#elif COMP_BYTES == 4
#define FMUL vfmul.s
#define FADD vfadd.s
#else
#define FMUL vfmul.d
#define FADD vfadd.d
#endif

/* Conversion of register r between storage and compute precision, in place, under the
   predicate prefix p (empty for none); nothing when the two precisions are the same. */
#if defined(PREC_HS)
#define TO_COMP(p, r) p vfcvt.s.h r, r
#define TO_STORE(p, r) p vfcvt.h.s r, r
#elif defined(PREC_SD)
#define TO_COMP(p, r) p vfcvt.d.s r, r
#define TO_STORE(p, r) p vfcvt.s.d r, r
#else
#define TO_COMP(p, r)
#define TO_STORE(p, r)
#endif

#else /* C */

#include <stdint.h>
#include <string.h>
#include "half.h"

#if defined(PREC_INTEGER)
typedef int64_t store_t;
#elif STORE_BYTES == 2
typedef uint16_t store_t;
#elif STORE_BYTES == 4
typedef float store_t;
#else
typedef double store_t;
#endif

#if defined(PREC_INTEGER)
typedef int64_t comp_t;
#elif COMP_BYTES == 2
/* A half's bits: only moved, never computed with (host-data mode). */
typedef uint16_t comp_t;
#elif COMP_BYTES == 4
typedef float comp_t;
#else
typedef double comp_t;
#endif

/* Exponent and mantissa widths of the storage and compute formats. */
#define FMT_EBITS(bytes) ((bytes) == 2 ? 5 : (bytes) == 4 ? 8 : 11)
#define FMT_MBITS(bytes) ((bytes) == 2 ? 10 : (bytes) == 4 ? 23 : 52)

/* Storage to compute precision (exact) and back (rounded to nearest even, as the
   worker's conversions with the default rounding mode). */
static inline comp_t to_comp(store_t x)
{
#if defined(PREC_HS)
    return half_to_float(x);
#else
    return (comp_t)x;
#endif
}

static inline store_t to_store(comp_t x)
{
#if defined(PREC_HS)
    return float_to_half(x);
#else
    return (store_t)x;
#endif
}

/* The bits of a value, zero-extended, as the worker's registers and vmcs take them. */
static inline uint64_t store_bits(store_t x)
{
    uint64_t b = 0;
    memcpy(&b, &x, sizeof x);
    return b;
}

static inline uint64_t comp_bits(comp_t x)
{
    uint64_t b = 0;
    memcpy(&b, &x, sizeof x);
    return b;
}

static inline store_t store_of_bits(uint64_t b)
{
    store_t x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static inline comp_t comp_of_bits(uint64_t b)
{
    comp_t x;
    memcpy(&x, &b, sizeof x);
    return x;
}

#endif /* __ASSEMBLER__ */
#endif /* UBENCH_PREC_H */
