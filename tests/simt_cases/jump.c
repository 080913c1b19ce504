/* A kernel whose indirect call goes to different functions for different threads of a
 * warp: the SIMT model (and the engine) refuse it. */
#include <simt.h>

unsigned out[64];
static void even(void) { out[tidx()] = 2; }
static void odd(void) { out[tidx()] = 1; }
void (*volatile table[2])(void) = {even, odd};

void kernel(void) { table[tidx() & 1](); }

int main(void)
{
  launch_kernel(64, kernel);
  for (unsigned t = 0; t < 64; t++)
    if (out[t] != 2 - (t & 1))
      return 1;
  return 0;
}
