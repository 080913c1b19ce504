//! The FG-SIMT front end (`cp/frontend.rs`: kernel state, warp counter, AWFR/PWFB, warp
//! fetch and decode) under Verilator, in lockstep with the SIMT model
//! (`verification::fgsimt::warp::KernelRun`) on real kernels: the host runs on the ISS,
//! its `stack`, `globals` and `launch` go to the RTL as RoCC commands, the RTL's fetch
//! is served from the ISS's memory with random latency, and a stand-in for the SIU
//! accepts warp instructions with random back-pressure and answers branches and jumps
//! with each thread's outcome in the model. Every warp instruction the front end commits
//! (`ftrace`) must be the model's next, in the model's PWFB order with its mask; every
//! instruction it sends to the SIU the model's next that goes there; the launch's answer
//! must come after the last. Faults (illegal instructions, CSR access, `ecall`,
//! `ebreak`, misaligned jump targets) must be the ISS's trap: cause, pc, thread, tval.

use generators::fgsimt::cp::frontend::frontend;
use generators::fgsimt::params::FgsimtParams;
use hdl::Design;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use verification::fgsimt::affine::Mechanisms;
use verification::fgsimt::program::host;
use verification::fgsimt::warp::{KernelRun, SimtError, WarpCommit};
use verification::iss::simt::Launch;
use verification::iss::{Iss, IssConfig, IssError, Step};
use verification::rng::Rng;
use verification::verilator::{Model, Options};

mod lint_rig;

fn build(dir: &Path, name: &str) -> PathBuf {
    let elf = dir.join(format!("{name}.elf"));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("kernels/{name}.c"));
    let out = assert_cmd::Command::cargo_bin("accelgen")
        .unwrap()
        .args(["asm", "--target", "simt"])
        .arg(src)
        .arg("-o")
        .arg(&elf)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    elf
}

/// Goes to the SIU: everything but `jal x0` and fences.
fn to_siu(insn: u32) -> bool {
    let opcode = insn & 0x7f;
    let rd = (insn >> 7) & 31;
    !(opcode == 0x6f && rd == 0 || opcode == 0x0f)
}

fn branch_target(pc: u64, insn: u32) -> u64 {
    let i = insn as u64;
    let imm = ((i >> 31) & 1) << 12
        | ((i >> 7) & 1) << 11
        | ((i >> 25) & 0x3f) << 5
        | ((i >> 8) & 0xf) << 1;
    let imm = ((imm << 51) as i64 >> 51) as u64;
    pc.wrapping_add(imm) & 0xffff_ffff
}

/// A branch's or jump's result port and its fields' values.
type Outcome = (&'static str, Vec<(&'static str, u64)>);

/// The result the SIU would send for a branch or jalr.
fn outcome(c: &WarpCommit) -> Option<Outcome> {
    match c.insn & 0x7f {
        0x63 => {
            let target = branch_target(c.pc, c.insn);
            let fall = (c.pc + 4) & 0xffff_ffff;
            let active = (0..32).filter(|i| c.mask >> i & 1 != 0);
            let taken = active
                .zip(&c.next)
                .filter(|&(_, &n)| n == target && target != fall)
                .fold(0u64, |m, (i, _)| m | 1 << i);
            Some(("branch", vec![("taken", taken)]))
        }
        0x67 => {
            let agree = c.next.iter().all(|&n| n == c.next[0]) as u64;
            Some(("jump", vec![("target", c.next[0]), ("agree", agree)]))
        }
        _ => None,
    }
}

struct Bench {
    m: Model,
    rng: Rng,
    warp_size: u32,
    /// The fetch in flight: address and cycles until its response.
    fetch: Option<(u64, u32)>,
    /// The branch or jump result due: cycles to wait, port, values.
    result: Option<(u32, Outcome)>,
    cycles: u64,
}

