//! The configurator, module `VgiwConfigurator`: the BBS's configuration FIFO and the
//! reconfiguration sequence (seed 004 section 3.2: "while a block executes, the BBS
//! prefetches the configurations of following blocks"; the configuration tokens enter
//! from the grid's left perimeter, every row in parallel, in two passes; spec 004
//! section 5.4). It sits between the BBS (`sched`, `configured`) and the fabric's
//! configuration chains (`cfg_*`, `fabric/config.rs`).
//!
//! The kernel image's blocks (`compiler/image.rs`) lie in memory in ID order from `image`
//! on, each a 64-bit header (ID, replicas, taken, fall) and then every cell's
//! `cell_words` words, row-major: block b starts at `image + b * block_bytes(p)`.
//!
//! - **Slots** (`config_slots`): each holds one block's configuration, a buffer a grid
//!   row (a word a column and slot, `64 * cell_words` bits, read a cycle after its
//!   address: an SRAM macro above the threshold), and the header's successors. A slot
//!   is tagged with its kernel's `image` and the block's ID, so it outlives the launch
//!   that fetched it: a kernel launched again (a BFS level, a solver's sweep) or a loop
//!   over more blocks than the prefetch reaches finds its blocks still held. Images are
//!   read-only once loaded; a reset forgets every slot.
//! - **Fetch**: one 64-bit read request a cycle on `mem_req`, as many in flight as the
//!   memory takes; each tagged with where its word goes, so responses may come in any
//!   order. A block's fetch ends with its last response.
//! - **Demand**: `sched` of block b configures from the slot holding b; otherwise, once
//!   a fetch in progress has ended, b is fetched into a slot.
//! - **Replacement**: an empty slot first, else the least recently used (configured or
//!   filled) of those neither shifting into the fabric nor holding a successor of the
//!   block configured last (true LRU: a slot's age is its rank).
//! - **Prefetch** (the paper leaves the order open; spec 004 section 2.2): once a block is
//!   configured, its successors (smallest ID first, not the exit) are fetched into the
//!   other slots unless a slot holds them. The BBS next runs the smallest non-empty
//!   block, and every block below the one just run was empty when it was chosen, so the
//!   next is a successor of it unless an older pending block lies in between.
//! - **Shift**: pass 0 then pass 1, `cols` cycles each from the rightmost column
//!   (`fabric/config.rs`), every row from its buffer: `2 * cols + 1` cycles from the
//!   demand hit to `configured`, which carries the header's successors.
//! - `start` (a launch, with its `image`) drops the prefetch candidates; a fetch in
//!   flight completes into its slot, tagged with the image it was fetched for.

