//! The special compute unit (seed 004 section 3.5, Table 1: SCU): "virtual pipelining"
//! of the non-pipelined operations: `scu_instances` integer dividers (the Rocket core's
//! iterative `MulDiv` at word width, divides only) and as many single-precision divide
//! and square root units (`fpu::divsqrt`), a free one of the operation's kind picked at
//! issue, so the unit starts one new operation a cycle while an instance is free. Each
//! instance keeps its thread's virtual channel and ID; finished instances hand their
//! results to the output queue one a cycle (lowest first) and hold them until then.
//!
//! Operations: div, divu, rem, remu, fdiv.s and fsqrt.s (variants 15-18, 31 and 32 of
//! `image::variant_of`).

use super::compute::FP;
use super::{Local, UnitIo, UnitOut};
use crate::arith::adder::Style;
use crate::fpu::divsqrt::{divsqrt, OP_SQRT};
use crate::fpu::SINGLE;
use crate::rocket::muldiv::muldiv;
use crate::rocket::params::{MulDivParams, MulKind};
use crate::vgiw::fabric::token::{queue_module, Token, TokenQueue};
use crate::vgiw::k;
use hdl::helpers::{lowest_one, onehot_mux};
use hdl::{cat, HdlErrors, Inst, ModuleBuilder, Value};

/// `CompOp::Div`'s variant; Div, Divu, Rem, Remu are funct3 4-7.
const DIV: u64 = 15;
/// `CompOp::FSqrt`'s variant.
const FSQRT: u64 = 32;
/// Quotient bits a cycle of the FP divide and square root.
const FDIV_BITS_PER_CYCLE: u32 = 1;

/// An instance's handshake ports and result.
struct Instance {
    inst: Inst,
    /// Its `in_valid`-like and `out_ready`-like port names.
    start: &'static str,
    take: &'static str,
    free: Value,
    done: Value,
    result: Value,
}

/// The integer and FP instances, their operands connected.
fn instances(m: &mut ModuleBuilder, io: &UnitIo) -> Result<Vec<Instance>, HdlErrors> {
    let (f, v) = (io.fire, &io.cfg.variant);
    let int = muldiv(&MulDivParams {
        mul: MulKind::Iterative,
        mul_bits_per_cycle: 1,
        mul_early_out: false,
        mul_stages: 1,
        div_bits_per_cycle: 1,
        div_early_out: false,
        adders: Style::Inferred,
        registered_result: false,
    })?;
    let fp = divsqrt(SINGLE, FDIV_BITS_PER_CYCLE)?;
    let (a, b) = (&f.operands[0], &f.operands[1]);
    let mut all = Vec::new();
    for i in 0..io.p.scu_instances {
        let d = m.instance(&format!("div{i}"), &int);
        for (port, value) in [
            ("req_bits_funct3", (v - &k(v, DIV - 4, 8)).trunc(3)),
            ("req_bits_word", k(v, 1, 1)),
            ("req_bits_in1", a.zext(64)),
            ("req_bits_in2", b.zext(64)),
            ("kill", k(v, 0, 1)),
        ] {
            m.connect(&d.port(port), &value);
        }
        all.push(Instance {
            free: d.port("req_ready"),
            done: d.port("resp_valid"),
            result: d.port("resp_bits_data").slice(31, 0),
            inst: d,
            start: "req_valid",
            take: "resp_ready",
        });
    }
    for i in 0..io.p.scu_instances {
        let d = m.instance(&format!("fdiv{i}"), &fp);
        for (port, value) in [
            (
                "op",
                v.eq(&k(v, FSQRT, 8))
                    .mux(&k(v, OP_SQRT, 1), &k(v, 1 - OP_SQRT, 1)),
            ),
            ("rm", io.cfg.rm.clone()),
            ("a", a.clone()),
            ("b", b.clone()),
        ] {
            m.connect(&d.port(port), &value);
        }
        all.push(Instance {
            free: d.port("in_ready"),
            done: d.port("out_valid"),
            result: d.port("result"),
            inst: d,
            start: "in_valid",
            take: "out_ready",
        });
    }
    Ok(all)
}

fn bits(vs: impl Iterator<Item = Value>) -> Value {
    let vs: Vec<Value> = vs.collect();
    cat(&vs.iter().rev().collect::<Vec<_>>())
}

pub fn scu(m: &mut ModuleBuilder, io: &UnitIo) -> Result<UnitOut, HdlErrors> {
    let (f, v) = (io.fire, &io.cfg.variant);
    let q = TokenQueue::new(m, "out", &queue_module(io.l, 2)?, io.l);
    let all = instances(m, io)?;
    let n = io.p.scu_instances;
    // The instances of the operation's kind: the integer ones first, then the FP ones.
    let fp = v.ge(&k(v, FP, 8));
    let kind = cat(&[&fp.repeat(n), &(!&fp).repeat(n)]);
    let free = &bits(all.iter().map(|i| i.free.clone())) & &kind;
    let start = &lowest_one(&free) & &f.valid.repeat(2 * n);
    let done = bits(all.iter().map(|i| i.done.clone()));
    let grant = &lowest_one(&done) & &q.ready.repeat(2 * n);
    let (mut vcs, mut tids) = (Vec::new(), Vec::new());
    for (i, d) in all.iter().enumerate() {
        let go = start.bit(i as u32);
        let vc = m.reg_en(&format!("vc{i}"), io.l.vc_bits, hdl::ResetValue::None, &go);
        m.connect(&vc, &f.vc);
        let tid = m.reg_en(
            &format!("tid{i}"),
            f.tid.width(),
            hdl::ResetValue::None,
            &go,
        );
        m.connect(&tid, &f.tid);
        m.connect(&d.inst.port(d.start), &go);
        m.connect(&d.inst.port(d.take), &grant.bit(i as u32));
        vcs.push(vc);
        tids.push(tid);
    }
    let results: Vec<Value> = all.iter().map(|d| d.result.clone()).collect();
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
