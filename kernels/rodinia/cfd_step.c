/* cfd_step: Rodinia cfd's compute_step_factor kernel (seed 004, Table 2, "CFD"), single
 * precision, for 4,000 cells of the Euler solver (an unstructured mesh's elements;
 * NVAR = 5 conserved variables a cell, stored variable-major, Rodinia's layout). A
 * thread a cell: velocity = momentum / density (three divisions), speed^2, pressure =
 * (gamma - 1) (density_energy - 0.5 density speed^2), speed of sound =
 * sqrt(gamma pressure / density), step factor = 0.5 / (sqrt(area) (speed + speed of
 * sound)): three `fsqrt.s` and five `fdiv.s`, no branches. 4,000 cells: the last warp
 * is partial. The reference: the same operations, cell by cell. */
#include "../program.h"

#define CELLS 4000
#define NVAR 5
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_DENSITY_ENERGY 4
#define GAMMA 1.4f

static float variables[NVAR * CELLS], areas[CELLS], step_factors[CELLS], ref[CELLS];

/* Rodinia's compute_velocity, compute_speed_sqd, compute_pressure and
 * compute_speed_of_sound, inlined: the step factor of cell i. */
static inline float step_factor(unsigned i)
{
  float density = variables[i + VAR_DENSITY * CELLS];
  float mx = variables[i + (VAR_MOMENTUM + 0) * CELLS];
  float my = variables[i + (VAR_MOMENTUM + 1) * CELLS];
  float mz = variables[i + (VAR_MOMENTUM + 2) * CELLS];
  float density_energy = variables[i + VAR_DENSITY_ENERGY * CELLS];
  float vx = mx / density, vy = my / density, vz = mz / density;
  float speed_sqd = vx * vx + vy * vy + vz * vz;
  float pressure = (GAMMA - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
  float speed_of_sound = fsqrt(GAMMA * pressure / density);
  return 0.5f / (fsqrt(areas[i]) * (fsqrt(speed_sqd) + speed_of_sound));
}

static void compute_step_factor(void)
{
  unsigned i = tidx();
  step_factors[i] = step_factor(i);
}

int main(void)
{
  /* Near Rodinia's far-field state (density 1.4, Mach 1.2 at an angle of attack):
   * density 1.0..1.8, momentum components -0.5..2.5, energy the kinetic energy plus
   * 2.5..4.5 (the pressure positive), areas 1e-4..1e-3. */
  for (unsigned i = 0; i < CELLS; i++) {
    float density = 1.0f + (float)(lcg() % 1024) / 1280.0f;
    variables[i + VAR_DENSITY * CELLS] = density;
    float kinetic = 0.0f;
    for (unsigned d = 0; d < 3; d++) {
      float m = (float)(lcg() % 3072) / 1024.0f - 0.5f;
      variables[i + (VAR_MOMENTUM + d) * CELLS] = m;
      kinetic += 0.5f * m * m / density;
    }
    variables[i + VAR_DENSITY_ENERGY * CELLS] = kinetic + 2.5f + (float)(lcg() % 2048) / 1024.0f;
    areas[i] = 1.0e-4f + (float)(lcg() % 900) * 1.0e-6f;
  }
  poison(step_factors, sizeof step_factors);
  launch(CELLS, compute_step_factor);
  for (unsigned i = 0; i < CELLS; i++) {
    ref[i] = step_factor(i);
    if (!(ref[i] > 0.0f))
      return 255; /* not a number: the inputs are wrong */
  }
  return mismatch(step_factors, ref, CELLS, 4);
}
