//! The AVC and L1 pair (`generators::fgsimt::avc::controller`, seed 002 Algorithms 1
//! and 2) under Verilator in lockstep with the golden controller
//! (`verification::fgsimt::avc::controller`), from random initial states: random reads
//! and writes (affine of every stride, uniform, generic, nearly affine; dense, sparse,
//! single-thread masks) and flushes over blocks that collide, with a memory answering
//! after random delays and refusing requests at random. Every memory access the RTL
//! makes is the golden model's next one (a block read, or a masked write with the same
//! words), every read answers each thread's last stored word, the replay, conflict,
//! merge and line-eviction events match transaction by transaction, and the memory after
//! a final flush equals a flat one. Small caches (every eviction path taken often) and
//! the paper's configuration 2 (Table 3: 32 KB 4-way L1, 16 KB 2-way AVC); every shape
//! is lint clean.

use generators::fgsimt::avc::controller::controller;
use generators::fgsimt::avc::params::AvcParams as RtlParams;
use hdl::Design;
use std::collections::HashMap;
use verification::fgsimt::avc::controller::{AvcParams, Controller, Counters, MemOp};
use verification::rng::Rng;
use verification::verilator::{Model, Options};

mod avc_rig;
mod lint_rig;

use avc_rig::{mask, pack, small, unpack, vector};

/// The RTL's parameters of the golden model's shape.
fn geometry(p: &AvcParams) -> RtlParams {
    RtlParams {
        threads: p.threads,
        vectors_per_line: p.vectors_per_line,
        avc_sets: p.avc_sets,
        l1_sets: p.l1_sets,
        avc_ways: p.avc_ways,
        l1_ways: p.l1_ways,
        sram_threshold_bits: generators::memory::DEFAULT_SRAM_THRESHOLD_BITS,
    }
}

/// The test bench's side of the RTL: the memory, its delays, the events seen.
struct Bench {
    dut: Model,
    n: u32,
    memory: HashMap<u32, u32>,
    rng: Rng,
    /// A read being answered: its words and the cycles left.
    pending: Option<(Vec<u32>, u32)>,
    events: [u64; 4],
}

const EVENTS: [&str; 4] = ["ev_replay", "ev_conflict", "ev_merge", "ev_line_evict"];

impl Bench {
    fn poke(&mut self, port: &str, v: u64) {
        self.dut.poke_u64(port, v).unwrap();
    }
    fn peek(&mut self, port: &str) -> u64 {
        self.dut.peek_u64(port).unwrap()
    }

    /// One cycle: the memory side driven and checked against the golden `log`.
    fn cycle(&mut self, log: &mut std::collections::VecDeque<MemOp>, what: &str) {
        let ready = self.rng.chance(70);
        self.poke("mem_req_ready", ready as u64);
        let answer = matches!(self.pending, Some((_, 0)));
        self.poke("mem_resp_valid", answer as u64);
        if let Some((words, 0)) = &self.pending {
            let bits = pack(words);
            self.dut.poke("mem_resp_bits_data", &bits).unwrap();
        }
        if self.peek("mem_req_valid") == 1 && ready {
            let addr = self.peek("mem_req_bits_addr") as u32;
            let op = if self.peek("mem_req_bits_write") == 1 {
                let m = self.peek("mem_req_bits_mask") as u32;
                let data = unpack(&self.dut.peek("mem_req_bits_data").unwrap(), self.n);
                let data: Vec<u32> = (0..self.n as usize)
                    .map(|i| if m >> i & 1 == 1 { data[i] } else { 0 })
                    .collect();
                for i in (0..self.n).filter(|i| m >> i & 1 == 1) {
                    self.memory.insert(addr + 4 * i, data[i as usize]);
                }
                MemOp::Write {
                    addr,
                    mask: m,
                    data,
                }
            } else {
                assert!(self.pending.is_none(), "{what}: a second read in flight");
                let words = (0..self.n)
                    .map(|i| *self.memory.get(&(addr + 4 * i)).unwrap_or(&0))
                    .collect();
                self.pending = Some((words, 1 + self.rng.below(4) as u32));
                MemOp::Read { addr }
            };
            let want = log.pop_front();
            assert_eq!(Some(&op), want.as_ref(), "{what}: the RTL's memory access");
        }
        for (i, e) in EVENTS.iter().enumerate() {
            self.events[i] += self.peek(e);
        }
        self.dut.step();
        self.pending = match self.pending.take() {
            Some((_, 0)) => None,
            Some((w, d)) => Some((w, d - 1)),
            None => None,
        };
    }
}

fn deltas(before: &Counters, after: &Counters) -> [u64; 4] {
    [
        after.replays - before.replays,
        after.conflicts - before.conflicts,
        after.merges - before.merges,
        after.line_evictions - before.line_evictions,
    ]
}

