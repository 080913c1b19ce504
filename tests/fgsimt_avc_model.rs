//! The AVC and L1 pair's golden controller (`verification::fgsimt::avc::controller`,
//! seed 002 Algorithms 1 and 2) on spec 002 section 9's directed traces, counter by
//! counter:
//! - (a) an affine store then a load with the same mask: an AVC hit, no L1 line;
//! - (b) a load of more threads than stored: one hit and exactly one replay;
//! - (c) disjoint stores of the same (base, stride): valid masks merge, no write-back;
//! - (d) a different (base, stride) leaving old threads uncovered: a conflict, one
//!   write-back of the old threads;
//! - (e) one covering every old thread: overwritten, no write-back;
//! - (f) affine and generic stores to one block: exclusive, merged on the way out;
//! - (g) a read fill conflicting with cached words (case 2);
//! - (h) an AVC line eviction writing back 16 vectors, and a direct-mapped AVC making
//!   more traffic than a 2-way one on a conflicting pattern.
//!
//! And its transparency: random stores and loads (affine of every stride, uniform,
//! generic, nearly affine; dense, sparse, single-thread masks) over blocks that collide
//! in small caches and in the paper's Table 3 configurations, against a flat memory:
//! every load returns each thread's last stored word, no word is ever in both caches,
//! and the memory after a flush equals the flat one.

use std::collections::HashMap;
use verification::fgsimt::avc::controller::{AvcParams, Controller};
use verification::fgsimt::avc::private::replay_program;
use verification::rng::Rng;

mod avc_rig;

use avc_rig::{mask, small, vector};

fn affine(n: u32, base: u32, sigma: u32) -> Vec<u32> {
    (0..n).map(|i| base.wrapping_add(i << sigma)).collect()
}

fn masked(data: &[u32], mask: u32) -> Vec<u32> {
    (0..data.len())
        .map(|i| if mask >> i & 1 == 1 { data[i] } else { 0 })
        .collect()
}

#[test]
fn a_store_then_a_load_hits_the_avc() {
    let mut c = Controller::new(small(2, 2));
    let d = affine(8, 0x100, 2);
    c.write(0x40, 0xff, &d);
    assert_eq!(c.read(0x40, 0xff), d);
    assert_eq!(c.held(0x40), (0xff, 0));
    assert_eq!((c.counters.fills, c.counters.replays), (0, 0));
    assert_eq!(c.counters.classes, [0, 0, 2, 0]);
}

#[test]
fn a_wider_load_replays_once() {
    let mut c = Controller::new(small(2, 2));
    let d = affine(8, 0x100, 2);
    c.write(0x40, 0x0f, &d);
    let got = c.read(0x40, 0xff);
    assert_eq!(got, masked(&d, 0x0f), "threads 4-7 read the memory's zeros");
    assert_eq!((c.counters.replays, c.counters.fills), (1, 1));
    assert!(c.check_exclusive().is_ok());
}

#[test]
fn disjoint_stores_of_one_vector_merge() {
    let mut c = Controller::new(small(2, 2));
    let d = affine(8, 0x100, 2);
    c.write(0x40, 0x0f, &d);
    c.write(0x40, 0xf0, &d);
    assert_eq!(c.held(0x40), (0xff, 0));
    assert_eq!(c.counters.merges, 1);
    assert_eq!(
        c.counters.writebacks_affine + c.counters.writebacks_generic,
        0
    );
    assert_eq!(c.read(0x40, 0xff), d);
}

#[test]
fn a_conflict_writes_the_old_threads_back() {
    let mut c = Controller::new(small(2, 2));
    let (old, new) = (affine(8, 0x100, 2), affine(8, 0x800, 3));
    c.write(0x40, 0xff, &old);
    c.write(0x40, 0x0f, &new);
    assert_eq!(c.counters.conflicts, 1);
    assert_eq!(c.counters.writebacks_affine, 1);
    assert_eq!(c.held(0x40), (0x0f, 0));
    for i in 4..8 {
        assert_eq!(c.memory_word(0x40 + 4 * i), old[i as usize]);
    }
    let mut want = new[..4].to_vec();
    want.extend(&old[4..]);
    assert_eq!(c.read(0x40, 0xff), want);
}

