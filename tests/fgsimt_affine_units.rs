//! The affine mechanisms' CP blocks on the IR simulator, each against a plain Rust
//! statement of what it must do (their use in the engine is proven by the lockstep of
//! `tests/fgsimt_engine.rs`):
//! - the ASRF (`cp/asrf.rs`), of one bank and of four (warp contexts): random warp
//!   starts, writes and reads on its four ports against a map of (ok, base, stride) per
//!   register: a warp's start gives the ABI's values to its context's bank (sp compact
//!   only when told so), x0 is always the uniform 0, f registers keep no stride;
//! - the shared-load unit (`cp/shared_load.rs`): every load width's extension from the
//!   port's aligned word, the value arriving with the destination it was started with,
//!   and a load after a store held until the lanes and the SMU are idle;
//! - its shared load cache (`cp/shared_load_cache.rs`) under random loads, snooped
//!   stores and kernel ends, against a memory: every load returns the memory's word,
//!   and it asks the port exactly when a FIFO of the cache's size, whose words stores,
//!   kernel ends and uncached addresses leave out, does not hold the word.

use generators::fgsimt::cp::asrf::{asrf, ENTRIES, READS};
use generators::fgsimt::cp::shared_load::{shared_load, TAG};
use generators::fgsimt::cp::shared_load_cache::SharedLoadCacheParams;
use hdl::sim::Sim;
use hdl::Design;
use std::collections::HashMap;
use verification::rng::Rng;

fn poke(sim: &mut Sim, port: &str, v: u64) {
    sim.poke_u64(port, v)
        .unwrap_or_else(|e| panic!("{port}: {e}"));
}

fn peek(sim: &mut Sim, port: &str) -> u64 {
    sim.peek_u64(port).unwrap_or_else(|e| panic!("{port}: {e}"))
}

/// An ASRF entry: ok, base, stride (16 bits).
type Entry = (bool, u32, u16);

/// What a warp's start leaves in register `r`.
fn initial(r: u64, sp: Entry, gp: u32, tp: u32) -> Entry {
    match r {
        2 => sp,
        3 => (true, gp, 0),
        4 => (true, tp, 0),
        _ => (true, 0, 0),
    }
}

#[test]
fn the_asrf_is_a_map_of_compact_values() {
    for contexts in [1, 4] {
        asrf_against_a_map(contexts);
    }
}

/// The ASRF of `contexts` banks against a map per context: each cycle a random context
/// may start (its bank takes a warp's initial values) while another bank is written.
fn asrf_against_a_map(contexts: u32) {
    let mut sim = Sim::new(&Design::new(&asrf(contexts).unwrap()));
    let mut rng = Rng::new(18 + contexts as u64);
    poke(&mut sim, "reset", 1);
    sim.step();
    poke(&mut sim, "reset", 0);
    let regs = (ENTRIES * contexts) as u64;
    let mut model: Vec<Entry> = vec![(false, 0, 0); regs as usize];
    let mut started = vec![false; contexts as usize];
    for cycle in 0..20_000 / contexts {
        let unstarted = started.iter().position(|s| !s);
        let start = unstarted.is_some() || rng.chance(2);
        let at = unstarted.unwrap_or(rng.below(contexts as u64) as usize);
        poke(&mut sim, "start", start as u64);
        if contexts > 1 {
            poke(&mut sim, "start_ctx", at as u64);
        }
        let sp = (rng.chance(70), rng.next_u64() as u32, rng.next_u64() as u16);
        let (gp, tp) = (rng.next_u64() as u32, rng.next_u64() as u32);
        for (port, v) in [
            ("sp_ok", sp.0 as u64),
            ("sp_base", sp.1 as u64),
            ("sp_stride", sp.2 as u64),
            ("gp", gp as u64),
            ("tp", tp as u64),
        ] {
            poke(&mut sim, port, v);
        }
        let w = (
            rng.below(regs),
            (rng.chance(50), rng.next_u64() as u32, rng.next_u64() as u16),
        );
        // The engine never writes a bank as a warp starts in it.
        let bank = (w.0 / ENTRIES as u64) as usize;
        let write = started[bank] && !(start && bank == at) && rng.chance(60);
        for (port, v) in [
            ("w_en", write as u64),
            ("w_reg", w.0),
            ("w_ok", w.1 .0 as u64),
            ("w_base", w.1 .1 as u64),
            ("w_stride", w.1 .2 as u64),
        ] {
            poke(&mut sim, port, v);
        }
        for i in 0..READS {
            let r = rng.below(regs);
            if !started[(r / ENTRIES as u64) as usize] {
                continue;
            }
            poke(&mut sim, &format!("r{i}_reg"), r);
            let got = (
                peek(&mut sim, &format!("r{i}_ok")) == 1,
                peek(&mut sim, &format!("r{i}_base")) as u32,
                peek(&mut sim, &format!("r{i}_stride")) as u16,
            );
            let want = model[r as usize];
            // A generic entry's base and stride mean nothing.
            let same = got.0 == want.0 && (!want.0 || got == want);
            assert!(
                same,
                "{contexts} contexts, cycle {cycle}: read port {i} register {r}: {got:?}, want {want:?}"
            );
        }
        sim.step();
        let local = w.0 % ENTRIES as u64;
        if write && local != 0 {
            let stride = if local < 32 { w.1 .2 } else { 0 };
            model[w.0 as usize] = (w.1 .0, w.1 .1, stride);
        }
        if start {
            started[at] = true;
            let bank = &mut model[at * ENTRIES as usize..][..ENTRIES as usize];
            for (r, e) in bank.iter_mut().enumerate() {
                *e = initial(r as u64, sp, gp, tp);
            }
        }
    }
}

