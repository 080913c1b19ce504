//! The Hwacha lane datapath (`hwacha::lane::vxu`: expander, banks, ALU, PLU, IMul on the
//! crossbar) under Verilator, against the Hwacha golden model.
//!
//! Programs of vector integer, compare, element-index and predicate-logic instructions run
//! on the golden model with tracing; the testbench stands in for the lane sequencer
//! (in order, strip by strip, one candidate taken when the expander accepts it) and turns
//! each instruction into the sequencer operations of its strips by the layout contract of
//! `hwacha/mod.rs`. Every register-file write the banks make is mapped back to (register,
//! element, value); the writes must be the model's (`hwacha_rtl_rig::compare`). Directed
//! programs per class, then random programs (random configuration, vector length,
//! predication and back-to-back dependences) on four shapes.

mod hwacha_rtl_rig;

use asic_flow::lint::{run_all, LintTarget};
use generators::hwacha::lane::uop::unit;
use generators::hwacha::lane::vxu::vxu;
use generators::hwacha::params::HwachaParams;
use hdl::Design;
use hwacha_rtl_rig::*;
use verification::hwacha::model::{Insn, Vcfg};
use verification::rng::Rng;
use verification::verilator::{Model, Options};

/// The shapes under test: the thesis's lane and variations of every latency and size
/// (the shortest pipelines with the most, narrowest banks; the longest with the fewest;
/// one Verilator model each).
fn configs() -> Vec<HwachaParams> {
    let d = HwachaParams::default();
    vec![
        d.clone(),
        HwachaParams {
            stages_alu: 0,
            stages_imul: 1,
            stages_plu: 1,
            banks: 8,
            bank_width: 64,
            bank_entries: 128,
            pred_entries: 128,
            ..d.clone()
        },
        HwachaParams {
            stages_alu: 2,
            stages_imul: 5,
            banks: 2,
            bank_entries: 64,
            pred_entries: 64,
            ..d
        },
    ]
}

/// The instruction's sequencer operation for each strip (a lane-sequencer stand-in): the
/// decoded fields with register numbers turned into the strip's rows.
fn strip_ops(p: &HwachaParams, setup: &Setup, insn: &Insn) -> Vec<Fields> {
    let cfg = &setup.cfg;
    let strip = p.strip() as u64;
    let (n, np) = (cfg.vv_total().max(1) as u64, cfg.vp.max(1) as u64);
    let fields = insn_fields(cfg, insn, &|r| setup.vs[r as usize], &|r| {
        setup.va[r as usize]
    })
    .expect("no fences in datapath programs");
    (0..setup.vlen.div_ceil(strip))
        .map(|s| {
            let mut op: Fields = fields
                .iter()
                .map(|&(f, v)| match f {
                    "rs1" | "rs2" | "rd" => (f, s * n + v),
                    "pred" | "ps1" | "ps2" | "ps3" | "prd" => (f, s * np + v),
                    _ => (f, v),
                })
                .collect();
            op.extend([
                ("count", (setup.vlen - s * strip).min(strip)),
                ("eidx", s * strip),
            ]);
            op
        })
        .collect()
}

struct Bench {
    p: HwachaParams,
    dut: Model,
    /// Cases run so far (each restarts the model, alternating its initial state).
    cases: u64,
}

impl Bench {
    fn new(p: &HwachaParams) -> Bench {
        let top = vxu(p, 1).unwrap();
        let mut dut = Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap();
        restart(&mut dut, 0);
        Bench {
            p: p.clone(),
            dut,
            cases: 0,
        }
    }

    /// A fresh start for the next case, from the other random initial state.
    fn next_case(&mut self) {
        self.cases += 1;
        restart(&mut self.dut, self.cases);
    }

    /// Runs `ops` in order; returns the writes in cycle order and the cycles taken.
    fn run(&mut self, cfg: &Vcfg, ops: &[Fields]) -> (Vec<Write>, u64) {
        let mut writes = Vec::new();
        let start = self.dut.cycle();
        let mut next = 0;
        loop {
            if next < ops.len() {
                for f in ["count", "eidx"] {
                    self.dut.poke_u64(&format!("cand_0_bits_{f}"), 0).unwrap();
                }
                poke_fields(&mut self.dut, "cand_0_bits", &ops[next]);
                self.dut.poke_u64("cand_0_valid", 1).unwrap();
                let ok = self.dut.peek_u64("ok").unwrap();
                self.dut.poke_u64("pick", ok).unwrap();
                next += ok as usize;
            } else {
                self.dut.poke_u64("cand_0_valid", 0).unwrap();
                self.dut.poke_u64("pick", 0).unwrap();
                if self.dut.peek_u64("busy").unwrap() == 0 {
                    break;
                }
            }
            for b in 0..self.p.banks as u64 {
                record_bank_writes(
                    &mut self.dut,
                    &format!("b{b}_"),
                    &self.p,
                    cfg,
                    0,
                    b,
                    &mut writes,
                );
            }
            self.dut.step();
            assert!(self.dut.cycle() - start < 1_000_000, "the VXU hangs");
        }
        (writes, self.dut.cycle() - start)
    }
}

