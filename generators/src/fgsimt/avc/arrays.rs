//! The AVC and L1 pair's arrays (seed 002, Figure 4; spec 002 section 3.2), one of each
//! a way, each with one synchronous read port and one write port (so the policy makes
//! the large ones SRAM macros):
//! - AVC tags: the line's tag and a live bit for each of its vectors (a vector is live
//!   when any of its words is valid; a new line is written with none live);
//! - AVC vectors, indexed by set and vector: base, stride code, valid mask, dirty;
//! - L1 meta: tag, word valid and word dirty masks; L1 data: the block's words.
//!
//! A line's valid bit, in each cache, is a register (reset) outside the arrays.

use super::params::AvcParams;
use crate::memory::{self, ArrayPorts};
use hdl::helpers::onehot_mux;
use hdl::{Mem, ModuleBuilder, Value};

/// One array a way, with its read data.
pub struct Banked {
    mems: Vec<Mem>,
    pub out: Vec<Value>,
}

impl Banked {
    fn new(
        m: &mut ModuleBuilder,
        g: &AvcParams,
        name: &str,
        (depth, width): (u64, u32),
        (ways, addr, en): (u32, &Value, &Value),
    ) -> Banked {
        let style = memory::style(depth, width, ArrayPorts::SYNC_1R1W, g.sram_threshold_bits);
        let mems: Vec<Mem> = (0..ways)
            .map(|w| m.mem(&format!("{name}_{w}"), depth, width, style))
            .collect();
        let out = mems.iter().map(|mem| m.read_sync(mem, addr, en)).collect();
        Banked { mems, out }
    }

    /// Writes `data` at `addr` of way `way` when `en`.
    pub fn write(
        &self,
        m: &mut ModuleBuilder,
        en: &Value,
        (way, addr, data): (&Value, &Value, &Value),
    ) {
        for (w, mem) in self.mems.iter().enumerate() {
            let here = en & &way.eq(&crate::blocks::k(way, w as u64, way.width()));
            m.when(&here, |m| m.write(mem, addr, data));
        }
    }

    /// The read data of way `way` (one-hot select `sel`).
    pub fn of(&self, sel: &Value) -> Value {
        onehot_mux(sel, &self.out)
    }
}

/// Read addresses and enables of the two caches' arrays.
pub struct Reads<'a> {
    pub tag: (&'a Value, &'a Value),
    pub vector: (&'a Value, &'a Value),
    pub l1: (&'a Value, &'a Value),
}

pub struct Arrays {
    pub tags: Banked,
    pub vectors: Banked,
    pub meta: Banked,
    pub data: Banked,
}

impl Arrays {
    pub fn new(m: &mut ModuleBuilder, g: &AvcParams, r: Reads) -> Arrays {
        let sets = g.avc_sets as u64;
        let tag_w = g.tag_bits() + g.vectors_per_line;
        let slots = sets * g.vectors_per_line as u64;
        let meta_w = g.l1_tag_bits() + 2 * g.threads;
        let l1 = g.l1_sets as u64;
        Arrays {
            tags: Banked::new(
                m,
                g,
                "avc_tags",
                (sets, tag_w),
                (g.avc_ways, r.tag.0, r.tag.1),
            ),
            vectors: Banked::new(
                m,
                g,
                "avc_vectors",
                (slots, g.vector_bits()),
                (g.avc_ways, r.vector.0, r.vector.1),
            ),
            meta: Banked::new(m, g, "l1_meta", (l1, meta_w), (g.l1_ways, r.l1.0, r.l1.1)),
            data: Banked::new(
                m,
                g,
                "l1_data",
                (l1, g.data_bits()),
                (g.l1_ways, r.l1.0, r.l1.1),
            ),
        }
    }
}
