//! The Rodinia-style kernel programs of `kernels/rodinia/` (seed 004, Table 2: the
//! VGIW paper's Rodinia kernels but BFS, which is `kernels/bfs.c`; see
//! `kernels/README.md`), checked as `tests/simt_kernels.rs` checks `kernels/`: each
//! exits 0 on the ISS with leaf kernels, fails its check with a thread left out
//! (`-DSIMT_SELFTEST_SKIP_LAST`), and exits 0 natively, threads last first, under
//! AddressSanitizer and UndefinedBehaviorSanitizer.

#[macro_use]
mod kernel_programs;

kernel_tests!(
    "rodinia":
    backprop, cfd_copy, cfd_step, gaussian, hotspot, kmeans_invert, lud, nn, nw, pf_normalize,
);
