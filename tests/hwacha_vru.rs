//! The vector runahead unit (`HwachaVru`, thesis 8.4) under Verilator against a reference
//! prefetch stream the test derives from what it generated, not from the RTL's decode.
//!
//! The test plays the rest of the system: the VRCMDQ (commands back-pressured by the VRU),
//! the scalar unit's block acknowledgements, the unit's `halt`, and the L2 port
//! (random ready, answers after 1-40 cycles in any order; instruction reads answered from
//! the image). Worker blocks are random sequences of unit-stride loads and stores (every
//! width, segments of 1-8), strided, indexed and scalar memory operations, arithmetic,
//! ended by `vstop` or a consensual jump and followed by more instructions the walk must
//! not reach; `va` bases are random, some outside the RAM window.
//!
//! - Exact: acknowledgements held back until the VRU is done, a queue and throttle that
//!   never fill: the prefetched lines are exactly the reference stream of every block but
//!   the first `vru_skip_blocks` of a session (the startup skip after its `vsetcfg`; 0
//!   and 2), in order.
//! - Random: acknowledgements after random delays (blocks are then aborted or dropped),
//!   a small queue and throttle, short halts: the prefetched lines are a subsequence of the
//!   reference stream of all blocks, never more than `trackers` prefetches are in flight,
//!   and the unit ends idle, with nothing in flight.
//!
//! The VRU's module is also linted (Verilator -Wall, Yosys, Icarus).

mod lint_rig;

use generators::hwacha::params::HwachaParams;
use generators::hwacha::rocc::vrcmd;
use generators::hwacha::scalar::RamWindow;
use generators::hwacha::vru::{vru, VruSystem};
use generators::l2::{Geometry, L2Cache, L2Params};
use hdl::{Bits, Design};
use std::collections::HashMap;
use verification::hwacha::asm::{assemble, Assembled};
use verification::hwacha::encoding::table;
use verification::rng::Rng;
use verification::verilator::{Model, Options};

const BASE: u64 = 0x8000_0000;
const SIZE: u64 = 0x10_0000;
const LINE: u64 = 64;
const TRACKERS: u32 = 5;

fn system() -> VruSystem {
    let l2 = L2Params {
        ports: 5,
        tag_bits: 4,
        cache: L2Cache::default(),
    };
    VruSystem {
        geometry: Geometry::new(&l2),
        trackers: TRACKERS,
    }
}

fn ram() -> RamWindow {
    RamWindow {
        base: BASE,
        size: SIZE,
    }
}

fn params(blocks: u32, throttle: u32, skip: u32) -> HwachaParams {
    HwachaParams {
        vru_blocks: blocks,
        vru_throttle_bytes: throttle,
        vru_skip_blocks: skip,
        ..HwachaParams::default()
    }
}

fn worker(text: &str) -> u64 {
    match assemble(text).unwrap_or_else(|e| panic!("{text}: {e:?}")) {
        Assembled::Worker(w) => w,
        other => panic!("{text}: {other:?}"),
    }
}

/// One generated block: its instruction words, and the accesses before its end that
/// the VRU must prefetch (`va` register, bytes per element times elements per segment).
struct Block {
    words: Vec<u64>,
    accesses: Vec<(usize, u64)>,
}

