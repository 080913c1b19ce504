# Start-up code for bare-metal C programs: set up gp, sp and tp (picolibc's errno is
# thread-local), install a trap handler that reports unexpected traps, clear .bss, run
# main and exit with its return value through HTIF (exit -> _exit in htif.c).

  .section .text.init, "ax", @progbits
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la tp, __tls_base
  la t0, unexpected_trap
  csrw mtvec, t0

  # .bss and .tbss are NOLOAD, so clear them here rather than trusting the loader.
  la a0, __bss_start
  la a1, __bss_end
1:
  bgeu a0, a1, 2f
  sd zero, 0(a0)
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
  sd a0, 8(t0)
  csrr t1, mepc
  sd t1, 16(t0)
  csrr t1, mtval
  sd t1, 24(t0)
  li t1, 0x5452415052505421   # TRAP_REPORT_MAGIC in verification/src/exit.rs
  sd t1, 0(t0)
  addi a0, a0, 128
  call _exit

  .section .bss
  .align 3
  .globl __trap_report
__trap_report:
  .zero 32
