/* What every kernel program of kernels/ shares: its compiler options and the host
 * side's helpers (inputs, the launch with its self-test, the check against the
 * reference). Included first, as "program.h", by each kernels/<name>.c. */
#ifndef KERNEL_PROGRAM_H
#define KERNEL_PROGRAM_H

/* No fused multiply-adds: the paper's SAUs have single-precision add, multiply, divide
 * and convert but no FMA (seed 000, section 3.1, "FG-SIMT Lanes"), and a host
 * reference that performs a kernel's operations in the same order is bit-exact only
 * if neither side is contracted. Before any include, so that inline functions of the
 * headers get the same options and still inline. */
#pragma GCC optimize("fp-contract=off")

#include <simt.h>

#ifdef SIMT_SELFTEST_SKIP_LAST
#define SELFTEST_SKIP 1u
#else
#define SELFTEST_SKIP 0u
#endif

/* Every launch of a program goes through here: threads 0..n-1, or 0..n-2 under
 * -DSIMT_SELFTEST_SKIP_LAST, which the program's check must then catch. */
static inline void launch(unsigned n, void (*kernel)(void))
{
  launch_kernel(n - SELFTEST_SKIP, kernel);
}

/* Inputs: Numerical Recipes' LCG, its 24 high bits. */
static unsigned lcg_state = 12345;

static inline unsigned lcg(void)
{
  lcg_state = lcg_state * 1664525u + 1013904223u;
  return lcg_state >> 8;
}

/* Fills `bytes` bytes with 0xa5, so that an output a kernel fails to write differs
 * from its reference. */
static inline void poison(void *p, unsigned bytes)
{
  unsigned char *b = p;
  for (unsigned i = 0; i < bytes; i++)
    b[i] = 0xa5;
}

/* 0 when the n elements of `size` bytes at `got` and `want` are equal bit for bit
 * (floats too), else 1 + the index of the first that differs, at most 255: the
 * program's exit code. Word by word up to the first difference where both arrays
 * allow it. */
static inline int mismatch(const void *got, const void *want, unsigned n, unsigned size)
{
  typedef unsigned __attribute__((may_alias)) word;
  const unsigned char *g = got, *w = want;
  unsigned bytes = n * size, i = 0;
  if ((bytes | (unsigned)(__UINTPTR_TYPE__)g | (unsigned)(__UINTPTR_TYPE__)w) % 4 == 0)
    while (i < bytes && *(const word *)(g + i) == *(const word *)(w + i))
      i += 4;
  for (; i < bytes; i++)
    if (g[i] != w[i])
      return i / size < 254 ? 1 + (int)(i / size) : 255;
  return 0;
}

/* sqrtf as the one instruction fsqrt.s (correctly rounded, as x86's sqrtss). GCC 12
 * keeps errno for __builtin_sqrtf under -fmath-errno, the toolchain's default, which
 * neither `#pragma GCC optimize` nor the optimize attribute turns off: a compare
 * bracketed by frflags/fsflags and a call of sqrtf for negative inputs, which kernels
 * cannot have. */
static inline float fsqrt(float x)
{
#ifdef __riscv
  float r;
  __asm__("fsqrt.s %0, %1" : "=f"(r) : "f"(x));
  return r;
#else
  return __builtin_sqrtf(x);
#endif
}

#endif
