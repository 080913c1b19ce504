//! The in-process Verilator harness (`verification::verilator`) against the IR simulator:
//! ports of every C++ type Verilator uses, waveforms, the build cache and its races, and
//! typed errors.

use hdl::sim::{Init, Sim};
use hdl::{Bits, Design, Dir, MemStyle, ModuleBuilder, ResetValue};
use std::ops::Range;
use std::path::Path;
use verification::simulator::Simulator;
use verification::verilator::{Error, Interface, Model, Options, Part, TraceFormat};

/// Widths at and around every boundary of Verilator's port types (CData, SData, IData,
/// QData, VlWide<N>) and of 64-bit limbs.
const WIDTHS: [u32; 16] = [
    1, 7, 8, 9, 16, 17, 32, 33, 63, 64, 65, 96, 127, 128, 129, 300,
];

/// Per width: `y_w = a_w + r_w` and `q_w = r_w` with `r_w <= a_w ^ b_w`, plus a memory
/// written from `a_128` and read synchronously.
fn widths_design(name: &str) -> Design {
    let mut m = ModuleBuilder::new(name);
    for w in WIDTHS {
        let a = m.input(&format!("a_{w}"), w);
        let b = m.input(&format!("b_{w}"), w);
        let y = m.output(&format!("y_{w}"), w);
        let q = m.output(&format!("q_{w}"), w);
        let r = m.reg(&format!("r_{w}"), w, 0u64);
        m.connect(&r, &(&a ^ &b));
        m.connect(&y, &(&a + &r));
        m.connect(&q, &r);
    }
    let mem = m.mem("mem", 8, 128, MemStyle::Inferred);
    let addr = m.input("addr", 3);
    let we = m.input("we", 1);
    let data = m.input("data", 128);
    m.when(&we, |m| m.write(&mem, &addr, &data));
    let one = m.lit(1, 1);
    let rd = m.read_sync(&mem, &addr, &one);
    let out = m.output("rdata", 128);
    m.connect(&out, &rd);
    Design::new(&m.finish().expect("the test design elaborates"))
}

/// A pseudo-random stream (an LCG): the stimulus, the same for both simulators.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 ^ (self.0 >> 29)
    }

    fn bits(&mut self, width: u32) -> Bits {
        let words: Vec<u64> = (0..hdl::bits::words_for(width))
            .map(|_| self.next())
            .collect();
        Bits::from_words(width, &words)
    }
}

/// Runs `cycles` cycles of random inputs (reset in cycle 0 and now and then) and returns
/// every output, in port order, before each edge.
fn run<S: Simulator>(sim: &mut S, iface: &Interface, cycles: u64, seed: u64) -> Vec<Vec<Bits>> {
    let mut rng = Lcg(seed);
    let mut trace = Vec::new();
    for c in 0..cycles {
        for p in iface.ports.iter().filter(|p| p.dir == Dir::In) {
            let v = if p.name == "reset" {
                Bits::from_u64(1, (c == 0 || rng.next().is_multiple_of(16)) as u64)
            } else {
                rng.bits(p.width)
            };
            sim.poke(&p.name, &v).expect("poke");
        }
        let sample = iface
            .ports
            .iter()
            .filter(|p| p.dir == Dir::Out)
            .map(|p| sim.peek(&p.name).expect("peek"))
            .collect();
        trace.push(sample);
        sim.step();
    }
    trace
}

/// A model of `design` starting from zeros, as the IR simulator's `Sim::new`, for tests
/// that compare the two from cycle 0.
fn zeroed(design: &Design, opts: &Options) -> Model {
    let mut model = Model::of_design(design, opts).expect("model builds");
    model.reinit(Init::Zero).expect("model restarts");
    model
}

fn options(cache: &Path) -> Options {
    Options {
        cache_dir: Some(cache.to_path_buf()),
        ..Options::default()
    }
}