fn random_block(rng: &mut Rng) -> Block {
    let sizes = [("b", 1), ("h", 2), ("w", 4), ("d", 8)];
    let mut words = vec![];
    let mut accesses = vec![];
    let body = rng.below(8) as usize;
    let mut emit = |rng: &mut Rng, live: bool, words: &mut Vec<u64>| {
        let (sfx, bytes) = sizes[rng.below(4) as usize];
        let va = rng.below(8) as usize;
        let vv = 1 + rng.below(8);
        match rng.below(9) {
            0 | 1 => {
                let op = if rng.below(2) == 0 { "vl" } else { "vs" };
                words.push(worker(&format!("{op}{sfx} vv{vv}, va{va}")));
                if live {
                    accesses.push((va, bytes));
                }
            }
            2 => {
                let op = if rng.below(2) == 0 { "vlseg" } else { "vsseg" };
                let n = 1 + rng.below(8);
                words.push(worker(&format!("{op}{sfx} vv{vv}, va{va}, {n}")));
                if live {
                    accesses.push((va, bytes * n));
                }
            }
            3 => words.push(worker(&format!(
                "vlst{sfx} vv{vv}, va{va}, va{}",
                rng.below(8)
            ))),
            4 => words.push(worker(&format!("vlx{sfx} vv{vv}, vs2, vv{}", rng.below(8)))),
            5 => words.push(worker(&format!("vlad vs{vv}, va{va}"))),
            6 => words.push(worker(&format!(
                "vsst{sfx} vv{vv}, va{va}, va{}",
                rng.below(8)
            ))),
            _ => words.push(worker(&format!("vadd vv{vv}, vv{}, vs3", rng.below(8)))),
        }
    };
    for _ in 0..body {
        emit(rng, true, &mut words);
    }
    let end = match rng.below(4) {
        0 => table().get("vcjal").expect("vcjal").bits,
        1 => table().get("vcjalr").expect("vcjalr").bits,
        _ => worker("vstop"),
    };
    words.push(end);
    for _ in 0..3 {
        emit(rng, false, &mut words);
    }
    Block { words, accesses }
}

/// A session: a `vsetcfg`, the `va` values, then for each block a `vf` (address, vlen)
/// after any `vmca`s and `vsetvl`s.
struct Session {
    commands: Vec<(u64, u64, u64, u64)>,
    /// Each block's accesses, in `vf` order.
    blocks: Vec<Vec<(usize, u64)>>,
}

fn random_session(rng: &mut Rng, image: &mut HashMap<u64, u64>, blocks: usize) -> Session {
    let mut commands = vec![];
    let mut accesses = vec![];
    let vmca = |rng: &mut Rng, r: usize, commands: &mut Vec<_>| {
        let va = match rng.below(8) {
            0 => rng.below(1 << 32),
            1 => BASE + SIZE - rng.below(0x200),
            _ => BASE + 0x4_0000 + rng.below(0x8_0000),
        };
        commands.push((vrcmd::VMCA, r as u64, va, 0));
    };
    commands.push((vrcmd::CFG, 0, rng.below(1 << 20), 0));
    for r in 0..8 {
        vmca(rng, r, &mut commands);
    }
    // Blocks of a session at distinct 128-byte slots: one must not overwrite another.
    let mut slots = std::collections::HashSet::new();
    for _ in 0..blocks {
        let block = random_block(rng);
        let slot = loop {
            let slot = rng.below(0x200);
            if slots.insert(slot) {
                break slot;
            }
        };
        let at = BASE + 0x80 * slot + 8 * rng.below(2);
        for (i, w) in block.words.iter().enumerate() {
            image.insert(at + 8 * i as u64, *w);
        }
        for _ in 0..rng.below(3) {
            let r = rng.below(8) as usize;
            vmca(rng, r, &mut commands);
        }
        if rng.below(4) == 0 {
            commands.push((vrcmd::VSETVL, 0, rng.below(100), 0));
        }
        let most = if rng.below(4) == 0 { 1024 } else { 64 };
        let vlen = 1 + rng.below(most);
        commands.push((vrcmd::VF, 0, at, vlen));
        accesses.push(block.accesses);
    }
    Session {
        commands,
        blocks: accesses,
    }
}

/// The reference lines of a block's accesses: `vlen` elements from each `va` base,
/// clipped to the RAM window, in order.
fn block_lines(va: &[u64; 8], vlen: u64, accesses: &[(usize, u64)]) -> Vec<u64> {
    let mut lines = vec![];
    for &(r, bytes) in accesses {
        let (start, end) = (va[r], va[r] + vlen * bytes - 1);
        for line in start / LINE..=end / LINE {
            let a = line * LINE;
            if (BASE..BASE + SIZE).contains(&a) {
                lines.push(a);
            }
        }
    }
    lines
}

/// The test's side of every port, one cycle at a time.
struct Rig {
    dut: Model,
    image: HashMap<u64, u64>,
    /// Answers owed: (due cycle, tag, address).
    owed: Vec<(u64, u64, u64)>,
    in_flight: u32,
    prefetched: Vec<u64>,
    cycle: u64,
    /// The cycle of the VRU's last request.
    last_request: u64,
    /// The VRU's address registers 0-7 as the test wrote them: they keep their values
    /// from one session to the next (a `vmca` dropped by a halt leaves the old one).
    va: [u64; 8],
}

