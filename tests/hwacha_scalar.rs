//! The Hwacha frontend (`HwachaFrontend`: RoCC unit, VCMDQ, scalar unit, vector I$,
//! MulDiv, SMU) under Verilator against the golden model `verification::hwacha::model`.
//!
//! A session is a stream of control-thread commands over a memory image. The golden
//! model runs it first, with tracing; the testbench then drives the same commands into
//! the RTL and checks, against the model only: every RoCC response, every exception
//! (cause, tval, in order), every `vcfg` announcement, every VRCMDQ entry (Table 8.1;
//! the VRU's queue, back-pressured at random), the exact sequence of `vissue`
//! instructions (bits, vpc, vlen, shared and address operands) against the model's
//! retired instructions that the vector side executes, the sequence of values written
//! to each shared register (the `trace` port) against the model's `Effect::Vs`, every
//! scalar store on the data port against `Effect::Mem`, and the final data memory. The
//! vector side is played by the testbench from the model's own effects: it answers
//! `vfirst` and scalar FP on `vresp` and consensual jumps on `vbranch`, after random
//! delays, and drops `vidle` for a while after each issue. Responses, vissue and memory
//! are back-pressured at random; memory latencies are 1, 20 and 100 cycles. The vs/va
//! files have no reset: every session sets vs1-vs63 (and the va registers it uses) by
//! vmcs/vmca first, and the runs alternate the model's random initial states
//! (`INIT_SEEDS`).
//!
//! Sessions: every scalar int/imm/multiply/divide op on corner operands, the control
//! thread alone (maxvl of 60 random configurations, illegal and unconfigured commands),
//! 8 directed sessions of 3 blocks per instruction class (scalar
//! ALU, multiply/divide, scalar memory of every width and mode with segments, vector
//! issue, consensual jumps and counted loops, illegal instructions), each under the three
//! memory timings, then 200 random blocks (2000 with `ACCELGEN_LONG=1`) mixing
//! everything with vsetcfg/vsetvl/vuncfg/vmcs/vmca and illegal commands between them.
//! Coverage is counted and asserted (every exception cause, every legality rule, taken
//! and not-taken jumps), and a warm-I$ run must take about one cycle per instruction.
//! Configurations: the thesis default and a small one (plus a wide one with
//! `ACCELGEN_LONG`); each is also linted (Verilator -Wall, Yosys, as rocket_lint.rs).

use asic_flow::lint::{run_all, LintTarget};
use generators::hwacha::params::HwachaParams as RtlParams;
use generators::hwacha::rocc::vrcmd;
use generators::hwacha::scalar::{frontend, RamWindow};
use hdl::sim::Init;
use hdl::Design;
use std::collections::{HashMap, VecDeque};
use verification::hwacha::encoding::{table, Field, Thread};
use verification::hwacha::model::{
    instruction_bits, Effect, Hwacha, HwachaError, HwachaParams, Insn, Op,
};
use verification::iss::mem::Memory;
use verification::iss::rocc::{self, RoccCommand};
use verification::iss::Xlen;
use verification::rng::Rng;
use verification::tb::memory::{MemConfig, MemPort, MemoryModel};
use verification::verilator::{Model, Options, INIT_SEEDS};
use Field::*;

const BASE: u64 = 0x8000_0000;
const SIZE: u64 = 0x1_0000;
/// Code at BASE (blocks 0x400 apart), data in the upper half.
const DATA: u64 = BASE + 0x8000;
const DATA_SIZE: u64 = 0x8000;

fn long() -> bool {
    std::env::var_os("ACCELGEN_LONG").is_some()
}

// ------------------------------------------------------------------ encodings

/// A worker instruction from the encoding table with the given operand fields.
fn w(name: &str, fields: &[(Field, u64)]) -> u64 {
    let i = table()
        .get(name)
        .unwrap_or_else(|| panic!("no instruction {name}"));
    assert_eq!(i.thread, Thread::Worker);
    fields.iter().fold(i.bits, |b, &(f, v)| b | f.put(v))
}

/// A control-thread command with rs1's value.
fn ctl(name: &str, fields: &[(Field, u64)], rs1: u64) -> RoccCommand {
    let i = table().get(name).unwrap();
    let word = fields.iter().fold(i.bits, |b, &(f, v)| b | f.put(v)) as u32;
    let mut c = rocc::decode(word);
    c.rs1_value = if c.xs1 { rs1 } else { 0 };
    c
}

fn vsetcfg(vcfg: u64) -> RoccCommand {
    // The low 12 bits in the immediate, the rest in rs1 (the unit ORs them).
    ctl("vsetcfg", &[(Imm12, vcfg & 0xfff), (Rs1, 5)], vcfg & !0xfff)
}
fn vsetvl(n: u64) -> RoccCommand {
    ctl("vsetvl", &[(Rd, 10), (Rs1, 11)], n)
}
fn vmcs(reg: u64, value: u64) -> RoccCommand {
    ctl(
        "vmcs",
        &[(Svrdhi, reg >> 5), (Svrdlo, reg & 31), (Rs1, 6)],
        value,
    )
}
fn vmca(reg: u64, value: u64) -> RoccCommand {
    ctl("vmca", &[(Svard, reg), (Rs1, 7)], value)
}
fn vf(addr: u64) -> RoccCommand {
    // Through a 12-bit signed offset: rs1 holds addr + 16, the offset is -16.
    let off = (-16i64 as u64) & 0xfff;
    ctl(
        "vf",
        &[(Imm12hi, off >> 5), (Imm12lo, off & 31), (Rs1, 8)],
        addr + 16,
    )
}
fn cfg(vv64: u64, vp: u64, vv32: u64, vv16: u64) -> u64 {
    vv64 | vp << 9 | vv32 << 14 | vv16 << 23
}

// ------------------------------------------------------------------ sessions

/// Commands over a memory image (code blocks and data).
struct Session {
    cmds: Vec<RoccCommand>,
    image: Vec<(u64, Vec<u8>)>,
}

/// What the vector side answers for an issued instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    None,
    Resp { rd: u64, data: u64 },
    Branch { taken: bool },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Issue {
    bits: u64,
    pc: u64,
    vlen: u64,
    ops: [u64; 5],
}

/// Everything the RTL must produce, from the golden model.
struct Expected {
    responses: Vec<(u64, u64)>,
    xcpts: Vec<(u64, u64)>,
    vcfgs: Vec<u64>,
    issues: Vec<(Issue, Answer)>,
    writes: HashMap<u64, Vec<u64>>,
    stores: Vec<(u64, u8, u64)>,
    /// Why worker instructions were illegal (the model's `Illegal` variant names).
    illegal: Vec<String>,
    memory: Memory,
    /// VRCMDQ entries (Table 8.1): kind, va (vmca), value, vlen (vf).
    vrcmds: Vec<[u64; 4]>,
}

fn model_params(p: &RtlParams) -> HwachaParams {
    HwachaParams {
        max_worker_steps: 100_000,
        ..HwachaParams::of_rtl(p)
    }
}

