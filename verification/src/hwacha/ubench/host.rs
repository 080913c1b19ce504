//! Host-data mode of the microbenchmarks (`-DUBENCH_HOST_DATA`, `ubench.h`): the host
//! generates a benchmark's inputs, writes them, the problem size and every run's own
//! output array with its initial values into the program's image before it starts, and
//! after the run checks each run's output, as the run left it in memory, against this
//! module's model of the benchmark: the semantics of the scalar reference in its `.c`,
//! in the build's precision (`prec.h`): 64-bit wrapping integers (`PREC_I`), or IEEE
//! arithmetic rounded to nearest even in the compute format with the storage format's
//! conversions around it, on the golden model's FP library (`crate::fp`), operation by
//! operation in the reference's order. The program does none of its own data
//! generation, reference or check, which cost the control processor far more cycles
//! than the vector unit spent on the kernels (soft-float ones, in FP builds).
//!
//! Integer inputs are uniform over all 64 bits (xorshift64 from a seed), FP ones as
//! `ubench.h`'s `random_fp`: random sign and mantissa, exponents uniform over 2^-10 to
//! 2^3. The filter's nine weights are the host's too, random, where a `PREC_I` build's
//! own weights (its Gaussian's values cast to integers) are all zero.

use super::{read_u64, size, symbol, write, UbenchError};
use crate::elf::Program;
use crate::fp::{self, Arith, Fmt, FpOp};
use std::path::Path;

/// A microbenchmark (thesis Table 9.1's kernels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    Axpy,
    Gemm,
    GemmOpt,
    Filter,
    MaskFilter,
}

impl Kernel {
    pub const ALL: [Kernel; 5] = [
        Kernel::Axpy,
        Kernel::Gemm,
        Kernel::GemmOpt,
        Kernel::Filter,
        Kernel::MaskFilter,
    ];
}

/// A build's precision (`prec.h`): storage and compute types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// 64-bit integers.
    I,
    S,
    D,
    /// Half storage and arithmetic (the mixed-precision extension's h variants; built
    /// in host-data mode only).
    H,
    /// Half storage, single arithmetic.
    Hs,
    /// Single storage, double arithmetic.
    Sd,
}

impl Precision {
    pub const ALL: [Precision; 6] = [
        Precision::I,
        Precision::S,
        Precision::D,
        Precision::H,
        Precision::Hs,
        Precision::Sd,
    ];

    /// Table 9.1's prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Precision::I => "i",
            Precision::S => "s",
            Precision::D => "d",
            Precision::H => "h",
            Precision::Hs => "hs",
            Precision::Sd => "sd",
        }
    }

    fn define(self) -> &'static str {
        match self {
            Precision::I => "PREC_I",
            Precision::S => "PREC_S",
            Precision::D => "PREC_D",
            Precision::H => "PREC_H",
            Precision::Hs => "PREC_HS",
            Precision::Sd => "PREC_SD",
        }
    }

    /// Storage and compute formats (`None` for integers).
    fn formats(self) -> Option<(Fmt, Fmt)> {
        match self {
            Precision::I => None,
            Precision::S => Some((Fmt::S, Fmt::S)),
            Precision::D => Some((Fmt::D, Fmt::D)),
            Precision::H => Some((Fmt::H, Fmt::H)),
            Precision::Hs => Some((Fmt::H, Fmt::S)),
            Precision::Sd => Some((Fmt::S, Fmt::D)),
        }
    }

    /// Bytes of a stored element.
    pub fn store_bytes(self) -> usize {
        self.formats().map_or(8, |(s, _)| s.bits() as usize / 8)
    }
}

/// A microbenchmark in one precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bench {
    pub kernel: Kernel,
    pub precision: Precision,
}

impl Bench {
    pub fn new(kernel: Kernel, precision: Precision) -> Bench {
        Bench { kernel, precision }
    }