/// One shared load through the unit: `funct3` at `addr` of the word `word`; returns the
/// value and the destination it arrived with, and the cycles the request waited.
fn one_load(
    sim: &mut Sim,
    (funct3, addr, word, rd): (u64, u64, u64, u64),
    idle_after: u64,
) -> (u64, u64, u64) {
    poke(sim, "go", 1);
    poke(sim, "addr", addr);
    poke(sim, "funct3", funct3);
    poke(sim, "rd", rd);
    sim.step();
    poke(sim, "go", 0);
    let mut waited = 0;
    loop {
        poke(sim, "exec_idle", (waited >= idle_after) as u64);
        poke(sim, "smu_idle", (waited >= idle_after) as u64);
        poke(sim, "req_ready", 1);
        if peek(sim, "req_valid") == 1 {
            assert_eq!(peek(sim, "req_bits_addr"), addr);
            assert_eq!(peek(sim, "req_bits_tag"), TAG);
            assert_eq!(peek(sim, "req_bits_size"), funct3 & 3);
            sim.step();
            break;
        }
        sim.step();
        waited += 1;
        assert!(waited < 100, "the request never left");
    }
    poke(sim, "req_ready", 0);
    poke(sim, "resp_valid", 1);
    poke(sim, "resp_bits_data", word);
    poke(sim, "resp_bits_tag", TAG);
    assert_eq!(peek(sim, "done"), 1);
    assert_eq!(peek(sim, "busy"), 1);
    let out = (peek(sim, "data"), peek(sim, "rd_out"), waited);
    sim.step();
    poke(sim, "resp_valid", 0);
    assert_eq!(peek(sim, "busy"), 0);
    out
}

#[test]
fn shared_loads_extend_and_wait_for_earlier_stores() {
    let mut sim = Sim::new(&Design::new(&shared_load(&NO_CACHE, 6).unwrap()));
    let mut rng = Rng::new(7);
    poke(&mut sim, "reset", 1);
    sim.step();
    poke(&mut sim, "reset", 0);
    poke(&mut sim, "store_sent", 0);
    for _ in 0..2000 {
        let word = rng.next_u64() as u32;
        let funct3 = [0u64, 1, 2, 4, 5][rng.below(5) as usize];
        let bytes = 1u64 << (funct3 & 3);
        let offset = rng.below(4 / bytes) * bytes;
        let addr = (rng.next_u64() & 0xffff_fff0) + offset;
        let shifted = word >> (offset * 8);
        let want = match funct3 {
            0 => shifted as u8 as i8 as i32 as u32,
            1 => shifted as u16 as i16 as i32 as u32,
            4 => shifted as u8 as u32,
            5 => shifted as u16 as u32,
            _ => shifted,
        };
        // A store sent before the load: it must wait until the lanes and SMU are idle.
        let store = rng.chance(30);
        let idle_after = if store { 1 + rng.below(5) } else { 0 };
        poke(&mut sim, "exec_idle", 0);
        poke(&mut sim, "smu_idle", 0);
        if store {
            poke(&mut sim, "store_sent", 1);
            sim.step();
            poke(&mut sim, "store_sent", 0);
        }
        let rd = 1 + rng.below(63);
        let (got, got_rd, waited) = one_load(&mut sim, (funct3, addr, word as u64, rd), idle_after);
        assert_eq!(
            got as u32, want,
            "funct3 {funct3} at {addr:#x} of {word:#x}"
        );
        assert_eq!(got_rd, rd);
        // The dirty mark clears at the edge of the first idle cycle.
        let wait = if store { idle_after + 1 } else { 0 };
        assert_eq!(waited, wait, "waited for the lanes and SMU after a store");
    }
}

const NO_CACHE: SharedLoadCacheParams = SharedLoadCacheParams {
    entries: 0,
    lanes: 2,
    uncached_base: 0x8000_0000,
    uncached_size: 0x1000,
};

/// The reference cache: the words a FIFO of `entries` holds (oldest first, `None` where
/// a store or a kernel end dropped one; a fill takes the oldest place).
struct Fifo {
    slots: Vec<Option<u32>>,
    next: usize,
}

impl Fifo {
    fn holds(&self, word: u32) -> bool {
        self.slots.contains(&Some(word))
    }
    fn drop_word(&mut self, word: u32) {
        self.slots
            .iter_mut()
            .filter(|s| **s == Some(word))
            .for_each(|s| *s = None);
    }
    fn fill(&mut self, word: u32) {
        self.slots[self.next] = Some(word);
        self.next = (self.next + 1) % self.slots.len();
    }
}

