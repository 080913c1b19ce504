/* cmult: the element-wise product of two vectors of complex numbers (seed 000, Table 2,
 * "Vector-vector complex multiplication", custom). One thread an element: four
 * unit-stride affine loads, four multiplies and two adds, two affine stores; no
 * branches. */
#include "program.h"

#define N 2048

static float a_re[N], a_im[N], b_re[N], b_im[N], c_re[N], c_im[N];
static float ref_re[N], ref_im[N];

static void cmult(void)
{
  unsigned i = tidx();
  float ar = a_re[i], ai = a_im[i], br = b_re[i], bi = b_im[i];
  c_re[i] = ar * br - ai * bi;
  c_im[i] = ar * bi + ai * br;
}

/* A float in [-4, 4) with 8 fraction bits. */
static float input(void)
{
  return (float)((int)(lcg() % 2048) - 1024) * (1.0f / 256);
}

int main(void)
{
  for (unsigned i = 0; i < N; i++) {
    a_re[i] = input();
    a_im[i] = input();
    b_re[i] = input();
    b_im[i] = input();
  }
  poison(c_re, sizeof c_re);
  poison(c_im, sizeof c_im);
  launch(N, cmult);
  for (unsigned i = 0; i < N; i++) {
    ref_re[i] = a_re[i] * b_re[i] - a_im[i] * b_im[i];
    ref_im[i] = a_re[i] * b_im[i] + a_im[i] * b_re[i];
  }
  int bad = mismatch(c_re, ref_re, N, 4);
  return bad ? bad : mismatch(c_im, ref_im, N, 4);
}
