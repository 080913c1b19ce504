// Median filters, as in the embedded benchmark suites: a 3-tap filter over a noisy
// signal (compare-and-swap network) and a 3x3 filter over a small image (a 9-element
// sorting network). Each output is checked against the median found by counting ranks,
// a computation of its own.
#include <stdint.h>
#include <stdio.h>

#define LEN 300
#define W 16
#define H 12

static int32_t signal_in[LEN], signal_out[LEN];
static uint8_t image[H][W], filtered[H][W];

static int32_t median3(int32_t a, int32_t b, int32_t c)
{
    if (a > b) {
        int32_t t = a;
        a = b;
        b = t;
    }
    if (b > c)
        b = c;
    return a > b ? a : b;
}

#define SORT2(x, y)                                                                     \
    do {                                                                                \
        if (p[x] > p[y]) {                                                              \
            uint8_t t = p[x];                                                           \
            p[x] = p[y];                                                                \
            p[y] = t;                                                                   \
        }                                                                               \
    } while (0)

// Paeth's 19-exchange median-of-9 network.
static uint8_t median9(uint8_t *p)
{
    SORT2(1, 2); SORT2(4, 5); SORT2(7, 8); SORT2(0, 1); SORT2(3, 4); SORT2(6, 7);
    SORT2(1, 2); SORT2(4, 5); SORT2(7, 8); SORT2(0, 3); SORT2(5, 8); SORT2(4, 7);
    SORT2(3, 6); SORT2(1, 4); SORT2(2, 5); SORT2(4, 7); SORT2(4, 2); SORT2(6, 4);
    SORT2(4, 2);
    return p[4];
}

// The median of `n` values as the one with fewer than n/2+1 values below it and at
// least n/2+1 at or below it.
static int32_t median_by_rank(const int32_t *v, int n)
{
    for (int i = 0; i < n; i++) {
        int below = 0, at_or_below = 0;
        for (int j = 0; j < n; j++) {
            below += v[j] < v[i];
            at_or_below += v[j] <= v[i];
        }
        if (below <= n / 2 && at_or_below > n / 2)
            return v[i];
    }
    return -1;
}

int main(void)
{
    uint32_t seed = 7;
    for (int i = 0; i < LEN; i++) {
        seed = seed * 1664525u + 1013904223u;
        int32_t noise = (seed >> 24) % 7 == 0 ? (int32_t)(seed >> 12) % 5000 : 0;
        signal_in[i] = (i * 37) % 1000 + noise;
    }
    signal_out[0] = signal_in[0];
    signal_out[LEN - 1] = signal_in[LEN - 1];
    for (int i = 1; i < LEN - 1; i++)
        signal_out[i] = median3(signal_in[i - 1], signal_in[i], signal_in[i + 1]);
    int64_t sum1 = 0;
    for (int i = 1; i < LEN - 1; i++) {
        if (signal_out[i] != median_by_rank(&signal_in[i - 1], 3)) {
            printf("median: 3-tap wrong at %d\n", i);
            return 1;
        }
        sum1 += signal_out[i];
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            seed = seed * 1664525u + 1013904223u;
            image[y][x] = (uint8_t)(x * 9 + y * 5 + ((seed >> 28) == 0 ? seed >> 20 : 0));
        }
    uint32_t sum2 = 0;
    for (int y = 1; y < H - 1; y++)
        for (int x = 1; x < W - 1; x++) {
            uint8_t win[9];
            int32_t wide[9];
            for (int k = 0; k < 9; k++) {
                win[k] = image[y - 1 + k / 3][x - 1 + k % 3];
                wide[k] = win[k];
            }
            filtered[y][x] = median9(win);
            if (filtered[y][x] != median_by_rank(wide, 9)) {
                printf("median: 3x3 wrong at %d,%d\n", x, y);
                return 2;
            }
            sum2 += filtered[y][x];
        }
    printf("median: 3-tap sum %ld, 3x3 sum %u\n", (long)sum1, sum2);
    return 0;
}
