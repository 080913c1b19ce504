/* A kernel for the lockstep checker's tests: every thread adds to one counter and to
 * one of four bins with amoadd.w (AMOs of one warp instruction colliding on an
 * address), keeps the old values, and does some float arithmetic (f-register writes). */
#include <simt.h>

#define N 40 /* a partial last warp at warp sizes 16 and 32 */
volatile unsigned counter, bins[4];
unsigned olds[N], binolds[N];
float fout[N];

void kernel(void)
{
  unsigned t = tidx();
  olds[t] = __atomic_fetch_add(&counter, t + 1, __ATOMIC_RELAXED);
  binolds[t] = __atomic_fetch_add(&bins[t % 4], 1, __ATOMIC_RELAXED);
  float x = (float)t * 0.5f;
  fout[t] = x * x + 1.0f;
}

int main(void)
{
  launch_kernel(N, kernel);
  if (counter != N * (N + 1) / 2)
    return 1;
  for (unsigned b = 0; b < 4; b++)
    if (bins[b] != N / 4)
      return 2;
  for (unsigned t = 0; t < N; t++)
    if (fout[t] != (float)t * 0.5f * ((float)t * 0.5f) + 1.0f)
      return 3;
  return 0;
}
