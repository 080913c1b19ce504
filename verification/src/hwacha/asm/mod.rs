//! Hwacha assembler, on the encoding table it shares with the golden model
//! ([`crate::hwacha::encoding`]).
//!
//! - [`syntax`]: the assembler and disassembler of single instructions, in the syntax of
//!   the Hwacha assembly programs (predication prefixes `@vp1`/`@!vp1`, operand kinds from
//!   the register names or a suffix such as `.vs`, every instruction and
//!   pseudo-instruction of the files).
//! - [`translate`]: mixed RV64 + Hwacha `.S` text to plain GNU as input.
//! - [`build`]: preprocessor (C compiler for C sources), translation, GNU as and ld into
//!   an ELF program.
//!
//! Syntax choices the sources leave open: a bare integer as a `vcjal` target is a byte
//! offset from the jump (anything else is a label for GNU as); segment memory
//! instructions take the element count 1-8 last (`vlsegd vv1, va2, 4`), encoded minus
//! one; `vfence` alone sets both fence sets to all ones, `vfence p, s` takes two 4-bit
//! sets; the rounding mode of FP instructions is an optional last operand (`rne`, `rtz`,
//! `rdn`, `rup`, `rmm`, `dyn`, default `dyn`); AMO ordering is a mnemonic suffix
//! (`.aq`, `.rl`, `.aqrl`); `vf label` and a `vsetcfg` configuration too wide for the
//! 12-bit immediate use t0 as scratch (`vf label, xN` names another). 32-bit immediates
//! accept -2^31 to 2^32-1. The upstream esp-tests spellings `veidx vd`, `vcjal N, rd, OFF`
//! and `vcjalr N, rd, rs1, OFF` (offset in 8-byte units) are accepted too.

pub mod build;
pub mod error;
pub mod expr;
pub mod syntax;
pub mod translate;

pub use build::{build, build_sources, AsmOptions, BuildError};
pub use error::{AsmError, AsmErrorKind, AsmErrors};
pub use syntax::{assemble, disassemble, disassemble_control, Assembled, DisasmError};
pub use translate::translate;
