/* mfilt: a masked blur of a grey-scale image (seed 000, section 5: "mfilt does a
 * masked blurring filter across an image of grayscale pixels"; Table 2, custom). One
 * thread a pixel: where the mask is set, the 3 x 3 binomial blur (1 2 1 / 2 4 2 /
 * 1 2 1, / 16) of the padded input; elsewhere the pixel itself. The mask comes in
 * blocks with random holes, so warps diverge on it. */
#include "program.h"

#define W 64
#define H 64
#define PW (W + 2)

static unsigned in[(H + 2) * PW], out[W * H], ref[W * H];
static unsigned char mask[W * H];

static void mfilt(void)
{
  unsigned t = tidx();
  const unsigned *p = &in[(t / W + 1) * PW + t % W + 1];
  unsigned v = p[0];
  if (mask[t])
    v = (p[-PW - 1] + 2 * p[-PW] + p[-PW + 1] + 2 * p[-1] + 4 * v + 2 * p[1] +
         p[PW - 1] + 2 * p[PW] + p[PW + 1]) >>
        4;
  out[t] = v;
}

int main(void)
{
  for (unsigned i = 0; i < (H + 2) * PW; i++)
    in[i] = lcg() % 256;
  for (unsigned y = 0; y < H; y++)
    for (unsigned x = 0; x < W; x++)
      mask[y * W + x] = ((x / 8 + y / 4) % 3 != 0) ^ (lcg() % 16 == 0);
  poison(out, sizeof out);
  launch(W * H, mfilt);
  static const unsigned weight[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  for (unsigned y = 0; y < H; y++)
    for (unsigned x = 0; x < W; x++) {
      unsigned sum = 0;
      for (unsigned dy = 0; dy < 3; dy++)
        for (unsigned dx = 0; dx < 3; dx++)
          sum += weight[dy][dx] * in[(y + dy) * PW + x + dx];
      ref[y * W + x] = mask[y * W + x] ? sum / 16 : in[(y + 1) * PW + x + 1];
    }
  return mismatch(out, ref, W * H, 4);
}