/// The vector side executes it: everything but the scalar int/imm ops, scalar memory,
/// vstop and vfence.
fn issued(insn: &Insn) -> bool {
    let local = match insn.op {
        Op::Int(_) | Op::Imm(_) | Op::Stop | Op::Fence => true,
        Op::Load(m) | Op::Store(m) => !m.mode.is_vector(),
        _ => false,
    };
    insn.is_vector() || !local
}

fn cause_of(e: &HwachaError, cmd: &RoccCommand) -> (u64, u64) {
    use HwachaError::*;
    match *e {
        AcceleratorDisabled { .. }
        | IllegalConfig { .. }
        | UnsupportedControl { .. }
        | SharedRegisterOutOfRange { .. } => (2, instruction_bits(cmd) as u64),
        IllegalInstruction { bits, .. } => (2, bits),
        MisalignedFetch { pc } => (0, pc),
        FetchFault { pc } => (1, pc),
        MisalignedAccess { addr, store, .. } => (if store { 6 } else { 4 }, addr),
        AccessFault { addr, store, .. } => (if store { 7 } else { 5 }, addr),
        ref other => panic!("unexpected model error {other}"),
    }
}

/// The vpc an error stopped at, if a worker one.
fn error_pc(e: &HwachaError) -> Option<u64> {
    use HwachaError::*;
    match *e {
        IllegalInstruction { pc, .. }
        | MisalignedFetch { pc }
        | FetchFault { pc }
        | MisalignedAccess { pc, .. }
        | AccessFault { pc, .. } => Some(pc),
        _ => None,
    }
}

fn golden(p: &RtlParams, s: &Session) -> Expected {
    let mut hw = Hwacha::new(model_params(p)).unwrap();
    hw.set_tracing(true);
    let mut mem = Memory::new(BASE, SIZE, BASE, Xlen::Rv64);
    for (addr, bytes) in &s.image {
        assert!(mem.write_slice(*addr, bytes));
    }
    let mut e = Expected {
        responses: Vec::new(),
        xcpts: Vec::new(),
        vcfgs: Vec::new(),
        issues: Vec::new(),
        writes: HashMap::new(),
        stores: Vec::new(),
        illegal: Vec::new(),
        memory: Memory::new(BASE, 8, BASE, Xlen::Rv64),
        vrcmds: Vec::new(),
    };
    for cmd in &s.cmds {
        let name = table()
            .decode(Thread::Control, instruction_bits(cmd) as u64)
            .map(|i| i.name);
        let before: Vec<u64> = (0..64).map(|r| hw.state().vs(r)).collect();
        let (va, vlen) = (hw.state().va, hw.state().vlen);
        let result = hw.command(cmd, &mut mem);
        let trace = hw.take_trace();
        match &result {
            Ok(v) => {
                match name {
                    Some("vsetvl" | "vgetcfg" | "vgetvl") => e.responses.push((cmd.rd as u64, *v)),
                    Some("vsetcfg") => e.vcfgs.push(hw.state().vcfg.to_bits()),
                    Some("vuncfg") => e.vcfgs.push(0),
                    _ => {}
                }
                e.vrcmds.extend(runahead(cmd, name, *v, vlen));
            }
            // A block's exception comes after its vf went to the VRU.
            Err(err) if err.is_worker_exception() => {
                e.vrcmds.extend(runahead(cmd, name, 0, vlen));
                e.xcpts.push(cause_of(err, cmd));
                if let HwachaError::IllegalInstruction { reason, .. } = err {
                    let name = format!("{reason:?}");
                    e.illegal
                        .push(name.split([' ', '{']).next().unwrap().to_string());
                }
            }
            Err(err) => e.xcpts.push(cause_of(err, cmd)),
        }
        let mut vs = before;
        let stop_pc = result.as_ref().err().and_then(error_pc);
        for (i, r) in trace.iter().enumerate() {
            let insn = hw.decode(r.bits).expect("retired instructions are legal");
            let vs_effect = r.effects.iter().find_map(|f| match *f {
                Effect::Vs { reg, value } => Some((reg as u64, value)),
                _ => None,
            });
            if issued(&insn) {
                let shared = |f: Field| {
                    if insn.has(f) && !insn.is_vv(f) {
                        vs[insn.get(f) as usize]
                    } else {
                        0
                    }
                };
                let addr = |f: Field| {
                    if insn.has(f) {
                        va[insn.get(f) as usize]
                    } else {
                        0
                    }
                };
                let answer = match insn.op {
                    Op::Cjal | Op::Cjalr => {
                        let next = trace.get(i + 1).map(|n| n.pc).or(stop_pc);
                        Answer::Branch {
                            taken: vs_effect.is_some() || next != Some(r.pc + 8),
                        }
                    }
                    _ if insn.has(Vrd) && !insn.is_vv(Vrd) => Answer::Resp {
                        rd: insn.rd() as u64 & 63,
                        data: vs_effect.map_or(0, |(_, v)| v),
                    },
                    _ => Answer::None,
                };
                let issue = Issue {
                    bits: r.bits,
                    pc: r.pc,
                    vlen,
                    ops: [
                        shared(Vrs1),
                        shared(Vrs2),
                        shared(Vrs3),
                        addr(Vars1),
                        addr(Vars2),
                    ],
                };
                e.issues
                    .extend(segment_parts(&insn, issue).into_iter().map(|i| (i, answer)));
            }
            let answered = issued(&insn) && !matches!(insn.op, Op::Cjal | Op::Cjalr);
            for f in &r.effects {
                match *f {
                    Effect::Vs { reg, value } => {
                        vs[reg as usize] = value;
                        if !answered {
                            e.writes.entry(reg as u64).or_default().push(value);
                        }
                    }
                    Effect::Mem { addr, size, value } => {
                        assert!(!issued(&insn), "sessions have no vector stores");
                        e.stores.push((addr, size, value));
                    }
                    _ => {}
                }
            }
        }
    }
    Expected { memory: mem, ..e }
}

/// What the scalar unit issues for `issue`, the vector instruction `insn`: a segment
/// access of n registers becomes n accesses of one register, part k to rd + k at k
/// element widths past the base (the shared base of an indexed one, the address
/// register of the others), a unit-stride one strided by the segment's bytes.
fn segment_parts(insn: &Insn, issue: Issue) -> Vec<Issue> {
    let (Op::Load(mem) | Op::Store(mem)) = insn.op else {
        return vec![issue];
    };
    let n = insn.get(Vseglen) as u64 + 1;
    if n == 1 {
        return vec![issue];
    }
    let bytes = mem.width.bytes() as u64;
    let unit = insn.has(Vars1) && !insn.has(Vars2);
    (0..n)
        .map(|k| {
            let mut bits = Vseglen.put(0) | issue.bits & !Vseglen.put(7);
            bits = bits & !Vrd.put(0xff) | Vrd.put(Vrd.get(issue.bits) + k);
            let mut ops = issue.ops;
            if insn.has(Vars1) {
                ops[3] += k * bytes;
            } else {
                ops[0] += k * bytes;
            }
            if unit {
                bits |= 1 << 41;
                ops[4] = n * bytes;
            }
            Issue { bits, ops, ..issue }
        })
        .collect()
}