    /// The name the program prints (Table 9.1's, `UBENCH_NAME`).
    pub fn name(self) -> String {
        let p = self.precision.prefix();
        match self.kernel {
            Kernel::Axpy => format!("{p}axpy"),
            Kernel::Gemm => format!("{p}gemm"),
            Kernel::GemmOpt => format!("{p}gemm-opt"),
            Kernel::Filter => format!("{p}filter"),
            Kernel::MaskFilter => format!("mask-{p}filter"),
        }
    }

    /// Builds the benchmark in host-data mode into `dir`, with further `defines` (such
    /// as `UBENCH_DROP_LAST`), and loads it.
    pub fn build(self, dir: &Path, defines: &[&str]) -> Result<Program, UbenchError> {
        let family = match self.kernel {
            Kernel::Axpy => "axpy",
            Kernel::Gemm => "gemm",
            Kernel::GemmOpt => "gemm_opt",
            Kernel::Filter | Kernel::MaskFilter => "filter",
        };
        let mut all = vec![self.precision.define(), "UBENCH_HOST_DATA"];
        if self.kernel == Kernel::MaskFilter {
            all.push("MASK");
        }
        all.extend(defines);
        super::build(dir, family, &all)
    }
}

/// The arithmetic of a precision on values as their bits (a compute or storage value of
/// an FP build: its format's bits, as memory holds them).
struct Numbers(Precision);

impl Numbers {
    fn fp(&self, op: FpOp, a: u64, b: u64) -> u64 {
        let (bits, _) = fp::execute(op, a, b, 0, fp::round_of(0));
        bits
    }

    fn comp(&self) -> Option<Fmt> {
        self.0.formats().map(|f| f.1)
    }

    fn mask(f: Fmt) -> u64 {
        u64::MAX >> (64 - f.bits())
    }

    fn mul(&self, a: u64, b: u64) -> u64 {
        match self.comp() {
            None => a.wrapping_mul(b),
            Some(c) => self.fp(FpOp::Arith(Arith::Mul, c), a, b) & Self::mask(c),
        }
    }

    fn add(&self, a: u64, b: u64) -> u64 {
        match self.comp() {
            None => a.wrapping_add(b),
            Some(c) => self.fp(FpOp::Arith(Arith::Add, c), a, b) & Self::mask(c),
        }
    }

    /// Storage to compute precision (exact).
    fn to_comp(&self, x: u64) -> u64 {
        match self.0.formats() {
            Some((from, to)) if from != to => {
                self.fp(FpOp::Convert { from, to }, x, 0) & Self::mask(to)
            }
            _ => x,
        }
    }

    /// Compute to storage precision (rounded to nearest even).
    fn to_store(&self, x: u64) -> u64 {
        match self.0.formats() {
            Some((to, from)) if from != to => {
                self.fp(FpOp::Convert { from, to }, x, 0) & Self::mask(to)
            }
            _ => x,
        }
    }

    /// A random value of format `f` (`ubench.h`'s `random_fp`), or a random integer.
    fn random(f: Option<Fmt>, rng: &mut Rng) -> u64 {
        let Some(f) = f else { return rng.next() };
        let (e, m) = match f {
            Fmt::H => (5, 10),
            Fmt::S => (8, 23),
            Fmt::D => (11, 52),
        };
        let r = rng.next();
        let exp = ((1u64 << (e - 1)) - 1) - 10 + (((r & 0xffff) * 14) >> 16);
        let man = rng.next() & ((1u64 << m) - 1);
        (r >> 63) << (e + m) | exp << m | man
    }

    fn store(&self, rng: &mut Rng) -> u64 {
        Self::random(self.0.formats().map(|f| f.0), rng)
    }

    fn compute(&self, rng: &mut Rng) -> u64 {
        Self::random(self.comp(), rng)
    }

    fn stores(&self, n: usize, rng: &mut Rng) -> Vec<u64> {
        (0..n).map(|_| self.store(rng)).collect()
    }
}

/// Rows of B and A's values per column (`K` in `gemm.c`, `gemm_opt.c`).
const GEMM_K: usize = 8;
/// Columns of C and A (`J`).
const GEMM_J: usize = 8;
/// The filter's image height (`H` in `filter.c`).
const FILTER_H: usize = 6;

