/* lud: Rodinia lud's blocked LU decomposition (seed 004, Table 2, "LUD"), in place,
 * without pivoting, A 64 x 64 single precision (diagonally dominant), blocks of 16.
 * For each diagonal block, Rodinia's three kernels, each restructured so that a
 * launch's threads are independent (Rodinia's `__syncthreads` become launch
 * boundaries and its shared-memory tiles the matrix itself):
 *  - lud_diagonal: the block's own LU (Doolittle: unit lower L), step i a launch of
 *    `lud_diagonal_col` (a thread a row below i: L's column i, a dot product over
 *    j < i and a division) and one of `lud_diagonal_row` (a thread a column right of
 *    i: U's row i + 1, a dot product over j <= i): 30 launches of 15..1 threads;
 *  - lud_perimeter: a thread a column of the blocks right of it (U: forward
 *    substitution with the block's L) or a row of the blocks below it (L: substitution
 *    with its U, then division by U's diagonal), Rodinia's `threadIdx.x < BLOCK_SIZE`
 *    branch;
 *  - lud_internal: a thread an element of the trailing matrix, which it decreases by
 *    the 16-term dot product of its L row and U column (summed first, as Rodinia).
 * The reference: the same operations in the same order, element by element. */
#include "../program.h"

#define N 64
#define B 16

static float a[N][N], ref[N][N];
static unsigned o, i_step; /* the diagonal block's offset; lud_diagonal's step */

static void lud_diagonal_col(void)
{
  unsigned r = o + i_step + 1 + tidx(), c = o + i_step;
  float v = a[r][c];
  for (unsigned j = o; j < c; j++)
    v -= a[r][j] * a[j][c];
  a[r][c] = v / a[c][c];
}

static void lud_diagonal_row(void)
{
  unsigned r = o + i_step + 1, c = r + tidx();
  float v = a[r][c];
  for (unsigned j = o; j < r; j++)
    v -= a[r][j] * a[j][c];
  a[r][c] = v;
}

/* Threads 0..rest-1: U's column o + B + t of the blocks right of the diagonal block;
 * threads rest..2 rest-1: L's row o + B + t - rest of the blocks below it. */
static void lud_perimeter(void)
{
  unsigned t = tidx(), rest = N - o - B;
  if (t < rest) {
    unsigned c = o + B + t;
    for (unsigned i = 1; i < B; i++) {
      float v = a[o + i][c];
      for (unsigned j = 0; j < i; j++)
        v -= a[o + i][o + j] * a[o + j][c];
      a[o + i][c] = v;
    }
  } else {
    unsigned r = o + B + t - rest;
    for (unsigned i = 0; i < B; i++) {
      float v = a[r][o + i];
      for (unsigned j = 0; j < i; j++)
        v -= a[r][o + j] * a[o + j][o + i];
      a[r][o + i] = v / a[o + i][o + i];
    }
  }
}

static void lud_internal(void)
{
  unsigned rest = N - o - B, r = o + B + tidx() / rest, c = o + B + tidx() % rest;
  float sum = 0.0f;
  for (unsigned k = 0; k < B; k++)
    sum += a[r][o + k] * a[o + k][c];
  a[r][c] -= sum;
}

/* The reference: lud_diagonal, lud_perimeter and lud_internal's operations, row by
 * row and column by column. */
static void reference(void)
{
  for (unsigned d = 0; d < N; d += B) {
    for (unsigned i = 0; i + 1 < B; i++) {
      unsigned c = d + i;
      for (unsigned r = c + 1; r < d + B; r++) {
        float v = ref[r][c];
        for (unsigned j = d; j < c; j++)
          v -= ref[r][j] * ref[j][c];
        ref[r][c] = v / ref[c][c];
      }
      for (unsigned cc = c + 1; cc < d + B; cc++) {
        float v = ref[c + 1][cc];
        for (unsigned j = d; j < c + 1; j++)
          v -= ref[c + 1][j] * ref[j][cc];
        ref[c + 1][cc] = v;
      }
    }
    for (unsigned x = d + B; x < N; x++) {
      for (unsigned i = 1; i < B; i++) {
        float v = ref[d + i][x];
        for (unsigned j = 0; j < i; j++)
          v -= ref[d + i][d + j] * ref[d + j][x];
        ref[d + i][x] = v;
      }
      for (unsigned i = 0; i < B; i++) {
        float v = ref[x][d + i];
        for (unsigned j = 0; j < i; j++)
          v -= ref[x][d + j] * ref[d + j][d + i];
        ref[x][d + i] = v / ref[d + i][d + i];
      }
    }
    for (unsigned r = d + B; r < N; r++)
      for (unsigned c = d + B; c < N; c++) {
        float sum = 0.0f;
        for (unsigned k = 0; k < B; k++)
          sum += ref[r][d + k] * ref[d + k][c];
        ref[r][c] -= sum;
      }
  }
}

int main(void)
{
  for (unsigned r = 0; r < N; r++)
    for (unsigned c = 0; c < N; c++) {
      a[r][c] = (float)((int)(lcg() % 2001) - 1000) * 0.001f + (r == c ? (float)N : 0.0f);
      ref[r][c] = a[r][c];
    }
  for (o = 0; o < N; o += B) {
    for (i_step = 0; i_step + 1 < B; i_step++) {
      launch(B - 1 - i_step, lud_diagonal_col);
      launch(B - 1 - i_step, lud_diagonal_row);
    }
    if (o + B < N) {
      launch(2 * (N - o - B), lud_perimeter);
      launch((N - o - B) * (N - o - B), lud_internal);
    }
  }
  reference();
  return mismatch(a, ref, N * N, 4);
}
