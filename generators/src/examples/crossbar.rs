//! A request crossbar: `inputs` decoupled requesters, each addressing one of `outputs`
//! always-ready targets (e.g. SRAM banks, which accept one request per cycle). A
//! fixed-priority arbiter per target grants the lowest-numbered requester; the others
//! see `ready` low and retry, which is how bank conflicts are reported.

use hdl::ir::addr_width;
use hdl::{Bits, Bundle, Dir, HdlErrors, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// What a requester sends: the target index and a payload.
fn request_shape(outputs: u32, payload: &Shape) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        Shape::field("dest", Shape::UInt(addr_width(outputs as u64))),
        Shape::field("payload", payload.clone()),
    ]))
}

/// Module `name` with ports `in` (a vector of `request_shape` requests) and `out` (a
/// vector of valid payloads, one per target).
pub fn crossbar(
    name: &str,
    inputs: u32,
    outputs: u32,
    payload: &Shape,
) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(name);
    let ins = m.io(
        "in",
        Dir::In,
        &Shape::Vec(inputs, Box::new(request_shape(outputs, payload))),
    );
    let outs = m.io(
        "out",
        Dir::Out,
        &Shape::Vec(outputs, Box::new(Shape::valid(payload.clone()))),
    );
    let reqs: Vec<&Bundle> = (0..inputs as usize).map(|i| ins.index(i)).collect();
    let dest = |i: usize| reqs[i].bits().get("dest").value();

    // Requester i is granted unless a lower-numbered one wants the same target. The
    // grant does not depend on requester i's own `valid`, as ready/valid requires.
    for (i, req) in reqs.iter().enumerate() {
        let blocked = (0..i)
            .map(|k| reqs[k].valid() & &dest(k).eq(dest(i)))
            .reduce(|a, b| &a | &b);
        let ready = match blocked {
            Some(b) => !&b,
            None => req.valid().konst(Bits::from_u64(1, 1)),
        };
        m.connect(req.ready(), &ready);
    }

    let payloads: Vec<Vec<&Value>> = reqs
        .iter()
        .map(|r| {
            let leaves = r.bits().get("payload").leaves();
            leaves.into_iter().map(|(v, _)| v).collect()
        })
        .collect();
    for j in 0..outputs as usize {
        let out = outs.index(j);
        let wants: Vec<Value> = reqs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let here = dest(i).konst(Bits::from_u64(dest(i).width(), j as u64));
                r.valid() & &dest(i).eq(&here)
            })
            .collect();
        let any = wants
            .iter()
            .cloned()
            .reduce(|a, b| &a | &b)
            .expect("inputs >= 1");
        m.connect(out.valid(), &any);
        // Each payload leaf comes from the first requester that wants this target.
        for (k, (dst, _)) in out.bits().leaves().into_iter().enumerate() {
            let cases: Vec<(Value, Value)> = wants
                .iter()
                .zip(&payloads)
                .map(|(w, leaves)| (w.clone(), leaves[k].clone()))
                .collect();
            // The last requester needs no condition: when nobody wants this target,
            // `valid` is low and the payload is a don't-care.
            let (last, rest) = cases.split_last().expect("inputs >= 1");
            m.connect(dst, &hdl::helpers::priority_mux(rest, &last.1));
        }
    }
    m.finish()
}