#[test]
fn the_shared_load_cache_answers_repeats_and_never_a_stale_word() {
    let c = SharedLoadCacheParams {
        entries: 4,
        ..NO_CACHE
    };
    let mut sim = Sim::new(&Design::new(&shared_load(&c, 6).unwrap()));
    let mut rng = Rng::new(3);
    poke(&mut sim, "reset", 1);
    sim.step();
    poke(&mut sim, "reset", 0);
    // Eight cached words and two in the uncached page.
    let pool: Vec<u32> = (0..8u32)
        .map(|i| 0x1000 + i * 0x40)
        .chain([0x8000_0000, 0x8000_0ffc])
        .collect();
    let mut memory: HashMap<u32, u32> = HashMap::new();
    let mut fifo = Fifo {
        slots: vec![None; c.entries as usize],
        next: 0,
    };
    let (mut hits, mut misses, mut dirty) = (0, 0, false);
    for _ in 0..4000 {
        for port in ["go", "store_sent", "flush", "snoop_write", "resp_valid"] {
            poke(&mut sim, port, 0);
        }
        poke(&mut sim, "exec_idle", !dirty as u64);
        poke(&mut sim, "smu_idle", !dirty as u64);
        match rng.below(100) {
            // A kernel ends: the cache empties.
            0..=2 => {
                poke(&mut sim, "flush", 1);
                fifo.slots.iter_mut().for_each(|s| *s = None);
                sim.step();
            }
            // A store from the lanes: sent to the SIU, then its slot enters the SMU with
            // one lane writing a pool word and the other a word nobody loads.
            3..=32 => {
                poke(&mut sim, "store_sent", 1);
                poke(&mut sim, "exec_idle", 0);
                poke(&mut sim, "smu_idle", 0);
                sim.step();
                poke(&mut sim, "store_sent", 0);
                let word = pool[rng.below(pool.len() as u64) as usize];
                let value = rng.next_u64() as u32;
                memory.insert(word, value);
                fifo.drop_word(word >> 2);
                let lanes = [word >> 2, 0x3fff_0000 + rng.below(16) as u32];
                let write = 1 + rng.below(3);
                if write & 2 != 0 {
                    fifo.drop_word(lanes[1]);
                }
                poke(&mut sim, "snoop_write", write | 1);
                poke(&mut sim, "snoop_word_0", lanes[0] as u64);
                poke(&mut sim, "snoop_word_1", lanes[1] as u64);
                sim.step();
                dirty = true;
            }
            _ => {
                let word = pool[rng.below(pool.len() as u64) as usize];
                let want = *memory.get(&word).unwrap_or(&0);
                let expect_hit = fifo.holds(word >> 2);
                let asked = cached_load(&mut sim, &mut rng, (word, want), &mut dirty);
                assert_eq!(asked, !expect_hit, "a load of {word:#x} asked the port");
                let cacheable = word < 0x8000_0000;
                if asked && cacheable {
                    fifo.fill(word >> 2);
                }
                if asked {
                    misses += 1;
                } else {
                    hits += 1;
                }
            }
        }
    }
    assert!(hits > 500 && misses > 500, "{hits} hits, {misses} misses");
}

/// One word load of `word` whose memory holds `want`: idle comes back a few cycles after
/// a store (`dirty`), the port answers after 0-3 cycles. Checks the value; returns
/// whether the load asked the port.
fn cached_load(sim: &mut Sim, rng: &mut Rng, (word, want): (u32, u32), dirty: &mut bool) -> bool {
    poke(sim, "go", 1);
    poke(sim, "addr", word as u64);
    poke(sim, "funct3", 2);
    poke(sim, "rd", 5);
    sim.step();
    poke(sim, "go", 0);
    poke(sim, "snoop_write", 0);
    let mut asked = false;
    let mut answer_in: Option<u64> = None;
    for cycle in 0..100 {
        if *dirty && cycle == 2 {
            *dirty = false;
        }
        poke(sim, "exec_idle", !*dirty as u64);
        poke(sim, "smu_idle", !*dirty as u64);
        poke(sim, "req_ready", 1);
        poke(sim, "resp_valid", (answer_in == Some(0)) as u64);
        poke(sim, "resp_bits_data", want as u64);
        poke(sim, "resp_bits_tag", TAG);
        if peek(sim, "done") == 1 {
            assert_eq!(peek(sim, "data") as u32, want, "load of {word:#x}");
            assert_eq!(peek(sim, "rd_out"), 5);
            sim.step();
            poke(sim, "resp_valid", 0);
            assert_eq!(peek(sim, "busy"), 0);
            return asked;
        }
        if peek(sim, "req_valid") == 1 {
            assert!(!asked, "one request a load");
            assert_eq!(peek(sim, "req_bits_addr"), word as u64);
            asked = true;
            answer_in = Some(rng.below(4));
        } else if let Some(n) = answer_in {
            answer_in = Some(n.saturating_sub(1));
        }
        sim.step();
    }
    panic!("the load of {word:#x} never answered");
}
