/* rgb2cmyk: RGB to CMYK colour conversion (seed 000, Table 2, "RGB-to-CMYK color
 * conversion", custom): c, m, y = 255 - r, g, b; k = min(c, m, y); then c, m, y -= k,
 * packed c | m << 8 | y << 16 | k << 24. One thread a pixel: byte loads of stride 3
 * (interleaved RGB), word stores of stride 4. 8,192 pixels in two launches of 4,096
 * (the most a launch may have); the first pixel of a launch is a global. */
#include "program.h"

#define PIXELS 8192
#define PER_LAUNCH 4096

static unsigned char rgb[3 * PIXELS];
static unsigned cmyk[PIXELS], ref[PIXELS];
static unsigned first_pixel;

static void rgb2cmyk(void)
{
  unsigned i = first_pixel + tidx();
  const unsigned char *p = &rgb[3 * i];
  unsigned c = 255 - p[0], m = 255 - p[1], y = 255 - p[2];
  unsigned k = c < m ? c : m;
  if (y < k)
    k = y;
  cmyk[i] = (c - k) | (m - k) << 8 | (y - k) << 16 | k << 24;
}

int main(void)
{
  for (unsigned i = 0; i < 3 * PIXELS; i++)
    rgb[i] = lcg() % 256;
  poison(cmyk, sizeof cmyk);
  for (first_pixel = 0; first_pixel < PIXELS; first_pixel += PER_LAUNCH)
    launch(PER_LAUNCH, rgb2cmyk);
  for (unsigned i = 0; i < PIXELS; i++) {
    unsigned r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    unsigned light = r > g ? r : g;
    light = light > b ? light : b;
    unsigned k = 255 - light;
    ref[i] = (255 - r - k) | (255 - g - k) << 8 | (255 - b - k) << 16 | k << 24;
  }
  return mismatch(cmyk, ref, PIXELS, 4);
}
