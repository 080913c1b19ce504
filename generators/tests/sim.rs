//! Both designs in the IR simulator under random stimulus, cycle by cycle against their
//! golden models, across parameter sweeps (longer runs with `ACCELGEN_LONG=1`).

use generators::examples::banked_rf::{banked_rf, BankedRfModel, BankedRfParams, RfIn, RfWrite};
use generators::examples::queue::{queue, QueueIn, QueueModel, QueueParams};
use generators::memory;
use hdl::sim::{Init, Sim};
use hdl::{Bits, Design};

/// SplitMix64 (`hdl::sim::SplitMix`): deterministic, so a failure reproduces from the
/// printed configuration.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut g = hdl::sim::SplitMix(self.0);
        let v = g.next_u64();
        self.0 = g.0;
        v
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A uniformly random `width`-bit value (`width` <= 128).
    fn bits(&mut self, width: u32) -> u128 {
        let v = (self.next() as u128) << 64 | self.next() as u128;
        if width == 128 {
            v
        } else {
            v & ((1u128 << width) - 1)
        }
    }
}

fn cycles(short: u64) -> u64 {
    if std::env::var_os("ACCELGEN_LONG").is_some() {
        short * 20
    } else {
        short
    }
}

fn poke(sim: &mut Sim, port: &str, width: u32, value: u128) {
    sim.poke(port, &Bits::from_u128(width, value))
        .unwrap_or_else(|e| panic!("poke {port}: {e}"));
}

fn peek(sim: &mut Sim, port: &str) -> u128 {
    sim.peek(port)
        .unwrap_or_else(|e| panic!("peek {port}: {e}"))
        .to_u128()
}

fn reset(sim: &mut Sim) {
    poke(sim, "reset", 1, 1);
    sim.step();
    poke(sim, "reset", 1, 0);
}

