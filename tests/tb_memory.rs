//! The test-bench memory model serving an hdl request generator in the IR simulator:
//! exact latency, the bandwidth limit, in-order and out-of-order responses, byte masks,
//! random back-pressure on both channels, ELF and raw-image loading, and the errors a
//! design's protocol mistakes produce.

use hdl::ir::addr_width;
use hdl::sim::Sim;
use hdl::{Bits, Design, Dir, MemStyle, ModuleBuilder};
use verification::elf;
use verification::tb::memory::{
    request_shape, response_shape, Bandwidth, MemConfig, MemError, MemPort, MemoryModel, SIZE_BITS,
};
use verification::tb::Simulator;
use verification::toolchain::{build_elf, BuildOptions, Kind};
use verification::verilator::{Model, Options};

const TAG_BITS: u32 = 4;
/// Requests each port of the generator can hold.
const DEPTH: u64 = 64;

/// One request of the generator's program.
#[derive(Debug, Clone, Copy, Default)]
struct Req {
    addr: u64,
    write: bool,
    data: u64,
    mask: u64,
    size: u64,
    tag: u64,
}

impl Req {
    fn read(addr: u64, tag: u64) -> Req {
        Req {
            addr,
            size: 3,
            tag,
            ..Req::default()
        }
    }
}

/// Fields of a packed request, least significant first, for a `data_bytes` bus.
fn layout(data_bytes: u32) -> [u32; 6] {
    [TAG_BITS, SIZE_BITS, data_bytes, data_bytes * 8, 1, 64]
}

fn pack(r: &Req, data_bytes: u32) -> Bits {
    let fields = [r.tag, r.size, r.mask, r.data, r.write as u64, r.addr];
    let width: u32 = layout(data_bytes).iter().sum();
    let mut words = vec![0u64; hdl::bits::words_for(width)];
    let mut at = 0usize;
    for (v, w) in fields.into_iter().zip(layout(data_bytes)) {
        words[at / 64] |= v << (at % 64);
        if at % 64 + w as usize > 64 {
            words[at / 64 + 1] |= v >> (64 - at % 64);
        }
        at += w as usize;
    }
    Bits::from_words(width, &words)
}

/// A request generator with `ports` memory ports `m<i>`: each plays the requests loaded
/// into its memory (`load<i>_*`), the first `len<i>` of them, back to back from the cycle
/// after `start`, and takes responses while `resp<i>_ready_in` is high, counting them on
/// `resp<i>_count`.
fn generator(ports: usize, data_bytes: u32) -> Design {
    let mut m = ModuleBuilder::new("RequestGenerator");
    let aw = addr_width(DEPTH);
    let width: u32 = layout(data_bytes).iter().sum();
    let start = m.input("start", 1);
    let running = m.reg("running", 1, 0u64);
    m.when(&start, |m| {
        let one = m.lit(1, 1);
        m.connect(&running, &one)
    });
    for p in 0..ports {
        let load_en = m.input(&format!("load{p}_en"), 1);
        let load_addr = m.input(&format!("load{p}_addr"), aw);
        let load_data = m.input(&format!("load{p}_data"), width);
        let len = m.input(&format!("len{p}"), 16);
        let ready_in = m.input(&format!("resp{p}_ready_in"), 1);
        let count = m.output(&format!("resp{p}_count"), 16);
        let req = m.io(
            &format!("m{p}_req"),
            Dir::Out,
            &request_shape(64, data_bytes, TAG_BITS),
        );
        let resp = m.io(
            &format!("m{p}_resp"),
            Dir::In,
            &response_shape(data_bytes, TAG_BITS),
        );
        let mem = m.mem(&format!("reqs{p}"), DEPTH, width, MemStyle::Inferred);
        m.when(&load_en, |m| m.write(&mem, &load_addr, &load_data));
        let idx = m.reg(&format!("idx{p}"), 16, 0u64);
        let d = m.read(&mem, &idx.trunc(aw));
        let mut lo = 0;
        let mut field = |w: u32| {
            let v = d.slice(lo + w - 1, lo);
            lo += w;
            v
        };
        let [tag, size, mask, data, write, addr] = layout(data_bytes).map(&mut field);
        m.connect(req.valid(), &(&running & &idx.lt(&len)));
        let bits = req.bits();
        for (name, v) in [
            ("addr", addr),
            ("write", write),
            ("data", data),
            ("mask", mask),
            ("size", size),
            ("tag", tag),
        ] {
            m.connect(bits.get(name).value(), &v);
        }
        let one = m.lit(1, 16);
        m.when(&req.fire(), |m| m.connect(&idx, &(&idx + &one)));
        m.connect(resp.ready(), &ready_in);
        let taken = m.reg(&format!("taken{p}"), 16, 0u64);
        m.when(&resp.fire(), |m| m.connect(&taken, &(&taken + &one)));
        m.connect(&count, &taken);
    }
    Design::new(&m.finish().unwrap())
}

