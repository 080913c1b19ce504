/* dither: Floyd-Steinberg dithering of 8 grey-scale images of 64 x 48 to black and
 * white (seed 000, section 5: "Work is parallelized across the diagonals of the image,
 * so that each thread works on a subset of the diagonal. A data-dependent conditional
 * allows threads to skip work if an input pixel is white"; Table 2, custom on FG-SIMT
 * only). Pixel (x, y) takes the errors of (x - 1, y), (x + 1, y - 1), (x, y - 1) and
 * (x - 1, y - 1) (weights 7, 3, 5, 1 / 16, each product shifted right by 4), so the
 * pixels of a step s = x + 2y depend only on earlier steps: one launch a step, 158, a
 * thread a (image, row) of the step's diagonal (at most 32 rows), image t % 8 and row
 * first_row + t / 8, so the rows on the image are the first threads and whole warps
 * past them return at once. Each pixel pulls its predecessors' errors (from
 * an error plane with a zero border) and writes only its own, so no two threads write
 * the same place. A white input pixel stays white and passes on no error. The host's
 * reference is the classic algorithm: raster order, errors pushed forward. */
#include "program.h"

#define IMAGES 8
#define W 64
#define H 48
#define ROWS 32
#define STEPS (W + 2 * (H - 1))
#define EW (W + 2)

/* An image and its error plane, rows of the same pitch (the image's last 2 columns
 * unused): one index j = y EW + x addresses pixel (x, y) in both. */
struct plane {
  unsigned char image[H * EW];
  short error[(H + 1) * EW];
};

static struct plane planes[IMAGES], ref_planes[IMAGES];
static unsigned step, first_row;
static int work[H][W];

/* The error pixel (x, y) receives, `e` its place in the error plane: those of (x - 1, y),
 * (x + 1, y - 1), (x, y - 1) and (x - 1, y - 1) times 7, 3, 5 and 1, each shifted right
 * by 4. */
static inline int diffused(const short *e)
{
  return (7 * e[-1] >> 4) + (3 * e[1 - EW] >> 4) + (5 * e[-EW] >> 4) + (e[-1 - EW] >> 4);
}

static void dither(void)
{
  unsigned t = tidx(), i = t % IMAGES, y = first_row + t / IMAGES;
  int x = (int)step - 2 * (int)y;
  if (y >= H || x < 0)
    return;
  struct plane *p = &planes[i];
  unsigned j = y * EW + (unsigned)x;
  if (p->image[j] == 255)
    return;
  unsigned char *px = &p->image[j];
  short *e = &p->error[j + EW + 1];
  int v = *px + diffused(e), bw = 255 * (v >= 128);
  *px = (unsigned char)bw;
  *e = (short)(v - bw);
}

/* The reference: classic Floyd-Steinberg on an image in raster order, each pixel pushing
 * its error to the four pixels after it (dropped at the borders). */
static void reference(struct plane *r)
{
  for (unsigned y = 0; y < H; y++)
    for (unsigned x = 0; x < W; x++)
      work[y][x] = r->image[y * EW + x];
  for (unsigned y = 0; y < H; y++)
    for (unsigned x = 0; x < W; x++) {
      if (r->image[y * EW + x] == 255)
        continue;
      int v = work[y][x], bw = v >= 128 ? 255 : 0, e = v - bw;
      r->image[y * EW + x] = (unsigned char)bw;
      r->error[(y + 1) * EW + x + 1] = (short)e;
      if (x + 1 < W)
        work[y][x + 1] += 7 * e >> 4;
      if (y + 1 == H)
        continue;
      if (x > 0)
        work[y + 1][x - 1] += 3 * e >> 4;
      work[y + 1][x] += 5 * e >> 4;
      if (x + 1 < W)
        work[y + 1][x + 1] += e >> 4;
    }
}

int main(void)
{
  /* A horizontal gradient with noise; about a fifth of the pixels white. */
  for (unsigned i = 0; i < IMAGES; i++)
    for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++) {
        unsigned v = lcg() % 5 == 0 ? 255 : (x * 3 + i * 16 + lcg() % 64) % 255;
        planes[i].image[y * EW + x] = ref_planes[i].image[y * EW + x] = (unsigned char)v;
      }
  for (step = 0; step < STEPS; step++) {
    first_row = step < W ? 0 : (step - W + 2) / 2;
    launch(IMAGES * ROWS, dither);
  }
  for (unsigned i = 0; i < IMAGES; i++)
    reference(&ref_planes[i]);
  return mismatch(planes, ref_planes, sizeof planes, 1);
}