/// `ops` random transactions on the RTL of `p` and the golden model side by side.
fn lockstep(p: AvcParams, blocks: u32, ops: u32, seed: u64) -> Counters {
    let top = controller(&geometry(&p)).unwrap();
    let mut dut = Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap();
    dut.restart(seed).unwrap();
    let n = p.threads;
    let mut b = Bench {
        dut,
        n,
        memory: HashMap::new(),
        rng: Rng::new(seed + 100),
        pending: None,
        events: [0; 4],
    };
    let mut golden = Controller::new(p);
    let mut rng = Rng::new(seed);
    for op in 0..=ops {
        let addr = rng.below(blocks as u64) as u32 * 4 * n;
        let (m, d) = (mask(&mut rng, n), vector(&mut rng, n));
        let kind = if op == ops {
            2
        } else if rng.below(50) == 0 {
            3
        } else {
            [0, 1, 1, 0, 0, 1, 2][rng.below(7) as usize]
        };
        let before = golden.counters.clone();
        let (want, what) = match kind {
            0 => (
                Some(golden.read(addr, m)),
                format!("op {op}: read {addr:#x} mask {m:#x}"),
            ),
            1 => {
                golden.write(addr, m, &d);
                (None, format!("op {op}: write {addr:#x} mask {m:#x} {d:x?}"))
            }
            2 => {
                golden.flush();
                (None, format!("op {op}: flush"))
            }
            _ => {
                golden.discard();
                (None, format!("op {op}: discard"))
            }
        };
        let mut log: std::collections::VecDeque<MemOp> = golden.log.drain(..).collect();
        let events = b.events;
        if kind == 3 {
            while b.peek("idle") == 0 {
                b.cycle(&mut log, &what);
            }
            b.poke("discard", 1);
            b.cycle(&mut log, &what);
            b.poke("discard", 0);
            assert!(log.is_empty(), "{what}: the RTL did not make {log:?}");
            continue;
        }
        if kind == 2 {
            b.poke("flush", 1);
        } else {
            b.poke("req_valid", 1);
            b.poke("req_bits_write", kind as u64);
            b.poke("req_bits_addr", addr as u64);
            b.poke("req_bits_mask", m as u64);
            b.dut.poke("req_bits_data", &pack(&d)).unwrap();
            while b.peek("req_ready") == 0 {
                b.cycle(&mut log, &what);
            }
            b.cycle(&mut log, &what);
            b.poke("req_valid", 0);
        }
        let mut cycles = 0;
        loop {
            let done = if kind == 2 { "flushed" } else { "resp_valid" };
            if b.peek(done) == 1 {
                if let Some(want) = &want {
                    let got = unpack(&b.dut.peek("resp_bits_data").unwrap(), n);
                    let got: Vec<u32> = (0..n as usize)
                        .map(|i| if m >> i & 1 == 1 { got[i] } else { 0 })
                        .collect();
                    assert_eq!(&got, want, "{what}");
                }
                b.cycle(&mut log, &what);
                break;
            }
            b.cycle(&mut log, &what);
            cycles += 1;
            assert!(cycles < 100_000, "{what}: no answer");
        }
        b.poke("flush", 0);
        assert!(log.is_empty(), "{what}: the RTL did not make {log:?}");
        let seen: Vec<u64> = (0..4).map(|i| b.events[i] - events[i]).collect();
        assert_eq!(seen, deltas(&before, &golden.counters), "{what}: events");
    }
    for (&a, &w) in &b.memory {
        assert_eq!(golden.memory_word(a), w, "{a:#x} after the flush");
    }
    golden.counters
}

#[test]
fn small_caches_in_lockstep() {
    for (i, (avc, l1)) in [(1, 1), (2, 2), (3, 2)].into_iter().enumerate() {
        let c = lockstep(small(avc, l1), 40, 4000, i as u64 + 1);
        assert!(c.replays > 0 && c.conflicts > 0 && c.merges > 0, "{c:?}");
        assert!(c.line_evictions > 0 && c.writebacks_affine > 0, "{c:?}");
        assert!(c.writebacks_generic > 0, "{c:?}");
    }
}

/// The ends of the parameters' ranges: one thread and two vectors a line, direct-mapped
/// both; four threads with eight ways each.
#[test]
fn extreme_shapes_in_lockstep() {
    let one = AvcParams {
        threads: 1,
        vectors_per_line: 2,
        avc_sets: 2,
        avc_ways: 1,
        l1_sets: 2,
        l1_ways: 1,
    };
    // One thread's words are always uniform: every one goes to the AVC.
    let c = lockstep(one, 24, 3000, 11);
    assert!(c.line_evictions > 0 && c.writebacks_affine > 0, "{c:?}");
    let wide = AvcParams {
        threads: 4,
        vectors_per_line: 8,
        avc_sets: 2,
        avc_ways: 8,
        l1_sets: 2,
        l1_ways: 8,
    };
    let c = lockstep(wide, 300, 3000, 12);
    assert!(c.line_evictions > 0 && c.conflicts > 0, "{c:?}");
}

#[test]
fn table_3_configuration_2_in_lockstep() {
    let c = lockstep(AvcParams::table3(2), 4096, 3000, 7);
    assert!(c.fills > 0 && c.writebacks_affine > 0, "{c:?}");
}

#[test]
fn every_shape_is_lint_clean() {
    let shapes = [
        small(1, 1),
        small(3, 2),
        AvcParams::table3(2),
        AvcParams::table3(3),
    ];
    let mut blocks: Vec<_> = shapes
        .iter()
        .map(|p| controller(&geometry(p)).unwrap())
        .collect();
    // The widest: 64 vectors a line, 256 sets, 8 ways each; and the narrowest.
    let widest = RtlParams {
        vectors_per_line: 64,
        avc_sets: 256,
        l1_sets: 256,
        avc_ways: 8,
        l1_ways: 8,
        ..RtlParams::default()
    };
    let narrowest = RtlParams {
        threads: 1,
        vectors_per_line: 2,
        avc_sets: 2,
        l1_sets: 2,
        avc_ways: 1,
        l1_ways: 1,
        ..RtlParams::default()
    };
    blocks.extend([widest, narrowest].iter().map(|p| controller(p).unwrap()));
    lint_rig::lint_blocks("fgsimt avc controller", &blocks);
}

#[test]
fn the_presets_are_table_3() {
    for config in 1..=3 {
        let path = format!(
            "{}/configs/avc-table3-{config}.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let preset: RtlParams = toml::from_str(&text).unwrap();
        assert_eq!(preset, geometry(&AvcParams::table3(config)), "{path}");
    }
}
