// Recursion in the style of the classic embedded benchmarks (towers, Ackermann,
// naive Fibonacci, a recursive merge sort): deep call chains, stack traffic, returns
// through jalr. Each result is checked against a closed form or
// an iterative computation.
#include <stdint.h>
#include <stdio.h>

static unsigned moves;
static int pegs[3][12], height[3];

static void hanoi(int n, int from, int to, int via)
{
    if (n == 0)
        return;
    hanoi(n - 1, from, via, to);
    pegs[to][height[to]++] = pegs[from][--height[from]];
    moves++;
    hanoi(n - 1, via, to, from);
}

static unsigned ackermann(unsigned m, unsigned n)
{
    if (m == 0)
        return n + 1;
    if (n == 0)
        return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

static uint32_t fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

#define VALUES 256

static int32_t scratch[VALUES];

// Top-down merge sort: two recursive calls a level, merging through `scratch`.
static void merge_sort(int32_t *a, int lo, int hi)
{
    if (hi - lo < 2)
        return;
    int mid = (lo + hi) / 2;
    merge_sort(a, lo, mid);
    merge_sort(a, mid, hi);
    int i = lo, j = mid, k = lo;
    while (i < mid || j < hi)
        scratch[k++] = j >= hi || (i < mid && a[i] <= a[j]) ? a[i++] : a[j++];
    for (k = lo; k < hi; k++)
        a[k] = scratch[k];
}

static int32_t values[VALUES];

int main(void)
{
    const int n = 10;
    for (int i = 0; i < n; i++)
        pegs[0][i] = n - i;
    height[0] = n;
    hanoi(n, 0, 2, 1);
    if (moves != (1u << n) - 1 || height[2] != n) {
        printf("recursion: towers made %u moves\n", moves);
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (pegs[2][i] != n - i) {
            printf("recursion: towers out of order at %d\n", i);
            return 2;
        }
    // A(2, n) = 2n + 3; A(3, n) = 2^(n+3) - 3.
    unsigned a2 = ackermann(2, 9), a3 = ackermann(3, 3);
    if (a2 != 21 || a3 != 61) {
        printf("recursion: ackermann %u %u\n", a2, a3);
        return 3;
    }
    uint32_t x = 0, y = 1;
    for (int i = 0; i < 18; i++) {
        uint32_t t = x + y;
        x = y;
        y = t;
    }
    uint32_t f = fib(18);
    if (f != x) {
        printf("recursion: fib(18) %u, iteratively %u\n", f, x);
        return 4;
    }
    uint32_t seed = 12345, sum = 0;
    for (int i = 0; i < VALUES; i++) {
        seed = seed * 1103515245u + 12345u;
        values[i] = (int32_t)(seed >> 8) % 10007 - 5000;
        sum += (uint32_t)values[i];
    }
    merge_sort(values, 0, VALUES);
    uint32_t after = 0;
    for (int i = 0; i < VALUES; i++) {
        after += (uint32_t)values[i];
        if (i > 0 && values[i - 1] > values[i]) {
            printf("recursion: merge sort out of order at %d\n", i);
            return 5;
        }
    }
    if (after != sum) {
        printf("recursion: merge sort lost values\n");
        return 6;
    }
    printf("recursion: towers %u moves, A(3,3) %u, fib(18) %u, sorted %d..%d\n", moves, a3,
           f, (int)values[0], (int)values[VALUES - 1]);
    return 0;
}