/// A handshake seen on the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Event {
    cycle: u64,
    port: usize,
    tag: u64,
    data: u64,
}

/// The generator and the model, with every handshake recorded.
struct Bench<S: Simulator = Sim> {
    sim: S,
    model: MemoryModel,
    programs: Vec<Vec<Req>>,
    requests: Vec<Event>,
    responses: Vec<Event>,
    /// Per cycle and port, whether the design takes responses; all ones when empty.
    resp_ready: Box<dyn FnMut(u64, usize) -> bool>,
}

impl Bench {
    /// A bench in the IR simulator.
    fn new(programs: Vec<Vec<Req>>, config: MemConfig) -> Bench {
        let design = generator(programs.len(), config.data_bytes);
        Bench::on(Sim::new(&design), programs, config)
    }
}

impl<S: Simulator> Bench<S> {
    /// Resets the generator in `sim` and loads `programs`, one per port.
    fn on(mut sim: S, programs: Vec<Vec<Req>>, config: MemConfig) -> Bench<S> {
        let data_bytes = config.data_bytes;
        sim.poke_u64("reset", 1).unwrap();
        sim.step();
        sim.poke_u64("reset", 0).unwrap();
        for (p, prog) in programs.iter().enumerate() {
            sim.poke_u64(&format!("load{p}_en"), 1).unwrap();
            for (i, r) in prog.iter().enumerate() {
                sim.poke_u64(&format!("load{p}_addr"), i as u64).unwrap();
                sim.poke(&format!("load{p}_data"), &pack(r, data_bytes))
                    .unwrap();
                sim.step();
            }
            sim.poke_u64(&format!("load{p}_en"), 0).unwrap();
            sim.poke_u64(&format!("len{p}"), prog.len() as u64).unwrap();
        }
        let ports = (0..programs.len())
            .map(|p| MemPort::decoupled(&format!("m{p}"), true))
            .collect();
        let model = MemoryModel::new(config, ports).unwrap();
        Bench {
            sim,
            model,
            programs,
            requests: Vec::new(),
            responses: Vec::new(),
            resp_ready: Box::new(|_, _| true),
        }
    }

    /// Starts the generator and runs until every response is in; cycles count from the
    /// first in which requests are valid.
    fn run(&mut self) -> Result<(), MemError> {
        self.sim.poke_u64("start", 1).unwrap();
        self.sim.step();
        self.sim.poke_u64("start", 0).unwrap();
        let total: usize = self.programs.iter().map(Vec::len).sum();
        for cycle in 0..10_000 {
            if self.responses.len() == total {
                return Ok(());
            }
            for p in 0..self.programs.len() {
                let ready = (self.resp_ready)(cycle, p) as u64;
                self.sim
                    .poke_u64(&format!("resp{p}_ready_in"), ready)
                    .unwrap();
            }
            self.model.tick(&mut self.sim)?;
            for p in 0..self.programs.len() {
                let mut sample = |ch: &str, payload: &str| -> Option<Event> {
                    let s = &mut self.sim;
                    let fired = s.peek_u64(&format!("m{p}_{ch}_valid")).unwrap()
                        & s.peek_u64(&format!("m{p}_{ch}_ready")).unwrap();
                    (fired == 1).then(|| Event {
                        cycle,
                        port: p,
                        tag: s.peek_u64(&format!("m{p}_{ch}_bits_tag")).unwrap(),
                        data: s.peek_u64(&format!("m{p}_{ch}_bits_{payload}")).unwrap(),
                    })
                };
                let req = sample("req", "addr");
                let resp = sample("resp", "data");
                self.requests.extend(req);
                self.responses.extend(resp);
            }
            self.sim.step();
        }
        panic!("responses still missing after 10000 cycles");
    }

    fn responses_of(&self, port: usize) -> Vec<Event> {
        self.responses
            .iter()
            .filter(|e| e.port == port)
            .copied()
            .collect()
    }
}

/// The doubleword the model's store holds at `addr` before any write: distinct per
/// address, so a response shows which address it came from.
fn pattern(addr: u64) -> u64 {
    addr.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5555
}

