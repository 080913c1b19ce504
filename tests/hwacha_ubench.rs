//! The Hwacha microbenchmarks of thesis Table 9.1 (`verification/programs/hwacha/ubench/`:
//! control-thread C strip-mining loops with worker blocks in Hwacha assembly) on the
//! Hwacha golden model attached to the ISS, for 1, 2, 4 and 8 lanes. Each program checks
//! its results bit for bit against a scalar C reference computed in the same program and
//! exits with 0, or with 1 + the index of the first wrong element.
//!
//! One ELF per benchmark serves every vector length: the program runs its kernel once per
//! entry of `ubench_caps` (written here through the ELF symbols), capping each vsetvl
//! request at it, and reports maxvl, the problem size (past maxvl, not a multiple of it)
//! and the runs that matched. Default: every vector length 1..=maxvl on 1 lane, and 1, 2,
//! 3, three random ones, maxvl - 1 and maxvl on 2, 4 and 8 lanes. `ACCELGEN_LONG=1`:
//! every vector length on every lane count.

use std::cell::RefCell;
use std::rc::Rc;
use verification::elf::Program;
use verification::hwacha::model::{Hwacha, HwachaError, HwachaParams};
use verification::hwacha::ubench;
use verification::iss::{Iss, IssConfig, Stop};
use verification::tb::Capture;

const LANES: [u32; 4] = [1, 2, 4, 8];
/// Instructions any run may take (the longest, a full sweep on 8 lanes, takes far fewer).
const MAX_INSTRET: u64 = 20_000_000_000;

/// What one run of a benchmark program did.
struct Outcome {
    stop: Stop,
    stdout: String,
    exception: Option<HwachaError>,
    /// The program's `ubench_maxvl`, `ubench_size` and `ubench_done`.
    maxvl: u64,
    size: u64,
    done: u64,
}

/// Runs `program` on a machine of `lanes` lanes with the given vector-length caps (none:
/// one uncapped run).
fn run(program: &Program, lanes: u32, caps: &[u64]) -> Outcome {
    let stdout = Capture::default();
    let config = IssConfig {
        stdout: Box::new(stdout.clone()),
        ..IssConfig::default()
    };
    let mut program = program.clone();
    let caps: Vec<u32> = caps.iter().map(|&c| u32::try_from(c).unwrap()).collect();
    ubench::set_caps(&mut program, &caps).unwrap();
    let mut iss = Iss::new(&program, config).unwrap();
    let params = HwachaParams {
        lanes,
        ..HwachaParams::default()
    };
    let unit = Rc::new(RefCell::new(Hwacha::new(params).unwrap()));
    iss.attach_rocc(Box::new(unit.clone()));
    let stop = iss.run(Some(MAX_INSTRET), None).unwrap();
    let read = |name: &str| {
        let at = ubench::symbol(&program, name).unwrap();
        iss.mem.read(at, 8).unwrap()
    };
    let exception = unit.borrow().exception().cloned();
    Outcome {
        stop,
        stdout: stdout.text(),
        exception,
        maxvl: read("ubench_maxvl"),
        size: read("ubench_size"),
        done: read("ubench_done"),
    }
}

fn long() -> bool {
    std::env::var("ACCELGEN_LONG").is_ok_and(|v| v == "1")
}

/// The vector lengths to run on `lanes` lanes: all of 1..=maxvl on one lane (or in long
/// runs, or when there are few), else 1, 2, 3, three random ones (fixed by `seed`),
/// maxvl - 1 and maxvl.
fn vector_lengths(maxvl: u64, lanes: u32, seed: u64) -> Vec<u64> {
    if lanes == 1 || long() || maxvl <= 8 {
        return (1..=maxvl).collect();
    }
    let mut state = seed | 1;
    let mut random = || {
        // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        4 + state % (maxvl - 5)
    };
    let mut v = vec![1, 2, 3, random(), random(), random(), maxvl - 1, maxvl];
    v.sort_unstable();
    v.dedup();
    v
}