/// What the host writes before the start and what each run must leave.
struct Problem {
    /// Arrays and host-set variables by symbol, as bytes.
    inputs: Vec<(&'static str, Vec<u8>)>,
    /// The symbol of the output array's first copy.
    output: &'static str,
    /// The output array's initial values (stored elements' bits).
    initial: Vec<u64>,
    /// The model's output.
    expected: Vec<u64>,
}

/// xorshift64 (Marsaglia).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// `values` as little-endian elements of `bytes` bytes.
fn le_bytes(values: &[u64], bytes: usize) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| v.to_le_bytes()[..bytes].to_vec())
        .collect()
}

/// axpy (`axpy.c`): y = a * x + y over n elements (multiply, then add).
fn axpy(num: &Numbers, n: usize, rng: &mut Rng) -> Problem {
    let a = num.compute(rng);
    let (x, y) = (num.stores(n, rng), num.stores(n, rng));
    let expected = (y.iter().zip(&x))
        .map(|(&y, &x)| {
            let product = num.mul(num.to_comp(x), a);
            num.to_store(num.add(num.to_comp(y), product))
        })
        .collect();
    let bytes = num.0.store_bytes();
    Problem {
        inputs: vec![
            ("ubench_a", a.to_le_bytes().to_vec()),
            ("ubench_x", le_bytes(&x, bytes)),
        ],
        output: "ubench_y",
        initial: y,
        expected,
    }
}

/// gemm and gemm-opt (`gemm.c`, `gemm_opt.c`): C += A * B with m rows, column-major with
/// leading dimension m, A's columns holding K values. gemm rounds C to the storage
/// precision after each block of four k, gemm-opt only at the end.
fn gemm(num: &Numbers, m: usize, blocked: bool, rng: &mut Rng) -> Problem {
    let mut a = vec![0; m * GEMM_J];
    for column in a.chunks_mut(m) {
        column[..GEMM_K].copy_from_slice(&num.stores(GEMM_K, rng));
    }
    let (b, c) = (num.stores(m * GEMM_K, rng), num.stores(m * GEMM_J, rng));
    let block = if blocked { 4 } else { GEMM_K };
    let expected = (0..m * GEMM_J)
        .map(|e| {
            let (i, j) = (e % m, e / m);
            (0..GEMM_K).step_by(block).fold(c[e], |stored, k| {
                let acc = (k..k + block).fold(num.to_comp(stored), |acc, kk| {
                    let p = num.mul(num.to_comp(a[kk + j * m]), num.to_comp(b[i + kk * m]));
                    num.add(acc, p)
                });
                num.to_store(acc)
            })
        })
        .collect();
    let bytes = num.0.store_bytes();
    Problem {
        inputs: vec![
            ("ubench_a", le_bytes(&a, bytes)),
            ("ubench_b", le_bytes(&b, bytes)),
        ],
        output: "ubench_c",
        initial: c,
        expected,
    }
}

/// filter and mask-filter (`filter.c`): each interior point of an image of width n + 2
/// the sum of its 3x3 neighbourhood times the weights, left to right, row by row; with
/// a mask, only the points whose 16-bit mask entry is non-zero (half of them, the others
/// any non-zero value); every other point keeps its initial value.
fn filter(num: &Numbers, n: usize, masked: bool, rng: &mut Rng) -> Problem {
    let w = n + 2;
    let weights: Vec<u64> = (0..9).map(|_| num.compute(rng)).collect();
    let (src, dst) = (num.stores(w * FILTER_H, rng), num.stores(w * FILTER_H, rng));
    let mask: Option<Vec<i16>> = masked.then(|| {
        (0..w * FILTER_H)
            .map(|_| {
                let r = rng.next();
                if r & 1 == 1 {
                    (r >> 16 | 1) as i16
                } else {
                    0
                }
            })
            .collect()
    });
    let mut expected = dst.clone();
    for y in 1..FILTER_H - 1 {
        for x in 1..w - 1 {
            if mask.as_ref().is_some_and(|m| m[x + y * w] == 0) {
                continue;
            }
            let terms = (0..9).map(|k| {
                let at = (x - 1 + k % 3) + (y - 1 + k / 3) * w;
                num.mul(num.to_comp(src[at]), weights[k])
            });
            let sum = terms.reduce(|acc, t| num.add(acc, t)).expect("nine terms");
            expected[x + y * w] = num.to_store(sum);
        }
    }
    let mut inputs = vec![
        ("ubench_weights", le_bytes(&weights, 8)),
        ("ubench_src", le_bytes(&src, num.0.store_bytes())),
    ];
    if let Some(mask) = mask {
        inputs.push((
            "ubench_mask",
            mask.iter().flat_map(|m| m.to_le_bytes()).collect(),
        ));
    }
    Problem {
        inputs,
        output: "ubench_dst",
        initial: dst,
        expected,
    }
}

