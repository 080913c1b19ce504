//! The VGIW configurator's RTL (`generators::vgiw::configurator`, seed 004 section 3.2:
//! the configuration FIFO that prefetches the next blocks' configurations, and the
//! reconfiguration that shifts a block into every row at once in two passes) in the IR
//! simulator from random initial state, over the memory model with random latencies,
//! refusals and out-of-order responses. The kernel images are the compiler's
//! (`image::encode` of the kernels a program launches), loaded at an 8-byte boundary as
//! a loader would. A stand-in for the BBS launches each kernel in turn (`start` with the
//! address of its blocks) and schedules blocks: mostly a successor of the block just
//! configured, sometimes any block, after random execution times; and a launch of another
//! kernel right after a configuration, while its prefetch is in flight.
//!
//! Checked against the image as `image::decode` reads it (what the fabric's
//! configuration chains take, `fabric/config.rs`, as `FabricRunner::configure` feeds
//! them): every reconfiguration shifts exactly the scheduled block's words, half 0 of
//! every column right to left, then half 1; nothing shifts outside a reconfiguration;
//! `configured` carries the block's successors. A block the prefetch holds is configured
//! with no fetch in the same, shortest time (at most `2 * cols + 4` cycles); a block it
//! does not is fetched first (at least a cycle a word). Small preset with 1, 2 and 3
//! slots (and one channel a link: cells of an odd number of words), the paper's fabric.
//! Lint clean at the presets and at extreme shapes.

mod lint_rig;
mod vgiw_rig;

use generators::vgiw::compiler::image::{self, BlockImage, KernelImage, EXIT};
use generators::vgiw::configurator::{block_bytes, configurator};
use generators::vgiw::fabric::config::half_bits;
use generators::vgiw::grid::Grid;
use generators::vgiw::params::VgiwParams;
use hdl::sim::{Init, Sim};
use hdl::{Bits, Design};
use verification::rng::Rng;
use verification::tb::memory::{MemConfig, MemPort, MemoryModel};
use vgiw_rig::{build, build_kernel, compile_all, fig2, preset, root};

/// Where the images are loaded.
const IMAGE_BASE: u64 = 0x2000_0000;

/// Cycles any one reconfiguration may take, fetch included.
const PATIENCE: u64 = 100_000;

struct Bench {
    sim: Sim,
    mem: MemoryModel,
    rows: usize,
    cols: usize,
    channels: u32,
    cycle: u64,
    /// The addresses of the header requests seen (one a fetch).
    headers: Vec<u64>,
    /// Where the running kernel's blocks start, and the bytes of a block.
    blocks_at: u64,
    stride: u64,
}

/// What one reconfiguration took: cycles from `sched` to `configured`, and whether its
/// block was fetched after `sched` (else it was held, or on its way in).
struct Reconfig {
    cycles: u64,
    fetched: bool,
}

impl Bench {
    fn new(p: &VgiwParams, images: &[u8], seed: u64) -> Bench {
        let design = Design::new(&configurator(p).unwrap());
        let sim = Sim::with_init(&design, Init::Random { seed });
        let config = MemConfig {
            data_bytes: 8,
            latency: 1 + (seed % 3) as u32 * 9,
            jitter: 6,
            out_of_order: true,
            stall_percent: 20,
            max_outstanding: 8,
            seed,
            ..MemConfig::default()
        };
        let port = MemPort {
            resp_ready: None,
            ..MemPort::decoupled("mem", true)
        };
        let mut mem = MemoryModel::new(config, vec![port]).unwrap();
        mem.memory_mut().write(IMAGE_BASE, images);
        let grid = Grid::new(p);
        let mut b = Bench {
            sim,
            mem,
            rows: grid.rows as usize,
            cols: grid.cols as usize,
            channels: p.switch_channels,
            cycle: 0,
            headers: Vec::new(),
            blocks_at: 0,
            stride: block_bytes(p) as u64,
        };
        for (port, v) in [("reset", 1), ("start", 0), ("sched_valid", 0)] {
            b.poke(port, v);
        }
        b.poke("configured_ready", 0);
        // Reset (synchronous): the memory sees the design only after it.
        b.sim.step();
        b.poke("reset", 0);
        b
    }

