// Integer matrix multiply, checked against the same product computed through the
// transpose and against a column-sum identity: sum(A*B) = sum_k colsum(A)_k rowsum(B)_k.
#include <stdint.h>
#include <stdio.h>

#define N 20

static int32_t A[N][N], B[N][N], BT[N][N];
static int64_t C[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (i * 7 + j * 13) % 23 - 11;
            B[i][j] = (i * 5 - j * 3) % 19;
            BT[j][i] = B[i][j];
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int64_t s = 0;
            for (int k = 0; k < N; k++)
                s += (int64_t)A[i][k] * B[k][j];
            C[i][j] = s;
        }
    int64_t total = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int64_t s = 0;
            for (int k = 0; k < N; k++)
                s += (int64_t)A[i][k] * BT[j][k];
            if (s != C[i][j]) {
                printf("matmul: mismatch at %d,%d\n", i, j);
                return 1;
            }
            total += C[i][j];
        }
    int64_t identity = 0;
    for (int k = 0; k < N; k++) {
        int64_t col = 0, row = 0;
        for (int i = 0; i < N; i++)
            col += A[i][k];
        for (int j = 0; j < N; j++)
            row += B[k][j];
        identity += col * row;
    }
    if (identity != total) {
        printf("matmul: sum identity fails\n");
        return 2;
    }
    printf("matmul: %dx%d, sum %lld, C[3][4] %lld\n", N, N, (long long)total, (long long)C[3][4]);
    return 0;
}
