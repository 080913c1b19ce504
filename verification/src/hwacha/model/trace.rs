//! The trace of retired worker-thread instructions: what each one wrote, in the order it
//! wrote it, for the RTL lockstep checker to compare against.

/// One architectural effect of a worker-thread instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Element `elem` of vector data register `reg` now holds `value` (as stored: a
    /// narrow register's value sign-extended).
    Vv { reg: u32, elem: u64, value: u64 },
    /// Element `elem` of predicate register `reg`.
    Vp { reg: u32, elem: u64, value: bool },
    /// Shared register `reg` (writes to vs0 are not recorded: they have no effect).
    Vs { reg: u32, value: u64 },
    /// `size` bytes at `addr` now hold the low bytes of `value` (little-endian).
    Mem { addr: u64, size: u8, value: u64 },
}

/// A retired worker-thread instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retired {
    pub pc: u64,
    pub bits: u64,
    /// Element writes of active elements only, in element order (a vector AMO's in
    /// memory-order mode: in the order the elements were applied).
    pub effects: Vec<Effect>,
}
