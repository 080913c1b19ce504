//! The re-convergence table (seed 001, section 2.1: a divergent branch re-converges at
//! its immediate post-dominator, Fung et al.'s stack; section 2.3: a branch whose
//! post-dominator starts a short block splits an undivided warp). The paper marked both
//! by hand; here the kernel's loader computes them from its code (the golden model's
//! `dws/cfg.rs`: post-dominators on the instruction-level CFG) and writes one entry a
//! branch before the launch, so the datapath answers a branch with its taken mask and
//! target alone.
//!
//! `branch_entries` entries, each a valid bit, the branch's pc and its post-dominator's
//! (word addresses, 30 bits; 0 is `EXIT_PC`, the kernel's return) and `short` (the block
//! there has at most `short_block` instructions: the loader compares, so the table holds
//! a bit, not a length). `tbl_clear` invalidates every entry; `tbl_we` writes entry
//! `tbl_index` (`tbl_pc`, `tbl_ipdom`, `tbl_short`) and makes it valid. A lookup compares
//! every valid entry's pc: the kernels have a few branches each (the largest, 10), so a
//! small content-addressed table holds a kernel's. A branch the table lacks is the
//! sequencer's error, as the model's `CfgError::NotAnalysed`.

use super::params::DwsParams;
use super::state::lit;
use hdl::helpers::onehot_mux;
use hdl::ir::addr_width;
use hdl::{cat, ModuleBuilder, ResetValue, Value};

/// Bits of a word address (RV32 pcs are 4-byte aligned).
const WORD_BITS: u32 = 30;

/// The table's registers.
pub struct Table {
    valid: Vec<Value>,
    pc: Vec<Value>,
    ipdom: Vec<Value>,
    short: Vec<Value>,
}

/// A branch's entry, as the action needs it.
#[derive(Clone)]
pub struct Reconv {
    /// The table holds the branch.
    pub hit: Value,
    /// The post-dominator's pc (32 bits).
    pub ipdom: Value,
    pub short: Value,
}

/// The table's registers and write ports (`tbl_*`).
pub fn reconv_table(m: &mut ModuleBuilder, p: &DwsParams) -> Table {
    let n = p.branch_entries;
    let clear = m.input("tbl_clear", 1);
    let we = m.input("tbl_we", 1);
    let index = m.input("tbl_index", addr_width(n as u64));
    let pc = m.input("tbl_pc", 32);
    let ipdom = m.input("tbl_ipdom", 32);
    let short = m.input("tbl_short", 1);
    let mut t = Table {
        valid: Vec::new(),
        pc: Vec::new(),
        ipdom: Vec::new(),
        short: Vec::new(),
    };
    for e in 0..n {
        let v = m.reg(&format!("tbl{e}_valid"), 1, false);
        let mut field =
            |name: &str, width| m.reg(&format!("tbl{e}_{name}"), width, ResetValue::None);
        let (epc, eipdom, eshort) = (
            field("pc", WORD_BITS),
            field("ipdom", WORD_BITS),
            field("short", 1),
        );
        let write = &we & &index.eq(&lit(&index, e as u64, index.width()));
        m.connect(&v, &(&(&v & &!&clear) | &write));
        m.when(&write, |m| {
            m.connect(&epc, &pc.slice(31, 2));
            m.connect(&eipdom, &ipdom.slice(31, 2));
            m.connect(&eshort, &short);
        });
        t.valid.push(v);
        t.pc.push(epc);
        t.ipdom.push(eipdom);
        t.short.push(eshort);
    }
    t
}

impl Table {
    /// The entry of the branch at `pc` (its low bits ignored).
    pub fn lookup(&self, pc: &Value) -> Reconv {
        let word = pc.slice(31, 2);
        let hits: Vec<Value> = (self.valid.iter().zip(&self.pc))
            .rev()
            .map(|(v, e)| v & &e.eq(&word))
            .collect();
        let sel = cat(&hits.iter().collect::<Vec<_>>());
        let ipdom = onehot_mux(&sel, &self.ipdom);
        Reconv {
            hit: sel.or_r(),
            ipdom: cat(&[&ipdom, &lit(pc, 0, 2)]),
            short: onehot_mux(&sel, &self.short),
        }
    }
}
