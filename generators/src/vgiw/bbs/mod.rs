//! The basic block scheduler (seed 004 section 3.2, Figure 5; spec 004 sections 2.2 and
//! 5.2) with its control vector table (`crate::vgiw::cvt`), module `VgiwBbs`.
//!
//! A launch (`launch`: the thread count, the kernel's CVT words a block `words`, the
//! stack's top and bytes a thread) runs in tiles of `64 * words` threads (the CVT's
//! capacity for the kernel's blocks, at most 65,536 so the tokens' 16-bit thread IDs
//! name a tile's threads). A tile starts with every thread in block 0's vector; then,
//! until every vector is empty:
//!
//! 1. **Select** the smallest block ID whose vector is not empty (a bit a block, set by
//!    every completion packet ORed into the block and cleared when it is selected).
//! 2. **Configure**: the block goes out on `sched`; `configured` answers when the fabric
//!    holds its configuration, with its successors (`0xffff` for the exit).
//! 3. **Stream** its vector: each word is read and reset, and a non-empty one is a thread
//!    batch packet dealt to an idle injector of an active CVU (`injector.rs`).
//! 4. **Complete**: the CVUs' completions are gathered into completion packets and ORed
//!    into the successors' vectors (`collector.rs`). When every thread dealt has
//!    completed and every packet is out, the next block is selected.
//!
//! A block that is its own successor is selected again at once, as in the execution
//! model (`verification::vgiw::machine`). `trace_or` shows every OR into the CVT, for
//! tests; `tile_base` and `tile_threads` name the running tile (the LVC's mapping).

mod collector;
mod injector;

use crate::examples::queue::{queue, QueueParams};
use crate::vgiw::compiler::image::EXIT;
use crate::vgiw::params::VgiwParams;
use crate::vgiw::{cvt, k, uint};
use collector::{collector, Context, Flush};
use hdl::helpers::{lowest_one, onehot_encode, onehot_mux, popcount};
use hdl::{cat, Dir, HdlErrors, Inst, Module, ModuleBuilder, Shape, Value};
use injector::{injector, Batch};
use std::rc::Rc;

/// Most threads in a tile: the tokens' thread IDs are 16 bits.
pub const MAX_TILE_WORDS: u32 = 1024;

const STATE_BITS: u32 = 3;

#[derive(Clone, Copy)]
enum S {
    Idle,
    Init,
    Select,
    Sched,
    Config,
    Scan,
    Drain,
    Flush,
}

/// The launch port: thread count, CVT words a block, stack top and bytes a thread.
pub fn launch_shape(word_bits: u32) -> Shape {
    Shape::decoupled(Shape::bundle(vec![
        uint("threads", 32),
        uint("words", word_bits + 1),
        uint("stack_top", 32),
        uint("stack_bytes", 32),
    ]))
}

/// Bits of a word index within a block's vector.
pub fn word_bits(p: &VgiwParams) -> u32 {
    p.cvt_words.min(MAX_TILE_WORDS).trailing_zeros()
}

/// The `trace_or` port: every OR into the CVT (its word address and bits).
pub fn trace_or_shape(p: &VgiwParams) -> Shape {
    let aw = p.cvt_words.trailing_zeros();
    Shape::valid(Shape::bundle(vec![uint("addr", aw), uint("bits", 64)]))
}

/// Bits of a block ID.
pub fn block_bits(p: &VgiwParams) -> u32 {
    p.max_blocks.trailing_zeros()
}

/// A register loaded with `v` when `en`.
fn latch(m: &mut ModuleBuilder, name: &str, v: &Value, en: &Value) -> Value {
    let r = m.reg(name, v.width(), 0u64);
    m.when(en, |m| m.connect(&r, v));
    r
}

/// The launch (its fields latched as it is taken) and the running tile.
struct Tile {
    words: Value,
    stack_top: Value,
    stack_bytes: Value,
    /// The tile's first thread ID and its thread count (the launch's rest, at most a
    /// tile).
    base: Value,
    count: Value,
    /// The next tile's first thread ID, and whether it is past the launch's last.
    next: Value,
    last: Value,
}

