//! The BBS's completion collectors (seed 004 section 3.2: "completion packets ORed
//! into the successors' vectors"; spec 004 section 2.2): one a CVU. A collector gathers
//! its CVU's thread completions into the two bitmaps of one CVT word, the taken and the
//! fall-through successor's, and flushes them as completion packets (an OR into the
//! successor's vector) when a completion of another word arrives or when the block has
//! drained. A successor that is the kernel's exit gets no packet.

use hdl::helpers::onehot_decode;
use hdl::{Bits, Bundle, Dir, ModuleBuilder, Value};

/// What a collector sees of the BBS.
pub struct Context<'a> {
    /// The tile's first thread ID, low 16 bits (a completion carries its ID's).
    pub tile_tid: &'a Value,
    /// Word-index bits.
    pub word_bits: u32,
    /// Every collector flushes (the block has drained).
    pub drain: &'a Value,
    /// Which successors are the exit: (taken, fall).
    pub exits: (&'a Value, &'a Value),
}

/// A collector's flush request: which packet (taken or fall), its word and bitmap.
pub struct Flush {
    pub valid: Value,
    pub taken: Value,
    pub word: Value,
    pub bits: Value,
    /// Whether a completion fired this cycle.
    pub completed: Value,
    /// Whether the collector holds nothing.
    pub empty: Value,
}

/// Collector `i` on port `cvu{i}_done`; `grant` takes its flush request.
pub fn collector(m: &mut ModuleBuilder, i: usize, cx: &Context, grant: &Value) -> Flush {
    let done: Bundle = m.io(
        &format!("cvu{i}_done"),
        Dir::In,
        &crate::vgiw::units::cvu::done_shape(),
    );
    let name = |n: &str| format!("col{i}_{n}");
    let valid = m.reg(&name("valid"), 1, 0u64);
    let flushing = m.reg(&name("flushing"), 1, 0u64);
    let word = m.reg(&name("word"), cx.word_bits, 0u64);
    let taken = m.reg(&name("taken"), 64, 0u64);
    let fall = m.reg(&name("fall"), 64, 0u64);

    let rel = done.bits().get("tid").value() - cx.tile_tid;
    let dword = rel.slice(cx.word_bits + 5, 6);
    let bit = onehot_decode(&rel.slice(5, 0), 64);
    let same = &!&valid | &word.eq(&dword);
    m.connect(done.ready(), &(&!&flushing & &same));
    let fire = done.fire();
    let is_taken = done.bits().get("taken").value();
    let add = |set: &Value, mine: Value| (&mine & &fire).repeat(64) & bit.clone() | set.clone();
    let (t_next, f_next) = (add(&taken, is_taken.clone()), add(&fall, !is_taken));

    let (t_exit, f_exit) = cx.exits;
    let t_pending = &taken.or_r() & &!t_exit;
    let f_pending = &fall.or_r() & &!f_exit;
    let request = &flushing & &(&t_pending | &f_pending);
    let other_word = &(done.valid() & &valid) & &!&word.eq(&dword);
    let finished = &flushing & &!&request;
    m.when(&fire, |m| {
        m.connect(&valid, &fire);
        m.connect(&word, &dword);
    });
    m.connect(&taken, &t_next);
    m.connect(&fall, &f_next);
    m.when(&(&other_word | &(cx.drain & &valid)), |m| {
        let one = m.lit(1, 1);
        m.connect(&flushing, &one);
    });
    m.when(&(&request & grant), |m| {
        m.when(&t_pending, |m| {
            m.connect(&taken, &taken.konst(Bits::zero(64)))
        })
        .otherwise(|m| m.connect(&fall, &fall.konst(Bits::zero(64))));
    });
    m.when(&finished, |m| {
        let zero = m.lit(0, 1);
        m.connect(&flushing, &zero);
        m.connect(&valid, &zero);
        m.connect(&taken, &taken.konst(Bits::zero(64)));
        m.connect(&fall, &fall.konst(Bits::zero(64)));
    });
    Flush {
        valid: request,
        taken: t_pending.clone(),
        word,
        bits: t_pending.mux(&taken, &fall),
        completed: fire,
        empty: !&valid,
    }
}
