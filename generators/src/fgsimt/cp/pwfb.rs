//! The CP's warp-fragment control (seed 000, section 3.1, Figure 3): the active warp
//! fragment register (AWFR) and the pending warp fragment buffer (PWFB), with the
//! PC-ordered scheme the golden model (`verification::fgsimt::pwfb`) states: divergent
//! branches park their taken threads, the fragment with the lowest pc runs, fragments
//! meeting at a pc merge.
//!
//! The golden model keeps the paper's two stacks (taken forward and taken backward
//! branches), each ordered by pc; only the lower of their two tops is ever used, so the
//! hardware keeps one array ordered by pc (highest at entry 0, the top at `count - 1`)
//! of `warp_size - 1` entries (every pending fragment holds a thread the AWFR does not),
//! and the lockstep test proves the two equal.
//!
//! Each cycle does one of: `start` (a new warp), `update` (after a warp instruction: the
//! AWFR's next pc, threads that returned, and a divergent branch's taken fragment, which
//! is inserted by pc or merged with an equal pc), or one normalising step: an empty AWFR
//! takes the top; a top at the AWFR's pc merges into it; a top below the AWFR's pc swaps
//! with it (the AWFR is inserted, the top popped, in the same cycle). One step always
//! suffices, so `awfr_valid` holds at most a cycle after an update.

use hdl::ir::addr_width;
use hdl::{mux, Bits, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// Pc bits (RV32).
const PC_BITS: u32 = 32;

/// The array's entries.
struct Entries {
    pc: Vec<Value>,
    mask: Vec<Value>,
    count: Value,
}

/// What one cycle writes into the array: an insertion of (`pc`, `mask`) (merged with an
/// equal pc) when `insert`, after popping the top when `pop`.
struct ArrayOp<'a> {
    insert: &'a Value,
    pop: &'a Value,
    pc: &'a Value,
    mask: &'a Value,
}

fn lit(v: &Value, value: u64, width: u32) -> Value {
    v.konst(Bits::from_u64(width, value))
}

/// The AWFR and PWFB of warps of `warp_size` threads.
pub fn pwfb(warp_size: u32) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("Pwfb");
    let w = warp_size;
    let depth = (w - 1).max(1);
    let start = m.input("start", 1);
    let start_pc = m.input("start_pc", PC_BITS);
    let start_mask = m.input("start_mask", w);
    let update = m.input("update", 1);
    let upd_pc = m.input("upd_pc", PC_BITS);
    let upd_exit = m.input("upd_exit_mask", w);
    let upd_push = m.input("upd_push", 1);
    let upd_push_pc = m.input("upd_push_pc", PC_BITS);
    let upd_push_mask = m.input("upd_push_mask", w);

    let awfr_pc = m.reg("awfr_pc", PC_BITS, ResetValue::None);
    let awfr_mask = m.reg("awfr_mask", w, 0u64);
    let cw = addr_width(depth as u64 + 1);
    let e = Entries {
        pc: (0..depth)
            .map(|i| m.reg(&format!("pc{i}"), PC_BITS, ResetValue::None))
            .collect(),
        mask: (0..depth)
            .map(|i| m.reg(&format!("mask{i}"), w, ResetValue::None))
            .collect(),
        count: m.reg("count", cw, 0u64),
    };

    // The top (the lowest pc) and the normalising step it calls for.
    let nonempty = e.count.ne(&lit(&e.count, 0, cw));
    let top_index = &e.count - &lit(&e.count, 1, cw);
    let top_pc = select(&top_index, &e.pc);
    let top_mask = select(&top_index, &e.mask);
    let awfr_empty = awfr_mask.eq(&lit(&awfr_mask, 0, w));
    let take = &nonempty & &awfr_empty;
    let merge = &(&nonempty & &!&awfr_empty) & &top_pc.eq(&awfr_pc);
    let swap = &(&nonempty & &!&awfr_empty) & &top_pc.lt(&awfr_pc);
    let step = &(&!&start & &!&update) & &(&(&take | &merge) | &swap);

    // The array's one operation this cycle.
    let idle = &!&start & &!&update;
    let insert = &(&(&update & &upd_push) | &(&idle & &swap)) & &!&start;
    let pop = &idle & &(&(&take | &merge) | &swap);
    let ins_pc = mux(&update, &upd_push_pc, &awfr_pc);
    let ins_mask = mux(&update, &upd_push_mask, &awfr_mask);
    array_op(
        &mut m,
        &e,
        &ArrayOp {
            insert: &insert,
            pop: &pop,
            pc: &ins_pc,
            mask: &ins_mask,
        },
    );
    m.when(&start, |m| m.connect(&e.count, &lit(&e.count, 0, cw)));

    // The AWFR.
    m.when(&start, |m| {
        m.connect(&awfr_pc, &start_pc);
        m.connect(&awfr_mask, &start_mask);
    })
    .elsewhen(&update, |m| {
        m.connect(&awfr_pc, &upd_pc);
        let gone = &upd_exit | &mux(&upd_push, &upd_push_mask, &lit(&upd_exit, 0, w));
        m.connect(&awfr_mask, &(&awfr_mask & &!&gone));
    })
    .elsewhen(&step, |m| {
        m.connect(&awfr_pc, &top_pc);
        let mask = mux(&merge, &(&awfr_mask | &top_mask), &top_mask);
        m.connect(&awfr_mask, &mask);
    });

    // Normalised: no top at or below the AWFR's pc, and no pending fragment waiting for
    // an empty AWFR.
    let normal = &(&!&take & &!&merge) & &!&swap;
    let valid = m.output("awfr_valid", 1);
    m.connect(&valid, &(&normal & &!&awfr_empty));
    let done = m.output("done", 1);
    m.connect(&done, &(&awfr_empty & &!&nonempty));
    let out_pc = m.output("awfr_pc_out", PC_BITS);
    m.connect(&out_pc, &awfr_pc);
    let out_mask = m.output("awfr_mask_out", w);
    m.connect(&out_mask, &awfr_mask);
    let pending = m.output("pending", cw);
    m.connect(&pending, &e.count);
    m.finish()
}

