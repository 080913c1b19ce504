//! The Hwacha area split in the categories of the thesis's Figure 9.5 (banks, functional
//! units, control, VMU, other), grouped from a synthesis report's instance areas.
//!
//! An instance's category is its module's in [`HWACHA_CATEGORIES`], else its parent's
//! (the top's is [`Category::Other`]): a bank's queues count as the bank, the VMU's
//! queues as the VMU. Each listed instance contributes its own cells' area, plus the area
//! of its sub-instances deeper than the report lists (its subtree minus its own area and
//! its listed children's subtrees), so the categories add up to the top's total. The
//! split is as fine as the report's `--depth`: the lane's blocks sit at depth 3 of
//! `--top VectorUnit` (`lane0/vxu/bank0`), so depth 3 or more resolves them.

use super::InstanceArea;
use serde::Serialize;

/// Thesis Figure 9.5's area categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Category {
    /// The vector register file banks with their local ALU/PLU, latches and queues.
    Banks,
    /// The shared functional units on the operand crossbar and the lane's divider.
    FunctionalUnits,
    /// The sequencers and the expander: the master sequencer, the lane sequencers.
    Control,
    /// The vector memory unit with the lane's memory side.
    Vmu,
    /// Everything else: glue of the vector unit, the lane and the execution unit.
    Other,
}

impl Category {
    pub const ALL: [Category; 5] = [
        Category::Banks,
        Category::FunctionalUnits,
        Category::Control,
        Category::Vmu,
        Category::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::Banks => "banks",
            Category::FunctionalUnits => "functional units",
            Category::Control => "control",
            Category::Vmu => "VMU",
            Category::Other => "other",
        }
    }
}

/// The category of each Hwacha module that starts one (generator module names, also
/// with a `_<suffix>` of parameters: `HwachaFma_x2`); a module not listed takes its
/// parent's.
pub const HWACHA_CATEGORIES: &[(&str, Category)] = &[
    ("Bank", Category::Banks),
    ("BankLast", Category::Banks),
    ("IMul", Category::FunctionalUnits),
    ("HwachaFma", Category::FunctionalUnits),
    ("HwachaFConv", Category::FunctionalUnits),
    ("HwachaFCmp", Category::FunctionalUnits),
    ("Vfu2", Category::FunctionalUnits),
    ("Expander", Category::Control),
    ("LaneSequencer", Category::Control),
    ("MasterSequencer", Category::Control),
    ("LaneMemory", Category::Vmu),
    ("Vmu", Category::Vmu),
    ("Vxu", Category::Other),
    ("Lane", Category::Other),
];

/// Area of one category: total and the part of it in SRAM macros.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CategoryArea {
    pub category: Category,
    pub area_um2: f64,
    pub macro_area_um2: f64,
}