fn launch(m: &mut ModuleBuilder, wb: u32, idle: &Value) -> (Tile, Value) {
    let launch = m.io("launch", Dir::In, &launch_shape(wb));
    m.connect(launch.ready(), idle);
    let start = launch.fire();
    let field =
        |m: &mut ModuleBuilder, name: &str| latch(m, name, launch.bits().get(name).value(), &start);
    let (threads, words) = (field(m, "threads"), field(m, "words"));
    let (stack_top, stack_bytes) = (field(m, "stack_top"), field(m, "stack_bytes"));
    let base = m.reg("tile_base_r", 32, 0u64);
    let span = cat(&[&words, &k(&words, 0, 6)]).zext(32);
    let rest = &threads - &base;
    let count = rest.lt(&span).mux(&rest, &span).trunc(17);
    let next = &base + &span;
    let last = next.ge(&threads);
    let t = Tile {
        words,
        stack_top,
        stack_bytes,
        base,
        count,
        next,
        last,
    };
    (t, start)
}

/// The smallest non-empty block: the vector of non-empty bits (set by `set`, a one-hot
/// of ORs this cycle, cleared for the selected block when `take`), whether any is set,
/// and the smallest's ID.
fn select(m: &mut ModuleBuilder, bb: u32, set: &Value, take: &Value) -> (Value, Value) {
    let nonempty = m.reg("nonempty", 1 << bb, 0u64);
    let low = lowest_one(&nonempty);
    let kept = &nonempty & &!&(&low & &take.repeat(1 << bb));
    m.connect(&nonempty, &(&kept | set));
    (nonempty.or_r(), onehot_encode(&low).trunc(bb.max(1)))
}

/// The scheduler's state register.
struct Fsm(Value);

impl Fsm {
    fn is(&self, s: S) -> Value {
        self.0.eq(&k(&self.0, s as u64, STATE_BITS))
    }

    fn goto(&self, m: &mut ModuleBuilder, s: S) {
        let v = m.lit(s as u64, STATE_BITS);
        m.connect(&self.0, &v);
    }
}

/// The VGIW BBS module of `p` (with its CVT).
pub fn bbs(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new("VgiwBbs");
    let (wb, bb) = (word_bits(p), block_bits(p));
    let fsm = Fsm(m.reg("state", STATE_BITS, 0u64));
    let (t, start) = launch(&mut m, wb, &fsm.is(S::Idle));
    let busy = m.output("busy", 1);
    m.connect(&busy, &!&fsm.is(S::Idle));
    let (tile_base, tile_threads) = (m.output("tile_base", 32), m.output("tile_threads", 17));
    m.connect(&tile_base, &t.base);
    m.connect(&tile_threads, &t.count);
    let cvt = m.instance("cvt", &cvt::cvt(p)?);
    m.connect(&cvt.port("clear"), &start);
    // The word counter of Init and Scan.
    let w = m.reg("word", wb + 1, 0u64);
    let zero_w = k(&w, 0, wb + 1);
    m.when(&start, |m| {
        let z = k(&t.base, 0, 32);
        m.connect(&t.base, &z);
        m.connect(&w, &zero_w);
        fsm.goto(m, S::Init);
    });
    let block = m.reg("block", bb.max(1), 0u64);
    let succ = configure(&mut m, p, &fsm, &t, (&block, &w, &zero_w));
    let (bq, in_flight) = stream(&mut m, p, &fsm, &t, &cvt, (&w, &succ.block_base))?;
    let dealer = deal(&mut m, p, &t, &bq);
    let completion = complete(&mut m, p, &fsm, &t, &cvt, (&w, &dealer.completed), &succ);

    // Select, and the tile's end.
    let take = fsm.is(S::Select);
    let (any, smallest) = select(&mut m, bb, &completion.set, &take);
    m.when(&take, |m| {
        m.connect(&block, &smallest);
        m.when(&any, |m| fsm.goto(m, S::Sched)).otherwise(|m| {
            m.when(&t.last, |m| fsm.goto(m, S::Idle)).otherwise(|m| {
                m.connect(&t.base, &t.next);
                m.connect(&w, &zero_w);
                fsm.goto(m, S::Init);
            });
        });
    });
    let dealt_all = &(&(&bq
        .port("count")
        .eq(&k(&bq.port("count"), 0, bq.port("count").width()))
        & &!&in_flight)
        & &cat(&dealer.idle.iter().rev().collect::<Vec<_>>()).and_r())
        & &dealer.completed.eq(&dealer.issued);
    m.connect(&completion.drain, &(&fsm.is(S::Drain) & &dealt_all));
    m.when(&completion.drain, |m| fsm.goto(m, S::Flush));
    let flushes = &completion.flushes;
    let flushed = cat(&flushes.iter().rev().map(|f| &f.empty).collect::<Vec<_>>()).and_r();
    m.when(&(&fsm.is(S::Flush) & &flushed), |m| fsm.goto(m, S::Select));
    m.finish()
}

