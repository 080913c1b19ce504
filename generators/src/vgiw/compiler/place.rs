//! Placement of a block's replicated graph on the grid by simulated annealing (seed 004
//! section 3.1: "place-and-route to produce a static per-block fabric configuration"):
//! every node goes to a free cell holding its unit type; a replica's CVU nodes (the
//! thread's values and its completion) share one CVU. The cost is the sum over the
//! graph's edges of the 8-neighbour distance between their cells; moves swap an object
//! with another cell of its type (occupied or not), accepted by the Metropolis rule on a
//! geometric cooling schedule. Deterministic: a fixed seed.

use super::graph::{Block, Unit};
use crate::vgiw::grid::{distance, Cell, Grid};

/// Where each replica's nodes are: `cells[r][n]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub cells: Vec<Vec<Cell>>,
}

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The placement problem: objects (a node, or a replica's CVU nodes) with a unit type,
/// edges between objects, and the cells of each type.
struct Problem {
    unit: Vec<Unit>,
    edges: Vec<(usize, usize)>,
    incident: Vec<Vec<usize>>,
    /// Object of each (replica, node).
    object: Vec<Vec<usize>>,
}

fn problem(block: &Block, replicas: usize) -> Problem {
    let mut unit = Vec::new();
    let mut object = vec![vec![0; block.nodes.len()]; replicas];
    for obj in object.iter_mut() {
        let cvu = unit.len();
        unit.push(Unit::Cvu);
        for (n, node) in block.nodes.iter().enumerate() {
            let u = node.op.unit();
            obj[n] = if u == Unit::Cvu {
                cvu
            } else {
                unit.push(u);
                unit.len() - 1
            };
        }
    }
    let mut edges = Vec::new();
    for obj in &object {
        for (n, node) in block.nodes.iter().enumerate() {
            for i in node.inputs() {
                if obj[i] != obj[n] {
                    edges.push((obj[i], obj[n]));
                }
            }
        }
    }
    let mut incident = vec![Vec::new(); unit.len()];
    for (e, &(a, b)) in edges.iter().enumerate() {
        incident[a].push(e);
        incident[b].push(e);
    }
    Problem {
        unit,
        edges,
        incident,
        object,
    }
}

/// Places `replicas` copies of `block` on `grid` (which must have enough units of each
/// type, as the replica count was chosen), with annealing seed `seed`.
pub fn place(block: &Block, replicas: usize, grid: &Grid, seed: u64) -> Placement {
    let p = problem(block, replicas);
    let mut rng = Rng(seed ^ (block.id as u64) << 32 ^ replicas as u64);
    // Each type's cells; objects start in them in order.
    let cells: Vec<Vec<Cell>> = Unit::ALL.iter().map(|&u| grid.cells_of(u)).collect();
    let mut at: Vec<Cell> = vec![(0, 0); p.unit.len()];
    let mut holder: Vec<Option<usize>> = vec![None; grid.units.len()];
    let mut next = [0usize; 6];
    for (o, &u) in p.unit.iter().enumerate() {
        let c = cells[u as usize][next[u as usize]];
        next[u as usize] += 1;
        at[o] = c;
        holder[grid.index(c)] = Some(o);
    }
    let cost_of = |o: usize, at: &[Cell]| -> u32 {
        (p.incident[o].iter())
            .map(|&e| distance(at[p.edges[e].0], at[p.edges[e].1]))
            .sum()
    };
    let mut cost: u32 = p.edges.iter().map(|&(a, b)| distance(at[a], at[b])).sum();
    let objects = p.unit.len();
    let moves_per_t = (8 * objects).max(64);
    let mut t = 2.0f64;
    while t > 0.01 && cost > 0 {
        for _ in 0..moves_per_t {
            let a = rng.below(objects);
            let pool = &cells[p.unit[a] as usize];
            let target = pool[rng.below(pool.len())];
            if target == at[a] {
                continue;
            }
            let b = holder[grid.index(target)];
            let before = cost_of(a, &at) + b.map_or(0, |b| cost_of(b, &at));
            let from = at[a];
            at[a] = target;
            if let Some(b) = b {
                at[b] = from;
            }
            let after = cost_of(a, &at) + b.map_or(0, |b| cost_of(b, &at));
            let delta = after as f64 - before as f64;
            if delta <= 0.0 || rng.unit() < (-delta / t).exp() {
                cost = (cost as i64 + after as i64 - before as i64) as u32;
                holder[grid.index(target)] = Some(a);
                holder[grid.index(from)] = b;
            } else {
                at[a] = from;
                if let Some(b) = b {
                    at[b] = target;
                }
            }
        }
        t *= 0.9;
    }
    Placement {
        cells: (p.object.iter())
            .map(|obj| obj.iter().map(|&o| at[o]).collect())
            .collect(),
    }
}
