//! The MT-CGRF grid's floorplan (seed 004 section 3.5, Figure 4): a rows x cols array
//! of cells, each a switch connected to its 8 neighbours, most holding one unit. The
//! load/store units and live value units sit on the perimeter (they reach the L1 and the
//! LVC), alternating around it; compute units, SCUs, split/join units and CVUs fill the
//! interior, spread evenly in row-major order. Cells left over hold only a switch.

use super::compiler::Unit;
use super::params::VgiwParams;

/// A cell's position: (row, column).
pub type Cell = (u16, u16);

/// The floorplan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    pub rows: u16,
    pub cols: u16,
    /// The unit in each cell, row-major; `None` for a switch-only cell.
    pub units: Vec<Option<Unit>>,
}

/// Units on the perimeter and in the interior.
fn split(p: &VgiwParams) -> (u32, u32) {
    (p.ldsts + p.lvus, p.compute_units + p.scus + p.sjus + p.cvus)
}

/// Whether a rows x cols grid holds the unit mix.
pub fn fits(p: &VgiwParams, rows: u32, cols: u32) -> bool {
    if rows < 3 || cols < 3 {
        return false;
    }
    let (perimeter, interior) = split(p);
    2 * (rows + cols) - 4 >= perimeter && (rows - 2) * (cols - 2) >= interior
}

/// The largest grid side.
pub const MAX_SIDE: u32 = 64;

/// The smallest grid (by cells, then the squarer) that holds the unit mix, rows <= cols
/// (none if no grid of at most `MAX_SIDE` a side does).
pub fn auto_shape(p: &VgiwParams) -> Option<(u32, u32)> {
    let mut best: Option<(u32, u32)> = None;
    for rows in 3..=MAX_SIDE {
        for cols in rows..=MAX_SIDE {
            if fits(p, rows, cols) {
                if best.is_none_or(|(r, c)| rows * cols < r * c) {
                    best = Some((rows, cols));
                }
                break;
            }
        }
    }
    best
}

/// Spreads `counts[k]` slots of each kind (which sum to the slots) evenly: each slot
/// goes to the kind furthest behind its share.
fn spread(counts: &[(Option<Unit>, u32)]) -> Vec<Option<Unit>> {
    let total: u64 = counts.iter().map(|c| c.1 as u64).sum();
    let mut placed = vec![0u64; counts.len()];
    (0..total)
        .map(|s| {
            let k = (0..counts.len())
                .filter(|&k| placed[k] < counts[k].1 as u64)
                .max_by_key(|&k| {
                    let want = (s + 1) * counts[k].1 as u64 * 1000 / total;
                    (want as i64 - placed[k] as i64 * 1000, std::cmp::Reverse(k))
                })
                .unwrap();
            placed[k] += 1;
            counts[k].0
        })
        .collect()
}

impl Grid {
    /// The floorplan of `p` (its `rows` and `cols`, or the smallest fitting grid), of
    /// validated parameters.
    pub fn new(p: &VgiwParams) -> Grid {
        let (rows, cols) = match (p.rows, p.cols) {
            (0, _) | (_, 0) => auto_shape(p).expect("validated: the units fit a grid"),
            (r, c) => (r, c),
        };
        let (rows, cols) = (rows as u16, cols as u16);
        let mut units = vec![None; rows as usize * cols as usize];
        // The perimeter clockwise from the top-left corner.
        let mut ring: Vec<Cell> = (0..cols).map(|c| (0, c)).collect();
        ring.extend((1..rows).map(|r| (r, cols - 1)));
        ring.extend((0..cols - 1).rev().map(|c| (rows - 1, c)));
        ring.extend((1..rows - 1).rev().map(|r| (r, 0)));
        let free = ring.len() as u32 - p.ldsts - p.lvus;
        let edge = spread(&[
            (Some(Unit::Ldst), p.ldsts),
            (Some(Unit::Lvu), p.lvus),
            (None, free),
        ]);
        for (cell, u) in ring.iter().zip(edge) {
            units[cell.0 as usize * cols as usize + cell.1 as usize] = u;
        }
        let inner: Vec<Cell> = (1..rows - 1)
            .flat_map(|r| (1..cols - 1).map(move |c| (r, c)))
            .collect();
        let free = inner.len() as u32 - (p.compute_units + p.scus + p.sjus + p.cvus);
        let mix = [
            (Some(Unit::Compute), p.compute_units),
            (Some(Unit::Scu), p.scus),
            (Some(Unit::Sju), p.sjus),
            (Some(Unit::Cvu), p.cvus),
            (None, free),
        ];
        for (cell, u) in inner.iter().zip(spread(&mix)) {
            units[cell.0 as usize * cols as usize + cell.1 as usize] = u;
        }
        Grid { rows, cols, units }
    }

    pub fn unit(&self, (r, c): Cell) -> Option<Unit> {
        self.units[r as usize * self.cols as usize + c as usize]
    }

    pub fn index(&self, (r, c): Cell) -> usize {
        r as usize * self.cols as usize + c as usize
    }

    pub fn cell(&self, i: usize) -> Cell {
        (
            (i / self.cols as usize) as u16,
            (i % self.cols as usize) as u16,
        )
    }

    /// The cells holding a unit of type `u`, row-major.
    pub fn cells_of(&self, u: Unit) -> Vec<Cell> {
        (0..self.units.len())
            .filter(|&i| self.units[i] == Some(u))
            .map(|i| self.cell(i))
            .collect()
    }

    /// The up to 8 neighbours of a cell, in direction order N, NE, E, SE, S, SW, W, NW.
    pub fn neighbours(&self, (r, c): Cell) -> impl Iterator<Item = (usize, Cell)> + '_ {
        DIRECTIONS
            .iter()
            .enumerate()
            .filter_map(move |(d, (dr, dc))| {
                let (nr, nc) = (r as i32 + dr, c as i32 + dc);
                (nr >= 0 && nc >= 0 && nr < self.rows as i32 && nc < self.cols as i32)
                    .then_some((d, (nr as u16, nc as u16)))
            })
    }
}

/// The 8 directions a switch connects to, as (row, column) steps.
pub const DIRECTIONS: [(i32, i32); 8] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// The 8-neighbour distance between two cells.
pub fn distance(a: Cell, b: Cell) -> u32 {
    (a.0.abs_diff(b.0)).max(a.1.abs_diff(b.1)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_mix_fills_a_9_by_13_grid_with_every_unit_placed() {
        let p = VgiwParams::default();
        let g = Grid::new(&p);
        // 40 perimeter cells for 32 units, 77 interior for 76: 117 cells, 108 units.
        assert_eq!((g.rows, g.cols), (9, 13));
        let count = |u| g.units.iter().filter(|x| **x == Some(u)).count();
        assert_eq!(
            Unit::ALL.map(count),
            [32, 12, 16, 16, 16, 16],
            "compute, scu, ldst, lvu, sju, cvu"
        );
        for i in 0..g.units.len() {
            let (r, c) = g.cell(i);
            let edge = r == 0 || c == 0 || r == g.rows - 1 || c == g.cols - 1;
            if let Some(u) = g.units[i] {
                assert_eq!(
                    edge,
                    matches!(u, Unit::Ldst | Unit::Lvu),
                    "{u:?} at {r},{c}"
                );
            }
        }
    }
}