/// Runs benchmark `name` (built from `family` with `defines`) on every lane count over
/// its vector lengths.
fn check(name: &str, family: &str, defines: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let program = ubench::build(dir.path(), family, defines).unwrap();
    let vcfg = ubench::vcfg(&program).unwrap();
    let seed = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    for lanes in LANES {
        let params = HwachaParams {
            lanes,
            ..HwachaParams::default()
        };
        let maxvl = params.maxvl(&vcfg);
        let caps = vector_lengths(maxvl, lanes, seed ^ lanes as u64);
        let o = run(&program, lanes, &caps);
        let what = format!("{name} on {lanes} lanes");
        assert_eq!(
            o.stop,
            Stop::Exit(0),
            "{what}: {}{:?}",
            o.stdout,
            o.exception
        );
        assert_eq!(o.exception, None, "{what}");
        assert_eq!(o.maxvl, maxvl, "{what}: the maximum vector length");
        assert!(
            o.size > maxvl && !o.size.is_multiple_of(maxvl),
            "{what}: size {} must exceed maxvl {maxvl} and not be a multiple of it",
            o.size
        );
        assert_eq!(o.done, caps.len() as u64, "{what}: runs that matched");
        assert_eq!(
            o.stdout,
            format!(
                "{name}: maxvl {maxvl}, size {}: {} run(s) match the scalar reference\n",
                o.size,
                caps.len()
            ),
            "{what}"
        );
    }
}

macro_rules! benchmarks {
    ($($test:ident: $name:literal = $family:literal $(, $define:literal)*;)*) => {
        $(
            #[test]
            fn $test() {
                check($name, $family, &[$($define),*]);
            }
        )*
    };
}

benchmarks! {
    saxpy: "saxpy" = "axpy", "PREC_S";
    daxpy: "daxpy" = "axpy", "PREC_D";
    hsaxpy: "hsaxpy" = "axpy", "PREC_HS";
    sdaxpy: "sdaxpy" = "axpy", "PREC_SD";
    sgemm: "sgemm" = "gemm", "PREC_S";
    dgemm: "dgemm" = "gemm", "PREC_D";
    hsgemm: "hsgemm" = "gemm", "PREC_HS";
    sdgemm: "sdgemm" = "gemm", "PREC_SD";
    sgemm_opt: "sgemm-opt" = "gemm_opt", "PREC_S";
    dgemm_opt: "dgemm-opt" = "gemm_opt", "PREC_D";
    hsgemm_opt: "hsgemm-opt" = "gemm_opt", "PREC_HS";
    sdgemm_opt: "sdgemm-opt" = "gemm_opt", "PREC_SD";
    sfilter: "sfilter" = "filter", "PREC_S";
    dfilter: "dfilter" = "filter", "PREC_D";
    hsfilter: "hsfilter" = "filter", "PREC_HS";
    sdfilter: "sdfilter" = "filter", "PREC_SD";
    mask_sfilter: "mask-sfilter" = "filter", "PREC_S", "MASK";
    mask_dfilter: "mask-dfilter" = "filter", "PREC_D", "MASK";
    mask_hsfilter: "mask-hsfilter" = "filter", "PREC_HS", "MASK";
    mask_sdfilter: "mask-sdfilter" = "filter", "PREC_SD", "MASK";
}

/// The checks catch a single wrong element: built with UBENCH_DROP_LAST, the strip-mining
/// loop never computes the problem's last element (the last row of C, the last column of
/// each image row), so the first mismatch is at a known index.
#[test]
fn a_missing_element_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    for (family, defines) in [
        ("axpy", ["PREC_S", "UBENCH_DROP_LAST"]),
        ("gemm_opt", ["PREC_HS", "UBENCH_DROP_LAST"]),
        ("filter", ["PREC_D", "UBENCH_DROP_LAST"]),
    ] {
        let program = ubench::build(dir.path(), family, &defines).unwrap();
        for caps in [&[][..], &[5, 7]] {
            let o = run(&program, 2, caps);
            // axpy: y[n - 1]; gemm-opt: C[m - 1, 0]; filter: dst[w - 2, 1] with w = n + 2.
            let index = match family {
                "filter" => 2 * (o.size + 2) - 2,
                _ => o.size - 1,
            };
            assert_eq!(o.stop, Stop::Exit(1 + index), "{family}: {}", o.stdout);
            assert_eq!(o.exception, None);
            assert_eq!(o.done, 0, "{family}: the first run fails");
            let cap = caps.first().copied().unwrap_or(o.maxvl);
            assert!(
                o.stdout.contains(&format!(
                    "run 0 (vector length cap {cap}): element {index} is 0x"
                )),
                "{family}: {}",
                o.stdout
            );
        }
    }
}