fn run_queue(p: &QueueParams, seed: u64, n: u64) {
    let top = queue(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    // Random initial state: the entries, the macro's read data and the forwarding
    // register have no reset, and nothing unwritten may reach `deq`.
    let mut sim = Sim::with_init(&Design::new(&top), Init::Random { seed });
    let mut model = QueueModel::new(p);
    let mut rng = Rng(seed);
    reset(&mut sim);
    let (mut enq_pct, mut deq_pct) = (50, 50);
    let (mut transfers, mut full_seen) = (0, false);
    for cycle in 0..n {
        // Phases of bursty producers and stalled consumers reach both full and empty.
        if cycle % 64 == 0 {
            enq_pct = [10, 50, 90][rng.below(3) as usize];
            deq_pct = [10, 50, 90][rng.below(3) as usize];
        }
        if rng.below(500) == 0 {
            reset(&mut sim);
            model = QueueModel::new(p);
        }
        let i = QueueIn {
            enq_valid: rng.chance(enq_pct),
            enq_bits: rng.bits(p.width),
            deq_ready: rng.chance(deq_pct),
        };
        poke(&mut sim, "enq_valid", 1, i.enq_valid as u128);
        poke(&mut sim, "enq_bits", p.width, i.enq_bits);
        poke(&mut sim, "deq_ready", 1, i.deq_ready as u128);
        let want = model.outputs(&i);
        let ctx = format!("{p:?} seed {seed} cycle {cycle} inputs {i:?}");
        assert_eq!(
            peek(&mut sim, "enq_ready") == 1,
            want.enq_ready,
            "enq_ready: {ctx}"
        );
        assert_eq!(
            peek(&mut sim, "deq_valid") == 1,
            want.deq_valid,
            "deq_valid: {ctx}"
        );
        assert_eq!(peek(&mut sim, "count"), want.count as u128, "count: {ctx}");
        if want.deq_valid {
            assert_eq!(peek(&mut sim, "deq_bits"), want.deq_bits, "deq_bits: {ctx}");
        }
        transfers += (want.deq_valid && i.deq_ready) as u32;
        full_seen |= want.count == p.depth;
        model.step(&i);
        sim.step();
    }
    assert!(transfers > 0 && full_seen, "{p:?}: stimulus too weak");
}

#[test]
fn queue_matches_golden_model() {
    let widths = [1, 5, 32, 64, 65, 128];
    let mut k = 0;
    for depth in [1, 2, 3, 4, 7, 8, 16, 24] {
        for (flow, pipe) in [(false, false), (true, false), (false, true), (true, true)] {
            // Threshold 0: the entries are an SRAM macro (synchronous read, prefetch and
            // forwarding); the largest: a flop array read combinationally.
            for sram_threshold_bits in [0, memory::NEVER_SRAM_BITS] {
                let p = QueueParams {
                    depth,
                    width: widths[k % widths.len()],
                    flow,
                    pipe,
                    sram_threshold_bits,
                };
                run_queue(&p, k as u64, cycles(3000));
                k += 1;
            }
        }
    }
}

fn run_rf(p: &BankedRfParams, seed: u64, n: u64) {
    let top = banked_rf(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let mut sim = Sim::new(&Design::new(&top));
    let mut model = BankedRfModel::new(p);
    let mut rng = Rng(seed);
    reset(&mut sim);
    let aw = p.entries.ilog2();
    let mask_bits = p.width.checked_div(p.mask_gran).unwrap_or(0);
    let (nr, nw) = (p.read_ports as usize, p.write_ports as usize);
    let (mut conflicts, mut checked) = (0, 0);
    for cycle in 0..n {
        if rng.below(1000) == 0 {
            reset(&mut sim);
            model.reset();
        }
        // A small window of addresses makes bank conflicts and read-after-write common.
        let window = (p.entries as u64).min(2 * p.banks as u64 + 2);
        let base = rng.below(p.entries as u64);
        let addr = |rng: &mut Rng| ((base + rng.below(window)) % p.entries as u64) as u32;
        let i = RfIn {
            reads: (0..nr)
                .map(|_| rng.chance(60).then(|| addr(&mut rng)))
                .collect(),
            writes: (0..nw)
                .map(|_| {
                    rng.chance(50).then(|| RfWrite {
                        addr: addr(&mut rng),
                        data: rng.bits(p.width),
                        mask: rng.bits(mask_bits.max(1)) as u64,
                    })
                })
                .collect(),
        };
        for (k, r) in i.reads.iter().enumerate() {
            poke(&mut sim, &format!("read_{k}_valid"), 1, r.is_some() as u128);
            poke(
                &mut sim,
                &format!("read_{k}_bits"),
                aw,
                r.unwrap_or(0) as u128,
            );
        }
        for (k, w) in i.writes.iter().enumerate() {
            let w = w.unwrap_or(RfWrite {
                addr: 0,
                data: 0,
                mask: 0,
            });
            let valid = i.writes[k].is_some() as u128;
            poke(&mut sim, &format!("write_{k}_valid"), 1, valid);
            poke(
                &mut sim,
                &format!("write_{k}_bits_addr"),
                aw,
                w.addr as u128,
            );
            poke(&mut sim, &format!("write_{k}_bits_data"), p.width, w.data);
            if mask_bits > 0 {
                poke(
                    &mut sim,
                    &format!("write_{k}_bits_mask"),
                    mask_bits,
                    w.mask as u128,
                );
            }
        }
        let want = model.outputs(&i);
        let ctx = format!("{p:?} seed {seed} cycle {cycle} inputs {i:?}");
        for k in 0..nr {
            if i.reads[k].is_some() {
                let ready = peek(&mut sim, &format!("read_{k}_ready")) == 1;
                assert_eq!(ready, want.read_ready[k], "read_{k}_ready: {ctx}");
                conflicts += !ready as u32;
            }
            let valid = peek(&mut sim, &format!("resp_{k}_valid")) == 1;
            assert_eq!(valid, want.resp[k].is_some(), "resp_{k}_valid: {ctx}");
            if let Some(r) = want.resp[k] {
                let got = peek(&mut sim, &format!("resp_{k}_bits"));
                assert_eq!(got & r.known, r.data & r.known, "resp_{k}_bits: {ctx}");
                checked += (r.known != 0) as u32;
            }
        }
        for k in 0..nw {
            if i.writes[k].is_some() {
                let ready = peek(&mut sim, &format!("write_{k}_ready")) == 1;
                assert_eq!(ready, want.write_ready[k], "write_{k}_ready: {ctx}");
            }
        }
        model.step(&i);
        sim.step();
    }
    assert!(checked > 0, "{p:?}: no read returned written data");
    if nr > 1 && p.banks < 16 {
        assert!(conflicts > 0, "{p:?}: no bank conflict exercised");
    }
}

#[test]
fn banked_rf_matches_golden_model() {
    let cases = [
        // banks, entries, width, read ports, write ports, mask granule, sram
        (1, 2, 1, 1, 1, 0, true),
        (1, 16, 8, 2, 1, 4, false),
        (2, 8, 17, 3, 2, 0, true),
        (2, 2, 64, 2, 1, 16, false),
        (4, 64, 32, 2, 1, 8, true),
        (4, 16, 65, 4, 3, 0, false),
        (16, 16, 128, 3, 2, 32, true),
        (16, 256, 7, 2, 2, 1, false),
    ];
    for (k, &(banks, entries, width, r, w, mask_gran, sram)) in cases.iter().enumerate() {
        let p = BankedRfParams {
            banks,
            entries,
            width,
            read_ports: r,
            write_ports: w,
            mask_gran,
            sram,
        };
        run_rf(&p, 100 + k as u64, cycles(3000));
    }
}
