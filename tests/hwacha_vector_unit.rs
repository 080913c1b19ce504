//! The Hwacha vector unit (`hwacha::vector_unit`: master sequencer, lane sequencers,
//! lanes) under Verilator, against the Hwacha golden model: programs of integer,
//! compare, element-index and predicate-logic instructions are issued as the scalar unit
//! would (decoded, one per cycle under `issue_ready`) after a configuration, and every
//! register-file write of every lane, mapped back to (register, element) by the layout
//! contract, must be the model's (`hwacha_rtl_rig::compare`). 1, 2 and 4 lanes, two
//! sequencer sizes; directed programs, then random ones (random configuration, vector
//! length, predication, back-to-back dependences that chain).

mod hwacha_rtl_rig;

use asic_flow::lint::{run_all, LintTarget};
use generators::hwacha::params::HwachaParams;
use generators::hwacha::vector_unit::vector_unit;
use hdl::Design;
use hwacha_rtl_rig::*;
use verification::hwacha::model::Vcfg;
use verification::rng::Rng;
use verification::verilator::{Model, Options};

/// 1, 2 and 4 lanes; the thesis's 8 sequencer slots and a small 4-slot sequencer.
fn configs() -> Vec<HwachaParams> {
    let mut out = Vec::new();
    for lanes in [1, 2, 4] {
        for seq_entries in [8, 4] {
            out.push(HwachaParams {
                lanes,
                seq_entries,
                ..HwachaParams::default()
            });
        }
    }
    out
}

struct Bench {
    p: HwachaParams,
    dut: Model,
}

impl Bench {
    fn new(p: &HwachaParams) -> Bench {
        let top = vector_unit(p).unwrap();
        let mut dut = Model::of_design(&Design::new(&top), &Options::default()).unwrap();
        dut.poke_u64("reset", 1).unwrap();
        dut.step();
        dut.poke_u64("reset", 0).unwrap();
        Bench { p: p.clone(), dut }
    }

    fn wait_idle(&mut self, writes: &mut Vec<Write>, cfg: &Vcfg) {
        let start = self.dut.cycle();
        while self.dut.peek_u64("idle").unwrap() == 0 {
            self.record(writes, cfg);
            self.dut.step();
            assert!(self.dut.cycle() - start < 1_000_000, "the vector unit hangs");
        }
    }

    fn record(&mut self, writes: &mut Vec<Write>, cfg: &Vcfg) {
        for l in 0..self.p.lanes as u64 {
            for b in 0..self.p.banks as u64 {
                let prefix = format!("l{l}_b{b}_");
                record_bank_writes(&mut self.dut, &prefix, &self.p, cfg, l, b, writes);
            }
        }
    }

    /// Configures, then issues `issues` in order; the writes after the configuration's
    /// clearing in cycle order, and the cycles the instructions took.
    fn run(&mut self, cfg: &Vcfg, issues: &[Fields]) -> (Vec<Write>, u64) {
        let mut writes = Vec::new();
        self.dut.poke_u64("cfg_valid", 1).unwrap();
        self.dut.poke_u64("cfg_bits_nvv", cfg.vv_total() as u64).unwrap();
        self.dut.poke_u64("cfg_bits_nvp", cfg.vp as u64).unwrap();
        self.dut.step();
        self.dut.poke_u64("cfg_valid", 0).unwrap();
        self.wait_idle(&mut Vec::new(), cfg);
        let start = self.dut.cycle();
        for fields in issues {
            poke_fields(&mut self.dut, "issue_bits", fields);
            self.dut.poke_u64("issue_valid", 1).unwrap();
            loop {
                let ready = self.dut.peek_u64("issue_ready").unwrap();
                self.record(&mut writes, cfg);
                self.dut.step();
                if ready == 1 {
                    break;
                }
                assert!(self.dut.cycle() - start < 1_000_000, "issue hangs");
            }
        }
        self.dut.poke_u64("issue_valid", 0).unwrap();
        self.wait_idle(&mut writes, cfg);
        (writes, self.dut.cycle() - start)
    }
}

fn check(bench: &mut Bench, setup: &Setup, lines: &[String]) -> u64 {
    let gold = golden(&bench.p, setup, lines);
    let issues: Vec<Fields> = gold
        .insns
        .iter()
        .map(|i| {
            let mut f = insn_fields(&setup.cfg, i, &|r| setup.vs[r as usize]);
            f.push(("vlen", setup.vlen));
            f
        })
        .collect();
    let (writes, cycles) = bench.run(&setup.cfg, &issues);
    compare(&gold, &writes, setup, lines);
    cycles
}

#[test]
fn directed_programs_match_the_golden_model() {
    for p in configs() {
        let mut bench = Bench::new(&p);
        let (cfg, programs) = directed_programs();
        let maxvl = model_params(&p).maxvl(&cfg);
        for lines in &programs {
            for vlen in [1, 9, 17, 8 * p.lanes as u64 + 3, maxvl - 1, maxvl] {
                let vs = directed_vs();
                check(&mut bench, &Setup { cfg, vlen, vs }, lines);
            }
        }
    }
}

#[test]
fn random_programs_match_the_golden_model() {
    let per_config = if long() { 2000 } else { 20 };
    for (k, p) in configs().iter().enumerate() {
        let mut bench = Bench::new(p);
        let mut rng = Rng::new(0x5e9_0 + k as u64);
        for _ in 0..per_config {
            let (setup, lines) = random_program(&mut rng, p, 40);
            check(&mut bench, &setup, &lines);
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

