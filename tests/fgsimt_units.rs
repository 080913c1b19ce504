//! Blocks of the FG-SIMT engine under Verilator, each in lockstep with the golden model's
//! version of it (`verification::fgsimt`): the AWFR and PWFB (`cp/pwfb.rs`) against the
//! two-stack model on random divergence, merging, looping and returning threads at warp
//! sizes 1 to 32; the affine ALU and stride unit (`cp/affine_alu.rs`) against the affine
//! rules on random compact operands; a lane's SRF bank (`lane/srf.rs`) against an array
//! of optional values (unwritten registers read the ABI's initial values), with 1 and 4
//! warp contexts; the warp contexts (`cp/contexts.rs`) against a reference of their
//! round-robin pick and load suspensions. Every block is lint clean at the shapes it
//! accepts.

use generators::fgsimt::cp::affine_alu::{affine_alu, op};
use generators::fgsimt::cp::contexts::contexts;
use generators::fgsimt::cp::pwfb::pwfb;
use generators::fgsimt::cp::shared_load::shared_load;
use generators::fgsimt::cp::shared_load_cache::SharedLoadCacheParams;
use generators::fgsimt::lane::sfpu::{latency as sfpu_latency, sfpu};
use generators::fgsimt::lane::srf::{init_sp_port, srf, REGS};
use hdl::Design;
use std::rc::Rc;
use verification::fgsimt::affine::alu::{alu, Compact, Op};
use verification::fgsimt::pwfb::Pwfb;
use verification::fp::FpOp;
use verification::rng::Rng;
use verification::verilator::{Model, Options};

mod lint_rig;

fn full(w: u32) -> u64 {
    if w == 32 {
        u32::MAX as u64
    } else {
        (1 << w) - 1
    }
}

/// A random non-empty proper subset of `mask` (which has at least two threads).
fn split(rng: &mut Rng, mask: u32) -> u32 {
    loop {
        let s = mask & rng.next_u64() as u32;
        if s != 0 && s != mask {
            return s;
        }
    }
}

/// Runs `warps` random warps on the RTL and the model side by side.
fn lockstep(w: u32, warps: u32, seed: u64) {
    let mut m = Model::of_design(&Design::new(&pwfb(w).unwrap()), &Options::default()).unwrap();
    m.restart(seed).unwrap();
    let mut rng = Rng::new(seed);
    let pcs: Vec<u64> = (0..12).map(|i| 0x8000_0100 + 4 * i).collect();
    let (mut merges, mut max_pending) = (0, 0);
    for _ in 0..warps {
        let mask = full(w) as u32;
        let start = *rng.pick(&pcs);
        let mut model = Pwfb::new(start, mask);
        m.poke_u64("start", 1).unwrap();
        m.poke_u64("start_pc", start).unwrap();
        m.poke_u64("start_mask", mask as u64).unwrap();
        m.step();
        m.poke_u64("start", 0).unwrap();
        for n in 0.. {
            // At most one normalising cycle.
            if m.peek_u64("awfr_valid").unwrap() == 0 && m.peek_u64("done").unwrap() == 0 {
                m.step();
            }
            let Some(f) = model.select() else {
                assert_eq!(m.peek_u64("done").unwrap(), 1, "warp {w}: model done");
                break;
            };
            assert_eq!(m.peek_u64("awfr_valid").unwrap(), 1, "step {n}");
            let rtl = (
                m.peek_u64("awfr_pc_out").unwrap(),
                m.peek_u64("awfr_mask_out").unwrap(),
            );
            assert_eq!(rtl, (f.pc, f.mask as u64), "warp size {w}, step {n}");
            let pending = m.peek_u64("pending").unwrap() as usize;
            assert!(pending <= model.pending(), "one array entry per pc");
            if pending < model.pending() {
                merges += 1;
            }
            max_pending = max_pending.max(pending);
            let next = *rng.pick(&pcs);
            let push = f.mask.count_ones() >= 2 && rng.chance(35);
            let taken = if push { split(&mut rng, f.mask) } else { 0 };
            let target = *rng.pick(&pcs);
            let exit = if rng.chance(6) {
                f.mask & !taken & rng.next_u64() as u32
            } else {
                0
            };
            if push {
                model.push_taken(f.pc, target, taken);
            }
            model.awfr.pc = next;
            model.awfr.mask &= !exit;
            for (port, v) in [
                ("update", 1),
                ("upd_pc", next),
                ("upd_exit_mask", exit as u64),
                ("upd_push", push as u64),
                ("upd_push_pc", target),
                ("upd_push_mask", taken as u64),
            ] {
                m.poke_u64(port, v).unwrap();
            }
            m.step();
            m.poke_u64("update", 0).unwrap();
            assert!(n < 10_000, "a warp that never ends");
        }
    }
    if w > 2 {
        assert!(max_pending >= 3 && merges > 0, "{max_pending} {merges}");
    }
}