impl Bench {
    fn new(p: &FgsimtParams, seed: u64) -> Bench {
        let design = Design::new(&frontend(p).unwrap());
        let mut m = Model::of_design(&design, &Options::default()).unwrap();
        m.restart(seed).unwrap();
        for (port, v) in [
            ("rocc_resp_ready", 1),
            ("rocc_cmd_valid", 0),
            ("exec_fault_valid", 0),
        ] {
            m.poke_u64(port, v).unwrap();
        }
        Bench {
            m,
            rng: Rng::new(seed),
            warp_size: p.warp_size,
            fetch: None,
            result: None,
            cycles: 0,
        }
    }

    fn poke(&mut self, port: &str, v: u64) {
        self.m.poke_u64(port, v).unwrap();
    }

    fn peek(&mut self, port: &str) -> u64 {
        self.m.peek_u64(port).unwrap()
    }

    /// Sends a RoCC command (funct7, xd/xs1/xs2 as funct3, rs1 and rs2 values).
    fn command(&mut self, funct7: u64, funct3: u64, rs1: u64, rs2: u64) {
        for (f, v) in [
            ("funct7", funct7),
            ("xd", funct3 >> 2),
            ("xs1", funct3 >> 1 & 1),
            ("xs2", funct3 & 1),
            ("rd", 0),
            ("opcode", 0x0b),
            ("rs1", 0),
            ("rs2", 0),
            ("rs1_val", rs1),
            ("rs2_val", rs2),
        ] {
            self.poke(&format!("rocc_cmd_bits_{f}"), v);
        }
        self.poke("rocc_cmd_valid", 1);
        while self.peek("rocc_cmd_ready") == 0 {
            self.step_idle();
        }
        self.step_idle();
        self.poke("rocc_cmd_valid", 0);
    }

    fn step_idle(&mut self) {
        self.m.step();
        self.cycles += 1;
        assert!(self.cycles < 50_000_000, "no progress");
    }

    /// The bundle `port`'s pc, instruction and mask equal the model's commit `c`.
    fn expect_commit(&mut self, port: &str, c: &WarpCommit) {
        for (f, v) in [
            ("pc", c.pc),
            ("insn", c.insn as u64),
            ("mask", c.mask as u64),
        ] {
            let got = self.peek(&format!("{port}_bits_{f}"));
            assert_eq!(got, v, "{port} {f} at pc {:#x}", c.pc);
        }
    }

    /// Serves the fetch port from `iss`'s memory for one cycle (before the edge).
    fn serve_fetch(&mut self, iss: &Iss) {
        self.poke("fetch_resp_valid", 0);
        match self.fetch {
            Some((addr, 0)) => {
                let word = iss.mem.read(addr & !7, 8).expect("fetch inside memory");
                self.poke("fetch_resp_valid", 1);
                self.poke("fetch_resp_bits_data", word);
                self.fetch = None;
                self.poke("fetch_req_ready", 0);
            }
            Some((addr, n)) => {
                self.fetch = Some((addr, n - 1));
                self.poke("fetch_req_ready", 0);
            }
            None => {
                let ready = self.rng.chance(80);
                self.poke("fetch_req_ready", ready as u64);
            }
        }
    }

    /// Takes the fetch request the front end makes this cycle, if the port is ready
    /// (after every input of the cycle is set: the request may depend on them).
    fn take_fetch(&mut self) {
        if self.fetch.is_none()
            && self.peek("fetch_req_ready") == 1
            && self.peek("fetch_req_valid") == 1
        {
            let addr = self.peek("fetch_req_bits_addr");
            self.fetch = Some((addr, self.rng.below(3) as u32));
        }
    }

    /// Drives the SIU stand-in's branch/jump result port for one cycle.
    fn serve_result(&mut self) {
        self.poke("branch_valid", 0);
        self.poke("jump_valid", 0);
        if let Some((wait, (port, values))) = self.result.take() {
            if wait > 0 {
                self.result = Some((wait - 1, (port, values)));
                return;
            }
            self.poke(&format!("{port}_valid"), 1);
            for (f, v) in values {
                self.poke(&format!("{port}_bits_{f}"), v);
            }
        }
    }
}