/// Runs the widths design in a model built with `opts` and in the IR simulator: every
/// output must agree in every cycle.
fn widths_match_the_ir_simulator(name: &str, opts: &Options) {
    let design = widths_design(name);
    let iface = Interface::of(design.top());
    // Outputs are compared from cycle 0, before the first reset: both start at zeros.
    let mut model = zeroed(&design, opts);
    let mut sim = hdl::sim::Sim::new(&design);
    let expected = run(&mut sim, &iface, 300, 7);
    let got = run(&mut model, &iface, 300, 7);
    assert_eq!(model.cycle(), 300);
    let outputs: Vec<&str> = iface
        .ports
        .iter()
        .filter(|p| p.dir == Dir::Out)
        .map(|p| p.name.as_str())
        .collect();
    for (c, (e, g)) in expected.iter().zip(&got).enumerate() {
        for (k, name) in outputs.iter().enumerate() {
            assert_eq!(e[k], g[k], "cycle {c}, output {name}");
        }
    }
    // The 64-bit fast paths write and read the low bits of every width.
    for p in iface.ports.iter().filter(|p| p.dir == Dir::In) {
        let v = 0x9e37_79b9_7f4a_7c15u64 & (u64::MAX >> 64u32.saturating_sub(p.width));
        model.poke_u64(&p.name, v).expect("poke");
        sim.poke_u64(&p.name, v).expect("poke");
    }
    for name in &outputs {
        assert_eq!(
            model.peek_u64(name).expect("peek"),
            sim.peek_u64(name).expect("peek"),
            "output {name}"
        );
    }
}

#[test]
fn every_port_width_matches_the_ir_simulator() {
    widths_match_the_ir_simulator("Widths", &Options::default());
}

#[test]
fn a_multithreaded_unoptimized_model_matches_the_ir_simulator() {
    let opts = Options {
        threads: 2,
        verilator_opt: verification::verilator::Opt::O0,
        cxx_opt: verification::verilator::Opt::O0,
        ..Options::default()
    };
    widths_match_the_ir_simulator("WidthsThreads", &opts);
}

/// A register without reset (`r`, written when `en`), one reset to 5 (`c`, counting) and
/// an inferred memory read synchronously from address 0.
fn init_design() -> Design {
    let mut m = ModuleBuilder::new("InitStates");
    let d = m.input("d", 40);
    let en = m.input("en", 1);
    let r = m.reg_en("r", 40, ResetValue::None, &en);
    m.connect(&r, &d);
    let c = m.reg("c", 8, 5u64);
    let one8 = m.lit(1, 8);
    m.connect(&c, &(&c + &one8));
    let mem = m.mem("mem", 4, 70, MemStyle::Inferred);
    let (zero, one) = (m.lit(0, 2), m.lit(1, 1));
    let rdata = m.read_sync(&mem, &zero, &one);
    m.when(&en, |m| m.write(&mem, &zero, &d.zext(70)));
    for (name, v) in [("r_out", &r), ("c_out", &c)] {
        let o = m.output(name, v.width());
        m.connect(&o, v);
    }
    let o = m.output("rdata", 70);
    m.connect(&o, &rdata);
    Design::new(&m.finish().expect("the test design elaborates"))
}

/// What a simulator shows before any edge, then after one clock edge in reset (`r`, `c`,
/// `rdata`), then after a write of `d` and one more edge.
fn init_trace<S: Simulator>(s: &mut S) -> [u64; 6] {
    let r0 = s.peek_u64("r_out").expect("peek");
    s.poke_u64("reset", 1).expect("poke");
    s.step();
    let (r1, c1) = (s.peek_u64("r_out").unwrap(), s.peek_u64("c_out").unwrap());
    let m1 = s.peek("rdata").unwrap().slice(63, 0).to_u64();
    s.poke_u64("reset", 0).unwrap();
    s.poke_u64("en", 1).unwrap();
    s.poke_u64("d", 0xab_cdef_0123).unwrap();
    s.step();
    s.poke_u64("en", 0).unwrap();
    s.step();
    let m2 = s.peek("rdata").unwrap().slice(63, 0).to_u64();
    [r0, r1, c1, m1, s.peek_u64("r_out").unwrap(), m2]
}

