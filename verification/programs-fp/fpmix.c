// Float and double arithmetic as a compiler emits it: a small n-body step, a dot product
// with fused multiply-adds, square roots, conversions to and from integers of both
// widths, comparisons, and printf of floating-point values (picolibc's conversion, itself
// all F/D code). Prints the results' bits; self-checks identities that hold exactly.

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

#define N 5
static double px[N], py[N], vx[N], vy[N], m[N];

static void nbody_step(double dt)
{
    for (int i = 0; i < N; i++) {
        double ax = 0, ay = 0;
        for (int j = 0; j < N; j++) {
            if (i == j)
                continue;
            double dx = px[j] - px[i], dy = py[j] - py[i];
            double r2 = dx * dx + dy * dy + 1e-9;
            double inv = 1.0 / (r2 * __builtin_sqrt(r2));
            ax += m[j] * dx * inv;
            ay += m[j] * dy * inv;
        }
        vx[i] += ax * dt;
        vy[i] += ay * dt;
    }
    for (int i = 0; i < N; i++) {
        px[i] += vx[i] * dt;
        py[i] += vy[i] * dt;
    }
}

static volatile float vf[8] = {1.5f, -2.25f, 3.0e38f, 1.0e-40f, 0.1f, -0.0f, 7.0f, 1e-3f};
static volatile double vd[4] = {0.1, -1e308, 4.9e-324, 123456789.125};

int main(void)
{
    int fails = 0;
    for (int i = 0; i < N; i++) {
        px[i] = i * 1.25;
        py[i] = (i % 3) - 0.5;
        vx[i] = vy[i] = 0;
        m[i] = 1.0 + i * 0.5;
    }
    for (int s = 0; s < 2; s++)
        nbody_step(0.01);
    for (int i = 0; i < N; i++)
        printf("body %d: %016llx %016llx\n", i, (unsigned long long)dbits(px[i]),
               (unsigned long long)dbits(py[i]));

    float acc = 0;
    for (int i = 0; i < 8; i++)
        acc = __builtin_fmaf(vf[i], vf[(i + 3) % 8], acc);
    printf("fma acc %08lx\n", (unsigned long)fbits(acc));
    printf("sqrtf %08lx\n", (unsigned long)fbits(__builtin_sqrtf(vf[6])));

    for (int i = 0; i < 8; i++) {
        float f = vf[i];
        printf("f%d: %08lx i=%ld u=%lu ll=%lld d=%016llx lt=%d\n", i, (unsigned long)fbits(f),
               (long)(int)f, (unsigned long)(unsigned)f, (long long)f,
               (unsigned long long)dbits((double)f), f < vf[(i + 1) % 8]);
    }
    for (int i = 0; i < 4; i++) {
        double d = vd[i];
        printf("d%d: %016llx f=%08lx i=%ld ll=%lld\n", i, (unsigned long long)dbits(d),
               (unsigned long)fbits((float)d), (long)(int)d, (long long)d);
    }
    printf("printf: %.6f %.3e %g\n", vd[3], vd[0], (double)vf[0]);

    // Exact identities.
    fails += (double)(float)vd[3] != 123456792.0;
    fails += (float)(1 << 24) + 1.0f != (float)(1 << 24);
    fails += (int)-2.5 != -2;
    fails += vf[5] != 0.0f;
    fails += __builtin_sqrt(2.25) != 1.5;
    return fails;
}
