//! Blocks of the FG-SIMT engine under Verilator, each in lockstep with the golden model's
//! version of it (`verification::fgsimt`): the AWFR and PWFB (`cp/pwfb.rs`) against the
//! two-stack model on random divergence, merging, looping and returning threads at warp
//! sizes 1 to 32. Every block is lint clean at the shapes it accepts.

use generators::fgsimt::cp::pwfb::pwfb;
use hdl::sim::Init;
use hdl::Design;
use verification::fgsimt::pwfb::Pwfb;
use verification::rng::Rng;
use verification::verilator::{Model, Options, INIT_SEEDS};

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
    m.reinit(Init::Random {
        seed: INIT_SEEDS[(seed % 2) as usize],
    })
    .unwrap();
    m.poke_u64("reset", 1).unwrap();
    m.step();
    m.poke_u64("reset", 0).unwrap();
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
    let pwfbs: Vec<_> = [1, 2, 4, 8, 16, 32]
        .iter()
        .map(|&w| pwfb(w).unwrap())
        .collect();
    lint_rig::lint_blocks("pwfb", &pwfbs);
}
