//! The FG-SIMT kernel programs of `kernels/` (seed 000, Table 2's FG column; see
//! `kernels/README.md`): each built by `accelgen asm --target simt` and run by
//! `accelgen iss` (the RV32IMAF golden model, a launch's threads one after another)
//! exits 0, its kernels' results equal to the host's reference, and its kernels are
//! leaf code (no calls, no stack, no indirect jumps); built with
//! `-DSIMT_SELFTEST_SKIP_LAST` (every launch one thread short) it exits non-zero, so
//! the check bites. Each is also compiled by the host's `cc` with the native stand-in
//! `kernels/native/simt.h` (threads last first) under AddressSanitizer and
//! UndefinedBehaviorSanitizer and must exit 0: a second compiler, ISA and thread order.

#[macro_use]
mod kernel_programs;

kernel_tests!(
    "":
    bfs, bilat, bsearch, cmult, conv, dither, kmeans, mfilt, rgb2cmyk, rsort, sgemm, strsearch,
    viterbi,
);
