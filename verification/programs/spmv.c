// Sparse matrix-vector product (CSR), the kernel of iterative solvers: indexed loads
// through the column array. Checked against the dense product of the same matrix and
// against the identity sum(A x) = sum_j colsum(A)_j x_j.
#include <stdint.h>
#include <stdio.h>

#define N 64
#define PER_ROW 6

static int32_t dense[N][N];
static int32_t values[N * PER_ROW];
static uint16_t columns[N * PER_ROW];
static uint16_t row_start[N + 1];
static int32_t x[N], y[N], y_dense[N];

static void spmv(void)
{
    for (int i = 0; i < N; i++) {
        int32_t s = 0;
        for (int k = row_start[i]; k < row_start[i + 1]; k++)
            s += values[k] * x[columns[k]];
        y[i] = s;
    }
}

int main(void)
{
    uint32_t seed = 99;
    int nnz = 0;
    for (int i = 0; i < N; i++) {
        row_start[i] = nnz;
        for (int j = 0; j < N; j++) {
            seed = seed * 1664525u + 1013904223u;
            // About one column in ten (26 of 256), and the diagonal: masks and
            // shifts, so that the divider stays out of the benchmark.
            if ((seed >> 24) < 26 || j == i) {
                dense[i][j] = (int32_t)((seed >> 8) & 0xff) - 128;
                if (nnz < N * PER_ROW && dense[i][j]) {
                    values[nnz] = dense[i][j];
                    columns[nnz++] = j;
                } else {
                    dense[i][j] = 0;
                }
            }
        }
        x[i] = i * 3 - 50;
    }
    row_start[N] = nnz;
    int64_t checksum = 0;
    for (int rep = 0; rep < 24; rep++) {
        spmv();
        for (int i = 0; i < N; i++)
            checksum += y[i];
        for (int i = 0; i < N; i++)
            x[i] = (x[i] + (y[i] >> 6)) & 1023;
    }
    // The last product, densely.
    for (int i = 0; i < N; i++)
        x[i] = i * 3 - 50;
    spmv();
    int64_t total = 0, identity = 0;
    for (int i = 0; i < N; i++) {
        int32_t s = 0;
        for (int j = 0; j < N; j++)
            s += dense[i][j] * x[j];
        y_dense[i] = s;
        if (y[i] != s) {
            printf("spmv: row %d gives %ld, densely %ld\n", i, (long)y[i], (long)s);
            return 1;
        }
        total += y[i];
    }
    for (int j = 0; j < N; j++) {
        int64_t col = 0;
        for (int i = 0; i < N; i++)
            col += dense[i][j];
        identity += col * x[j];
    }
    if (identity != total) {
        printf("spmv: column-sum identity fails\n");
        return 2;
    }
    printf("spmv: %dx%d, %d nonzeros, sum %ld, checksum %ld\n", N, N, nnz, (long)total,
           (long)checksum);
    return 0;
}
