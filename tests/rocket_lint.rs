//! The blocks of the `rocket` tile are lint clean on their own across a sweep of their
//! parameters (Verilator -Wall with zero warnings, Yosys `hierarchy -check; proc;
//! check -assert`, Icarus Verilog; no line over `hdl::emit::MAX_LINE`): multiply/divide
//! shapes, cache shapes, predictor sizes and arbiter widths. The whole tile's presets and
//! a sweep of tile parameters are linted in `examples_lint.rs`; here the shapes of a
//! block are instances of one wrapper module, so one run of each tool checks them all
//! (about 40 s for the three groups, most of it the 4096-entry BHT and the 1024-set
//! cache).
//!
//! Likewise the Hwacha blocks that grow with the sequencer slots (the expander and the
//! lane sequencer), at sizes whose expander Verilator once refused for its lines of 90
//! to 250 KB (issue 14 item 9; about 20 s); `examples_lint.rs` lints the whole
//! `rocket-hwacha` at those sizes and at every parameter's extremes in long runs.

use generators::arith::adder::Style;
use generators::hwacha::lane::expander::expander;
use generators::hwacha::lane::sequencer::lane_sequencer;
use generators::hwacha::params::HwachaParams;
use generators::memory;
use generators::rocket::bpred::{bht_module, btb_module};
use generators::rocket::cache::cache;
use generators::rocket::mem_arbiter::mem_arbiter;
use generators::rocket::muldiv::muldiv;
use generators::rocket::params::{CacheParams, MulDivParams, MulKind};

mod lint_rig;
use lint_rig::lint_blocks;

fn muldiv_shapes() -> Vec<MulDivParams> {
    let mut shapes = Vec::new();
    for div in [1, 2, 4] {
        for bits in [1, 8, 64] {
            for adders in [Style::Prefix, Style::Inferred] {
                shapes.push(MulDivParams {
                    mul: MulKind::Iterative,
                    mul_bits_per_cycle: bits,
                    // The early out on half of them, each multiplier width once.
                    mul_early_out: (div == 2) == (adders == Style::Prefix),
                    mul_stages: 1,
                    div_bits_per_cycle: div,
                    div_early_out: (div == 2) != (bits == 8),
                    adders,
                    // Each style with and without the registered result.
                    registered_result: (adders == Style::Prefix) != (div == 4),
                });
            }
        }
        for stages in [1, 3] {
            shapes.push(MulDivParams {
                mul: MulKind::Pipelined,
                mul_bits_per_cycle: 1,
                mul_early_out: false,
                mul_stages: stages,
                div_bits_per_cycle: div,
                div_early_out: div == 4,
                adders: Style::Prefix,
                registered_result: true,
            });
        }
    }
    shapes
}

fn cache_shapes() -> Vec<CacheParams> {
    let mut shapes = Vec::new();
    for (i, ways) in [1, 2, 4].into_iter().enumerate() {
        for (j, line_bytes) in [8, 16, 64, 256].into_iter().enumerate() {
            let sets = [1, 2, 16, 64][(i + j) % 4];
            shapes.push(CacheParams {
                sets,
                ways,
                line_bytes,
                uncached_base: 0x8000_0000,
                // Half without an uncached region (the I$ has none).
                uncached_size: if (i + j) % 2 == 0 { 0x1000 } else { 0 },
                // The memory policy's extremes: every array a macro, or none.
                sram_threshold_bits: [0, memory::NEVER_SRAM_BITS][j % 2],
                // The D$'s write buffer on half, crossed with the uncached region.
                posted_writes: (i + 2 * j) % 4 < 2,
            });
        }
    }
    // Many sets: the lookup of a set's valid bits must not nest as deep as there are
    // sets. The largest allowed takes ~90 s, so only long runs lint it.
    let many = if long() { 4096 } else { 1024 };
    shapes.push(CacheParams {
        sets: many,
        ways: 2,
        line_bytes: 8,
        uncached_base: 0x8000_0000,
        uncached_size: 0x1000,
        sram_threshold_bits: memory::DEFAULT_SRAM_THRESHOLD_BITS,
        posted_writes: true,
    });
    shapes
}

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

#[test]
fn muldiv_shapes_are_lint_clean() {
    let blocks: Vec<_> = muldiv_shapes().iter().map(|p| muldiv(p).unwrap()).collect();
    lint_blocks("MulDiv", &blocks);
}

#[test]
fn cache_shapes_are_lint_clean() {
    let blocks: Vec<_> = cache_shapes()
        .iter()
        .map(|p| cache("Cache", p).unwrap())
        .collect();
    lint_blocks("Cache", &blocks);
}

#[test]
fn predictors_and_arbiters_are_lint_clean() {
    let mut blocks = Vec::new();
    for entries in [1, 2, 5, 16, 64] {
        blocks.push(btb_module(entries).unwrap());
    }
    // The largest table too: its lookup must not nest as deep as it is long.
    for entries in [2, 64, 512, 4096] {
        blocks.push(bht_module(entries).unwrap());
    }
    for clients in [2, 3, 4] {
        blocks.push(mem_arbiter(clients).unwrap());
    }
    lint_blocks("Btb, Bht, MemArbiter", &blocks);
}

/// The expander at the sequencer sizes Verilator refused it for its lines (11 and 12
/// slots) and at the largest, with the lane sequencer (once a 30 KB line). The master
/// sequencer at 32 slots takes Yosys half a minute, so only the long lint of the whole
/// design (`examples_lint.rs`) checks it.
#[test]
fn hwacha_sequencer_blocks_are_lint_clean() {
    let mut blocks = Vec::new();
    for seq_entries in [11, 12, 32] {
        let p = HwachaParams {
            seq_entries,
            ..Default::default()
        };
        // A lane's expander takes a candidate per sequencer slot and the new operation.
        blocks.push(expander(&p, seq_entries + 1).unwrap());
        if seq_entries == 32 {
            blocks.push(lane_sequencer(&p).unwrap());
        }
    }
    lint_blocks("Expander, LaneSequencer", &blocks);
}
