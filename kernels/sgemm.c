/* sgemm: C = alpha A B + beta C in single precision (seed 000, Table 2, "Dense
 * matrix-matrix multiply", from Parboil), A M x K, B K x N, C M x N, row-major. One
 * thread an element of C (row t / N, column t % N); the k loop is uniform, A's loads
 * are uniform within a row, B's are unit-stride across a row of threads. */
#include "program.h"

#define M 64
#define N 64
#define K 32

static float a[M * K], b[K * N], c[M * N], c_in[M * N];
static float alpha, beta;

static void sgemm(void)
{
  unsigned t = tidx();
  unsigned row = t / N, col = t % N;
  float acc = 0.0f;
  for (unsigned k = 0; k < K; k++)
    acc += a[row * K + k] * b[k * N + col];
  c[t] = alpha * acc + beta * c[t];
}

/* A float in [-2, 2) with 7 fraction bits. */
static float input(void)
{
  return (float)((int)(lcg() % 512) - 256) * (1.0f / 128);
}

int main(void)
{
  alpha = 1.5f;
  beta = -0.5f;
  for (unsigned i = 0; i < M * K; i++)
    a[i] = input();
  for (unsigned i = 0; i < K * N; i++)
    b[i] = input();
  for (unsigned i = 0; i < M * N; i++)
    c[i] = c_in[i] = input();
  launch(M * N, sgemm);
  for (unsigned row = 0; row < M; row++)
    for (unsigned col = 0; col < N; col++) {
      float acc = 0.0f;
      for (unsigned k = 0; k < K; k++)
        acc += a[row * K + k] * b[k * N + col];
      c_in[row * N + col] = alpha * acc + beta * c_in[row * N + col];
    }
  return mismatch(c, c_in, M * N, 4);
}