/// Random initial states in Verilator and the IR simulator: zeros with `Init::Zero`,
/// distinct states for distinct seeds and equal ones for equal seeds, registers without
/// reset keep their value through reset while the others reset, and once written both
/// simulators agree whatever the seed.
#[test]
fn initial_states_are_zero_or_seeded_random_in_both_simulators() {
    let design = init_design();
    let mut model = Model::of_design(&design, &Options::default()).expect("model builds");
    model.reinit(Init::Zero).unwrap();
    let zero = init_trace(&mut model);
    assert_eq!(zero, init_trace(&mut Sim::new(&design)));
    assert_eq!(zero[..4], [0, 0, 5, 0]);
    let mut seen = Vec::new();
    for seed in verification::verilator::INIT_SEEDS {
        model.reinit(Init::Random { seed }).unwrap();
        let v = init_trace(&mut model);
        model.reinit(Init::Random { seed }).unwrap();
        assert_eq!(v, init_trace(&mut model), "Verilator seed {seed} repeats");
        let init = Init::Random { seed };
        let s = init_trace(&mut Sim::with_init(&design, init));
        assert_eq!(s, init_trace(&mut Sim::with_init(&design, init)));
        for t in [v, s] {
            assert_ne!(t[0], 0, "seed {seed}: a random start is not zero");
            assert_eq!(t[1], t[0], "seed {seed}: reset leaves `r` alone");
            assert_eq!(t[2], 5, "seed {seed}: reset sets `c`");
            assert_ne!(t[3], 0, "seed {seed}: memory words start random");
            assert_eq!(
                t[4..],
                [0xab_cdef_0123, 0xab_cdef_0123],
                "seed {seed}: written"
            );
            seen.push(t[0]);
        }
    }
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 4, "every seed and simulator starts elsewhere");
}

/// A small design for the cache and error tests: an accumulator of a 70-bit input.
fn accumulator(name: &str) -> Design {
    let mut m = ModuleBuilder::new(name);
    let x = m.input("x", 70);
    let sum = m.output("sum", 70);
    let acc = m.reg("acc", 70, 0u64);
    m.connect(&acc, &(&acc + &x));
    m.connect(&sum, &acc);
    Design::new(&m.finish().expect("the test design elaborates"))
}

/// Builders racing for one cache entry all get a working model from it, and leave no
/// temporary directories behind (and remove one a killed build left two days ago); a later
/// build takes it from the cache.
#[test]
fn concurrent_builds_share_one_cache_entry() {
    let cache = tempfile::tempdir().expect("temporary directory");
    let abandoned = cache.path().join(".build-abandoned");
    std::fs::create_dir(&abandoned).expect("abandoned build directory");
    let two_days_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(2 * 86400);
    std::fs::File::open(&abandoned)
        .and_then(|d| d.set_modified(two_days_ago))
        .expect("backdate the abandoned build");
    let opts = Options {
        cxx_opt: verification::verilator::Opt::O0,
        jobs: 1,
        ..options(cache.path())
    };
    let design = accumulator("RaceAcc");
    let iface = Interface::of(design.top());
    let expected = run(&mut hdl::sim::Sim::new(&design), &iface, 50, 3);
    let dirs: Vec<std::path::PathBuf> = std::thread::scope(|s| {
        let builders: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let design = accumulator("RaceAcc");
                    let mut model = zeroed(&design, &opts);
                    assert_eq!(run(&mut model, &iface, 50, 3), expected);
                    model.build_info().dir.clone()
                })
            })
            .collect();
        builders
            .into_iter()
            .map(|b| b.join().expect("builder thread"))
            .collect()
    });
    assert!(dirs.iter().all(|d| *d == dirs[0]), "{dirs:?}");
    let entries: Vec<String> = std::fs::read_dir(cache.path())
        .expect("cache directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    // The model and, once, Verilator's runtime objects; nothing left behind.
    let runtimes = entries.iter().filter(|e| e.starts_with("runtime-")).count();
    assert_eq!((entries.len(), runtimes), (2, 1), "cache holds {entries:?}");
    let again = Model::of_design(&design, &opts).expect("model loads");
    assert!(again.build_info().cached);
    assert_eq!(again.build_info().dir, dirs[0]);
    // Another design's build links the kept runtime instead of compiling it.
    let other = accumulator("OtherAcc");
    let mut model = zeroed(&other, &opts);
    let iface = Interface::of(other.top());
    let expected = run(&mut hdl::sim::Sim::new(&other), &iface, 50, 3);
    assert_eq!(run(&mut model, &iface, 50, 3), expected);
    let log = std::fs::read_to_string(model.build_info().dir.join("build.log")).unwrap();
    assert!(log.contains(" verilated.o"), "{log}");
    assert!(!log.contains("verilated.cpp"), "{log}");
}

#[test]
fn a_missing_verilator_is_a_typed_error() {
    let cache = tempfile::tempdir().expect("temporary directory");
    let opts = Options {
        verilator: "/nonexistent/verilator".into(),
        ..options(cache.path())
    };
    match Model::of_design(&accumulator("NoVerilator"), &opts) {
        Err(e @ Error::NotFound { .. }) => {
            assert!(e.to_string().contains("/nonexistent/verilator"), "{e}")
        }
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("built without Verilator"),
    }
}

