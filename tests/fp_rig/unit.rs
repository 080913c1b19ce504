//! Driving a fixed-latency floating-point unit (the ports of `generators::fpu`'s
//! conventions: `in_valid`, `rm`, `op`, operands; `out_valid`, `result`, `flags`) with
//! one operation a cycle, through the IR simulator or a Verilator model alike.

use verification::simulator::Simulator;

/// One operation: the `op` select, the rounding mode and the operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vector {
    pub op: u64,
    pub rm: u64,
    pub operands: [u64; 3],
}

/// Runs `vectors` back to back on the unit whose ports are `prefix` + the conventional
/// names, operands on `operand_ports`, and returns each result and flags, read exactly
/// `latency` cycles after the operation went in (asserting `out_valid` then, and clear
/// once the unit has drained).
pub fn run<S: Simulator>(
    sim: &mut S,
    prefix: &str,
    operand_ports: &[&str],
    latency: u32,
    vectors: &[Vector],
) -> Vec<(u64, u8)> {
    let port = |name: &str| format!("{prefix}{name}");
    // Units without registers have no reset port.
    let _ = sim.poke_u64(&port("reset"), 0);
    let lat = latency as usize;
    let mut out = Vec::with_capacity(vectors.len());
    for t in 0..vectors.len() + lat + 1 {
        let v = vectors.get(t);
        sim.poke_u64(&port("in_valid"), v.is_some() as u64).unwrap();
        if let Some(v) = v {
            sim.poke_u64(&port("op"), v.op).unwrap();
            sim.poke_u64(&port("rm"), v.rm).unwrap();
            for (name, x) in operand_ports.iter().zip(v.operands) {
                sim.poke_u64(&port(name), x).unwrap();
            }
        }
        if t >= lat {
            let valid = sim.peek_u64(&port("out_valid")).unwrap();
            if t - lat < vectors.len() {
                assert_eq!(valid, 1, "out_valid of operation {}", t - lat);
                let result = sim.peek_u64(&port("result")).unwrap();
                let flags = sim.peek_u64(&port("flags")).unwrap() as u8;
                out.push((result, flags));
            } else {
                assert_eq!(valid, 0, "out_valid after the last operation");
            }
        }
        sim.step();
    }
    out
}

/// An operation and its expected result and flags; `group` names what it is for
/// messages (an index into the caller's list of operations).
#[derive(Clone, Copy, Debug)]
pub struct Check {
    pub vector: Vector,
    pub want: (u64, u8),
    pub group: usize,
}

/// Runs `checks` in a random order (seeded), so that operations of every kind and
/// rounding mode follow one another back to back, and asserts every result and flags;
/// `describe` names a group in messages.
pub fn run_mixed<S: Simulator>(
    sim: &mut S,
    prefix: &str,
    operand_ports: &[&str],
    latency: u32,
    mut checks: Vec<Check>,
    seed: u64,
    describe: impl Fn(usize) -> String,
) {
    let mut rng = verification::rng::Rng::new(seed);
    for i in (1..checks.len()).rev() {
        checks.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let vectors: Vec<Vector> = checks.iter().map(|c| c.vector).collect();
    let got = run(sim, prefix, operand_ports, latency, &vectors);
    eprintln!("{} operations checked, latency {latency}", vectors.len());
    for (c, g) in checks.iter().zip(&got) {
        let v = c.vector;
        assert_eq!(
            *g,
            c.want,
            "{} rm {} operands {:#x?}: got {:#x} {}, want {:#x} {}",
            describe(c.group),
            v.rm,
            &v.operands[..operand_ports.len()],
            g.0,
            super::flag_names(g.1),
            c.want.0,
            super::flag_names(c.want.1)
        );
    }
}

/// Whether the long runs (`ACCELGEN_LONG=1`) are on.
pub fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

/// Problems Verilator (`--lint-only -Wall`), Yosys (`hierarchy -check; proc; check
/// -assert`) and Icarus find in design `design` with parameters `params` (TOML), if any.
pub fn lint(design: &str, params: &str) -> Option<String> {
    use generators::output::{render, OutputOptions};
    let table: toml::Table = params.parse().expect("test parameters are TOML");
    let out = render(design, &table, &OutputOptions::default()).expect("design renders");
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in &out.files {
        std::fs::write(dir.path().join(name), text).expect("write output");
    }
    let target = asic_flow::lint::LintTarget::from_dir(dir.path()).expect("manifest");
    let verdicts = asic_flow::lint::run_all(&target).unwrap_or_else(|e| panic!("{e}"));
    let problems: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.clean)
        .map(|v| format!("{design} {{{params}}}: {}:\n{}", v.tool, v.output))
        .collect();
    (!problems.is_empty()).then(|| problems.join("\n"))
}