fn preload<S: Simulator>(bench: &mut Bench<S>, base: u64, dwords: u64) {
    let image: Vec<u8> = (0..dwords)
        .flat_map(|i| pattern(base + 8 * i).to_le_bytes())
        .collect();
    bench.model.memory_mut().load_image(base, &image).unwrap();
}

fn reads(n: u64) -> Vec<Req> {
    (0..n)
        .map(|i| Req::read(0x8000_0000 + 8 * i, i % 16))
        .collect()
}

fn config(f: impl FnOnce(&mut MemConfig)) -> MemConfig {
    let mut c = MemConfig::default();
    f(&mut c);
    c
}

#[test]
fn responses_arrive_exactly_latency_cycles_after_acceptance() {
    for latency in [1, 2, 5, 9] {
        let mut b = Bench::new(vec![reads(6)], config(|c| c.latency = latency));
        preload(&mut b, 0x8000_0000, 6);
        b.run().unwrap();
        let req_cycles: Vec<u64> = b.requests.iter().map(|e| e.cycle).collect();
        assert_eq!(req_cycles, (0..6).collect::<Vec<_>>(), "back to back");
        for (i, r) in b.responses.iter().enumerate() {
            assert_eq!(r.cycle, i as u64 + latency as u64, "latency {latency}");
            assert_eq!(r.tag, i as u64);
            assert_eq!(r.data, pattern(0x8000_0000 + 8 * i as u64));
        }
        let s = b.model.stats();
        assert_eq!((s.reads, s.writes, s.responses, s.refused), (6, 0, 6, 0));
        assert_eq!(b.model.outstanding(0), 0);
    }
}

#[test]
fn bandwidth_limits_accepted_requests_per_cycle() {
    // One request every fourth cycle.
    let mut b = Bench::new(
        vec![reads(8)],
        config(|c| {
            c.bandwidth = Bandwidth {
                requests: 1,
                cycles: 4,
            }
        }),
    );
    b.run().unwrap();
    let cycles: Vec<u64> = b.requests.iter().map(|e| e.cycle).collect();
    assert_eq!(cycles, (0..8).map(|i| 4 * i).collect::<Vec<_>>());
    assert_eq!(b.model.stats().refused, 8 * 3 - 3);

    // Two per cycle over three ports, shared round robin.
    let mut b = Bench::new(
        vec![reads(6), reads(6), reads(6)],
        config(|c| {
            c.bandwidth = Bandwidth {
                requests: 2,
                cycles: 1,
            };
            c.max_outstanding = 16;
        }),
    );
    b.run().unwrap();
    let per_cycle = |reqs: &[Event], c: u64| reqs.iter().filter(|e| e.cycle == c).count();
    for c in 0..9 {
        assert_eq!(per_cycle(&b.requests, c), 2, "cycle {c}");
    }
    // Round robin: the port left out in one cycle goes first in the next, so the
    // granted pairs rotate (fixed priority would starve port 2 until port 0 is done).
    let granted = |c: u64| -> Vec<usize> {
        b.requests
            .iter()
            .filter(|e| e.cycle == c)
            .map(|e| e.port)
            .collect()
    };
    assert_eq!(
        (0..6).map(granted).collect::<Vec<_>>(),
        [[0, 1], [0, 2], [1, 2], [0, 1], [0, 2], [1, 2]]
    );
    for p in 0..3 {
        assert_eq!(b.responses_of(p).len(), 6);
    }

    // Three every two cycles: 1.5 per cycle on average, 18 requests in 12 cycles.
    let mut b = Bench::new(
        vec![reads(6), reads(6), reads(6)],
        config(|c| {
            c.bandwidth = Bandwidth {
                requests: 3,
                cycles: 2,
            };
            c.max_outstanding = 16;
        }),
    );
    b.run().unwrap();
    assert_eq!(b.requests.last().unwrap().cycle, 11);
    let counts: Vec<usize> = (0..12).map(|c| per_cycle(&b.requests, c)).collect();
    assert!(counts.iter().all(|&n| n == 1 || n == 2), "{counts:?}");
}