/// The model's side of a launch: commits not yet seen on `ftrace` and on `inst`.
struct Expect {
    run: KernelRun,
    trace: VecDeque<WarpCommit>,
    inst: VecDeque<WarpCommit>,
    /// The model's trap, once it happened.
    trap: Option<IssError>,
    done: bool,
}

impl Expect {
    /// Makes sure the queues hold the next commit if there is one.
    fn fill(&mut self, iss: &mut Iss) {
        if self.trace.is_empty() && !self.done && self.trap.is_none() {
            match self.run.step(iss) {
                Ok(Some(c)) => {
                    if to_siu(c.insn) {
                        self.inst.push_back(c.clone());
                    }
                    self.trace.push_back(c);
                }
                Ok(None) => self.done = true,
                Err(SimtError::Iss(e)) => self.trap = Some(e),
                Err(e) => panic!("model: {e}"),
            }
        }
    }
}

/// Counts over a program.
#[derive(Default, Debug)]
struct Counts {
    launches: u32,
    warp_instructions: u64,
    cycles: u64,
}

/// Runs `elf` to its exit with the front end in the loop of every launch; `patch`
/// rewrites an instruction word first (the ISS traps on it as the RTL must).
fn run(elf: &Path, p: &FgsimtParams, seed: u64, patch: Option<(u64, u32)>) -> Counts {
    let program = verification::elf::load_file(elf).unwrap();
    let mut iss = host(&program, IssConfig::default()).unwrap();
    let mut b = Bench::new(p, seed);
    let mut counts = Counts::default();
    loop {
        match iss.step_one().unwrap() {
            Step::Exited(code) => {
                assert_eq!(code, 0, "the program's own check");
                return counts;
            }
            Step::Launch(launch) => {
                if let Some((offset, word)) = patch {
                    assert!(iss.mem.write(launch.entry + offset, 4, word as u64));
                }
                let start = b.cycles;
                let trapped = launch_on(&mut b, &mut iss, launch, &mut counts);
                counts.cycles += b.cycles - start;
                counts.launches += 1;
                if trapped {
                    return counts;
                }
                iss.finish_launch();
            }
            Step::Retired(_) | Step::Trapped { .. } => {}
        }
    }
}

/// One launch in lockstep; true if it ended in the model's trap (checked against the
/// RTL's fault).
fn launch_on(b: &mut Bench, iss: &mut Iss, launch: Launch, counts: &mut Counts) -> bool {
    let t0 = iss.launch_thread(launch, 0);
    let top = t0.x(2);
    let bytes = if launch.n > 1 {
        top - iss.launch_thread(launch, 1).x(2)
    } else {
        0
    };
    b.command(2, 0b011, top, bytes);
    b.command(3, 0b011, t0.x(3), t0.x(4));
    b.command(1, 0b111, launch.n as u64, launch.entry);
    let mech = Mechanisms::parse("none").unwrap();
    let mut e = Expect {
        run: KernelRun::new(iss, launch, b.warp_size, mech),
        trace: VecDeque::new(),
        inst: VecDeque::new(),
        trap: None,
        done: false,
    };
    loop {
        e.fill(iss);
        b.serve_fetch(iss);
        b.serve_result();
        let inst_ready = b.result.is_none() && b.rng.chance(70);
        b.poke("inst_ready", inst_ready as u64);
        let idle = [b.rng.chance(85), b.rng.chance(85)];
        b.poke("exec_idle", idle[0] as u64);
        // One context: its registers are final when execute is idle.
        b.poke("ctx_idle", idle[0] as u64);
        b.poke("smu_idle", idle[1] as u64);
        if b.peek("fault_valid") == 1 {
            check_fault(b, &e);
            return true;
        }
        if b.peek("rocc_resp_valid") == 1 {
            e.fill(iss);
            assert!(
                e.done && e.trace.is_empty() && e.inst.is_empty(),
                "answered early"
            );
            b.step_idle();
            return false;
        }
        if b.peek("ftrace_valid") == 1 {
            let c = e.trace.pop_front().expect("a commit beyond the model's");
            b.expect_commit("ftrace", &c);
            counts.warp_instructions += 1;
        }
        if inst_ready && b.peek("inst_valid") == 1 {
            let c = e
                .inst
                .pop_front()
                .expect("an instruction beyond the model's");
            b.expect_commit("inst", &c);
            let base = c.warp as u64 * b.warp_size as u64;
            assert_eq!(b.peek("inst_bits_tid_base"), base);
            if let Some(o) = outcome(&c) {
                b.result = Some((b.rng.below(6) as u32, o));
            }
        }
        b.take_fetch();
        b.step_idle();
    }
}

