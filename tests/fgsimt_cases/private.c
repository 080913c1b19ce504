/* Private stacks (design fgsimt with avc = true, seed 002; the rule of
 * verification::fgsimt::avc::private::Stacks::violation).
 * Default: each thread stores bytes, halfwords and words to arrays on its own stack and
 * reads them back, at indices that differ between threads (a warp instruction's threads
 * on several words: several AVC transactions), with affine, uniform and generic values.
 * -DFOREIGN: thread 3 reads a local of thread 2 through a pointer thread 2 published:
 * a load access fault with the AVC. -DATOMIC: thread 3 adds atomically to its own local:
 * a store/AMO access fault with the AVC. -DSHARED: every thread reads a word of thread 2's
 * stack that a first launch published (a uniform address: with affine mechanisms a
 * shared load, which must not bypass the rule): thread 0's load faults. -DSTRIDED:
 * thread t reads word t % 8 from an address in thread 0's stack (with affine loads an
 * affine unit-stride load): thread 1's load faults. -DBAD_STACK:
 * the stacks' size is not a whole number of words: the engine refuses the command with
 * the AVC. */
#include <simt.h>

volatile unsigned out[64];
unsigned *volatile published[64];

/* A first launch: each thread publishes an address in its stack (the same addresses
 * are the next launch's stacks). */
static void publish(void)
{
  unsigned t = tidx();
  volatile unsigned mine[4];
  mine[1] = t;
  published[t] = (unsigned *)&mine[0] - 16;
  out[t] = mine[1];
}

static void kernel(void)
{
  unsigned t = tidx();
  volatile unsigned char bytes[40];
  volatile unsigned short halves[12];
  volatile unsigned words[10];
  for (unsigned i = 0; i < 40; i++)
    bytes[i] = (unsigned char)(t * 7 + i);
  for (unsigned i = 0; i < 12; i++)
    halves[i] = (unsigned short)(t * 1000 + i * 3);
  for (unsigned i = 0; i < 10; i++)
    words[i] = i & 1 ? t << 4 | i : 0x1234 + i * (t & 3);
  unsigned j = t % 10;
  bytes[j * 3 + 1] ^= 0x5a;
  halves[(t * 5) % 12] += 7;
  words[j] = words[(j + 3) % 10] + t;
  unsigned sum = 0;
  for (unsigned i = 0; i < 40; i++)
    sum = sum * 31 + bytes[(i + t) % 40];
  for (unsigned i = 0; i < 12; i++)
    sum = sum * 31 + halves[i];
  for (unsigned i = 0; i < 10; i++)
    sum = sum * 31 + words[i];
#ifdef FOREIGN
  published[t] = (unsigned *)&words[1];
  if (t == 3)
    sum += *published[2];
#endif
#ifdef SHARED
  sum += published[2][1];
#endif
#ifdef STRIDED
  sum += published[0][t % 8];
#endif
#ifdef ATOMIC
  if (t == 3)
    __atomic_fetch_add((unsigned *)&words[1], 1, __ATOMIC_RELAXED);
#endif
  out[t] = sum;
}

int main(void)
{
#ifdef BAD_STACK
  static char stacks[40 * 254] __attribute__((aligned(16)));
  __asm__ volatile(".insn r CUSTOM_0, 3, 2, x0, %0, %1"
                   :
                   : "r"(stacks + sizeof stacks), "r"(254));
#endif
#if defined(SHARED) || defined(STRIDED)
  launch_kernel(40, publish);
#endif
  launch_kernel(40, kernel);
  return 0;
}