#[test]
fn a_failing_verilator_reports_its_log() {
    let cache = tempfile::tempdir().expect("temporary directory");
    let part = Part {
        verilog: "module Broken(input a, output b);\n  assign b = ;\nendmodule\n",
        interface: Interface {
            module: "Broken".into(),
            clock: None,
            ports: vec![],
        },
        prefix: String::new(),
    };
    match Model::build(&[part], &options(cache.path())) {
        Err(Error::Build { log, .. }) => assert!(log.contains("%Error"), "{log}"),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("broken Verilog built"),
    }
    let left: Vec<_> = std::fs::read_dir(cache.path()).expect("cache").collect();
    assert!(left.is_empty(), "a failed build left {left:?}");
}

/// Interfaces a model cannot have are refused before Verilator runs.
#[test]
fn impossible_interfaces_are_typed_errors() {
    let cache = tempfile::tempdir().expect("temporary directory");
    let port = |name: &str, width| verification::verilator::PortSpec {
        name: name.into(),
        dir: Dir::In,
        width,
    };
    let part = |module: &str, ports| Part {
        verilog: "",
        interface: Interface {
            module: module.into(),
            clock: None,
            ports,
        },
        prefix: String::new(),
    };
    let opts = options(cache.path());
    let cases = [
        (vec![part("A", vec![port("a", 0)])], "port `a` has no bits"),
        (
            vec![part("A", vec![port("a", 1)]), part("B", vec![port("a", 2)])],
            "the model has two ports named `a` (give its parts distinct prefixes)",
        ),
        (
            vec![part("accelgen_model", vec![])],
            "module name `accelgen_model` is reserved for the generated top module",
        ),
    ];
    for (parts, message) in cases {
        match Model::build(&parts, &opts) {
            Err(e) => assert_eq!(e.to_string(), message),
            Ok(_) => panic!("built a model with {message}"),
        }
    }
}

/// Bad pokes and peeks fail in the model exactly where they fail in the IR simulator.
#[test]
fn bad_ports_and_values_are_errors_as_in_the_ir_simulator() {
    let design = accumulator("BadPokes");
    let mut model = zeroed(&design, &Options::default());
    let mut sim = hdl::sim::Sim::new(&design);
    let too_wide = Bits::from_words(71, &[0, 1 << 6]);
    let fits = Bits::from_words(200, &[5, 1 << 5, 0, 0]);
    assert!(matches!(
        model.poke("nope", &fits),
        Err(Error::NoPort(p)) if p == "nope"
    ));
    assert!(sim.poke("nope", &fits).is_err());
    assert!(matches!(
        model.poke("x", &too_wide),
        Err(Error::TooWide { width: 70, .. })
    ));
    assert!(sim.poke("x", &too_wide).is_err());
    assert!(matches!(
        model.poke("sum", &fits),
        Err(Error::NotAnInput(p)) if p == "sum"
    ));
    assert!(sim.poke("sum", &fits).is_err());
    assert!(matches!(model.peek("nope"), Err(Error::NoPort(_))));
    assert!(sim.peek("nope").is_err());
    // A value wider than the port whose extra bits are zero is accepted by both.
    reset_and_add(&mut model, &fits);
    reset_and_add(&mut sim, &fits);
    assert_eq!(
        model.peek("sum").expect("peek"),
        sim.peek("sum").expect("peek")
    );
    assert!(matches!(
        model.poke_u64("reset", 2),
        Err(Error::TooWide { width: 1, .. })
    ));
    assert!(sim.poke_u64("reset", 2).is_err());
}

fn reset_and_add<S: Simulator>(s: &mut S, x: &Bits) {
    s.poke_u64("reset", 1).expect("reset");
    s.step();
    s.poke_u64("reset", 0).expect("reset");
    s.poke("x", x).expect("poke");
    s.step();
    s.step();
}

