/* pf_normalize: Rodinia particlefilter's weight normalisation and resampling set-up
 * (seed 004, Table 2, "PF": normalize_weights_kernel, with sum_kernel before it), for
 * 4,096 particles, single precision. Rodinia's kernel relies on `__syncthreads` and
 * on thread 0 seeing the other blocks' weights; here its phases are launches:
 *  - `pf_partial`: a thread 64 consecutive weights, their sum (the likelihood
 *    kernel's per-block partial sums): 64 threads;
 *  - `pf_sum`: one thread, the sum of the partial sums (sum_kernel);
 *  - `pf_normalize`: a thread a particle, weight / sum (a division);
 *  - `pf_cdf`: one thread, the CDF of the normalised weights by a running sum, and
 *    u1 = randu / particles, randu from Rodinia's LCG (a = 1103515245, c = 12345,
 *    modulo 2^31 - 1) on the particle's seed;
 *  - `pf_u`: a thread a particle, u[i] = u1 + i / particles.
 * The host checks every output against its reference. */
#include "../program.h"

#define PARTICLES 4096
#define CHUNK 64

static float weights[PARTICLES], partial[PARTICLES / CHUNK], cdf[PARTICLES], u[PARTICLES];
static float sum_weights, u1;
static unsigned seed[PARTICLES];
static float ref_weights[PARTICLES], ref_cdf[PARTICLES], ref_u[PARTICLES];

static void pf_partial(void)
{
  unsigned b = tidx();
  float s = 0.0f;
  for (unsigned i = b * CHUNK; i < b * CHUNK + CHUNK; i++)
    s += weights[i];
  partial[b] = s;
}

static void pf_sum(void)
{
  float s = 0.0f;
  for (unsigned b = 0; b < PARTICLES / CHUNK; b++)
    s += partial[b];
  sum_weights = s;
}

static void pf_normalize(void)
{
  unsigned i = tidx();
  weights[i] = weights[i] / sum_weights;
}

static void pf_cdf(void)
{
  float s = weights[0];
  cdf[0] = s;
  for (unsigned i = 1; i < PARTICLES; i++) {
    s = s + weights[i];
    cdf[i] = s;
  }
  unsigned next = (1103515245u * seed[0] + 12345u) % 2147483647u;
  seed[0] = next;
  u1 = 1.0f / (float)PARTICLES * ((float)next / 2147483647.0f);
}

static void pf_u(void)
{
  unsigned i = tidx();
  u[i] = u1 + (float)i / (float)PARTICLES;
}

int main(void)
{
  /* Likelihood-like weights: 1/particles times a factor 0.5..2.5. */
  for (unsigned i = 0; i < PARTICLES; i++) {
    weights[i] = ref_weights[i] = (0.5f + (float)(lcg() % 1024) / 512.0f) / (float)PARTICLES;
    seed[i] = lcg() * 113u;
  }
  unsigned seed0 = seed[0];
  poison(partial, sizeof partial);
  poison(&sum_weights, sizeof sum_weights);
  poison(cdf, sizeof cdf);
  poison(u, sizeof u);
  poison(&u1, sizeof u1);
  launch(PARTICLES / CHUNK, pf_partial);
  launch(1, pf_sum);
  launch(PARTICLES, pf_normalize);
  launch(1, pf_cdf);
  launch(PARTICLES, pf_u);

  float sums[PARTICLES / CHUNK], total = 0.0f;
  for (unsigned b = 0; b < PARTICLES / CHUNK; b++) {
    sums[b] = 0.0f;
    for (unsigned i = 0; i < CHUNK; i++)
      sums[b] += ref_weights[b * CHUNK + i];
    total += sums[b];
  }
  for (unsigned i = 0; i < PARTICLES; i++)
    ref_weights[i] = ref_weights[i] / total;
  ref_cdf[0] = ref_weights[0];
  for (unsigned i = 1; i < PARTICLES; i++)
    ref_cdf[i] = ref_cdf[i - 1] + ref_weights[i];
  unsigned next = (1103515245u * seed0 + 12345u) % 2147483647u;
  float ref_u1 = 1.0f / (float)PARTICLES * ((float)next / 2147483647.0f);
  for (unsigned i = 0; i < PARTICLES; i++)
    ref_u[i] = ref_u1 + (float)i / (float)PARTICLES;
  int bad = mismatch(partial, sums, PARTICLES / CHUNK, 4);
  bad = bad ? bad : mismatch(&sum_weights, &total, 1, 4);
  bad = bad ? bad : mismatch(weights, ref_weights, PARTICLES, 4);
  bad = bad ? bad : mismatch(cdf, ref_cdf, PARTICLES, 4);
  bad = bad ? bad : mismatch(&u1, &ref_u1, 1, 4);
  bad = bad ? bad : mismatch(u, ref_u, PARTICLES, 4);
  return bad ? bad : seed[0] != next;
}