/// The report's instances (depth first, as [`super::SynthReport::instances`]) grouped by
/// `table`'s categories, in [`Category::ALL`]'s order.
pub fn split(instances: &[InstanceArea], table: &[(&str, Category)]) -> Vec<CategoryArea> {
    let mut sums: Vec<CategoryArea> = Category::ALL
        .iter()
        .map(|&category| CategoryArea {
            category,
            area_um2: 0.0,
            macro_area_um2: 0.0,
        })
        .collect();
    // Categories of the current instance's ancestors, by depth.
    let mut stack: Vec<Category> = Vec::new();
    for (i, inst) in instances.iter().enumerate() {
        stack.truncate(inst.depth);
        let inherited = stack.last().copied().unwrap_or(Category::Other);
        let named = |m: &str| {
            inst.module == m
                || (inst.module.strip_prefix(m)).is_some_and(|rest| rest.starts_with('_'))
        };
        let cat = table
            .iter()
            .find(|(m, _)| named(m))
            .map_or(inherited, |&(_, c)| c);
        stack.push(cat);
        // Listed children: the following instances one level deeper, until one at this
        // depth or above.
        let children = instances[i + 1..]
            .iter()
            .take_while(|c| c.depth > inst.depth)
            .filter(|c| c.depth == inst.depth + 1);
        let (mut area, mut macros) = (inst.subtree_area_um2, inst.subtree_macro_area_um2);
        for c in children {
            area -= c.subtree_area_um2;
            macros -= c.subtree_macro_area_um2;
        }
        let slot = &mut sums[Category::ALL
            .iter()
            .position(|&c| c == cat)
            .expect("listed")];
        slot.area_um2 += area;
        slot.macro_area_um2 += macros;
    }
    // Rounded; `+ 0.0` turns a rounded -0.0 (a difference of equal areas) into 0.0.
    for s in &mut sums {
        s.area_um2 = super::stats::round(s.area_um2) + 0.0;
        s.macro_area_um2 = super::stats::round(s.macro_area_um2) + 0.0;
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(path: &str, module: &str, own: f64, subtree: f64, macros: f64) -> InstanceArea {
        InstanceArea {
            path: path.to_string(),
            module: module.to_string(),
            depth: path.matches('/').count(),
            area_um2: own,
            subtree_area_um2: subtree,
            subtree_macro_area_um2: macros,
            subtree_flops: 0,
            subtree_cells: 0,
        }
    }

    /// A 1-lane, 2-bank vector unit's report to depth 3, its areas chosen by hand: the
    /// expected sums are added up independently below.
    #[test]
    fn groups_a_known_report() {
        let r = vec![
            inst("VU", "VectorUnit", 10.0, 960.0, 200.0),
            inst("VU/master", "MasterSequencer", 50.0, 50.0, 0.0),
            inst("VU/lane0", "Lane", 5.0, 900.0, 200.0),
            inst("VU/lane0/sequencer", "LaneSequencer", 40.0, 40.0, 0.0),
            inst("VU/lane0/vxu", "Vxu", 15.0, 605.0, 200.0),
            inst("VU/lane0/vxu/expander", "Expander", 30.0, 30.0, 0.0),
            // A bank: own 60, its queues (depth 4, unlisted) 20, its macro 100.
            inst("VU/lane0/vxu/bank0", "Bank", 60.0, 180.0, 100.0),
            inst("VU/lane0/vxu/bank1", "Bank", 60.0, 180.0, 100.0),
            inst("VU/lane0/vxu/imul", "IMul", 100.0, 100.0, 0.0),
            // A unit named with its parameters' suffix.
            inst("VU/lane0/vxu/fma0", "HwachaFma_x2", 100.0, 100.0, 0.0),
            inst("VU/lane0/memory", "LaneMemory", 25.0, 250.0, 0.0),
            // The memory side's queue (no category of its own: the VMU's).
            inst("VU/lane0/memory/cmdq", "Queue_3", 45.0, 45.0, 0.0),
            inst("VU/lane0/memory/vfu2", "Vfu2", 80.0, 80.0, 0.0),
            // The VMU: own 70, its unlisted queues 30.
            inst("VU/lane0/memory/vmu", "Vmu", 70.0, 100.0, 0.0),
        ];
        let got = split(&r, HWACHA_CATEGORIES);
        let want = [
            (Category::Banks, 180.0 + 180.0, 200.0),
            (Category::FunctionalUnits, 100.0 + 100.0 + 80.0, 0.0),
            (Category::Control, 50.0 + 40.0 + 30.0, 0.0),
            (Category::Vmu, 25.0 + 45.0 + 100.0, 0.0),
            (Category::Other, 10.0 + 5.0 + 15.0, 0.0),
        ];
        for (g, (c, a, mac)) in got.iter().zip(want) {
            assert_eq!((g.category, g.area_um2, g.macro_area_um2), (c, a, mac));
        }
        let total: f64 = got.iter().map(|c| c.area_um2).sum();
        assert_eq!(total, 960.0);
    }

    /// A report too shallow to see the lane's blocks puts the lane in `Other`, whole.
    #[test]
    fn shallow_report_is_coarse() {
        let r = vec![
            inst("VU", "VectorUnit", 10.0, 960.0, 200.0),
            inst("VU/master", "MasterSequencer", 50.0, 50.0, 0.0),
            inst("VU/lane0", "Lane", 5.0, 900.0, 200.0),
        ];
        let got = split(&r, HWACHA_CATEGORIES);
        assert_eq!(got[2].area_um2, 50.0);
        assert_eq!(got[4].area_um2, 910.0);
        assert_eq!(got[4].macro_area_um2, 200.0);
    }
}
