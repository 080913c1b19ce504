//! The miss status holding registers of a non-blocking D$ bank (seed 001, Table 3: "32
//! MSHRs, each holding up to 32 requests"; spec 001 section 1.2: a warp's requests to one
//! line merge in one MSHR), and the order of the bank's memory responses.
//!
//! An entry holds a missing line, the way its refill goes to, whether its refill read
//! was sent and has been written, and a FIFO of `targets` requests (the bank request's
//! fields, [`super::dcache::bank_request`]) replayed in order once the line is in.
//! Entries are registers; at most one is active a set (the bank's rule), so the victim
//! way of a miss is never another entry's.

use super::dcache::BLOCK_BITS;
use super::{cat_low_first, k, Geometry};
use crate::blocks::up_down;
use hdl::helpers::{lowest_one, onehot_decode, onehot_encode, onehot_mux};
use hdl::ir::addr_width;
use hdl::{ModuleBuilder, ResetValue, Value};

/// A request's fields in the bank's order: addr, op, data, mask, port, slot.
pub type Fields = Vec<Value>;

/// One entry.
pub struct Entry {
    pub valid: Value,
    /// The line address (`addr[31:5]`).
    pub line: Value,
    pub way: Value,
    /// Its refill read was sent.
    pub sent: Value,
    /// Its refill is in the arrays: its targets may replay.
    pub filled: Value,
    count: Value,
    head: Value,
    tail: Value,
    targets: Vec<Fields>,
}

/// The bank's MSHRs.
pub struct Mshrs {
    pub entries: Vec<Entry>,
    /// Requests an entry holds.
    depth: u32,
}

/// Widths of the bank request's fields, in order.
pub fn field_widths(g: &Geometry) -> [u32; 6] {
    [
        32,
        super::op::BITS,
        BLOCK_BITS,
        BLOCK_BITS / 8,
        g.port_bits,
        g.slot_bits,
    ]
}

impl Mshrs {
    pub fn new(m: &mut ModuleBuilder, g: &Geometry, (n, depth): (u32, u32)) -> Mshrs {
        let cw = addr_width(depth as u64 + 1);
        let pw = addr_width(depth as u64).max(1);
        let widths = field_widths(g);
        let entries = (0..n)
            .map(|e| {
                let r = |m: &mut ModuleBuilder, name: &str, w: u32| {
                    m.reg(&format!("mshr{e}_{name}"), w, ResetValue::None)
                };
                Entry {
                    valid: m.reg(&format!("mshr{e}_valid"), 1, false),
                    line: r(m, "line", 32 - g.offset_bits),
                    way: r(m, "way", g.way_w()),
                    sent: m.reg(&format!("mshr{e}_sent"), 1, false),
                    filled: m.reg(&format!("mshr{e}_filled"), 1, false),
                    count: m.reg(&format!("mshr{e}_count"), cw, 0u64),
                    head: m.reg(&format!("mshr{e}_head"), pw, 0u64),
                    tail: m.reg(&format!("mshr{e}_tail"), pw, 0u64),
                    targets: (0..depth)
                        .map(|t| {
                            widths
                                .iter()
                                .enumerate()
                                .map(|(f, &w)| r(m, &format!("t{t}_{f}"), w))
                                .collect()
                        })
                        .collect(),
                }
            })
            .collect();
        Mshrs { entries, depth }
    }

    fn each(&self, f: impl Fn(&Entry) -> Value) -> Value {
        cat_low_first(&self.entries.iter().map(f).collect::<Vec<_>>())
    }

    /// The entries that hold `line` (one-hot or none).
    pub fn holding(&self, line: &Value) -> Value {
        self.each(|e| &e.valid & &e.line.eq(line))
    }

    /// The entries active in `set` (the set field of a line address).
    pub fn in_set(&self, g: &Geometry, set: &Value) -> Value {
        self.each(|e| match g.set_bits {
            0 => e.valid.clone(),
            _ => &e.valid & &set_of_line(g, &e.line).eq(set),
        })
    }

