/* rsort: an LSD radix sort of 4,096 32-bit keys, 4 bits a pass, 8 passes (seed 000,
 * section 5: "During each iteration, individual threads build local histograms of the
 * data, and then a parallel reduction is performed to determine the mapping to a
 * global destination array. Atomic memory operations are necessary to build the global
 * histogram structure"; Table 2, custom). A pass is four launches of 256 threads:
 * - `rs_count`, a contiguous chunk of 16 keys a thread: the thread's histogram of the
 *   digit, then amoadd.w of each of its 16 counts into the global histogram;
 * - `rs_block_sums`, a thread a (block of 16 threads' histograms, digit) pair, digit
 *   t % 16, block t / 16: the block's count of the digit;
 * - `rs_places`, the same pairs: the block's first place for the digit (the global
 *   histogram's counts of the digits below it plus the blocks before, summed over
 *   uniform loops with masks), then each thread's count in the block turned into that
 *   thread's first place;
 * - `rs_scatter`, a thread a chunk again: its keys, in order, to their places (stable, as
 *   an LSD sort needs).
 * The host clears the histograms between passes. */
#include "program.h"

#define KEYS 4096
#define THREADS 256
#define CHUNK (KEYS / THREADS)
#define DIGITS 16
#define BLOCK 16
#define PASSES 8

static unsigned keys_a[KEYS], keys_b[KEYS], ref[KEYS], merge_tmp[KEYS];
static unsigned local[THREADS][DIGITS], global[DIGITS], block_sum[THREADS / BLOCK][DIGITS];
static unsigned *src, *dst, shift;

static void rs_count(void)
{
  unsigned t = tidx();
  unsigned *h = local[t];
  const unsigned *k = src + t * CHUNK;
  for (unsigned j = 0; j < CHUNK; j++)
    h[(k[j] >> shift) % DIGITS]++;
  for (unsigned d = 0; d < DIGITS; d++)
    __atomic_fetch_add(&global[d], h[d], __ATOMIC_RELAXED);
}

static void rs_block_sums(void)
{
  unsigned t = tidx(), d = t % DIGITS, b = t / DIGITS, sum = 0;
  for (unsigned j = 0; j < BLOCK; j++)
    sum += local[b * BLOCK + j][d];
  block_sum[b][d] = sum;
}

static void rs_places(void)
{
  unsigned t = tidx(), d = t % DIGITS, b = t / DIGITS, place = 0;
  for (unsigned e = 0; e < DIGITS; e++)
    place += global[e] & -(unsigned)(e < d);
  for (unsigned c = 0; c < THREADS / BLOCK; c++)
    place += block_sum[c][d] & -(unsigned)(c < b);
  for (unsigned j = 0; j < BLOCK; j++) {
    unsigned n = local[b * BLOCK + j][d];
    local[b * BLOCK + j][d] = place;
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
    launch(THREADS, rs_block_sums);
    launch(THREADS, rs_places);
    launch(THREADS, rs_scatter);
    unsigned *swap = src;
    src = dst;
    dst = swap;
  }
  return mismatch(src, reference(), KEYS, 4);
}
