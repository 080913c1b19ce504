//! Differential fuzzing of the hdl IR (see `verification::hdlfuzz`): 150 random circuits
//! x 200 cycles must agree in the IR simulator, Icarus and Verilator and lint clean.
//! `ACCELGEN_LONG=1` runs 10,000 circuits; `ACCELGEN_FUZZ_CIRCUITS` and
//! `ACCELGEN_FUZZ_SEED` override the count and seed.

use verification::hdlfuzz::{self, Config, Failure, Fault, OpKind, SimKind};

#[test]
fn ir_simulator_verilator_and_icarus_agree_on_random_circuits() {
    let cfg = Config::from_env();
    hdlfuzz::assert_agree(&cfg, "hdl fuzz");
}

/// A deliberate discrepancy (the IR simulator's results corrupted on outputs that depend on
/// a multiplier) must be caught and minimized to a small circuit that still fails.
#[test]
fn minimizer_shrinks_an_injected_discrepancy() {
    let cfg = Config {
        circuits: 12,
        batch: 12,
        // A seed whose circuits put a multiplier before an output (which circuits do
        // depends on the generator's random stream), and whose minimization prunes a
        // memory read by a later one (`prune` once left that read's index stale).
        seed: 3,
        workers: 1,
        sims: vec![SimKind::Ir, SimKind::Icarus],
        lint: false,
        fault: Some(Fault {
            sim: SimKind::Ir,
            op: OpKind::Mul,
        }),
        max_repros: 1,
        ..Config::default()
    };
    let report = hdlfuzz::run(&cfg);
    let repro = report
        .failures
        .iter()
        .find_map(|f| match f {
            Failure::Mismatch(r) => Some(r),
            _ => None,
        })
        .expect("the injected fault is detected");
    eprintln!("{}", repro.text);
    assert!(repro.still_fails, "the reproducer no longer fails");
    assert!(
        repro.circuit.size() < 15,
        "reproducer has size {} (from {})",
        repro.circuit.size(),
        repro.original_size
    );
    assert!(
        repro.text.contains(" * "),
        "the multiplier survives minimization"
    );
}
