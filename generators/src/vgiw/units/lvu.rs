//! The live value unit (seed 004 section 3.5, Table 1: LVU), on the grid's perimeter:
//! "a configuration register holds its LVID; it loads or stores the <LVID, TID> word
//! in the LVC". Its request port carries `store`, the `lvid`, the thread's `tid` and the
//! stored `data`; a load's token carries the response's data, a store's (an ordering
//! token) is sent when the LVC answers it.

use super::requester::{requester, Request};
use super::{UnitIo, UnitOut};
use crate::vgiw::compiler::image::CLASS_LVSTORE;
use hdl::{Bits, HdlErrors, ModuleBuilder};

/// Bits of an LVID.
pub const LVID_BITS: u32 = 16;

pub fn lvu(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let (cfg, f) = (io.cfg, io.fire);
    let store = cfg.is(CLASS_LVSTORE);
    let request = Request {
        fields: vec![
            ("store", store.clone()),
            ("lvid", cfg.field.trunc(LVID_BITS)),
            ("tid", f.tid.clone()),
            ("data", f.operands[0].clone()),
        ],
        keep: store,
    };
    requester(m, io, ("lv_req", "lv_resp"), request, |data, kept| {
        kept.mux(&data.konst(Bits::zero(32)), data)
    })
}
