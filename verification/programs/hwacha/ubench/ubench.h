/* The control-thread side shared by the Hwacha microbenchmarks (thesis Table 9.1): the
   control-thread instructions as inline assembly, the host-set list of runs (one
   vector-length cap each), strip mining, deterministic data, and the bit-exact check
   against the scalar reference that sets the exit code.

   A benchmark defines UBENCH_NAME, ubench_vcfg (its vsetcfg value) and ubench_capacity
   (the problem size its arrays hold) and includes this header once, in its one C file.
   Exit codes: 0 when every run matched the reference; 1 + i when output element i of
   some run differs (the message names the run's cap and both values);
   UBENCH_SETUP_ERROR when the run list or the unit misbehaves.

   Host-data mode (-DUBENCH_HOST_DATA): the host writes the inputs, the problem size it
   prepared them for (ubench_host_size) and every run's output array with its initial
   values into the image before start; the program runs the kernels only (no data, no
   scalar reference, no copy, no check), each run into its own copy of the output
   (UBENCH_COPIES of them), and the host checks every copy in memory afterwards against
   its own model of the benchmark. The host finds the arrays by their symbols,
   ubench_<array> (UBENCH_ARRAY). */
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
/* n data registers of the compute precision's width (thesis 7.1: 32- and 16-bit
   registers are numbered after the 64-bit ones) and vp predicate registers:
   single-precision arithmetic (s, hs) in 32-bit registers and half-precision (h) in
   16-bit ones, which a mixed-precision unit packs two and four to a 64-bit slot for
   longer vectors; the rest in 64-bit ones. */
#if COMP_BYTES == 4 && !defined(PREC_INTEGER)
#define VCFG_DATA(n, vp) ((uint64_t)(vp) << 9 | (uint64_t)(n) << 14)
#elif COMP_BYTES == 2
#define VCFG_DATA(n, vp) ((uint64_t)(vp) << 9 | (uint64_t)(n) << 23)
#else
#define VCFG_DATA(n, vp) VCFG(n, vp)
#endif
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

/* A benchmark's array `name`, symbol ubench_<name> for the host: every element is
   written (by the program, or by the host in host-data mode) before it is read, so the
   arrays skip crt0's clearing of .bss (which would cost more cycles than the vector
   work). */
#define UBENCH_ARRAY(name) __asm__("ubench_" #name) __attribute__((section(".noinit")))

/* Set by the host before the program starts (through the ELF symbols): the runs' vector
   length caps, one full run of the kernel each; no runs means one run without a cap.
   In .data, because crt0 clears .bss. */
#define UBENCH_MAX_RUNS 16384
#define UBENCH_HOST_SET __attribute__((section(".data.ubench")))
uint32_t ubench_caps[UBENCH_MAX_RUNS] UBENCH_HOST_SET;
uint64_t ubench_runs UBENCH_HOST_SET;

#ifdef UBENCH_HOST_DATA
/* Copies of the output array, one per run, so each run's output stays for the host
   (which reads the count from ubench_copies). */
#define UBENCH_COPIES 4
const uint64_t ubench_copies = UBENCH_COPIES;
/* The problem size the host prepared the data for. */
uint64_t ubench_host_size UBENCH_HOST_SET;
#else
#define UBENCH_COPIES 1
#endif

/* Read by the host afterwards: the unit's maximum vector length, the problem size and
   how many runs matched the reference. */
uint64_t ubench_maxvl, ubench_size, ubench_done;

extern const uint64_t ubench_vcfg, ubench_capacity;

/* The current run's cap. */
static unsigned long ubench_cap;

static void ubench_setup_error(const char *what, unsigned long value)
{
    printf("%s: %s (%lu)\n", UBENCH_NAME, what, value);
    exit(UBENCH_SETUP_ERROR);
}

/* Checks the run list, configures the unit and learns maxvl, and returns the problem
   size: past maxvl and not a multiple of it, so that both full and tail strips run
   (capped at the arrays' ubench_capacity, which covers machines of up to 8 lanes). */
static unsigned long ubench_setup(void)
{
    if (ubench_runs > UBENCH_MAX_RUNS)
        ubench_setup_error("more runs than the list holds", ubench_runs);
#ifdef UBENCH_HOST_DATA
    if (ubench_runs > *(volatile const uint64_t *)&ubench_copies)
        ubench_setup_error("more runs than output copies", ubench_runs);
#endif
    for (unsigned long r = 0; r < ubench_runs; r++)
        if (ubench_caps[r] == 0)
            ubench_setup_error("vector length cap 0 in run", r);
    /* Constants read from memory: the host reads them too, and the linker drops
       sections nothing refers to (picolibc links with --gc-sections). */
    VSETCFG(*(volatile const uint64_t *)&ubench_vcfg);
    unsigned long capacity = *(volatile const uint64_t *)&ubench_capacity;
    ubench_maxvl = vsetvl(~0ul);
    unsigned long n = ubench_maxvl + ubench_maxvl / 2 + 3;
    ubench_size = n < capacity ? n : capacity;
#ifdef UBENCH_HOST_DATA
    if (ubench_host_size != ubench_size)
        ubench_setup_error("the host's data is for another size", ubench_host_size);
#endif
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

#ifdef UBENCH_HOST_DATA
/* Run r's output array of `len` elements at `out`: the run's own copy, which the host
   initialised. */
static store_t *ubench_output(store_t *out, const store_t *init, unsigned long r,
                              unsigned long len)
{
    (void)init;
    return out + r * len;
}

/* The host checks the run's output. */
static void ubench_check(const store_t *got, const store_t *want, unsigned long n)
{
    (void)got, (void)want, (void)n;
    ubench_done++;
}

#define UBENCH_VERDICT "left in memory for the host's check"
#else
/* Copies n elements: a loop of whole elements, where picolibc's memcpy (built for size)
   moves one byte at a time, which cost the benchmarks more cycles than their vector
   work. Kept a loop: GCC would otherwise turn it back into a memcpy call. */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void
ubench_copy(store_t *dst, const store_t *src, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        dst[i] = src[i];
}

/* Run r's output array of `len` elements at `out`, set to its initial values `init`. */
static store_t *ubench_output(store_t *out, const store_t *init, unsigned long r,
                              unsigned long len)
{
    (void)r;
    ubench_copy(out, init, len);
    return out;
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

#define UBENCH_VERDICT "match the scalar reference"
#endif

/* Reports the runs, after every store of theirs reached memory. */
static int ubench_finish(void)
{
    ubench_fence();
    printf("%s: maxvl %lu, size %lu: %lu run(s) " UBENCH_VERDICT "\n", UBENCH_NAME,
           (unsigned long)ubench_maxvl, (unsigned long)ubench_size,
           (unsigned long)ubench_done);
    return 0;
}

#ifndef UBENCH_HOST_DATA
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

#endif

#endif /* UBENCH_H */