/// The VRCMDQ entry of an accepted command (Table 8.1: vsetcfg, vsetvl, vmca, and a vf
/// that runs), `response` its RoCC answer and `vlen` the vector length before it.
fn runahead(cmd: &RoccCommand, name: Option<&str>, response: u64, vlen: u64) -> Option<[u64; 4]> {
    let bits = instruction_bits(cmd) as u64;
    Some(match name? {
        "vsetcfg" => [
            vrcmd::CFG,
            0,
            (cmd.rs1_value | Imm12.get(bits)) & 0xffff_ffff,
            0,
        ],
        "vsetvl" => [vrcmd::VSETVL, 0, response, 0],
        "vmca" => [vrcmd::VMCA, Svard.get(bits), cmd.rs1_value, 0],
        "vf" if vlen > 0 => {
            let offset = (Imm12hi.get(bits) << 5 | Imm12lo.get(bits)) << 52;
            let addr = cmd.rs1_value.wrapping_add((offset as i64 >> 52) as u64);
            [vrcmd::VF, 0, addr, vlen]
        }
        _ => return None,
    })
}

// ------------------------------------------------------------------ the bench

/// Memory timing: latency, jitter, stall percent.
type Timing = (u32, u32, u32);
const TIMINGS: [Timing; 3] = [(1, 0, 0), (20, 5, 20), (100, 10, 30)];

struct Bench {
    dut: Model,
}

/// What the RTL produced in one session.
#[derive(Default)]
struct Observed {
    responses: Vec<(u64, u64)>,
    xcpts: Vec<(u64, u64)>,
    vcfgs: Vec<u64>,
    issues: usize,
    writes: HashMap<u64, Vec<u64>>,
    stores: Vec<(u64, u8, u64)>,
    cycles: u64,
    vrcmds: Vec<[u64; 4]>,
}

const CUSTOM: [u64; 4] = [0x0b, 0x2b, 0x5b, 0x7b];

impl Bench {
    fn new(p: &RtlParams) -> Bench {
        let top = frontend(
            p,
            RamWindow {
                base: BASE,
                size: SIZE,
            },
        )
        .unwrap();
        let dut = Model::of_design(&Design::new(&top), &Options::quick_build()).unwrap();
        Bench { dut }
    }

    /// Runs `s` on the RTL and checks it against `e`; returns the cycles taken.
    fn run(&mut self, s: &Session, e: &Expected, timing: Timing, seed: u64, what: &str) -> u64 {
        let (latency, jitter, stall_percent) = timing;
        let config = MemConfig {
            latency,
            jitter,
            stall_percent,
            seed,
            ..MemConfig::default()
        };
        let port = |prefix: &str| MemPort {
            resp_ready: None,
            ..MemPort::decoupled(prefix, false)
        };
        let mut mem = MemoryModel::new(config, vec![port("imem"), port("dmem")]).unwrap();
        for (addr, bytes) in &s.image {
            mem.memory_mut().write(*addr, bytes);
        }
        let m = &mut self.dut;
        // Runs alternate the design's two random initial states (the same model).
        let init = Init::Random {
            seed: INIT_SEEDS[(seed % 2) as usize],
        };
        m.reinit(init).unwrap();
        m.poke_u64("reset", 1).unwrap();
        m.step();
        m.poke_u64("reset", 0).unwrap();
        let mut rng = Rng::new(seed ^ 0x5ca1a);
        let mut cmds: VecDeque<&RoccCommand> = s.cmds.iter().collect();
        let mut o = Observed::default();
        // Answers owed to the RTL: (cycle due, answer).
        let mut owed: VecDeque<(u64, Answer)> = VecDeque::new();
        let mut vector_busy = 0u32;
        let mut quiet = 0;
        let ctx = |o: &Observed| format!("{what}, timing {timing:?}, cycle {}", o.cycles);
        while quiet < 20 {
            o.cycles += 1;
            assert!(o.cycles < 300_000, "{}: no progress", ctx(&o));
            let now = o.cycles;
            if let Some(c) = cmds.front() {
                poke_command(m, c);
            }
            m.poke_u64("cmd_valid", !cmds.is_empty() as u64).unwrap();
            let resp_ready = rng.chance(70);
            m.poke_u64("resp_ready", resp_ready as u64).unwrap();
            let vissue_ready = rng.chance(75);
            m.poke_u64("vissue_ready", vissue_ready as u64).unwrap();
            let due = owed.front().filter(|(t, _)| *t <= now).map(|&(_, a)| a);
            let (mut resp_v, mut br_v) = (false, false);
            match due {
                Some(Answer::Resp { rd, data }) => {
                    resp_v = true;
                    m.poke_u64("vresp_bits_rd", rd).unwrap();
                    m.poke_u64("vresp_bits_data", data).unwrap();
                }
                Some(Answer::Branch { taken }) => {
                    br_v = true;
                    m.poke_u64("vbranch_bits_taken", taken as u64).unwrap();
                }
                _ => {}
            }
            if due.is_some() {
                owed.pop_front();
            }
            m.poke_u64("vresp_valid", resp_v as u64).unwrap();
            m.poke_u64("vbranch_valid", br_v as u64).unwrap();
            vector_busy = vector_busy.saturating_sub(1);
            let vidle = owed.is_empty() && vector_busy == 0;
            m.poke_u64("vidle", vidle as u64).unwrap();
            // The unit's halt is the whole unit's policy (tests/hwacha_soc.rs): here
            // exceptions end blocks and nothing more.
            m.poke_u64("halt", 0).unwrap();
            let vrcmd_ready = rng.chance(60);
            m.poke_u64("vrcmd_ready", vrcmd_ready as u64).unwrap();
            mem.tick(m).unwrap();

            let mut active = !cmds.is_empty() || !owed.is_empty();
            let xcpt = (m.peek_u64("xcpt_valid").unwrap() == 1).then(|| {
                (
                    m.peek_u64("xcpt_bits_cause").unwrap(),
                    m.peek_u64("xcpt_bits_tval").unwrap(),
                )
            });
            if let Some(c) = cmds.front() {
                // An illegal command is never accepted: the core traps on it, as here.
                let trapped = xcpt == Some((2, instruction_bits(c) as u64));
                if trapped || m.peek_u64("cmd_ready").unwrap() == 1 {
                    assert!(
                        !(trapped && m.peek_u64("cmd_ready").unwrap() == 1),
                        "{}: an illegal command was accepted",
                        ctx(&o)
                    );
                    cmds.pop_front();
                }
            }
            if resp_ready && m.peek_u64("resp_valid").unwrap() == 1 {
                o.responses.push((
                    m.peek_u64("resp_bits_rd").unwrap(),
                    m.peek_u64("resp_bits_data").unwrap(),
                ));
            }
            if vissue_ready && m.peek_u64("vissue_valid").unwrap() == 1 {
                let got = Issue {
                    bits: m.peek_u64("vissue_bits_bits").unwrap(),
                    pc: m.peek_u64("vissue_bits_pc").unwrap(),
                    vlen: m.peek_u64("vissue_bits_vlen").unwrap(),
                    ops: ["s1", "s2", "s3", "a1", "a2"]
                        .map(|n| m.peek_u64(&format!("vissue_bits_{n}")).unwrap()),
                };
                let (want, answer) = e
                    .issues
                    .get(o.issues)
                    .unwrap_or_else(|| panic!("{}: extra vissue {got:x?}", ctx(&o)));
                assert_eq!(&got, want, "{}: vissue #{}", ctx(&o), o.issues);
                o.issues += 1;
                if *answer != Answer::None {
                    owed.push_back((now + rng.below(8) + 1, *answer));
                }
                vector_busy = rng.range(0, 6);
            }
            o.xcpts.extend(xcpt);
            observe(m, &mut o, vrcmd_ready);
            active |= m.peek_u64("busy").unwrap() == 1;
            quiet = if active { 0 } else { quiet + 1 };
            m.step();
        }
        compare(&o, e, &mem, &ctx(&o));
        o.cycles
    }
}

