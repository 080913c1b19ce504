//! Blocks of the FG-SIMT engine under Verilator, each in lockstep with the golden model's
//! version of it (`verification::fgsimt`): the AWFR and PWFB (`cp/pwfb.rs`) against the
//! two-stack model on random divergence, merging, looping and returning threads at warp
//! sizes 1 to 32; the affine ALU and stride unit (`cp/affine_alu.rs`) against the affine
//! rules on random compact operands; a lane's SRF bank (`lane/srf.rs`) against an array
//! of optional values (unwritten registers read the ABI's initial values). Every block is
//! lint clean at the shapes it accepts.

use generators::fgsimt::cp::affine_alu::{affine_alu, op};
use generators::fgsimt::cp::pwfb::pwfb;
use generators::fgsimt::lane::srf::{srf, REGS};
use hdl::Design;
use verification::fgsimt::affine::alu::{alu, Compact, Op};
use verification::fgsimt::pwfb::Pwfb;
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
        [(1, 1, 1), (4, 6, 3), (32, 2, 1)]
            .iter()
            .map(|&(t, r, w)| srf(t, r, w).unwrap()),
    );
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

/// The SRF bank's reference: per slot and register, the value written since the warp
/// started, if any.
struct SrfRef {
    cells: Vec<[Option<u32>; REGS as usize]>,
    init: (Vec<u32>, u32, u32),
}

impl SrfRef {
    fn read(&self, reg: usize, slot: usize) -> u32 {
        match (reg, self.cells[slot][reg]) {
            (0, _) => 0,
            (_, Some(v)) => v,
            (2, None) => self.init.0[slot],
            (3, None) => self.init.1,
            (4, None) => self.init.2,
            _ => 0,
        }
    }
}

#[test]
fn srf_bank_matches_an_array_with_initial_values() {
    for (slots, reads, writes) in [(4, 6, 3), (1, 2, 1)] {
        let top = srf(slots, reads, writes).unwrap();
        let mut m = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
        m.restart(slots as u64).unwrap();
        let mut rng = Rng::new(slots as u64 * 7);
        let s = slots as usize;
        let mut r = SrfRef {
            cells: vec![[None; REGS as usize]; s],
            init: (vec![0; s], 0, 0),
        };
        // Registers 0-7 and 32-35 mostly, so reads often meet writes and initial values.
        let reg = |rng: &mut Rng| {
            if rng.chance(80) {
                rng.below(8) as usize
            } else {
                rng.below(REGS as u64) as usize
            }
        };
        let (mut initial_reads, mut written_reads) = (0, 0);
        for cycle in 0..20_000 {
            let start = cycle % 500 == 0;
            if start {
                r.init = (
                    (0..s).map(|_| rng.next_u64() as u32).collect(),
                    rng.next_u64() as u32,
                    rng.next_u64() as u32,
                );
                for (c, v) in r.init.0.iter().enumerate() {
                    m.poke_u64(&format!("init_sp{c}"), *v as u64).unwrap();
                }
                m.poke_u64("init_gp", r.init.1 as u64).unwrap();
                m.poke_u64("init_tp", r.init.2 as u64).unwrap();
            }
            m.poke_u64("warp_start", start as u64).unwrap();
            for i in 0..reads {
                let (g, c) = (reg(&mut rng), rng.below(slots as u64) as usize);
                m.poke_u64(&format!("r{i}_reg"), g as u64).unwrap();
                m.poke_u64(&format!("r{i}_slot"), c as u64).unwrap();
                let got = m.peek_u64(&format!("r{i}_data")).unwrap() as u32;
                assert_eq!(
                    got,
                    r.read(g, c),
                    "cycle {cycle}: read x/f{g} slot {c}: {:?} {:?}",
                    r.cells[c][g],
                    r.init
                );
                if g > 0 && r.cells[c][g].is_some() {
                    written_reads += 1
                } else {
                    initial_reads += 1
                }
            }
            let mut pending = Vec::new();
            for i in 0..writes {
                let en = !start && rng.chance(60);
                let (g, c, v) = (
                    reg(&mut rng),
                    rng.below(slots as u64) as usize,
                    rng.next_u64() as u32,
                );
                for (port, val) in [
                    ("en", en as u64),
                    ("reg", g as u64),
                    ("slot", c as u64),
                    ("data", v as u64),
                ] {
                    m.poke_u64(&format!("w{i}_{port}"), val).unwrap();
                }
                if en {
                    pending.push((g, c, v));
                }
            }
            m.step();
            if start {
                r.cells = vec![[None; REGS as usize]; s];
            }
            for (g, c, v) in pending {
                r.cells[c][g] = Some(v); // in port order: the higher port wins
            }
        }
        assert!(
            initial_reads > 5_000 && written_reads > 5_000,
            "{initial_reads} {written_reads}"
        );
    }
}