impl Rig {
    fn new(p: &HwachaParams) -> Rig {
        let top = vru(p, &system(), ram()).expect("elaborates");
        let mut dut = Model::of_design(&Design::new(&top), &Options::default()).expect("model");
        dut.poke_u64("reset", 1).unwrap();
        dut.step();
        dut.poke_u64("reset", 0).unwrap();
        // Registers 0-7 start at 0 (they have no reset): one `vmca` each, taken at once.
        for reg in 0..8 {
            for (port, v) in [
                ("vrcmd_valid", 1),
                ("vrcmd_bits_cmd", vrcmd::VMCA),
                ("vrcmd_bits_reg", reg),
                ("vrcmd_bits_value", 0),
            ] {
                dut.poke_u64(port, v).unwrap();
            }
            assert_eq!(
                dut.peek_u64("vrcmd_ready").unwrap(),
                1,
                "an idle VRU takes a vmca"
            );
            dut.step();
        }
        dut.poke_u64("vrcmd_valid", 0).unwrap();
        Rig {
            dut,
            image: HashMap::new(),
            owed: vec![],
            in_flight: 0,
            prefetched: vec![],
            cycle: 0,
            last_request: 0,
            va: [0; 8],
        }
    }

    fn peek(&mut self, port: &str) -> u64 {
        self.dut
            .peek_u64(port)
            .unwrap_or_else(|e| panic!("{port}: {e}"))
    }

    fn poke(&mut self, port: &str, v: u64) {
        self.dut
            .poke_u64(port, v)
            .unwrap_or_else(|e| panic!("{port}: {e}"));
    }

    /// One cycle: offers `cmd`, raises `ack`/`halt`; serves the port. Returns
    /// whether the command was taken.
    fn cycle(
        &mut self,
        rng: &mut Rng,
        cmd: Option<(u64, u64, u64, u64)>,
        ack: bool,
        halt: bool,
    ) -> bool {
        self.poke("vrcmd_valid", cmd.is_some() as u64);
        let (kind, reg, value, vlen) = cmd.unwrap_or_default();
        self.poke("vrcmd_bits_cmd", kind);
        self.poke("vrcmd_bits_reg", reg);
        self.poke("vrcmd_bits_value", value);
        self.poke("vrcmd_bits_vlen", vlen);
        self.poke("ack", ack as u64);
        self.poke("halt", halt as u64);
        // An answer due, if any (random order among those due).
        let due: Vec<usize> = (0..self.owed.len())
            .filter(|&i| self.owed[i].0 <= self.cycle)
            .collect();
        let answer = (!due.is_empty()).then(|| {
            self.owed
                .swap_remove(due[rng.below(due.len() as u64) as usize])
        });
        self.poke("mem_resp_valid", answer.is_some() as u64);
        let (_, tag, addr) = answer.unwrap_or_default();
        self.poke("mem_resp_bits_tag", tag);
        let chunk = addr & !15;
        let word = |a: u64| *self.image.get(&a).unwrap_or(&0);
        let data = Bits::from_words(128, &[word(chunk), word(chunk + 8)]);
        self.dut.poke("mem_resp_bits_data", &data).unwrap();
        assert!(
            answer.is_none() || self.peek("mem_resp_ready") == 1,
            "answers are always taken"
        );
        if answer.is_some() && tag & 1 == 0 {
            self.in_flight -= 1;
        }
        let ready = rng.below(4) != 0;
        self.poke("mem_req_ready", ready as u64);
        if ready && self.peek("mem_req_valid") == 1 {
            let (addr, tag) = (
                self.peek("mem_req_bits_addr"),
                self.peek("mem_req_bits_tag"),
            );
            assert_eq!(self.peek("mem_req_bits_write"), 0, "the VRU only reads");
            assert!(
                (BASE..BASE + SIZE).contains(&addr),
                "{addr:#x} outside the RAM window"
            );
            if tag & 1 == 0 {
                assert_eq!(addr % LINE, 0, "a prefetch reads a line's first beat");
                self.prefetched.push(addr);
                self.in_flight += 1;
                assert!(
                    self.in_flight <= TRACKERS,
                    "{} prefetches in flight",
                    self.in_flight
                );
            }
            self.owed.push((self.cycle + 1 + rng.below(40), tag, addr));
            self.last_request = self.cycle;
        }
        let taken = cmd.is_some() && self.peek("vrcmd_ready") == 1;
        self.dut.step();
        self.cycle += 1;
        taken
    }
}

