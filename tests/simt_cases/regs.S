# A kernel that stores its initial registers: regs[t][i] = x_i for thread t (t0 and t1
# excepted: they address the row). The host (regs_main.c) checks them against the ABI.
#define CUSTOM_TIDX(rd) .insn r CUSTOM_0, 4, 0, rd, x0, x0
  .text
  .globl dump_regs
dump_regs:
  CUSTOM_TIDX(t0)
  slli t0, t0, 7
  .option push
  .option norelax
  la t1, regs
  .option pop
  add t0, t0, t1
  .irp n, 1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
  sw x\n, 4 * \n(t0)
  .endr
  fmv.x.w t1, f0
  sw t1, 0(t0)
  fmv.x.w t1, f31
  sw t1, 4 * 5(t0)
  frcsr t1
  sw t1, 4 * 6(t0)
  ret