/// A benchmark's data written into its program for some runs: what each run's output
/// copy must hold afterwards.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Each run's output copy.
    outputs: Vec<u64>,
    expected: Vec<u64>,
    /// Bytes of an element.
    bytes: usize,
}

/// A run's output element that differs from the host's model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("run {run}: output element {index} is {got:#x}, the host's model {want:#x}")]
pub struct WrongElement {
    pub run: usize,
    pub index: usize,
    pub got: u64,
    pub want: u64,
}

/// Generates `bench`'s problem for a unit of maximum vector length `maxvl` from `seed`
/// and writes it into `program` (built by [`Bench::build`]) for `runs` runs (one per
/// vector-length cap; none is one run).
pub fn prepare(
    program: &mut Program,
    bench: Bench,
    maxvl: u64,
    runs: usize,
    seed: u64,
) -> Result<Prepared, UbenchError> {
    let runs = runs.max(1);
    let copies = read_u64(program, "ubench_copies")?;
    if runs as u64 > copies {
        return Err(UbenchError::TooManyRuns { runs, copies });
    }
    let n = size(program, maxvl)? as usize;
    let mut rng = Rng::new(seed);
    let num = Numbers(bench.precision);
    let problem = match bench.kernel {
        Kernel::Axpy => axpy(&num, n, &mut rng),
        Kernel::Gemm => gemm(&num, n, true, &mut rng),
        Kernel::GemmOpt => gemm(&num, n, false, &mut rng),
        Kernel::Filter => filter(&num, n, false, &mut rng),
        Kernel::MaskFilter => filter(&num, n, true, &mut rng),
    };
    for (name, bytes) in &problem.inputs {
        write(program, symbol(program, name)?, bytes)?;
    }
    write(
        program,
        symbol(program, "ubench_host_size")?,
        &(n as u64).to_le_bytes(),
    )?;
    let first = symbol(program, problem.output)?;
    let bytes = bench.precision.store_bytes();
    let initial = le_bytes(&problem.initial, bytes);
    let outputs: Vec<u64> = (0..runs as u64)
        .map(|r| first + r * initial.len() as u64)
        .collect();
    for &at in &outputs {
        write(program, at, &initial)?;
    }
    Ok(Prepared {
        outputs,
        expected: problem.expected,
        bytes,
    })
}

impl Prepared {
    /// Checks every run's output copy in memory (`read` gives the 64-bit word at an
    /// 8-byte-aligned address) against the model: the first wrong element.
    pub fn check(&self, mut read: impl FnMut(u64) -> u64) -> Result<(), WrongElement> {
        let mask = u64::MAX >> (64 - 8 * self.bytes);
        for run in 0..self.outputs.len() {
            for (index, &want) in self.expected.iter().enumerate() {
                let at = self.element(run, index).expect("in range");
                let got = read(at & !7) >> (8 * (at & 7)) & mask;
                if got != want {
                    return Err(WrongElement {
                        run,
                        index,
                        got,
                        want,
                    });
                }
            }
        }
        Ok(())
    }

    /// The address of run `run`'s output element `index`.
    pub fn element(&self, run: usize, index: usize) -> Option<u64> {
        let at = *self.outputs.get(run)?;
        (index < self.expected.len()).then(|| at + (self.bytes * index) as u64)
    }
}
