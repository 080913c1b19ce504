/* gaussian: Rodinia gaussian's Fan1 and Fan2 kernels (seed 004, Table 2, "GE"):
 * forward elimination of A x = b, A 40 x 40, single precision, without pivoting (A is
 * diagonally dominant). For each column t, `fan1` (a thread a row below t) computes the
 * multipliers m[i][t] = a[i][t] / a[t][t], and `fan2` (a thread an element of the rows
 * below t from column t on) updates a[i][j] -= m[i][t] * a[t][j], the threads of
 * column t also b[i] -= m[i][t] * b[t] (Rodinia's `yidx == 0` branch). Rodinia launches
 * rounded-up grids with bounds checks; here each launch has exactly its threads, so
 * that the self-test's missing thread is a missing result. 78 launches of 39..1 and
 * 1,560..2 threads; the reference: the same operations, row by row. */
#include "../program.h"

#define N 40

static float a[N][N], b[N], m[N][N];
static float ref_a[N][N], ref_b[N], ref_m[N][N];
static unsigned t;

static void fan1(void)
{
  unsigned i = t + 1 + tidx();
  m[i][t] = a[i][t] / a[t][t];
}

static void fan2(void)
{
  unsigned x = tidx() / (N - t), y = tidx() % (N - t);
  unsigned i = t + 1 + x, j = t + y;
  a[i][j] -= m[i][t] * a[t][j];
  if (y == 0)
    b[i] -= m[i][t] * b[t];
}

int main(void)
{
  for (unsigned i = 0; i < N; i++) {
    for (unsigned j = 0; j < N; j++)
      a[i][j] = (float)((int)(lcg() % 2001) - 1000) * 0.001f;
    a[i][i] += (float)N;
    b[i] = (float)(lcg() % 1000) * 0.01f;
  }
  for (unsigned i = 0; i < N; i++) {
    for (unsigned j = 0; j < N; j++)
      ref_a[i][j] = a[i][j];
    ref_b[i] = b[i];
  }
  poison(m, sizeof m);
  poison(ref_m, sizeof ref_m);
  for (t = 0; t < N - 1; t++) {
    launch(N - 1 - t, fan1);
    launch((N - 1 - t) * (N - t), fan2);
  }
  for (unsigned k = 0; k < N - 1; k++) {
    for (unsigned i = k + 1; i < N; i++)
      ref_m[i][k] = ref_a[i][k] / ref_a[k][k];
    for (unsigned i = k + 1; i < N; i++) {
      for (unsigned j = k; j < N; j++)
        ref_a[i][j] -= ref_m[i][k] * ref_a[k][j];
      ref_b[i] -= ref_m[i][k] * ref_b[k];
    }
  }
  int bad = mismatch(m, ref_m, N * N, 4);
  bad = bad ? bad : mismatch(a, ref_a, N * N, 4);
  return bad ? bad : mismatch(b, ref_b, N, 4);
}
