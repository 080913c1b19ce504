//! Reference memory semantics of the FG-SIMT L1 D$ (seed 000, section 1.7;
//! `generators::fgsimt::l1`): accesses applied one at a time to a flat memory, in the
//! order the design performed them. Narrow accesses answer the naturally aligned word
//! holding the address (the old word for AMOs, 0 or 1 for SC); a wide read answers the
//! 32-byte block. LR/SC keep one reservation per narrow port (a line of the D$'s
//! `line_bytes`), broken by any write to the line and by the port's next LR; an SC
//! succeeds only on its port's reserved line and always ends the reservation. Uncached
//! accesses (`uncached`) have no reservation: LR is a load and SC fails.

use crate::tb::memory::{amo, SparseMemory};

/// The narrow ops, as the design's `op` field encodes them (load, store, LR, SC, then
/// the AMOs: the memory model's code plus [`AMO_BASE`]).
pub mod op {
    pub const LOAD: u64 = 0;
    pub const STORE: u64 = 1;
    pub const LR: u64 = 2;
    pub const SC: u64 = 3;
    pub const AMO_BASE: u64 = 3;
    /// The last AMO (maxu).
    pub const LAST: u64 = 12;
}

/// The flat memory and the reservations.
pub struct L1Model {
    pub mem: SparseMemory,
    /// Bytes in a line: a reservation's unit.
    line_bytes: u64,
    /// Per narrow port, the reserved line (its address divided by the line size).
    resv: Vec<Option<u64>>,
}

impl L1Model {
    /// `narrow_ports` ports' reservations on lines of `line_bytes`.
    pub fn new(mem: SparseMemory, narrow_ports: usize, line_bytes: u64) -> L1Model {
        L1Model {
            mem,
            line_bytes,
            resv: vec![None; narrow_ports],
        }
    }

    fn word(&self, addr: u64) -> u32 {
        let mut b = [0; 4];
        self.mem.read(addr & !3, &mut b);
        u32::from_le_bytes(b)
    }

    /// A write to `line` breaks every reservation on it.
    fn wrote(&mut self, addr: u64) {
        let line = addr / self.line_bytes;
        for r in self.resv.iter_mut() {
            if *r == Some(line) {
                *r = None;
            }
        }
    }

    /// Writes the bytes of `data` (little-endian, the word at `addr & !3`) set in `mask`.
    fn write_word(&mut self, addr: u64, data: u32, mask: u64) {
        let base = addr & !3;
        for (i, b) in data.to_le_bytes().iter().enumerate() {
            if mask >> i & 1 == 1 {
                self.mem.write(base + i as u64, &[*b]);
            }
        }
    }

    /// Performs a cached narrow access of `port`; returns its response word.
    pub fn narrow(&mut self, port: usize, opc: u64, addr: u64, data: u32, mask: u64) -> u32 {
        let old = self.word(addr);
        let line = addr / self.line_bytes;
        match opc {
            op::LOAD => {}
            op::STORE => {
                self.write_word(addr, data, mask);
                self.wrote(addr);
            }
            op::LR => self.resv[port] = Some(line),
            op::SC => {
                let ok = self.resv[port] == Some(line);
                self.resv[port] = None;
                if !ok {
                    return 1;
                }
                self.write_word(addr, data, mask);
                self.wrote(addr);
                return 0;
            }
            _ => {
                let new = amo::apply(opc - op::AMO_BASE, 4, old as u64, data as u64)
                    .expect("an AMO op") as u32;
                self.write_word(addr, new, 0xf);
                self.wrote(addr);
            }
        }
        old
    }

    /// Performs an uncached narrow access (memory's AMOs, no reservations).
    pub fn uncached(&mut self, opc: u64, addr: u64, data: u32, mask: u64) -> u32 {
        let old = self.word(addr);
        match opc {
            op::STORE => self.write_word(addr, data, mask),
            op::SC => return 1,
            op::LOAD | op::LR => {}
            _ => {
                let new = amo::apply(opc - op::AMO_BASE, 4, old as u64, data as u64)
                    .expect("an AMO op") as u32;
                self.write_word(addr, new, 0xf);
            }
        }
        old
    }

    /// Performs a wide access at a block-aligned `addr`; returns the block (before a write).
    pub fn wide(&mut self, write: bool, addr: u64, data: &[u8; 32], mask: u32) -> [u8; 32] {
        let mut line = [0; 32];
        self.mem.read(addr, &mut line);
        if write {
            for (i, b) in data.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    self.mem.write(addr + i as u64, &[*b]);
                }
            }
            self.wrote(addr);
        }
        line
    }
}