/// The configured block's successors (their IDs, whether each is the exit) and the
/// CVT addresses of its own and its successors' vectors, latched as `configured` fires.
struct Successors {
    taken: Value,
    fall: Value,
    taken_exit: Value,
    fall_exit: Value,
    block_base: Value,
    taken_base: Value,
    fall_base: Value,
}

/// Configure: `block` goes out on `sched` (state Sched), then `configured` (state
/// Config) answers with its successors; the word counter `w` restarts for Scan.
fn configure(
    m: &mut ModuleBuilder,
    p: &VgiwParams,
    fsm: &Fsm,
    t: &Tile,
    (block, w, zero_w): (&Value, &Value, &Value),
) -> Successors {
    let (aw, bb) = (p.cvt_words.trailing_zeros(), block_bits(p));
    let times_words = |v: &Value| v.mul(&t.words).trunc(aw);
    let sched = m.io(
        "sched",
        Dir::Out,
        &Shape::decoupled(Shape::bundle(vec![uint("block", bb.max(1))])),
    );
    m.connect(sched.valid(), &fsm.is(S::Sched));
    m.connect(sched.bits().get("block").value(), block);
    let succ = Shape::bundle(vec![uint("taken", 16), uint("fall", 16)]);
    let configured = m.io("configured", Dir::In, &Shape::decoupled(succ));
    m.connect(configured.ready(), &fsm.is(S::Config));
    let configure = configured.fire();
    let succ_of = |name: &str| configured.bits().get(name).value().clone();
    let exit_of = |v: &Value| v.eq(&k(v, EXIT as u64, 16));
    let taken = latch(m, "taken", &succ_of("taken").trunc(bb.max(1)), &configure);
    let fall = latch(m, "fall", &succ_of("fall").trunc(bb.max(1)), &configure);
    let taken_exit = latch(m, "taken_exit", &exit_of(&succ_of("taken")), &configure);
    let fall_exit = latch(m, "fall_exit", &exit_of(&succ_of("fall")), &configure);
    let block_base = latch(m, "block_base", &times_words(block), &configure);
    let taken_base = latch(
        m,
        "taken_base",
        &times_words(&succ_of("taken").trunc(bb.max(1))),
        &configure,
    );
    let fall_base = latch(
        m,
        "fall_base",
        &times_words(&succ_of("fall").trunc(bb.max(1))),
        &configure,
    );
    m.when(&sched.fire(), |m| fsm.goto(m, S::Config));
    m.when(&configure, |m| {
        m.connect(w, zero_w);
        fsm.goto(m, S::Scan);
    });
    Successors {
        taken,
        fall,
        taken_exit,
        fall_exit,
        block_base,
        taken_base,
        fall_base,
    }
}

