/* Kernels shaped for the affine mechanisms (seed 000, section 2 and Figure 1(e)):
 * affine addressing from tidx, shared (gp-relative) parameter loads, a uniform loop,
 * affine loads of bytes, halves and unaligned words, and an affine register rewritten
 * under divergence that the other fragment then reads (lazy expansion). The host checks
 * every output. */
#include <simt.h>

#define N 256
#define LINE __attribute__((aligned(32))) /* the wide-request counts assume it */
int y[N + 8] LINE;
int a_param = 3, threshold = 1000, ymax = 77, rounds = 5;
unsigned char bytes[N + 32] LINE;
short halves[N + 16] LINE;
int sums[N], mixed[N], lazy[N];

void saxpy(void) /* Figure 1(e) */
{
  unsigned i = tidx();
  int v = y[i] * a_param;
  y[i] = v;
  if (v < threshold)
    y[i] = ymax;
}

void uniform_loop(void)
{
  unsigned i = tidx();
  int s = 0;
  for (int j = 0; j < rounds; j++) /* uniform trip count */
    s += y[(i + j) % N] ^ j;
  sums[i] = s;
}

void affine_loads(void)
{
  unsigned i = tidx();
  mixed[i] = bytes[i + 3] + halves[i + 1] + y[i + 1];
}

void lazy_expansion(void)
{
  unsigned i = tidx();
  unsigned k = i * 4 + 8;
  unsigned m = i * 8;
  if (i & 1)
    k = i * 12; /* written while diverged */
  else
    m = m + k;  /* the other fragment reads k's old value */
  lazy[i] = k + m;
}

int main(void)
{
  for (int i = 0; i < N + 8; i++)
    y[i] = i * 37 - 500;
  for (int i = 0; i < N + 32; i++)
    bytes[i] = (unsigned char)(i * 7);
  for (int i = 0; i < N + 16; i++)
    halves[i] = (short)(i * -301);
  int ref[N + 8];
  for (int i = 0; i < N + 8; i++) {
    int v = y[i] * a_param;
    ref[i] = i < N ? (v < threshold ? ymax : v) : y[i];
  }
  launch_kernel(N, saxpy);
  for (int i = 0; i < N + 8; i++)
    if (y[i] != ref[i])
      return 1;
  launch_kernel(N, uniform_loop);
  for (int i = 0; i < N; i++) {
    int s = 0;
    for (int j = 0; j < rounds; j++)
      s += y[(i + j) % N] ^ j;
    if (sums[i] != s)
      return 2;
  }
  launch_kernel(N - 8, affine_loads); /* a partial last warp */
  for (int i = 0; i < N - 8; i++)
    if (mixed[i] != bytes[i + 3] + halves[i + 1] + y[i + 1])
      return 3;
  launch_kernel(N, lazy_expansion);
  for (unsigned i = 0; i < N; i++) {
    unsigned k = i & 1 ? i * 12 : i * 4 + 8, m = i & 1 ? i * 8 : i * 8 + i * 4 + 8;
    if (lazy[i] != (int)(k + m))
      return 4;
  }
  return 0;
}