#[test]
fn responses_stay_in_order_unless_reordering_is_asked_for() {
    let tags = |b: &Bench| b.responses.iter().map(|e| e.tag).collect::<Vec<_>>();
    let jittery = |seed, out_of_order| {
        config(|c| {
            c.latency = 2;
            c.jitter = 6;
            c.out_of_order = out_of_order;
            c.max_outstanding = 16;
            c.seed = seed;
        })
    };
    let mut b = Bench::new(vec![reads(16)], jittery(1, false));
    preload(&mut b, 0x8000_0000, 16);
    b.run().unwrap();
    assert_eq!(tags(&b), (0..16).collect::<Vec<_>>());

    let mut runs = Vec::new();
    for seed in [1, 1, 2] {
        let mut b = Bench::new(vec![reads(16)], jittery(seed, true));
        preload(&mut b, 0x8000_0000, 16);
        b.run().unwrap();
        for r in &b.responses {
            assert_eq!(
                r.data,
                pattern(0x8000_0000 + 8 * r.tag),
                "data follows its tag"
            );
        }
        let mut sorted = tags(&b);
        sorted.sort();
        assert_eq!(sorted, (0..16).collect::<Vec<_>>(), "each response once");
        runs.push(b.responses);
    }
    let order = |run: &[Event]| run.iter().map(|e| e.tag).collect::<Vec<_>>();
    assert_ne!(order(&runs[0]), (0..16).collect::<Vec<_>>(), "reordered");
    assert_eq!(runs[0], runs[1], "same seed, same run");
    assert_ne!(
        order(&runs[0]),
        order(&runs[2]),
        "another seed, another order"
    );
}

#[test]
fn writes_change_exactly_the_masked_bytes() {
    let write = |addr, data, mask, size, tag| Req {
        addr,
        write: true,
        data,
        mask,
        size,
        tag,
    };
    let prog = vec![
        // A byte store with every other lane of the data bus set to garbage.
        write(0x1003, 0xffff_ffff_aaff_ffff, 0b0000_1000, 0, 1),
        write(0x1006, 0xbbcc_0000_0000_0000, 0b1100_0000, 1, 2),
        // A full-width access with a partial mask.
        write(0x1000, 0x0000_0000_0000_00ee, 0b0000_0001, 3, 3),
        // A masked-off write changes nothing.
        write(0x1000, u64::MAX, 0, 3, 4),
        // A 4-byte read returns its whole lane-aligned block.
        Req {
            size: 2,
            ..Req::read(0x1004, 5)
        },
    ];
    let mut b = Bench::new(vec![prog], MemConfig::default());
    b.model
        .memory_mut()
        .load_image(0x1000, &0x1122_3344_5566_7788u64.to_le_bytes())
        .unwrap();
    b.run().unwrap();
    let data: Vec<(u64, u64)> = b.responses.iter().map(|e| (e.tag, e.data)).collect();
    assert_eq!(
        data,
        vec![(1, 0), (2, 0), (3, 0), (4, 0), (5, 0xbbcc_3344_aa66_77ee)]
    );
    assert_eq!(b.model.memory().read_u64(0x1000), 0xbbcc_3344_aa66_77ee);
    assert_eq!(b.model.memory().read_u64(0x1008), 0, "neighbours untouched");
    assert_eq!((b.model.stats().writes, b.model.stats().reads), (4, 1));
}

#[test]
fn protocol_mistakes_are_reported() {
    let run_one = |r: Req| {
        Bench::new(vec![vec![r]], MemConfig::default())
            .run()
            .unwrap_err()
            .to_string()
    };
    let bad_mask = Req {
        write: true,
        mask: 0b0001_1000,
        size: 0,
        ..Req::read(0x1003, 0)
    };
    assert_eq!(
        run_one(bad_mask),
        "cycle 3, port 0: write mask 8'h18 enables bytes outside the 2^0-byte access at 0x1003"
    );
    assert_eq!(
        run_one(Req {
            size: 2,
            ..Req::read(0x1002, 0)
        }),
        "cycle 3, port 0: access of 2^2 bytes at 0x1002 is not aligned to its size"
    );
    assert_eq!(
        run_one(Req {
            size: 4,
            ..Req::read(0x1000, 0)
        }),
        "cycle 3, port 0: access of 2^4 bytes is wider than the 8-byte bus"
    );

    // A 4-byte design on a model configured for an 8-byte bus.
    let mut sim = Sim::new(&generator(1, 4));
    let mut model =
        MemoryModel::new(MemConfig::default(), vec![MemPort::decoupled("m0", true)]).unwrap();
    assert_eq!(
        model.tick(&mut sim).unwrap_err().to_string(),
        "port 0: `m0_req_bits_data` is 32 bits, expected 64"
    );
    // A port name the design does not have.
    let mut model =
        MemoryModel::new(MemConfig::default(), vec![MemPort::decoupled("mem", false)]).unwrap();
    assert_eq!(
        model.tick(&mut sim).unwrap_err().to_string(),
        "no port `mem_req_valid` on the top module"
    );
}

