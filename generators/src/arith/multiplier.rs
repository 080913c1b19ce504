//! The multiplier: Booth partial products, the Wallace tree, and a final carry-propagate
//! adder, with `stages` pipeline cuts placed along that path by logic depth.
//!
//! The path is a list of steps, each with a depth in gate delays (a full adder counts
//! two, an XOR one): the Booth recoding and selection (4), each tree level (2), and the
//! final adder (`adder`, Brent-Kung), split into `k` chunks, each adding its slice of
//! the two rows and the carry out of the chunk below (2 + 2 per prefix level, about
//! 4 log2 of its width: measured on nangate45, a prefix level maps to as many cells as
//! a tree level). A cut
//! at a boundary between steps registers everything the next step reads: the operands,
//! the rows (the Booth constant is kept aside until the tree takes it in), or the
//! adder's finished low bits, carry and the rows' columns above them; the planner knows
//! each boundary's register bits from the rows' spans without building them. For every
//! `k` up to `stages + 1` it finds the smallest bound on the depth between cuts that
//! `stages` cuts can meet, and among the placements meeting it the one with the fewest
//! register bits (a dynamic program over the boundaries); the `k` with the smallest
//! bound wins, then the fewest bits. The cuts therefore sit inside the tree and the
//! adder, where the rows are few (a cut early in the tree registers many rows). With
//! more stages than steps (narrow operands) several cuts share a boundary. Every
//! register loads when `advance` is high, so a stalled pipeline holds its contents.
//! The cut registers are datapath without reset (the reset policy): a product is
//! observed only `stages` advances after its operands, which every user tracks with
//! its own valid bits (`tests/arith_multiplier.rs` streams from random initial state).

use super::adder;
use super::booth::{self, Row, Span};
use super::wallace;
use hdl::{cat, Bits, ModuleBuilder, ResetValue, Ty, Value};

/// Gate delays of the Booth recoding and selection, and of one tree level.
const BOOTH_DEPTH: u32 = 4;
const LEVEL_DEPTH: u32 = 2;

/// Gate delays of a `width`-bit adder: its prefix levels, the propagate and the sum. A
/// prefix level (an AND-OR) counts two, as much as a tree level: mapped for area (Yosys
/// and ABC on nangate45) it takes two to three cells, as a full adder's sum does.
fn adder_depth(width: u32) -> u32 {
    2 + 2 * adder::levels(width)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Booth,
    Level,
    /// Adds columns `lo..hi` of the two rows (with the carry from below, if `lo > 0`).
    Chunk {
        lo: u32,
        hi: u32,
    },
}

/// The steps between operands and product, and the number of cuts before each
/// (`cuts[i]` before step `i`, `cuts[steps.len()]` after the last).
#[derive(Debug, PartialEq, Eq)]
pub struct Plan {
    steps: Vec<Step>,
    cuts: Vec<u32>,
    /// The largest depth between two cuts.
    pub depth: u32,
    /// Register bits over all cuts.
    pub register_bits: u32,
}

fn depth(step: Step) -> u32 {
    match step {
        Step::Booth => BOOTH_DEPTH,
        Step::Level => LEVEL_DEPTH,
        Step::Chunk { lo, hi } => adder_depth(hi - lo),
    }
}

/// The steps from the Booth rows `rows` and `constant` (spans) with the final adder in
/// `k` chunks of near-equal width, and the bits a cut registers before each step and
/// after the last.
fn steps(rows: &[Span], constant: Option<Span>, width: u32, k: u32) -> (Vec<Step>, Vec<u32>) {
    let bits = |rows: &[Span]| rows.iter().map(|r| r.1).sum::<u32>();
    // The constant is not registered before the first level takes it in.
    let mut cut_bits = vec![width, bits(rows)];
    let mut s = vec![Step::Booth];
    let mut rows: Vec<Span> = rows.iter().copied().chain(constant).collect();
    while rows.len() > 2 {
        rows.sort_by_key(|r| r.0);
        rows = wallace::level_spans(rows, width);
        s.push(Step::Level);
        cut_bits.push(bits(&rows));
    }
    for j in 0..k {
        let (lo, hi) = (width * j / k, width * (j + 1) / k);
        s.push(Step::Chunk { lo, hi });
        // The low bits, the carry and both rows above them.
        cut_bits.push(if hi == width {
            width
        } else {
            2 * width - hi + 1
        });
    }
    (s, cut_bits)
}