    fn poke(&mut self, port: &str, v: u64) {
        self.sim.poke_u64(port, v).unwrap();
    }

    fn peek(&mut self, port: &str) -> u64 {
        self.sim.peek_u64(port).unwrap()
    }

    /// One cycle: the memory served, then the clock edge. Panics on a shift: shifts
    /// happen only inside [`Bench::configure`].
    fn step(&mut self) {
        self.mem.tick(&mut self.sim).unwrap();
        self.count_fetch();
        self.sim.step();
        self.cycle += 1;
    }

    fn count_fetch(&mut self) {
        let fired = self.peek("mem_req_valid") & self.peek("mem_req_ready") == 1;
        let tag_bits = self.sim.peek("mem_req_bits_tag").unwrap().width();
        if fired && self.peek("mem_req_bits_tag") >> (tag_bits - 1) == 1 {
            let a = self.peek("mem_req_bits_addr");
            self.headers.push(a);
        }
    }

    /// Idle cycles, as if the block ran: nothing may shift.
    fn idle(&mut self, cycles: u64) {
        for _ in 0..cycles {
            assert_eq!(
                self.peek("cfg_shift"),
                0,
                "cycle {}: a shift unasked",
                self.cycle
            );
            self.step();
        }
    }

    /// Runs until the memory has nothing in flight and nothing is asked of it.
    fn quiesce(&mut self) {
        let mut quiet = 0;
        while quiet < 8 {
            let busy = self.mem.outstanding(0) > 0 || self.peek("mem_req_valid") == 1;
            quiet = if busy { 0 } else { quiet + 1 };
            self.idle(1);
        }
    }

    /// A launch of the kernel whose blocks start at `at`.
    fn launch(&mut self, at: u64) {
        self.blocks_at = at;
        self.poke("start", 1);
        self.poke("image", at);
        self.step();
        self.poke("start", 0);
    }

    /// Schedules `block` of `k` and checks the reconfiguration against the image.
    fn configure(&mut self, k: &KernelImage, block: usize) -> Reconfig {
        let b = &k.blocks[block];
        let expect = shifts(b, self.rows, self.cols, self.channels);
        let fetches = self.headers.len();
        self.poke("sched_valid", 1);
        self.poke("sched_bits_block", block as u64);
        let start = self.cycle;
        while self.peek("sched_ready") == 0 {
            assert!(self.cycle - start < PATIENCE, "sched never taken");
            self.idle(1);
        }
        let fired = self.cycle;
        self.step();
        self.poke("sched_valid", 0);
        self.poke("configured_ready", 1);
        let mut seen = Vec::new();
        while self.peek("configured_valid") == 0 {
            assert!(
                self.cycle - fired < PATIENCE,
                "block {block}: never configured"
            );
            if self.peek("cfg_shift") == 1 {
                let pass = self.peek("cfg_pass");
                let rows: Vec<Bits> = (0..self.rows)
                    .map(|r| self.sim.peek(&format!("cfg_row{r}")).unwrap())
                    .collect();
                seen.push((pass, rows));
            }
            self.step();
        }
        assert_eq!(self.peek("cfg_shift"), 0, "a shift with `configured`");
        let succ = (
            self.peek("configured_bits_taken"),
            self.peek("configured_bits_fall"),
        );
        assert_eq!(
            succ,
            (b.taken as u64, b.fall as u64),
            "block {block}: successors"
        );
        assert_eq!(seen.len(), expect.len(), "block {block}: shift cycles");
        for (i, (got, want)) in seen.iter().zip(&expect).enumerate() {
            assert!(
                got == want,
                "block {block}: shift {i} differs from the image"
            );
        }
        // Other blocks' prefetches may start meanwhile.
        let at = self.blocks_at + block as u64 * self.stride;
        let r = Reconfig {
            cycles: self.cycle - fired,
            fetched: self.headers[fetches..].contains(&at),
        };
        self.step();
        self.poke("configured_ready", 0);
        r
    }
}

