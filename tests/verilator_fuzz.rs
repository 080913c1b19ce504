//! The hdl differential fuzz (`verification::hdlfuzz`) through the in-process Verilator
//! harness (`verification::verilator`): random circuits, batched many to a model, must
//! agree with the IR simulator on every output in every cycle. The circuit count and seed
//! follow `ACCELGEN_LONG`, `ACCELGEN_FUZZ_CIRCUITS` and `ACCELGEN_FUZZ_SEED` as in
//! `tests/hdl_fuzz.rs`.

use verification::hdlfuzz::{self, Config, Failure, Fault, OpKind, SimKind};

#[test]
fn ir_simulator_and_in_process_verilator_agree_on_random_circuits() {
    let cfg = Config {
        sims: vec![SimKind::Ir, SimKind::VerilatorLib],
        // `tests/hdl_fuzz.rs` lints the same circuits.
        lint: false,
        ..Config::from_env()
    };
    hdlfuzz::assert_agree(&cfg, "hdl fuzz via the in-process Verilator harness");
}

/// The harness's results are really compared: corrupting them on outputs that depend on a
/// multiplier is caught.
#[test]
fn a_corrupted_harness_result_is_caught() {
    let cfg = Config {
        circuits: 12,
        batch: 12,
        workers: 1,
        sims: vec![SimKind::Ir, SimKind::VerilatorLib],
        lint: false,
        fault: Some(Fault {
            sim: SimKind::VerilatorLib,
            op: OpKind::Mul,
        }),
        // Minimizing would rebuild the model for every candidate.
        max_repros: 0,
        // A seed whose circuits put a multiplier before an output (which circuits do
        // depends on the generator's random stream, as in `hdl_fuzz`).
        seed: 3,
        ..Config::default()
    };
    let report = hdlfuzz::run(&cfg);
    let mismatch = report
        .failures
        .iter()
        .find_map(|f| match f {
            Failure::Mismatch(r) => Some(r),
            _ => None,
        })
        .expect("the corruption is detected");
    assert_eq!(mismatch.pair, (SimKind::Ir, SimKind::VerilatorLib));
    assert!(
        report
            .failures
            .iter()
            .all(|f| matches!(f, Failure::Mismatch(_))),
        "only mismatches expected"
    );
}
