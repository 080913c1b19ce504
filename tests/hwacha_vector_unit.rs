//! The Hwacha vector unit (`hwacha::vector_unit`: master sequencer, lane sequencers,
//! lanes with their VMUs) under Verilator, against the Hwacha golden model: programs of
//! integer, compare, element-index, predicate-logic, divide, memory (every mode and
//! width, AMOs) and reduction (vfirst, consensual jumps) instructions are issued as the scalar unit
//! would (decoded, one per cycle under `issue_ready`, fences waiting for `idle`) after a
//! configuration; every register-file write of every lane, mapped back to (register,
//! element) by the layout contract, must be the model's (`hwacha_rtl_rig::compare`), and
//! so must the data window afterwards and every answer to the scalar unit. 1 and 2
//! lanes, two sequencer sizes, two divider widths (4 lanes and a third width with
//! `ACCELGEN_LONG=1`); directed programs, then random ones
//! (random configuration, vector length, predication, back-to-back dependences that
//! chain).

mod hwacha_rtl_rig;

use asic_flow::lint::{run_all, LintTarget};
use generators::hwacha::params::HwachaParams;
use generators::hwacha::vector_unit::vector_unit;
use hdl::Design;
use hwacha_rtl_rig::*;
use verification::hwacha::model::Vcfg;
use verification::rng::Rng;
use verification::tb::memory::{MemConfig, MemPort, MemoryModel};
use verification::verilator::{Model, Options};

/// 1 lane with the thesis's 8 sequencer slots, and 2 lanes with a small 4-slot
/// sequencer and 3-entry read and 4-entry write queues per bank; with `ACCELGEN_LONG`
/// also 2 lanes with 8 slots, 4 lanes with both sizes and 1 lane with 4 slots (the fast
/// suite simulates no 4-lane unit: `tests/hwacha_soc.rs` lints the 4-lane machine and runs
/// it in lockstep with `ACCELGEN_LONG` only).
/// The tested configurations: (lanes, sequencer slots, divider bits a cycle, mixed
/// precision). The directed, divide and random programs all run on the same models (one
/// Verilator build each); the fast suite's two have divider widths 1 and 2 (4 with
/// `ACCELGEN_LONG`), and its 2-lane one packs narrow registers (`mixed_precision`), so
/// every program there runs on the packed layout.
fn configs() -> Vec<HwachaParams> {
    let mut shapes = vec![(1, 8, 1, false), (2, 4, 2, true)];
    if long() {
        shapes.extend([
            (2, 8, 4, false),
            (4, 8, 4, true),
            (1, 4, 1, true),
            (4, 4, 2, false),
        ]);
    }
    shapes
        .into_iter()
        .map(
            |(lanes, seq_entries, idiv_bits_per_cycle, mixed_precision)| HwachaParams {
                lanes,
                seq_entries,
                idiv_bits_per_cycle,
                mixed_precision,
                ..HwachaParams::default()
            },
        )
        .map(|p| {
            // The 4-slot shape keeps deeper bank queues than the defaults (2), the read
            // queue not a power of two.
            if p.seq_entries == 4 {
                HwachaParams {
                    brq_entries: 3,
                    bwq_entries: 4,
                    ..p
                }
            } else {
                p
            }
        })
        .collect()
}

struct Bench {
    p: HwachaParams,
    dut: Model,
    mem: MemoryModel,
    /// The answers to the scalar unit seen so far (`vresp`, `vbranch`).
    answers: Vec<Answer>,
    /// Cases run so far (each restarts the model, alternating its initial state).
    cases: u64,
    /// The FP exception flags raised so far in this case.
    fflags: u8,
    /// Packed (whole-row) register-file writes seen on this model.
    packed_writes: u64,
}

/// Memory timings: (latency, jitter, stall percent).
const TIMINGS: [(u32, u32, u32); 3] = [(1, 0, 0), (20, 5, 20), (100, 10, 30)];

fn memory(
    p: &HwachaParams,
    (latency, jitter, stall_percent): (u32, u32, u32),
    seed: u64,
) -> MemoryModel {
    let ports = (0..p.lanes)
        .map(|l| MemPort::decoupled_with_amo(&format!("l{l}_mem"), true))
        .collect();
    let config = MemConfig {
        data_bytes: 16,
        latency,
        jitter,
        stall_percent,
        out_of_order: true,
        max_outstanding: 16,
        seed,
        ..MemConfig::default()
    };
    let mut mem = MemoryModel::new(config, ports).unwrap();
    let image: Vec<u8> = data_image().iter().flat_map(|w| w.to_le_bytes()).collect();
    mem.memory_mut().write(DATA, &image);
    mem
}

