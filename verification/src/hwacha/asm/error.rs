//! Typed assembler errors, each located at a source file and line.

use std::fmt;

/// What is wrong with one Hwacha statement. Operands are numbered from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsmErrorKind {
    #[error("unknown mnemonic `{0}`")]
    UnknownMnemonic(String),
    #[error("`{mnemonic}`: {message}")]
    BadSuffix { mnemonic: String, message: String },
    #[error("`{mnemonic}` takes {expected} operands, found {found}")]
    OperandCount {
        mnemonic: String,
        expected: String,
        found: usize,
    },
    #[error("operand {operand}: expected {expected}, found `{found}`")]
    WrongOperandKind {
        operand: usize,
        expected: String,
        found: String,
    },
    #[error("operand {operand}: register `{register}` out of range ({range})")]
    RegisterOutOfRange {
        operand: usize,
        register: String,
        range: String,
    },
    #[error("operand {operand}: {value} out of range [{min}, {max}]")]
    ImmediateOutOfRange {
        operand: usize,
        value: i128,
        min: i128,
        max: i128,
    },
    #[error("operand {operand}: {value} is not a multiple of {align}")]
    Misaligned {
        operand: usize,
        value: i128,
        align: i128,
    },
    #[error("operand {operand}: `{expr}` is not a constant")]
    NotConstant { operand: usize, expr: String },
    #[error("operand {operand}: bad expression `{expr}`: {message}")]
    BadExpression {
        operand: usize,
        expr: String,
        message: String,
    },
    #[error("{0}")]
    Predication(String),
    #[error("{0}")]
    Syntax(String),
    #[error(
        "Hwacha instructions cannot be in a GNU as `.macro`, `.irp` or `.irpc` body \
         (their operands are only known after substitution); use a C preprocessor macro"
    )]
    InMacro,
    #[error(
        "`.option relax` would let the linker move code after GNU as fixed the vcjal label \
         offsets of this file (Hwacha files assemble without relaxation)"
    )]
    Relaxation,
}

/// An error at a source location.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {kind}")]
pub struct AsmError {
    pub file: String,
    pub line: usize,
    pub kind: AsmErrorKind,
}

/// Every error of a translation, in the order found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsmErrors(pub Vec<AsmError>);

impl fmt::Display for AsmErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AsmErrors {}
