//! `Cache`: a blocking L1 cache (the I$ and the D$), write-through without write
//! allocation, with `sets` x `ways` lines of `line_bytes`.
//!
//! A request is looked up the cycle after it is accepted (tags and data come from
//! synchronous-read arrays, one per way); a read hit answers then, and another request
//! can be accepted in the same cycle, so hits stream at one per cycle. A read miss
//! refills the whole line with sequential doubleword reads (an invalid way first, else
//! round-robin) and answers from the refill. Writes update a hitting line and always go
//! to memory; they answer when memory does. The uncached region goes straight to memory.
//! `invalidate` clears every valid bit in one cycle (valid bits are registers).
//!
//! Ports: `cpu_req`/`cpu_resp` towards the core, `mem_req`/`mem_resp` towards memory
//! (the shapes of `bus.rs`), `invalidate`.

use super::bus::{mem_request, mem_response};
use super::params::CacheParams;
use crate::memory::{self, ArrayPorts};
use hdl::ir::addr_width;
use hdl::{cat, mux, Bits, Dir, HdlErrors, Module, ModuleBuilder, ResetValue, Value};
use std::rc::Rc;

/// `values[idx]` for `values` of one width: each bit position gathered across the
/// values and shifted down by `idx` (a chain of comparisons would nest as deep as there
/// are values, which Yosys refuses for a thousand sets).
fn select(idx: &Value, values: &[Value]) -> Value {
    let bits: Vec<Value> = (0..values[0].width())
        .rev()
        .map(|b| {
            let column: Vec<Value> = values.iter().rev().map(|v| v.bit(b)).collect();
            let refs: Vec<&Value> = column.iter().collect();
            cat(&refs).dshr(idx).bit(0)
        })
        .collect();
    let refs: Vec<&Value> = bits.iter().collect();
    cat(&refs)
}

