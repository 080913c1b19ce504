/* conv: a 1-D convolution with a 20-tap filter (seed 000, section 5: "conv is a 1D
 * spatial convolution using a 20-element kernel"; Table 2, custom). One thread an output
 * element; the tap loop is uniform (its trip count and the coefficient loads are the
 * same for every thread) and the input loads are affine: in[i + k], unit stride. */
#include "program.h"

#define N 4096
#define TAPS 20

static float in[N + TAPS - 1], coef[TAPS], out[N], ref[N];

static void conv(void)
{
  unsigned i = tidx();
  float acc = 0.0f;
  for (unsigned k = 0; k < TAPS; k++)
    acc += coef[k] * in[i + k];
  out[i] = acc;
}

int main(void)
{
  for (unsigned i = 0; i < N + TAPS - 1; i++)
    in[i] = (float)(lcg() % 256) * (1.0f / 256);
  for (unsigned k = 0; k < TAPS; k++)
    coef[k] = (float)((int)(lcg() % 512) - 256) * (1.0f / 1024);
  poison(out, sizeof out);
  launch(N, conv);
  for (unsigned i = 0; i < N; i++) {
    float acc = 0.0f;
    for (unsigned k = 0; k < TAPS; k++)
      acc += coef[k] * in[i + k];
    ref[i] = acc;
  }
  return mismatch(out, ref, N, 4);
}