#[test]
fn a_covering_store_overwrites_without_a_write_back() {
    let mut c = Controller::new(small(2, 2));
    c.write(0x40, 0x0f, &affine(8, 0x100, 2));
    c.write(0x40, 0xff, &affine(8, 0x800, 3));
    assert_eq!(c.counters.conflicts, 0);
    assert_eq!(
        c.counters.writebacks_affine + c.counters.writebacks_generic,
        0
    );
    c.flush();
    assert_eq!(c.counters.writebacks_affine, 1);
    assert_eq!(c.memory_word(0x40 + 4 * 5), 0x800 + (5 << 3));
}

#[test]
fn affine_and_generic_stores_stay_exclusive_and_merge_on_eviction() {
    let mut c = Controller::new(small(2, 2));
    let d = affine(8, 0x100, 2);
    c.write(0x40, 0xff, &d);
    let generic = [7, 1, 9, 4, 4, 2, 8, 3];
    c.write(0x40, 0b0110_0000, &generic);
    assert_eq!(c.held(0x40), (0b1001_1111, 0b0110_0000));
    assert!(c.check_exclusive().is_ok());
    c.flush();
    let want: Vec<u32> = (0..8)
        .map(|i| {
            if (5..7).contains(&i) {
                generic[i]
            } else {
                d[i]
            }
        })
        .collect();
    let got: Vec<u32> = (0..8).map(|i| c.memory_word(0x40 + 4 * i as u32)).collect();
    assert_eq!(got, want);
    assert_eq!(c.counters.writebacks_affine, 1, "one merged write-back");
}

#[test]
fn a_read_fill_conflicting_with_cached_words_evicts_them() {
    let mut c = Controller::new(small(2, 2));
    // The memory holds the uniform 5 in threads 4-7 (stored, then flushed).
    c.write(0x40, 0xf0, &[5; 8]);
    c.flush();
    // Threads 0-3 cached as an affine vector, then threads 4-7 read: the fill encodes
    // to (5, uniform), a different vector.
    c.write(0x40, 0x0f, &affine(8, 0x100, 2));
    let fills = c.counters.fills;
    assert_eq!(c.read(0x40, 0xf0), masked(&[5; 8], 0xf0));
    assert_eq!(c.counters.fills, fills + 1);
    assert_eq!(c.counters.conflicts, 1);
    assert_eq!(c.held(0x40), (0xf0, 0));
    assert_eq!(
        c.memory_word(0x40 + 4),
        0x104,
        "the evicted threads were written back"
    );
}

#[test]
fn an_avc_line_eviction_writes_back_its_sixteen_vectors() {
    let mut p = AvcParams::table3(1);
    p.avc_sets = 1;
    let mut c = Controller::new(p);
    // Sixteen blocks of one AVC line (2 KB), then a block of another line.
    for k in 0..16 {
        c.write(128 * k, u32::MAX, &affine(32, 0x1000 * k, 2));
    }
    c.write(2048, u32::MAX, &affine(32, 0, 0));
    assert_eq!(c.counters.line_evictions, 1);
    assert_eq!(c.counters.writebacks_affine, 16);
    assert_eq!(c.memory_word(128 * 3 + 4 * 7), 0x3000 + 28);
}

#[test]
fn a_direct_mapped_avc_makes_more_traffic_on_conflicts() {
    let traffic = |avc_ways| {
        let mut c = Controller::new(small(avc_ways, 2));
        // Two lines of the same set (4 vectors a line, 2 sets: lines 0 and 2).
        for round in 0..20 {
            for addr in [0x000, 0x100] {
                c.write(addr, 0xff, &affine(8, round * 64, 2));
            }
        }
        c.counters.writeback_bytes + c.counters.fill_bytes
    };
    let (direct, two_way) = (traffic(1), traffic(2));
    assert!(
        direct > two_way,
        "direct-mapped {direct} bytes, 2-way {two_way}"
    );
    assert_eq!(two_way, 0);
}