/// Drives the RoCC command `c` onto the unit's command port.
fn poke_command(m: &mut Model, c: &RoccCommand) {
    for (port, v) in [
        ("funct7", c.funct7 as u64),
        ("rs2", c.rs2 as u64),
        ("rs1", c.rs1 as u64),
        ("xd", c.xd as u64),
        ("xs1", c.xs1 as u64),
        ("xs2", c.xs2 as u64),
        ("rd", c.rd as u64),
        ("opcode", CUSTOM[c.opcode as usize & 3]),
        ("rs1_val", c.rs1_value),
        ("rs2_val", c.rs2_value),
    ] {
        m.poke_u64(&format!("cmd_bits_{port}"), v).unwrap();
    }
}

/// Records this cycle's VRCMDQ entry (if `vrcmd_ready`), vcfg announcement, register
/// writes and scalar stores.
fn observe(m: &mut Model, o: &mut Observed, vrcmd_ready: bool) {
    if vrcmd_ready && m.peek_u64("vrcmd_valid").unwrap() == 1 {
        let mut f = |n: &str| m.peek_u64(&format!("vrcmd_bits_{n}")).unwrap();
        let kind = f("cmd");
        let reg = if kind == vrcmd::VMCA { f("reg") } else { 0 };
        let vlen = if kind == vrcmd::VF { f("vlen") } else { 0 };
        o.vrcmds.push([kind, reg, f("value"), vlen]);
    }
    if m.peek_u64("vcfg_valid").unwrap() == 1 {
        o.vcfgs.push(m.peek_u64("vcfg_bits_vcfg").unwrap());
    }
    for unit in ["alu", "muldiv", "smu"] {
        if m.peek_u64(&format!("trace_{unit}_valid")).unwrap() == 1 {
            let rd = m.peek_u64(&format!("trace_{unit}_bits_rd")).unwrap();
            let data = m.peek_u64(&format!("trace_{unit}_bits_data")).unwrap();
            if rd != 0 {
                o.writes.entry(rd).or_default().push(data);
            }
        }
    }
    if m.peek_u64("dmem_req_valid").unwrap() == 1
        && m.peek_u64("dmem_req_ready").unwrap() == 1
        && m.peek_u64("dmem_req_bits_write").unwrap() == 1
    {
        let addr = m.peek_u64("dmem_req_bits_addr").unwrap();
        let size = 1u8 << m.peek_u64("dmem_req_bits_size").unwrap();
        let data = m.peek_u64("dmem_req_bits_data").unwrap() >> (8 * (addr & 7));
        let mask = u64::MAX >> (64 - 8 * size as u32);
        o.stores.push((addr, size, data & mask));
    }
}

/// Compares what the RTL did with what the golden model expects.
fn compare(o: &Observed, e: &Expected, mem: &MemoryModel, c: &str) {
    assert_eq!(o.issues, e.issues.len(), "{c}: vissue count");
    assert_eq!(o.responses, e.responses, "{c}: RoCC responses");
    assert_eq!(o.xcpts, e.xcpts, "{c}: exceptions");
    assert_eq!(o.vcfgs, e.vcfgs, "{c}: vcfg announcements");
    assert_eq!(o.vrcmds, e.vrcmds, "{c}: VRCMDQ entries");
    assert_eq!(o.stores, e.stores, "{c}: scalar stores");
    let mut regs: Vec<_> = e.writes.keys().chain(o.writes.keys()).copied().collect();
    regs.sort();
    regs.dedup();
    for r in regs {
        assert_eq!(o.writes.get(&r), e.writes.get(&r), "{c}: writes of vs{r}");
    }
    for a in (DATA..DATA + DATA_SIZE).step_by(8) {
        let mut buf = [0u8; 8];
        mem.memory().read(a, &mut buf);
        let want = e.memory.read(a, 8).unwrap();
        assert_eq!(u64::from_le_bytes(buf), want, "{c}: memory at {a:#x}");
    }
}

// ------------------------------------------------------------------ program generation

/// Which instruction classes a generated block draws from (weights).
#[derive(Clone, Copy)]
struct Mix {
    alu: u32,
    imm: u32,
    muldiv: u32,
    mem: u32,
    vector: u32,
    branch: u32,
    illegal: u32,
}

const RANDOM: Mix = Mix {
    alu: 6,
    imm: 6,
    muldiv: 3,
    mem: 5,
    vector: 4,
    branch: 2,
    illegal: 1,
};

const INT_OPS: [&str; 16] = [
    "vadd", "vaddu", "vsub", "vsll", "vslt", "vsltu", "vxor", "vsrl", "vsra", "vor", "vand",
    "vaddw", "vsubw", "vsllw", "vsrlw", "vsraw",
];
const MULDIV_OPS: [&str; 13] = [
    "vmul", "vmulh", "vmulhsu", "vmulhu", "vdiv", "vdivu", "vrem", "vremu", "vmulw", "vdivw",
    "vdivuw", "vremw", "vremuw",
];
const IMM_OPS: [&str; 6] = ["vaddi", "vslti", "vsltiu", "vandi", "vori", "vxori"];
const SHIFT_OPS: [&str; 3] = ["vslli", "vsrli", "vsrai"];
const SHIFTW_OPS: [&str; 3] = ["vslliw", "vsrliw", "vsraiw"];
const LOAD_SUFFIXES: [(&str, u64); 7] = [
    ("d", 8),
    ("w", 4),
    ("wu", 4),
    ("h", 2),
    ("hu", 2),
    ("b", 1),
    ("bu", 1),
];
const STORE_SUFFIXES: [(&str, u64); 4] = [("d", 8), ("w", 4), ("h", 2), ("b", 1)];

/// Shared registers: results in 1..=40, address temporaries 41..=47, pointers 48..=55
/// (set by vmcs into the data region), loop counters 56..=59.
struct Gen<'a> {
    rng: &'a mut Rng,
    /// The configuration the blocks are generated for.
    vv64: u64,
    vp: u64,
}