/// The shifts that configure `b`: per pass, per column right to left, every row's half.
fn shifts(b: &BlockImage, rows: usize, cols: usize, channels: u32) -> Vec<(u64, Vec<Bits>)> {
    let per = image::cell_words(channels);
    let h = half_bits(channels);
    let mut out = Vec::new();
    for pass in 0..2u32 {
        for c in (0..cols).rev() {
            let halves = (0..rows)
                .map(|r| {
                    let cell = &b.words[(r * cols + c) * per..][..per];
                    let full = Bits::from_words(64 * per as u32, cell);
                    full.slice(h * (pass + 1) - 1, h * pass)
                })
                .collect();
            out.push((pass as u64, halves));
        }
    }
    out
}

/// The next block to schedule after `b`: mostly its smaller successor, sometimes the
/// other, sometimes any block.
fn next_block(rng: &mut Rng, k: &KernelImage, b: &BlockImage) -> usize {
    let succs: Vec<u16> = [b.taken.min(b.fall), b.taken.max(b.fall)]
        .into_iter()
        .filter(|&s| s != EXIT)
        .collect();
    match rng.below(10) {
        0..=5 if !succs.is_empty() => succs[0] as usize,
        6..=7 if succs.len() > 1 => succs[1] as usize,
        _ => rng.below(k.blocks.len() as u64) as usize,
    }
}

/// Totals of a run, for the log.
#[derive(Default)]
struct Tally {
    reconfigs: u64,
    fetched: u64,
    fetched_cycles: u64,
    /// The cycles of reconfigurations not fetched, and of those the prefetch must have
    /// brought in.
    held: Vec<u64>,
    prefetched: Vec<u64>,
}

/// Runs `schedules` blocks of every kernel of `images`, in turn, on the configurator of
/// `p`; checks prefetch hits where the prefetch must have ended.
fn run(name: &str, p: &VgiwParams, images: &[u8], schedules: usize, seed: u64) {
    let kernels = image::decode(images).unwrap();
    let mut bench = Bench::new(p, images, seed);
    let mut rng = Rng::new(seed);
    let words = block_bytes(p) as u64 / 8;
    let mut t = Tally::default();
    for round in 0..2 {
        for (ki, k) in kernels.iter().enumerate() {
            assert_eq!(
                k.blocks_at % 8,
                0,
                "{name}: kernel {ki}'s blocks are unaligned"
            );
            bench.launch(IMAGE_BASE + k.blocks_at as u64);
            let (mut block, mut expect_hit) = (0, false);
            for i in 0..schedules {
                let r = bench.configure(k, block);
                t.reconfigs += 1;
                if r.fetched {
                    assert!(
                        !expect_hit,
                        "{name}: block {block} prefetched, then fetched"
                    );
                    assert!(
                        r.cycles >= words,
                        "{name}: {words} words in {} cycles",
                        r.cycles
                    );
                    t.fetched += 1;
                    t.fetched_cycles += r.cycles;
                } else {
                    t.held.push(r.cycles);
                    if expect_hit {
                        t.prefetched.push(r.cycles);
                    }
                }
                let b = &k.blocks[block];
                let (lo, hi) = (b.taken.min(b.fall) as usize, b.taken.max(b.fall) as usize);
                if round == 1 && i + 1 == schedules {
                    // Another launch while this block's prefetch may be in flight: what
                    // it fetches must not configure the new kernel's block of that ID.
                    let other = &kernels[(ki + 1) % kernels.len()];
                    bench.idle(rng.below(4));
                    bench.launch(IMAGE_BASE + other.blocks_at as u64);
                    bench.configure(other, if lo < other.blocks.len() { lo } else { 0 });
                    t.reconfigs += 1;
                    break;
                }
                let next = next_block(&mut rng, k, b);
                // Long enough for the prefetch: the smaller successor must then be held
                // (the other too with two slots or more).
                let wait_out = rng.chance(40);
                match wait_out {
                    true => bench.quiesce(),
                    false => bench.idle(rng.below(3 * words)),
                }
                expect_hit = wait_out && (next == lo || (p.config_slots >= 2 && next == hi));
                block = next;
            }
        }
    }
    // A block held is shifted in at once: the shortest reconfiguration, two passes
    // over the columns and a few cycles; every prefetched block took just that.
    let hit = t.held.iter().copied().min().expect("some block was held");
    let cols = bench.cols as u64;
    assert!(
        (2 * cols..=2 * cols + 4).contains(&hit),
        "{name}: {hit} cycles"
    );
    assert!(!t.prefetched.is_empty(), "{name}: no prefetch checked");
    assert!(
        t.prefetched.iter().all(|&c| c == hit),
        "{name}: prefetched blocks took {:?} cycles, not {hit}",
        t.prefetched
    );
    let hits = t.held.iter().filter(|&&c| c == hit).count();
    eprintln!(
        "{name}: {} reconfigurations: {hits} held ({hit} cycles each), {} waited on a \
         fetch in flight, {} fetched ({} cycles on average); {} fetches, {} cycles",
        t.reconfigs,
        t.held.len() - hits,
        t.fetched,
        t.fetched_cycles / t.fetched.max(1),
        bench.headers.len(),
        bench.cycle
    );
}