#[test]
fn random_back_pressure_on_both_channels_loses_nothing() {
    let run = |seed| {
        let mut b = Bench::new(
            vec![reads(32), reads(32)],
            config(|c| {
                c.stall_percent = 40;
                c.latency = 3;
                c.seed = seed;
            }),
        );
        preload(&mut b, 0x8000_0000, 32);
        // The design refuses responses on a fixed pseudo-random pattern.
        b.resp_ready = Box::new(|cycle, port| (cycle * 7 + port as u64 * 3) % 5 < 2);
        let mut held = 0;
        let mut last: Option<(u64, u64)> = None;
        // Run cycle by cycle to watch a refused response stay on the bus unchanged.
        b.sim.poke_u64("start", 1).unwrap();
        b.sim.step();
        b.sim.poke_u64("start", 0).unwrap();
        let mut taken = 0;
        for cycle in 0..2000 {
            for p in 0..2 {
                let ready = (b.resp_ready)(cycle, p) as u64;
                b.sim.poke_u64(&format!("resp{p}_ready_in"), ready).unwrap();
            }
            b.model.tick(&mut b.sim).unwrap();
            let valid = b.sim.peek_u64("m0_resp_valid").unwrap() == 1;
            let ready = b.sim.peek_u64("m0_resp_ready").unwrap() == 1;
            let now = (
                b.sim.peek_u64("m0_resp_bits_tag").unwrap(),
                b.sim.peek_u64("m0_resp_bits_data").unwrap(),
            );
            if let Some(prev) = last {
                assert!(valid, "a refused response was withdrawn");
                assert_eq!(now, prev, "a refused response changed");
                held += 1;
            }
            last = (valid && !ready).then_some(now);
            if valid && ready {
                assert_eq!(now.1, pattern(0x8000_0000 + 8 * taken));
                taken += 1;
            }
            b.sim.step();
        }
        assert_eq!(taken, 32);
        assert_eq!(b.sim.peek_u64("resp1_count").unwrap(), 32);
        assert!(held > 0);
        b.model.stats()
    };
    let stats = run(7);
    assert!(stats.refused > 10, "{stats:?}");
    assert_eq!(stats.responses, 64);
    assert_eq!(run(7), stats, "deterministic");
    assert_ne!(run(8).refused, stats.refused);
}

#[test]
fn elf_segments_and_raw_images_are_served() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.S");
    std::fs::write(
        &src,
        ".globl _start\n_start: li a0, 42\n j _start\n\
         .data\n.dword 0x0123456789abcdef, 0xfedcba9876543210\n\
         .section .tohost, \"aw\"\n.globl tohost\ntohost: .dword 0\n",
    )
    .unwrap();
    let path = build_elf(
        &[src],
        &dir.path().join("prog.elf"),
        &BuildOptions::new(Kind::BareAsm),
    )
    .unwrap();
    let program = elf::load_file(&path).unwrap();

    // The first and last doublewords of every segment (the linker script pads `.tohost`
    // to 4 KiB, so a segment can be mostly padding).
    let mut reqs = Vec::new();
    for seg in &program.segments {
        let start = seg.addr & !7;
        let end = seg.addr + seg.data.len() as u64;
        let words = (end - start).div_ceil(8);
        let ends = (0..words.min(16)).chain(words.saturating_sub(16).max(16)..words);
        reqs.extend(ends.map(|i| Req::read(start + 8 * i, 0)));
    }
    let high = 0xffff_ffff_ffff_ff00;
    reqs.push(Req::read(high, 1));
    reqs.push(Req::read(high + 0xf8, 2));
    assert!(reqs.len() <= DEPTH as usize, "{} requests", reqs.len());

    let mut b = Bench::new(vec![reqs.clone()], MemConfig::default());
    let loaded = b.model.memory_mut().load_elf(&path).unwrap();
    assert_eq!(loaded.entry, program.entry);
    let image: Vec<u8> = (0..=255).collect();
    b.model.memory_mut().load_image(high, &image).unwrap();
    b.run().unwrap();

    let mut expected = verification::tb::memory::SparseMemory::new();
    for seg in &program.segments {
        expected.write(seg.addr, &seg.data);
    }
    let n = reqs.len();
    for (r, e) in reqs[..n - 2].iter().zip(&b.responses) {
        assert_eq!(e.data, expected.read_u64(r.addr), "at {:#x}", r.addr);
    }
    let at_entry = reqs
        .iter()
        .position(|r| r.addr == program.entry)
        .expect("entry read");
    assert_eq!(
        b.responses[at_entry].data as u32, 0x02a0_0513,
        "li a0, 42 at the entry"
    );
    assert_eq!(b.responses[n - 2].data, 0x0706_0504_0302_0100);
    assert_eq!(b.responses[n - 1].data, 0xfffe_fdfc_fbfa_f9f8);
    assert!(
        b.responses.iter().any(|e| e.data == 0x0123_4567_89ab_cdef),
        "the .data doubleword"
    );

    // A missing file is an ELF error, typed and with the path.
    let err = b
        .model
        .memory_mut()
        .load_elf(&dir.path().join("missing.elf"))
        .unwrap_err();
    assert!(matches!(err, MemError::Elf(_)), "{err}");
}