impl Bench {
    fn new(p: &HwachaParams) -> Bench {
        let top = vector_unit(p).unwrap();
        let mut dut = Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap();
        restart(&mut dut, 0);
        let mem = memory(p, TIMINGS[0], 0);
        Bench {
            p: p.clone(),
            dut,
            mem,
            answers: Vec::new(),
            cases: 0,
            fflags: 0,
            packed_writes: 0,
        }
    }

    fn tick(&mut self) {
        self.mem.tick(&mut self.dut).unwrap();
        self.dut.step();
    }

    fn wait_idle(&mut self, writes: &mut Vec<Write>, cfg: &Vcfg) {
        let start = self.dut.cycle();
        while self.dut.peek_u64("idle").unwrap() == 0 || self.mem_busy() {
            self.record(writes, cfg);
            self.tick();
            assert!(
                self.dut.cycle() - start < 1_000_000,
                "the vector unit hangs"
            );
        }
    }

    fn mem_busy(&self) -> bool {
        (0..self.p.lanes as usize).any(|l| self.mem.outstanding(l) > 0)
    }

    fn record(&mut self, writes: &mut Vec<Write>, cfg: &Vcfg) {
        let peek = |dut: &mut Model, name: &str| dut.peek_u64(name).unwrap();
        if peek(&mut self.dut, "vresp_valid") == 1 {
            let rd = peek(&mut self.dut, "vresp_bits_rd") as u32;
            let value = peek(&mut self.dut, "vresp_bits_data");
            self.answers.push(Answer::First { rd, value });
        }
        self.fflags |= peek(&mut self.dut, "fflags") as u8;
        if peek(&mut self.dut, "vbranch_valid") == 1 {
            let taken = peek(&mut self.dut, "vbranch_bits_taken") == 1;
            self.answers.push(Answer::Jump { taken });
        }
        for l in 0..self.p.lanes as u64 {
            for b in 0..self.p.banks as u64 {
                let prefix = format!("l{l}_b{b}_");
                self.packed_writes +=
                    record_bank_writes(&mut self.dut, &prefix, &self.p, cfg, l, b, writes);
            }
        }
    }

    /// Configures, then issues `issues` in order (`None`: a fence, which waits until the
    /// unit is idle); the writes after the configuration's clearing in cycle order.
    fn run(&mut self, cfg: &Vcfg, issues: &[Option<Fields>]) -> Vec<Write> {
        let mut writes = Vec::new();
        self.dut.poke_u64("cfg_valid", 1).unwrap();
        for (name, value) in layout_values(&self.p, cfg) {
            self.dut
                .poke_u64(&format!("cfg_bits_{name}"), value)
                .unwrap();
        }
        self.tick();
        self.dut.poke_u64("cfg_valid", 0).unwrap();
        self.wait_idle(&mut Vec::new(), cfg);
        let start = self.dut.cycle();
        for issue in issues {
            let Some(fields) = issue else {
                self.dut.poke_u64("issue_valid", 0).unwrap();
                self.wait_idle(&mut writes, cfg);
                continue;
            };
            poke_fields(&mut self.dut, "issue_bits", fields);
            self.dut.poke_u64("issue_valid", 1).unwrap();
            loop {
                let ready = self.dut.peek_u64("issue_ready").unwrap();
                self.record(&mut writes, cfg);
                self.tick();
                if ready == 1 {
                    break;
                }
                assert!(self.dut.cycle() - start < 1_000_000, "issue hangs");
            }
        }
        self.dut.poke_u64("issue_valid", 0).unwrap();
        self.wait_idle(&mut writes, cfg);
        writes
    }
}

