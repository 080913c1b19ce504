/* The host side of the SPMD interface (simt.h): per-thread stacks and the launch. */
#include <simt.h>
#include <stdio.h>
#include <stdlib.h>

/* Threads a launch may have and the stack each gets. A kernel that needs more stack
 * (deep calls, large local arrays) than SIMT_STACK_BYTES overruns its neighbour's:
 * kernels are leaf code that keeps its data in globals. */
#define SIMT_MAX_THREADS 4096
#define SIMT_STACK_BYTES 256

/* Not cleared at start-up: a thread's stack holds what the thread writes there. */
static char simt_stacks[SIMT_MAX_THREADS * SIMT_STACK_BYTES]
    __attribute__((section(".noinit"), aligned(16)));

void launch_kernel(unsigned n, void (*kernel)(void))
{
  if (n > SIMT_MAX_THREADS) {
    printf("launch_kernel: %u threads, at most %u\n", n, SIMT_MAX_THREADS);
    exit(124);
  }
  char *top = simt_stacks + sizeof simt_stacks;
  __asm__ volatile(".insn r CUSTOM_0, 3, 2, x0, %0, %1"
                   :
                   : "r"(top), "r"(SIMT_STACK_BYTES));
  /* The threads' gp and tp are the host's: globals by gp-relative addressing. */
  __asm__ volatile(".insn r CUSTOM_0, 3, 3, x0, gp, tp");
  __asm__ volatile(".insn r CUSTOM_0, 7, 1, x0, %0, %1"
                   :
                   : "r"(n), "r"(kernel)
                   : "memory");
}
