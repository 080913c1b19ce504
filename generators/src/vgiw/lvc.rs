//! The live value cache (seed 004 sections 2 and 3.4; spec 004 section 2.4), module
//! `VgiwLvc`: "a banked cache similar to a GPGPU L1, backed by memory", here the FG-SIMT
//! engine's banked L1 D$ (`crate::fgsimt::l1`: direct-mapped, write-back, 32-byte
//! lines, `lvc_banks` banks of `lvc_bytes` in all, a narrow port an LVU) behind one
//! address former an LVU.
//!
//! The LVU's request (`lvu{i}_req`: `store`, `lvid`, the thread's 16-bit `tid`, `data`,
//! the virtual channel as `tag`) addresses the word of ⟨LVID, TID⟩ in the live values'
//! array in memory, a row a live value and a column a thread of the running tile
//! (`tile_base`, `tile_threads`, from the BBS):
//! `base + 4 * (lvid * tile_threads + (tid - tile_base) mod 2^16)`. The response
//! (`lvu{i}_resp`: the word for a load, with the tag) comes back in request order per
//! port. Live values are dead once the kernel ends, so nothing is flushed between
//! kernels; `flush`/`flush_done` are the cache's, for benches. The cache's memory side
//! (`b<i>_mem_*` a bank, and `io_mem_*`, unused: no region is uncached) and its
//! `trace_*`/`idle` outputs are the module's.

use crate::fgsimt::l1::{dcache, op};
use crate::fgsimt::params::DcacheParams;
use crate::vgiw::fabric::token::{TID_BITS, VALUE_BITS};
use crate::vgiw::params::VgiwParams;
use crate::vgiw::units::lvu::LVID_BITS;
use crate::vgiw::{k, uint};
use hdl::{Dir, HdlErrors, Module, ModuleBuilder, Shape};
use std::rc::Rc;

/// An LVU's request port as the LVC takes it.
pub fn request_shape(tag_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("store", 1),
        uint("lvid", LVID_BITS),
        uint("tid", TID_BITS),
        uint("data", VALUE_BITS),
        uint("tag", tag_bits),
    ]))
}

/// The cache under the LVC.
pub fn cache_params(p: &VgiwParams) -> DcacheParams {
    DcacheParams {
        bytes: p.lvc_bytes,
        line_bytes: crate::fgsimt::params::BLOCK_BYTES,
        banks: p.lvc_banks,
        ways: 1,
        mshrs: 0,
        mshr_targets: 1,
        narrow_ports: p.lvus,
        uncached_base: 0,
        uncached_size: 0,
        sram_threshold_bits: p.sram_threshold_bits,
    }
}

pub fn lvc(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("VgiwLvc");
    let tag_bits = p.layout().vc_bits;
    let cache = m.instance("cache", &dcache(&cache_params(p), tag_bits)?);
    let base = m.input("base", 32);
    let tile_base = m.input("tile_base", 32);
    let tile_threads = m.input("tile_threads", 17);
    let flush = m.input("flush", 1);
    m.connect(&cache.port("flush"), &flush);
    for name in ["flush_done", "idle", "trace_valid", "trace_port"] {
        let v = cache.port(name);
        let o = m.output(name, v.width());
        m.connect(&o, &v);
    }
    for i in 0..p.lvus {
        let req = m.io(&format!("lvu{i}_req"), Dir::In, &request_shape(tag_bits));
        let field = |n: &str| req.bits().get(n).value().clone();
        let n = |f: &str| cache.port(&format!("n{i}_req_{f}"));
        let rel = &field("tid") - &tile_base.trunc(TID_BITS);
        let index = &field("lvid").mul(&tile_threads).trunc(32) + &rel.zext(32);
        let addr = &base + &index.shl(2).trunc(32);
        let store = field("store");
        m.connect(&n("valid"), req.valid());
        m.connect(req.ready(), &n("ready"));
        m.connect(&n("bits_addr"), &addr);
        let (ld, st) = (
            k(&store, op::LOAD, op::BITS),
            k(&store, op::STORE, op::BITS),
        );
        m.connect(&n("bits_op"), &store.mux(&st, &ld));
        m.connect(&n("bits_data"), &field("data"));
        m.connect(&n("bits_mask"), &k(&store, 0xf, 4));
        m.connect(&n("bits_size"), &k(&store, 2, n("bits_size").width()));
        m.connect(&n("bits_tag"), &field("tag"));
        let resp = m.io(
            &format!("lvu{i}_resp"),
            Dir::Out,
            &Shape::valid(Shape::bundle(vec![
                uint("data", VALUE_BITS),
                uint("tag", tag_bits),
            ])),
        );
        let r = |f: &str| cache.port(&format!("n{i}_resp_{f}"));
        m.connect(resp.valid(), &r("valid"));
        m.connect(resp.bits().get("data").value(), &r("bits_data"));
        m.connect(resp.bits().get("tag").value(), &r("bits_tag"));
    }
    let w = |f: &str| cache.port(&format!("w_req_{f}"));
    m.connect(&w("valid"), &k(&flush, 0, 1));
    for f in ["addr", "write", "data", "mask", "tag"] {
        let v = w(&format!("bits_{f}"));
        m.connect(&v, &k(&v, 0, v.width()));
    }
    // The memory ports, under the cache's names.
    let banks = p.lvc_banks;
    hdl::helpers::expose(&mut m, &cache, |n| {
        let mem =
            n.starts_with("io_mem_") || (0..banks).any(|b| n.starts_with(&format!("b{b}_mem_")));
        mem.then(|| n.to_string())
    });
    m.finish()
}
