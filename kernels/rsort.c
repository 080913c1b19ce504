/* rsort: an LSD radix sort of 4,096 32-bit keys, 4 bits a pass, 8 passes (seed 000,
 * section 5: "During each iteration, individual threads build local histograms of the
 * data, and then a parallel reduction is performed to determine the mapping to a
 * global destination array. Atomic memory operations are necessary to build the global
 * histogram structure"; Table 2, custom). A pass is three launches:
 * - `rs_count`, 256 threads, a contiguous chunk of 16 keys each: the thread's
 *   histogram of the digit, then amoadd.w of its non-zero counts into the global one;
 * - `rs_scan`, 16 threads (a partial warp), one per digit: the digit's first place
 *   (the global histogram's sum below it) plus the counts of the threads before, turning
 *   each thread's count into its first place for the digit;
 * - `rs_scatter`, 256 threads: each moves its chunk, in order, to those places (stable,
 *   as an LSD sort needs).
 * The host clears the histograms between passes. */
#include "program.h"

#define KEYS 4096
#define THREADS 256
#define CHUNK (KEYS / THREADS)
#define DIGITS 16
#define PASSES 8

static unsigned keys_a[KEYS], keys_b[KEYS], ref[KEYS], merge_tmp[KEYS];
static unsigned local[THREADS][DIGITS], global[DIGITS];
static unsigned *src, *dst, shift;

static void rs_count(void)
{
  unsigned t = tidx();
  unsigned *h = local[t];
  const unsigned *k = src + t * CHUNK;
  for (unsigned j = 0; j < CHUNK; j++)
    h[(k[j] >> shift) % DIGITS]++;
  for (unsigned d = 0; d < DIGITS; d++)
    if (h[d] != 0)
      __atomic_fetch_add(&global[d], h[d], __ATOMIC_RELAXED);
}

static void rs_scan(void)
{
  unsigned d = tidx(), place = 0;
  for (unsigned e = 0; e < d; e++)
    place += global[e];
  for (unsigned t = 0; t < THREADS; t++) {
    unsigned n = local[t][d];
    local[t][d] = place;
    place += n;
  }
}

static void rs_scatter(void)
{
  unsigned t = tidx();
  unsigned *h = local[t];
  const unsigned *k = src + t * CHUNK;
  for (unsigned j = 0; j < CHUNK; j++) {
    unsigned key = k[j];
    dst[h[(key >> shift) % DIGITS]++] = key;
  }
}

/* The reference: a bottom-up merge sort of `ref`; returns where the sorted keys are. */
static const unsigned *reference(void)
{
  unsigned *from = ref, *to = merge_tmp;
  for (unsigned width = 1; width < KEYS; width *= 2) {
    for (unsigned lo = 0; lo < KEYS; lo += 2 * width) {
      unsigned mid = lo + width, hi = lo + 2 * width, i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        to[o++] = from[j] < from[i] ? from[j++] : from[i++];
      while (i < mid)
        to[o++] = from[i++];
      while (j < hi)
        to[o++] = from[j++];
    }
    unsigned *swap = from;
    from = to;
    to = swap;
  }
  return from;
}

int main(void)
{
  for (unsigned i = 0; i < KEYS; i++)
    keys_a[i] = ref[i] = lcg() << 8 ^ lcg();
  src = keys_a;
  dst = keys_b;
  for (shift = 0; shift < 4 * PASSES; shift += 4) {
    for (unsigned t = 0; t < THREADS; t++)
      for (unsigned d = 0; d < DIGITS; d++)
        local[t][d] = 0;
    for (unsigned d = 0; d < DIGITS; d++)
      global[d] = 0;
    launch(THREADS, rs_count);
    launch(DIGITS, rs_scan);
    launch(THREADS, rs_scatter);
    unsigned *swap = src;
    src = dst;
    dst = swap;
  }
  return mismatch(src, reference(), KEYS, 4);
}