/// A port without mask, size and response ready: writes and reads are whole-bus, and
/// responses count as taken the cycle they appear (the generator's own mask, size and
/// ready are ignored, so it is told to take every response).
#[test]
fn absent_optional_signals_take_their_defaults() {
    let prog = vec![
        Req {
            addr: 0x2000,
            write: true,
            data: 0x0102_0304_0506_0708,
            mask: 0b0000_0001,
            size: 0,
            tag: 1,
        },
        Req {
            size: 0,
            ..Req::read(0x2000, 2)
        },
    ];
    let mut b = Bench::new(vec![prog], MemConfig::default());
    let port = MemPort {
        req_mask: None,
        req_size: None,
        resp_ready: None,
        ..MemPort::decoupled("m0", true)
    };
    b.model = MemoryModel::new(MemConfig::default(), vec![port]).unwrap();
    b.run().unwrap();
    assert_eq!(b.model.memory().read_u64(0x2000), 0x0102_0304_0506_0708);
    let got: Vec<(u64, u64)> = b.responses.iter().map(|e| (e.tag, e.data)).collect();
    assert_eq!(got, [(1, 0), (2, 0x0102_0304_0506_0708)]);
    assert_eq!(b.model.stats().responses, 2);
}

/// The same bench on a Verilator model of the generator's emitted Verilog: with
/// reordering, jitter, stalls and refused responses all on, every handshake and counter
/// must match the IR simulator's run.
#[test]
fn a_verilator_model_sees_the_same_run() {
    let writes_then_reads: Vec<Req> = (0..12)
        .map(|i| Req {
            addr: 0x9000_0000 + 8 * i,
            write: true,
            data: i * 0x0101_0101_0101_0101,
            mask: 0xff,
            size: 3,
            tag: i,
        })
        .chain((0..12).map(|i| Req::read(0x9000_0000 + 8 * i, i)))
        .collect();
    let programs = vec![reads(24), writes_then_reads];
    let config = || {
        config(|c| {
            c.latency = 2;
            c.jitter = 3;
            c.out_of_order = true;
            c.stall_percent = 25;
            c.max_outstanding = 4;
            c.seed = 11;
        })
    };
    let refuse = |cycle: u64, port: usize| !(cycle + port as u64).is_multiple_of(3);
    let design = generator(2, 8);
    let model = Model::of_design(&design, &Options::default()).expect("model builds");
    let mut rtl = Bench::on(model, programs.clone(), config());
    let mut ir = Bench::new(programs, config());
    preload(&mut rtl, 0x8000_0000, 24);
    preload(&mut ir, 0x8000_0000, 24);
    rtl.resp_ready = Box::new(refuse);
    ir.resp_ready = Box::new(refuse);
    rtl.run().unwrap();
    ir.run().unwrap();
    assert_eq!(rtl.requests, ir.requests);
    assert_eq!(rtl.responses, ir.responses);
    assert_eq!(rtl.model.stats(), ir.model.stats());
    assert!(ir.model.stats().refused > 0);
    // Reads of the second port see the writes accepted before them; write 0 stores
    // zero, so its read is as zero as the writes' own responses.
    let port1 = ir.responses_of(1);
    let reads: Vec<&Event> = port1.iter().filter(|e| e.data != 0).collect();
    assert_eq!((port1.len(), reads.len()), (24, 11));
    for e in reads {
        assert_eq!(e.data, e.tag * 0x0101_0101_0101_0101);
    }
}
