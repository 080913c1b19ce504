/* bilat: a bilateral filter of a grey-scale image in single precision (seed 000,
 * section 5: "bilat performs a bilateral image filter with a lookup table for the
 * distance function and an optimized Taylor series expansion for calculating the
 * intensity weight"; Table 2, custom). One thread a pixel, a 5 x 5 window: the weight
 * of a neighbour is the spatial table's entry for dx^2 + dy^2 (a uniform load) times
 * exp(-x), x = (v - centre)^2 / (2 sigma^2), by its Taylor series to x^3 for x < 1 and
 * 0 beyond (neighbours that far are skipped: a data-dependent branch). The output is
 * the weighted mean. */
#include "program.h"

#define W 64
#define H 32
#define R 2
#define PW (W + 2 * R)

static float in[(H + 2 * R) * PW], out[W * H], ref[W * H];
static float spatial[2 * R * R + 1];
static float inv_two_sigma2;

static void bilat(void)
{
  unsigned t = tidx();
  const float *p = &in[(t / W) * PW + t % W];
  float centre = p[R * PW + R], sum = 0.0f, weights = 0.0f;
  for (unsigned dy = 0; dy <= 2 * R; dy++)
    for (unsigned dx = 0; dx <= 2 * R; dx++) {
      float v = p[dy * PW + dx], d = v - centre;
      float x = d * d * inv_two_sigma2;
      if (x < 1.0f) {
        float w = 1.0f - x * (1.0f - x * (0.5f - x * (1.0f / 6)));
        w = w * spatial[(dy - R) * (dy - R) + (dx - R) * (dx - R)];
        sum += w * v;
        weights += w;
      }
    }
  out[t] = sum / weights;
}

/* The reference: the same sums in the same order, the window by signed offsets. */
static float filtered(unsigned x, unsigned y)
{
  float centre = in[(y + R) * PW + x + R], sum = 0.0f, weights = 0.0f;
  for (int oy = -R; oy <= R; oy++)
    for (int ox = -R; ox <= R; ox++) {
      float v = in[(y + R + oy) * PW + x + R + ox];
      float d2 = (v - centre) * (v - centre) * inv_two_sigma2;
      if (d2 >= 1.0f)
        continue;
      float taylor = 1.0f - d2 * (1.0f - d2 * (0.5f - d2 * (1.0f / 6)));
      float w = taylor * spatial[oy * oy + ox * ox];
      sum += w * v;
      weights += w;
    }
  return sum / weights;
}

int main(void)
{
  /* A gradient with noise: most neighbours count, some are too far. */
  for (unsigned y = 0; y < H + 2 * R; y++)
    for (unsigned x = 0; x < PW; x++)
      in[y * PW + x] = (float)((x * 2 + y * 3 + lcg() % 64) % 256) * (1.0f / 256);
  inv_two_sigma2 = 12.5f;
  for (unsigned d2 = 0; d2 <= 2 * R * R; d2++)
    spatial[d2] = 1.0f / (1.0f + 0.25f * (float)d2);
  poison(out, sizeof out);
  launch(W * H, bilat);
  for (unsigned y = 0; y < H; y++)
    for (unsigned x = 0; x < W; x++)
      ref[y * W + x] = filtered(x, y);
  return mismatch(out, ref, W * H, 4);
}
