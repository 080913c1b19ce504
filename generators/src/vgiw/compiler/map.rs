//! Mapping a block onto the fabric (seed 004 sections 3.1 and 3.5): as many replicas of
//! its graph as the unit mix allows, placed (`place.rs`) and routed (`route.rs`); if the
//! switches cannot carry them, one replica fewer, down to one. A block whose single copy
//! cannot be routed is an error naming the block, the link and the shortfall.

use super::graph::Block;
use super::place::{place, Placement};
use super::route::{nets, route, Congestion, Net};
use super::CompileError;
use crate::vgiw::grid::Grid;
use crate::vgiw::params::VgiwParams;

/// A block's configuration on the grid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mapping {
    /// Cell of each replica's nodes.
    pub placement: Vec<Vec<(u16, u16)>>,
    /// Every net's route.
    pub nets: Vec<Net>,
}

impl Mapping {
    /// Links used, summed over the nets (the routed wire length).
    pub fn wire_length(&self) -> usize {
        self.nets.iter().map(|n| n.links.len()).sum()
    }
}

/// The annealing seed: fixed, so that compiling is deterministic.
const SEED: u64 = 0x5647_4957;

/// Maps `block` with at most `max_replicas` replicas; the replicas it got.
pub fn map(block: &mut Block, grid: &Grid, params: &VgiwParams) -> Result<(), CompileError> {
    let mut worst: Option<Congestion> = None;
    for r in (1..=block.replicas).rev() {
        let Placement { cells } = place(block, r as usize, grid, SEED);
        let mut ns = nets(
            block,
            &Placement {
                cells: cells.clone(),
            },
        );
        match route(grid, &mut ns, params.switch_channels) {
            Ok(()) => {
                block.replicas = r;
                block.mapping = Mapping {
                    placement: cells,
                    nets: ns,
                };
                return Ok(());
            }
            Err(c) => worst = Some(c),
        }
    }
    let c = worst.expect("at least one replica was tried");
    Err(CompileError::Unroutable {
        block: block.id,
        from: c.link.cell,
        to: c.to,
        demand: c.demand,
        capacity: c.capacity,
    })
}
