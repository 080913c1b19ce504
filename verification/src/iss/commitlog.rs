//! Commit log in the exact format of Spike's `--log-commits`, so the two logs can be
//! compared line by line.
//!
//! Spike prints, per retired instruction: `core   0: <priv> 0x<pc> (0x<insn>)`, then the
//! registers written, then each load address (` mem 0x<addr>`) and each store
//! (` mem 0x<addr> 0x<value sized to the access>`). A register write is an integer
//! register (` x<n>` left-aligned in two columns, value; x0 writes are not shown), an f
//! register (` f<n>`, value) or a CSR (` c<decimal number>_<name> value`, as read back
//! after the write). Spike keeps them in a map keyed by `number << 4 | kind` (kind 0 for
//! x, 1 for f, 4 for CSRs) and prints them in key order. The pc, x registers, CSRs and
//! addresses are printed at XLEN bits, f registers at FLEN bits. Instructions that trap
//! are not logged.

use super::csr;
use std::io::{self, Write};

/// At most this many CSRs change in one instruction (`csrw fcsr` sets fflags and frm and
/// may make mstatus.FS Dirty).
pub const MAX_CSRS: usize = 3;

/// What one retired instruction changed, as far as the commit log reports it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    pub pc: u64,
    pub insn: u32,
    /// Integer register written (x0 excluded) and its new value.
    pub xreg: Option<(u8, u64)>,
    /// f register written and its new value (NaN-boxed as the register holds it).
    pub freg: Option<(u8, u64)>,
    /// CSRs written, each with its value as read back after the write.
    pub csrs: [Option<(u16, u64)>; MAX_CSRS],
    /// Address of a load (also the read half of an AMO).
    pub load: Option<u64>,
    /// Address, value and size in bytes of a store (also the write half of an AMO).
    pub store: Option<(u64, u64, u8)>,
}

/// The widths Spike prints values at: XLEN and FLEN in bits (32 or 64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Widths {
    pub xlen: u32,
    pub flen: u32,
}

/// Writes `v` as Spike prints a value of `bits` bits.
fn hex(out: &mut dyn Write, v: u64, bits: u32) -> io::Result<()> {
    if bits == 32 {
        write!(out, "0x{:08x}", v as u32)
    } else {
        write!(out, "0x{v:016x}")
    }
}

/// A register write as Spike keys it: `number << 4 | kind`.
#[derive(Clone, Copy)]
enum Reg {
    X(u8),
    F(u8),
    Csr(u16),
}

impl Reg {
    fn key(self) -> u32 {
        match self {
            Reg::X(r) => (r as u32) << 4,
            Reg::F(r) => (r as u32) << 4 | 1,
            Reg::Csr(c) => (c as u32) << 4 | 4,
        }
    }
}

impl Commit {
    /// Records a CSR write (a CSR written twice keeps its last value).
    pub fn push_csr(&mut self, csr: u16, value: u64) {
        let slot = self
            .csrs
            .iter_mut()
            .find(|s| s.is_none_or(|(c, _)| c == csr))
            .expect("at most MAX_CSRS CSRs change per instruction");
        *slot = Some((csr, value));
    }

    /// Writes the Spike-format line for this instruction. Machine mode is privilege 3.
    pub fn write_line(&self, out: &mut dyn Write, w: Widths) -> io::Result<()> {
        write!(out, "core   0: 3 ")?;
        hex(out, self.pc, w.xlen)?;
        write!(out, " (0x{:08x})", self.insn)?;
        let mut regs = [(Reg::X(0), 0u64); 2 + MAX_CSRS];
        let mut n = 0;
        let writes = self.xreg.map(|(r, v)| (Reg::X(r), v)).into_iter();
        let writes = writes.chain(self.freg.map(|(r, v)| (Reg::F(r), v)));
        let writes = writes.chain(self.csrs.iter().flatten().map(|&(c, v)| (Reg::Csr(c), v)));
        for write in writes {
            regs[n] = write;
            n += 1;
        }
        let regs = &mut regs[..n];
        regs.sort_unstable_by_key(|(r, _)| r.key());
        for &(reg, v) in regs.iter() {
            match reg {
                Reg::X(r) => {
                    write!(out, " x{r:<2} ")?;
                    hex(out, v, w.xlen)?;
                }
                Reg::F(r) => {
                    write!(out, " f{r:<2} ")?;
                    hex(out, v, w.flen)?;
                }
                Reg::Csr(c) => {
                    write!(out, " c{}_{} ", c, csr::name(c))?;
                    hex(out, v, w.xlen)?;
                }
            }
        }
        if let Some(a) = self.load {
            write!(out, " mem ")?;
            hex(out, a, w.xlen)?;
        }
        if let Some((a, v, size)) = self.store {
            write!(out, " mem ")?;
            hex(out, a, w.xlen)?;
            let digits = size as usize * 2;
            write!(out, " 0x{:0digits$x}", v)?;
        }
        writeln!(out)
    }
}
