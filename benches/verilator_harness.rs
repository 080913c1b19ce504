//! Overhead of the in-process Verilator harness (`verification::verilator`): cycles/s of a
//! model driven from Rust vs. the same design, built with the same Verilator and compiler
//! options, run by a plain generated C++ main. The harness is measured with ports resolved
//! once (`PortId`) and with ports named in every call (the `Simulator` trait's way); all
//! runs must agree on the output checksum.

mod common;

use common::{best, plain_main, top, BenchSim, ByName, INPUTS};
use verification::verilator::{Model, Options, PortId};

/// The model with its ports resolved once.
struct ById {
    model: Model,
    inputs: Vec<PortId>,
    reset: PortId,
    y: PortId,
}

impl ById {
    fn new(model: Model) -> ById {
        let id = |name: &str| model.port(name).expect("bench port");
        ById {
            inputs: INPUTS.iter().map(|(name, _)| id(name)).collect(),
            reset: id("reset"),
            y: id("y"),
            model,
        }
    }
}

impl BenchSim for ById {
    fn reset(&mut self) {
        self.model.poke_id_u64(self.reset, 1).expect("reset");
        self.model.step();
        self.model.poke_id_u64(self.reset, 0).expect("reset");
    }

    fn cycle(&mut self, values: [u64; 4]) -> u64 {
        for (&id, v) in self.inputs.iter().zip(values) {
            self.model.poke_id_u64(id, v).expect("poke");
        }
        let y = self.model.peek_id_u64(self.y).expect("peek");
        self.model.step();
        y
    }
}

fn main() {
    let opts = Options::default();
    let flags = verification::verilator::args(&opts);
    let cxx = opts.cxx_opt.flag();
    let make = format!("OPT_FAST={cxx} OPT_SLOW={cxx} OPT_GLOBAL={cxx}");
    let mut plain_flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    plain_flags.extend(["-j", "2", "-MAKEFLAGS", &make]);
    println!(
        "In-process Verilator harness vs. a plain C++ main: same design and Verilator options"
    );
    println!("({}, C++ {cxx}), best of 3", flags.join(" "));
    println!(
        "{:>6} {:>14} {:>14} {:>14} {:>9} {:>9}",
        "lanes", "C++ main", "harness (id)", "harness (name)", "ratio id", "ratio name"
    );
    for lanes in [1u32, 4] {
        let design = top(lanes);
        let cycles = 4_000_000 / lanes as u64;
        if let Err(e) = Model::of_design(&design, &opts) {
            println!("{lanes:>6} harness unavailable: {e}");
            continue;
        }
        let Some((plain, plain_sum)) = plain_main(&design, cycles, &plain_flags, 3) else {
            println!("{lanes:>6} plain C++ main unavailable");
            continue;
        };
        // Each run loads the model from the cache, as a test would.
        let (id_rate, id_sum) = best(3, || {
            let mut m = ById::new(Model::of_design(&design, &opts).ok()?);
            Some(common::run(&mut m, cycles))
        })
        .expect("the model loads again from the cache");
        let (name_rate, name_sum) = best(3, || {
            Some(common::run(
                &mut ByName(Model::of_design(&design, &opts).ok()?),
                cycles,
            ))
        })
        .expect("the model loads again from the cache");
        assert_eq!(
            (id_sum, name_sum),
            (plain_sum, plain_sum),
            "the harness and the plain main disagree on the output checksum"
        );
        println!(
            "{lanes:>6} {plain:>14.0} {id_rate:>14.0} {name_rate:>14.0} {:>9.2} {:>9.2}",
            plain / id_rate,
            plain / name_rate
        );
    }
}