/// Runs `lines` on the model and the DUT from the state `setup` gives; panics with the
/// first difference.
fn check(bench: &mut Bench, setup: &Setup, lines: &[String]) {
    let p = bench.p.clone();
    let gold = golden(&p, setup, lines);
    bench.next_case();
    // The reset state vsetcfg gives (zeroes, vp0 set), through the datapath itself.
    let cfg = setup.cfg;
    let strip = p.strip() as u64;
    let strips = (p.bank_entries as u64 / cfg.vv_total().max(1) as u64)
        .min(p.pred_entries as u64 / cfg.vp.max(1) as u64);
    let mut init: Vec<Fields> = Vec::new();
    for s in 0..strips {
        for r in 0..cfg.vv_total() {
            let row = s * cfg.vv_total() as u64 + r as u64;
            init.push(vec![
                ("unit", unit::ALU),
                ("wr", 1),
                ("count", strip),
                ("rd", row),
            ]);
        }
        for r in 0..cfg.vp {
            let row = s * cfg.vp as u64 + r as u64;
            let table = if r == 0 { 0xff } else { 0 };
            init.push(vec![
                ("unit", unit::PLU),
                ("count", strip),
                ("table", table),
                ("wr", 1),
                ("rd_pred", 1),
                ("prd", row),
            ]);
        }
    }
    bench.run(&cfg, &init);
    let ops: Vec<Fields> = gold
        .insns
        .iter()
        .flat_map(|i| strip_ops(&p, setup, i))
        .collect();
    let (writes, _) = bench.run(&cfg, &ops);
    compare(&gold, &writes, setup, lines);
}

#[test]
fn directed_programs_match_the_golden_model() {
    let p = HwachaParams::default();
    let mut bench = Bench::new(&p);
    let (cfg, programs) = directed_programs();
    let maxvl = model_params(&p).maxvl(&cfg);
    for lines in &programs {
        for vlen in [1, 7, 8, 9, 30, maxvl] {
            let vs = directed_vs();
            let va = vec![0; 32];
            check(&mut bench, &Setup { cfg, vlen, vs, va }, lines);
        }
    }
}

#[test]
fn random_programs_match_the_golden_model() {
    let per_shape = random_programs(25, 500);
    for (k, p) in configs().iter().enumerate() {
        let mut bench = Bench::new(p);
        let mut rng = Rng::new(0x1a_e0 + k as u64);
        for _ in 0..per_shape {
            let (setup, lines) = random_program(&mut rng, p, 40, false);
            check(&mut bench, &setup, &lines);
        }
    }
}

/// The systolic schedule's throughput: after the start-up latency, independent operations
/// with r vector operands stream one strip every r cycles (every cycle with none), and
/// the multiplier takes a strip every B cycles (one bank entry per cycle).
#[test]
fn independent_strips_stream_at_the_bank_schedule_rate() {
    for p in configs() {
        let mut bench = Bench::new(&p);
        let cfg = Vcfg {
            vv64: 4,
            vp: 1,
            vv32: 0,
            vv16: 0,
        };
        let strips = 40u64;
        for (rows_read, unit_, min_gap) in [
            (0u64, unit::ALU, 1u64),
            (1, unit::ALU, 1),
            (2, unit::ALU, 2),
            (2, unit::IMUL, p.banks as u64),
        ] {
            let ops: Vec<Fields> = (0..strips)
                .map(|s| {
                    let mut op = vec![
                        ("unit", unit_),
                        ("wr", 1),
                        ("count", p.strip() as u64),
                        ("rd", (s % 8) * 4 + 3),
                    ];
                    if rows_read > 0 {
                        op.extend([("rs1_v", 1), ("rs1", (s % 8) * 4)]);
                    }
                    if rows_read > 1 {
                        op.extend([("rs2_v", 1), ("rs2", (s % 8) * 4 + 1)]);
                    }
                    op
                })
                .collect();
            let (_, cycles) = bench.run(&cfg, &ops);
            let gap = min_gap.max(rows_read);
            let drain = 2 * (8 + p.banks as u64 + p.stages_imul as u64);
            assert!(
                cycles <= strips * gap + drain,
                "{p:?}: {strips} strips with {rows_read} reads on unit {unit_}: {cycles} cycles, more than {} + {drain}",
                strips * gap
            );
            assert!(
                cycles >= strips * gap,
                "faster than the bank schedule allows: {cycles}"
            );
        }
    }
}

#[test]
fn every_tested_shape_is_lint_clean() {
    for p in configs() {
        let design = Design::new(&vxu(&p, 2).unwrap());
        let verilog = hdl::emit::emit(&design, &Default::default()).single_file();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("vxu.v"), verilog).unwrap();
        let target = LintTarget {
            dir: dir.path().to_path_buf(),
            files: vec!["vxu.v".into()],
            top: design.top_name().to_string(),
        };
        let verdicts = run_all(&target).unwrap_or_else(|e| panic!("{e}"));
        for v in verdicts {
            assert!(v.clean, "{p:?}: {}:\n{}", v.tool, v.output);
        }
    }
}
