/* Checks the initial registers of every thread of two launches (regs.S dumps
 * them): ra 0, sp 256 bytes apart and 16-aligned, gp and tp the host's (or what `globals`
 * set), all others 0,
 * f0/f31 +0.0, fcsr 0 (rows 0, 5, 6 hold f0, f31, fcsr). Exit 0 when all hold, else a
 * code naming the first failure. */
#include <simt.h>

unsigned regs[100][32];
void dump_regs(void);

static int check(unsigned n, unsigned gp, unsigned tp)
{
  for (unsigned t = 0; t < n; t++) {
    unsigned *r = regs[t];
    if (r[1] != 0) return 10;
    if (r[2] != regs[0][2] - 256 * t || (r[2] & 15) != 0) return 11;
    if (r[3] != gp || r[4] != tp) return 12;
    for (int i = 7; i < 32; i++)
      if (r[i] != 0) return 13;
    if (r[0] != 0 || r[5] != 0 || r[6] != 0) return 14;
  }
  return 0;
}

int main(void)
{
  unsigned gp, tp;
  __asm__("mv %0, gp" : "=r"(gp));
  __asm__("mv %0, tp" : "=r"(tp));
  for (unsigned t = 0; t < 100; t++)
    for (int i = 0; i < 32; i++)
      regs[t][i] = 0xdeadbeef;
  launch_kernel(100, dump_regs);
  int e = check(100, gp, tp);
  if (e) return e;
  /* A second launch after the host has used its registers: the same initial state. */
  for (unsigned t = 0; t < 100; t++)
    regs[t][1] = 0xdeadbeef;
  launch_kernel(37, dump_regs);
  if ((e = check(37, gp, tp))) return 20 + e;
  if (regs[37][1] != 0xdeadbeef) return 30; /* thread 37 does not exist */
  launch_kernel(0, dump_regs);
  /* The threads' gp and tp are what `globals` set, not the host's. */
  __asm__ volatile(".insn r CUSTOM_0, 3, 3, x0, %0, %1" : : "r"(0x1234), "r"(0x5678));
  __asm__ volatile(".insn r CUSTOM_0, 7, 1, x0, %0, %1" : : "r"(3), "r"(dump_regs) : "memory");
  if ((e = check(3, 0x1234, 0x5678))) return 40 + e;
  return 0;
}
