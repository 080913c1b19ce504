/* A kernel whose thread 5 loads a word from a misaligned address: the engine's fault
 * must be the ISS's trap (load address misaligned, that thread, that pc, that address),
 * and the run's exit code `accelgen iss`'s. */
#include <simt.h>

volatile unsigned sink[64];

static void kernel(void)
{
  unsigned t = tidx();
  unsigned v = 0;
  if (t == 5) /* GCC would split a misaligned C access: the word load by hand */
    __asm__ volatile("lw %0, 2(%1)" : "=r"(v) : "r"(sink) : "memory");
  sink[t] = v + t;
}

int main(void)
{
  launch_kernel(12, kernel);
  return 0;
}
