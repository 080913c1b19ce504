//! Elaboration errors: each names the hierarchical signal and the Rust source line that
//! created the offending hardware.

use std::fmt;
use std::panic::Location;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    WidthMismatch,
    TypeMismatch,
    Undriven,
    MultipleDrivers,
    CombinationalLoop,
    UnconnectedInput,
    InvalidWidth,
    InvalidParameter,
    UnknownPort,
    ForeignValue,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::WidthMismatch => "width mismatch",
            ErrorKind::TypeMismatch => "type mismatch",
            ErrorKind::Undriven => "undriven",
            ErrorKind::MultipleDrivers => "multiple drivers",
            ErrorKind::CombinationalLoop => "combinational loop",
            ErrorKind::UnconnectedInput => "unconnected instance input",
            ErrorKind::InvalidWidth => "invalid width",
            ErrorKind::InvalidParameter => "invalid parameter",
            ErrorKind::UnknownPort => "unknown port",
            ErrorKind::ForeignValue => "value from another module",
        })
    }
}

/// `file:line:column` of the Rust code that built a piece of hardware.
pub type SrcLoc = &'static Location<'static>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HdlError {
    pub kind: ErrorKind,
    /// Hierarchical name, `Module.signal` (or `Module` for module-level problems).
    pub path: String,
    pub loc: SrcLoc,
    pub message: String,
}

impl fmt::Display for HdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {} at {}: {}",
            self.loc.file(),
            self.loc.line(),
            self.kind,
            self.path,
            self.message
        )
    }
}

/// All errors of one elaboration, in the order they were found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct HdlErrors(pub Vec<HdlError>);

impl fmt::Display for HdlErrors {
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