impl Gen<'_> {
    fn dst(&mut self) -> u64 {
        self.rng.range(1, 40) as u64
    }
    fn src(&mut self) -> u64 {
        if self.rng.chance(10) {
            0
        } else {
            self.rng.range(1, 55) as u64
        }
    }
    fn imm32(&mut self) -> u64 {
        let v = match self.rng.below(4) {
            0 => self.rng.below(64),
            1 => (-(self.rng.below(64) as i64)) as u64,
            _ => self.rng.next_u64(),
        };
        v & 0xffff_ffff
    }
    fn vv(&mut self) -> u64 {
        self.rng.below(self.vv64)
    }

    fn alu(&mut self) -> u64 {
        let op = *self.rng.pick(&INT_OPS);
        w(
            op,
            &[(Vrd, self.dst()), (Vrs1, self.src()), (Vrs2, self.src())],
        )
    }

    fn imm(&mut self) -> u64 {
        let (d, s) = (self.dst(), self.src());
        let shift = *self.rng.pick(&SHIFT_OPS);
        let shiftw = *self.rng.pick(&SHIFTW_OPS);
        let imm = *self.rng.pick(&IMM_OPS);
        match self.rng.below(5) {
            0 => w(shift, &[(Vrd, d), (Vrs1, s), (Vshamt, self.rng.below(64))]),
            1 => w(
                shiftw,
                &[(Vrd, d), (Vrs1, s), (Vshamtw, self.rng.below(32))],
            ),
            2 => {
                let op = if self.rng.chance(50) {
                    "vlui"
                } else {
                    "vauipc"
                };
                w(op, &[(Vrd, d), (Vimm, self.imm32())])
            }
            3 => w("vaddiw", &[(Vrd, d), (Vrs1, s), (Vimm, self.imm32())]),
            _ => w(imm, &[(Vrd, d), (Vrs1, s), (Vimm, self.imm32())]),
        }
    }

    fn muldiv(&mut self) -> u64 {
        let op = *self.rng.pick(&MULDIV_OPS);
        w(
            op,
            &[(Vrd, self.dst()), (Vrs1, self.src()), (Vrs2, self.src())],
        )
    }

    /// A scalar load or store (two instructions for the shared-register mode: the
    /// address into a temporary, then the access).
    fn mem(&mut self, out: &mut Vec<u64>) {
        let load = self.rng.chance(55);
        let (sfx, bytes) = if load {
            *self.rng.pick(&LOAD_SUFFIXES)
        } else {
            *self.rng.pick(&STORE_SUFFIXES)
        };
        let seglen = if self.rng.chance(75) {
            0
        } else {
            self.rng.below(4)
        };
        let mut off = self.rng.below(64) * bytes;
        if self.rng.chance(3) {
            off += 1; // misaligned unless bytes
        }
        let ptr = if self.rng.chance(3) {
            0
        } else {
            self.rng.range(48, 55) as u64
        };
        let (mode, addr_field) = if self.rng.chance(30) {
            (
                "a",
                (
                    Vars1,
                    if self.rng.chance(5) {
                        7
                    } else {
                        self.rng.below(6)
                    },
                ),
            )
        } else {
            let t = self.rng.range(41, 47) as u64;
            out.push(w("vaddi", &[(Vrd, t), (Vrs1, ptr), (Vimm, off)]));
            ("s", (Vrs1, t))
        };
        let name = format!("v{}{mode}seg{sfx}", if load { "l" } else { "s" });
        let data = if load {
            (Vrd, self.dst())
        } else {
            (Vrs2, self.src())
        };
        out.push(w(&name, &[addr_field, data, (Vseglen, seglen)]));
    }

    fn vector(&mut self) -> u64 {
        let pred = if self.rng.chance(70) {
            0
        } else {
            self.rng.below(self.vp)
        };
        match self.rng.below(8) {
            0 => w(
                "vadd",
                &[
                    (Vd, 1),
                    (Vs1, 1),
                    (Vrd, self.vv()),
                    (Vrs1, self.vv()),
                    (Vrs2, self.src()),
                    (Vpred, pred),
                ],
            ),
            1 => w(
                "vmul",
                &[
                    (Vd, 1),
                    (Vs2, 1),
                    (Vrd, self.vv()),
                    (Vrs1, self.src()),
                    (Vrs2, self.vv()),
                    (Vpred, pred),
                ],
            ),
            2 => w(
                "veidx",
                &[(Vrd, self.vv()), (Vrs1, self.src()), (Vpred, pred)],
            ),
            3 => w(
                "vcmplt",
                &[
                    (Vprd, self.rng.below(self.vp)),
                    (Vrs1, self.src()),
                    (Vrs2, self.src()),
                    (Vpred, pred),
                ],
            ),
            // Segments of up to four registers (past the last one: illegal).
            4 => w(
                "vlsegd",
                &[
                    (Vrd, self.vv()),
                    (Vars1, self.rng.below(6)),
                    (Vseglen, self.rng.below(4)),
                    (Vpred, pred),
                ],
            ),
            // (No indexed ones: their addresses come from vector registers, whose
            // faults the bench, playing the vector side, does not raise.)
            5 => w(
                "vlsegstw",
                &[
                    (Vrd, self.vv()),
                    (Vars1, self.rng.below(6)),
                    (Vars2, 6),
                    (Vseglen, self.rng.below(4)),
                    (Vpred, pred),
                ],
            ),
            6 => w(
                "vfirst",
                &[(Vrd, self.dst()), (Vrs1, self.vv()), (Vpred, pred)],
            ),
            _ => {
                let op = *self.rng.pick(&["vfadd.d", "vfmul.d", "vfsub.s"]);
                w(
                    op,
                    &[(Vrd, self.dst()), (Vrs1, self.src()), (Vrs2, self.src())],
                )
            }
        }
    }

    /// Mostly illegal instructions, one per rule of `Insn::check` (which of them are
    /// illegal is the model's call: some are legal under some configurations).
    fn illegal(&mut self) -> u64 {
        let narrow = self.vv64 + self.rng.below(4);
        let (vv, vp) = (self.vv(), self.vp);
        match self.rng.below(13) {
            0 => w("vadd", &[(Vrd, 3), (Vrs1, 4), (Vrs2, 5), (Vpred, 1)]),
            1 => w(
                "vadd",
                &[(Vd, 1), (Vs1, 1), (Vrd, 200), (Vrs1, 0), (Vrs2, 1)],
            ),
            2 => w("vadd", &[(Vs1, 1), (Vrd, 3), (Vrs1, 0), (Vrs2, 1)]),
            3 => w("vcjal", &[(Vcimm, 1), (Vcond, self.rng.range(2, 3) as u64)]),
            4 => w(
                "vfadd.d",
                &[
                    (Vrd, 3),
                    (Vrs1, 4),
                    (Vrs2, 5),
                    (Vrm, self.rng.range(5, 7) as u64),
                ],
            ),
            5 => w("vfmul.d", &[(Vrd, 3), (Vrs1, 4), (Vrs2, 5), (Vpred, 1)]),
            6 => w(
                "vlssegd",
                &[
                    (Vrd, self.rng.range(58, 63) as u64),
                    (Vrs1, 48),
                    (Vseglen, 3),
                ],
            ),
            7 => w(
                "vsssegw",
                &[
                    (Vrs2, self.rng.range(58, 63) as u64),
                    (Vrs1, 48),
                    (Vseglen, 3),
                ],
            ),
            8 => w(
                "vaddw",
                &[(Vd, 1), (Vs1, 1), (Vrd, narrow), (Vrs1, vv), (Vrs2, 1)],
            ),
            9 => w(
                "vlsegd",
                &[(Vrd, narrow), (Vars1, 1), (Vseglen, self.rng.below(2))],
            ),
            10 => w(
                "vcmplt",
                &[
                    (Vprd, vp),
                    (Vrs1, 1),
                    (Vrs2, 2),
                    (Vpred, self.rng.below(vp + 1)),
                ],
            ),
            11 => w("vamoadd.w", &[(Vrd, 3), (Vrs1, 48), (Vrs2, 4)]),
            // A word no encoding line matches.
            _ => loop {
                let bits = self.rng.next_u64() | 0x3f;
                if table().decode(Thread::Worker, bits).is_none() {
                    break bits;
                }
            },
        }
    }

    /// A block of about `n` instructions ending in vstop; forward consensual jumps and
    /// counted loops (vcmplt of shared registers into vp1, vcjal any back) in `branch`.
    fn block(&mut self, n: usize, mix: Mix) -> Vec<u64> {
        let mut out = Vec::new();
        let weights = [
            mix.alu,
            mix.imm,
            mix.muldiv,
            mix.mem,
            mix.vector,
            mix.branch,
            mix.illegal,
        ];
        let total: u32 = weights.iter().sum();
        while out.len() < n {
            let mut r = self.rng.below(total as u64) as u32;
            let class = weights.iter().position(|&wt| {
                if r < wt {
                    true
                } else {
                    r -= wt;
                    false
                }
            });
            match class.unwrap() {
                0 => out.push(self.alu()),
                1 => out.push(self.imm()),
                2 => out.push(self.muldiv()),
                3 => self.mem(&mut out),
                4 => out.push(self.vector()),
                5 => self.branch(&mut out),
                _ => out.push(self.illegal()),
            }
        }
        if self.rng.chance(20) {
            out.push(w("vfence", &[]));
        }
        out.push(w("vstop", &[]));
        out
    }

    fn branch(&mut self, out: &mut Vec<u64>) {
        if self.vp >= 2 && self.rng.chance(50) {
            // vpT all ones (vpop of truth table 0xff), then a loop of `n` passes that
            // recomputes vpT = (0 < counter) under vpT and jumps back while any is set.
            let t = self.vp - 1;
            let c = self.rng.range(56, 59) as u64;
            out.push(w("vpop", &[(Vprd, t), (Vpfunc, 0xff)]));
            out.push(w(
                "vaddi",
                &[(Vrd, c), (Vrs1, 0), (Vimm, self.rng.range(1, 3) as u64)],
            ));
            let top = out.len();
            for _ in 0..self.rng.range(1, 3) {
                let i = self.alu();
                out.push(i);
            }
            out.push(w("vaddi", &[(Vrd, c), (Vrs1, c), (Vimm, 0xffff_ffff)]));
            out.push(w("vcmplt", &[(Vprd, t), (Vrs1, 0), (Vrs2, c), (Vpred, t)]));
            let back = top as i64 - out.len() as i64;
            let jr = self.dst();
            out.push(w(
                "vcjal",
                &[
                    (Vcimm, back as u64 & ((1 << 29) - 1)),
                    (Vcond, 1),
                    (Vpred, t),
                    (Vrd, jr),
                ],
            ));
        } else {
            // Forward over up to two instructions (which follow), all or any.
            let skip = self.rng.range(1, 3) as u64;
            let pred = self.rng.below(self.vp.max(1));
            let cond = self.rng.below(2);
            if self.rng.chance(70) {
                out.push(w(
                    "vcjal",
                    &[
                        (Vcimm, skip),
                        (Vcond, cond),
                        (Vpred, pred),
                        (Vrd, self.dst()),
                    ],
                ));
            } else {
                // Through a register holding this block's pc: vauipc 0 gives the pc.
                let r = self.rng.range(41, 47) as u64;
                out.push(w("vauipc", &[(Vrd, r), (Vimm, 0)]));
                out.push(w(
                    "vcjalr",
                    &[
                        (Vcimm, skip + 1),
                        (Vcond, cond),
                        (Vpred, pred),
                        (Vrd, self.dst()),
                        (Vrs1, r),
                    ],
                ));
            }
            for _ in 0..skip {
                let i = self.alu();
                out.push(i);
            }
        }
    }
}