#[test]
fn pwfb_matches_the_two_stack_model() {
    for (w, warps) in [(1, 20), (4, 300), (32, 400)] {
        lockstep(w, warps, w as u64);
    }
}

#[test]
fn blocks_are_lint_clean() {
    let mut blocks: Vec<_> = [1, 2, 4, 8, 16, 32]
        .iter()
        .map(|&w| pwfb(w).unwrap())
        .collect();
    blocks.extend([1, 8, 32].iter().map(|&w| affine_alu(w).unwrap()));
    blocks.extend(
        [(1, 1, 1, 1), (4, 1, 6, 3), (32, 1, 2, 1), (2, 8, 3, 2)]
            .iter()
            .map(|&(t, k, r, w)| srf(t, k, (r, w)).unwrap()),
    );
    blocks.extend([1, 3, 5].iter().map(|&s| sfpu(s).unwrap()));
    blocks.extend(
        [(2, 1), (8, 32)]
            .iter()
            .map(|&(n, w)| contexts(n, w).unwrap()),
    );
    // The shared-load unit without a cache and with 1, 8 and 32 words (lanes 1, 8, 32;
    // with and without an uncached region).
    blocks.extend(
        [(0, 2, 0x1000), (1, 1, 0x1000), (8, 8, 0x1000), (32, 32, 0)]
            .iter()
            .map(|&(entries, lanes, uncached_size)| {
                shared_load(
                    &SharedLoadCacheParams {
                        entries,
                        lanes,
                        uncached_base: 0x8000_0000,
                        uncached_size,
                    },
                    6 + entries.min(2).trailing_zeros(),
                )
                .unwrap()
            }),
    );
    // The re-convergence directory's reader at the smallest and largest tables.
    blocks.extend([1, 64].iter().map(|&branch_entries| {
        generators::fgsimt::cp::branch_directory::branch_directory(
            &generators::fgsimt::params::FgsimtParams {
                reconv: generators::fgsimt::params::Reconvergence::Stack,
                branch_entries,
                ..Default::default()
            },
        )
        .unwrap()
    }));
    lint_rig::lint_blocks("fgsimt cp", &blocks);
}

/// The model's operation for each of the ALU's codes.
const OPS: [(u64, Op); 11] = [
    (op::ADD, Op::Add),
    (op::SUB, Op::Sub),
    (op::MUL, Op::Mul),
    (op::SLL, Op::Sll),
    (op::SRL, Op::Srl),
    (op::SRA, Op::Sra),
    (op::SLT, Op::Other(|a, b| ((a as i32) < (b as i32)) as u32)),
    (op::SLTU, Op::Other(|a, b| (a < b) as u32)),
    (op::XOR, Op::Other(|a, b| a ^ b)),
    (op::OR, Op::Other(|a, b| a | b)),
    (op::AND, Op::And),
];

/// A compact operand biased to the cases the rules tell apart.
fn operand(rng: &mut Rng, uniform: bool) -> Compact {
    let base = match rng.below(4) {
        0 => rng.below(64) as u32,
        1 => (rng.below(64) as u32).wrapping_neg(),
        2 => 0x7fff_fff0 + rng.below(32) as u32,
        _ => rng.next_u64() as u32,
    };
    let stride = match rng.below(5) {
        _ if uniform => 0,
        0 => rng.next_u64() as i16,
        1 => *rng.pick(&[1, 2, 4, -1, -4, -256, i16::MIN, i16::MAX]),
        2 => (rng.below(64) as i16) << rng.below(10),
        _ => rng.below(16) as i16 - 8,
    };
    Compact { base, stride }
}

