/* cfd_copy: the CFD solver's copy of its state (seed 004, Table 2, "CFD"; the paper's
 * CFD3, a kernel "that simply moves data from one array to another"): at the start of
 * each of Rodinia cfd's iterations the solver saves the conserved variables,
 * old_variables = variables, before its Runge-Kutta steps overwrite them. A thread a
 * cell, 4,000 cells, NVAR = 5 variables a cell stored variable-major: five loads and
 * five stores of unit stride across the threads, no arithmetic but addresses, one
 * basic block (the five variables written out, as Rodinia's kernels do). The
 * reference: the arrays compared bit for bit. */
#include "../program.h"

#define CELLS 4000
#define NVAR 5

static float variables[NVAR * CELLS], old_variables[NVAR * CELLS];

static void cfd_copy(void)
{
  unsigned i = tidx();
  old_variables[i + 0 * CELLS] = variables[i + 0 * CELLS];
  old_variables[i + 1 * CELLS] = variables[i + 1 * CELLS];
  old_variables[i + 2 * CELLS] = variables[i + 2 * CELLS];
  old_variables[i + 3 * CELLS] = variables[i + 3 * CELLS];
  old_variables[i + 4 * CELLS] = variables[i + 4 * CELLS];
}

int main(void)
{
  for (unsigned i = 0; i < NVAR * CELLS; i++)
    variables[i] = (float)((int)(lcg() % 65536) - 32768) / 4096.0f;
  poison(old_variables, sizeof old_variables);
  launch(CELLS, cfd_copy);
  return mismatch(old_variables, variables, NVAR * CELLS, 4);
}
