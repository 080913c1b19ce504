/* A native (x86) stand-in for kernels/runtime/simt.h, for checking the kernel programs
 * with the host's compiler (tests/simt_kernels.rs): the same two functions, tidx() read
 * from a global and launch_kernel() a loop over the threads. The threads run one after
 * another, like the ISS's, but last thread first: a kernel whose result depends on the
 * order of its threads (which the engine interleaves by warps) fails here. */
#ifndef SIMT_H
#define SIMT_H

static unsigned simt_native_thread;

static inline unsigned tidx(void)
{
  return simt_native_thread;
}

static inline void launch_kernel(unsigned n, void (*kernel)(void))
{
  for (unsigned t = n; t-- > 0;) {
    simt_native_thread = t;
    kernel();
  }
}

#endif
