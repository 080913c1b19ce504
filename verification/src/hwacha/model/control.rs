//! The control thread (thesis Table 7.1): the RoCC commands the core sends. A command is
//! put back into its 32-bit instruction word and looked up in the shared encoding table.
//!
//! A command is decided first ([`Hwacha::decide`]: response and precise exceptions, from
//! the control state alone) and then applied ([`Hwacha::apply`]: registers, memory, the
//! worker thread), so that the application can be put off (memory-order mode, `mod.rs`).

use super::config::Vcfg;
use super::error::HwachaError;
use super::exec::Worker;
use super::state::State;
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

/// The control state a command's response and precise exceptions depend on. The worker
/// thread never changes it, so it is known as soon as the command arrives, even when
/// the command's work on the unit's registers is put off (memory-order mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ControlView {
    pub configured: bool,
    pub vcfg: Vcfg,
    pub maxvl: u64,
    pub vlen: u64,
}

impl ControlView {
    pub fn of(state: &State) -> ControlView {
        ControlView {
            configured: state.configured,
            vcfg: state.vcfg,
            maxvl: state.maxvl,
            vlen: state.vlen,
        }
    }
}

/// What a command does to the unit's registers and memory, beyond its response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    None,
    Configure(Vcfg, u64),
    Unconfigure(Vcfg, u64),
    SetVlen(u64),
    SetVs(u32, u64),
    SetVa(usize, u64),
    /// Run the block at this address.
    Run(u64),
}

impl Hwacha {
    /// Decides one control-thread command on the control state `view` (updated): its
    /// response for rd, or its precise exception, and the action it takes.
    pub(super) fn decide(
        &self,
        view: &mut ControlView,
        cmd: &RoccCommand,
    ) -> Result<(u64, Action), HwachaError> {
        let bits = instruction_bits(cmd);
        let (name, op) = decode(bits).ok_or(HwachaError::UnsupportedControl { bits })?;
        let field = |f: Field| f.get(bits as u64);
        let rs1 = cmd.rs1_value;
        if op != Control::Vsetcfg && !view.configured {
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
                let maxvl = self.params.maxvl(&vcfg);
                *view = ControlView {
                    configured: true,
                    vcfg,
                    maxvl,
                    vlen: 0,
                };
                Ok((0, Action::Configure(vcfg, maxvl)))
            }
            Control::Vsetvl => {
                view.vlen = rs1.min(view.maxvl);
                Ok((view.vlen, Action::SetVlen(view.vlen)))
            }
            Control::Vgetcfg => Ok((view.vcfg.to_bits(), Action::None)),
            Control::Vgetvl => Ok((view.vlen, Action::None)),
            Control::Vuncfg => {
                let cleared = Vcfg::default();
                let maxvl = self.params.maxvl(&cleared);
                *view = ControlView {
                    configured: false,
                    vcfg: cleared,
                    maxvl,
                    vlen: 0,
                };
                Ok((0, Action::Unconfigure(cleared, maxvl)))
            }
            Control::Vmcs => {
                let index = (field(Field::Svrdhi) << 5 | field(Field::Svrdlo)) as u32;
                if index as usize >= super::state::NUM_VS {
                    return Err(HwachaError::SharedRegisterOutOfRange { index });
                }
                Ok((0, Action::SetVs(index, rs1)))
            }
            Control::Vmca => Ok((0, Action::SetVa(field(Field::Svard) as usize, rs1))),
            Control::Vf => {
                let offset = (field(Field::Imm12hi) << 5 | field(Field::Imm12lo)) as u32;
                let offset = ((offset << 20) as i32 >> 20) as i64 as u64;
                Ok((0, Action::Run(rs1.wrapping_add(offset))))
            }
        }
    }

    /// Takes `action` on the unit's registers and `mem`. While a worker-thread exception
    /// waits (imprecise mode), `vmcs`, `vmca` and `vf` are dropped.
    pub(super) fn apply(&mut self, action: Action, mem: &mut Memory) -> Result<(), HwachaError> {
        let halted = self.halted();
        match action {
            Action::None => {}
            Action::Configure(vcfg, maxvl) | Action::Unconfigure(vcfg, maxvl) => {
                self.state.reconfigure(vcfg, maxvl);
                self.state.configured = matches!(action, Action::Configure(..));
            }
            Action::SetVlen(vlen) => self.state.vlen = vlen,
            Action::SetVs(index, value) if !halted => self.state.set_vs(index, value),
            Action::SetVa(index, value) if !halted => self.state.va[index] = value,
            // With vlen 0 the block does nothing, as in Hwacha's RoCC unit, which drops
            // vf commands while vlen is 0.
            Action::Run(entry) if !halted && self.state.vlen > 0 => {
                let mut worker = Worker {
                    state: &mut self.state,
                    mem,
                    pc: 0,
                    effects: Vec::new(),
                    tracing: self.tracing,
                    amo_order: self.deferred.as_mut().map(|d| &mut d.amos),
                };
                let ran = worker.run(
                    &self.decoder,
                    entry,
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
            Action::SetVs(..) | Action::SetVa(..) | Action::Run(_) => {}
        }
        Ok(())
    }
}
