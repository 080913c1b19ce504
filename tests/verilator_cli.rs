//! `accelgen sim`: designs from the registry under Verilator from the command line; the
//! printed summary must match the IR simulator driven the same way, and bad input must
//! fail with a clear message and a non-zero exit.

mod cli_run;

use cli_run::accelgen_env as accelgen;
use hdl::{Design, Dir};
use verification::simulator::{exercise, Stimulus};
use verification::verilator::Interface;

/// The summary table: per output, (name, final value, nonzero cycles, changes).
fn table(stdout: &str) -> Vec<(String, String, u64, u64)> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("output "))
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 7, "summary line `{l}`");
            let num = |s: &str| s.parse::<u64>().expect("a count");
            (f[0].to_string(), f[2].to_string(), num(f[3]), num(f[6]))
        })
        .collect()
}

/// What the IR simulator sees of `design` with `params` under the same stimulus.
fn ir_table(
    design: &str,
    params: &str,
    stimulus: Stimulus,
    cycles: u64,
) -> Vec<(String, String, u64, u64)> {
    let params: toml::Table = params.parse().expect("TOML parameters");
    let top = generators::elaborate(design, &params).expect("design elaborates");
    let ports = Interface::of(&top).ports;
    let mut sim = hdl::sim::Sim::new(&Design::new(&top));
    let stats = exercise(&mut sim, &ports, stimulus, cycles).expect("IR simulation");
    ports
        .iter()
        .filter(|p| p.dir == Dir::Out)
        .zip(stats)
        .map(|(p, s)| {
            (
                p.name.clone(),
                format!("0x{}", s.last.to_hex()),
                s.nonzero,
                s.changes,
            )
        })
        .collect()
}

#[test]
fn random_run_of_a_queue_matches_the_ir_simulator() {
    let r = accelgen(
        &[
            "sim",
            "queue",
            "--set",
            "depth=3",
            "--set",
            "pipe=true",
            "--cycles",
            "400",
            "--seed",
            "5",
            // The IR simulator's `Sim::new` starts from zeros.
            "--init-seed",
            "0",
        ],
        &[],
    );
    assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    assert!(
        r.stdout.starts_with(
            "queue: 400 cycles after reset under Verilator, random stimulus (seed 5)\n"
        ),
        "{}",
        r.stdout
    );
    let expected = ir_table(
        "queue",
        "depth = 3\npipe = true",
        Stimulus::Random { seed: 5 },
        400,
    );
    assert_eq!(table(&r.stdout), expected, "{}", r.stdout);
}

/// `--init-seed`: the queue's never-written storage shows on `deq_bits` after reset:
/// zeros with seed 0, and a different random word for each other seed.
#[test]
fn the_initial_state_follows_the_init_seed() {
    let deq_bits = |seed: &str| {
        let args = ["sim", "queue", "--cycles", "1", "--stimulus", "idle"];
        let r = accelgen(&[&args[..], &["--init-seed", seed]].concat(), &[]);
        assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
        let rows = table(&r.stdout);
        rows.into_iter()
            .find(|row| row.0 == "deq_bits")
            .expect("deq_bits")
            .1
    };
    let (zero, three, four) = (deq_bits("0"), deq_bits("3"), deq_bits("4"));
    assert_eq!(zero, "0x00000000");
    assert!(
        three != zero && four != zero && three != four,
        "{three} {four}"
    );
    assert_eq!(deq_bits("3"), three, "a seed gives one state");
}

#[test]
fn idle_run_of_a_register_file_writes_a_waveform() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let vcd = dir.path().join("rf.vcd");
    let vcd_arg = vcd.to_str().expect("UTF-8 path");
    let r = accelgen(
        &[
            "sim",
            "banked_rf",
            "--set",
            "banks=2",
            "--cycles",
            "50",
            "--stimulus",
            "idle",
            "--init-seed",
            "0",
            "--vcd",
            vcd_arg,
        ],
        &[],
    );
    assert_eq!(r.code, 0, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    let expected = ir_table("banked_rf", "banks = 2", Stimulus::Idle, 50);
    assert_eq!(table(&r.stdout), expected, "{}", r.stdout);
    let text = std::fs::read_to_string(&vcd).expect("the waveform is written");
    assert!(text.contains("$enddefinitions"), "not a VCD");
    // 51 cycles (reset included): samples up to time 2 x 51.
    assert!(text.contains("\n#102\n"), "the waveform stops early");
}