pub fn cache(name: &str, p: &CacheParams) -> Result<Rc<Module>, HdlErrors> {
    let mut m = ModuleBuilder::new(name);
    let cpu_req = m.io("cpu_req", Dir::In, &mem_request(0));
    let cpu_resp = m.io("cpu_resp", Dir::Out, &mem_response(0));
    let mem_req = m.io("mem_req", Dir::Out, &mem_request(0));
    let mem_resp = m.io("mem_resp", Dir::In, &mem_response(0));
    let invalidate = m.input("invalidate", 1);

    let words = p.line_bytes / 8;
    // Field widths of the address (0 when there is a single set or word).
    let off_bits = p.line_bytes.trailing_zeros();
    let idx_bits = p.sets.trailing_zeros();
    let word_bits = words.trailing_zeros();
    let tag_lo = off_bits + idx_bits;
    let tag_bits = 32 - tag_lo;
    let way_bits = addr_width(p.ways as u64).max(1);
    let k = |v: u64, w: u32| Value::konst(&invalidate, Bits::from_u64(w, v));
    let set_of = |a: &Value| {
        if idx_bits == 0 {
            k(0, 1)
        } else {
            a.slice(tag_lo - 1, off_bits)
        }
    };
    let word_of = |a: &Value| {
        if word_bits == 0 {
            k(0, 1)
        } else {
            a.slice(off_bits - 1, 3)
        }
    };
    let set_w = idx_bits.max(1);
    let word_w = word_bits.max(1);

    // Stage 1: the request being looked up or served. Its fields are datapath registers
    // without reset: every use is gated by `s1_valid` (a lookup) or a state that only a
    // lookup enters, and `fire` writes them all with `s1_valid`.
    let s1_valid = m.reg("s1_valid", 1, false);
    let s1_addr = m.reg("s1_addr", 32, ResetValue::None);
    let s1_write = m.reg("s1_write", 1, ResetValue::None);
    let s1_data = m.reg("s1_data", 64, ResetValue::None);
    let s1_mask = m.reg("s1_mask", 8, ResetValue::None);
    let s1_size = m.reg("s1_size", 3, ResetValue::None);
    // 0 lookup, 1 refill, 2 single memory access, 3 answer from the refill.
    let state = m.reg("state", 2, 0u64);
    let st = |v: u64| state.eq(&k(v, 2));

    let req = cpu_req.bits();
    let fire = cpu_req.fire();
    let req_addr = req.get("addr").value().clone();
    let array_addr = |set: &Value, word: &Value| -> Value {
        match (idx_bits, word_bits) {
            (0, 0) => k(0, 1),
            (0, _) => word.clone(),
            (_, 0) => set.clone(),
            _ => cat(&[set, word]),
        }
    };
    let depth = (p.sets * words) as u64;

    // Arrays: per way a tag array and a data array, both read at acceptance, each with
    // one read and one write port, so the memory policy makes the large ones macros.
    let array = |m: &mut ModuleBuilder, name: String, depth: u64, width: u32| {
        let style = memory::style(depth, width, ArrayPorts::SYNC_1R1W, p.sram_threshold_bits);
        m.mem(&name, depth, width, style)
    };
    let tags: Vec<_> = (0..p.ways)
        .map(|w| array(&mut m, format!("tag{w}"), p.sets as u64, tag_bits))
        .collect();
    let datas: Vec<_> = (0..p.ways)
        .map(|w| array(&mut m, format!("data{w}"), depth, 64))
        .collect();
    let read_set = set_of(&req_addr);
    let read_index = array_addr(&read_set, &word_of(&req_addr));
    let tag_out: Vec<Value> = tags
        .iter()
        .map(|t| m.read_sync(t, &read_set.slice(set_w - 1, 0), &fire))
        .collect();
    let data_out: Vec<Value> = datas
        .iter()
        .map(|d| m.read_sync(d, &read_index, &fire))
        .collect();
    let valid: Vec<Value> = (0..p.sets)
        .map(|s| m.reg(&format!("valid{s}"), p.ways, 0u64))
        .collect();

    let s1_set = set_of(&s1_addr);
    let s1_tag = s1_addr.slice(31, tag_lo);
    let set_valid = select(&s1_set, &valid);
    let hits: Vec<Value> = (0..p.ways)
        .map(|w| &set_valid.bit(w) & &tag_out[w as usize].eq(&s1_tag))
        .collect();
    let hit = hits[1..].iter().fold(hits[0].clone(), |a, h| &a | h);
    let mut hit_data = data_out[0].clone();
    for w in 1..p.ways as usize {
        hit_data = mux(&hits[w], &data_out[w], &hit_data);
    }
    let addr64 = s1_addr.zext(64);
    let cacheable = if p.uncached_size == 0 {
        k(1, 1)
    } else {
        let lo = addr64.ge(&addr64.konst(Bits::from_u64(64, p.uncached_base)));
        let hi = addr64.lt(&addr64.konst(Bits::from_u64(64, p.uncached_base + p.uncached_size)));
        !&(&lo & &hi)
    };
    let lookup = &s1_valid & &st(0);
    let read_hit = &(&(&lookup & &!&s1_write) & &cacheable) & &hit;
    let read_miss = &(&(&lookup & &!&s1_write) & &cacheable) & &!&hit;
    let single = &lookup & &(&s1_write | &!&cacheable);

    // Refill bookkeeping.
    let victim = m.reg("victim", way_bits, 0u64);
    let round_robin = m.reg("round_robin", way_bits, 0u64);
    let sent = m.reg("refill_sent", word_w + 1, 0u64);
    let got = m.reg("refill_got", word_w + 1, 0u64);
    // The refill word answered in state 3, written during the refill: no reset.
    let captured = m.reg("captured", 64, ResetValue::None);
    let dropped = m.reg("refill_dropped", 1, false);
    let issued = m.reg("single_issued", 1, false);
    let mut first_invalid = k(0, way_bits);
    let mut any_invalid = k(0, 1);
    for w in (0..p.ways).rev() {
        let inv = !&set_valid.bit(w);
        first_invalid = mux(&inv, &k(w as u64, way_bits), &first_invalid);
        any_invalid = &any_invalid | &inv;
    }
    let last_way = k((p.ways - 1) as u64, way_bits);
    let rr_next = mux(
        &round_robin.eq(&last_way),
        &k(0, way_bits),
        &(&round_robin + &k(1, way_bits)),
    );

    // Memory side.
    let line_base = cat(&[&s1_addr.slice(31, off_bits), &k(0, off_bits)]);
    let refill_addr = &line_base + &cat(&[&sent.slice(word_w - 1, 0).zext(32 - 3), &k(0, 3)]);
    let refilling = st(1);
    let words_c = k(words as u64, word_w + 1);
    let mreq_valid = &(&refilling & &sent.lt(&words_c)) | &(&st(2) & &!&issued);
    m.connect(mem_req.valid(), &mreq_valid);
    let mb = mem_req.bits();
    m.connect(
        mb.get("addr").value(),
        &mux(&refilling, &refill_addr, &s1_addr),
    );
    m.connect(mb.get("write").value(), &(&st(2) & &s1_write));
    m.connect(mb.get("data").value(), &s1_data);
    m.connect(
        mb.get("mask").value(),
        &mux(&refilling, &k(0xff, 8), &s1_mask),
    );
    m.connect(mb.get("size").value(), &mux(&refilling, &k(3, 3), &s1_size));
    let mresp = mem_resp.valid().clone();
    let mdata = mem_resp.bits().get("data").value().clone();

    // CPU side: read hits answer from the arrays, single accesses when memory does,
    // refills from the captured word.
    let single_done = &st(2) & &mresp;
    m.connect(
        cpu_resp.valid(),
        &any(&[read_hit.clone(), single_done.clone(), st(3)]),
    );
    m.connect(
        cpu_resp.bits().get("data").value(),
        &mux(&read_hit, &hit_data, &mux(&st(3), &captured, &mdata)),
    );
    let finishing = any(&[read_hit.clone(), single_done.clone(), st(3)]);
    m.connect(cpu_req.ready(), &(&st(0) & &(&!&s1_valid | &read_hit)));

    // Stage-1 register.
    m.when(&finishing, |m| m.connect(&s1_valid, &k(0, 1)));
    m.when(&fire, |m| {
        m.connect(&s1_valid, &k(1, 1));
        for (r, f) in [
            (&s1_addr, "addr"),
            (&s1_write, "write"),
            (&s1_data, "data"),
            (&s1_mask, "mask"),
            (&s1_size, "size"),
        ] {
            m.connect(r, req.get(f).value());
        }
    });

    // Write hits update the line now (nothing reads the arrays until the write is done).
    let write_hit = &(&(&lookup & &s1_write) & &cacheable) & &hit;
    let s1_index = array_addr(&s1_set, &word_of(&s1_addr));

    m.when(&single, |m| {
        m.connect(&state, &k(2, 2));
        m.connect(&issued, &k(0, 1));
    });
    m.when(&(&st(2) & mem_req.fire()), |m| m.connect(&issued, &k(1, 1)));
    m.when(&single_done, |m| m.connect(&state, &k(0, 2)));

    let way_of_victim = mux(&any_invalid, &first_invalid, &round_robin);
    m.when(&read_miss, |m| {
        m.connect(&state, &k(1, 2));
        m.connect(&victim, &way_of_victim);
        m.when(&!&any_invalid, |m| m.connect(&round_robin, &rr_next));
        m.connect(&sent, &k(0, word_w + 1));
        m.connect(&got, &k(0, word_w + 1));
        m.connect(&dropped, &k(0, 1));
    });
    m.when(&(&refilling & mem_req.fire()), |m| {
        m.connect(&sent, &(&sent + &k(1, word_w + 1)))
    });
    let got_word = got.slice(word_w - 1, 0);
    let refill_index = array_addr(&s1_set, &got_word.slice(word_bits.max(1) - 1, 0));
    let refill_resp = &refilling & &mresp;
    // One write port per data array: a write hit (byte-masked) or a refill word (whole).
    // They never coincide: a write hit is a lookup, a refill response comes in state 1.
    let wr_index = mux(&write_hit, &s1_index, &refill_index);
    let wr_data = mux(&write_hit, &s1_data, &mdata);
    let wr_mask = mux(&write_hit, &s1_mask, &k(0xff, 8));
    for (w, d) in datas.iter().enumerate() {
        let mine = victim.eq(&k(w as u64, way_bits));
        let wen = &(&write_hit & &hits[w]) | &(&refill_resp & &mine);
        m.when(&wen, |m| m.write_masked(d, &wr_index, &wr_data, &wr_mask));
    }
    let wanted = if word_bits == 0 {
        k(1, 1)
    } else {
        got_word.eq(&word_of(&s1_addr))
    };
    m.when(&(&refill_resp & &wanted), |m| m.connect(&captured, &mdata));
    m.when(&refill_resp, |m| {
        m.connect(&got, &(&got + &k(1, word_w + 1)))
    });
    let last = &refill_resp & &got.eq(&k((words - 1) as u64, word_w + 1));
    m.when(&last, |m| {
        m.connect(&state, &k(3, 2));
        for (w, t) in tags.iter().enumerate() {
            let mine = victim.eq(&k(w as u64, way_bits));
            m.when(&mine, |m| m.write(t, &s1_set.slice(set_w - 1, 0), &s1_tag));
        }
    });
    m.when(&st(3), |m| m.connect(&state, &k(0, 2)));

    // Valid bits: the victim's goes off when its refill starts and on when it ends
    // (unless an invalidate came in between); invalidate clears them all.
    let victim_bit = |way: &Value| {
        (0..p.ways).fold(k(0, p.ways), |acc, w| {
            let one = k(1u64 << w, p.ways);
            mux(&way.eq(&k(w as u64, way_bits)), &one, &acc)
        })
    };
    for (s, v) in valid.iter().enumerate() {
        let this_set = s1_set.eq(&k(s as u64, set_w));
        m.when(&(&read_miss & &this_set), |m| {
            m.connect(v, &(v & &!&victim_bit(&way_of_victim)))
        });
        m.when(&(&(&last & &this_set) & &!&dropped), |m| {
            m.connect(v, &(v | &victim_bit(&victim)))
        });
        m.when(&invalidate, |m| m.connect(v, &k(0, p.ways)));
    }
    m.when(&invalidate, |m| m.connect(&dropped, &k(1, 1)));
    m.finish()
}

fn any(vs: &[Value]) -> Value {
    vs[1..].iter().fold(vs[0].clone(), |a, b| &a | b)
}