/// Stream (state Scan): reads and resets each word of the block's vector (at
/// `block_base`, word counter `w`) while the batch queue has room; non-empty words queue
/// as batches. Returns the batch queue and whether a read is in flight.
fn stream(
    m: &mut ModuleBuilder,
    p: &VgiwParams,
    fsm: &Fsm,
    t: &Tile,
    cvt: &Inst,
    (w, block_base): (&Value, &Value),
) -> Result<(Inst, Value), HdlErrors> {
    let (aw, wb) = (p.cvt_words.trailing_zeros(), word_bits(p));
    let wide = |v: &Value| v.zext(aw);
    let bq = m.instance(
        "batches",
        &queue(&QueueParams {
            depth: 4,
            width: wb + 64,
            sram_threshold_bits: p.sram_threshold_bits,
            ..Default::default()
        })?,
    );
    let rd = cvt.io("rd");
    let in_flight = m.reg("rd_in_flight", 1, 0u64);
    let room = (&bq.port("count").zext(4) + &in_flight.zext(4)).lt(&k(&in_flight.zext(4), 4, 4));
    m.connect(rd.valid(), &(&fsm.is(S::Scan) & &room));
    m.connect(
        rd.bits().get("addr").value(),
        &(block_base + &wide(&w.trunc(wb))),
    );
    let read = rd.fire();
    m.connect(&in_flight, &read);
    let read_word = latch(m, "read_word", &w.trunc(wb), &read);
    let resp = cvt.io("rd_resp");
    let data = resp.bits().get("data").value().clone();
    m.connect(&bq.port("enq_valid"), &(resp.valid() & &data.or_r()));
    m.connect(&bq.port("enq_bits"), &cat(&[&read_word, &data]));
    m.when(&read, |m| {
        m.connect(w, &(w + &k(w, 1, wb + 1)));
        m.when(&(w + &k(w, 1, wb + 1)).eq(&t.words), |m| {
            fsm.goto(m, S::Drain)
        });
    });
    Ok((bq, in_flight))
}

/// The injectors as the scheduler sees them.
struct Dealer {
    /// Each injector is idle (`inj<i>_idle`).
    idle: Vec<Value>,
    /// Counts of the threads dealt to the injectors and of those the collectors have
    /// completed: equal when every thread dealt has completed.
    issued: Value,
    completed: Value,
}

/// Deal: the batch queue's head batch to the lowest idle injector of an active CVU
/// (`cvu<i>_active`), with its first thread ID and stack pointer.
fn deal(m: &mut ModuleBuilder, p: &VgiwParams, t: &Tile, bq: &Inst) -> Dealer {
    let wb = word_bits(p);
    let head = bq.port("deq_bits");
    let (hword, hbits) = (head.slice(wb + 63, 64), head.slice(63, 0));
    let first = &t.base + &cat(&[&hword, &k(&hword, 0, 6)]).zext(32);
    let sp = &t.stack_top - &first.mul(&t.stack_bytes).trunc(32);
    let cvus = p.cvus as usize;
    let active: Vec<Value> = (0..cvus)
        .map(|i| m.input(&format!("cvu{i}_active"), 1))
        .collect();
    let idle: Vec<Value> = (0..cvus)
        .map(|i| m.wire(&format!("inj{i}_idle"), 1))
        .collect();
    let free: Vec<Value> = (idle.iter().zip(&active)).map(|(i, a)| i & a).collect();
    let free = cat(&free.iter().rev().collect::<Vec<_>>());
    let target = &lowest_one(&free) & &bq.port("deq_valid").repeat(p.cvus);
    m.connect(&bq.port("deq_ready"), &target.or_r());
    for (i, idle) in idle.iter().enumerate() {
        let batch = Batch {
            load: target.bit(i as u32),
            tid: first.clone(),
            sp: sp.clone(),
            bitmap: hbits.clone(),
        };
        let v = injector(m, i, &batch, &t.stack_bytes);
        m.connect(idle, &v);
    }
    let counter = |m: &mut ModuleBuilder, name: &str| m.reg(name, 17, 0u64);
    let (issued, completed) = (counter(m, "issued"), counter(m, "completed"));
    let dealt = bq.port("deq_ready").repeat(7) & popcount(&hbits);
    m.connect(&issued, &(&issued + &dealt.zext(17)));
    Dealer {
        idle,
        issued,
        completed,
    }
}

