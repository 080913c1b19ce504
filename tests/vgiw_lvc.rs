//! The VGIW live value cache's RTL (`generators::vgiw::lvc`, seed 004 section 3.4: the
//! FG-SIMT banked D$ behind an ⟨LVID, TID⟩ address former an LVU) in the IR simulator
//! from random initial state, over the memory model at latency 1 and at 20 with jitter
//! and stalls: random live value loads and stores on every LVU port at once, in tiles of
//! changing size and base, with a cache far smaller than a tile's live values so that
//! lines are evicted and refilled all the time. Each port owns the threads congruent to
//! its index (the fabric never has two LVUs race on one thread's live value); every load
//! must return what the tile last stored to that ⟨LVID, TID⟩, every response comes back
//! in request order with its tag. Lint clean at the presets and at one LVU, one bank.

mod l1_rig;
mod lint_rig;

use generators::vgiw::lvc::{cache_params, lvc};
use generators::vgiw::params::VgiwParams;
use hdl::sim::{Init, Sim};
use hdl::Design;
use l1_rig::Stress;
use std::collections::{HashMap, VecDeque};
use verification::rng::Rng;

/// Live values a tile uses.
const LVIDS: u32 = 6;

/// Accesses a tile's ports make.
const TILE_ACCESSES: u32 = 500;

struct Port {
    /// The request on offer: store, lvid, thread (tile-relative), data, tag.
    offer: Option<(bool, u32, u32, u32, u64)>,
    /// The ⟨LVID, thread⟩ pairs it stored this tile.
    stored: Vec<(u32, u32)>,
    /// Responses due, in order: tag and, for a load, the value.
    due: VecDeque<(u64, Option<u32>)>,
}

fn poke(sim: &mut Sim, port: &str, v: u64) {
    sim.poke_u64(port, v).unwrap();
}

fn peek(sim: &mut Sim, port: &str) -> u64 {
    sim.peek_u64(port).unwrap()
}

fn run(p: &VgiwParams, stress: Stress, seed: u64) {
    let mut sim = Sim::with_init(&Design::new(&lvc(p).unwrap()), Init::Random { seed });
    let mut mem = l1_rig::memory(&cache_params(p), stress, seed);
    let mut rng = Rng::new(seed);
    let lvus = p.lvus as usize;
    let tag_mask = (1u64 << p.layout().vc_bits) - 1;
    poke(&mut sim, "reset", 1);
    sim.step();
    poke(&mut sim, "reset", 0);
    poke(&mut sim, "base", 0x2000_0000);
    let (mut loads, mut stores) = (0, 0);
    for tile in 0..4u32 {
        let threads = [256, 64, 200, 1000][tile as usize];
        let base = 0x1_0000 * tile + [0, 6400, 64, 65_000][tile as usize];
        poke(&mut sim, "tile_base", base as u64);
        poke(&mut sim, "tile_threads", threads as u64);
        let mut values: HashMap<(u32, u32), u32> = HashMap::new();
        let mut ports: Vec<Port> = (0..lvus)
            .map(|_| Port {
                offer: None,
                stored: Vec::new(),
                due: VecDeque::new(),
            })
            .collect();
        let mut issued = 0;
        for cycle in 0.. {
            let issuing = issued < TILE_ACCESSES;
            if !issuing && ports.iter().all(|p| p.offer.is_none() && p.due.is_empty()) {
                break;
            }
            assert!(cycle < 200_000, "tile {tile}: responses never came");
            for (i, port) in ports.iter_mut().enumerate() {
                if port.offer.is_none() && issuing && rng.chance(60) {
                    let mine = (threads as usize - i).div_ceil(lvus) as u32;
                    let t = i as u32 + lvus as u32 * rng.range(0, mine.max(1) - 1);
                    let fresh = (rng.range(0, LVIDS - 1), t);
                    let reload = !port.stored.is_empty() && rng.chance(50);
                    let (lvid, t) = match reload {
                        true => port.stored[rng.below(port.stored.len() as u64) as usize],
                        false => fresh,
                    };
                    let data = rng.next_u64() as u32;
                    port.offer = Some((!reload, lvid, t, data, rng.next_u64() & tag_mask));
                    issued += 1;
                }
                let req = |f: &str| format!("lvu{i}_req_{f}");
                poke(&mut sim, &req("valid"), port.offer.is_some() as u64);
                if let Some((store, lvid, t, data, tag)) = port.offer {
                    let tid = (base + t) as u64 & 0xffff;
                    for (f, v) in [
                        ("bits_store", store as u64),
                        ("bits_lvid", lvid as u64),
                        ("bits_tid", tid),
                        ("bits_data", data as u64),
                        ("bits_tag", tag),
                    ] {
                        poke(&mut sim, &req(f), v);
                    }
                }
            }
            mem.tick(&mut sim).unwrap();
            for (i, port) in ports.iter_mut().enumerate() {
                if peek(&mut sim, &format!("lvu{i}_resp_valid")) == 1 {
                    let (tag, value) = (port.due.pop_front())
                        .unwrap_or_else(|| panic!("tile {tile} port {i}: an unasked response"));
                    let got_tag = peek(&mut sim, &format!("lvu{i}_resp_bits_tag"));
                    assert_eq!(got_tag, tag, "tile {tile} port {i}: tag");
                    if let Some(v) = value {
                        let got = peek(&mut sim, &format!("lvu{i}_resp_bits_data"));
                        assert_eq!(got, v as u64, "tile {tile} port {i}: loaded value");
                    }
                }
                let taken =
                    port.offer.is_some() && peek(&mut sim, &format!("lvu{i}_req_ready")) == 1;
                if let Some((store, lvid, t, data, tag)) = port.offer.take_if(|_| taken) {
                    if store {
                        port.stored.push((lvid, t));
                        values.insert((lvid, t), data);
                        stores += 1;
                        port.due.push_back((tag, None));
                    } else {
                        loads += 1;
                        port.due.push_back((tag, Some(values[&(lvid, t)])));
                    }
                }
            }
            sim.step();
        }
    }
    let misses = mem.stats();
    eprintln!("{loads} loads, {stores} stores, memory {misses:?}");
    assert!(loads > 700 && stores > 700, "{loads} {stores}");
}

fn small() -> VgiwParams {
    VgiwParams {
        lvus: 4,
        lvc_bytes: 256,
        lvc_banks: 2,
        vcs: 8,
        ..VgiwParams::default()
    }
}

#[test]
fn live_values_survive_evictions_at_latency_1() {
    let stress = Stress {
        latency: 1,
        jitter: 0,
        stall_percent: 0,
        gap_percent: 0,
    };
    run(&small(), stress, 1);
}

#[test]
fn live_values_survive_evictions_with_a_slow_memory_and_one_bank() {
    let p = VgiwParams {
        lvc_banks: 1,
        ..small()
    };
    let stress = Stress {
        latency: 20,
        jitter: 7,
        stall_percent: 25,
        gap_percent: 0,
    };
    run(&p, stress, 2);
}

#[test]
fn the_lvc_is_lint_clean() {
    let shapes = [
        VgiwParams::default(),
        small(),
        VgiwParams {
            lvus: 1,
            lvc_banks: 1,
            lvc_bytes: 256,
            vcs: 2,
            ..VgiwParams::default()
        },
    ];
    let blocks: Vec<_> = shapes.iter().map(|p| lvc(p).unwrap()).collect();
    lint_rig::lint_blocks("vgiw lvc", &blocks);
}
