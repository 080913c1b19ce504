//! Host-data mode of the integer microbenchmarks (`-DPREC_I -DUBENCH_HOST_DATA`,
//! `ubench.h`): the host generates a benchmark's inputs, writes them, the problem size
//! and every run's own output array with its initial values into the program's image
//! before it starts, and after the run checks each run's output, as the run left it in
//! memory, against this module's model of the benchmark: the semantics of the scalar
//! reference in its `.c`, in the 64-bit wrapping arithmetic of a `PREC_I` build. The
//! program does none of its own data generation, reference or check, which cost the
//! control processor far more cycles than the vector unit spent on the kernels.
//!
//! Inputs are uniform over all 64 bits (xorshift64 from a seed). The filter's nine
//! weights are the host's too, random, where a `PREC_I` build's own weights (its
//! Gaussian's values cast to integers) are all zero.

use super::{read_u64, size, symbol, write, UbenchError};
use crate::elf::Program;
use std::path::Path;

/// An integer microbenchmark.
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

    /// The name the program prints.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Axpy => "iaxpy",
            Kernel::Gemm => "igemm",
            Kernel::GemmOpt => "igemm-opt",
            Kernel::Filter => "ifilter",
            Kernel::MaskFilter => "mask-ifilter",
        }
    }

    /// Builds the benchmark in host-data mode into `dir`, with further `defines` (such
    /// as `UBENCH_DROP_LAST`), and loads it.
    pub fn build(self, dir: &Path, defines: &[&str]) -> Result<Program, UbenchError> {
        let family = match self {
            Kernel::Axpy => "axpy",
            Kernel::Gemm => "gemm",
            Kernel::GemmOpt => "gemm_opt",
            Kernel::Filter | Kernel::MaskFilter => "filter",
        };
        let mut all = vec!["PREC_I", "UBENCH_HOST_DATA"];
        if self == Kernel::MaskFilter {
            all.push("MASK");
        }
        all.extend(defines);
        super::build(dir, family, &all)
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
    /// The output array's initial values.
    initial: Vec<i64>,
    /// The model's output.
    expected: Vec<i64>,
}

/// xorshift64 (Marsaglia).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }

    fn next(&mut self) -> i64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 as i64
    }

    fn values(&mut self, n: usize) -> Vec<i64> {
        (0..n).map(|_| self.next()).collect()
    }
}

fn le_bytes(values: &[i64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// axpy (`axpy.c`): y = a * x + y over n elements.
fn axpy(n: usize, rng: &mut Rng) -> Problem {
    let a = rng.next();
    let (x, y) = (rng.values(n), rng.values(n));
    let expected = (y.iter().zip(&x))
        .map(|(&y, &x)| y.wrapping_add(x.wrapping_mul(a)))
        .collect();
    Problem {
        inputs: vec![("ubench_a", le_bytes(&[a])), ("ubench_x", le_bytes(&x))],
        output: "ubench_y",
        initial: y,
        expected,
    }
}

/// gemm and gemm-opt (`gemm.c`, `gemm_opt.c`): C += A * B with m rows, column-major with
/// leading dimension m, A's columns holding K values. In integer arithmetic gemm's
/// blocks of four k and gemm-opt's single pass over k give the same sums.
fn gemm(m: usize, rng: &mut Rng) -> Problem {
    let mut a = vec![0; m * GEMM_J];
    for column in a.chunks_mut(m) {
        column[..GEMM_K].copy_from_slice(&rng.values(GEMM_K));
    }
    let (b, c) = (rng.values(m * GEMM_K), rng.values(m * GEMM_J));
    let expected = (0..m * GEMM_J)
        .map(|e| {
            let (i, j) = (e % m, e / m);
            (0..GEMM_K).fold(c[e], |acc, k| {
                acc.wrapping_add(a[k + j * m].wrapping_mul(b[i + k * m]))
            })
        })
        .collect();
    Problem {
        inputs: vec![("ubench_a", le_bytes(&a)), ("ubench_b", le_bytes(&b))],
        output: "ubench_c",
        initial: c,
        expected,
    }
}

/// filter and mask-filter (`filter.c`): each interior point of an image of width n + 2
/// the sum of its 3x3 neighbourhood times the weights, row by row; with a mask, only the
/// points whose 16-bit mask entry is non-zero (half of them, the others any non-zero
/// value); every other point keeps its initial value.
fn filter(n: usize, masked: bool, rng: &mut Rng) -> Problem {
    let w = n + 2;
    let weights = rng.values(9);
    let (src, dst) = (rng.values(w * FILTER_H), rng.values(w * FILTER_H));
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
            expected[x + y * w] = (0..9).fold(0i64, |acc, k| {
                let at = (x - 1 + k % 3) + (y - 1 + k / 3) * w;
                acc.wrapping_add(src[at].wrapping_mul(weights[k]))
            });
        }
    }
    let mut inputs = vec![
        ("ubench_weights", le_bytes(&weights)),
        ("ubench_src", le_bytes(&src)),
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
    expected: Vec<i64>,
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

/// Generates `kernel`'s problem for a unit of maximum vector length `maxvl` from `seed`
/// and writes it into `program` (built by [`Kernel::build`]) for `runs` runs (one per
/// vector-length cap; none is one run).
pub fn prepare(
    program: &mut Program,
    kernel: Kernel,
    maxvl: u64,
    runs: usize,
    seed: u64,
) -> Result<Prepared, UbenchError> {
    let runs = runs.max(1);
    let copies = read_u64(program, "ubench_copies")?;
    if runs as u64 > copies {
        return Err(UbenchError::TooManyRuns { runs, copies });
    }
    let n = size(program, maxvl)?;
    let mut rng = Rng::new(seed);
    let problem = match kernel {
        Kernel::Axpy => axpy(n as usize, &mut rng),
        Kernel::Gemm | Kernel::GemmOpt => gemm(n as usize, &mut rng),
        Kernel::Filter => filter(n as usize, false, &mut rng),
        Kernel::MaskFilter => filter(n as usize, true, &mut rng),
    };
    for (name, bytes) in &problem.inputs {
        write(program, symbol(program, name)?, bytes)?;
    }
    write(
        program,
        symbol(program, "ubench_host_size")?,
        &n.to_le_bytes(),
    )?;
    let first = symbol(program, problem.output)?;
    let initial = le_bytes(&problem.initial);
    let outputs: Vec<u64> = (0..runs as u64)
        .map(|r| first + r * initial.len() as u64)
        .collect();
    for &at in &outputs {
        write(program, at, &initial)?;
    }
    Ok(Prepared {
        outputs,
        expected: problem.expected,
    })
}

impl Prepared {
    /// Checks every run's output copy in memory (`read` gives the 64-bit word at an
    /// address) against the model: the first wrong element.
    pub fn check(&self, mut read: impl FnMut(u64) -> u64) -> Result<(), WrongElement> {
        for (run, &at) in self.outputs.iter().enumerate() {
            for (index, &want) in self.expected.iter().enumerate() {
                let got = read(at + 8 * index as u64);
                if got != want as u64 {
                    return Err(WrongElement {
                        run,
                        index,
                        got,
                        want: want as u64,
                    });
                }
            }
        }
        Ok(())
    }

    /// The address of run `run`'s output element `index`.
    pub fn element(&self, run: usize, index: usize) -> Option<u64> {
        let at = *self.outputs.get(run)?;
        (index < self.expected.len()).then(|| at + 8 * index as u64)
    }
}
