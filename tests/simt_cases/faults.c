/* Kernels that break the SIMT rules, one per -DCASE: the run must fail with a clear
 * error (or, for a host-side fault, the C runtime's trap exit). */
#include <simt.h>

volatile unsigned sink[64];
static void nothing(void) {}

void kernel(void)
{
  unsigned t = tidx();
#if CASE == 1 /* a load fault in thread 5 */
  if (t == 5)
    sink[0] = *(volatile unsigned *)0x10;
#elif CASE == 2 /* a nested launch */
  if (t == 3)
    launch_kernel(1, nothing);
#elif CASE == 3 /* a machine CSR in a kernel */
  unsigned c;
  __asm__ volatile("csrr %0, mcycle" : "=r"(c));
  sink[t] = c;
#elif CASE == 4 /* a thread that never returns */
  while (sink[63] == 0)
    sink[t]++;
#elif CASE == 5 /* the FP CSRs are a thread's own: allowed */
  unsigned f;
  __asm__ volatile("fsrmi 2\n\tfrrm %0" : "=r"(f));
  sink[t] = f;
#endif
  sink[t] += t;
}

int main(void)
{
#if CASE == 6 /* tidx on the host */
  return tidx();
#endif
  launch_kernel(8, kernel);
  unsigned frm;
  __asm__ volatile("frrm %0" : "=r"(frm));
  return (CASE == 5 && (sink[7] != 9 || frm != 0)) ? 1 : 0;
}
