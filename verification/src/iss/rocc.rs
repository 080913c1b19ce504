//! RoCC port: the custom-0..3 opcodes are handed to an attached accelerator model.
//!
//! Encoding (Rocket Chip's RoCC): funct7[31:25] rs2[24:20] rs1[19:15] xd[14] xs1[13]
//! xs2[12] rd[11:7] opcode[6:0]. The core reads rs1/rs2 when xs1/xs2 are set and, when
//! xd is set, writes the accelerator's response to rd.

use super::mem::Memory;
use crate::tb::memory::AmoRecord;

/// One RoCC command as the core issues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoccCommand {
    /// Which custom opcode: 0..=3 for custom-0..custom-3.
    pub opcode: u8,
    pub funct7: u8,
    pub rd: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub xd: bool,
    pub xs1: bool,
    pub xs2: bool,
    /// Value of rs1 (0 when xs1 is clear).
    pub rs1_value: u64,
    /// Value of rs2 (0 when xs2 is clear).
    pub rs2_value: u64,
}

/// Why an accelerator did not complete a command. Every variant but `Aborted` is an
/// exception the core takes as a trap on the custom instruction (mepc = its pc), with the
/// RISC-V mcause and mtval given on each variant; the instruction does not retire, and
/// an accelerator that ran work on the command's behalf (Hwacha's `vf`) reports the
/// first fault of that work (what finished before it stays done).
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum RoccError {
    /// No instruction of the accelerator has this encoding, as on hardware without a
    /// matching accelerator: illegal instruction (2), mtval = the instruction.
    #[error("accelerator does not implement funct7 {funct7} on custom-{opcode}")]
    Unsupported { opcode: u8, funct7: u8 },
    /// The accelerator refuses the command in its current state (disabled, a bad
    /// configuration or register number, ...): illegal instruction (2), mtval = the
    /// instruction.
    #[error("illegal accelerator instruction: {reason}")]
    Illegal { reason: String },
    /// An instruction the accelerator fetched itself is illegal: illegal instruction (2),
    /// mtval = its bits (up to 64; their low bits give its length, as RISC-V's encoding
    /// of longer instructions does).
    #[error("accelerator-fetched instruction {bits:#x} is illegal: {reason}")]
    IllegalFetched { bits: u64, reason: String },
    /// Instruction address misaligned (0), mtval = the address.
    #[error("accelerator instruction fetch from {addr:#x} is misaligned")]
    FetchMisaligned { addr: u64 },
    /// Instruction access fault (1), mtval = the address.
    #[error("accelerator instruction fetch from {addr:#x} is outside memory")]
    FetchAccessFault { addr: u64 },
    /// Load address misaligned (4), mtval = the address.
    #[error("accelerator load from {addr:#x} is misaligned")]
    LoadMisaligned { addr: u64 },
    /// Load access fault (5), mtval = the address.
    #[error("accelerator load from {addr:#x} is outside memory")]
    LoadAccessFault { addr: u64 },
    /// Store/AMO address misaligned (6), mtval = the address.
    #[error("accelerator store to {addr:#x} is misaligned")]
    StoreMisaligned { addr: u64 },
    /// Store/AMO access fault (7), mtval = the address.
    #[error("accelerator store to {addr:#x} is outside memory")]
    StoreAccessFault { addr: u64 },
    /// The accelerator model cannot go on, for a reason of the model rather than of the
    /// architecture (a step limit): no trap, the simulation stops with
    /// `IssError::Accelerator`.
    #[error("accelerator model stopped: {reason}")]
    Aborted { reason: String },
}

/// An accelerator model attached to the RoCC port. It may read and write memory
/// (accelerators share the core's memory system).
pub trait RoccAccelerator {
    /// Executes one command and returns the response for rd (ignored when `xd` is clear).
    fn execute(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, RoccError>;

    /// An exception of an earlier command's work that the accelerator delivers late, as
    /// a decoupled unit does (see [`crate::iss::Iss::take_deferred_trap`]); taking it
    /// clears it. Accelerators that trap only on the command itself have none. Work put
    /// off until then is done first, in `mem`.
    fn take_deferred(&mut self, _mem: &mut Memory) -> Option<RoccError> {
        None
    }

    /// The core executed a `fence`: work the accelerator put off must now be visible in
    /// `mem` (a decoupled unit's work is, once a fence waited for it).
    fn fence(&mut self, _mem: &mut Memory) -> Result<(), RoccError> {
        Ok(())
    }

    /// AMOs the memory of a design in lockstep performed, in its order (see
    /// [`crate::tb::lockstep::GoldenModel::memory_amos`]).
    fn memory_amos(&mut self, _performed: &[AmoRecord]) {}

    /// The floating-point exception flags (RISC-V fflags bits) the accelerator's own FP
    /// state has accrued, for an accelerator that keeps them apart from the core's.
    fn fflags(&self) -> Option<u8> {
        None
    }
}

/// Splits a custom-opcode instruction into a command (register values filled in by
/// the caller).
pub fn decode(insn: u32) -> RoccCommand {
    RoccCommand {
        opcode: ((insn >> 5) & 3) as u8,
        funct7: (insn >> 25) as u8,
        rd: ((insn >> 7) & 31) as u8,
        rs1: ((insn >> 15) & 31) as u8,
        rs2: ((insn >> 20) & 31) as u8,
        xd: insn & (1 << 14) != 0,
        xs1: insn & (1 << 13) != 0,
        xs2: insn & (1 << 12) != 0,
        rs1_value: 0,
        rs2_value: 0,
    }
}

/// An example accelerator (Rocket Chip's AccumulatorExample): four accumulators, on
/// custom-0 only. funct7 0: acc[rs2] = rs1; 1: read; 2: acc[rs2] = the doubleword at
/// address rs1; 3: acc[rs2] += rs1. The response is the accumulator's previous value.
/// Other opcodes, funct7 values or rs2 >= 4 are rejected. The model for the RTL
/// accumulator's lockstep tests and for the ISS's RoCC tests.
#[derive(Default)]
pub struct Accumulator {
    acc: [u64; 4],
    /// Commands received, rejected ones included.
    pub commands: std::rc::Rc<std::cell::Cell<usize>>,
}

impl RoccAccelerator for Accumulator {
    fn execute(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, RoccError> {
        self.commands.set(self.commands.get() + 1);
        let unsupported = RoccError::Unsupported {
            opcode: cmd.opcode,
            funct7: cmd.funct7,
        };
        if cmd.opcode != 0 || cmd.rs2 >= 4 {
            return Err(unsupported);
        }
        let slot = &mut self.acc[cmd.rs2 as usize];
        let prev = *slot;
        match cmd.funct7 {
            0 => *slot = cmd.rs1_value,
            1 => {}
            2 => {
                *slot = mem
                    .read(cmd.rs1_value, 8)
                    .ok_or(RoccError::LoadAccessFault {
                        addr: cmd.rs1_value,
                    })?
            }
            3 => *slot = slot.wrapping_add(cmd.rs1_value),
            _ => return Err(unsupported),
        }
        Ok(prev)
    }
}