/// `ops` random transactions over `blocks` blocks: every load against the flat memory,
/// exclusivity after each, the memory after a final flush.
fn transparent(p: AvcParams, blocks: u32, ops: u32, seed: u64) -> Controller {
    let mut c = Controller::new(p);
    let mut rng = Rng::new(seed);
    let mut flat: HashMap<u32, u32> = HashMap::new();
    let n = p.threads;
    for op in 0..ops {
        let addr = rng.below(blocks as u64) as u32 * 4 * n;
        let m = mask(&mut rng, n);
        if rng.chance(50) {
            let d = vector(&mut rng, n);
            c.write(addr, m, &d);
            for i in (0..n).filter(|i| m >> i & 1 == 1) {
                flat.insert(addr + 4 * i, d[i as usize]);
            }
        } else if rng.chance(98) {
            let got = c.read(addr, m);
            for i in 0..n {
                let want = if m >> i & 1 == 1 {
                    *flat.get(&(addr + 4 * i)).unwrap_or(&0)
                } else {
                    0
                };
                assert_eq!(
                    got[i as usize], want,
                    "op {op}: {addr:#x} thread {i}, mask {m:#x}"
                );
            }
        } else {
            c.flush();
        }
        if let Err(e) = c.check_exclusive() {
            panic!("op {op}: {e}");
        }
    }
    c.flush();
    for (&addr, &want) in &flat {
        assert_eq!(c.memory_word(addr), want, "{addr:#x} after the flush");
    }
    c
}

#[test]
fn random_traffic_is_transparent_in_small_caches() {
    for (ways, seed) in [(0, 1), (1, 2), (2, 3), (3, 4)] {
        let c = transparent(small(ways, 2), 40, 30_000, seed);
        let k = &c.counters;
        if ways > 0 {
            assert!(k.replays > 0 && k.conflicts > 0 && k.merges > 0, "{k:?}");
            assert!(k.line_evictions > 0 && k.writebacks_affine > 0, "{k:?}");
        }
        assert!(k.writebacks_generic > 0 && k.fills > 0, "{k:?}");
    }
}

#[test]
fn random_traffic_is_transparent_in_the_table_3_configurations() {
    for config in 0..=3 {
        // 64 sets: blocks over 1 MB, so that lines collide.
        let c = transparent(AvcParams::table3(config), 8192, 20_000, 10 + config as u64);
        assert!(c.counters.fills > 0, "{:?}", c.counters);
    }
}

/// Two kernels built with 18 registers taken from GCC (so they spill, as the paper's
/// register limits make them), their private accesses replayed through the
/// controllers of Table 3's four configurations: every word a thread reads back after
/// writing it in the launch is the ISS's value, in each configuration.
#[test]
fn spilling_kernels_read_back_their_words_through_every_configuration() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let flags = verification::fgsimt::avc::private::register_limit_flags();
    let configs: Vec<AvcParams> = (0..=3).map(AvcParams::table3).collect();
    for name in ["strsearch", "viterbi"] {
        let elf = dir.path().join(format!("{name}.elf"));
        let src = root.join(format!("kernels/{name}.c"));
        verification::kernels::build_program_with(&[src], &elf, (&[], &[]), &flags).unwrap();
        let program = verification::elf::load_file(&elf).unwrap();
        let replay =
            replay_program(&program, 32, &configs).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            replay.checked > 10_000,
            "{name}: {} words checked",
            replay.checked
        );
        let classes = replay.counters()[0].classes;
        assert!(
            classes.iter().all(|&c| c > 0),
            "{name}: classes {classes:?}"
        );
    }
}
