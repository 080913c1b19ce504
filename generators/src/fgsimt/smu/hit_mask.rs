//! Hit masks (seed 001, section 2.4: a memory instruction's threads split by "the hit
//! mask"; docs/fgsimt-engine.md, "DWS in the engine"): with the DWS sequencer splitting
//! on memory divergence (`FgsimtParams::hit_masks`), each load's SLDQ entry answers the
//! front end's sequencer which threads' data is in, and is written back in passes, so
//! that a run-ahead group goes on with its threads' data while the fall-behind's is
//! still coming.
//!
//! - **The answer** (`hits`, `bundles::load_hits`): loads are answered in program order
//!   (the answer pointer, `ldq_ans`). A load received whole (its last slot in the SLDQs;
//!   with +m, which takes an entry whole at a load's first slot or at an affine load,
//!   from then on: threads of slots still to come are misses if it is answered before
//!   them) is answered once every thread's data is in, or `hit_window` cycles after it
//!   became the next to answer (the later of its reception and the answer before it),
//!   with the threads whose data is in then: the hits. The engine's L1 answers each
//!   port in request order, so a hit behind a miss on the same port counts as a miss; a
//!   thread whose access waits for a bank past the window does too. Either only moves a
//!   thread from the run-ahead group to the fall-behind one.
//! - **Passes** (`bundles::load_data` with `pass`, `whole`, `first`, `take`): the oldest
//!   load, once answered, is written back when all its data is in (one pass, as without
//!   hit masks), or in two: first the threads whose data is in (the hits at least), as
//!   soon as the SLU is free, then the rest once it is all in. Per word a `written` bit
//!   (set at reservation for inactive threads, as the done bits are) keeps a pass from
//!   writing a word twice: the run-ahead group may have written the register since.
//!   `first` is high before the load's first pass (the SIU's scoreboard releases the
//!   destination register then, not at the second: a run-ahead group may have loaded
//!   it again meanwhile). A pass's `fill` is its threads but the hits: a hit thread
//!   went on at the answer, may since wait for a later load, and must not take this
//!   load's pass for that one's fill (a `hit` bit a word, set at the answer).

use super::{all, cat_low_first, k, next_mod};
use crate::fgsimt::params::FgsimtParams;
use hdl::helpers::{onehot_decode, onehot_mux};
use hdl::{Bundle, ModuleBuilder, Value};

/// What the SLDQs hand the hit logic: their registers and this cycle's events.
pub struct View<'a> {
    pub head: &'a Value,
    /// Loads received whole and not popped whole.
    pub count: &'a Value,
    /// Per lane, the done bits (bit e * T + c for slot c of entry e).
    pub done: &'a [Value],
    /// This cycle's reservation (one-hot over the words) and the slot's active lanes.
    pub reserve: &'a Value,
    pub active: &'a Value,
    /// The words this cycle empties: the reservation's, with +m also a whole entry as
    /// a load's first slot or an affine load takes it.
    pub clear: &'a Value,
    /// Per lane (+m): an arriving affine load's inactive threads' words (it has no
    /// slots to reserve them).
    pub idle_affine: &'a [Value],
    /// The SLU pops a pass's last slot.
    pub last_pop: &'a Value,
}

/// Per lane, entry `e`'s T bits of `bits` (a bit a word).
fn entry_of(p: &FgsimtParams, bits: &Value, e: &Value) -> Value {
    let t = p.threads_per_lane();
    let entries: Vec<Value> = (0..p.sldq_loads)
        .map(|i| bits.slice(i * t + t - 1, i * t))
        .collect();
    onehot_mux(&onehot_decode(e, p.sldq_loads), &entries)
}

/// A bit a thread of the warp (thread c * lanes + l is lane l's slot c) from each lane's
/// T bits.
fn threads(p: &FgsimtParams, per_lane: &[Value]) -> Value {
    let bits: Vec<Value> = (0..p.warp_size)
        .map(|i| per_lane[(i % p.lanes) as usize].bit(i / p.lanes))
        .collect();
    cat_low_first(&bits)
}

