//! Commit log in the exact format of Spike's `--log-commits`, so the two logs can be
//! compared line by line.
//!
//! Spike prints, per retired instruction: `core   0: <priv> 0x<pc> (0x<insn>)`, then the
//! register written (` x<n>` left-aligned in two columns, value), the CSR written
//! (` c<decimal number>_<name> value`), each load address (` mem 0x<addr>`) and each
//! store (` mem 0x<addr> 0x<value sized to the access>`). x0 writes are not shown.
//! Instructions that trap are not logged.

use super::csr;
use std::io::{self, Write};

/// What one retired instruction changed, as far as the commit log reports it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    pub pc: u64,
    pub insn: u32,
    /// Integer register written (x0 excluded) and its new value.
    pub xreg: Option<(u8, u64)>,
    /// CSR written and its value as read back after the write.
    pub csr: Option<(u16, u64)>,
    /// Address of a load (also the read half of an AMO).
    pub load: Option<u64>,
    /// Address, value and size in bytes of a store (also the write half of an AMO).
    pub store: Option<(u64, u64, u8)>,
}

impl Commit {
    /// Writes the Spike-format line for this instruction. Machine mode is privilege 3.
    pub fn write_line(&self, out: &mut dyn Write) -> io::Result<()> {
        write!(out, "core   0: 3 0x{:016x} (0x{:08x})", self.pc, self.insn)?;
        if let Some((r, v)) = self.xreg {
            write!(out, " x{:<2} 0x{:016x}", r, v)?;
        }
        if let Some((c, v)) = self.csr {
            write!(out, " c{}_{} 0x{:016x}", c, csr::name(c), v)?;
        }
        if let Some(a) = self.load {
            write!(out, " mem 0x{:016x}", a)?;
        }
        if let Some((a, v, size)) = self.store {
            let digits = size as usize * 2;
            write!(out, " mem 0x{:016x} 0x{:0digits$x}", a, v, digits = digits)?;
        }
        writeln!(out)
    }
}
