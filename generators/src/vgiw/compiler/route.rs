//! Routing of a placed block over the switches (seed 004 section 3.5: each unit's switch
//! connects to its 8 neighbours) by PathFinder's negotiated congestion: every net (a
//! node's value to its consumers) is routed as a tree of links by Dijkstra from the cells
//! it already reaches; a link carries `switch_channels` nets; nets that overuse a link
//! are rerouted with that link's present cost raised, and its history cost raised after
//! every iteration, until no link is overused or the iterations run out.

use super::graph::Block;
use super::place::Placement;
use crate::vgiw::grid::{Cell, Grid};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A directed link: from `cell` in direction `dir` (an index of `grid::DIRECTIONS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Link {
    pub cell: Cell,
    pub dir: u8,
}

/// A net: the value of node `node` of replica `replica`, from `source` to its sinks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Net {
    pub replica: usize,
    pub node: usize,
    pub source: Cell,
    pub sinks: Vec<Cell>,
    /// The links of its route tree, each with the channel it uses.
    pub links: Vec<(Link, u8)>,
}

/// The most overused link when routing fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Congestion {
    pub link: Link,
    pub to: Cell,
    pub demand: u32,
    pub capacity: u32,
}

/// PathFinder iterations before giving up.
pub const MAX_ITERATIONS: usize = 60;

/// The nets of a placed block: each node's value to the distinct cells of its
/// consumers (none for a consumer in the producer's own cell).
pub fn nets(block: &Block, placement: &Placement) -> Vec<Net> {
    let mut nets = Vec::new();
    for (r, cells) in placement.cells.iter().enumerate() {
        let mut sinks: Vec<Vec<Cell>> = vec![Vec::new(); block.nodes.len()];
        for (n, node) in block.nodes.iter().enumerate() {
            for i in node.inputs() {
                if cells[n] != cells[i] && !sinks[i].contains(&cells[n]) {
                    sinks[i].push(cells[n]);
                }
            }
        }
        for (n, s) in sinks.into_iter().enumerate() {
            if !s.is_empty() {
                nets.push(Net {
                    replica: r,
                    node: n,
                    source: cells[n],
                    sinks: s,
                    links: Vec::new(),
                });
            }
        }
    }
    nets
}

/// Routes `nets` on `grid` with `capacity` channels a link; on failure, the most
/// overused link.
pub fn route(grid: &Grid, nets: &mut [Net], capacity: u32) -> Result<(), Congestion> {
    let links = grid.units.len() * 8;
    let mut usage = vec![0u32; links];
    let mut history = vec![0f64; links];
    let mut routes: Vec<Vec<usize>> = vec![Vec::new(); nets.len()];
    let mut present = 0.5f64;
    for _ in 0..MAX_ITERATIONS {
        for (k, net) in nets.iter().enumerate() {
            for &l in &routes[k] {
                usage[l] -= 1;
            }
            routes[k] = route_net(grid, net, |l| {
                let over = (usage[l] + 1).saturating_sub(capacity) as f64;
                (1.0 + history[l]) * (1.0 + present * over)
            });
            for &l in &routes[k] {
                usage[l] += 1;
            }
        }
        let overused: Vec<usize> = (0..links).filter(|&l| usage[l] > capacity).collect();
        if overused.is_empty() {
            assign_channels(grid, nets, &routes);
            return Ok(());
        }
        for l in overused {
            history[l] += (usage[l] - capacity) as f64;
        }
        present *= 1.6;
    }
    let worst = (0..links).max_by_key(|&l| (usage[l], Reverse(l))).unwrap();
    let link = Link {
        cell: grid.cell(worst / 8),
        dir: (worst % 8) as u8,
    };
    Err(Congestion {
        link,
        to: step(link),
        demand: usage[worst],
        capacity,
    })
}

/// The cell a link leads to.
pub fn step(link: Link) -> Cell {
    let (dr, dc) = crate::vgiw::grid::DIRECTIONS[link.dir as usize];
    (
        (link.cell.0 as i32 + dr) as u16,
        (link.cell.1 as i32 + dc) as u16,
    )
}

/// One net's tree (link indices, each after the link that reaches its cell) under link
/// costs `cost`: each sink, nearest first, joined by the cheapest path from the cells
/// the tree reaches.
fn route_net(grid: &Grid, net: &Net, cost: impl Fn(usize) -> f64) -> Vec<usize> {
    let n = grid.units.len();
    let mut in_tree = vec![false; n];
    in_tree[grid.index(net.source)] = true;
    let mut used = Vec::new();
    let mut sinks = net.sinks.clone();
    sinks.sort_by_key(|&s| (crate::vgiw::grid::distance(net.source, s), s));
    for sink in sinks {
        let target = grid.index(sink);
        if in_tree[target] {
            continue;
        }
        let mut dist = vec![f64::INFINITY; n];
        let mut via: Vec<Option<usize>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        for c in (0..n).filter(|&c| in_tree[c]) {
            dist[c] = 0.0;
            heap.push((Reverse(Ordered(0.0)), c));
        }
        while let Some((Reverse(Ordered(d)), c)) = heap.pop() {
            if c == target {
                break;
            }
            if d > dist[c] {
                continue;
            }
            for (dir, next) in grid.neighbours(grid.cell(c)) {
                let l = c * 8 + dir;
                let nd = d + cost(l);
                let ni = grid.index(next);
                if nd < dist[ni] {
                    dist[ni] = nd;
                    via[ni] = Some(l);
                    heap.push((Reverse(Ordered(nd)), ni));
                }
            }
        }
        let mut c = target;
        let mut path = Vec::new();
        while !in_tree[c] {
            let l = via[c].expect("the grid is connected");
            path.push(l);
            in_tree[c] = true;
            c = l / 8;
        }
        used.extend(path.into_iter().rev());
    }
    used
}

/// Gives each net a channel on every link it uses, in net order.
fn assign_channels(grid: &Grid, nets: &mut [Net], routes: &[Vec<usize>]) {
    let mut next = vec![0u8; grid.units.len() * 8];
    for (net, route) in nets.iter_mut().zip(routes) {
        net.links = (route.iter())
            .map(|&l| {
                let ch = next[l];
                next[l] += 1;
                (
                    Link {
                        cell: grid.cell(l / 8),
                        dir: (l % 8) as u8,
                    },
                    ch,
                )
            })
            .collect();
    }
}

/// An `f64` ordered for the heap (costs are finite and not NaN).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ordered(f64);

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vgiw::params::VgiwParams;

    /// Four values leaving one corner cell, whose three links carry one each: the error
    /// names a link out of that corner and its shortfall.
    #[test]
    fn an_overfull_corner_is_reported_with_its_link() {
        let grid = Grid::new(&VgiwParams {
            rows: 3,
            cols: 3,
            compute_units: 1,
            scus: 0,
            sjus: 0,
            cvus: 0,
            ldsts: 4,
            lvus: 4,
            ..VgiwParams::default()
        });
        let mut nets: Vec<Net> = (0..4)
            .map(|k| Net {
                replica: 0,
                node: k,
                source: (0, 0),
                sinks: vec![(2, 2)],
                links: Vec::new(),
            })
            .collect();
        let c = route(&grid, &mut nets, 1).unwrap_err();
        assert_eq!((c.link.cell, c.demand, c.capacity), ((0, 0), 2, 1), "{c:?}");
        // With two channels a link, they fit.
        route(&grid, &mut nets, 2).unwrap();
        assert!(nets.iter().all(|n| !n.links.is_empty()));
    }
}
