/* The control-thread side shared by the Hwacha microbenchmarks (thesis Table 9.1): the
   control-thread instructions as inline assembly, the host-set list of runs (one
   vector-length cap each), strip mining, deterministic data, and the bit-exact check
   against the scalar reference that sets the exit code.

   A benchmark defines UBENCH_NAME and ubench_vcfg (its vsetcfg value) and includes this
   header once, in its one C file. Exit codes: 0 when every run matched the reference;
   1 + i when output element i of some run differs (the message names the run's cap and
   both values); UBENCH_SETUP_ERROR when the run list or the unit misbehaves. */
#ifndef UBENCH_H
#define UBENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "prec.h"

#ifndef UBENCH_NAME
#error "define UBENCH_NAME (the benchmark's name) before including ubench.h"
#endif

#define UBENCH_SETUP_ERROR 0x7fffffff

/* Control thread (thesis Table 7.1). Register operands are named literally (vs3, va1);
   `vf` assembles to auipc + vf through t0. */
#define VCFG(vv64, vp) ((uint64_t)(vv64) | (uint64_t)(vp) << 9)
#define VSETCFG(cfg) asm volatile("vsetcfg %0" : : "r"(cfg))
#define VMCS(vs, value) asm volatile("vmcs " #vs ", %0" : : "r"((uint64_t)(value)))
#define VMCA(va, addr) asm volatile("vmca " #va ", %0" : : "r"(addr))
/* The block reads and writes memory. */
#define VF(block) asm volatile("vf " #block : : : "t0", "memory")

static inline unsigned long vsetvl(unsigned long n)
{
    unsigned long vl;
    asm volatile("vsetvl %0, %1" : "=r"(vl) : "r"(n));
    return vl;
}

/* The control thread reads what the worker stored only after a fence, as on the
   decoupled machine. */
static inline void ubench_fence(void)
{
    asm volatile("fence" : : : "memory");
}

/* The benchmarks' arrays: every element is written before it is read, so they skip
   crt0's clearing of .bss (which would cost more cycles than the vector work). */
#define UBENCH_ARRAY __attribute__((section(".noinit")))

/* Set by the host before the program starts (through the ELF symbols): the runs' vector
   length caps, one full run of the kernel each; no runs means one run without a cap.
   In .data, because crt0 clears .bss. */
#define UBENCH_MAX_RUNS 16384
#define UBENCH_HOST_SET __attribute__((section(".data.ubench")))
uint32_t ubench_caps[UBENCH_MAX_RUNS] UBENCH_HOST_SET;
uint64_t ubench_runs UBENCH_HOST_SET;

/* Read by the host afterwards: the unit's maximum vector length, the problem size and
   how many runs matched the reference. */
uint64_t ubench_maxvl, ubench_size, ubench_done;

extern const uint64_t ubench_vcfg;

/* The current run's cap. */
static unsigned long ubench_cap;

static void ubench_setup_error(const char *what, unsigned long value)
{
    printf("%s: %s (%lu)\n", UBENCH_NAME, what, value);
    exit(UBENCH_SETUP_ERROR);
}

/* Checks the run list, configures the unit and learns maxvl, and returns the problem
   size: past maxvl and not a multiple of it, so that both full and tail strips run
   (capped at the arrays' `capacity`, which covers machines of up to 8 lanes). */
static unsigned long ubench_setup(unsigned long capacity)
{
    if (ubench_runs > UBENCH_MAX_RUNS)
        ubench_setup_error("more runs than the list holds", ubench_runs);
    for (unsigned long r = 0; r < ubench_runs; r++)
        if (ubench_caps[r] == 0)
            ubench_setup_error("vector length cap 0 in run", r);
    /* Read from memory: the host reads the constant too, and the linker drops sections
       nothing refers to (picolibc links with --gc-sections). */
    VSETCFG(*(volatile const uint64_t *)&ubench_vcfg);
    ubench_maxvl = vsetvl(~0ul);
    unsigned long n = ubench_maxvl + ubench_maxvl / 2 + 3;
    ubench_size = n < capacity ? n : capacity;
    return ubench_size;
}