use crate::memory::{self, ArrayPorts};
use crate::rocket::bus::{mem_request, mem_response, SIZE_BITS};
use crate::vgiw::bbs::block_bits;
use crate::vgiw::compiler::image::{cell_words, EXIT};
use crate::vgiw::fabric::config::half_bits;
use crate::vgiw::grid::Grid;
use crate::vgiw::params::VgiwParams;
use crate::vgiw::{k, uint};
use hdl::helpers::{lowest_one, onehot_decode, onehot_encode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{cat, Dir, HdlErrors, Mem, Module, ModuleBuilder, Shape, Value};
use std::rc::Rc;

/// Bytes of one block of `p`'s kernel images: the header and every cell's words.
pub fn block_bytes(p: &VgiwParams) -> u32 {
    let g = Grid::new(p);
    8 * (1 + g.rows as u32 * g.cols as u32 * cell_words(p.switch_channels) as u32)
}

/// The widths of a fetched word's tag: header bit, row, column, word in the cell.
struct TagBits {
    row: u32,
    col: u32,
    word: u32,
}

impl TagBits {
    fn new(rows: u32, cols: u32, per: u32) -> TagBits {
        let w = |n: u32| addr_width(n as u64);
        TagBits {
            row: w(rows),
            col: w(cols),
            word: w(per),
        }
    }

    fn total(&self) -> u32 {
        1 + self.row + self.col + self.word
    }
}

/// Per slot: whether it holds a whole block, which (its kernel's `image` and its ID),
/// its successors, and its age (0: the slot used last; the ages are a permutation).
struct Slot {
    valid: Value,
    image: Value,
    block: Value,
    taken: Value,
    fall: Value,
    age: Value,
}

/// The geometry every sub-block works with.
struct Geometry {
    channels: u32,
    rows: u32,
    cols: u32,
    per: u32,
    slots: u32,
    /// Bits of a slot index, a block ID, a column.
    sb: u32,
    bb: u32,
    cb: u32,
}

impl Geometry {
    /// The buffer address of column `c` of slot `s`.
    fn addr(&self, s: &Value, c: &Value) -> Value {
        let aw = addr_width((self.slots * self.cols) as u64);
        let base = s.zext(aw).mul(&k(s, self.cols as u64, aw)).trunc(aw);
        &base + &c.zext(aw)
    }
}

/// The fetch in progress: whether there is one, the slot it fills and the block (of
/// the kernel that slot's `image` names).
struct Fetch {
    busy: Value,
    slot: Value,
    block: Value,
}

/// A fetch to start this cycle: its block and slot.
struct Begin {
    go: Value,
    block: Value,
    slot: Value,
}

/// A shift to start this cycle, from `slot`; `done` (driven by the shifter) pulses as
/// its last column shifts in.
struct Shift {
    go: Value,
    slot: Value,
    done: Value,
}

/// A successor of the block configured last.
struct Candidate {
    want: Value,
    live: Value,
    block: Value,
}

/// The VGIW configurator module of `p`.
pub fn configurator(p: &VgiwParams) -> Result<Rc<Module>, HdlErrors> {
    let grid = Grid::new(p);
    let g = Geometry {
        channels: p.switch_channels,
        rows: grid.rows as u32,
        cols: grid.cols as u32,
        per: cell_words(p.switch_channels) as u32,
        slots: p.config_slots,
        sb: addr_width(p.config_slots as u64),
        bb: block_bits(p).max(1),
        cb: addr_width(grid.cols as u64),
    };
    let mut m = ModuleBuilder::new("VgiwConfigurator");
    let start = m.input("start", 1);
    let image_in = m.input("image", 32);
    let image = m.reg("image_r", 32, 0u64);
    m.when(&start, |m| m.connect(&image, &image_in));
    let slots: Vec<Slot> = (0..g.slots)
        .map(|s| Slot {
            valid: m.reg(&format!("slot{s}_valid"), 1, 0u64),
            image: m.reg(&format!("slot{s}_image"), 32, 0u64),
            block: m.reg(&format!("slot{s}_block"), g.bb, 0u64),
            taken: m.reg(&format!("slot{s}_taken"), 16, 0u64),
            fall: m.reg(&format!("slot{s}_fall"), 16, 0u64),
            age: m.reg(&format!("slot{s}_age"), g.sb, s as u64),
        })
        .collect();
    let bits = 64 * g.per;
    let depth = (g.slots * g.cols) as u64;
    let style = memory::style(depth, bits, ArrayPorts::SYNC_1R1W, p.sram_threshold_bits);
    let bufs: Vec<Mem> = (0..g.rows)
        .map(|r| m.mem(&format!("row{r}"), depth, bits, style))
        .collect();
    let fetch = Fetch {
        busy: m.reg("fetch_busy", 1, 0u64),
        slot: m.reg("fetch_slot", g.sb, 0u64),
        block: m.reg("fetch_block", g.bb, 0u64),
    };
    let (begin, shift) = control(&mut m, &g, &fetch, &slots, &image, &start);
    fetcher(&mut m, &g, p, &image, &fetch, &slots, &bufs, &begin);
    shifter(&mut m, &g, &bufs, &shift);
    m.finish()
}

/// Whether each slot holds block `b` of the kernel at `image` whole (a bit a slot).
fn holding(slots: &[Slot], image: &Value, b: &Value) -> Value {
    let bits: Vec<Value> = (slots.iter())
        .map(|s| &(&s.valid & &s.block.eq(b)) & &s.image.eq(image))
        .collect();
    cat(&bits.iter().rev().collect::<Vec<_>>())
}

/// The slot of `among` (a bit a slot, not all clear) used longest ago, one-hot.
fn oldest(slots: &[Slot], among: &Value) -> Value {
    let bits: Vec<Value> = (slots.iter().enumerate())
        .map(|(i, s)| {
            (slots.iter().enumerate())
                .filter(|&(j, _)| j != i)
                .fold(among.bit(i as u32), |acc, (j, o)| {
                    &acc & &(&!&among.bit(j as u32) | &o.age.lt(&s.age))
                })
        })
        .collect();
    cat(&bits.iter().rev().collect::<Vec<_>>())
}

/// Makes the slot `s` (an index) the one used last: younger slots age by one.
fn touch(m: &mut ModuleBuilder, slots: &[Slot], s: &Value) {
    let ages: Vec<Value> = slots.iter().map(|o| o.age.clone()).collect();
    let age = onehot_mux(&onehot_decode(s, slots.len() as u32), &ages);
    for (i, o) in slots.iter().enumerate() {
        let me = s.eq(&k(s, i as u64, s.width()));
        let next = me.mux(
            &k(&o.age, 0, o.age.width()),
            &(&o.age + &k(&o.age, 1, o.age.width())),
        );
        m.when(&(&me | &o.age.lt(&age)), |m| m.connect(&o.age, &next));
    }
}

/// The demand (`sched`), the prefetch candidates, the victim slot, `configured`:
/// returns the fetch and the shift to start this cycle.
fn control(
    m: &mut ModuleBuilder,
    g: &Geometry,
    f: &Fetch,
    slots: &[Slot],
    image: &Value,
    start: &Value,
) -> (Begin, Shift) {
    let sched = m.io(
        "sched",
        Dir::In,
        &Shape::decoupled(Shape::bundle(vec![uint("block", g.bb)])),
    );
    let succ = Shape::bundle(vec![uint("taken", 16), uint("fall", 16)]);
    let configured = m.io("configured", Dir::Out, &Shape::decoupled(succ));
    let pending = m.reg("pending", 1, 0u64);
    let want = m.reg("want", g.bb, 0u64);
    let shifting = m.reg("shifting", 1, 0u64);
    let cur = m.reg("cur_slot", g.sb, 0u64);
    let cf_valid = configured.valid().clone();
    let cf_valid_r = m.reg("configured_valid", 1, 0u64);
    m.connect(&cf_valid, &cf_valid_r);
    m.connect(sched.ready(), &!&(&(&pending | &shifting) | &cf_valid_r));
    m.when(&sched.fire(), |m| {
        let one = k(&pending, 1, 1);
        m.connect(&pending, &one);
        m.connect(&want, sched.bits().get("block").value());
    });
    // Prefetch candidates: the configured block's successors, smallest first, each
    // still to fetch (`want`) and kept from eviction until the next configuration
    // (`live`).
    let cands: Vec<Candidate> = (0..2)
        .map(|i| Candidate {
            want: m.reg(&format!("cand{i}_want"), 1, 0u64),
            live: m.reg(&format!("cand{i}_live"), 1, 0u64),
            block: m.reg(&format!("cand{i}_block"), g.bb, 0u64),
        })
        .collect();
    let images: Vec<Value> = slots.iter().map(|s| s.image.clone()).collect();
    let fetching = onehot_mux(&onehot_decode(&f.slot, g.slots), &images).eq(image);
    let held =
        |b: &Value| holding(slots, image, b).or_r() | (&(&f.busy & &fetching) & &f.block.eq(b));
    let first = cands[0].want.mux(&cands[0].block, &cands[1].block);
    let any_cand = &cands[0].want | &cands[1].want;
    let protect = cands.iter().fold(k(&cur, 0, g.slots), |acc, c| {
        &acc | &(holding(slots, image, &c.block) & c.live.repeat(g.slots))
    });
    let in_use = &onehot_decode(&cur, g.slots) & &shifting.repeat(g.slots);
    let valid = cat(&slots.iter().rev().map(|s| &s.valid).collect::<Vec<_>>());
    let free = &!&valid & &!&in_use;
    let replaceable = &(&valid & &!&protect) & &!&in_use;
    let victim_of = |v: &Value| onehot_encode(&lowest_one(v)).zext(g.sb).trunc(g.sb);
    let victim = free
        .or_r()
        .mux(&victim_of(&free), &victim_of(&oldest(slots, &replaceable)));
    let hit = holding(slots, image, &want);
    let idle = !&f.busy;
    let demand_hit = &pending & &hit.or_r();
    let demand_miss = &(&pending & &!&hit.or_r()) & &idle;
    let cand_held = held(&first);
    let prefetch =
        &(&(&!&pending & &idle) & &any_cand) & &(&!&cand_held & &(&free | &replaceable).or_r());
    // A candidate is done when it starts, or when it is held already.
    let done_cand = &any_cand & &(&prefetch | &(&cand_held & &!&pending));
    m.when(&done_cand, |m| {
        let z = k(&pending, 0, 1);
        m.when(&cands[0].want, |m| m.connect(&cands[0].want, &z))
            .otherwise(|m| m.connect(&cands[1].want, &z));
    });
    let any_slot = replaceable.or_r().mux(&victim, &victim_of(&!&in_use));
    let begin = Begin {
        go: &(&demand_miss | &prefetch) & &!start,
        block: demand_miss.mux(&want, &first),
        slot: demand_miss.mux(&free.or_r().mux(&victim, &any_slot), &victim),
    };
    let shifted = m.wire("shift_done", 1);
    let shift = Shift {
        go: demand_hit.clone(),
        slot: victim_of(&hit),
        done: shifted.clone(),
    };
    m.when(&demand_hit, |m| touch(m, slots, &shift.slot));
    m.when(&begin.go, |m| touch(m, slots, &begin.slot));
    m.when(&demand_hit, |m| {
        let (z, one) = (k(&pending, 0, 1), k(&pending, 1, 1));
        m.connect(&pending, &z);
        m.connect(&shifting, &one);
        m.connect(&cur, &shift.slot);
    });
    // The shift's end: `configured` with the slot's successors, the candidates set.
    let pick = |f: fn(&Slot) -> &Value| {
        let vals: Vec<Value> = slots.iter().map(|s| f(s).clone()).collect();
        onehot_mux(&onehot_decode(&cur, g.slots), &vals)
    };
    let (taken, fall) = (pick(|s| &s.taken), pick(|s| &s.fall));
    let cb = configured.bits();
    let (out_taken, out_fall) = (m.reg("out_taken", 16, 0u64), m.reg("out_fall", 16, 0u64));
    m.connect(cb.get("taken").value(), &out_taken);
    m.connect(cb.get("fall").value(), &out_fall);
    let (lo, hi) = (
        taken.lt(&fall).mux(&taken, &fall),
        taken.lt(&fall).mux(&fall, &taken),
    );
    let exit = |v: &Value| v.eq(&k(v, EXIT as u64, 16));
    m.when(&shifted, |m| {
        let (z, one) = (k(&pending, 0, 1), k(&pending, 1, 1));
        m.connect(&shifting, &z);
        m.connect(&cf_valid_r, &one);
        m.connect(&out_taken, &taken);
        m.connect(&out_fall, &fall);
        let (lo_ok, hi_ok) = (!&exit(&lo), !&(&exit(&hi) | &hi.eq(&lo)));
        for (c, (ok, b)) in cands.iter().zip([(&lo_ok, &lo), (&hi_ok, &hi)]) {
            m.connect(&c.want, ok);
            m.connect(&c.live, ok);
            m.connect(&c.block, &b.trunc(g.bb));
        }
    });
    m.when(&configured.fire(), |m| {
        let z = k(&pending, 0, 1);
        m.connect(&cf_valid_r, &z);
    });
    m.when(start, |m| {
        let z = k(&pending, 0, 1);
        for c in &cands {
            m.connect(&c.want, &z);
            m.connect(&c.live, &z);
        }
    });
    (begin, shift)
}

/// The fetch engine: starts `begin`, issues its requests (header, then row, column and
/// word in order) and places their responses.
#[allow(clippy::too_many_arguments)]
fn fetcher(
    m: &mut ModuleBuilder,
    g: &Geometry,
    p: &VgiwParams,
    image: &Value,
    f: &Fetch,
    slots: &[Slot],
    bufs: &[Mem],
    begin: &Begin,
) {
    let tb = TagBits::new(g.rows, g.cols, g.per);
    let req = m.io("mem_req", Dir::Out, &mem_request(tb.total()));
    let resp = m.io("mem_resp", Dir::In, &mem_response(tb.total()));
    let words = 1 + g.rows * g.cols * g.per;
    let cw = addr_width(words as u64 + 1);
    let addr = m.reg("fetch_addr", 32, 0u64);
    let hdr = m.reg("fetch_hdr", 1, 0u64);
    let (r, c, w) = (
        m.reg("fetch_row", tb.row, 0u64),
        m.reg("fetch_col", tb.col, 0u64),
        m.reg("fetch_word", tb.word, 0u64),
    );
    let issued = m.reg("fetch_issued", cw, 0u64);
    let got = m.reg("fetch_got", cw, 0u64);
    m.connect(
        req.valid(),
        &(&f.busy & &issued.lt(&k(&issued, words as u64, cw))),
    );
    let b = req.bits();
    m.connect(b.get("addr").value(), &addr);
    m.connect(b.get("write").value(), &k(&addr, 0, 1));
    m.connect(b.get("data").value(), &k(&addr, 0, 64));
    m.connect(b.get("mask").value(), &k(&addr, 0xff, 8));
    m.connect(b.get("size").value(), &k(&addr, 3, SIZE_BITS));
    m.connect(b.get("tag").value(), &cat(&[&hdr, &r, &c, &w]));
    let last = |v: &Value, n: u32| v.eq(&k(v, n as u64 - 1, v.width()));
    let inc = |v: &Value| v + &k(v, 1, v.width());
    let zero = |v: &Value| k(v, 0, v.width());
    m.when(&req.fire(), |m| {
        m.connect(&addr, &(&addr + &k(&addr, 8, 32)));
        m.connect(&issued, &inc(&issued));
        m.connect(&hdr, &zero(&hdr));
        m.when(&!&hdr, |m| {
            m.connect(&w, &inc(&w));
            m.when(&last(&w, g.per), |m| {
                m.connect(&w, &zero(&w));
                m.connect(&c, &inc(&c));
                m.when(&last(&c, g.cols), |m| {
                    m.connect(&c, &zero(&c));
                    m.connect(&r, &inc(&r));
                });
            });
        });
    });
    // Responses: the header's successors into the slot, cell words into the rows.
    let rb = resp.bits();
    let data = rb.get("data").value().clone();
    let tag = rb.get("tag").value().clone();
    let t_word = tag.slice(tb.word - 1, 0);
    let t_col = tag.slice(tb.word + tb.col - 1, tb.word);
    let t_row = tag.slice(tb.word + tb.col + tb.row - 1, tb.word + tb.col);
    let t_hdr = tag.bit(tb.total() - 1);
    let got_one = resp.valid().clone();
    let here = onehot_decode(&f.slot, g.slots);
    for (s, slot) in slots.iter().enumerate() {
        m.when(&(&(&got_one & &t_hdr) & &here.bit(s as u32)), |m| {
            m.connect(&slot.taken, &data.slice(47, 32));
            m.connect(&slot.fall, &data.slice(63, 48));
        });
    }
    let row_hit = onehot_decode(&t_row, g.rows);
    let (wide, mask) = (data.repeat(g.per), onehot_decode(&t_word, g.per));
    let at = g.addr(&f.slot, &t_col);
    for (i, buf) in bufs.iter().enumerate() {
        m.when(&(&(&got_one & &!&t_hdr) & &row_hit.bit(i as u32)), |m| {
            m.write_masked(buf, &at, &wide, &mask)
        });
    }
    m.when(&got_one, |m| m.connect(&got, &inc(&got)));
    let end = &got_one & &got.eq(&k(&got, words as u64 - 1, cw));
    m.when(&end, |m| {
        m.connect(&f.busy, &zero(&f.busy));
        for (s, slot) in slots.iter().enumerate() {
            m.when(&here.bit(s as u32), |m| {
                m.connect(&slot.valid, &k(&slot.valid, 1, 1))
            });
        }
    });
    let into = onehot_decode(&begin.slot, g.slots);
    m.when(&begin.go, |m| {
        m.connect(&f.busy, &k(&f.busy, 1, 1));
        m.connect(&f.slot, &begin.slot);
        m.connect(&f.block, &begin.block);
        for (s, slot) in slots.iter().enumerate() {
            m.when(&into.bit(s as u32), |m| {
                m.connect(&slot.valid, &zero(&slot.valid));
                m.connect(&slot.image, image);
                m.connect(&slot.block, &begin.block);
            });
        }
        let stride = k(image, block_bytes(p) as u64, 32);
        m.connect(
            &addr,
            &(image + &begin.block.zext(32).mul(&stride).trunc(32)),
        );
        m.connect(&hdr, &k(&hdr, 1, 1));
        for v in [&r, &c, &w, &issued, &got] {
            m.connect(v, &zero(v));
        }
    });
}

/// The two passes over the columns, right to left, every row's buffer read a cycle
/// ahead of its shift.
fn shifter(m: &mut ModuleBuilder, g: &Geometry, bufs: &[Mem], shift: &Shift) {
    let busy = m.reg("shift_busy", 1, 0u64);
    let slot = m.reg("shift_slot", g.sb, 0u64);
    let col = m.reg("shift_col", g.cb, 0u64);
    let pass = m.reg("shift_pass", 1, 0u64);
    let right = k(&col, g.cols as u64 - 1, g.cb);
    let at = g.addr(&slot, &col);
    let reads: Vec<Value> = bufs.iter().map(|b| m.read_sync(b, &at, &busy)).collect();
    let (shifting, pass_d) = (m.reg("cfg_shift_r", 1, 0u64), m.reg("cfg_pass_r", 1, 0u64));
    m.connect(&shifting, &busy);
    m.connect(&pass_d, &pass);
    let at_end = &(&busy & &col.eq(&k(&col, 0, g.cb))) & &pass;
    let done = m.reg("shift_last", 1, 0u64);
    m.connect(&done, &at_end);
    m.connect(&shift.done, &done);
    m.when(&busy, |m| {
        m.connect(&col, &(&col - &k(&col, 1, g.cb)));
        m.when(&col.eq(&k(&col, 0, g.cb)), |m| {
            m.connect(&col, &right);
            m.connect(&pass, &k(&pass, 1, 1));
            m.when(&pass, |m| m.connect(&busy, &k(&busy, 0, 1)));
        });
    });
    m.when(&shift.go, |m| {
        m.connect(&busy, &k(&busy, 1, 1));
        m.connect(&slot, &shift.slot);
        m.connect(&col, &right);
        m.connect(&pass, &k(&pass, 0, 1));
    });
    let out_shift = m.output("cfg_shift", 1);
    m.connect(&out_shift, &shifting);
    let out_pass = m.output("cfg_pass", 1);
    m.connect(&out_pass, &pass_d);
    let h = half_bits(g.channels);
    for (r, word) in reads.iter().enumerate() {
        let row = m.output(&format!("cfg_row{r}"), h);
        m.connect(
            &row,
            &pass_d.mux(&word.slice(2 * h - 1, h), &word.slice(h - 1, 0)),
        );
    }
}
