//! The load/store unit (seed 004 section 3.5, Table 1: LDSTU), on the grid's perimeter:
//! a load, store or AMO a thread, sent to the banked L1 through the crossbar as a
//! narrow request of the L1 the FG-SIMT engine uses (`fgsimt::l1::narrow_request`:
//! `addr`, `op`, `data` and `mask` in the addressed word's byte lanes, log2 `size`,
//! and the virtual channel as `tag`); the response is the addressed aligned word, from
//! which a load takes and extends its bytes. A store's token (an ordering token) is
//! sent when the L1 answers it; an AMO's carries the old value.
//!
//! Operands: a load's base address, a store's base address and value (address = base +
//! the configured offset), an AMO's address and source.

use super::requester::{requester, Request};
use super::{UnitIo, UnitOut};
use crate::fgsimt::l1::op;
use crate::vgiw::compiler::image::{CLASS_AMO, CLASS_LOAD, CLASS_STORE};
use crate::vgiw::k;
use hdl::helpers::priority_mux;
use hdl::{cat, HdlErrors, ModuleBuilder, Value};

/// `Width` variants: B, H, W, Bu, Hu.
const H: u64 = 1;
const W: u64 = 2;
const BU: u64 = 3;
const HU: u64 = 4;

/// A load's value from the aligned word `data`, kept bits `{addr[1:0], width[2:0]}`.
fn loaded(data: &Value, kept: &Value) -> Value {
    let shift = cat(&[&kept.slice(4, 3), &k(kept, 0, 3)]);
    let v = data.dshr(&shift);
    let width = kept.slice(2, 0);
    let is = |x| width.eq(&k(&width, x, 3));
    let signed = |n: u32| v.slice(n - 1, 0).as_signed().sext(32).as_unsigned();
    priority_mux(
        &[
            (is(BU), v.slice(7, 0).zext(32)),
            (is(HU), v.slice(15, 0).zext(32)),
            (is(H), signed(16)),
            (is(W), v.clone()),
        ],
        &signed(8),
    )
}

pub fn ldst(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let (cfg, f) = (io.cfg, io.fire);
    let (a, b) = (&f.operands[0], &f.operands[1]);
    let (load, store, amo) = (cfg.is(CLASS_LOAD), cfg.is(CLASS_STORE), cfg.is(CLASS_AMO));
    let addr = amo.mux(a, &(a + &cfg.field));
    let width = cfg.variant.slice(2, 0);
    let wis = |x| width.eq(&k(&width, x, 3));
    // log2 bytes: B and Bu 0, H and Hu 1, W and AMOs 2.
    let size = priority_mux(
        &[
            (&wis(W) | &amo, k(a, 2, 2)),
            (&wis(H) | &wis(HU), k(a, 1, 2)),
        ],
        &k(a, 0, 2),
    );
    let lanes = size.eq(&k(&size, 2, 2)).mux(
        &k(a, 0xf, 4),
        &size.eq(&k(&size, 1, 2)).mux(&k(a, 3, 4), &k(a, 1, 4)),
    );
    let low = addr.slice(1, 0);
    let mask = store.mux(&lanes.dshl(&low), &amo.mux(&k(a, 0xf, 4), &k(a, 0, 4)));
    let data = store.mux(&b.dshl(&cat(&[&low, &k(a, 0, 3)])), b);
    let opcode = priority_mux(
        &[
            (load.clone(), k(a, op::LOAD, op::BITS)),
            (store.clone(), k(a, op::STORE, op::BITS)),
        ],
        &(&cfg.variant.trunc(op::BITS) + &k(a, op::SWAP, op::BITS)),
    );
    // Kept: a load, a store, addr[1:0] and the width.
    let keep = cat(&[&load, &store, &low, &width]);
    let request = Request {
        fields: vec![
            ("addr", addr.clone()),
            ("op", opcode),
            ("data", data),
            ("mask", mask),
            ("size", size),
        ],
        keep,
    };
    requester(m, io, ("mem_req", "mem_resp"), request, |data, kept| {
        let zero = k(data, 0, 32);
        kept.bit(6).mux(
            &loaded(data, &kept.slice(4, 0)),
            &kept.bit(5).mux(&zero, data),
        )
    })
}