    /// Some entry is active.
    pub fn any_valid(&self) -> Value {
        self.each(|e| e.valid.clone()).or_r()
    }

    /// The first free entry (one-hot), none when all are active.
    pub fn free(&self) -> Value {
        lowest_one(&!&self.each(|e| e.valid.clone()))
    }

    /// The entries (one-hot `sel`) have room for a request.
    pub fn room(&self, sel: &Value) -> Value {
        let depth = self.depth as u64;
        let rooms: Vec<Value> = self
            .entries
            .iter()
            .map(|e| e.count.lt(&k(&e.count, depth, e.count.width())))
            .collect();
        (&cat_low_first(&rooms) & sel).or_r()
    }

    /// The first filled entry with requests to replay (one-hot, none when none has).
    pub fn replayable(&self) -> Value {
        lowest_one(&self.each(|e| &e.filled & &e.count.ne(&k(&e.count, 0, e.count.width()))))
    }

    /// The head request of the one-hot `sel`'s entry.
    pub fn head_of(&self, sel: &Value) -> Fields {
        let heads: Vec<Fields> = self
            .entries
            .iter()
            .map(|e| {
                let at = onehot_decode(&e.head, self.depth);
                (0..e.targets[0].len())
                    .map(|f| {
                        let column: Vec<Value> = e.targets.iter().map(|t| t[f].clone()).collect();
                        onehot_mux(&at, &column)
                    })
                    .collect()
            })
            .collect();
        (0..heads[0].len())
            .map(|f| {
                let column: Vec<Value> = heads.iter().map(|h| h[f].clone()).collect();
                onehot_mux(sel, &column)
            })
            .collect()
    }

    /// The first entry whose refill read is still to send (one-hot or none).
    pub fn to_send(&self) -> Value {
        lowest_one(&self.each(|e| &e.valid & &!&e.sent))
    }

    /// The line and way of the one-hot `sel`'s entry.
    pub fn line_way(&self, sel: &Value) -> (Value, Value) {
        let lines: Vec<Value> = self.entries.iter().map(|e| e.line.clone()).collect();
        let ways: Vec<Value> = self.entries.iter().map(|e| e.way.clone()).collect();
        (onehot_mux(sel, &lines), onehot_mux(sel, &ways))
    }

    /// This cycle's changes: `alloc` takes entry `free` for `line` in `way` with `req` as
    /// its first request; `push` adds `req` to entry `at`; `pop` takes entry `replay`'s
    /// head (its entry ends when nothing is left); `sent` and `filled` (one-hot) mark
    /// refills sent and written.
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &self,
        m: &mut ModuleBuilder,
        (alloc, free, line, way): (&Value, &Value, &Value, &Value),
        (push, at, req): (&Value, &Value, &Fields),
        (pop, replay): (&Value, &Value),
        (sent, filled): (&Value, &Value),
    ) {
        for (i, e) in self.entries.iter().enumerate() {
            let i = i as u32;
            let new = alloc & &free.bit(i);
            let add = &(push & &at.bit(i)) | &new;
            let take = pop & &replay.bit(i);
            for (t, target) in e.targets.iter().enumerate() {
                let slot = e.tail.eq(&k(&e.tail, t as u64, e.tail.width()));
                let here = &(&(push & &at.bit(i)) & &slot) | &(&new & &k(&new, (t == 0) as u64, 1));
                m.when(&here, |m| {
                    for (reg, v) in target.iter().zip(req) {
                        m.connect(reg, v);
                    }
                });
            }
            let next = |p: &Value| wrap(p, self.depth);
            m.when(&add, |m| m.connect(&e.tail, &next(&e.tail)));
            m.when(&take, |m| m.connect(&e.head, &next(&e.head)));
            let count = up_down(&e.count, &add, &take);
            m.connect(&e.count, &count);
            m.when(&sent.bit(i), |m| m.connect(&e.sent, &k(&e.sent, 1, 1)));
            m.when(&filled.bit(i), |m| m.connect(&e.filled, &k(&e.sent, 1, 1)));
            let last = &take & &count.eq(&k(&count, 0, count.width()));
            m.when(&last, |m| {
                for bit in [&e.valid, &e.sent, &e.filled] {
                    m.connect(bit, &k(bit, 0, 1));
                }
            });
            m.when(&new, |m| {
                m.connect(&e.valid, &k(&new, 1, 1));
                m.connect(&e.line, line);
                m.connect(&e.way, way);
                m.connect(&e.sent, &k(&new, 0, 1));
                m.connect(&e.filled, &k(&new, 0, 1));
                m.connect(&e.head, &k(&e.head, 0, e.head.width()));
                m.connect(&e.tail, &k(&e.tail, 1 % self.depth as u64, e.tail.width()));
            });
        }
    }

    /// The index of one-hot `sel`.
    pub fn index(&self, sel: &Value) -> Value {
        match self.entries.len() {
            1 => k(sel, 0, 1),
            _ => onehot_encode(sel),
        }
    }
}

