//! The shared load cache (seed 000, section 1.2: "the first warp brings kernel
//! parameters into a shared load cache, reducing access latency for later warps", and
//! the cache "is invalidated after the end of each kernel"; docs/fgsimt-engine.md, "CP
//! engine side"). It keeps the words the CP's shared loads (`shared_load.rs`) read, so
//! a later warp's load of the same kernel parameter answers the cycle after decode
//! instead of going through the D$ port.
//!
//! Decided here, where the paper says no more: `entries` words (the parameter
//! `shared_load_cache`), fully associative, filled in FIFO order by every answered
//! shared load outside the uncached region; emptied whenever no kernel runs (`flush`:
//! the RoCC port idle), so each kernel starts empty. Coherence inside a kernel, which
//! the paper's per-kernel invalidation leaves to the program: every word a lane's store,
//! SC or AMO addresses (`snoop`, the memory slots entering the SMU) is dropped, so a
//! shared load never returns a value older than the warp's earlier stores (it first
//! waits for them to reach the SMU, `shared_load.rs`).

use super::super::bundles::store_snoop;
use hdl::helpers::onehot_mux;
use hdl::{cat, Bits, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// Most entries the parameter accepts.
pub const MAX_ENTRIES: u32 = 32;

/// The cache's shape: entries, and the uncached region it never holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedLoadCacheParams {
    pub entries: u32,
    pub lanes: u32,
    pub uncached_base: u64,
    pub uncached_size: u64,
}

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// Whether the byte address of word `word` (30 bits) lies outside `[base, base + size)`.
fn cacheable(word: &Value, p: &SharedLoadCacheParams) -> Value {
    if p.uncached_size == 0 {
        return lit(word, 1, 1);
    }
    let addr = word.zext(33).shl(2);
    let below = addr.lt(&lit(&addr, p.uncached_base, 33));
    let above = addr.ge(&lit(&addr, p.uncached_base + p.uncached_size, 33));
    &below | &above
}

/// `SharedLoadCache`. Ports: in `lookup` (a word address, bits 31:2), out `match` (one
/// bit an entry: valid and holding that word); in `sel` (one-hot), out `sel_hit` (the
/// selected entry is still valid) and `sel_data`; in `fill` with `fill_word` and
/// `fill_data` (kept unless uncached), `flush`, and `snoop` ([`store_snoop`]).
pub fn shared_load_cache(p: &SharedLoadCacheParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("FgsimtSharedLoadCache");
    let e = p.entries;
    let lookup = m.input("lookup", 30);
    let sel = m.input("sel", e);
    let fill = m.input("fill", 1);
    let fill_word = m.input("fill_word", 30);
    let fill_data = m.input("fill_data", 32);
    let flush = m.input("flush", 1);
    let snoop = m.io("snoop", Dir::In, &store_snoop(p.lanes));

    let keep = &fill & &cacheable(&fill_word, p);
    let ptr_bits = hdl::ir::addr_width(e as u64).max(1);
    let ptr = m.reg("fifo", ptr_bits, 0u64);
    let last = lit(&ptr, (e - 1) as u64, ptr_bits);
    let next = hdl::mux(
        &ptr.eq(&last),
        &lit(&ptr, 0, ptr_bits),
        &(&ptr + &lit(&ptr, 1, ptr_bits)),
    );
    m.when(&keep, |m| m.connect(&ptr, &next));

    let writes = snoop.get("write").value().clone();
    let mut valid = Vec::new();
    let mut data = Vec::new();
    let mut matches = Vec::new();
    for i in 0..e {
        let v = m.reg(&format!("valid_{i}"), 1, false);
        let tag = m.reg(&format!("tag_{i}"), 30, ResetValue::None);
        let d = m.reg(&format!("data_{i}"), 32, ResetValue::None);
        let here = &keep & &ptr.eq(&lit(&ptr, i as u64, ptr_bits));
        let snooped = (0..p.lanes).fold(lit(&tag, 0, 1), |a, l| {
            let word = snoop.get("word").index(l as usize).value().clone();
            &a | &(&writes.bit(l) & &word.eq(&tag))
        });
        m.when(&here, |m| {
            m.connect(&tag, &fill_word);
            m.connect(&d, &fill_data);
        });
        let one = lit(&v, 1, 1);
        let zero = lit(&v, 0, 1);
        m.when(&(&flush | &snooped), |m| m.connect(&v, &zero))
            .elsewhen(&here, |m| m.connect(&v, &one));
        matches.push(&v & &tag.eq(&lookup));
        valid.push(v);
        data.push(d);
    }
    let rev = |vs: &[Value]| -> Value {
        let refs: Vec<&Value> = vs.iter().rev().collect();
        cat(&refs)
    };
    let valid = rev(&valid);
    for (name, v) in [
        ("match", rev(&matches)),
        ("sel_hit", (&sel & &valid).or_r()),
        ("sel_data", onehot_mux(&sel, &data)),
    ] {
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    m.finish()
}