/// Entry `index` of `values` (index below `values.len()`).
fn select(index: &Value, values: &[Value]) -> Value {
    values
        .iter()
        .enumerate()
        .skip(1)
        .fold(values[0].clone(), |acc, (i, v)| {
            mux(&index.eq(&lit(index, i as u64, index.width())), v, &acc)
        })
}

/// The array after `op`: a merge into the entry with an equal pc, else an insertion at
/// the position keeping pcs descending (entries above it move up one), after the top
/// was popped if `op.pop` (so a swap's insertion overwrites the old top's slot).
fn array_op(m: &mut ModuleBuilder, e: &Entries, op: &ArrayOp) {
    let depth = e.pc.len();
    let cw = e.count.width();
    let live = |i: usize| lit(&e.count, i as u64, cw).lt(&e.count);
    let hit: Vec<Value> = (0..depth).map(|i| &live(i) & &e.pc[i].eq(op.pc)).collect();
    let any_hit = hit.iter().skip(1).fold(hit[0].clone(), |a, h| &a | h);
    // Entries above the new pc stay where they are (a prefix of the array).
    let above: Vec<Value> = (0..depth).map(|i| &live(i) & &op.pc.lt(&e.pc[i])).collect();
    let shift_in = op.insert & &!&any_hit;
    for i in 0..depth {
        let at = if i == 0 {
            !&above[0]
        } else {
            &!&above[i] & &above[i - 1]
        };
        m.when(&(op.insert & &hit[i]), |m| {
            m.connect(&e.mask[i], &(&e.mask[i] | op.mask))
        });
        m.when(&(&shift_in & &at), |m| {
            m.connect(&e.pc[i], op.pc);
            m.connect(&e.mask[i], op.mask);
        });
        if i > 0 {
            let moves = &(&shift_in & &!&above[i]) & &!&at;
            m.when(&moves, |m| {
                m.connect(&e.pc[i], &e.pc[i - 1]);
                m.connect(&e.mask[i], &e.mask[i - 1]);
            });
        }
    }
    let one = lit(&e.count, 1, cw);
    let grow = mux(&shift_in, &(&e.count + &one), &e.count);
    let next = mux(op.pop, &(&grow - &one), &grow);
    m.connect(&e.count, &next);
}