/// The cuts with the fewest register bits that put at most `bound` depth between two
/// cuts, or `None` if `cuts` cuts cannot: a dynamic program over (cuts placed, boundary
/// of the last), several cuts at one boundary allowed.
fn place(steps: &[Step], cut_bits: &[u32], bound: u32, cuts: u32) -> Option<(Vec<u32>, u32)> {
    let n = steps.len();
    let prefix: Vec<u32> = std::iter::once(0)
        .chain(steps.iter().scan(0, |acc, &s| {
            *acc += depth(s);
            Some(*acc)
        }))
        .collect();
    let fits = |i: usize, j: usize| prefix[j] - prefix[i] <= bound;
    // best[c][j]: the fewest bits of `c` cuts, the last at boundary j, and the boundary
    // of the cut before it.
    let mut best = vec![vec![None::<(u32, usize)>; n + 1]; cuts as usize + 1];
    best[0][0] = Some((0, 0));
    for c in 1..=cuts as usize {
        for j in 0..=n {
            best[c][j] = (0..=j)
                .filter(|&i| fits(i, j))
                .filter_map(|i| best[c - 1][i].map(|(b, _)| (b + cut_bits[j], i)))
                .min();
        }
    }
    let (total, mut at) = (0..=n)
        .filter(|&i| fits(i, n))
        .filter_map(|i| best[cuts as usize][i].map(|(b, _)| (b, i)))
        .min()?;
    let mut placed = vec![0; n + 1];
    for c in (1..=cuts as usize).rev() {
        placed[at] += 1;
        at = best[c][at].map_or(0, |(_, parent)| parent);
    }
    Some((placed, total))
}

/// Booth recodes the narrower operand (fewer rows): `(multiplicand, multiplier)`.
fn order<T>(a: T, b: T, a_width: u32, b_width: u32) -> (T, T) {
    if b_width > a_width {
        (b, a)
    } else {
        (a, b)
    }
}

/// The pipeline of an `a` x `b` multiply (width and signedness of each) cut `stages`
/// times: the smallest depth between cuts, then the fewest register bits, then the
/// fewest adder chunks.
pub fn plan(a: (u32, bool), b: (u32, bool), stages: u32) -> Plan {
    let width = a.0 + b.0;
    let (x, y) = order(a, b, a.0, b.0);
    let (rows, constant) = booth::layout(x, y);
    (1..=(stages + 1).min(width))
        .filter_map(|k| {
            let (s, cut_bits) = steps(&rows, constant, width, k);
            let lo = s.iter().map(|&x| depth(x)).max().unwrap_or(0);
            let hi: u32 = s.iter().map(|&x| depth(x)).sum();
            (lo..=hi).find_map(|bound| {
                let (cuts, register_bits) = place(&s, &cut_bits, bound, stages)?;
                Some(Plan {
                    steps: s.clone(),
                    cuts,
                    depth: bound,
                    register_bits,
                })
            })
        })
        .min_by_key(|p| (p.depth, p.register_bits))
        .expect("one chunk always fits")
}

/// What flows between steps.
enum Flow {
    Operands(Value, Value),
    Rows(Vec<Row>, Option<Bits>),
    /// The adder's finished low bits and carry, and the rows' columns above them.
    Sum {
        low: Option<Value>,
        carry: Option<Value>,
        x: Value,
        y: Value,
    },
    Product(Value),
}

impl Flow {
    fn values(&mut self) -> Vec<&mut Value> {
        match self {
            Flow::Operands(a, b) => vec![a, b],
            Flow::Rows(rows, _) => rows.iter_mut().map(|r| &mut r.bits).collect(),
            Flow::Sum { low, carry, x, y } => {
                let mut v: Vec<&mut Value> = vec![x, y];
                v.extend(low.as_mut());
                v.extend(carry.as_mut());
                v
            }
            Flow::Product(p) => vec![p],
        }
    }
}

/// Registers every value of `flow` (a register each without reset, loaded when
/// `advance` is high).
fn cut(m: &mut ModuleBuilder, flow: &mut Flow, advance: &Value, name: &str) {
    for v in flow.values() {
        let ty = if v.is_signed() {
            Ty::S(v.width())
        } else {
            Ty::U(v.width())
        };
        let reg = m.reg_en(name, ty, ResetValue::None, advance);
        m.connect(&reg, v);
        *v = reg;
    }
}