/* Starts run r (false past the last one). */
static int ubench_run(unsigned long r)
{
    if (ubench_runs == 0) {
        ubench_cap = ubench_maxvl;
        return r == 0;
    }
    if (r >= ubench_runs)
        return 0;
    ubench_cap = ubench_caps[r];
    return 1;
}

/* Sets the vector length for the next strip of `remaining` elements: the request is
   capped by the run's cap, and vsetvl must grant min(request, maxvl). */
static unsigned long ubench_strip(unsigned long remaining)
{
    unsigned long want = remaining < ubench_cap ? remaining : ubench_cap;
    unsigned long expect = want < ubench_maxvl ? want : ubench_maxvl;
#ifdef UBENCH_DROP_LAST
    /* A deliberate bug for the negative test: the last element is never computed. */
    if (expect == remaining) {
        vsetvl(expect - 1);
        return expect;
    }
#endif
    unsigned long vl = vsetvl(want);
    if (vl != expect)
        ubench_setup_error("vsetvl granted a wrong vector length", vl);
    return vl;
}

/* Copies n elements: a loop of whole elements, where picolibc's memcpy (built for size)
   moves one byte at a time, which cost the benchmarks more cycles than their vector
   work. Kept a loop: GCC would otherwise turn it back into a memcpy call. */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void
ubench_copy(store_t *dst, const store_t *src, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        dst[i] = src[i];
}

/* Compares a run's n output elements bit for bit with the reference. */
static void ubench_check(const store_t *got, const store_t *want, unsigned long n)
{
    ubench_fence();
    for (unsigned long i = 0; i < n; i++) {
        if (store_bits(got[i]) != store_bits(want[i])) {
            printf("%s: run %lu (vector length cap %lu): element %lu is %#llx, the "
                   "scalar reference %#llx\n",
                   UBENCH_NAME, (unsigned long)ubench_done, ubench_cap, i,
                   (unsigned long long)store_bits(got[i]),
                   (unsigned long long)store_bits(want[i]));
            exit(1 + (int)i);
        }
    }
    ubench_done++;
}

static int ubench_finish(void)
{
    printf("%s: maxvl %lu, size %lu: %lu run(s) match the scalar reference\n", UBENCH_NAME,
           (unsigned long)ubench_maxvl, (unsigned long)ubench_size,
           (unsigned long)ubench_done);
    return 0;
}

/* xorshift64 (Marsaglia): deterministic data, the same on every run, from shifts and
   xors alone; the control processor's multiplier and divider are iterative, and the
   data took it longer to make than the vector unit took to process. */
static uint64_t ubench_rng = 0x9e3779b97f4a7c15ull;

static uint64_t random_u64(void)
{
    uint64_t x = ubench_rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return ubench_rng = x;
}

/* Bits of a value in the format of `bytes` bytes: random sign and mantissa, exponent
   uniform over 2^-10 .. 2^3, so that values span about 1e-3 to 16 (and products and
   sums reach half precision's subnormals and rounding ties). */
static uint64_t random_fp(unsigned bytes)
{
    unsigned ebits = FMT_EBITS(bytes), mbits = FMT_MBITS(bytes);
    uint64_t r = random_u64();
    uint64_t sign = r >> 63;
    /* (r & 0xffff) * 14 >> 16: 0..13, one multiply where % would divide. */
    uint64_t exp = ((1u << (ebits - 1)) - 1) - 10 + ((r & 0xffff) * 14 >> 16);
    uint64_t man = random_u64() & ((1ull << mbits) - 1);
    return sign << (ebits + mbits) | exp << mbits | man;
}

static store_t random_store(void)
{
    return store_of_bits(random_fp(STORE_BYTES));
}

static inline comp_t random_comp(void)
{
    return comp_of_bits(random_fp(COMP_BYTES));
}

static void fill_random(store_t *p, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        p[i] = random_store();
}

#endif /* UBENCH_H */