/// `p + 1` modulo `n` entries.
fn wrap(p: &Value, n: u32) -> Value {
    let w = p.width();
    let last = p.eq(&k(p, n as u64 - 1, w));
    hdl::mux(&last, &k(p, 0, w), &(p + &k(p, 1, w)))
}

/// The set field of a line address.
pub fn set_of_line(g: &Geometry, line: &Value) -> Value {
    match g.set_bits {
        0 => k(line, 0, 1),
        _ => line.slice(g.tag_lo - g.offset_bits - 1, g.bank_bits),
    }
}

/// The bank's memory responses come back in the order of its requests: a queue of
/// (write-back, entry) a request in flight, `n` deep.
pub struct Outstanding {
    count: Value,
    wb: Vec<Value>,
    idx: Vec<Value>,
}

impl Outstanding {
    pub fn new(m: &mut ModuleBuilder, n: u32, idx_w: u32) -> Outstanding {
        Outstanding {
            count: m.reg("out_count", addr_width(n as u64 + 1), 0u64),
            wb: (0..n)
                .map(|i| m.reg(&format!("out{i}_wb"), 1, ResetValue::None))
                .collect(),
            idx: (0..n)
                .map(|i| m.reg(&format!("out{i}_idx"), idx_w, ResetValue::None))
                .collect(),
        }
    }

    /// Room for another request.
    pub fn room(&self) -> Value {
        let c = &self.count;
        c.lt(&k(c, self.wb.len() as u64, c.width()))
    }

    pub fn empty(&self) -> Value {
        let c = &self.count;
        c.eq(&k(c, 0, c.width()))
    }

    /// The oldest request: a write-back, and its entry.
    pub fn head(&self) -> (Value, Value) {
        (self.wb[0].clone(), self.idx[0].clone())
    }

    /// `push` a request (`wb`, `idx`) sent, `pop` the oldest answered: a shift queue.
    pub fn update(
        &self,
        m: &mut ModuleBuilder,
        (push, wb, idx): (&Value, &Value, &Value),
        pop: &Value,
    ) {
        let n = self.wb.len();
        let c = &self.count;
        // Where the pushed request goes: the first free place after the shift.
        let at = mux_pos(c, pop);
        for i in 0..n {
            let here = push & &at.eq(&k(&at, i as u64, at.width()));
            let (wb_next, idx_next) = match i + 1 < n {
                true => (self.wb[i + 1].clone(), self.idx[i + 1].clone()),
                false => (self.wb[i].clone(), self.idx[i].clone()),
            };
            m.when(pop, |m| {
                m.connect(&self.wb[i], &wb_next);
                m.connect(&self.idx[i], &idx_next);
            });
            m.when(&here, |m| {
                m.connect(&self.wb[i], wb);
                m.connect(&self.idx[i], idx);
            });
        }
        m.connect(c, &up_down(c, push, pop));
    }
}

/// The count less one when popping: the push's place.
fn mux_pos(count: &Value, pop: &Value) -> Value {
    let w = count.width();
    hdl::mux(pop, &(count - &k(count, 1, w)), count)
}