#[test]
fn affine_alu_matches_the_rules() {
    for warp in [8, 32] {
        let top = affine_alu(warp).unwrap();
        let mut m = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
        let mut rng = Rng::new(warp as u64);
        let mut compact = [0u32; 11];
        for n in 0..40_000 {
            let (code, model_op) = OPS[n % OPS.len()];
            let a_uniform = rng.chance(30);
            let mut a = operand(&mut rng, a_uniform);
            let shift = (op::SLL..=op::SRA).contains(&code);
            let b_uniform = shift || rng.chance(50);
            let mut b = operand(&mut rng, b_uniform);
            if shift && rng.chance(80) {
                b.base = rng.below(32) as u32;
            }
            if code == op::AND && rng.chance(60) {
                b = Compact::uniform((1u32 << rng.below(32)).wrapping_sub(1));
                if rng.chance(30) {
                    (a, b) = (b, a);
                }
            }
            if rng.chance(3) {
                b.stride = 1; // a shift by an affine amount, or an affine product
            }
            for (port, v) in [
                ("op", code),
                ("a_base", a.base as u64),
                ("a_stride", a.stride as u16 as u64),
                ("b_base", b.base as u64),
                ("b_stride", b.stride as u16 as u64),
            ] {
                m.poke_u64(port, v).unwrap();
            }
            let rtl = (m.peek_u64("ok").unwrap() == 1).then(|| Compact {
                base: m.peek_u64("base").unwrap() as u32,
                stride: m.peek_u64("stride").unwrap() as u16 as i16,
            });
            let want = alu(model_op, a, b, warp);
            assert_eq!(rtl, want, "{model_op:?} {a:?} {b:?} warp {warp}");
            compact[n % OPS.len()] += want.is_some() as u32;
        }
        assert!(compact.iter().all(|&c| c > 300), "{compact:?}");
    }
}

/// The SRF bank's reference: per context, slot and register, the value written since
/// the context's warp started, if any; each context's initial sp per slot, gp and tp.
struct SrfRef {
    cells: Vec<Vec<[Option<u32>; REGS as usize]>>,
    init: Vec<(Vec<u32>, u32, u32)>,
}

impl SrfRef {
    fn read(&self, ctx: usize, reg: usize, slot: usize) -> u32 {
        let init = &self.init[ctx];
        match (reg, self.cells[ctx][slot][reg]) {
            (0, _) => 0,
            (_, Some(v)) => v,
            (2, None) => init.0[slot],
            (3, None) => init.1,
            (4, None) => init.2,
            _ => 0,
        }
    }
}