/// Runs `lines` on a fresh memory with `timing`; compares the register writes and the
/// data window afterwards. Returns the writes in cycle order.
fn check(
    bench: &mut Bench,
    setup: &Setup,
    lines: &[String],
    timing: (u32, u32, u32),
    seed: u64,
) -> Vec<Write> {
    let gold = golden(&bench.p, setup, lines);
    let issues: Vec<Option<Fields>> = gold
        .insns
        .iter()
        .map(|i| {
            let vs = |r: u32| setup.vs[r as usize];
            let va = |r: u32| setup.va[r as usize];
            insn_fields(&setup.cfg, i, &vs, &va).map(|mut f| {
                f.push(("vlen", setup.vlen));
                f
            })
        })
        .collect();
    bench.mem = memory(&bench.p, timing, seed);
    bench.answers.clear();
    bench.fflags = 0;
    // A fresh start from the other random initial state than the last case's.
    bench.cases += 1;
    restart(&mut bench.dut, bench.cases);
    let writes = bench.run(&setup.cfg, &issues);
    compare(&gold, &writes, setup, lines);
    assert_eq!(
        bench.answers,
        gold.answers,
        "answers to the scalar unit differ\nprogram:\n{}",
        lines.join("\n")
    );
    assert_eq!(
        bench.fflags,
        gold.fflags,
        "accrued FP flags differ\nprogram:\n{}",
        lines.join("\n")
    );
    let model = gold.data();
    let mut dut = vec![0u8; DATA_SIZE as usize];
    bench.mem.memory().read(DATA, &mut dut);
    for (k, word) in model.iter().enumerate() {
        let got = u64::from_le_bytes(dut[8 * k..8 * k + 8].try_into().unwrap());
        assert_eq!(
            got,
            *word,
            "memory at {:#x} differs\nconfig {:?} vlen {}\nprogram:\n{}",
            DATA + 8 * k as u64,
            setup.cfg,
            setup.vlen,
            lines.join("\n")
        );
    }
    writes
}

#[test]
fn directed_programs_match_the_golden_model() {
    for p in configs() {
        let mut bench = Bench::new(&p);
        let (cfg, programs) = directed_programs();
        let maxvl = model_params(&p).maxvl(&cfg);
        for lines in &programs {
            for vlen in [1, 9, 17, 8 * p.lanes as u64 + 3, maxvl - 1, maxvl] {
                let (vs, va) = (directed_vs(), vec![0; 32]);
                check(
                    &mut bench,
                    &Setup { cfg, vlen, vs, va },
                    lines,
                    TIMINGS[0],
                    0,
                );
            }
        }
    }
}

/// Every divide and remainder, vector and shared operands, predicated, with the
/// corner cases (zero divisors, the most negative dividend over -1, 32-bit forms of
/// values that do not fit) and dependences on both sides of the late writeback: a
/// consumer right after (RAW), an overwrite of the quotient (WAW) and of a divisor (WAR).
#[test]
fn divides_match_the_golden_model() {
    let cfg = Vcfg {
        vv64: 6,
        vp: 2,
        vv32: 2,
        vv16: 0,
    };
    let lines: Vec<String> = [
        "veidx vv0, vs0",
        "vsub vv1, vv0, vs4",
        "vmul vv2, vv1, vs9",
        "vdiv vv3, vv2, vv0",
        "vadd vv4, vv3, vs1",
        "vdivu vv5, vv2, vs3",
        "vrem vv3, vv2, vv1",
        "vremu vv4, vv3, vs5",
        "vadd vv1, vv1, vs1",
        "vdiv vv5, vs10, vs11",
        "vrem vv4, vs10, vs11",
        "vdivw vv6, vv2, vv1",
        "vdivuw vv7, vv2, vs12",
        "vremw vv6, vv6, vs3",
        "vremuw vv7, vv2, vv0",
        "vcmplt vp1, vv0, vs6",
        "@vp1 vdiv vv3, vv2, vs2",
        "@!vp1 vremu vv3, vv3, vv1",
        "vadd vv3, vv3, vv4",
    ]
    .map(String::from)
    .to_vec();
    let mut vs = directed_vs();
    // The most negative dividend and -1 (the overflow case); a divisor above 32 bits.
    vs[9] = 0x1234_5678_9abc_def1;
    vs[10] = i64::MIN as u64;
    vs[11] = u64::MAX;
    vs[12] = 0x1_0000_0003;
    // Every divider width (the configurations'); full-length vectors (the slowest: a
    // divide takes 65 cycles an element at one bit a cycle) on one configuration.
    for (k, p) in configs().into_iter().enumerate() {
        let mut bench = Bench::new(&p);
        let maxvl = model_params(&p).maxvl(&cfg);
        let mut vlens = vec![1, 9, 8 * p.lanes as u64 + 3];
        if k == 1 {
            vlens.push(maxvl);
        }
        for (i, vlen) in vlens.into_iter().enumerate() {
            let setup = Setup {
                cfg,
                vlen,
                vs: vs.clone(),
                va: vec![0; 32],
            };
            check(&mut bench, &setup, &lines, TIMINGS[i % 3], i as u64);
        }
    }
}