#[test]
fn bad_invocations_fail_clearly() {
    let cases: [(&[&str], &str); 8] = [
        (&["sim", "nope"], "error: unknown design `nope` (available: banked_rf, queue, multiplier, rocket, rocket_accumulator, rocket-hwacha, rocket-board, fpu-compare, fpu-convert, fpu-divsqrt, fpu-fma, fgsimt, vgiw, l2, avc, dws)\n"),
        (
            &["sim", "queue", "--program", "prog.elf"],
            "error: design queue takes no program (got --program prog.elf)\n",
        ),
        (
            &["sim", "queue", "--set", "depth=0"],
            "error: design `queue`: parameter `depth` must be in 1..=65536, got 0\n",
        ),
        (
            &["sim", "queue", "--threads", "0"],
            "error: --threads must be in 1..=64, got 0\n",
        ),
        (
            &["sim", "queue", "--threads", "65"],
            "error: --threads must be in 1..=64, got 65\n",
        ),
        // Output paths are checked before the model is built.
        (
            &["sim", "queue", "--cycles", "3", "--vcd", "/nonexistent/dir/q.vcd"],
            "error: output /nonexistent/dir/q.vcd: directory /nonexistent/dir does not exist\n",
        ),
        (
            &["sim", "queue", "--vcd", "/proc/x.vcd"],
            "error: output /proc/x.vcd: cannot write in /proc: No such file or directory (os error 2) at path \"/proc/.tmp",
        ),
        (
            &["sim", "queue", "--vcd", "/tmp"],
            "error: output /tmp is a directory\n",
        ),
    ];
    for (args, message) in cases {
        let r = accelgen(args, &[]);
        // A message ending in a temporary name is checked up to it.
        let stderr = match message.ends_with('\n') {
            true => r.stderr.as_str(),
            false => &r.stderr[..message.len().min(r.stderr.len())],
        };
        assert_eq!((r.code, stderr), (1, message), "accelgen {args:?}");
        assert!(
            r.stdout.is_empty(),
            "accelgen {args:?} printed {}",
            r.stdout
        );
    }
    let r = accelgen(&["sim", "queue"], &[("ACCELGEN_CXX_OPT", "fast")]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "error: invalid Verilator option: ACCELGEN_CXX_OPT=\"fast\": not one of O0, O1, O2, O3\n"
        )
    );
    let r = accelgen(&["sim", "queue", "--vcd", "a.vcd", "--fst", "b.fst"], &[]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("'--vcd <FILE>' cannot be used with '--fst <FILE>'"),
        "{}",
        r.stderr
    );
}

#[test]
fn more_threads_than_cores_size_the_context() {
    // Verilator's context defaults to the host's cores and aborts a model verilated
    // with more; the model's own count is used instead.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) + 1;
    let r = accelgen(
        &[
            "sim",
            "queue",
            "--cycles",
            "50",
            "--threads",
            &threads.to_string(),
        ],
        &[],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.starts_with("queue: 50 cycles after reset"),
        "{}",
        r.stdout
    );
    // Not a terminal: one line per phase on stderr.
    assert!(
        r.stderr
            .starts_with("building the Verilator model of queue ...\n"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_missing_verilator_is_a_clear_error() {
    let r = accelgen(&["sim", "queue"], &[("PATH", "/nonexistent")]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.starts_with(
            "building the Verilator model of queue ...\n\
             error: building the Verilator model of queue: cannot run Verilator (`verilator`): "
        ) && r.stderr.contains("apt-get install verilator"),
        "{}",
        r.stderr
    );
}