/// vmcs of every shared register vs1-vs63 to a random value from `seed`: the scalar
/// register files have no reset, so a session sets every register a block may read
/// before its first block (from a stream of its own, so that the blocks drawn after
/// it stay as they were).
fn set_shared(seed: u64) -> Vec<RoccCommand> {
    let mut values = Rng::new(seed ^ 0x5eed_0000);
    (1..64).map(|r| vmcs(r, values.next_u64())).collect()
}

/// A session: configuration, shared registers, pointer and address registers, then `blocks` blocks with
/// vsetvl/vgetvl/vgetcfg/vmcs/vmca between them, occasional reconfiguration, vuncfg,
/// illegal commands, a vf of vlen 0 and bad vf addresses.
fn session(seed: u64, blocks: usize, len: usize, mix: Mix, control_noise: bool) -> Session {
    let mut rng = Rng::new(seed);
    let mut cmds = Vec::new();
    let mut image = Vec::new();
    let mut data = vec![0u8; DATA_SIZE as usize];
    for b in data.iter_mut() {
        *b = rng.next_u64() as u8;
    }
    image.push((DATA, data));
    let pick_cfg = |rng: &mut Rng| {
        (
            rng.range(2, 8) as u64,
            rng.range(2, 4) as u64,
            rng.range(0, 2) as u64,
            rng.range(0, 1) as u64,
        )
    };
    let (mut vv64, mut vp, vv32, vv16) = pick_cfg(&mut rng);
    cmds.push(vsetcfg(cfg(vv64, vp, vv32, vv16)));
    cmds.extend(set_shared(seed));
    for r in 48..=55 {
        cmds.push(vmcs(r, (DATA + rng.below(DATA_SIZE / 2)) & !7));
    }
    for r in 0..6 {
        cmds.push(vmca(r, (DATA + rng.below(DATA_SIZE / 2)) & !7));
    }
    cmds.push(vmca(6, 16));
    cmds.push(vmca(7, 0x40));
    cmds.push(vsetvl(rng.range(1, 32) as u64));
    for b in 0..blocks {
        let addr = BASE + 0x400 * b as u64;
        let mut g = Gen {
            rng: &mut rng,
            vv64,
            vp,
        };
        let code = g.block(len, mix);
        let bytes: Vec<u8> = code.iter().flat_map(|i| i.to_le_bytes()).collect();
        assert!(bytes.len() <= 0x400);
        image.push((addr, bytes));
        cmds.push(vf(addr));
        for _ in 0..rng.below(3) {
            cmds.push(match rng.below(6) {
                0 => vsetvl(rng.below(40)),
                1 => ctl("vgetvl", &[(Rd, rng.below(32))], 0),
                2 => ctl("vgetcfg", &[(Rd, rng.below(32))], 0),
                3 => vmcs(rng.below(41), rng.next_u64()),
                4 => vmca(rng.below(6), (DATA + rng.below(DATA_SIZE / 2)) & !7),
                _ => vf(addr),
            });
        }
        if control_noise {
            match rng.below(10) {
                0 => {
                    let c = pick_cfg(&mut rng);
                    (vv64, vp) = (c.0, c.1);
                    cmds.push(vsetcfg(cfg(c.0, c.1, c.2, c.3)));
                    cmds.push(vsetvl(rng.range(1, 32) as u64));
                }
                1 => {
                    cmds.push(ctl("vuncfg", &[], 0));
                    cmds.push(vsetvl(5)); // illegal: unconfigured
                    cmds.push(vf(addr));
                    cmds.push(vsetcfg(cfg(vv64, vp, 0, 0)));
                    cmds.push(vsetvl(rng.range(1, 32) as u64));
                }
                2 => cmds.push(vmcs(64 + rng.below(192), 1)),
                3 => cmds.push(ctl("vxcptcause", &[(Rd, 3)], 0)),
                4 => cmds.push(vsetcfg(cfg(200, 4, 100, 0))),
                5 => cmds.push(vf(addr + 4)),
                6 => cmds.push(vf(BASE + SIZE)),
                _ => {}
            }
        }
    }
    Session { cmds, image }
}

