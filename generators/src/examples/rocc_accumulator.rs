//! `RoccAccumulator`: Rocket Chip's AccumulatorExample as a RoCC accelerator, and
//! `RoccAccumulatorSoc`, the Rocket-like tile with it attached (the test top that
//! exercises the RoCC command, response, busy and memory paths).
//!
//! Four 64-bit accumulators on custom-0, selected by rs2: funct7 0 sets acc = rs1,
//! 1 reads, 2 loads acc from the doubleword at address rs1 (through the accelerator's
//! memory port), 3 adds rs1. With xd the response is the accumulator's previous value.
//! The unit takes one command at a time; `busy` is high from a command's acceptance until
//! its memory access and response are done. Commands the ISS's model would reject
//! (another opcode or funct7, rs2 >= 4) are the program's error: this unit ignores
//! them (answering 0 if xd).

use crate::rocket::bus::{mem_request, mem_response, rocc_command, rocc_response};
use crate::rocket::params::RocketParams;
use crate::rocket::tile::tile;
use crate::rocket::trace::trace_shape;
use crate::schema::Param;
use crate::{Generator, ParamError};
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder};
use std::rc::Rc;

/// Design `rocket_accumulator`: the tile with the accumulator, for programs that use it.
/// Its parameters are the tile's; the accelerator is always there (no `rocc`).
pub struct RocketAccumulator;

impl Generator for RocketAccumulator {
    type Params = RocketParams;
    const NAME: &'static str = "rocket_accumulator";
    const DESCRIPTION: &'static str =
        "the rocket tile with Rocket Chip's accumulator example on its RoCC port (custom-0)";

    fn params() -> Vec<Param> {
        crate::rocket::params::params()
    }

    fn validate(p: &RocketParams) -> Result<(), ParamError> {
        p.validate()?;
        p.require_rv64()
    }

    fn build(p: &RocketParams) -> Result<Rc<Module>, HdlErrors> {
        accumulator_soc(p)
    }
}

pub fn accumulator() -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RoccAccumulator");
    let cmd = m.io("cmd", Dir::In, &rocc_command());
    let resp = m.io("resp", Dir::Out, &rocc_response());
    let busy = m.output("busy", 1);
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(0));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(0));

    let acc: Vec<_> = (0..4)
        .map(|i| m.reg(&format!("acc{i}"), 64, 0u64))
        .collect();
    // 0 idle, 1 issue the load, 2 await it, 3 respond.
    let state = m.reg("state", 2, 0u64);
    let sel = m.reg("sel", 2, 0u64);
    let xd = m.reg("xd", 1, false);
    let rd = m.reg("rd", 5, 0u64);
    let addr = m.reg("addr", 64, 0u64);
    let prev = m.reg("prev", 64, 0u64);
    let k = |v: u64, w: u32| state.konst(Bits::from_u64(w, v));
    let st = |v: u64| state.eq(&k(v, 2));

    let b = cmd.bits();
    let funct7 = b.get("funct7").value();
    let rs1_val = b.get("rs1_val").value();
    let index = b.get("rs2").value();
    let legal = &(&b.get("opcode").value().eq(&k(0x0b, 7)) & &index.slice(4, 2).eq(&k(0, 3)))
        & &funct7.slice(6, 2).eq(&k(0, 5));
    let slot = index.slice(1, 0);
    let f = |v: u64| funct7.slice(1, 0).eq(&k(v, 2));
    let mut current = acc[3].clone();
    for i in (0..3).rev() {
        current = slot.eq(&k(i as u64, 2)).mux(&acc[i], &current);
    }
    m.connect(cmd.ready(), &st(0));
    m.connect(&busy, &!&st(0));

    m.when(&cmd.fire(), |m| {
        m.connect(&sel, &slot);
        m.connect(&xd, b.get("xd").value());
        m.connect(&rd, b.get("rd").value());
        m.connect(&addr, rs1_val);
        m.connect(&prev, &legal.mux(&current, &k(0, 64)));
        m.connect(&state, &k(3, 2));
        m.when(&(&legal & &f(2)), |m| m.connect(&state, &k(1, 2)));
        for (i, a) in acc.iter().enumerate() {
            let mine = &legal & &slot.eq(&k(i as u64, 2));
            m.when(&(&mine & &f(0)), |m| m.connect(a, rs1_val));
            m.when(&(&mine & &f(3)), |m| m.connect(a, &(a + rs1_val)));
        }
    });

    m.connect(mem_req.valid(), &st(1));
    let q = mem_req.bits();
    m.connect(q.get("addr").value(), &addr.slice(31, 0));
    m.connect(q.get("write").value(), &k(0, 1));
    m.connect(q.get("data").value(), &k(0, 64));
    m.connect(q.get("mask").value(), &k(0xff, 8));
    m.connect(q.get("size").value(), &k(3, 3));
    m.when(&mem_req.fire(), |m| m.connect(&state, &k(2, 2)));
    m.when(&(&st(2) & mem_resp.valid()), |m| {
        for (i, a) in acc.iter().enumerate() {
            m.when(&sel.eq(&k(i as u64, 2)), |m| {
                m.connect(a, mem_resp.bits().get("data").value())
            });
        }
        m.connect(&state, &k(3, 2));
    });

    m.connect(resp.valid(), &(&st(3) & &xd));
    m.connect(resp.bits().get("rd").value(), &rd);
    m.connect(resp.bits().get("data").value(), &prev);
    m.when(&(&st(3) & &(&!&xd | resp.ready())), |m| {
        m.connect(&state, &k(0, 2))
    });
    m.finish()
}

/// The tile (with its RoCC port in use) and the accumulator, with the tile's `mem` and
/// `trace` ports.
pub fn accumulator_soc(p: &RocketParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("RoccAccumulatorSoc");
    let mem_req = m.io(
        "mem_req",
        Dir::Out,
        &mem_request(crate::rocket::tile::TAG_BITS),
    );
    let mem_resp = m.io(
        "mem_resp",
        Dir::In,
        &mem_response(crate::rocket::tile::TAG_BITS),
    );
    let trace = m.io("trace", Dir::Out, &trace_shape());
    let t = m.instance("tile", &tile(p, true)?);
    let a = m.instance("accumulator", &accumulator()?);
    m.connect_bundle(&mem_req, &t.io("mem_req"));
    m.connect_bundle(&t.io("mem_resp"), &mem_resp);
    m.connect_bundle(&trace, &t.io("trace"));
    m.connect_bundle(&a.io("cmd"), &t.io("rocc_cmd"));
    m.connect_bundle(&t.io("rocc_resp"), &a.io("resp"));
    m.connect(&t.port("rocc_busy"), &a.port("busy"));
    // The accumulator raises no exceptions (it ignores what it does not know).
    m.tie_off(&t.io("rocc_xcpt"));
    m.connect_bundle(&t.io("rocc_mem_req"), &a.io("mem_req"));
    m.connect_bundle(&a.io("mem_resp"), &t.io("rocc_mem_resp"));
    m.finish()
}
