/* hotspot: Rodinia hotspot's thermal simulation (seed 004, Table 2, "HOTSPOT"): the
 * temperature of a 48 x 64 grid of chip cells from its power map, 4 explicit time
 * steps of the 2-D stencil, single precision, with Rodinia's constants (chip 16 mm x
 * 16 mm x 0.5 mm, ambient 80, step = precision / maximum slope). A launch a step, a
 * thread a cell, ping-ponging between two grids; each cell takes its own case, as
 * Rodinia's single_iteration does: four corners, four edges (a missing neighbour
 * drops its term) and the interior, nine branches on the thread's row and column.
 * Rodinia's CUDA kernel instead computes a pyramid of steps in shared memory, its
 * many branches the pyramid's bounds; this is the computation without the tiling.
 * The reference: the same cases, cell by cell. */
#include "../program.h"

#define ROWS 48
#define COLS 64
#define STEPS 4

static float power[ROWS * COLS], grid_a[ROWS * COLS], grid_b[ROWS * COLS];
static float ref_a[ROWS * COLS], ref_b[ROWS * COLS];
static const float *temp;
static float *result;
static float step_div_cap, rx_1, ry_1, rz_1, amb_temp;

static void hotspot(void)
{
  unsigned i = tidx(), r = i / COLS, c = i % COLS;
  float t = temp[i], delta;
  if (r == 0 && c == 0) /* corner 1 */
    delta = step_div_cap * (power[i] + (temp[i + 1] - t) * rx_1 +
                            (temp[i + COLS] - t) * ry_1 + (amb_temp - t) * rz_1);
  else if (r == 0 && c == COLS - 1) /* corner 2 */
    delta = step_div_cap * (power[i] + (temp[i - 1] - t) * rx_1 +
                            (temp[i + COLS] - t) * ry_1 + (amb_temp - t) * rz_1);
  else if (r == ROWS - 1 && c == COLS - 1) /* corner 3 */
    delta = step_div_cap * (power[i] + (temp[i - 1] - t) * rx_1 +
                            (temp[i - COLS] - t) * ry_1 + (amb_temp - t) * rz_1);
  else if (r == ROWS - 1 && c == 0) /* corner 4 */
    delta = step_div_cap * (power[i] + (temp[i + 1] - t) * rx_1 +
                            (temp[i - COLS] - t) * ry_1 + (amb_temp - t) * rz_1);
  else if (r == 0) /* edge 1: top */
    delta = step_div_cap * (power[i] + (temp[i + 1] + temp[i - 1] - 2.0f * t) * rx_1 +
                            (temp[i + COLS] - t) * ry_1 + (amb_temp - t) * rz_1);
  else if (c == COLS - 1) /* edge 2: right */
    delta = step_div_cap * (power[i] + (temp[i + COLS] + temp[i - COLS] - 2.0f * t) * ry_1 +
                            (temp[i - 1] - t) * rx_1 + (amb_temp - t) * rz_1);
  else if (r == ROWS - 1) /* edge 3: bottom */
    delta = step_div_cap * (power[i] + (temp[i + 1] + temp[i - 1] - 2.0f * t) * rx_1 +
                            (temp[i - COLS] - t) * ry_1 + (amb_temp - t) * rz_1);
  else if (c == 0) /* edge 4: left */
    delta = step_div_cap * (power[i] + (temp[i + COLS] + temp[i - COLS] - 2.0f * t) * ry_1 +
                            (temp[i + 1] - t) * rx_1 + (amb_temp - t) * rz_1);
  else /* interior */
    delta = step_div_cap * (power[i] + (temp[i + COLS] + temp[i - COLS] - 2.0f * t) * ry_1 +
                            (temp[i + 1] + temp[i - 1] - 2.0f * t) * rx_1 +
                            (amb_temp - t) * rz_1);
  result[i] = t + delta;
}

/* One step of the reference, from `in` to `out`: the kernel's cases as a function of
 * the cell's position and its neighbours. */
static void reference_step(const float *in, float *out)
{
  for (unsigned r = 0; r < ROWS; r++)
    for (unsigned c = 0; c < COLS; c++) {
      unsigned i = r * COLS + c;
      float t = in[i], p = power[i], amb = (amb_temp - t) * rz_1, delta;
      float e = c + 1 < COLS ? in[i + 1] : 0.0f, w = c > 0 ? in[i - 1] : 0.0f;
      float s = r + 1 < ROWS ? in[i + COLS] : 0.0f, n = r > 0 ? in[i - COLS] : 0.0f;
      int top = r == 0, bottom = r == ROWS - 1, left = c == 0, right = c == COLS - 1;
      float horizontal = left ? e - t : right ? w - t : e + w - 2.0f * t;
      float vertical = top ? s - t : bottom ? n - t : s + n - 2.0f * t;
      /* The corners and the top and bottom edges add the horizontal term first. */
      if (top || bottom)
        delta = step_div_cap * (p + horizontal * rx_1 + vertical * ry_1 + amb);
      else
        delta = step_div_cap * (p + vertical * ry_1 + horizontal * rx_1 + amb);
      out[i] = t + delta;
    }
}

int main(void)
{
  /* Rodinia's constants, in single precision. */
  const float chip_height = 0.016f, chip_width = 0.016f, t_chip = 0.0005f;
  const float max_pd = 3.0e6f, precision = 0.001f, spec_heat_si = 1.75e6f;
  const float k_si = 100.0f, factor_chip = 0.5f;
  float grid_height = chip_height / ROWS, grid_width = chip_width / COLS;
  float cap = factor_chip * spec_heat_si * t_chip * grid_width * grid_height;
  float rx = grid_width / (2.0f * k_si * t_chip * grid_height);
  float ry = grid_height / (2.0f * k_si * t_chip * grid_width);
  float rz = t_chip / (k_si * grid_height * grid_width);
  float max_slope = max_pd / (factor_chip * t_chip * spec_heat_si);
  float step = precision / max_slope;
  step_div_cap = step / cap;
  rx_1 = 1.0f / rx;
  ry_1 = 1.0f / ry;
  rz_1 = 1.0f / rz;
  amb_temp = 80.0f;
  /* Temperatures 323..345 K; power up to about 1 mW a cell, hot spots in a block. */
  for (unsigned i = 0; i < ROWS * COLS; i++) {
    grid_a[i] = ref_a[i] = 323.0f + (float)(lcg() % 2200) * 0.01f;
    unsigned r = i / COLS, c = i % COLS;
    float hot = r >= 16 && r < 24 && c >= 40 && c < 52 ? 8.0f : 1.0f;
    power[i] = hot * (float)(lcg() % 1000) * 1.0e-7f;
  }
  poison(grid_b, sizeof grid_b);
  for (unsigned s = 0; s < STEPS; s++) {
    temp = s % 2 ? grid_b : grid_a;
    result = s % 2 ? grid_a : grid_b;
    launch(ROWS * COLS, hotspot);
    reference_step(s % 2 ? ref_b : ref_a, s % 2 ? ref_a : ref_b);
    int bad = mismatch(result, s % 2 ? ref_a : ref_b, ROWS * COLS, 4);
    if (bad)
      return bad;
  }
  return 0;
}