/// Corner operands: every scalar register-register op (ALU and multiply/divide) on
/// every ordered pair of a set of corner values (0, 1, -1, MIN, MAX, 32-bit edges), every
/// immediate op with corner immediates, and the shift amounts 0, 1, 31, 32, 63.
fn corner_session() -> Session {
    const CORNERS: [u64; 8] = [
        0,
        1,
        u64::MAX,
        1 << 63,
        (1 << 63) - 1,
        0x8000_0000,
        0xffff_ffff,
        0x7fff_ffff,
    ];
    let mut cmds = vec![vsetcfg(cfg(4, 2, 0, 0)), vsetvl(4)];
    for (i, &v) in CORNERS.iter().enumerate() {
        cmds.push(vmcs(1 + i as u64, v));
    }
    let mut code = Vec::new();
    let corner = |i: usize| 1 + i as u64;
    for op in INT_OPS.iter().chain(&MULDIV_OPS) {
        for a in 0..CORNERS.len() {
            for b in 0..CORNERS.len() {
                code.push(w(op, &[(Vrd, 20), (Vrs1, corner(a)), (Vrs2, corner(b))]));
            }
        }
    }
    for a in 0..CORNERS.len() {
        for imm in [0u64, 1, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff] {
            for op in IMM_OPS.iter().chain(&["vaddiw"]) {
                code.push(w(op, &[(Vrd, 21), (Vrs1, corner(a)), (Vimm, imm)]));
            }
            code.push(w("vlui", &[(Vrd, 22), (Vimm, imm)]));
            code.push(w("vauipc", &[(Vrd, 22), (Vimm, imm)]));
        }
        for sh in [0u64, 1, 31, 32, 63] {
            for op in SHIFT_OPS {
                code.push(w(op, &[(Vrd, 23), (Vrs1, corner(a)), (Vshamt, sh)]));
            }
            for op in SHIFTW_OPS {
                code.push(w(op, &[(Vrd, 23), (Vrs1, corner(a)), (Vshamtw, sh & 31)]));
            }
        }
    }
    let mut image = vec![(DATA, vec![0; 8])];
    // Blocks of at most 127 instructions and a vstop, 0x400 bytes apart.
    for (b, chunk) in code.chunks(127).enumerate() {
        let addr = BASE + 0x400 * b as u64;
        let bytes: Vec<u8> = chunk
            .iter()
            .chain(&[w("vstop", &[])])
            .flat_map(|i| i.to_le_bytes())
            .collect();
        image.push((addr, bytes));
        cmds.push(vf(addr));
    }
    assert!(image.len() <= 33, "the blocks fit the code region");
    Session { cmds, image }
}

/// The control thread alone: maxvl over many configurations (vsetvl with a huge
/// request answers maxvl), vgetcfg, vgetvl, illegal configurations, commands while
/// unconfigured, vmcs out of range, unsupported commands, vf with vlen 0.
fn control_session(seed: u64) -> Session {
    let mut rng = Rng::new(seed);
    let mut cmds = vec![
        vsetvl(3),
        ctl("vgetcfg", &[(Rd, 1)], 0),
        vmcs(1, 1),
        vf(BASE),
    ];
    for _ in 0..60 {
        let c = cfg(
            rng.below(257),
            rng.below(17),
            {
                let wide = rng.chance(50);
                rng.below(if wide { 257 } else { 3 })
            },
            rng.below(3),
        );
        cmds.push(vsetcfg(c));
        cmds.push(vsetvl(u64::MAX - rng.below(3)));
        cmds.push(ctl("vgetcfg", &[(Rd, rng.below(32))], 0));
        cmds.push(vsetvl(rng.below(600)));
        cmds.push(ctl("vgetvl", &[(Rd, rng.below(32))], 0));
        if rng.chance(20) {
            cmds.push(ctl("vuncfg", &[], 0));
            cmds.push(ctl("vgetvl", &[(Rd, 2)], 0));
        }
        if rng.chance(20) {
            cmds.push(vmcs(rng.below(256), 7));
        }
        if rng.chance(20) {
            cmds.push(ctl("vxcptkill", &[], 0));
        }
    }
    cmds.push(vsetcfg(cfg(4, 2, 0, 0)));
    cmds.push(vf(BASE)); // vlen 0: dropped, although the block does not exist
    Session {
        cmds,
        image: vec![(DATA, vec![0; 8])],
    }
}

// ------------------------------------------------------------------ tests

/// The configurations under test: the thesis default and a small one (with mixed
/// precision, whose maxvl packs narrow registers), and with
/// `ACCELGEN_LONG` a wide one (each costs a Verilator build of about 40 s).
fn configs() -> Vec<(&'static str, RtlParams)> {
    let small = RtlParams {
        lanes: 2,
        banks: 2,
        bank_entries: 64,
        bank_width: 64,
        pred_entries: 32,
        icache_sets: 4,
        icache_ways: 1,
        icache_line_bytes: 16,
        vcmdq_entries: 2,
        vrcmdq_entries: 2,
        idiv_bits_per_cycle: 2,
        stages_imul: 1,
        mixed_precision: true,
        ..RtlParams::default()
    };
    let wide = RtlParams {
        lanes: 8,
        banks: 8,
        bank_entries: 1024,
        bank_width: 256,
        pred_entries: 128,
        icache_sets: 8,
        icache_ways: 4,
        icache_line_bytes: 32,
        vcmdq_entries: 5,
        idiv_bits_per_cycle: 4,
        stages_imul: 2,
        ..RtlParams::default()
    };
    let mut v = vec![("default", RtlParams::default()), ("small", small)];
    if long() {
        v.push(("wide", wide));
    }
    v
}