/// The RTL's fault equals the model's trap.
fn check_fault(b: &mut Bench, e: &Expect) {
    let Some(IssError::KernelTrap {
        tid,
        pc,
        cause,
        tval,
        ..
    }) = &e.trap
    else {
        panic!(
            "the RTL faulted (cause {}) where the model did not",
            b.peek("fault_bits_cause")
        );
    };
    for (f, v) in [
        ("cause", *cause),
        ("pc", *pc),
        ("thread", *tid as u64),
        ("tval", *tval),
    ] {
        assert_eq!(b.peek(&format!("fault_bits_{f}")), v, "fault {f}");
    }
}

fn params(lanes: u32, warp_size: u32) -> FgsimtParams {
    FgsimtParams {
        lanes,
        warp_size,
        ..FgsimtParams::default()
    }
}

#[test]
fn kernels_run_in_the_models_order() {
    let dir = tempfile::tempdir().unwrap();
    let long = std::env::var_os("ACCELGEN_LONG").is_some();
    let mut kernels = vec![("bsearch", 8), ("bfs", 32), ("mfilt", 4)];
    if long {
        kernels.extend([
            ("strsearch", 32),
            ("viterbi", 16),
            ("dither", 32),
            ("rsort", 8),
        ]);
    }
    for (name, warp) in kernels {
        let elf = build(dir.path(), name);
        let c = run(&elf, &params(1, warp), warp as u64, None);
        println!(
            "{name} warp {warp}: {} launches, {} warp instructions in {} cycles ({:.2} cycles each)",
            c.launches,
            c.warp_instructions,
            c.cycles,
            c.cycles as f64 / c.warp_instructions as f64
        );
        assert!(c.warp_instructions > 1000);
    }
}

/// Random SPMD programs (`randgen::simt`): divergent branches, per-thread loops, partial
/// warps; `ACCELGEN_LONG=1` runs 100 instead of 6.
#[test]
fn random_programs_run_in_the_models_order() {
    use verification::randgen::simt::{build_simt, SimtShape};
    let count = if std::env::var_os("ACCELGEN_LONG").is_some() {
        100
    } else {
        6
    };
    let dir = tempfile::tempdir().unwrap();
    for seed in 0..count {
        let shape = SimtShape {
            len: 60,
            fp: seed % 2 == 1,
        };
        let elf = build_simt(seed, shape, dir.path()).unwrap();
        let warp = [32, 8, 4][seed as usize % 3];
        let c = run(&elf, &params(1, warp), seed, None);
        assert_eq!(c.launches, 2, "seed {seed}");
    }
}

#[test]
fn faults_are_the_iss_traps() {
    let dir = tempfile::tempdir().unwrap();
    let elf = build(dir.path(), "bsearch");
    // csrr a0, cycle; mret; wfi; ecall; ebreak; an OP-32 word; jal x0, +6.
    for (i, word) in [
        0xc000_2573u32,
        0x3020_0073,
        0x1050_0073,
        0x73,
        0x0010_0073,
        0x0000_053b,
        0x0060_006f,
    ]
    .into_iter()
    .enumerate()
    {
        let c = run(&elf, &params(1, 8), i as u64, Some((8, word)));
        assert_eq!(c.launches, 1, "{word:#x}: the first launch traps");
    }
}

#[test]
fn lint_clean() {
    let blocks: Vec<_> = [(1, 1), (2, 8), (8, 32)]
        .iter()
        .map(|&(l, w)| frontend(&params(l, w)).unwrap())
        .collect();
    lint_rig::lint_blocks("fgsimt frontend", &blocks);
}
