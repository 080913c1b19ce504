//! The CP's shared loads (seed 000, section 2.3: a load on a uniform address is done
//! once, by the CP; docs/fgsimt-engine.md, "CP engine side"): with +a, a converged
//! warp's load whose base register is uniform reads its one word through the CP's own
//! D$ port (shared with the core by `cp_port.rs`, tag 1) instead of the lanes, and the
//! front end writes the value, extended as the load says, to the ASRF as a uniform when
//! it arrives. The front end goes on meanwhile: only an instruction that reads or
//! writes the load's destination, or another scalar one, waits for it.
//!
//! Ordering: the load must see every earlier store of the warp (the golden model runs
//! warp instructions in order), which may still be queued in the SIU or the SMU. A
//! store, SC or AMO sent to the SIU sets `dirty`; a shared load then waits until the
//! lanes and the SMU are idle (which clears it). And it must not see a later one: the
//! front end sends no store, SC or AMO while `busy` (the D$ banks may grant another
//! port's write before this port's read). Loads alone need no wait.
//!
//! With `shared_load_cache` entries (`shared_load_cache.rs`) the word is looked up as
//! the load leaves decode; a hit still valid once `dirty` has cleared answers the next
//! cycle without a request, a miss's answer fills the cache.

use super::super::bundles::{store_snoop, MEM_TAG_BITS};
use super::super::l1::{narrow_request, narrow_response, op};
use super::super::lane::slu::extend;
use super::shared_load_cache::{shared_load_cache, SharedLoadCacheParams};
use hdl::{Bits, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// The tag of the engine's requests on the CP's port (the core's are 0).
pub const TAG: u64 = 1;

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// `SharedLoad`, one load at a time. Ports: in `go` (a shared load leaves decode) with
/// its `addr` (aligned to its size), `funct3` and destination `rd` (`reg_bits` wide: the
/// context's number with contexts, then 0-63), `store_sent`,
/// `exec_idle`, `smu_idle`; `req`/`resp` (the narrow port); out `busy` (a load in flight)
/// with its `rd_out`, `done` (the cycle the value arrives) with `data` (sign- or
/// zero-extended as `funct3` says; flw's word as it is). With a cache (`c.entries` > 0)
/// also in `flush` (no kernel runs) and `snoop` ([`store_snoop`]).
pub fn shared_load(c: &SharedLoadCacheParams, reg_bits: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("SharedLoad");
    let go = m.input("go", 1);
    let addr_in = m.input("addr", 32);
    let funct3_in = m.input("funct3", 3);
    let store_sent = m.input("store_sent", 1);
    let idle = &m.input("exec_idle", 1) & &m.input("smu_idle", 1);
    let req = m.io("req", Dir::Out, &narrow_request(MEM_TAG_BITS));
    let resp = m.io("resp", Dir::In, &narrow_response(MEM_TAG_BITS));

    let dirty = m.reg("dirty", 1, false);
    let one = lit(&go, 1, 1);
    let zero = lit(&go, 0, 1);
    m.when(&store_sent, |m| m.connect(&dirty, &one))
        .elsewhen(&idle, |m| m.connect(&dirty, &zero));
    let pending = m.reg("pending", 1, false);
    let waiting = m.reg("waiting", 1, false);
    let addr = m.reg_en("addr_q", 32, ResetValue::None, &go);
    m.connect(&addr, &addr_in);
    let funct3 = m.reg_en("funct3_q", 3, ResetValue::None, &go);
    m.connect(&funct3, &funct3_in);
    let rd_in = m.input("rd", reg_bits);
    let rd = m.reg_en("rd_q", reg_bits, ResetValue::None, &go);
    m.connect(&rd, &rd_in);

    let looked_up = &pending & &!&dirty;
    let answered = &waiting & resp.valid();
    let resp_word = resp.bits().get("data").value().clone();
    let (hit, word) = match c.entries {
        0 => (zero.clone(), resp_word),
        _ => cached(
            &mut m,
            c,
            (&go, &addr_in, &addr),
            (&looked_up, &answered, &resp_word),
        )?,
    };
    let ask = &looked_up & &!&hit;
    m.connect(req.valid(), &ask);
    let b = req.bits();
    for (field, v) in [
        ("addr", addr.clone()),
        ("op", lit(&addr, op::LOAD, op::BITS)),
        ("data", lit(&addr, 0, 32)),
        ("mask", lit(&addr, 0, 4)),
        ("size", funct3.slice(1, 0)),
        ("tag", lit(&addr, TAG, MEM_TAG_BITS)),
    ] {
        m.connect(b.get(field).value(), &v);
    }
    let sent = &ask & req.ready();
    let done = &answered | &hit;
    m.when(&go, |m| m.connect(&pending, &one))
        .elsewhen(&(&sent | &hit), |m| m.connect(&pending, &zero));
    m.when(&sent, |m| m.connect(&waiting, &one))
        .elsewhen(&answered, |m| m.connect(&waiting, &zero));

    let shifted = word.dshr(&addr.slice(1, 0).cat(&lit(&addr, 0, 3)));
    let data = extend(&shifted, &funct3);
    for (name, v) in [("busy", &pending | &waiting), ("rd_out", rd.clone())] {
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    let done_out = m.output("done", 1);
    m.connect(&done_out, &done);
    let data_out = m.output("data", 32);
    m.connect(&data_out, &data);
    m.finish()
}

/// The cache around the port: looked up with the address as the load leaves decode
/// (`go`, `addr_in`), the matching entry kept (`hit_q`) and answered from once the load
/// may read (`looked_up`) if no store has dropped it since; every `answered` word
/// filled. Returns the hit and the word (the entry's or the port's).
fn cached(
    m: &mut ModuleBuilder,
    c: &SharedLoadCacheParams,
    (go, addr_in, addr): (&Value, &Value, &Value),
    (looked_up, answered, resp_word): (&Value, &Value, &Value),
) -> Result<(Value, Value), HdlErrors> {
    let cache = m.instance("cache", &shared_load_cache(c)?);
    let flush = m.input("flush", 1);
    let snoop = m.io("snoop", Dir::In, &store_snoop(c.lanes));
    m.connect_bundle(&cache.io("snoop"), &snoop);
    m.connect(&cache.port("flush"), &flush);
    m.connect(&cache.port("lookup"), &addr_in.slice(31, 2));
    let hit_q = m.reg_en("hit_q", c.entries, ResetValue::None, go);
    m.connect(&hit_q, &cache.port("match"));
    m.connect(&cache.port("sel"), &hit_q);
    let hit = looked_up & &cache.port("sel_hit");
    for (port, v) in [
        ("fill", answered.clone()),
        ("fill_word", addr.slice(31, 2)),
        ("fill_data", resp_word.clone()),
    ] {
        m.connect(&cache.port(port), &v);
    }
    let word = hdl::mux(&hit, &cache.port("sel_data"), resp_word);
    Ok((hit, word))
}
