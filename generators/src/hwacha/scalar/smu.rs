//! `HwachaSmu`: the scalar memory unit. It performs the scalar loads and stores
//! (`Mode::Shared`/`Mode::Address`, every width, with segments) one doubleword-bus
//! access at a time: segment k of an access of b bytes at address a is at a + k*b, as in
//! the golden model. The X stage has already checked alignment and the memory window, so
//! every access it is given succeeds. Loads write back one register per segment
//! (sign- or zero-extended); stores read their data register through `sreg`/`sdata`
//! when the segment's request goes out.

use crate::rocket::bus::{mem_request, mem_response};
use hdl::{Bits, Dir, Field, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

fn uint(name: &str, width: u32) -> Field {
    Shape::field(name, Shape::UInt(width))
}

/// A scalar access: `reg` is the first destination (load) or data (store) register,
/// `seglen` the segments minus one, `size` log2 bytes.
pub fn smu_request() -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("load", 1),
        uint("unsigned", 1),
        uint("size", 2),
        uint("seglen", 3),
        uint("reg", 6),
        uint("addr", 64),
    ]))
}

/// A shared-register write: register and value.
pub fn reg_write() -> Shape {
    Shape::valid(Shape::bundle(vec![uint("rd", 6), uint("data", 64)]))
}

/// Ports: `req`, `wb` (load write-back), `sreg`/`sdata` (store data read), `busy`,
/// `mem_req`/`mem_resp`.
pub fn smu() -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("HwachaSmu");
    let req = m.io("req", Dir::In, &smu_request());
    let wb = m.io("wb", Dir::Out, &reg_write());
    let sreg = m.output("sreg", 6);
    let sdata = m.input("sdata", 64);
    let busy = m.output("busy", 1);
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(0));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(0));
    let k = |v: u64, w: u32| sdata.konst(Bits::from_u64(w, v));

    let active = m.reg("active", 1, false);
    // A request of the current segment is out, waiting for its response.
    let waiting = m.reg("waiting", 1, false);
    let load = m.reg("load", 1, false);
    // Not `unsigned`: a Verilog keyword.
    let unsigned = m.reg("zero_extend", 1, false);
    let size = m.reg("size", 2, 0u64);
    let left = m.reg("left", 3, 0u64);
    let reg = m.reg("reg", 6, 0u64);
    let addr = m.reg("addr", 64, 0u64);

    let r = req.bits();
    let g = |n: &str| r.get(n).value().clone();
    m.connect(req.ready(), &!&active);
    m.when(&req.fire(), |m| {
        m.connect(&active, &k(1, 1));
        m.connect(&load, &g("load"));
        m.connect(&unsigned, &g("unsigned"));
        m.connect(&size, &g("size"));
        m.connect(&left, &g("seglen"));
        m.connect(&reg, &g("reg"));
        m.connect(&addr, &g("addr"));
    });

    // The request of the current segment: data and mask in the address's byte lanes.
    let lane = cat_shift(&addr.slice(2, 0));
    let bytes_mask = priority_bytes(&size);
    m.connect(&sreg, &reg);
    m.connect(mem_req.valid(), &(&active & &!&waiting));
    let q = mem_req.bits();
    m.connect(q.get("addr").value(), &addr.slice(31, 0));
    m.connect(q.get("write").value(), &!&load);
    m.connect(q.get("data").value(), &sdata.dshl(&lane));
    m.connect(q.get("mask").value(), &bytes_mask.dshl(&addr.slice(2, 0)));
    m.connect(q.get("size").value(), &size.zext(3));
    m.when(&mem_req.fire(), |m| m.connect(&waiting, &k(1, 1)));

    // The response: the doubleword holding the address; the access's bytes extended.
    let raw = mem_resp.bits().get("data").value().dshr(&lane);
    let ext = |bits: u32| {
        let low = raw.slice(bits - 1, 0);
        unsigned.mux(&low.zext(64), &low.as_signed().sext(64).as_unsigned())
    };
    let sized = hdl::helpers::priority_mux(
        &[
            (size.eq(&k(0, 2)), ext(8)),
            (size.eq(&k(1, 2)), ext(16)),
            (size.eq(&k(2, 2)), ext(32)),
        ],
        &raw,
    );
    let done = &mem_resp.valid().clone() & &waiting;
    m.connect(wb.valid(), &(&done & &load));
    m.connect(wb.bits().get("rd").value(), &reg);
    m.connect(wb.bits().get("data").value(), &sized);
    m.when(&done, |m| {
        m.connect(&waiting, &k(0, 1));
        m.connect(&left, &(&left - &k(1, 3)));
        m.connect(&reg, &(&reg + &k(1, 6)));
        m.connect(&addr, &(&addr + &k(1, 64).dshl(&size)));
        m.when(&left.eq(&k(0, 3)), |m| m.connect(&active, &k(0, 1)));
    });
    m.connect(&busy, &active);
    m.finish()
}

/// Bit offset of byte lane `b` (3 bits): b * 8, as a 6-bit shift amount.
fn cat_shift(b: &Value) -> Value {
    b.cat(&b.konst(Bits::zero(3)))
}

/// The byte mask of an access of 2^size bytes at lane 0.
fn priority_bytes(size: &Value) -> Value {
    let k = |v: u64, w: u32| size.konst(Bits::from_u64(w, v));
    hdl::helpers::priority_mux(
        &[
            (size.eq(&k(0, 2)), k(0x01, 8)),
            (size.eq(&k(1, 2)), k(0x03, 8)),
            (size.eq(&k(2, 2)), k(0x0f, 8)),
        ],
        &k(0xff, 8),
    )
}
