/* Control flow that splits warps: if/else on thread parity, loops with per-thread trip
 * counts (some threads skip them), an early return, nested divergence and a uniform
 * loop around it all. The host checks every output against a scalar computation. */
#include <simt.h>

#define N 200 /* not a multiple of 32: a partial last warp */
unsigned out[N], trips[N];

static unsigned work(unsigned t)
{
  unsigned acc = t;
  for (unsigned r = 0; r < 3; r++) {          /* uniform */
    if (t & 1)
      acc = acc * 3 + r;                       /* odd threads */
    else
      acc ^= acc >> 1;                         /* even threads */
    for (unsigned i = 0; i < (t + r) % 7; i++) /* per-thread trip count */
      acc += i * t;
    if ((acc & 3) == 0)
      acc = ~acc;                              /* data-dependent */
  }
  return acc;
}

void kernel(void)
{
  unsigned t = tidx();
  if (t % 5 == 4) {                            /* an early return */
    trips[t] = 1;
    return;
  }
  out[t] = work(t);
  trips[t] = 2;
}

int main(void)
{
  launch_kernel(N, kernel);
  for (unsigned t = 0; t < N; t++) {
    if (trips[t] != (t % 5 == 4 ? 1u : 2u))
      return 1;
    if (t % 5 != 4 && out[t] != work(t))
      return 2;
  }
  return 0;
}