/// The answers (`hits`), the passes' fields of `load`, and the `written` bits. Returns
/// `load.ready` and whether the pass popped this cycle finished the head load.
pub fn passes(
    m: &mut ModuleBuilder,
    p: &FgsimtParams,
    v: &View,
    load: &Bundle,
    hits: &Bundle,
) -> (Value, Value) {
    let (loads, n) = (p.sldq_loads, p.sldq_loads * p.threads_per_lane());
    let cw = v.count.width();
    let written: Vec<Value> = (0..p.lanes)
        .map(|l| m.reg(&format!("ldq_written{l}"), n, 0u64))
        .collect();
    let hit: Vec<Value> = (0..p.lanes)
        .map(|l| m.reg(&format!("ldq_hit{l}"), n, 0u64))
        .collect();

    // The answer of the oldest load not answered.
    let ans = m.reg("ldq_ans", v.head.width(), 0u64);
    let answered = m.reg("ldq_answered", cw, 0u64);
    let age = m.reg("ldq_age", 8, 0u64);
    let at_ans =
        |bits: &[Value]| -> Vec<Value> { bits.iter().map(|b| entry_of(p, b, &ans)).collect() };
    let (ans_done, ans_written) = (at_ans(v.done), at_ans(&written));
    let in_now: Vec<Value> = ans_done
        .iter()
        .zip(&ans_written)
        .map(|(d, w)| d & &!w)
        .collect();
    let received = answered.lt(v.count);
    let all_in = all(&ans_done.iter().map(Value::and_r).collect::<Vec<_>>());
    let waited = age.ge(&k(&age, p.hit_window as u64, 8));
    let decide = &received & &(&all_in | &waited);
    m.connect(hits.valid(), &decide);
    m.connect(hits.bits().value(), &threads(p, &in_now));
    let accept = &decide & hits.ready();
    let full = age.eq(&k(&age, 255, 8));
    let older = &received & &!&full;
    let aged = hdl::mux(&older, &(&age + &k(&age, 1, 8)), &age);
    m.connect(&age, &hdl::mux(&accept, &k(&age, 0, 8), &aged));
    m.when(&accept, |m| m.connect(&ans, &next_mod(&ans, loads)));

    // The head's passes.
    let at_head =
        |bits: &[Value]| -> Vec<Value> { bits.iter().map(|b| entry_of(p, b, v.head)).collect() };
    let (head_done, head_written, head_hit) = (at_head(v.done), at_head(&written), at_head(&hit));
    let pass: Vec<Value> = head_done
        .iter()
        .zip(&head_written)
        .map(|(d, w)| d & &!w)
        .collect();
    let fill: Vec<Value> = pass.iter().zip(&head_hit).map(|(p, h)| p & &!h).collect();
    let whole = all(&head_done.iter().map(Value::and_r).collect::<Vec<_>>());
    let passed = m.reg("ldq_passed", 1, false);
    let pass_whole = m.reg("ldq_pass_whole", 1, false);
    let any_in = pass.iter().fold(k(&passed, 0, 1), |a, b| &a | &b.or_r());
    let ready = &answered.or_r() & &(&whole | &(&!&passed & &any_in));
    let take = load.get("take").value().clone();
    let finished = v.last_pop & &pass_whole;
    m.when(&take, |m| {
        m.connect(&passed, &k(&passed, 1, 1));
        m.connect(&pass_whole, &whole);
    });
    m.when(&finished, |m| m.connect(&passed, &k(&passed, 0, 1)));
    let one = k(&answered, 1, cw);
    let up = hdl::mux(&accept, &(&answered + &one), &answered);
    m.connect(&answered, &hdl::mux(&finished, &(&up - &one), &up));
    for (name, value) in [
        ("pass", threads(p, &pass)),
        ("fill", threads(p, &fill)),
        ("whole", whole),
        ("first", !&passed),
    ] {
        m.connect(load.get(name).value(), &value);
    }

    // A word is written by the pass that takes it, or (an inactive thread's) never; it
    // is a hit if it was in when its load was answered. Both start clear as the entry
    // or the slot is taken (the entry's last load's bits are stale).
    let t = p.threads_per_lane();
    let (head_words, ans_words) = (
        super::sldq::entry_words(loads, t, v.head),
        super::sldq::entry_words(loads, t, &ans),
    );
    for (l, (w, h)) in written.iter().zip(&hit).enumerate() {
        let idle = !&v.active.bit(l as u32);
        let fresh = &(v.reserve & &idle.repeat(n)) | &v.idle_affine[l];
        let taken = &(&take.repeat(n) & &head_words) & &(&v.done[l] & &!w);
        m.connect(w, &(&(&(w & &!v.clear) | &fresh) | &taken));
        let hits_now = &(&accept.repeat(n) & &ans_words) & &(&v.done[l] & &!w);
        m.connect(h, &(&(h & &!v.clear) | &hits_now));
    }
    (ready, finished)
}
