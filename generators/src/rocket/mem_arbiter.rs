//! `MemArbiter`: several memory clients onto one tagged port. Requests are granted
//! round-robin (the client after the last one granted goes first), and carry the
//! client's index as their tag; responses are routed back by tag. Each client sees its
//! own responses in order because the outer port answers in acceptance order per tag.

use super::bus::{mem_request, mem_response};
use hdl::ir::addr_width;
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder, Value};
use std::rc::Rc;

/// Tag bits for `clients` clients.
pub fn tag_bits(clients: u32) -> u32 {
    addr_width(clients as u64).max(1)
}

/// Ports `c<i>_req`/`c<i>_resp` per client and `mem_req`/`mem_resp` outside.
pub fn mem_arbiter(clients: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(&format!("MemArbiter{clients}"));
    let tb = tag_bits(clients);
    let reqs: Vec<_> = (0..clients)
        .map(|i| m.io(&format!("c{i}_req"), Dir::In, &mem_request(0)))
        .collect();
    let resps: Vec<_> = (0..clients)
        .map(|i| m.io(&format!("c{i}_resp"), Dir::Out, &mem_response(0)))
        .collect();
    let out = m.io("mem_req", Dir::Out, &mem_request(tb));
    let back = m.io("mem_resp", Dir::In, &mem_response(tb));
    let last = m.reg("last", tb, (clients - 1) as u64);

    let n = clients as usize;
    let valid: Vec<Value> = reqs.iter().map(|r| r.valid().clone()).collect();
    let mut grant: Vec<Value> = vec![m.lit(0, 1); n];
    for l in 0..n {
        let is_last = last.eq(&last.konst(Bits::from_u64(tb, l as u64)));
        let mut none_before = m.lit(1, 1);
        for step in 1..=n {
            let i = (l + step) % n;
            let g = &(&is_last & &none_before) & &valid[i];
            grant[i] = &grant[i] | &g;
            none_before = &none_before & &!&valid[i];
        }
    }
    let any = valid[1..].iter().fold(valid[0].clone(), |a, v| &a | v);
    m.connect(out.valid(), &any);
    let ob = out.bits();
    for field in ["addr", "write", "data", "mask", "size"] {
        let w = ob.get(field).value().width();
        let mut v = m.lit_bits(Bits::zero(w));
        for (i, r) in reqs.iter().enumerate() {
            v = grant[i].mux(r.bits().get(field).value(), &v);
        }
        m.connect(ob.get(field).value(), &v);
    }
    let mut tag = m.lit(0, tb);
    for (i, g) in grant.iter().enumerate() {
        tag = g.mux(&m.lit(i as u64, tb), &tag);
    }
    m.connect(ob.get("tag").value(), &tag);
    for (i, r) in reqs.iter().enumerate() {
        m.connect(r.ready(), &(&grant[i] & out.ready()));
    }
    m.when(&out.fire(), |m| m.connect(&last, &tag));

    let back_tag = back.bits().get("tag").value();
    for (i, r) in resps.iter().enumerate() {
        let mine = back_tag.eq(&back_tag.konst(Bits::from_u64(tb, i as u64)));
        m.connect(r.valid(), &(back.valid() & &mine));
        m.connect(
            r.bits().get("data").value(),
            back.bits().get("data").value(),
        );
    }
    m.finish()
}
