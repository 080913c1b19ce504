//! The MT-CGRF's units (seed 004 section 3.5 and Table 1), one file each: what a unit
//! does with the token buffer entry that fires (`fabric/token_buffer.rs`) and the
//! tokens it offers its switch (`fabric/switch.rs`) from its output queues.

pub mod compute;
pub mod cvu;
pub mod ldst;
pub mod lvu;
pub mod requester;
pub mod scu;
pub mod sju;

use super::compiler::image::LOCAL;
use super::compiler::Unit;
use super::fabric::config::CellConfig;
use super::fabric::token::{Layout, TokenQueue};
use super::fabric::token_buffer::Fire;
use super::params::VgiwParams;
use hdl::{HdlErrors, ModuleBuilder, Value};

/// What a unit builder is given: the parameters, the token layout, the cell's
/// configuration and the entry its token buffer fires.
pub struct UnitIo<'a> {
    pub p: &'a VgiwParams,
    pub l: Layout,
    pub cfg: &'a CellConfig,
    pub fire: &'a Fire,
}

/// A unit output the switch takes tokens from: source code `LOCAL | k`.
pub struct Local {
    pub code: u8,
    pub queue: TokenQueue,
}

impl Local {
    pub fn new(k: u8, queue: TokenQueue) -> Local {
        Local {
            code: LOCAL | k,
            queue,
        }
    }
}

/// A unit: its outputs and whether its token buffer may fire an entry this cycle.
pub struct UnitOut {
    pub locals: Vec<Local>,
    pub can_fire: Value,
}

/// The unit of type `u`.
pub fn build(m: &mut ModuleBuilder, u: Unit, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    match u {
        Unit::Compute => compute::compute(m, io),
        Unit::Scu => scu::scu(m, io),
        Unit::Ldst => ldst::ldst(m, io),
        Unit::Lvu => lvu::lvu(m, io),
        Unit::Sju => sju::sju(m, io),
        Unit::Cvu => cvu::cvu(m, io),
    }
}
