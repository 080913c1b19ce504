//! The MT-CGRF fabric (seed 004 section 3.5, Figure 4): the grid of cells (`cell.rs`) of
//! the floorplan (`grid.rs`), each switch linked to its 8 neighbours by
//! `switch_channels` channels each way, the configuration shift chains along the rows,
//! and the units' ports to the rest of the core.
//!
//! Ports of the `VgiwFabric` module:
//! - `cfg_row{r}` (half a cell's configuration, `config::half_bits`), `cfg_shift`,
//!   `cfg_pass`: row r's configuration chain (`config.rs`): each `cfg_shift` cycle moves
//!   half `cfg_pass` of every cell's words one cell to the right.
//! - `gp`, `tp`: the launch's values the CVUs inject.
//! - `cvu{i}_inject`, `cvu{i}_done`, `cvu{i}_active` (`units/cvu.rs`), `ldst{i}_mem_req`
//!   and `ldst{i}_mem_resp` (`units/ldst.rs`), `lvu{i}_lv_req` and `lvu{i}_lv_resp`
//!   (`units/lvu.rs`): the units of each type numbered in row-major order.

pub mod cell;
pub mod config;
pub mod switch;
pub mod token;
pub mod token_buffer;

use super::compiler::Unit;
use super::grid::Grid;
use super::params::VgiwParams;
use config::half_bits;
use hdl::{HdlErrors, Inst, Module, ModuleBuilder};
use std::collections::BTreeMap;
use std::rc::Rc;

/// The port name prefix of unit type `u`'s `i`th unit.
pub fn unit_prefix(u: Unit, i: usize) -> String {
    format!("{}{i}_", u.name())
}

/// Links every cell's inputs to its neighbours' outgoing queues.
fn link(m: &mut ModuleBuilder, grid: &Grid, insts: &[Inst], channels: u32) {
    for (i, a) in insts.iter().enumerate() {
        for (d, cell) in grid.neighbours(grid.cell(i)) {
            let b = &insts[grid.index(cell)];
            let back = (d + 4) % 8;
            for c in 0..channels {
                for f in ["valid", "bits"] {
                    m.connect(
                        &a.port(&format!("in{d}_{c}_{f}")),
                        &b.port(&format!("out{back}_{c}_{f}")),
                    );
                }
                m.connect(
                    &b.port(&format!("out{back}_{c}_pop")),
                    &a.port(&format!("in{d}_{c}_pop")),
                );
            }
        }
    }
}

/// Brings a unit's own ports (those not of the grid) out to the fabric's, prefixed.
fn expose(m: &mut ModuleBuilder, inst: &Inst, prefix: &str) {
    let grid_port = |n: &str| {
        n.starts_with("in") && n.as_bytes().get(2).is_some_and(u8::is_ascii_digit)
            || n.starts_with("out")
            || n.starts_with("cfg_")
            || n == "gp"
            || n == "tp"
    };
    hdl::helpers::expose(m, inst, |n| (!grid_port(n)).then(|| format!("{prefix}{n}")));
}

pub fn fabric(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
    let grid = Grid::new(p);
    let channels = p.switch_channels;
    let mut m = ModuleBuilder::new("VgiwFabric");
    let shift = m.input("cfg_shift", 1);
    let pass = m.input("cfg_pass", 1);
    let rows: Vec<_> = (0..grid.rows)
        .map(|r| m.input(&format!("cfg_row{r}"), half_bits(channels)))
        .collect();
    let gp = m.input("gp", 32);
    let tp = m.input("tp", 32);
    let mut modules: BTreeMap<(Option<Unit>, u8), Rc<Module>> = BTreeMap::new();
    let mut counts: BTreeMap<Unit, usize> = BTreeMap::new();
    let mut insts = Vec::new();
    for (i, &unit) in grid.units.iter().enumerate() {
        let (r, c) = grid.cell(i);
        let dirs = grid
            .neighbours((r, c))
            .fold(0u8, |acc, (d, _)| acc | 1 << d);
        let module = match modules.get(&(unit, dirs)) {
            Some(md) => md.clone(),
            None => {
                let md = cell::cell(p, unit, dirs)?;
                modules.insert((unit, dirs), md.clone());
                md
            }
        };
        let inst = m.instance(&format!("cell_{r}_{c}"), &module);
        m.connect(&inst.port("cfg_shift"), &shift);
        m.connect(&inst.port("cfg_pass"), &pass);
        let from = if c == 0 {
            rows[r as usize].clone()
        } else {
            insts
                .last()
                .map(|x: &Inst| x.port("cfg_out"))
                .expect("the left neighbour")
        };
        m.connect(&inst.port("cfg_in"), &from);
        if let Some(u) = unit {
            let n = counts.entry(u).or_default();
            expose(&mut m, &inst, &unit_prefix(u, *n));
            *n += 1;
            if u == Unit::Cvu {
                m.connect(&inst.port("gp"), &gp);
                m.connect(&inst.port("tp"), &tp);
            }
        }
        insts.push(inst);
    }
    link(&mut m, &grid, &insts, channels);
    m.finish()
}