#[test]
fn srf_bank_matches_an_array_with_initial_values() {
    for (slots, contexts, (reads, writes)) in [(4, 1, (6, 3)), (1, 1, (2, 1)), (2, 4, (3, 2))] {
        let top = srf(slots, contexts, (reads, writes)).unwrap();
        let mut m = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
        m.restart(slots as u64).unwrap();
        let mut rng = Rng::new(slots as u64 * 7 + contexts as u64);
        let (s, n) = (slots as usize, contexts as usize);
        let mut r = SrfRef {
            cells: vec![vec![[None; REGS as usize]; s]; n],
            init: vec![(vec![0; s], 0, 0); n],
        };
        // Registers 0-7 and 32-35 mostly, so reads often meet writes and initial values.
        let reg = |rng: &mut Rng| {
            let r = if rng.chance(80) {
                rng.below(8) as usize
            } else {
                rng.below(REGS as u64) as usize
            };
            (rng.below(contexts as u64) as usize, r)
        };
        let (mut initial_reads, mut written_reads) = (0, 0);
        // (The 4-context bank's model is the slow one.)
        for cycle in 0..20_000 / contexts as usize {
            // A context's warp starts every 500 / contexts cycles (all at the first).
            let starting: Vec<usize> = (0..n)
                .filter(|&k| cycle == 0 || cycle % 500 == k * 500 / n && cycle > k)
                .collect();
            for &k in &starting {
                // gp and tp are the launch's: every context's start sees the same.
                let gp_tp = (rng.next_u64() as u32, rng.next_u64() as u32);
                r.init[k] = (
                    (0..s).map(|_| rng.next_u64() as u32).collect(),
                    gp_tp.0,
                    gp_tp.1,
                );
                for (c, v) in r.init[k].0.iter().enumerate() {
                    let port = init_sp_port(contexts, k as u32, c as u32);
                    m.poke_u64(&port, *v as u64).unwrap();
                }
            }
            // The bank reads gp and tp from its inputs: the last start's.
            if let Some(&k) = starting.last() {
                for j in 0..n {
                    (r.init[j].1, r.init[j].2) = (r.init[k].1, r.init[k].2);
                }
                m.poke_u64("init_gp", r.init[k].1 as u64).unwrap();
                m.poke_u64("init_tp", r.init[k].2 as u64).unwrap();
            }
            let start_bits = starting.iter().fold(0u64, |a, &k| a | 1 << k);
            m.poke_u64("warp_start", start_bits).unwrap();
            for i in 0..reads {
                let ((k, g), c) = (reg(&mut rng), rng.below(slots as u64) as usize);
                m.poke_u64(&format!("r{i}_reg"), (k * 64 + g) as u64)
                    .unwrap();
                m.poke_u64(&format!("r{i}_slot"), c as u64).unwrap();
                let got = m.peek_u64(&format!("r{i}_data")).unwrap() as u32;
                assert_eq!(
                    got,
                    r.read(k, g, c),
                    "cycle {cycle}: read context {k} x/f{g} slot {c}: {:?} {:?}",
                    r.cells[k][c][g],
                    r.init[k]
                );
                if g > 0 && r.cells[k][c][g].is_some() {
                    written_reads += 1
                } else {
                    initial_reads += 1
                }
            }
            let mut pending = Vec::new();
            for i in 0..writes {
                let ((k, g), c, v) = (
                    reg(&mut rng),
                    rng.below(slots as u64) as usize,
                    rng.next_u64() as u32,
                );
                // The SIU writes no context in the cycle its warp starts.
                let en = !starting.contains(&k) && rng.chance(60);
                for (port, val) in [
                    ("en", en as u64),
                    ("reg", (k * 64 + g) as u64),
                    ("slot", c as u64),
                    ("data", v as u64),
                ] {
                    m.poke_u64(&format!("w{i}_{port}"), val).unwrap();
                }
                if en {
                    pending.push((k, g, c, v));
                }
            }
            m.step();
            for &k in &starting {
                r.cells[k] = vec![[None; REGS as usize]; s];
            }
            for (k, g, c, v) in pending {
                r.cells[k][c][g] = Some(v); // in port order: the higher port wins
            }
        }
        assert!(
            initial_reads > 1_000 && written_reads > 1_000,
            "{initial_reads} {written_reads}"
        );
    }
}

/// An RV32F instruction the lane's FP unit executes: its word (rd, rs1, rs2 zero) and
/// the golden model's operation (`None`: a move, the result is operand a).
fn fp_instruction(rng: &mut Rng) -> (u32, Option<FpOp>) {
    use verification::fp::{Arith, FCmp, Fma, Fmt::S, IntKind};
    let rm = *rng.pick(&[0u32, 1, 2, 3, 4, 7]);
    let op_fp = |funct7: u32, rs2: u32, f3: u32| funct7 << 25 | rs2 << 20 | f3 << 12 | 0x53;
    let (word, op) = match rng.below(20) {
        0 => (op_fp(0x00, 0, rm), Some(FpOp::Arith(Arith::Add, S))),
        1 => (op_fp(0x04, 0, rm), Some(FpOp::Arith(Arith::Sub, S))),
        2 => (op_fp(0x08, 0, rm), Some(FpOp::Arith(Arith::Mul, S))),
        3 => (op_fp(0x10, 0, 0), Some(FpOp::Arith(Arith::Sgnj, S))),
        4 => (op_fp(0x10, 0, 1), Some(FpOp::Arith(Arith::Sgnjn, S))),
        5 => (op_fp(0x10, 0, 2), Some(FpOp::Arith(Arith::Sgnjx, S))),
        6 => (op_fp(0x14, 0, 0), Some(FpOp::Arith(Arith::Min, S))),
        7 => (op_fp(0x14, 0, 1), Some(FpOp::Arith(Arith::Max, S))),
        8 => (op_fp(0x60, 0, rm), Some(FpOp::ToInt(S, IntKind::W))),
        9 => (op_fp(0x60, 1, rm), Some(FpOp::ToInt(S, IntKind::Wu))),
        10 => (op_fp(0x68, 0, rm), Some(FpOp::FromInt(IntKind::W, S))),
        11 => (op_fp(0x68, 1, rm), Some(FpOp::FromInt(IntKind::Wu, S))),
        12 => (op_fp(0x50, 0, 2), Some(FpOp::Cmp(FCmp::Eq, S))),
        13 => (op_fp(0x50, 0, 1), Some(FpOp::Cmp(FCmp::Lt, S))),
        14 => (op_fp(0x50, 0, 0), Some(FpOp::Cmp(FCmp::Le, S))),
        15 => (op_fp(0x70, 0, 1), Some(FpOp::Class(S))),
        16 => (op_fp(0x70, 0, 0), None),
        17 => (op_fp(0x78, 0, 0), None),
        _ => {
            let (opcode, kind) = *rng.pick(&[
                (0x43, Fma::Madd),
                (0x47, Fma::Msub),
                (0x4b, Fma::Nmsub),
                (0x4f, Fma::Nmadd),
            ]);
            (rm << 12 | opcode, Some(FpOp::Fma(kind, S)))
        }
    };
    (word, op)
}