/// The images of every kernel `programs` launch, compiled for `p`, one after another.
fn images(p: &VgiwParams, programs: &[verification::elf::Program]) -> Vec<u8> {
    let kernels: Vec<_> = programs.iter().flat_map(|pr| compile_all(pr, p)).collect();
    image::encode(&kernels, &Grid::new(p), p.switch_channels)
}

#[test]
fn small_fabric_configurations_are_shifted_as_the_image_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    let fp = build(dir.path(), &[root().join("tests/vgiw_cases/fp.c")], "fp");
    let programs = [fig2(dir.path()), fp];
    for (slots, channels, seed) in [(2, 2, 1), (1, 1, 2), (3, 2, 3)] {
        let p = VgiwParams {
            config_slots: slots,
            switch_channels: channels,
            ..preset("vgiw-small")
        };
        let name = format!("small, {slots} slots, {channels} channels");
        run(&name, &p, &images(&p, &programs), 12, seed);
    }
}

#[test]
fn papers_fabric_configurations_are_shifted_as_the_image_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    let p = preset("vgiw");
    let programs = [
        build_kernel(dir.path(), "bsearch"),
        build_kernel(dir.path(), "rodinia/nw"),
    ];
    run("Table 1", &p, &images(&p, &programs), 8, 4);
}

/// The configurator's slots as `configurator.rs` specifies them, for schedules that
/// each wait out the last one's prefetches: a slot holds (image, block); ages rank
/// the slots by last use (configured or filled), 0 the latest.
struct SlotModel {
    held: Vec<Option<(u64, usize)>>,
    age: Vec<usize>,
    /// The successors of the block configured last: kept from eviction.
    cands: Vec<(u64, usize)>,
}

impl SlotModel {
    fn new(slots: usize) -> SlotModel {
        SlotModel {
            held: vec![None; slots],
            age: (0..slots).collect(),
            cands: Vec::new(),
        }
    }

    /// A launch: the candidates are dropped, the slots kept.
    fn launch(&mut self) {
        self.cands.clear();
    }

    fn find(&self, t: (u64, usize)) -> Option<usize> {
        self.held.iter().position(|h| *h == Some(t))
    }

    fn touch(&mut self, s: usize) {
        let a = self.age[s];
        for age in self.age.iter_mut().filter(|age| **age < a) {
            *age += 1;
        }
        self.age[s] = 0;
    }

    /// An empty slot (lowest first), else the oldest not holding a candidate.
    fn victim(&self) -> Option<usize> {
        let kept: Vec<usize> = self.cands.iter().filter_map(|&c| self.find(c)).collect();
        (self.held.iter().position(Option::is_none)).or_else(|| {
            (0..self.held.len())
                .filter(|s| !kept.contains(s))
                .max_by_key(|&s| self.age[s])
        })
    }

    fn fill(&mut self, s: usize, t: (u64, usize)) {
        self.held[s] = Some(t);
        self.touch(s);
    }

