//! RoCC port: the custom-0..3 opcodes are handed to an attached accelerator model.
//!
//! Encoding (Rocket Chip's RoCC): funct7[31:25] rs2[24:20] rs1[19:15] xd[14] xs1[13]
//! xs2[12] rd[11:7] opcode[6:0]. The core reads rs1/rs2 when xs1/xs2 are set and, when
//! xd is set, writes the accelerator's response to rd.

use super::mem::Memory;

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

/// Why an accelerator rejects a command; the core turns it into an illegal-instruction
/// trap, as hardware without a matching accelerator would.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RoccError {
    #[error("accelerator does not implement funct7 {funct7} on custom-{opcode}")]
    Unsupported { opcode: u8, funct7: u8 },
    #[error("accelerator memory access at {addr:#x} is outside memory")]
    BadAddress { addr: u64 },
}

/// An accelerator model attached to the RoCC port. It may read and write memory
/// (accelerators share the core's memory system).
pub trait RoccAccelerator {
    /// Executes one command and returns the response for rd (ignored when `xd` is clear).
    fn execute(&mut self, cmd: &RoccCommand, mem: &mut Memory) -> Result<u64, RoccError>;
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
