//! The split/join unit (seed 004 section 3.5, Table 1: SJU). A split copies its one
//! operand to its consumers (the switch fans it out, `max_fanout` at a time); a join's
//! entry is ready once the control tokens of all its (up to three) predecessors are in,
//! and it emits one control token.

use super::{Local, UnitIo, UnitOut};
use crate::vgiw::compiler::image::CLASS_SPLIT;
use crate::vgiw::fabric::token::{queue_module, Token, TokenQueue};
use hdl::{Bits, HdlErrors, ModuleBuilder};

pub fn sju(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let q = TokenQueue::new(m, "out", &queue_module(io.l, 2)?, io.l);
    let f = io.fire;
    let zero = f.vc.konst(Bits::zero(32));
    let value = io.cfg.is(CLASS_SPLIT).mux(&f.operands[0], &zero);
    q.push(
        m,
        &Token {
            valid: f.valid.clone(),
            vc: f.vc.clone(),
            tid: f.tid.clone(),
            value,
        },
    );
    let can_fire = q.ready.clone();
    Ok(UnitOut {
        locals: vec![Local::new(0, q)],
        can_fire,
    })
}