/// Floating point (`hwacha_rtl_rig::directed_fp_programs`, `random_fp_program`): every
/// FMA, FConv, FCmp and FDiv/FSqrt operation and the widening forms in half, single and
/// double, every rounding mode, special values, chaining between units of different
/// latencies; on the packed configuration, single and half FMAs on whole packed rows
/// (two and four strips an operation), which must have run packed; register writes,
/// predicate writes and the accrued flags against the model.
#[test]
fn fp_programs_match_the_golden_model() {
    let per_config = if long() { 2000 } else { 12 };
    for (k, p) in configs().iter().enumerate() {
        let mut bench = Bench::new(p);
        let (cfg, programs) = directed_fp_programs();
        let maxvl = model_params(p).maxvl(&cfg);
        let mut vs = directed_vs();
        vs[16..20].copy_from_slice(&[0.5f64, -3.25, 1e-3, 7.0].map(f64::to_bits));
        for lines in &programs {
            for vlen in [1, 9, maxvl] {
                let setup = Setup {
                    cfg,
                    vlen,
                    vs: vs.clone(),
                    va: vec![0; 32],
                };
                check(&mut bench, &setup, lines, TIMINGS[0], 0);
            }
        }
        let mut rng = Rng::new(0xf10a7 + k as u64);
        for i in 0..per_config {
            let (setup, lines) = random_fp_program(&mut rng, p, 40);
            check(&mut bench, &setup, &lines, TIMINGS[i % 3], i as u64);
        }
        if p.mixed_precision {
            // The packed operations ran packed (whole rows written), not a strip at a time.
            assert!(bench.packed_writes > 0, "{p:?}: no packed write");
        }
    }
}

#[test]
fn random_programs_match_the_golden_model() {
    let per_config = random_programs(20, 2000);
    for (k, p) in configs().iter().enumerate() {
        let mut bench = Bench::new(p);
        let mut rng = Rng::new(0x5e90 + k as u64);
        for i in 0..per_config {
            let (setup, lines) = random_program(&mut rng, p, 40, true);
            check(&mut bench, &setup, &lines, TIMINGS[i % 3], i as u64);
        }
    }
}

/// Chaining from loads: an operation reading a load's result starts on the load's first
/// strips before its last ones are written back (the two instructions' register writes
/// interleave), under every memory timing, and every value is the model's. A chain of
/// two loads and two dependent operations at vector length maxvl on the fast suite's
/// configurations.
#[test]
fn operations_chain_on_loads() {
    let lines: Vec<String> = [
        "vld vv0, va0",
        "vadd vv1, vv0, vs1",
        "vlw vv2, va1",
        "vmul vv3, vv2, vv1",
    ]
    .map(String::from)
    .to_vec();
    let cfg = Vcfg {
        vv64: 4,
        vp: 1,
        vv32: 0,
        vv16: 0,
    };
    for p in &configs()[..2] {
        let mut bench = Bench::new(p);
        let vlen = model_params(p).maxvl(&cfg);
        let mut va = vec![0; 32];
        va[0] = DATA + 0x1_0008;
        va[1] = DATA + 0x4_0004;
        let setup = Setup {
            cfg,
            vlen,
            vs: directed_vs(),
            va,
        };
        for (i, timing) in TIMINGS.into_iter().enumerate() {
            let writes = check(&mut bench, &setup, &lines, timing, i as u64);
            let at = |reg: u32| -> Vec<usize> {
                (writes.iter().enumerate())
                    .filter(|(_, w)| matches!(w, Write::Vv { reg: r, .. } if *r == reg))
                    .map(|(k, _)| k)
                    .collect()
            };
            for (load, user) in [(0, 1), (2, 3)] {
                let (loaded, used) = (at(load), at(user));
                assert!(
                    used[0] < *loaded.last().unwrap(),
                    "{p:?} timing {timing:?}: vv{user} waited for the whole load of vv{load}"
                );
            }
        }
    }
}

#[test]
fn every_tested_configuration_is_lint_clean() {
    for p in configs() {
        let design = Design::new(&vector_unit(&p).unwrap());
        let verilog = hdl::emit::emit(&design, &Default::default()).single_file();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("vu.v"), verilog).unwrap();
        let target = LintTarget {
            dir: dir.path().to_path_buf(),
            files: vec!["vu.v".into()],
            top: design.top_name().to_string(),
        };
        for v in run_all(&target).unwrap_or_else(|e| panic!("{e}")) {
            assert!(v.clean, "{p:?}: {}:\n{}", v.tool, v.output);
        }
    }
}