/// A single operand: a special value or random bits.
fn fp_operand(rng: &mut Rng) -> u32 {
    if rng.chance(40) {
        *rng.pick(&verification::randgen::SPECIAL_S)
    } else {
        rng.next_u64() as u32
    }
}

/// The lane FP unit behind the CP's decoder (a test wrapper: `insn` in, the SIU's
/// decode of it): the unit and op fields as the SIU will send them.
fn sfpu_bench(fma_stages: u32) -> Rc<hdl::Module> {
    use generators::rocket::decode::decode;
    let mut m = hdl::ModuleBuilder::new("SfpuBench");
    let insn = m.input("insn", 32);
    let valid = m.input("valid", 1);
    let u = m.instance("fpu", &sfpu(fma_stages).unwrap());
    let c = decode(&insn, false, 32, true);
    let fp = c.fp.unwrap();
    let rm = insn.slice(14, 12);
    let dynamic = rm.eq(&insn.konst(hdl::Bits::from_u64(3, 7)));
    m.connect(&u.port("in_valid"), &valid);
    m.connect(&u.port("in_unit"), &fp.unit);
    m.connect(&u.port("in_op"), &fp.op);
    m.connect(
        &u.port("in_rm"),
        &hdl::mux(&dynamic, &insn.konst(hdl::Bits::zero(3)), &rm),
    );
    for name in ["a", "b", "c"] {
        let v = m.input(name, 32);
        m.connect(&u.port(&format!("in_{name}")), &v);
    }
    for name in ["out_valid", "out_data"] {
        let p = u.port(name);
        let o = m.output(name, p.width());
        m.connect(&o, &p);
    }
    m.finish().unwrap()
}

/// Random operations (every unit, rounding mode and special value) enter the lane's FP
/// unit one a cycle with random bubbles; each result leaves exactly `latency` cycles
/// later and equals the golden model's (`verification::fp`, the ISS's FP).
#[test]
fn lane_fpu_is_pipelined_and_matches_the_iss() {
    for stages in [1, 3, 5] {
        let lat = sfpu_latency(stages) as usize;
        let mut m =
            Model::of_design(&Design::new(&sfpu_bench(stages)), &Options::default()).unwrap();
        m.restart(stages as u64).unwrap();
        let mut rng = Rng::new(stages as u64);
        let mut expected: std::collections::VecDeque<Option<u32>> = vec![None; lat].into();
        for i in 0..20_000 {
            let go = rng.chance(80);
            let (word, op) = fp_instruction(&mut rng);
            let [a, b, c] = [0; 3].map(|_| fp_operand(&mut rng));
            for (port, v) in [
                ("valid", go as u32),
                ("insn", word),
                ("a", a),
                ("b", b),
                ("c", c),
            ] {
                m.poke_u64(port, v as u64).unwrap();
            }
            let want = expected.pop_front().unwrap();
            assert_eq!(
                m.peek_u64("out_valid").unwrap() == 1,
                want.is_some(),
                "cycle {i}"
            );
            if let Some(v) = want {
                assert_eq!(m.peek_u64("out_data").unwrap() as u32, v, "cycle {i}");
            }
            let rm = (word >> 12) & 7;
            let round = verification::fp::round_of(if rm == 7 { 0 } else { rm });
            let result = match op {
                Some(op) => {
                    verification::fp::execute(op, a as u64, b as u64, c as u64, round).0 as u32
                }
                None => a,
            };
            expected.push_back(go.then_some(result));
            m.step();
        }
    }
}