/// When the test acknowledges blocks.
#[derive(Clone, Copy)]
enum Acks {
    /// Once every command is taken and the VRU is idle.
    AtEnd,
    /// One whenever a command has waited 100 cycles with no request from the VRU and
    /// nothing in flight (it is throttled, not walking), and the
    /// throttle checked: a `vf` is taken only while the bytes of the blocks walked and
    /// not acknowledged are below `throttle`, and only with fewer than `queue` of them.
    WhenStalled { throttle: u64, queue: usize },
    /// Each up to this many cycles after its `vf` was taken.
    Random(u64),
}

/// Drives `session`'s commands, acknowledging blocks by `acks`. Returns after every block
/// is acknowledged and the VRU is idle, with the reference lines of each block the VRU
/// took outside a halt (a halt drops commands, as the scalar unit does).
fn drive(
    rig: &mut Rig,
    rng: &mut Rng,
    session: &Session,
    acks: Acks,
    halts: bool,
) -> Vec<Vec<u64>> {
    // Bytes of each block taken and not acknowledged (the first skipped: none).
    let mut counted: std::collections::VecDeque<u64> = Default::default();
    let mut waited = 0;
    let mut blocks = session.blocks.iter();
    let mut reference = vec![];
    let mut next = 0;
    let mut taken_at = vec![];
    let mut acked = 0;
    let limit = rig.cycle + 400_000;
    loop {
        assert!(rig.cycle < limit, "the VRU does not finish (deadlock?)");
        let cmd =
            (next < session.commands.len() && rng.below(3) != 0).then(|| session.commands[next]);
        let done = next == session.commands.len();
        let ack = match acks {
            Acks::Random(_) => taken_at
                .get(acked)
                .is_some_and(|&(t, d)| rig.cycle >= t + d),
            Acks::AtEnd => done && acked < taken_at.len() && rig.peek("busy") == 0,
            Acks::WhenStalled { .. } => {
                let quiet = rig.cycle > rig.last_request + 100 && rig.owed.is_empty();
                acked < taken_at.len()
                    && ((waited >= 100 && quiet) || (done && rig.peek("busy") == 0))
            }
        };
        if ack {
            waited = 0;
            counted.pop_front();
        }
        let halt = halts && rng.below(500) == 0;
        if rig.cycle(rng, cmd, ack, halt) {
            let (kind, reg, value, vlen) = cmd.unwrap();
            if kind == vrcmd::VMCA && !halt {
                rig.va[reg as usize] = value;
            }
            if kind == vrcmd::VF {
                let accesses = blocks.next().expect("a block per vf");
                if !halt {
                    reference.push(block_lines(&rig.va, vlen, accesses));
                    let d = match acks {
                        Acks::Random(max) => rng.below(max + 1),
                        _ => 0,
                    };
                    taken_at.push((rig.cycle, d));
                }
                if let Acks::WhenStalled { throttle, queue } = acks {
                    let ahead: u64 = counted.iter().sum();
                    assert!(ahead < throttle, "a block taken with {ahead} bytes ahead");
                    assert!(counted.len() < queue, "a block taken with the queue full");
                    let bytes = accesses.iter().map(|&(_, b)| vlen * b).sum();
                    counted.push_back(if taken_at.len() == 1 { 0 } else { bytes });
                }
            }
            next += 1;
            waited = 0;
        } else if cmd.is_some() {
            waited += 1;
        }
        acked += ack as usize;
        if next == session.commands.len()
            && acked == taken_at.len()
            && rig.peek("busy") == 0
            && rig.owed.is_empty()
        {
            break;
        }
    }
    assert_eq!(rig.in_flight, 0);
    reference
}

fn is_subsequence(seen: &[u64], all: &[u64]) -> bool {
    let mut it = all.iter();
    seen.iter().all(|a| it.any(|b| b == a))
}

