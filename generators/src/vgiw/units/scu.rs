//! The special compute unit (seed 004 section 3.5, Table 1: SCU): "virtual pipelining"
//! of the non-pipelined operations: `scu_instances` copies of the divider (the Rocket
//! core's iterative `MulDiv` at word width, divides only), a free one picked at issue,
//! so the unit starts one new operation a cycle while an instance is free. Each
//! instance keeps its thread's virtual channel and ID; finished instances hand their
//! results to the output queue one a cycle (lowest first) and hold them until then.
//!
//! Operations: div, divu, rem, remu (variants 15-18 of `image::variant_of`). The FP
//! divide and square root are not built yet (the fabric's bench refuses kernels that
//! use them).

use super::{Local, UnitIo, UnitOut};
use crate::arith::adder::Style;
use crate::rocket::muldiv::muldiv;
use crate::rocket::params::{MulDivParams, MulKind};
use crate::vgiw::fabric::token::{queue_module, Token, TokenQueue};
use hdl::helpers::{lowest_one, onehot_mux};
use hdl::{cat, Bits, HdlErrors, ModuleBuilder, Value};

/// `CompOp::Div`'s variant; Div, Divu, Rem, Remu are funct3 4-7.
const DIV: u64 = 15;

pub fn scu(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let (f, cfg) = (io.fire, io.cfg);
    let unit = muldiv(&MulDivParams {
        mul: MulKind::Iterative,
        mul_bits_per_cycle: 1,
        mul_stages: 1,
        div_bits_per_cycle: 1,
        adders: Style::Inferred,
        registered_result: false,
    })?;
    let k = |like: &Value, v: u64, w: u32| like.konst(Bits::from_u64(w, v));
    let v = &cfg.variant;
    let funct3 = (v - &k(v, DIV - 4, 8)).trunc(3);
    let q = TokenQueue::new(m, "out", &queue_module(io.l, 2)?, io.l);
    let n = io.p.scu_instances;
    let insts: Vec<_> = (0..n)
        .map(|i| m.instance(&format!("div{i}"), &unit))
        .collect();
    let free: Vec<Value> = insts.iter().map(|d| d.port("req_ready")).collect();
    let free = cat(&free.iter().rev().collect::<Vec<_>>());
    let start = &lowest_one(&free) & &f.valid.repeat(n);
    let done: Vec<Value> = insts.iter().map(|d| d.port("resp_valid")).collect();
    let done = cat(&done.iter().rev().collect::<Vec<_>>());
    let grant = &lowest_one(&done) & &q.ready.repeat(n);
    let (mut vcs, mut tids, mut results) = (Vec::new(), Vec::new(), Vec::new());
    for (i, d) in insts.iter().enumerate() {
        let go = start.bit(i as u32);
        let vc = m.reg_en(&format!("div{i}_vc"), io.l.vc_bits, 0u64, &go);
        m.connect(&vc, &f.vc);
        let tid = m.reg_en(&format!("div{i}_tid"), f.tid.width(), 0u64, &go);
        m.connect(&tid, &f.tid);
        for (port, value) in [
            ("req_valid", go),
            ("req_bits_funct3", funct3.clone()),
            ("req_bits_word", k(v, 1, 1)),
            ("req_bits_in1", f.operands[0].zext(64)),
            ("req_bits_in2", f.operands[1].zext(64)),
            ("resp_ready", grant.bit(i as u32)),
            ("kill", k(v, 0, 1)),
        ] {
            m.connect(&d.port(port), &value);
        }
        vcs.push(vc);
        tids.push(tid);
        results.push(d.port("resp_bits_data").slice(31, 0));
    }
    q.push(
        m,
        &Token {
            valid: grant.or_r(),
            vc: onehot_mux(&grant, &vcs),
            tid: onehot_mux(&grant, &tids),
            value: onehot_mux(&grant, &results),
        },
    );
    Ok(UnitOut {
        locals: vec![Local::new(0, q)],
        can_fire: free.or_r(),
    })
}
