// Sorts pseudo-random arrays with quicksort and insertion sort and checks that both
// give the same, ordered permutation (the sums match the input's).
#include <stdint.h>
#include <stdio.h>

#define N 300

static uint64_t lcg_state = 12345;

static int64_t next_value(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int64_t)(lcg_state >> 17) - (1LL << 45);
}

static void quicksort(int64_t *a, int lo, int hi)
{
    while (lo < hi) {
        int64_t pivot = a[(lo + hi) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                int64_t t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (j - lo < hi - i) {
            quicksort(a, lo, j);
            lo = i;
        } else {
            quicksort(a, i, hi);
            hi = j;
        }
    }
}

static void insertion_sort(int64_t *a, int n)
{
    for (int i = 1; i < n; i++) {
        int64_t v = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

static int64_t a[N], b[N];

int main(void)
{
    int64_t sum = 0;
    for (int i = 0; i < N; i++) {
        a[i] = b[i] = next_value();
        sum += a[i];
    }
    quicksort(a, 0, N - 1);
    insertion_sort(b, N);
    int64_t sum_sorted = 0;
    for (int i = 0; i < N; i++) {
        sum_sorted += a[i];
        if (a[i] != b[i] || (i > 0 && a[i - 1] > a[i])) {
            printf("sort: mismatch at %d\n", i);
            return 1;
        }
    }
    if (sum != sum_sorted) {
        printf("sort: sum changed\n");
        return 2;
    }
    printf("sort: %d values, min %lld max %lld\n", N, (long long)a[0], (long long)a[N - 1]);
    return 0;
}
