//! Tree pseudo-LRU replacement for any number of ways (seed 002, section 5.1; the tree
//! padded to the next power of two, never pointing at a missing way, invalid ways taken
//! first: the golden model's `verification::fgsimt::avc::plru`), one state register a
//! set. The AVC and its L1 (`avc/controller.rs`) and the D$ banks (`l1/dcache.rs`) use
//! it.
//!
//! Node k's children are 2k + 1 and 2k + 2; a node's bit set means the next victim
//! comes from its upper half.

use crate::blocks::{any, k};
use hdl::helpers::{onehot_decode, onehot_encode, onehot_mux, priority_encode};
use hdl::ir::addr_width;
use hdl::{cat, mux, ModuleBuilder, Value};

/// The nodes on way `w`'s path from the root, with the direction taken (true: upper).
fn path(w: usize, leaves: usize) -> Vec<(usize, bool)> {
    let (mut node, mut lo, mut size) = (0, 0, leaves);
    let mut out = Vec::new();
    while size > 1 {
        let half = size / 2;
        let upper = w >= lo + half;
        out.push((node, upper));
        node = 2 * node + 1 + upper as usize;
        lo += if upper { half } else { 0 };
        size = half;
    }
    out
}

/// The first index of each node's upper half, for the "no real way there" rule.
fn upper_start(node: usize, leaves: usize) -> usize {
    let (mut n, mut lo, mut size) = (node, 0, leaves);
    // Walk down from the root to `node` by its index's binary path.
    let mut steps = Vec::new();
    while n > 0 {
        steps.push((n - 1) % 2 == 1);
        n = (n - 1) / 2;
    }
    for upper in steps.into_iter().rev() {
        size /= 2;
        lo += if upper { size } else { 0 };
    }
    lo + size / 2
}

/// The replacement state of `sets` sets of `ways` ways.
pub struct Plru {
    ways: usize,
    leaves: usize,
    state: Vec<Value>,
}

impl Plru {
    pub fn new(m: &mut ModuleBuilder, name: &str, sets: u32, ways: u32) -> Plru {
        let leaves = (ways as usize).next_power_of_two();
        let state = if leaves > 1 {
            (0..sets)
                .map(|s| m.reg(&format!("{name}_{s}"), leaves as u32 - 1, 0u64))
                .collect()
        } else {
            Vec::new()
        };
        Plru {
            ways: ways as usize,
            leaves,
            state,
        }
    }

    fn way_bits(&self) -> u32 {
        addr_width(self.ways as u64)
    }

    /// The way to replace in `set`: the first invalid one (`valid`, a bit a way), else
    /// where the tree points.
    pub fn victim(&self, set: &Value, valid: &Value) -> Value {
        let w = self.way_bits();
        if self.state.is_empty() {
            return k(valid, 0, w);
        }
        let bits = onehot_mux(&onehot_decode(set, self.state.len() as u32), &self.state);
        let points: Vec<Value> = (0..self.ways)
            .rev()
            .map(|way| {
                let conds: Vec<Value> = path(way, self.leaves)
                    .into_iter()
                    .map(|(node, upper)| {
                        let bit = bits.bit(node as u32);
                        if upper {
                            bit
                        } else if upper_start(node, self.leaves) >= self.ways {
                            k(valid, 1, 1)
                        } else {
                            !&bit
                        }
                    })
                    .collect();
                conds[1..].iter().fold(conds[0].clone(), |a, c| &a & c)
            })
            .collect();
        let tree = onehot_encode(&cat(&points.iter().collect::<Vec<_>>()));
        let invalid = !valid;
        let first_invalid = priority_encode(&invalid).slice(w - 1, 0);
        let any_invalid = any(&(0..self.ways as u32)
            .map(|i| invalid.bit(i))
            .collect::<Vec<_>>());
        mux(&any_invalid, &first_invalid, &tree.slice(w - 1, 0))
    }

    /// Makes `way` of `set` the most recently used when `en`.
    pub fn touch(&self, m: &mut ModuleBuilder, en: &Value, set: &Value, way: &Value) {
        for (s, reg) in self.state.iter().enumerate() {
            let mut next: Vec<Value> = (0..self.leaves - 1).map(|j| reg.bit(j as u32)).collect();
            for w in 0..self.ways {
                let is_w = way.eq(&k(way, w as u64, way.width()));
                for (node, upper) in path(w, self.leaves) {
                    next[node] = mux(&is_w, &k(way, !upper as u64, 1), &next[node]);
                }
            }
            let value = cat(&next.iter().rev().collect::<Vec<_>>());
            let here = &(en & &set.eq(&k(set, s as u64, set.width())));
            m.when(here, |m| m.connect(reg, &value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{path, upper_start};

    #[test]
    fn paths_and_halves() {
        assert_eq!(path(5, 8), vec![(0, true), (2, false), (5, true)]);
        assert_eq!(upper_start(0, 8), 4);
        assert_eq!(upper_start(2, 8), 6);
        assert_eq!(upper_start(5, 8), 5);
        assert_eq!(upper_start(1, 4), 1);
    }
}