#[test]
fn prefetches_every_unit_stride_line_of_the_blocks_it_walks() {
    let mut rng = Rng::new(7);
    for skip in [0, 2] {
        let mut rig = Rig::new(&params(64, 1 << 24, skip));
        let mut walked = 0;
        for s in 0..12 {
            let session = random_session(&mut rng, &mut rig.image, 3 + s % 5);
            rig.prefetched.clear();
            let reference = drive(&mut rig, &mut rng, &session, Acks::AtEnd, false);
            // The startup skip: the first blocks after the session's vsetcfg are not
            // walked.
            let want: Vec<u64> = reference[skip as usize..].concat();
            assert_eq!(rig.prefetched, want, "skip {skip}, session {s}");
            walked += want.len();
        }
        assert!(walked > 400, "only {walked} lines prefetched");
    }
}

#[test]
fn the_throttle_and_the_queue_hold_it_back() {
    let mut rng = Rng::new(5);
    for (queue, throttle) in [(2, 1 << 20), (64, 2048), (4, 8192)] {
        let mut rig = Rig::new(&params(queue, throttle, 1));
        for s in 0..8 {
            let session = random_session(&mut rng, &mut rig.image, 4 + s % 5);
            rig.prefetched.clear();
            let acks = Acks::WhenStalled {
                throttle: throttle as u64,
                queue: queue as usize,
            };
            let reference = drive(&mut rig, &mut rng, &session, acks, false);
            assert_eq!(rig.prefetched, reference[1..].concat(), "session {s}");
        }
    }
}

#[test]
fn random_acknowledgements_halts_and_throttle_keep_it_consistent() {
    let mut rng = Rng::new(11);
    for (blocks, throttle) in [(2, 256), (4, 4096)] {
        let mut rig = Rig::new(&params(blocks, throttle, 0));
        let mut lines = 0;
        for s in 0..20 {
            let session = random_session(&mut rng, &mut rig.image, 2 + s % 7);
            rig.prefetched.clear();
            let delay = [0, 30, 300, 3000][s % 4];
            let reference = drive(
                &mut rig,
                &mut rng,
                &session,
                Acks::Random(delay),
                s % 3 == 0,
            );
            let all: Vec<u64> = reference.concat();
            if !is_subsequence(&rig.prefetched, &all) {
                for (i, b) in reference.iter().enumerate() {
                    eprintln!("block {i}: {:x?}", b);
                }
                eprintln!("seen: {:x?}", rig.prefetched);
            }
            assert!(
                is_subsequence(&rig.prefetched, &all),
                "session {s}: not in block order"
            );
            lines += rig.prefetched.len();
        }
        eprintln!("queue {blocks}, throttle {throttle}: {lines} lines prefetched");
        assert!(lines > 20, "only {lines} lines prefetched");
    }
}

/// The default, and every parameter at its extremes: queue, throttle, skip, trackers,
/// L2 lines of 16 and 128 bytes, a RAM window reaching 2^32, the vector length of the
/// largest register file.
#[test]
fn the_vru_is_lint_clean_at_its_extremes() {
    let l2 = |line_bytes, banks| {
        let cache = L2Cache {
            line_bytes,
            banks,
            ..L2Cache::default()
        };
        Geometry::new(&L2Params {
            ports: 32,
            tag_bits: 1,
            cache,
        })
    };
    let small = HwachaParams {
        vru_skip_blocks: 0,
        vru_blocks: 2,
        vru_throttle_bytes: 256,
        ..HwachaParams::default()
    };
    let large = HwachaParams {
        vru_skip_blocks: 4,
        vru_blocks: 64,
        vru_throttle_bytes: 1 << 24,
        vrcmdq_entries: 256,
        lanes: 64,
        banks: 16,
        bank_entries: 4096,
        pred_entries: 4096,
        mixed_precision: true,
        ..HwachaParams::default()
    };
    let top = RamWindow {
        base: 0x1000,
        size: (1 << 32) - 0x1000,
    };
    let sys = |geometry, trackers| VruSystem { geometry, trackers };
    let blocks = [
        vru(&params(8, 64 << 10, 1), &system(), ram()).expect("elaborates"),
        vru(&small, &sys(l2(16, 1), 1), ram()).expect("elaborates"),
        vru(&large, &sys(l2(128, 16), 21), top).expect("elaborates"),
    ];
    lint_rig::lint_blocks("hwacha_vru", &blocks);
}