    /// Block `b` of the kernel at `image` (successors `succ`, smallest first, the exit
    /// left out) scheduled: whether it is fetched on demand, then the prefetches.
    fn configure(&mut self, image: u64, b: usize, succ: &[usize]) -> (bool, usize) {
        let fetched = match self.find((image, b)) {
            Some(s) => {
                self.touch(s);
                false
            }
            None => {
                let s = self.victim().unwrap_or(0);
                self.fill(s, (image, b));
                true
            }
        };
        self.cands = succ.iter().map(|&c| (image, c)).collect();
        let mut prefetched = 0;
        for &c in &self.cands.clone() {
            if self.find(c).is_some() {
                continue;
            }
            // The candidate waits while no slot can take it, and the next after it.
            let Some(s) = self.victim() else { break };
            self.fill(s, c);
            prefetched += 1;
        }
        (fetched, prefetched)
    }
}

/// Slots outlive launches and are replaced least recently used first, as
/// [`SlotModel`] has it: random schedules (mostly a successor of the last block) and
/// launches of two kernels, each schedule after the last one's prefetches, with from
/// one slot to one for every block of both kernels (where, after the first use of
/// every block, nothing is fetched again: slots are tagged with their kernel's image,
/// so the other kernel's blocks of the same IDs do not hit).
#[test]
fn slots_outlive_launches_and_are_replaced_least_recently_used() {
    let dir = tempfile::tempdir().unwrap();
    let fp = build(dir.path(), &[root().join("tests/vgiw_cases/fp.c")], "fp");
    let programs = [fig2(dir.path()), fp];
    let small = preset("vgiw-small");
    let all = images(&small, &programs);
    let kernels = image::decode(&all).unwrap();
    let total = kernels.iter().map(|k| k.blocks.len()).sum::<usize>();
    let succ = |b: &BlockImage| {
        let mut s: Vec<usize> = [b.taken, b.fall]
            .iter()
            .filter(|&&n| n != EXIT)
            .map(|&n| n as usize)
            .collect();
        s.sort();
        s.dedup();
        s
    };
    for slots in [1, 2, 3, total - 1, total] {
        let p = VgiwParams {
            config_slots: slots as u32,
            ..small.clone()
        };
        let mut bench = Bench::new(&p, &all, slots as u64);
        let mut rng = Rng::new(slots as u64);
        let mut model = SlotModel::new(slots);
        let (mut demanded, mut checked) = (0, 0);
        for launch in 0..12 {
            let k = &kernels[rng.below(kernels.len() as u64) as usize];
            let image = IMAGE_BASE + k.blocks_at as u64;
            bench.launch(image);
            model.launch();
            let mut block = 0;
            for _ in 0..8 {
                let before = bench.headers.len();
                let r = bench.configure(k, block);
                bench.quiesce();
                let b = &k.blocks[block];
                let (fetched, prefetched) = model.configure(image, block, &succ(b));
                let name = format!("{slots} slots, launch {launch}, block {block}");
                assert_eq!(r.fetched, fetched, "{name}: fetched on demand");
                assert_eq!(
                    bench.headers.len() - before,
                    fetched as usize + prefetched,
                    "{name}: fetches"
                );
                demanded += fetched as usize;
                checked += 1;
                block = next_block(&mut rng, k, b);
            }
        }
        if slots == total {
            let mut once = bench.headers.clone();
            once.sort();
            once.dedup();
            assert_eq!(once.len(), bench.headers.len(), "a block fetched twice");
        }
        eprintln!("{slots} slots: {checked} schedules, {demanded} fetched on demand");
    }
}

#[test]
fn the_configurator_is_lint_clean() {
    let small = preset("vgiw-small");
    let shapes = [
        small.clone(),
        VgiwParams {
            config_slots: 1,
            switch_channels: 1,
            ..small.clone()
        },
        VgiwParams {
            config_slots: 32,
            switch_channels: 8,
            ..small
        },
        preset("vgiw"),
    ];
    let blocks: Vec<_> = shapes.iter().map(|p| configurator(p).unwrap()).collect();
    lint_rig::lint_blocks("vgiw_configurator", &blocks);
}
