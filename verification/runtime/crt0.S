# Start-up code for bare-metal C programs (RV64 or RV32): set up gp, sp and tp
# (picolibc's errno is thread-local), install a trap handler that reports unexpected
# traps, turn the FPU on (mstatus.FS = Initial) when compiled for F, clear .bss, run main
# and exit with its return value through HTIF (exit -> _exit in htif.c).

#if __riscv_xlen == 32
// Stores the register's value as a 64-bit word (zero-extended).
#define STORE64(reg, off, base) sw reg, off(base); sw zero, off + 4(base)
#else
#define STORE64(reg, off, base) sd reg, off(base)
#endif

  .section .text.init, "ax", @progbits
  .globl _start
_start:
  # Integer registers have no reset (the generated cores' register files are memories):
  # zero them, so a register read before it is written (a varargs spill) reads what the
  # ISS has.
  .irp n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
  li x\n, 0
  .endr
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la tp, __tls_base
  la t0, unexpected_trap
  csrw mtvec, t0
#ifdef __riscv_flen
  li t0, 0x2000
  csrs mstatus, t0
#endif

  # .bss and .tbss are NOLOAD, so clear them here rather than trusting the loader.
  la a0, __bss_start
  la a1, __bss_end
1:
  bgeu a0, a1, 2f
  STORE64(zero, 0, a0)
  addi a0, a0, 8
  j 1b
2:
  li a0, 0
  li a1, 0
  call main
  call exit

# Any trap in a C program is a bug: record it in __trap_report (magic, mcause, mepc,
# mtval: what the host prints) and exit with code 128 + mcause. No stack, no gp: either
# may be what went wrong.
  .align 2
unexpected_trap:
  .option push
  .option norelax
  la t0, __trap_report
  .option pop
  csrr a0, mcause
  STORE64(a0, 8, t0)
  csrr t1, mepc
  STORE64(t1, 16, t0)
  csrr t1, mtval
  STORE64(t1, 24, t0)
  # TRAP_REPORT_MAGIC in verification/src/exit.rs
#if __riscv_xlen == 32
  li t1, 0x52505421
  sw t1, 0(t0)
  li t1, 0x54524150
  sw t1, 4(t0)
#else
  li t1, 0x5452415052505421
  sd t1, 0(t0)
#endif
  addi a0, a0, 128
  call _exit

  .section .bss
  .align 3
  .globl __trap_report
__trap_report:
  .zero 32