/// The value of VCD variable `var` before the clock edge (at time 2 x cycle) of each of
/// `cycles`.
fn vcd_samples(path: &Path, scope: &[&str], var: &str, cycles: Range<u64>) -> Vec<Bits> {
    let file = std::io::BufReader::new(std::fs::File::open(path).expect("waveform"));
    let mut parser = vcd::Parser::new(file);
    let header = parser.parse_header().expect("VCD header");
    let mut full: Vec<&str> = scope.to_vec();
    full.push(var);
    let v = header
        .find_var(&full)
        .unwrap_or_else(|| panic!("no {full:?} in the waveform"));
    let (code, width) = (v.code, v.size);
    let mut changes: Vec<(u64, Bits)> = Vec::new();
    let mut time = 0;
    for cmd in parser {
        let bits = |vals: Vec<vcd::Value>| {
            let mut words = vec![0u64; hdl::bits::words_for(width)];
            for (i, b) in vals.iter().rev().enumerate() {
                if *b == vcd::Value::V1 {
                    words[i / 64] |= 1 << (i % 64);
                }
            }
            Bits::from_words(width, &words)
        };
        match cmd.expect("VCD command") {
            vcd::Command::Timestamp(t) => time = t,
            vcd::Command::ChangeScalar(c, v) if c == code => changes.push((time, bits(vec![v]))),
            vcd::Command::ChangeVector(c, v) if c == code => {
                changes.push((time, bits(v.iter().collect())))
            }
            _ => {}
        }
    }
    cycles
        .map(|c| {
            changes
                .iter()
                .rev()
                .find(|(t, _)| *t <= 2 * c)
                .map(|(_, v)| v.clone())
                .unwrap_or_else(|| panic!("{var} has no value at cycle {c}"))
        })
        .collect()
}

/// A VCD of a run holds, before each clock edge, the outputs the IR simulator computes.
#[test]
fn vcd_waveform_matches_the_ir_simulator() {
    let design = widths_design("WidthsVcd");
    let iface = Interface::of(design.top());
    let opts = Options {
        trace: Some(TraceFormat::Vcd),
        ..Options::default()
    };
    let mut model = zeroed(&design, &opts);
    let dir = tempfile::tempdir().expect("temporary directory");
    let vcd = dir.path().join("run.vcd");
    model.trace(&vcd).expect("trace opens");
    let cycles = 40;
    run(&mut model, &iface, cycles, 11);
    model.close_trace();
    let expected = run(&mut hdl::sim::Sim::new(&design), &iface, cycles, 11);
    let outputs = iface.ports.iter().filter(|p| p.dir == Dir::Out);
    for (k, p) in outputs.enumerate() {
        let got = vcd_samples(&vcd, &["TOP", "accelgen_model", "u0"], &p.name, 0..cycles);
        let want: Vec<Bits> = expected.iter().map(|s| s[k].clone()).collect();
        assert_eq!(got, want, "output {}", p.name);
    }
}

#[test]
fn fst_waveform_is_written_and_untraced_models_refuse() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let design = accumulator("AccFst");
    let opts = Options {
        trace: Some(TraceFormat::Fst),
        ..Options::default()
    };
    let mut model = zeroed(&design, &opts);
    let fst = dir.path().join("run.fst");
    model.trace(&fst).expect("trace opens");
    model.poke_u64("x", 3).expect("poke");
    model.step_n(10);
    model.close_trace();
    let bytes = std::fs::read(&fst).expect("FST written");
    // An FST file opens with its header block (type 0) of 329 bytes.
    assert!(bytes.len() > 329 && bytes[0] == 0, "{} bytes", bytes.len());
    let mut plain = zeroed(&design, &Options::default());
    assert!(matches!(
        plain.trace(&dir.path().join("x.vcd")),
        Err(Error::TraceNotBuilt)
    ));
}

/// Waveforms can be closed and reopened on one model; each covers its own cycles.
#[test]
fn a_waveform_can_be_reopened() {
    let design = accumulator("AccReopen");
    let opts = Options {
        trace: Some(TraceFormat::Vcd),
        ..Options::default()
    };
    let mut model = zeroed(&design, &opts);
    let mut sim = hdl::sim::Sim::new(&design);
    let dir = tempfile::tempdir().expect("temporary directory");
    for (k, name) in ["first.vcd", "second.vcd"].into_iter().enumerate() {
        let wave = dir.path().join(name);
        model.trace(&wave).expect("trace opens");
        let start = sim.cycle();
        let mut expected = Vec::new();
        for _ in 0..4 {
            let x = Bits::from_u64(70, k as u64 + 1);
            model.poke("x", &x).expect("poke");
            sim.poke("x", &x).expect("poke");
            expected.push(sim.peek("sum").expect("peek"));
            model.step();
            sim.step();
        }
        model.close_trace();
        let got = vcd_samples(
            &wave,
            &["TOP", "accelgen_model", "u0"],
            "sum",
            start..start + 4,
        );
        assert_eq!(got, expected, "{name}");
    }
}
