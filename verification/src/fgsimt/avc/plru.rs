//! Tree pseudo-LRU replacement (seed 002, section 5.1: every cache of the paper uses it),
//! for any number of ways: the tree is padded to the next power of two and never points
//! at a way that does not exist (spec 002 section 3.7, settled here). Invalid ways are
//! taken before any.

/// One set's tree: node k's children are 2k + 1 and 2k + 2; a node's bit says which
/// half the next victim comes from (false: the lower).
#[derive(Clone, Debug)]
pub struct Plru {
    ways: usize,
    leaves: usize,
    nodes: Vec<bool>,
}

impl Plru {
    pub fn new(ways: usize) -> Plru {
        assert!(ways >= 1, "at least one way");
        let leaves = ways.next_power_of_two();
        Plru {
            ways,
            leaves,
            nodes: vec![false; leaves - 1],
        }
    }

    /// Makes `way` the most recently used: every node on its path points away from it.
    pub fn touch(&mut self, way: usize) {
        let (mut node, mut lo, mut size) = (0, 0, self.leaves);
        while size > 1 {
            let half = size / 2;
            let upper = way >= lo + half;
            self.nodes[node] = !upper;
            node = 2 * node + 1 + upper as usize;
            lo += if upper { half } else { 0 };
            size = half;
        }
    }

    /// The way to replace: the first invalid one (`valid[w]` false), else where the tree
    /// points, turning from halves holding no real way.
    pub fn victim(&self, valid: &[bool]) -> usize {
        if let Some(w) = valid.iter().position(|v| !v) {
            return w;
        }
        let (mut node, mut lo, mut size) = (0, 0, self.leaves);
        while size > 1 {
            let half = size / 2;
            let upper = self.nodes[node] && lo + half < self.ways;
            node = 2 * node + 1 + upper as usize;
            lo += if upper { half } else { 0 };
            size = half;
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::Plru;

    #[test]
    fn the_victim_is_never_the_last_touched_nor_a_missing_way() {
        for ways in 1..=8 {
            let mut p = Plru::new(ways);
            let valid = vec![true; ways];
            for step in 0..100 {
                let w = (step * 7 + step / 3) % ways;
                p.touch(w);
                let v = p.victim(&valid);
                assert!(v < ways);
                assert!(ways == 1 || v != w, "{ways} ways: touched {w}, victim {v}");
            }
        }
    }

    #[test]
    fn touching_in_order_cycles_through_a_power_of_two() {
        let mut p = Plru::new(4);
        let valid = [true; 4];
        for w in [0, 1, 2, 3] {
            p.touch(w);
        }
        assert_eq!(p.victim(&valid), 0);
        assert_eq!(p.victim(&[true, true, false, true]), 2);
    }
}
