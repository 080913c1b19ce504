//! Live values (seed 004 section 3.1: "similar to traditional register allocation"). The
//! kernel's code is register-allocated already, so a value crossing a block boundary is
//! a register live there: each register live into some block and written somewhere in
//! the kernel gets a live value ID (LVID), in register order. A register the kernel never
//! writes keeps its initial value everywhere (zero, or ra, sp, gp, tp as `simt.h` sets
//! them), which each block that reads it rebuilds from the CVU's values instead of the
//! LVC.

use super::cfg::{Cfg, Target};
use super::decode::Reg;

/// Register sets are 64-bit masks of [`Reg::bit`].
#[derive(Debug, Clone)]
pub struct Liveness {
    /// Registers live into each block (by block ID).
    pub live_in: Vec<u64>,
    /// Registers live out of each block.
    pub live_out: Vec<u64>,
    /// Registers some instruction of the kernel writes.
    pub written: u64,
    /// The LVID of each register that has one.
    pub lvid: [Option<u16>; 64],
    /// The register of each LVID.
    pub live_values: Vec<Reg>,
}

impl Liveness {
    /// Whether `r` keeps its initial value throughout the kernel.
    pub fn initial_only(&self, r: Reg) -> bool {
        self.written & r.bit() == 0
    }
}

/// Registers each block reads before writing, and writes.
fn uses_defs(cfg: &Cfg) -> Vec<(u64, u64)> {
    (cfg.blocks.iter())
        .map(|b| {
            let (mut uses, mut defs) = (0u64, 0u64);
            for (_, insn) in &b.insns {
                for r in insn.uses() {
                    if r != Reg::ZERO && defs & r.bit() == 0 {
                        uses |= r.bit();
                    }
                }
                if let Some(r) = insn.def() {
                    defs |= r.bit();
                }
            }
            (uses, defs)
        })
        .collect()
}

pub fn analyze(cfg: &Cfg) -> Liveness {
    let n = cfg.blocks.len();
    let ud = uses_defs(cfg);
    let (mut live_in, mut live_out) = (vec![0u64; n], vec![0u64; n]);
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let out = (cfg.blocks[b].term.targets().into_iter())
                .map(|t| match t {
                    Target::Block(s) => live_in[s],
                    Target::Exit => 0,
                })
                .fold(0, |a, s| a | s);
            let inn = ud[b].0 | (out & !ud[b].1);
            if (out, inn) != (live_out[b], live_in[b]) {
                (live_out[b], live_in[b]) = (out, inn);
                changed = true;
            }
        }
    }
    let written = ud.iter().fold(0, |a, (_, d)| a | d);
    let crossing = live_in[1..].iter().fold(0, |a, l| a | l) & written;
    let mut lvid = [None; 64];
    let mut live_values = Vec::new();
    for r in (1..64).map(Reg) {
        if crossing & r.bit() != 0 {
            lvid[r.0 as usize] = Some(live_values.len() as u16);
            live_values.push(r);
        }
    }
    Liveness {
        live_in,
        live_out,
        written,
        lvid,
        live_values,
    }
}