/// The warp contexts' reference (`cp/contexts.rs`): each context's AWFR (pc, mask; no
/// pending fragments in this test), the current context and the load suspensions.
#[derive(Clone)]
struct ContextsRef {
    pc: Vec<u32>,
    mask: Vec<u32>,
    waiting: Vec<bool>,
    cur: usize,
}

impl ContextsRef {
    /// Contexts that may fetch: holding a warp (`running`) with threads in the AWFR and
    /// no load waited for; when every such context waits for a load, all of them.
    fn eligible(&self, running: u32) -> Vec<bool> {
        let ready: Vec<bool> = (0..self.pc.len())
            .map(|k| running >> k & 1 == 1 && self.mask[k] != 0)
            .collect();
        let free: Vec<bool> = ready
            .iter()
            .zip(&self.waiting)
            .map(|(&r, &w)| r && !w)
            .collect();
        if free.contains(&true) {
            free
        } else {
            ready
        }
    }

    /// The next current context on `leave`: the first eligible one after the current in
    /// round-robin order (the current last).
    fn next(&self, eligible: &[bool]) -> usize {
        let n = eligible.len();
        (1..=n)
            .map(|i| (self.cur + i) % n)
            .find(|&k| eligible[k])
            .unwrap_or(self.cur)
    }

    /// Where a load's switch goes (`peek_other`, `peek_pc`): the next context with the
    /// current one counted as waiting, if it is another.
    fn peek(&self, running: u32) -> Option<usize> {
        let mut waits = self.clone();
        waits.waiting[self.cur] = true;
        let eligible = waits.eligible(running);
        let next = self.next(&eligible);
        (eligible.contains(&true) && next != self.cur).then_some(next)
    }
}

/// `FgsimtContexts` against [`ContextsRef`] under random starts, updates (threads
/// returning), `running`, `leave` and load suspensions: the current context's AWFR,
/// `eligible`, `dones`, where a load's switch would go (`peek_*`) and the round-robin
/// pick every cycle (a `leave` with `load_sent` goes to the peek: the free switch), at
/// 2, 4 and 8 contexts.
#[test]
fn contexts_pick_round_robin_and_suspend_on_loads() {
    for warps in [2u32, 4, 8] {
        let w = 8;
        let top = contexts(warps, w).unwrap();
        let mut m = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
        m.restart(warps as u64).unwrap();
        let mut rng = Rng::new(91 + warps as u64);
        let n = warps as usize;
        let mut r = ContextsRef {
            pc: vec![0; n],
            mask: vec![0; n],
            waiting: vec![false; n],
            cur: 0,
        };
        let mut running = 0u32;
        let (mut switches, mut suspended) = (0, 0);
        for cycle in 0..20_000 {
            if rng.chance(5) {
                running = rng.next_u64() as u32 & ((1 << n) - 1);
            }
            // Every context starts in the first cycles (the AWFR has no reset).
            let start = match cycle < n {
                true => Some(cycle),
                false => rng.chance(10).then(|| rng.below(n as u64) as usize),
            };
            let update = start.is_none() && rng.chance(40);
            let exit = if rng.chance(20) {
                rng.next_u64() as u32 & 0xff
            } else {
                0
            };
            let (leave, sent) = (rng.chance(30), rng.chance(10));
            let done = rng.chance(15).then(|| rng.below(n as u64) as usize);
            let (pc, mask) = (rng.next_u64() as u32 & !3, rng.next_u64() as u32 & 0xff);
            let pokes = [
                ("start", start.is_some() as u64),
                ("start_ctx", start.unwrap_or(0) as u64),
                ("start_pc", pc as u64),
                ("start_mask", mask as u64),
                ("update", update as u64),
                ("upd_pc", pc.wrapping_add(4) as u64),
                ("upd_exit_mask", exit as u64),
                ("upd_push", 0),
                ("upd_push_pc", 0),
                ("upd_push_mask", 0),
                ("running", running as u64),
                ("leave", leave as u64),
                ("load_sent", sent as u64),
                ("load_done", done.is_some() as u64),
                ("load_ctx", done.unwrap_or(0) as u64),
            ];
            for (port, v) in pokes {
                m.poke_u64(port, v).unwrap();
            }
            let eligible = r.eligible(running);
            let peek = r.peek(running);
            let c = r.cur;
            let dones = (0..n).fold(0, |a, k| {
                a | ((running >> k & 1 == 1 && r.mask[k] == 0) as u64) << k
            });
            let want = [
                ("ctx", c as u64),
                ("awfr_valid", (r.mask[c] != 0) as u64),
                ("awfr_pc_out", r.pc[c] as u64),
                ("awfr_mask_out", r.mask[c] as u64),
                ("eligible", eligible[c] as u64),
                ("dones", dones),
                ("peek_other", peek.is_some() as u64),
                ("peek_pc", peek.map_or(0, |k| r.pc[k]) as u64),
            ];
            let peeked = |&(port, _): &(&str, u64)| port != "peek_pc" || peek.is_some();
            for (port, v) in want.into_iter().filter(|_| cycle >= n).filter(peeked) {
                assert_eq!(
                    m.peek_u64(port).unwrap(),
                    v,
                    "{warps} contexts, cycle {cycle}: {port}"
                );
            }
            m.step();
            if let Some(k) = start {
                (r.pc[k], r.mask[k]) = (pc, mask);
            } else if update {
                r.pc[c] = pc.wrapping_add(4);
                r.mask[c] &= !exit;
            }
            if let Some(k) = done {
                r.waiting[k] = false;
            }
            if sent {
                r.waiting[c] = true;
                suspended += 1;
            }
            let to = match sent {
                true => peek,
                false => eligible.contains(&true).then(|| r.next(&eligible)),
            };
            if let (true, Some(next)) = (leave, to) {
                switches += (next != c) as u32;
                r.cur = next;
            }
        }
        assert!(
            switches > 500 && suspended > 1_000,
            "{switches} {suspended}"
        );
    }
}

