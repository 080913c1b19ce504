/* Host-only RV32IMAF code for the FG-SIMT tile's control processor (no launch):
 * integer checksum, insertion sort, float arithmetic, byte/half/word stores then loads
 * across D$ lines and banks, amoadd and LR/SC. Exits EXIT (default 0) when every
 * result is right, else 1 + the index of the first wrong one. */
#include <stdint.h>

#ifndef EXIT
#define EXIT 0
#endif

#define N 96
static uint32_t data[N];
static volatile uint8_t bytes[200] __attribute__((aligned(32)));
static float fv[16];
static volatile int counter;

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

int main(void) {
    uint32_t s = 12345, sum = 0, x = 0;
    for (int i = 0; i < N; i++) {
        data[i] = lcg(&s) % 1000;
        sum += data[i] * (uint32_t)(i + 1);
        x ^= data[i] << (i % 13);
    }
    for (int i = 1; i < N; i++) {
        uint32_t v = data[i];
        int j = i - 1;
        while (j >= 0 && data[j] > v) {
            data[j + 1] = data[j];
            j--;
        }
        data[j + 1] = v;
    }
    for (int i = 1; i < N; i++)
        if (data[i - 1] > data[i]) return 1;
    uint32_t sum2 = 0;
    for (int i = 0; i < N; i++) sum2 += data[i];
    if (sum2 == 0 || sum == 0 || x == 0) return 2;
    float acc = 0.0f;
    for (int i = 0; i < 16; i++) {
        fv[i] = (float)(i + 1) * 0.75f - 3.0f;
        acc += fv[i] * fv[i] / (float)(i + 2);
    }
    if (acc < 10.0f || acc > 100.0f) return 3;
    if ((int)(acc * 100.0f) != (int)(acc * 100.0f + 0.0f)) return 4;
    /* Stores of every size across 32-byte lines, then loads back. */
    for (int i = 0; i < 200; i++) bytes[i] = (uint8_t)(i * 7 + 3);
    for (int i = 30; i < 170; i += 2) *(volatile uint16_t *)&bytes[i] += 0x101;
    for (int i = 60; i < 140; i += 4) *(volatile uint32_t *)&bytes[i] ^= 0x01020304u;
    uint32_t c = 0;
    for (int i = 0; i < 200; i++) c = c * 31 + bytes[i];
    if (c == 0) return 5;
    for (int i = 0; i < 10; i++) __atomic_fetch_add(&counter, i, __ATOMIC_RELAXED);
    if (counter != 45) return 6;
    int expected = 45;
    if (!__atomic_compare_exchange_n(&counter, &expected, 7, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return 7;
    if (counter != 7) return 8;
    return EXIT;
}
