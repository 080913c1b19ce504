//! The control thread (thesis Table 7.1): the RoCC commands the core sends. A command is
//! put back into its 32-bit instruction word and looked up in the shared encoding table.

use super::config::Vcfg;
use super::error::HwachaError;
use super::exec::Worker;
use super::Hwacha;
use crate::hwacha::encoding::{table, Field, Thread};
use crate::iss::mem::Memory;
use crate::iss::rocc::RoccCommand;

/// The control-thread instructions of Table 7.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    Vsetcfg,
    Vsetvl,
    Vgetcfg,
    Vgetvl,
    Vuncfg,
    Vmcs,
    Vmca,
    Vf,
}

impl Control {
    /// The supervisor, fetch-with-translation and command-queue instructions of the file
    /// are not part of Table 7.1 and stay unsupported.
    fn of(name: &str) -> Option<Control> {
        Some(match name {
            "vsetcfg" => Control::Vsetcfg,
            "vsetvl" => Control::Vsetvl,
            "vgetcfg" => Control::Vgetcfg,
            "vgetvl" => Control::Vgetvl,
            "vuncfg" => Control::Vuncfg,
            "vmcs" => Control::Vmcs,
            "vmca" => Control::Vmca,
            "vf" => Control::Vf,
            _ => return None,
        })
    }
}

/// The instruction `bits` encodes, if it is one of Table 7.1.
fn decode(bits: u32) -> Option<(&'static str, Control)> {
    let table = table();
    let name = table.instructions()[table.base_index(Thread::Control, bits as u64)?].name;
    Control::of(name).map(|c| (name, c))
}

/// The instruction word a RoCC command came from (its fields cover all 32 bits).
pub fn instruction_bits(cmd: &RoccCommand) -> u32 {
    const CUSTOM: [u32; 4] = [0x0b, 0x2b, 0x5b, 0x7b];
    (cmd.funct7 as u32 & 0x7f) << 25
        | (cmd.rs2 as u32 & 31) << 20
        | (cmd.rs1 as u32 & 31) << 15
        | (cmd.xd as u32) << 14
        | (cmd.xs1 as u32) << 13
        | (cmd.xs2 as u32) << 12
        | (cmd.rd as u32 & 31) << 7
        | CUSTOM[cmd.opcode as usize & 3]
}

impl Hwacha {
    /// Executes one control-thread command; the value is the response for rd.
    pub(super) fn control(
        &mut self,
        cmd: &RoccCommand,
        mem: &mut Memory,
    ) -> Result<u64, HwachaError> {
        let bits = instruction_bits(cmd);
        let (name, op) = decode(bits).ok_or(HwachaError::UnsupportedControl { bits })?;
        let field = |f: Field| f.get(bits as u64);
        let rs1 = cmd.rs1_value;
        if op != Control::Vsetcfg && !self.state.configured {
            return Err(HwachaError::AcceleratorDisabled { insn: name });
        }
        match op {
            Control::Vsetcfg => {
                // The thesis builds vcfg from rs1's top 52 bits and the 12-bit immediate;
                // Hwacha's RoCC unit ORs the immediate into rs1, which gives the same
                // value for that use and also keeps a whole vcfg held in rs1 (the
                // `vsetcfg rs1` form).
                let value = rs1 | field(Field::Imm12);
                let vcfg = Vcfg::from_bits(value);
                vcfg.check().map_err(|reason| HwachaError::IllegalConfig {
                    vcfg: value,
                    reason,
                })?;
                self.state.reconfigure(vcfg, self.params.maxvl(&vcfg));
                self.state.configured = true;
                Ok(0)
            }
            Control::Vsetvl => {
                self.state.vlen = rs1.min(self.state.maxvl);
                Ok(self.state.vlen)
            }
            Control::Vgetcfg => Ok(self.state.vcfg.to_bits()),
            Control::Vgetvl => Ok(self.state.vlen),
            Control::Vuncfg => {
                let cleared = Vcfg::default();
                self.state.reconfigure(cleared, self.params.maxvl(&cleared));
                self.state.configured = false;
                Ok(0)
            }
            Control::Vmcs => {
                let index = (field(Field::Svrdhi) << 5 | field(Field::Svrdlo)) as u32;
                if index as usize >= super::state::NUM_VS {
                    return Err(HwachaError::SharedRegisterOutOfRange { index });
                }
                if !self.halted() {
                    self.state.set_vs(index, rs1);
                }
                Ok(0)
            }
            Control::Vmca => {
                if !self.halted() {
                    self.state.va[field(Field::Svard) as usize] = rs1;
                }
                Ok(0)
            }
            Control::Vf => {
                let offset = (field(Field::Imm12hi) << 5 | field(Field::Imm12lo)) as u32;
                let offset = ((offset << 20) as i32 >> 20) as i64 as u64;
                // With vlen 0 the block does nothing, as in Hwacha's RoCC unit, which drops
                // vf commands while vlen is 0.
                if self.state.vlen > 0 && !self.halted() {
                    let mut worker = Worker {
                        state: &mut self.state,
                        mem,
                        pc: 0,
                        effects: Vec::new(),
                        tracing: self.tracing,
                    };
                    let ran = worker.run(
                        &self.decoder,
                        rs1.wrapping_add(offset),
                        self.params.max_worker_steps,
                        &mut self.trace,
                    );
                    match ran {
                        Err(e) if self.imprecise && e.is_worker_exception() => {
                            self.exception = Some(e.clone());
                            self.pending = Some(e);
                        }
                        r => r?,
                    }
                }
                Ok(0)
            }
        }
    }
}