/// What [`complete`] builds: the collectors' `drain` (driven by the caller), their
/// flushes, and the one-hot of the block whose vector an OR set this cycle.
struct Completion {
    drain: Value,
    flushes: Vec<Flush>,
    set: Value,
}

/// Complete: the collectors' packets, one a cycle, ORed into the successors' vectors
/// (their completions counted into `completed`); in state Init the same port fills
/// block 0's vector with the tile's threads, word `w` by word.
fn complete(
    m: &mut ModuleBuilder,
    p: &VgiwParams,
    fsm: &Fsm,
    t: &Tile,
    cvt: &Inst,
    (w, completed): (&Value, &Value),
    s: &Successors,
) -> Completion {
    let (aw, wb, bb) = (p.cvt_words.trailing_zeros(), word_bits(p), block_bits(p));
    let wide = |v: &Value| v.zext(aw);
    let cvus = p.cvus as usize;
    let drain = m.wire("drain", 1);
    let cx = Context {
        tile_tid: &t.base.trunc(16),
        word_bits: wb,
        drain: &drain,
        exits: (&s.taken_exit, &s.fall_exit),
    };
    let grants: Vec<Value> = (0..cvus).map(|i| m.wire(&format!("grant{i}"), 1)).collect();
    let flushes: Vec<Flush> = (0..cvus)
        .map(|i| collector(m, i, &cx, &grants[i]))
        .collect();
    let requests = cat(&flushes.iter().rev().map(|f| &f.valid).collect::<Vec<_>>());
    let init = fsm.is(S::Init);
    let grant = &lowest_one(&requests) & &(!&init).repeat(p.cvus);
    for (i, g) in grants.iter().enumerate() {
        m.connect(g, &grant.bit(i as u32));
    }
    let done = cat(&flushes
        .iter()
        .rev()
        .map(|f| &f.completed)
        .collect::<Vec<_>>());
    m.connect(completed, &(completed + &popcount(&done).zext(17)));
    let pick = |f: fn(&Flush) -> &Value| {
        onehot_mux(
            &grant,
            &flushes.iter().map(|x| f(x).clone()).collect::<Vec<_>>(),
        )
    };
    let g_taken = pick(|f| &f.taken);
    let g_word = pick(|f| &f.word);
    let g_bits = pick(|f| &f.bits);
    let all_ones = k(&g_bits, u64::MAX, 64);
    let left = (t.count.zext(32) - cat(&[w, &k(w, 0, 6)]).zext(32)).trunc(17);
    let full = left.ge(&k(&left, 64, 17));
    let last_word = left.le(&k(&left, 64, 17));
    let partial = all_ones.dshr(&(k(&left, 64, 17) - &left).trunc(7));
    let or = cvt.io("or");
    let addr = init.mux(
        &wide(&w.trunc(wb)),
        &(&g_taken.mux(&s.taken_base, &s.fall_base) + &wide(&g_word)),
    );
    m.connect(or.valid(), &(&init | &requests.or_r()));
    m.connect(or.bits().get("addr").value(), &addr);
    m.connect(
        or.bits().get("bits").value(),
        &init.mux(&full.mux(&all_ones, &partial), &g_bits),
    );
    let ored = or.fire();
    let to = init.mux(&k(&s.taken, 0, bb.max(1)), &g_taken.mux(&s.taken, &s.fall));
    let set = &hdl::helpers::onehot_decode(&to, 1 << bb) & &ored.repeat(1 << bb);
    let trace = m.io("trace_or", Dir::Out, &trace_or_shape(p));
    m.connect(trace.valid(), &ored);
    m.connect(trace.bits().get("addr").value(), &addr);
    m.connect(
        trace.bits().get("bits").value(),
        or.bits().get("bits").value(),
    );
    m.when(&(&init & &ored), |m| {
        m.connect(w, &(w + &k(w, 1, wb + 1)));
        m.when(&last_word, |m| fsm.goto(m, S::Select));
    });
    Completion {
        drain,
        flushes,
        set,
    }
}