/// The re-convergence directory's reader (`cp/branch_directory.rs`) on the IR simulator,
/// its I$ port served by a memory holding the directory the loader lays out
/// (`verification::fgsimt::dws::directory`) beside random SPMD programs: a launch of
/// each kernel writes exactly its branches, as the golden model's analysis of its code
/// gives them (`Cfg::of_kernel`: pc, post-dominator, short block), into the table, in
/// order, and says `ready`; a launch of an entry the directory lacks, and of a kernel
/// with more branches than the table holds, raises `fault` and writes nothing. The
/// memory answers 1-3 cycles late and the fetch unit is not always `quiet`.
#[test]
fn branch_directory_loads_the_launched_kernels_branches() {
    use generators::fgsimt::cp::branch_directory::branch_directory;
    use generators::fgsimt::params::{FgsimtParams, Reconvergence};
    use hdl::sim::{Init, Sim};
    use verification::fgsimt::dws::cfg::Cfg;
    use verification::fgsimt::dws::directory::{layout, DirectoryShape};
    use verification::randgen::simt::{build_simt, SimtShape};

    let dir = tempfile::tempdir().unwrap();
    let mut kernels: Vec<(u64, Cfg)> = Vec::new();
    let mut program = None;
    for seed in 0..3 {
        let shape = SimtShape { len: 60, fp: false };
        let elf = build_simt(seed, shape, dir.path()).unwrap();
        let p = verification::elf::load_file(&elf).unwrap();
        let iss = verification::fgsimt::program::host(&p, Default::default()).unwrap();
        for entry in verification::fgsimt::program::launched_entries(&p, 10_000_000).unwrap() {
            // Each program's kernels, at addresses of their own in this directory.
            let shifted = entry + 0x1000 * seed;
            kernels.push((shifted, Cfg::of_kernel(&iss, entry).unwrap()));
        }
        program.get_or_insert(p);
    }
    let program = program.unwrap();
    let most = kernels
        .iter()
        .map(|(_, c)| c.branches().len())
        .max()
        .unwrap();
    assert!(
        most >= 2,
        "the random kernels have branches ({most} at most)"
    );
    let base = 0x4000_0000;
    let d = layout(
        &program,
        &DirectoryShape {
            base,
            branch_entries: 64,
            short_block: 50,
        },
        &kernels,
    )
    .unwrap();
    // Tables of every size, and one smaller than the largest kernel.
    for entries in [64, most as u32 - 1] {
        let p = FgsimtParams {
            reconv: Reconvergence::Stack,
            branch_entries: entries,
            dws_directory: base,
            ..FgsimtParams::default()
        };
        let mut sim = Sim::with_init(
            &Design::new(&branch_directory(&p).unwrap()),
            Init::Random { seed: 7 },
        );
        let mut rng = Rng::new(entries as u64);
        sim.poke_u64("reset", 1).unwrap();
        sim.step();
        sim.poke_u64("reset", 0).unwrap();
        let mut launches: Vec<u64> = kernels.iter().map(|(e, _)| *e).collect();
        launches.push(0x4000_0004); // in no program
        for &entry in &launches {
            let expected = kernels
                .iter()
                .find(|(e, _)| *e == entry)
                .map(|(_, c)| c.branches());
            let fits = expected
                .as_ref()
                .is_some_and(|b| b.len() <= entries as usize);
            let (writes, fault) = launch(&mut sim, &mut rng, (entry, base, &d.bytes));
            match (&expected, fits) {
                (Some(branches), true) => {
                    assert!(!fault, "kernel {entry:#x}: a fault");
                    let want: Vec<(u64, u64, bool)> = (branches.iter())
                        .map(|(pc, i)| (*pc, i.ipdom, i.short(50)))
                        .collect();
                    let got: Vec<(u64, u64, bool)> = writes
                        .iter()
                        .enumerate()
                        .map(|(k, &(index, pc, ipdom, short))| {
                            assert_eq!(index, k as u64, "kernel {entry:#x}: entries in order");
                            (pc, ipdom, short)
                        })
                        .collect();
                    assert_eq!(got, want, "kernel {entry:#x} with {entries} entries");
                }
                _ => {
                    assert!(fault, "kernel {entry:#x} ({expected:?}): no fault");
                    assert!(writes.is_empty(), "kernel {entry:#x}: written {writes:?}");
                }
            }
        }
    }
}