/// What the sessions of one configuration covered (from the checked expectations).
#[derive(Default, Debug)]
struct Coverage {
    cycles: u64,
    blocks: u64,
    responses: usize,
    issues: usize,
    vresps: usize,
    taken: usize,
    not_taken: usize,
    reg_writes: usize,
    stores: usize,
    /// Exceptions by cause (0..=7).
    causes: [usize; 8],
    /// Illegal worker instructions by reason.
    illegal: std::collections::BTreeMap<String, usize>,
}

impl Coverage {
    fn add(&mut self, e: &Expected) {
        self.responses += e.responses.len();
        self.issues += e.issues.len();
        for (_, a) in &e.issues {
            match a {
                Answer::Resp { .. } => self.vresps += 1,
                Answer::Branch { taken: true } => self.taken += 1,
                Answer::Branch { taken: false } => self.not_taken += 1,
                Answer::None => {}
            }
        }
        self.reg_writes += e.writes.values().map(Vec::len).sum::<usize>();
        self.stores += e.stores.len();
        for (cause, _) in &e.xcpts {
            self.causes[*cause as usize] += 1;
        }
        for r in &e.illegal {
            *self.illegal.entry(r.clone()).or_default() += 1;
        }
    }
}

/// Runs `s` under every memory timing (or the one of `timing`).
fn check(
    bench: &mut Bench,
    p: &RtlParams,
    s: &Session,
    seed: u64,
    what: &str,
    all: bool,
    cov: &mut Coverage,
) {
    let e = golden(p, s);
    cov.add(&e);
    for (i, t) in TIMINGS.iter().enumerate() {
        if all || i as u64 == seed % 3 {
            cov.cycles += bench.run(s, &e, *t, seed + i as u64, what);
        }
    }
}

fn mix(w: [u32; 7]) -> Mix {
    let [alu, imm, muldiv, mem, vector, branch, illegal] = w;
    Mix {
        alu,
        imm,
        muldiv,
        mem,
        vector,
        branch,
        illegal,
    }
}

#[test]
fn frontend_matches_the_golden_model() {
    for (name, p) in configs() {
        let mut bench = Bench::new(&p);
        let mut cov = Coverage::default();
        check_warm_throughput(&mut bench, &p);
        // Directed classes: weights of alu, imm, muldiv, mem, vector, branch, illegal.
        let directed = [
            ("alu", mix([5, 5, 0, 0, 0, 0, 0])),
            ("muldiv", mix([1, 1, 6, 0, 0, 0, 0])),
            ("memory", mix([1, 1, 0, 8, 0, 0, 0])),
            ("vector", mix([1, 1, 0, 0, 8, 0, 0])),
            ("branch", mix([1, 1, 0, 0, 1, 6, 0])),
            ("illegal", mix([3, 1, 1, 1, 1, 0, 2])),
        ];
        let what = format!("{name} corners");
        check(&mut bench, &p, &corner_session(), 2, &what, true, &mut cov);
        let what = format!("{name} control");
        check(
            &mut bench,
            &p,
            &control_session(1),
            1,
            &what,
            true,
            &mut cov,
        );
        for (i, (class, mix)) in directed.iter().enumerate() {
            for k in 0..8u64 {
                let seed = 100 + 10 * i as u64 + k;
                let s = session(seed, 3, 24, *mix, false);
                cov.blocks += 3;
                let what = format!("{name} {class} seed {seed}");
                check(&mut bench, &p, &s, seed, &what, true, &mut cov);
            }
        }
        let random = if long() { 2000 } else { 200 };
        let mut seed = 10_000;
        let start = cov.blocks;
        while cov.blocks - start < random {
            let s = session(seed, 4, 30, RANDOM, true);
            cov.blocks += 4;
            let what = format!("{name} random seed {seed}");
            check(&mut bench, &p, &s, seed, &what, false, &mut cov);
            seed += 1;
        }
        println!("{name}: {cov:?}");
        // Every kind of event occurred.
        assert!(
            cov.responses > 100 && cov.issues > 500 && cov.vresps > 50,
            "{cov:?}"
        );
        assert!(
            cov.taken > 20 && cov.not_taken > 20 && cov.stores > 100,
            "{cov:?}"
        );
        for cause in [0, 1, 2, 4, 5, 6, 7] {
            assert!(
                cov.causes[cause] > 0,
                "no exception of cause {cause}: {cov:?}"
            );
        }
    }
}

/// A block of independent ALU instructions that fits the I$, run once and then three
/// times more from the warm I$ (memory latency 1): the extra runs cost about one cycle
/// per instruction.
fn check_warm_throughput(bench: &mut Bench, p: &RtlParams) {
    let capacity = (p.icache_sets * p.icache_ways * p.icache_line_bytes / 8) as u64;
    let n = (capacity - 1).min(48);
    let mut rng = Rng::new(3);
    let mut g = Gen {
        rng: &mut rng,
        vv64: 4,
        vp: 2,
    };
    let code: Vec<u64> = (0..n).map(|_| g.alu()).chain([w("vstop", &[])]).collect();
    let bytes: Vec<u8> = code.iter().flat_map(|i| i.to_le_bytes()).collect();
    let runs = |k: usize| {
        let mut cmds = vec![vsetcfg(cfg(4, 2, 0, 0)), vsetvl(8)];
        cmds.extend(set_shared(3));
        cmds.extend((0..k).map(|_| vf(BASE)));
        Session {
            cmds,
            image: vec![(BASE, bytes.clone())],
        }
    };
    let (one, four) = (runs(1), runs(4));
    let c1 = bench.run(&one, &golden(p, &one), TIMINGS[0], 1, "one run");
    let c4 = bench.run(&four, &golden(p, &four), TIMINGS[0], 1, "four runs");
    let per_run = (c4 - c1) / 3;
    println!("{n} + 1 instructions: {per_run} cycles per warm run");
    assert!(
        per_run <= n + 8,
        "{per_run} cycles for a warm run of {n} + 1"
    );
}

#[test]
fn frontend_is_lint_clean() {
    for (name, p) in configs() {
        let top = frontend(
            &p,
            RamWindow {
                base: BASE,
                size: SIZE,
            },
        )
        .unwrap();
        let design = Design::new(&top);
        let verilog = hdl::emit::emit(&design, &Default::default()).single_file();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("frontend.v"), verilog).unwrap();
        let target = LintTarget {
            dir: dir.path().to_path_buf(),
            files: vec!["frontend.v".into()],
            top: design.top_name().to_string(),
        };
        let verdicts = run_all(&target).unwrap_or_else(|e| panic!("{e}"));
        let problems: Vec<String> = verdicts
            .iter()
            .filter(|v| !v.clean)
            .map(|v| format!("{name}: {}:\n{}", v.tool, v.output))
            .collect();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
