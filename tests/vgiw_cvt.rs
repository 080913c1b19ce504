//! The VGIW control vector table's RTL (`generators::vgiw::cvt`, seed 004 section 3.3)
//! in the IR simulator from random initial state, against a map of words: random
//! read-and-reset and OR operations, many on a few words so that back-to-back
//! operations on one word and reads colliding with ORs in one bank are common, and
//! tile clears. Every read returns what the operations accepted before it left, and
//! reads as empty afterwards; an OR is never refused; a read waits only for an OR to its
//! bank. At the paper's 8 banks and at 1 bank; lint clean at those and at one word a
//! bank, with the banks as inferred arrays and as SRAM macros.

mod lint_rig;

use generators::vgiw::cvt::cvt;
use generators::vgiw::params::VgiwParams;
use hdl::sim::{Init, Sim};
use hdl::Design;
use verification::rng::Rng;

fn poke(sim: &mut Sim, port: &str, v: u64) {
    sim.poke_u64(port, v).unwrap();
}

fn peek(sim: &mut Sim, port: &str) -> u64 {
    sim.peek_u64(port).unwrap()
}

fn run(words: u32, banks: u32, seed: u64) {
    let p = VgiwParams {
        cvt_words: words,
        cvt_banks: banks,
        sram_threshold_bits: 1024,
        ..VgiwParams::default()
    };
    let mut sim = Sim::with_init(&Design::new(&cvt(&p).unwrap()), Init::Random { seed });
    let mut rng = Rng::new(seed);
    poke(&mut sim, "reset", 1);
    poke(&mut sim, "clear", 1);
    sim.step();
    poke(&mut sim, "reset", 0);
    poke(&mut sim, "clear", 0);
    let mut model = vec![0u64; words as usize];
    // The word a read accepted last cycle must return.
    let mut expect: Option<(u32, u64)> = None;
    let (mut reads, mut ors, mut waited) = (0, 0, 0);
    for cycle in 0..20_000 {
        // A few hot words (block-0 vectors and their neighbours), sometimes any.
        let addr = |rng: &mut Rng| match rng.chance(70) {
            true => rng.range(0, 2 * banks.min(words / 2) - 1),
            false => rng.range(0, words - 1),
        };
        let clear = expect.is_none() && rng.chance(1);
        let (rv, ra) = (!clear && rng.chance(50), addr(&mut rng));
        let (ov, oa, bits) = (!clear && rng.chance(50), addr(&mut rng), rng.next_u64());
        for (port, v) in [
            ("clear", clear as u64),
            ("rd_valid", rv as u64),
            ("rd_bits_addr", ra as u64),
            ("or_valid", ov as u64),
            ("or_bits_addr", oa as u64),
            ("or_bits_bits", bits),
        ] {
            poke(&mut sim, port, v);
        }
        let got =
            (peek(&mut sim, "rd_resp_valid") == 1).then(|| peek(&mut sim, "rd_resp_bits_data"));
        match expect.take() {
            Some((a, want)) => assert_eq!(got, Some(want), "cycle {cycle}: read of word {a}"),
            None => assert_eq!(got, None, "cycle {cycle}: a response nobody asked for"),
        }
        assert_eq!(
            peek(&mut sim, "or_ready"),
            1,
            "cycle {cycle}: an OR refused"
        );
        let rd_ready = peek(&mut sim, "rd_ready") == 1;
        let same_bank = ov && (ra % banks == oa % banks);
        assert_eq!(rd_ready, !same_bank, "cycle {cycle}: rd_ready");
        if clear {
            model.iter_mut().for_each(|w| *w = 0);
        }
        if ov {
            model[oa as usize] |= bits;
            ors += 1;
        }
        if rv && rd_ready {
            expect = Some((ra, std::mem::take(&mut model[ra as usize])));
            reads += 1;
        } else if rv {
            waited += 1;
        }
        sim.step();
    }
    assert!(
        reads > 4_000 && ors > 9_000 && waited > 100,
        "{reads} {ors} {waited}"
    );
}

#[test]
fn the_cvt_reads_and_resets_and_ors_in_order_at_8_banks() {
    run(64, 8, 1);
}

#[test]
fn the_cvt_reads_and_resets_and_ors_in_order_at_1_bank() {
    run(16, 1, 2);
}

#[test]
fn the_cvt_is_lint_clean() {
    let shapes = [
        (64, 8, 1024),
        (16, 1, 1024),
        (8, 8, 1024),
        (1024, 8, 4096),
        (64, 8, 1 << 20),
    ];
    let blocks: Vec<_> = (shapes.iter())
        .map(|&(cvt_words, cvt_banks, sram_threshold_bits)| {
            cvt(&VgiwParams {
                cvt_words,
                cvt_banks,
                sram_threshold_bits,
                ..VgiwParams::default()
            })
            .unwrap()
        })
        .collect();
    lint_rig::lint_blocks("vgiw cvt", &blocks);
}