/// The two rows as full-width values (a missing one is zero).
fn two_rows(rows: Vec<Row>, constant: Option<Bits>, width: u32) -> (Value, Value) {
    let first = rows.first().expect("a product has partial products");
    let mut all: Vec<Value> = rows.iter().map(|r| wallace::align(r, 0, width)).collect();
    all.extend(constant.map(|c| first.bits.konst(c)));
    all.resize_with(2, || first.bits.konst(Bits::zero(width)));
    let y = all.pop().expect("two rows");
    (all.pop().expect("two rows"), y)
}

/// Applies `step` to `flow`.
fn apply(step: Step, flow: Flow, width: u32) -> Flow {
    match (step, flow) {
        (Step::Booth, Flow::Operands(a, b)) => {
            let pp = booth::partial_products(&a, &b, width);
            Flow::Rows(pp.rows, pp.constant)
        }
        (Step::Level, Flow::Rows(mut rows, constant)) => {
            if let Some(c) = constant {
                // The row of the constant starts at its lowest one.
                let off = (0..width).find(|&i| c.bit(i)).unwrap_or(0);
                let bits = rows[0].bits.konst(c.slice(width - 1, off));
                rows.push(Row { off, bits });
                rows.sort_by_key(|r| r.off);
            }
            Flow::Rows(wallace::level(rows, width), None)
        }
        (Step::Chunk { lo, hi }, Flow::Rows(rows, constant)) => {
            let (x, y) = two_rows(rows, constant, width);
            let sum = Flow::Sum {
                low: None,
                carry: None,
                x,
                y,
            };
            apply(Step::Chunk { lo, hi }, sum, width)
        }
        (Step::Chunk { lo, hi }, Flow::Sum { low, carry, x, y }) => {
            chunk(low, carry, &x, &y, hi - lo, hi == width)
        }
        _ => unreachable!("steps come in order"),
    }
}

/// Adds the low `w` columns of `x` and `y` and `carry`; `last` when nothing is above.
fn chunk(
    low: Option<Value>,
    carry: Option<Value>,
    x: &Value,
    y: &Value,
    w: u32,
    last: bool,
) -> Flow {
    let (xc, yc) = (x.slice(w - 1, 0), y.slice(w - 1, 0));
    // With a carry in: {x, 1} + {y, cin} carries cin into bit 1.
    let (xs, ys) = match &carry {
        Some(c) => (cat(&[&xc, &c.konst(Bits::ones(1))]), cat(&[&yc, c])),
        None => (xc, yc),
    };
    let skip = u32::from(carry.is_some());
    let total = adder::add(&xs, &ys);
    let sum = total.slice(skip + w - 1, skip);
    let low = match low {
        Some(l) => cat(&[&sum, &l]),
        None => sum,
    };
    if last {
        return Flow::Product(low);
    }
    Flow::Sum {
        low: Some(low),
        carry: Some(total.msb()),
        x: x.slice(x.width() - 1, w),
        y: y.slice(y.width() - 1, w),
    }
}

/// `a * b`, `a.width() + b.width()` bits (signed if either operand is), `stages` cycles
/// later; the registers are named `<name>_<i>`.
pub fn build(
    m: &mut ModuleBuilder,
    a: &Value,
    b: &Value,
    stages: u32,
    advance: &Value,
    name: &str,
) -> Value {
    let width = a.width() + b.width();
    let plan = plan(
        (a.width(), a.is_signed()),
        (b.width(), b.is_signed()),
        stages,
    );
    let (x, y) = order(a, b, a.width(), b.width());
    let mut flow = Flow::Operands(x.clone(), y.clone());
    let mut n = 0;
    for (i, &c) in plan.cuts.iter().enumerate() {
        for _ in 0..c {
            cut(m, &mut flow, advance, &format!("{name}_{n}"));
            n += 1;
        }
        if let Some(&step) = plan.steps.get(i) {
            flow = apply(step, flow, width);
        }
    }
    let Flow::Product(p) = flow else {
        unreachable!("the last step is the adder's last chunk")
    };
    if a.is_signed() || b.is_signed() {
        p.as_signed()
    } else {
        p
    }
}