/// One launch of `entry` on the directory reader, the directory's `bytes` at `base`:
/// the table writes (index, pc, post-dominator, short) until `ready`, or whether it
/// faulted.
fn launch(
    sim: &mut hdl::sim::Sim,
    rng: &mut Rng,
    (entry, base, bytes): (u64, u64, &[u8]),
) -> (Vec<(u64, u64, u64, bool)>, bool) {
    let read = |addr: u64| {
        let at = (addr - base) as usize;
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
    };
    sim.poke_u64("go", 1).unwrap();
    sim.poke_u64("entry", 0).unwrap();
    sim.step();
    assert_eq!(
        sim.peek_u64("ready").unwrap(),
        0,
        "not ready after a launch"
    );
    sim.poke_u64("go", 0).unwrap();
    sim.poke_u64("entry", entry).unwrap();
    let mut writes = Vec::new();
    let mut answer: Option<(u64, u64)> = None;
    for _ in 0..10_000 {
        let quiet = rng.below(4) != 0;
        sim.poke_u64("quiet", quiet as u64).unwrap();
        sim.poke_u64("req_ready", 1).unwrap();
        let due = answer.filter(|&(_, at)| at == 0);
        sim.poke_u64("resp_valid", due.is_some() as u64).unwrap();
        sim.poke_u64("resp_bits_data", due.map_or(rng.next_u64(), |(d, _)| d))
            .unwrap();
        if due.is_some() {
            answer = None;
        }
        if sim.peek_u64("req_valid").unwrap() == 1 {
            assert!(quiet, "a request while the fetch unit is not quiet");
            assert!(answer.is_none(), "a second request in flight");
            let addr = sim.peek_u64("req_bits_addr").unwrap();
            answer = Some((read(addr), rng.below(3)));
        } else if let Some((_, at)) = answer.as_mut() {
            *at -= 1;
        }
        if sim.peek_u64("tbl_we").unwrap() == 1 {
            writes.push((
                sim.peek_u64("tbl_index").unwrap(),
                sim.peek_u64("tbl_pc").unwrap(),
                sim.peek_u64("tbl_ipdom").unwrap(),
                sim.peek_u64("tbl_short").unwrap() == 1,
            ));
        }
        let fault = sim.peek_u64("fault").unwrap() == 1;
        sim.step();
        if fault {
            return (writes, true);
        }
        if sim.peek_u64("ready").unwrap() == 1 {
            return (writes, false);
        }
    }
    panic!("kernel {entry:#x}: the reader neither finished nor faulted");
}
