/* kmeans_invert: Rodinia kmeans' invert_mapping kernel (seed 004, Table 2, "KMEANS"):
 * the feature matrix of 2,000 points x 34 features, point-major as the input file
 * gives it, transposed to feature-major, so that the assignment kernel's threads (one
 * a point) then load a feature at unit stride. A thread a point: a uniform loop over
 * the features, a load of stride 34 words across the threads and a unit-stride store.
 * 2,000 points: the last warp is partial. The reference: the same transpose, feature
 * by feature. */
#include "../program.h"

#define POINTS 2000
#define FEATURES 34

static float input[POINTS * FEATURES], output[FEATURES * POINTS], ref[FEATURES * POINTS];

static void invert_mapping(void)
{
  unsigned p = tidx();
  for (unsigned f = 0; f < FEATURES; f++)
    output[f * POINTS + p] = input[p * FEATURES + f];
}

int main(void)
{
  for (unsigned i = 0; i < POINTS * FEATURES; i++)
    input[i] = (float)(lcg() % 4096) * 0.0625f - 100.0f;
  poison(output, sizeof output);
  launch(POINTS, invert_mapping);
  for (unsigned f = 0; f < FEATURES; f++)
    for (unsigned p = 0; p < POINTS; p++)
      ref[f * POINTS + p] = input[p * FEATURES + f];
  return mismatch(output, ref, FEATURES * POINTS, 4);
}
