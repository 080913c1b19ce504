/* SPMD kernel interface of accelgen's data-parallel machines (the FG-SIMT engine, the
 * VGIW fabric) and of their golden model, the RV32IMAF ISS (`accelgen iss`).
 *
 * A program is ordinary RV32IMAF C: `int main(void)` runs on the control processor and
 * its return value is the exit code. A kernel is a `void kernel(void)` function that
 * every thread runs; it takes its arguments from globals and tells threads apart with
 * `tidx()`. `launch_kernel(n, kernel)` runs it on threads 0..n-1 and returns when all
 * have finished and their stores are visible.
 *
 * The instructions (custom-0, RoCC-style funct3 = {xd, xs1, xs2}), documented in the
 * top-level README.md ("SPMD kernels"):
 *   tidx rd             .insn r CUSTOM_0, 4, 0, rd, x0, x0    in a kernel only
 *   launch rs1, rs2     .insn r CUSTOM_0, 7, 1, x0, rs1, rs2  n, entry; host only
 *   stack rs1, rs2      .insn r CUSTOM_0, 3, 2, x0, rs1, rs2  top, bytes per thread
 *   globals rs1, rs2    .insn r CUSTOM_0, 3, 3, x0, rs1, rs2  threads' gp, tp
 *
 * A thread starts at the kernel's entry with every register zero except ra = 0 (a
 * return ends the thread), sp = top - tidx * bytes (the last `stack` instruction's
 * values), gp and tp the last `globals` instruction's (launch_kernel passes the host's);
 * f registers +0.0, fcsr 0.
 */
#ifndef SIMT_H
#define SIMT_H

/* The calling thread's index, 0..n-1. Not volatile: the value is fixed for a thread,
 * so the compiler may reuse it. */
static inline unsigned tidx(void)
{
  unsigned t;
  __asm__(".insn r CUSTOM_0, 4, 0, %0, x0, x0" : "=r"(t));
  return t;
}

/* Runs `kernel` on threads 0..n-1; returns when all have finished and their memory
 * operations are visible. At most SIMT_MAX_THREADS threads (simt.c). */
void launch_kernel(unsigned n, void (*kernel)(void));

#endif
