//! EX's late operands (`core.rs`, module comment: ID and EX): a source written by MEM's
//! instruction with a result MEM makes (a load, LR/SC, an AMO, a CSR read, a RoCC
//! response) does not hold its reader in ID. The reader moves into EX marked `late` for
//! that source; while MEM's instruction is still there (`wait`, a miss) EX holds, and
//! the cycle that instruction is in WB the operand is WB's value, which EX's register
//! takes. With loads requested from EX (`mem_stage::mem_access`), a load hit's reader
//! is one cycle behind it: Rocket's load-use bubble, and its bypass of the load data
//! into EX, here from WB's register.

use super::core::{ExRegs, Id, WbRegs};
use hdl::{mux, ModuleBuilder, Value};

/// EX's registers of the late operands: per source whether it is late, and whether
/// MEM's instruction is still there.
pub(super) struct Late {
    pub(super) flags: Vec<Value>,
    pub(super) wait: Value,
}

impl Late {
    pub(super) fn new(m: &mut ModuleBuilder, sources: usize) -> Late {
        Late {
            flags: (0..sources)
                .map(|i| m.reg(&format!("ex_late{}", i + 1), 1, false))
                .collect(),
            wait: m.reg("ex_late_wait", 1, false),
        }
    }

    /// The operand EX uses for source `i`: WB's value when late, else EX's register.
    pub(super) fn operand(&self, i: usize, reg: &Value, wb: &WbRegs) -> Value {
        mux(&self.flags[i], &wb.value, reg)
    }

    /// EX cannot use its operands yet: a late one's instruction is still in MEM.
    pub(super) fn blocked(&self) -> Value {
        let any = self.flags[1..]
            .iter()
            .fold(self.flags[0].clone(), |a, f| &a | f);
        &any & &self.wait
    }

    /// The flags' updates: loaded with ID's (`id.late`, as EX loads, `ex_free`), MEM's
    /// instruction noted leaving (`mem_go`), and a late operand taken into EX's register
    /// the cycle its value is in WB.
    pub(super) fn update(
        &self,
        m: &mut ModuleBuilder,
        ex: &ExRegs,
        wb: &WbRegs,
        id: &Id,
        (ex_free, mem_go): (&Value, &Value),
    ) {
        let zero = self.wait.konst(hdl::Bits::from_u64(1, 0));
        m.when(mem_go, |m| m.connect(&self.wait, &zero));
        for (flag, reg) in self.flags.iter().zip(&ex.rs_q) {
            m.when(&(flag & &!&self.wait), |m| {
                m.connect(reg, &wb.value);
                m.connect(flag, &zero);
            });
        }
        m.when(ex_free, |m| {
            for (flag, late) in self.flags.iter().zip(&id.late) {
                m.connect(flag, late);
            }
            m.connect(&self.wait, &!mem_go);
        });
    }
}
